"""Hidden cases of ps1 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps1` (``problems/ps1.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream), and ``REFERENCES``, the
reference of each part whose public half ships only the expected values of its
public cases.  The grader reads it from the course folder
(:mod:`coursegrader.judging.problem_sets`); it imports nothing of the grader.
"""

from coursecheck.problems.ps1 import CANDIDATES, NOT_KERNELS_ON_SHEET, SHEET
from coursecheck.parts import Case

__all__ = ["VERDICTS", "HIDDEN", "REFERENCES"]

# The answer key of part 3, one reason each (the notebook's written answer asks for these):
VERDICTS = {
    "B_diag": True,          # B = diag(1, 5) is PSD: phi(x) = (x1, sqrt(5) x2)
    "B_indefinite": False,   # B has a negative eigenvalue: k(e1, e1) = -1
    "exp_first": True,       # exp of the kernel x1 z1 (power series, non-negative coefficients)
    "lin_minus_sq": False,   # k(x, x) = |x|^2 - |x|^4 < 0 once |x| > 1
    "cubic": True,           # a power of the linear kernel
    "gauss": True,           # Gaussian kernel
    "dist": False,           # zero diagonal, positive off-diagonal: det < 0
    "sq_dist": False,        # same reason
    "neg_lin": False,        # k(x, x) = -|x|^2 < 0
    "lin_plus_one": True,    # linear kernel plus a constant
    "lin_minus_one": False,  # k(0, 0) = -1
    "sum_first": False,      # Gram [[2a, a+b], [a+b, 2b]] has det -(a-b)^2
    "cos_first": True,       # cos x1 cos z1 + sin x1 sin z1
    "max_first": False,      # k(x, x) = x1 < 0 for x1 < 0
    "min_abs_first": True,   # the min kernel on [0, inf) composed with |x1|
    "norm_product": True,    # rank one: phi(x) = |x|
}

_NOT_KERNELS = [n for n, v in VERDICTS.items() if not v]


def _verdict_reference(name):
    return VERDICTS[name]


def _quad_hidden(rng):
    cases = []
    for _ in range(3):
        n = int(rng.integers(2, 12))
        X = rng.normal(scale=float(rng.uniform(0.5, 3.0)), size=(n, 2))
        cases.append(Case(args=(X,), label=f"random {n} points in R^2"))
    return cases


def _multi_hidden(rng):
    cases = []
    for _ in range(4):
        n, d, p = int(rng.integers(2, 8)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        X = rng.normal(size=(n, d))
        cases.append(Case(args=(X, p), label=f"random {n} points in R^{d}, p={p}"))
    return cases


def _verdict_hidden(rng):
    others = [n for n in CANDIDATES if n not in SHEET]
    picks = rng.choice(len(others), size=5, replace=False)
    return [Case(args=(others[i],), label=f"candidate {others[i]}") for i in picks]


def _counter_hidden(rng):
    others = [n for n in _NOT_KERNELS if n not in NOT_KERNELS_ON_SHEET]
    picks = rng.choice(len(others), size=3, replace=False)
    return [Case(args=(others[i],), label=f"candidate {others[i]}") for i in picks]


HIDDEN = {
    "quadratic_map": _quad_hidden,
    "multinomial_map": _multi_hidden,
    "kernel_verdicts": _verdict_hidden,
    "counterexample": _counter_hidden,
}

# The grader's own reference of the parts whose public half gives only the
# expected values of the public cases (coursecheck's answers.json).
REFERENCES = {
    "kernel_verdicts": _verdict_reference,
}
