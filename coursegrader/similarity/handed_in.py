"""What a submission that failed to grade holds, read from the hand-in itself.

A submission that could not be graded has no record (its grading failed, and
the record of an earlier submission no longer describes what the student
handed in), yet what it holds must still be compared: otherwise a student
could shed a similarity flag by making her latest hand-in ungradable (a
character no encoding takes in a written answer, a thousand empty cells).
:func:`handed_in_answers` reads the submitted notebook and the modules beside
it as the judge's record would keep them
(:func:`coursegrader.judging.cells.student_cells`,
:func:`coursegrader.judging.modules.student_modules`), within the bytes of
:class:`~coursegrader.preprocessors.bound_submission.BoundSubmission`: a file
over ``max_bytes`` is not read.  The notebook is not validated (what failed
it may be what validation refuses); a lone surrogate, which no encoding takes,
is read as U+FFFD.  :class:`NotGraded` makes the compared material of each
such submission of a problem set, and says which were read so and which not.
"""

import json
import os
from pathlib import Path

import nbformat
from nbformat.v4.rwbase import rejoin_lines

from ..judging.cells import student_cells
from ..judging.modules import MODULE, student_modules
from ..record import ANSWER_BYTES
from .material import material_of, uncomparable

__all__ = ["NotReadable", "handed_in_answers", "NotGraded"]


class NotReadable(ValueError):
    """The hand-in could not be read within the bounds: the message says why."""


def _text(value):
    """``value`` with every lone surrogate made U+FFFD (a paired one is a character)."""
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _plain(node):
    if isinstance(node, str):
        return _text(node)
    if isinstance(node, list):
        return [_plain(x) for x in node]
    if isinstance(node, dict):
        return {_text(k): _plain(v) for k, v in node.items()}
    return node


def handed_in_answers(folder, notebook, max_bytes):
    """The cells the student wrote in ``folder/notebook`` and the Python modules beside
    it, as a record keeps them (:class:`~coursegrader.record.AnswerCode` s, with
    what was left out counted in ``omitted``); :class:`NotReadable` when the
    notebook is missing, over ``max_bytes`` or not a notebook."""
    path = Path(folder) / notebook
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            raise NotReadable(f"{notebook} has {size:,} bytes, more than the {max_bytes:,} "
                              "read (c.BoundSubmission.max_bytes)")
        with open(path, "rb") as f:
            data = json.loads(f.read(max_bytes + 1))
    except OSError as exc:
        raise NotReadable(f"{notebook} could not be read ({exc.strerror})") from None
    except ValueError as exc:
        raise NotReadable(f"{notebook} is not JSON ({exc})"[:300]) from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotReadable(f"{notebook} is not a notebook (no list of cells)")
    cells = [c for c in _plain(data["cells"]) if isinstance(c, dict)
             and isinstance(c.get("source", ""), (str, list))]
    nb = rejoin_lines(nbformat.from_dict({"cells": cells}))
    for cell in nb.cells:
        cell.setdefault("cell_type", "raw")
        cell.setdefault("source", "")
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = nbformat.from_dict({})
    return student_cells(nb, ANSWER_BYTES) + student_modules(folder, ANSWER_BYTES)


class NotGraded:
    """The submissions of a problem set whose latest hand-in failed to grade
    (``reasons``: {student: why}), and how each is compared: as handed in
    (``variant_of(student)``: the label of the variant the student is graded on,
    or None); ``compared``: [(student, why)] of those read so."""

    def __init__(self, reasons, variant_of=lambda student: None, max_bytes=10 * 1024**2):
        self.reasons, self.variant_of, self.max_bytes = reasons, variant_of, max_bytes
        self.compared = []

    def material(self, coursedir, ps, student, scaffold, check, boiler, skipped):
        why = self.reasons[student]
        folder = Path(coursedir.format_path(coursedir.submitted_directory, student, ps))
        try:
            answers = handed_in_answers(folder, f"{ps}.ipynb", self.max_bytes)
            material = material_of(
                student, answers, scaffold, check, boiler,
                omitted=sum(a.omitted for a in answers if a.cell_type != MODULE),
                variant=self.variant_of(student))
        except NotReadable as exc:
            skipped.append(f"{student}: its latest hand-in failed to grade ({why}) and "
                           f"could not be read as handed in: {exc}; look at it yourself")
            return None
        except Exception as exc:   # what one student wrote must not stop the others
            material = uncomparable(student, exc, check, boiler)
        self.compared.append((student, why))
        return material
