"""Hidden cases of ps4 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps4` (``problems/ps4.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream; those of the parts that
vary take the variant first), and ``REFERENCES``, the reference of each part
whose public half ships only the expected values of its public cases.  The
grader reads it from the course folder (:mod:`coursegrader.judging.problem_sets`);
it imports nothing of the grader.
"""

import numpy as np

from coursecheck.problems.ps4 import expansion, spread_points
from coursecheck.parts import Case, log_uniform

__all__ = ["HIDDEN", "REFERENCES"]


# The centres of the hidden expansions of parts 1 and 2 are drawn on the scale
# of the variant's width, so that the kernel between them always matters: a
# function of another width fails every case.


def _inner_hidden(v, rng):
    cases = []
    for _ in range(3):
        d = int(rng.integers(1, 4))
        a, X = expansion(rng, int(rng.integers(1, 8)), d, scale=0.8 * v["sigma"])
        b, Y = expansion(rng, int(rng.integers(1, 8)), d, scale=0.8 * v["sigma"])
        cases.append(Case(args=(a, X, b, Y), label=f"random expansions in R^{d}"))
    return cases


def _norm_hidden(v, rng):
    cases = []
    for _ in range(3):
        d = int(rng.integers(1, 4))
        a, X = expansion(rng, int(rng.integers(2, 10)), d, scale=0.8 * v["sigma"])
        cases.append(Case(args=(a, X), label=f"random expansion in R^{d}"))
    x, y = v["sigma"] * rng.normal(size=(2, 2))
    z = y + 0.5 * v["sigma"] * rng.normal(size=2)
    c = float(rng.uniform(0.5, 3.0))
    cases.append(Case(args=(np.array([c, -c, 1.0, 1.0]), np.vstack([x, x, y, z])),
                      label="a cancelling pair on a repeated centre, plus k(., y) + k(., z)"))
    return cases


def _distance_hidden(rng):
    cases = []
    for kernel in ("gaussian", "linear", "quadratic"):
        d = int(rng.integers(1, 5))
        X = rng.normal(size=(int(rng.integers(1, 6)), d))
        Y = np.vstack([X[:1], rng.normal(size=(int(rng.integers(1, 5)), d))])
        param = log_uniform(rng, 0.3, 3.0) if kernel == "gaussian" else None
        cases.append(Case(args=(X, Y, kernel, param), label=f"{kernel}, random points in R^{d}"))
    return cases


def _project_hidden(v, rng):
    cases = []
    for _ in range(3):
        d = int(rng.integers(1, 4))
        alpha, X = expansion(rng, int(rng.integers(2, 15)), d)
        Z = spread_points(rng, int(rng.integers(1, 8)), d, 0.6 * v["sigma"])
        cases.append(Case(args=(alpha, X, Z),
                          label=f"random expansion onto {len(Z)} points in R^{d}"))
    return cases


def _eigenvalues_hidden(rng):
    return [Case(args=(sigma, s, n), label=f"sigma={sigma:.3g}, s={s:.3g}, {n} terms")
            for sigma, s, n in ((log_uniform(rng, 0.2, 4.0), log_uniform(rng, 0.2, 4.0),
                               int(rng.integers(1, 31))) for _ in range(3))]


def _eigenfunctions_hidden(rng):
    cases = []
    for _ in range(3):
        x = rng.uniform(-3.0, 3.0, size=int(rng.integers(1, 12)))
        sigma, s, n = log_uniform(rng, 0.3, 3.0), log_uniform(rng, 0.3, 3.0), int(rng.integers(1, 31))
        cases.append(Case(args=(x, sigma, s, n),
                          label=f"{len(x)} random points, sigma={sigma:.3g}, s={s:.3g}, {n} terms"))
    return cases


HIDDEN = {
    "rkhs_inner": _inner_hidden,
    "rkhs_norm": _norm_hidden,
    "kernel_distance": _distance_hidden,
    "project_onto_span": _project_hidden,
    "mercer_eigenvalues": _eigenvalues_hidden,
    "mercer_eigenfunctions": _eigenfunctions_hidden,
}

# The grader's own reference of the parts whose public half gives only the
# expected values of the public cases (coursecheck's answers.json): none, since
# the projection, which varies, is judged by what defines it.
REFERENCES = {}
