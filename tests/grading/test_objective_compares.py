"""Parts judged by an objective value: an answer whose objective is not a finite number
never passes, whatever the comparison (a NaN compares false with everything)."""

from pathlib import Path

import numpy as np
import pytest

from coursecheck.parts import judge_case
from coursegrader.judging.problem_sets import graded_part

COURSE = Path(__file__).resolve().parents[2] / "assignments"


def overflowing_primal(K, t, lam):
    """The attack: huge finite coefficients of mixed signs, chosen so that K @ c overflows
    to +inf and -inf and the hinge objective becomes NaN."""
    K = np.asarray(K, dtype=float)
    t = np.asarray(t, dtype=float)
    n = len(t)
    rng = np.random.default_rng(0)
    patterns = [np.where(np.arange(n) % 2 == 0, 1.0, -1.0), t, -t]
    patterns += [rng.choice([-1.0, 1.0], size=n) for _ in range(100)]
    with np.errstate(all="ignore"):
        for p in patterns:
            for scale in (1.7e308, 1e308, 1e300):
                c = scale * p
                f = K @ c
                value = np.sum(np.maximum(0.0, 1.0 - t * f)) + lam * c @ K @ c
                if np.isnan(value):
                    return c, 0.0
    return None


def test_an_overflowing_primal_answer_scores_nothing():
    # the public cases: the hidden ones are judged by the same comparison
    part = graded_part(COURSE, "ps5", "svm_primal")
    played = 0
    for case in part.public():
        got = overflowing_primal(*case.args)
        if got is None:
            continue
        played += 1
        with np.errstate(all="ignore"):
            msg = judge_case(part, case, got)
        assert msg is not None and "no finite objective" in msg, case.label
    assert played >= 2   # the attack found its NaN on most cases


@pytest.mark.parametrize("scale", [1e308, 1e200])
def test_a_dual_answer_whose_objective_is_not_finite_fails(scale):
    part = graded_part(COURSE, "ps5", "svm_dual")
    case = next(iter(part.public()))
    K, t, C = case.args
    # the objective of a feasible alpha is finite; one with a huge entry is refused
    # by the bounds, never waved through by a NaN comparison
    alpha = np.zeros(len(t))
    alpha[0] = scale
    with np.errstate(all="ignore"):
        assert judge_case(part, case, alpha) is not None
