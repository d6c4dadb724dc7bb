"""The course's grader (instructor only).

Problem sets describe their parts in :mod:`coursecheck` (public cases, the
check students run); :mod:`coursegrader.problems` adds each part's hidden
cases, and the grade itself is computed outside the student's process by the
nbgrader preprocessor :class:`coursegrader.preprocessors.JudgeTests`.
"""

from .judging.hidden_checks import check_hidden
from .judging.problem_sets import get_part, get_parts

__all__ = ["check_hidden", "get_part", "get_parts"]
