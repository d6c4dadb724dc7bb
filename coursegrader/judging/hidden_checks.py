"""The hidden tests of a source notebook: ``check_hidden("ps1", "part", func)``.

A source notebook's test cell runs the public check, then, in its hidden-test
region (removed from the student's version), this function: the part's hidden
cases drawn from a fixed local stream, so ``make validate`` can see that the
reference solution passes cases like the grader's.  The grade itself draws
hidden cases per student from the course secret (:mod:`coursegrader.judging.judge`).
"""

from coursecheck.check import check_cases
from coursecheck.variants import bind, student_variant

from ..settings import find_course
from .problem_sets import graded_part, local_hidden_rng

__all__ = ["check_hidden"]


def check_hidden(assignment, part_id, func, *, course=None):
    """Check ``func`` on hidden-style cases of a part; raise CheckFailed if one fails.

    The hidden half comes from the course folder ``course``, by default the one
    holding the current folder (a source notebook runs in ``source/psN/``).  A
    part that varies is checked on the variant the notebook shows.
    """
    part = graded_part(course or find_course(), assignment, part_id)
    if part.varies:   # the variant the notebook shows, as its public check does
        part = bind(part, student_variant(assignment).params)
    cases = part.hidden(local_hidden_rng(assignment, part_id))
    check_cases(part_id, part, cases, func, hidden=True)
