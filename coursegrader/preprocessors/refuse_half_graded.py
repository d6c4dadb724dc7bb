"""RefuseHalfGraded: no feedback for a submission with parts still to grade by hand.

Formgrader's "Generate Feedback" and ``make feedback`` both run nbgrader's
``generate_feedback``, with ``GenerateFeedback.preprocessors``: this one comes
first, so a submission whose written answers nobody has marked yet (nbgrader's
``needs_manual_grade``) gets no feedback page, and its old page, if any, is
removed; the message names the parts, and nbgrader shows it in its log
(Formgrader's error dialog, the terminal). Feedback that was never written
cannot be released. ``c.RefuseHalfGraded.allow_ungraded = True`` (``make
feedback FORCE=1``) writes it anyway, and the page says that the grade is
provisional.
"""

import warnings

from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning
from traitlets import Bool

from ..gradebook import half_graded_refusal, ungraded_parts
from .base import HTMLExportablePreprocessor

__all__ = ["HalfGradedError", "RefuseHalfGraded"]


class HalfGradedError(RuntimeError):
    """A submission still has parts to grade by hand."""


class RefuseHalfGraded(HTMLExportablePreprocessor):
    """Refuse the feedback of a submission that still has parts to grade by hand."""

    allow_ungraded = Bool(
        False,
        help="Write feedback even for a submission with parts still to grade by hand "
             "(make feedback FORCE=1); the page then says the grade is provisional."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            with Gradebook(info["db_url"]) as gb:
                parts = ungraded_parts(gb, [info["assignment"]], info["student"])
        info["ungraded_parts"] = [p.part for p in parts]
        if parts and not self.allow_ungraded:
            message = half_graded_refusal(
                parts, f"no feedback for {info['student']} on {info['assignment']}",
                "write it as provisional with make feedback FORCE=1")
            self.log.error(message)
            raise HalfGradedError(message)
        return nb, resources
