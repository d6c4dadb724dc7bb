"""The course's grader (instructor only).

Problem sets describe their parts in :mod:`coursecheck` (public cases, the
check students run); the course folder's ``hidden/`` adds each part's hidden
cases (:mod:`coursegrader.judging.problem_sets`), and the grade itself is
computed outside the student's process by the nbgrader preprocessor
:class:`coursegrader.preprocessors.JudgeSubmission`.  A source notebook's hidden
tests call :func:`check_hidden`.
"""

from .judging.hidden_checks import check_hidden

__all__ = ["check_hidden"]
