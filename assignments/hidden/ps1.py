"""Hidden cases of ps1 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps1` (``problems/ps1.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream), and ``REFERENCES``, the
reference of part 3, whose public half withholds it: the verdict on each of a
variant's candidates, from the kind of the candidate and its parameters; and
``implied_values``, the witnesses of part 4 a variant implies, which the
similarity check looks for in classmates' notebooks.  The grader reads it from
the course folder (:mod:`coursegrader.judging.problem_sets`); it imports
nothing of the grader.
"""

import numpy as np

from coursecheck.parts import Case
from coursecheck.problems.ps1 import ALWAYS_NOT, candidate_gram, draw_sample

__all__ = ["verdict", "HIDDEN", "REFERENCES", "implied_values"]


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


def _with_one_of(rng, X, m):
    """``m`` fresh points like ``X``'s, and one of ``X``'s among them at a random place:
    the points of a separate call, whose row for the shared point must be the same."""
    Y = rng.normal(scale=float(np.abs(X).max()) or 1.0, size=(m, X.shape[1]))
    return np.insert(Y, int(rng.integers(m + 1)), X[int(rng.integers(len(X)))], axis=0)


def _quad_hidden(v, rng):
    cases = []
    for _ in range(3):
        n, m = int(rng.integers(2, 12)), int(rng.integers(1, 6))
        X = rng.normal(scale=float(rng.uniform(0.5, 3.0)), size=(n, 2))
        cases.append(Case(args=(X,), separately=((_with_one_of(rng, X, m),),),
                          label=f"random {n} points in R^2, then {m + 1} with one of them"))
    return cases


def _multi_hidden(rng):
    cases = []
    for _ in range(4):
        n, d, p = int(rng.integers(2, 8)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        m = int(rng.integers(1, 5))
        X = rng.normal(size=(n, d))
        cases.append(Case(args=(X, p), separately=((_with_one_of(rng, X, m), p),),
                          label=f"random {n} points in R^{d}, p={p}, then {m + 1} with one "
                                "of them"))
    return cases


def _verdict_hidden(v, rng):
    # the public cases ask about every candidate already
    return []


def _witness_hidden(v, rng):
    """Samples of up to three of the variant's candidates that are not kernels for their
    parameters (which no public case names), then fresh samples of the candidates
    whose kinds never are, three cases in all."""
    specs = _specs(v)
    others = [s["name"] for s in v["candidates"]
              if s["kind"] not in ALWAYS_NOT and not verdict(s)]
    never = [s["name"] for s in v["candidates"] if s["kind"] in ALWAYS_NOT]
    picks = [others[i] for i in rng.permutation(len(others))[:3]]
    picks += [never[i] for i in rng.permutation(len(never))[:3 - len(picks)]]
    return [Case(args=(name, draw_sample(rng, specs[name])),
                 label=f"candidate {name} on another sample") for name in picks]


HIDDEN = {
    "quadratic_map": _quad_hidden,
    "multinomial_map": _multi_hidden,
    "kernel_verdicts": _verdict_hidden,
    "counterexample": _witness_hidden,
}

# The grader's own reference of the part whose public half withholds it.
REFERENCES = {
    "kernel_verdicts": _verdict_reference,
}


def implied_values(v):
    """The witness on each public sample of variant ``v`` (part 4's answer, of either
    sign): the unit eigenvector of the Gram matrix's smallest eigenvalue."""
    found = {}
    for name, X in v["samples"].items():
        _, vectors = np.linalg.eigh(candidate_gram(v, name, X))
        found[f"witness on the sample of {name}"] = ("\u00b1", vectors[:, 0].tolist())
    return found
