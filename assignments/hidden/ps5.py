"""Hidden cases of ps5 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps5` (``problems/ps5.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream), and ``REFERENCES``, the
reference of each part whose public half ships only the expected values of its
public cases.  The grader reads it from the course folder
(:mod:`coursegrader.judging.problem_sets`); it imports nothing of the grader.
"""

import numpy as np

from coursecheck.problems.ps5 import blobs, free_tolerance, svm_alpha, training_cases, with_alpha
from coursecheck.parts import Case, log_uniform

__all__ = ["HIDDEN", "REFERENCES"]


def _svm_dual_hidden(rng):
    return [Case(args=(K, t, C), label=label) for K, t, C, label in training_cases(rng, 3)]


def _svm_intercept_hidden(rng):
    return [with_alpha(K, t, C, label) for K, t, C, label in training_cases(rng, 3)]


def _support_hidden(rng):
    cases = [Case(args=(svm_alpha(K, t, C), C), label=f"optimal alpha for: {label}")
             for K, t, C, label in training_cases(rng, 2)]
    C = log_uniform(rng, 0.1, 10.0)
    a = C * rng.choice([0.0, 1.0, 0.25, 0.5, 0.8], size=12)
    cases.append(Case(args=(a, C), label=f"made-up alpha of 12 entries, C={C:.3g}"))
    return cases


def _decision_hidden(v, rng):
    """Points on the scale of the variant's width, so that the kernel between them matters."""
    cases = []
    sigma = v["sigma"]
    for _ in range(3):
        n, m, d = int(rng.integers(3, 25)), int(rng.integers(1, 10)), int(rng.integers(1, 5))
        X, t = blobs(rng, n, d, gap=2.0)
        a = rng.uniform(0, 2, size=n) * (rng.uniform(size=n) < 0.6)
        a[0] = rng.uniform(0.5, 2.0)               # at least one support vector
        b = float(rng.normal())
        cases.append(Case(args=(sigma * X, t, a, b, sigma * rng.normal(size=(m, d))),
                          label=f"{n} training points in R^{d}, {m} new points"))
    return cases


def _hinge_hidden(rng):
    cases = []
    for K, t, C, label in training_cases(rng, 3):
        c, b = rng.normal(size=len(t)) / len(t), float(rng.normal())
        cases.append(Case(args=(K, t, c, b, 1.0 / (2.0 * C)), label=f"random c and b; {label}"))
    return cases


def _primal_hidden(rng):
    return [Case(args=(K, t, 1.0 / (2.0 * C)), label=f"{label}, lam=1/(2C)") for K, t, C, label in training_cases(rng, 3)]


# The references of the parts whose public answers ship as data (answers.json):
# worked out here with numpy, they are close to the solutions themselves.


def intercept_reference(K, t, a, C):
    """The intercept the notebook asks for: an average over free multipliers, else the middle of the KKT interval."""
    g = K @ (a * t)
    tol = free_tolerance(C)
    free = (a > tol) & (a < C - tol)
    if free.any():
        return float(np.mean(t[free] - g[free]))
    low = ((a <= tol) & (t > 0)) | ((a >= C - tol) & (t < 0))
    high = ((a <= tol) & (t < 0)) | ((a >= C - tol) & (t > 0))
    lo = np.max((t - g)[low]) if low.any() else -np.inf
    hi = np.min((t - g)[high]) if high.any() else np.inf
    if np.isinf(lo):
        return float(hi)
    if np.isinf(hi):
        return float(lo)
    return float(0.5 * (lo + hi))


def _support_reference(a, C):
    tol = free_tolerance(C)
    return {"margin": np.flatnonzero((a > tol) & (a < C - tol)), "bound": np.flatnonzero(a >= C - tol)}


HIDDEN = {
    "svm_dual": _svm_dual_hidden,
    "svm_intercept": _svm_intercept_hidden,
    "support_vectors": _support_hidden,
    "svm_decision": _decision_hidden,
    "hinge_objective": _hinge_hidden,
    "svm_primal": _primal_hidden,
}

# The grader's own reference of the parts whose public half gives only the
# expected values of the public cases (coursecheck's answers.json).
REFERENCES = {
    "svm_intercept": intercept_reference,
    "support_vectors": _support_reference,
}
