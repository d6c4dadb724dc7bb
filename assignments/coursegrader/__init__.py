"""Grading helpers for the course assignments.

Students call :func:`check` in their notebooks; problem sets describe their
parts with :class:`Part` and :class:`Case` (see :mod:`coursegrader.spec`);
the grade itself is computed outside the student's process by the nbgrader
preprocessor :class:`coursegrader.preprocessor.JudgeTests`.
"""

from .check import CheckFailed, check
from .spec import Case, Part, allclose, custom, equal, same_set

__all__ = ["check", "CheckFailed", "Part", "Case", "allclose", "same_set", "custom", "equal"]
