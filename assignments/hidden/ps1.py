"""Hidden cases of ps1 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps1` (``problems/ps1.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream), and ``REFERENCES``, the
reference of part 3, whose public half withholds it: the verdict on each of a
variant's candidates, from the kind of the candidate and its parameters.  The
grader reads it from the course folder (:mod:`coursegrader.judging.problem_sets`);
it imports nothing of the grader.
"""

import numpy as np

from coursecheck.parts import Case
from coursecheck.problems.ps1 import ALWAYS_NOT

__all__ = ["verdict", "HIDDEN", "REFERENCES"]


def verdict(spec):
    """True when the candidate ``spec`` (an entry of ``V["candidates"]``) is a kernel.

    The reasons, which the notebook's written part asks for:
    """
    kind = spec["kind"]
    if kind == "x^T B z":                    # a kernel exactly when B is PSD: phi(x) = B^(1/2) x
        B = np.asarray(spec["B"], dtype=float)
        return bool(B[0, 0] >= 0 and B[1, 1] >= 0 and np.linalg.det(B) >= -1e-9)
    if kind in ("exp(a x_i z_i)", "a x.z"):  # a >= 0: a kernel, or exp of one; a < 0: k(x, -x)
        return spec["a"] > 0
    if kind in ("x.z + s (x.z)^2", "(x.z + s)^p", "x.z + s", "|x| |z| + s"):
        # sums and products of kernels; s < 0: k(0, 0), k(x, x) or a 2 x 2 Gram matrix
        return spec["s"] > 0
    if kind == "exp(-g |x - z|^2)":          # g < 0: [[1, e^(|g| r^2)], ...] has det < 0
        return spec["g"] > 0
    if kind == "cos(x_i + s z_i)":           # cos(x - z) = cos x cos z + sin x sin z; cos(2 x) < 0
        return spec["s"] < 0
    if kind == "min or max of |x_i|, |z_i|":  # min on [0, inf) composed with |x_i|; max: det < 0
        return spec["op"] == "min"
    if kind == "(x.z)^p":                    # a power of the linear kernel
        return True
    if kind in ALWAYS_NOT:                   # zero diagonal, det < 0, or k(x, x) < 0
        return False
    raise ValueError(f"unknown kind of candidate {kind!r}")


def _specs(v):
    return {s["name"]: s for s in v["candidates"]}


def _verdict_reference(v, name):
    return verdict(_specs(v)[name])


def _quad_hidden(v, rng):
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


def _verdict_hidden(v, rng):
    # the public cases ask about every candidate already
    return []


def _counter_hidden(v, rng):
    """Up to three of the variant's candidates that are not kernels for their parameters."""
    others = [s["name"] for s in v["candidates"]
              if s["kind"] not in ALWAYS_NOT and not verdict(s)]
    picks = rng.permutation(len(others))[:3]
    return [Case(args=(others[i],), label=f"candidate {others[i]}") for i in picks]


HIDDEN = {
    "quadratic_map": _quad_hidden,
    "multinomial_map": _multi_hidden,
    "kernel_verdicts": _verdict_hidden,
    "counterexample": _counter_hidden,
}

# The grader's own reference of the part whose public half withholds it.
REFERENCES = {
    "kernel_verdicts": _verdict_reference,
}
