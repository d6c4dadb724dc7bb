"""Hidden cases of ps2 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps2` (``problems/ps2.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream; those of the parts that
vary take the variant first), and ``REFERENCES``, the reference of each part
whose public half ships only the expected values of its public cases (taking
the variant first too: both vary).  The grader reads it from the course folder
(:mod:`coursegrader.judging.problem_sets`); it imports nothing of the grader.
"""

import math

import numpy as np

import kernlab
from coursecheck.problems.ps2 import regression_data
from coursecheck.parts import Case, log_uniform

__all__ = ["HIDDEN", "REFERENCES", "basis_ridge_condition", "MAX_CONDITION"]

#: the largest condition number of the basis ridge's system on any case of any
#: variant (the course's tests check it): below it, any backward-stable solve
#: agrees with the reference to the part's tolerance (rtol 1e-5)
MAX_CONDITION = 1e8


def _ridge_primal_hidden(rng):
    cases = []
    for _ in range(4):
        n, d = int(rng.integers(3, 30)), int(rng.integers(1, 12))
        X, y = regression_data(rng, n, d, scale=log_uniform(rng, 0.3, 3.0))
        lam = log_uniform(rng, 0.05, 20.0)
        cases.append(Case(args=(X, y, lam), label=f"random {n}x{d}, lam={lam:.3g}"))
    return cases


def _ridge_dual_hidden(rng):
    cases = []
    for _ in range(4):
        n, d = int(rng.integers(2, 25)), int(rng.integers(1, 60))
        X, y = regression_data(rng, n, d)
        lam = log_uniform(rng, 0.05, 20.0)
        cases.append(Case(args=(X, y, lam), label=f"random {n}x{d}, lam={lam:.3g}"))
    return cases


def _ridge_intercept_hidden(rng):
    cases = []
    for _ in range(3):
        n, d = int(rng.integers(3, 30)), int(rng.integers(1, 10))
        X, y = regression_data(rng, n, d)
        X += rng.normal(scale=5.0, size=d)
        y += float(rng.normal(scale=10.0))
        lam = log_uniform(rng, 0.05, 20.0)
        cases.append(Case(args=(X, y, lam), label=f"random {n}x{d} off the origin, lam={lam:.3g}"))
    return cases


def _bump_gram_hidden(v, rng):
    # at least two centres, all within a few widths of one another: every
    # off-diagonal entry is above 1e-6 and so depends on sigma
    sigma = v["sigma"]
    cases = []
    for _ in range(3):
        k, d = int(rng.integers(2, 10)), int(rng.integers(1, 4))
        centres = rng.uniform(-2.0 * sigma, 2.0 * sigma, size=(k, d))
        cases.append(Case(args=(centres,), label=f"{k} random centres in R^{d}"))
    return cases


def _basis_ridge_hidden(v, rng):
    sigma = v["sigma"]
    cases = []
    for _ in range(3):
        d = int(rng.integers(1, 3))
        m, k = int(rng.integers(10, 40)), int(rng.integers(2, 8))
        T = rng.uniform(-3, 3, size=(m, d))
        y = np.cos(T.sum(axis=1)) + 0.1 * rng.normal(size=m)
        # centres at least about one width apart keep the system well conditioned
        centres = rng.uniform(-3, 3, size=(1, d))
        while centres.shape[0] < k:
            c = rng.uniform(-3, 3, size=(1, d))
            if np.min(np.linalg.norm(centres - c, axis=1)) > sigma:
                centres = np.vstack([centres, c])
            elif rng.uniform() < 0.05:
                break
        lam = log_uniform(rng, 0.01, 5.0)
        cases.append(Case(args=(T, y, centres, lam),
                          label=f"{m} points in R^{d}, {centres.shape[0]} centres, lam={lam:.3g}"))
    return cases


def _kernel_ridge_hidden(v, rng):
    # the points are drawn on the scale of the variant's width, so that the
    # kernel between them always matters
    sigma = v["sigma"]
    cases = []
    # (several new points: the prediction at one point can be stationary in sigma)
    for _ in range(4):
        n, m, d = int(rng.integers(2, 30)), int(rng.integers(3, 10)), int(rng.integers(1, 5))
        X = sigma * rng.normal(size=(n, d))
        y = np.sin(X @ rng.normal(size=d) / sigma) + 0.1 * rng.normal(size=n)
        lam = log_uniform(rng, 0.01, 5.0)
        cases.append(Case(args=(X, y, sigma * rng.normal(size=(m, d)), lam),
                          label=f"random {n}x{d}, {m} new points, lam={lam:.3g}"))
    return cases


# The references of the parts whose public answers ship as data (answers.json):
# the bump Gram matrix in closed form is the answer to part 5 itself.


def _bump_design(T, centres, sigma):
    d = T.shape[1]
    return (sigma * math.sqrt(math.pi)) ** (-d / 2) * kernlab.Gaussian(sigma=sigma)(T, centres)


def _bump_gram_reference(v, centres):
    # <psi_j, psi_k>_{L2} = exp(-|c_j - c_k|^2 / (4 sigma^2)): a Gaussian kernel of width sqrt(2) sigma.
    return kernlab.Gaussian(sigma=math.sqrt(2.0) * v["sigma"])(centres)


def _basis_ridge_system(v, T, centres, lam):
    design = _bump_design(T, centres, v["sigma"])
    return design.T @ design + lam * _bump_gram_reference(v, centres)


def _basis_ridge_reference(v, T, y, centres, lam):
    sigma = v["sigma"]
    model = kernlab.BasisRidge(basis=lambda X: _bump_design(X, centres, sigma), lam=lam,
                               gram=_bump_gram_reference(v, centres))
    return model.fit(T, y).coef_


def basis_ridge_condition(v, case):
    """The condition number of the basis ridge's system on ``case`` of the variant ``v``."""
    T, _, centres, lam = case.args
    return float(np.linalg.cond(_basis_ridge_system(v, T, centres, lam)))


HIDDEN = {
    "ridge_primal": _ridge_primal_hidden,
    "ridge_dual": _ridge_dual_hidden,
    "ridge_intercept": _ridge_intercept_hidden,
    "bump_gram": _bump_gram_hidden,
    "basis_ridge": _basis_ridge_hidden,
    "kernel_ridge_predict": _kernel_ridge_hidden,
}

# The grader's own reference of the parts whose public half gives only the
# expected values of the public cases (coursecheck's answers.json).
REFERENCES = {
    "bump_gram": _bump_gram_reference,
    "basis_ridge": _basis_ridge_reference,
}
