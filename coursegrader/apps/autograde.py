"""nbgrader's autograde of one submission, with why it failed kept as data.

nbgrader's own API (``NbGraderAPI.autograde``) reports a failed submission
as the text of its log and a traceback, which can hold what the student
wrote.  :func:`autograde` runs the same converter, nbgrader's ``Autograde``,
and keeps the exception that failed the submission, as a :class:`Failure`:
its type, its message and whether it was the gradebook being locked by
another writer.  Nothing reads the log to find out.
"""

import io
import logging
import sqlite3
from dataclasses import dataclass
from typing import Optional

from nbgrader.converters import Autograde
from nbgrader.utils import temp_attrs

from ..preprocessors.bound_submission import BoundSubmission, NotebookTooLarge

__all__ = ["Failure", "autograde"]


@dataclass(frozen=True)
class Failure:
    """Why a submission could not be graded: the exception's ``kind`` (its class's name)
    and ``message``; ``locked``: the gradebook was locked by another writer;
    ``bound``: for a notebook refused by a bound of
    :class:`~coursegrader.preprocessors.bound_submission.BoundSubmission`, its
    setting, limit and what was found (``{"setting": "max_cells", "limit": 1000,
    "found": 50014}``), else None."""

    kind: str
    message: str
    locked: bool = False
    bound: Optional[dict] = None

    def __str__(self):
        return f"{self.kind}: {self.message}" if self.message else self.kind


def _locked(exc):
    """Whether ``exc`` is SQLite's answer that another writer holds the gradebook."""
    original = getattr(exc, "orig", exc)
    return isinstance(original, sqlite3.OperationalError) and getattr(
        original, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")


def _failure(exc):
    bound = (dict(setting=exc.setting, limit=exc.limit, found=exc.found)
             if isinstance(exc, NotebookTooLarge) else None)
    return Failure(type(exc).__name__, str(exc)[:2000], _locked(exc), bound)


class _Autograde(Autograde):
    """nbgrader's Autograde, keeping the first exception that failed the submission,
    and refusing a notebook over the course's bounds before it is read
    (:class:`~coursegrader.preprocessors.bound_submission.BoundSubmission`)."""

    failure = None

    def _keep(self, step, *args):
        try:
            return step(*args)
        except Exception as exc:
            self.failure = self.failure or _failure(exc)
            raise

    def init_assignment(self, assignment_id, student_id):
        return self._keep(super().init_assignment, assignment_id, student_id)

    def convert_single_notebook(self, notebook_filename):
        def bounded(filename):
            BoundSubmission(parent=self).check_file(filename)
            return super(_Autograde, self).convert_single_notebook(filename)
        return self._keep(bounded, notebook_filename)


def autograde(api, assignment, student):
    """Autograde ``student``'s submission to ``assignment`` with nbgrader's ``Autograde``
    under ``api`` (an ``NbGraderAPI``: its course folder and configuration).

    Returns ``(None, log)`` when it was graded, else ``(Failure, log)``; ``log``
    is what nbgrader logged meanwhile, kept for a person to read.
    """
    with temp_attrs(api.coursedir, assignment_id=assignment, student_id=student):
        app = _Autograde(coursedir=api.coursedir, parent=api)
        app.force = True
        app.create_student = True
        buffer = io.StringIO()
        handler = logging.StreamHandler(buffer)
        handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
        app.log.addHandler(handler)
        try:
            app.start()
            failure = None
        except Exception as exc:   # nbgrader's own error, or what it re-raised
            failure = app.failure or _failure(exc)
        finally:
            app.log.removeHandler(handler)
    return failure, buffer.getvalue()
