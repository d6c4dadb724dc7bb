"""Hidden cases of ps3 (instructor only; not in the student package).

The public half of each part (its function, points, public cases and how an
answer is judged) is :mod:`coursecheck.problems.ps3` (``problems/ps3.py``);
this module gives the grader the rest: ``HIDDEN``, each part's generator of
hidden cases (drawn from the grader's random stream), ``REFERENCES``, the
reference of each part whose public half ships only the expected values of its
public cases, and ``implied_values``, the answers a variant implies, which the
similarity check looks for in classmates' notebooks.  The grader reads it from the course folder
(:mod:`coursegrader.judging.problem_sets`); it imports nothing of the grader.
"""

import numpy as np

import kernlab
from coursecheck.problems.ps3 import (RULES, base_grams, candidates, draw_sample, points,
                                      random_sets)
from coursecheck.parts import Case

__all__ = ["HIDDEN", "REFERENCES", "implied_values", "subset_features_reference"]


def _combine_hidden(rng):
    cases = []
    for rule in RULES:
        n, d = int(rng.integers(3, 9)), int(rng.integers(1, 4))
        g = base_grams(rng, n, d, float(rng.uniform(0.3, 1.2)))
        names = list(g)
        i, j = rng.choice(len(names), size=2, replace=True)
        K1, K2 = g[names[i]], g[names[j]]
        a = None
        if rule == "scale":
            a = float(rng.uniform(0.0, 4.0))
        elif rule == "power":
            a = int(rng.integers(1, 5))
        elif rule == "poly":
            a = [float(v) for v in rng.uniform(0.0, 2.0, size=int(rng.integers(1, 5)))]
        if rule == "normalise":
            K1 = g[names[int(i) % 2]]          # Gaussian or polynomial: positive diagonal
        K2 = K2 if rule in ("sum", "product") else None
        cases.append(Case(args=(rule, K1, K2, a), label=f"{rule} on a random {n}-point sample"))
    return cases


def _set_kernel_hidden(rng):
    cases = []
    for _ in range(3):
        universe = [f"e{i}" for i in range(int(rng.integers(3, 15)))]
        As = random_sets(rng, int(rng.integers(1, 6)), universe)
        Bs = random_sets(rng, int(rng.integers(1, 6)), universe)
        cases.append(Case(args=(As, Bs), label=f"random subsets of {len(universe)} elements"))
    return cases


def _subset_features_hidden(rng):
    cases = []
    for _ in range(3):
        n = int(rng.integers(2, 9))
        universe = [f"u{i}" for i in range(n)]
        A = random_sets(rng, 1, universe)[0]
        cases.append(Case(args=(A, universe), label=f"a random subset of a universe of {n}"))
    return cases


def _spectrum_hidden(rng):
    def word(alphabet, longest):
        return "".join(rng.choice(list(alphabet), size=int(rng.integers(0, longest))).tolist())

    def periodic():
        # repeats of a short motif: substrings overlap themselves
        motif = word("ab", 3) or "a"
        return (motif * int(rng.integers(2, 8)))[: int(rng.integers(1, 25))]

    cases = []
    for alphabet, p, kind in (("ab", int(rng.integers(2, 5)), "random"),
                              ("ACGT", int(rng.integers(1, 5)), "random"),
                              ("ab", int(rng.integers(2, 5)), "periodic")):
        make = periodic if kind == "periodic" else (lambda: word(alphabet, 30))
        S = [make() for _ in range(int(rng.integers(1, 5)))]
        T = [make() for _ in range(int(rng.integers(1, 5)))]
        cases.append(Case(args=(S, T, p), label=f"{kind} strings over {alphabet}, p={p}"))
    return cases


def _anova_hidden(rng):
    cases = []
    for d, s in ((int(rng.integers(2, 8)), None), (40, int(rng.integers(10, 31))),
                 (int(rng.integers(5, 12)), int(rng.integers(1, 5)))):
        s = int(rng.integers(0, d + 1)) if s is None else s
        scale = 1.0 if d < 20 else 0.6
        X, Y = points(rng, int(rng.integers(1, 5)), d, scale), points(rng, int(rng.integers(1, 5)), d, scale)
        cases.append(Case(args=(X, Y, s), label=f"random points in R^{d}, s={s}"))
    X, Y = points(rng, 3, 5), points(rng, 2, 5)
    cases.append(Case(args=(X, Y, None), label="random points in R^5, s=None"))
    return cases


def _witness_hidden(v, rng):
    names = v["order"]
    return [Case(args=(names[i], draw_sample(rng, v, names[i])),
                 label=f"k(x, z) = {names[i]} on another sample")
            for i in rng.permutation(len(names))[:3]]


# The references of the parts whose public answers ship as data (answers.json):
# worked out here with numpy, they are close to the solutions themselves.


def subset_features_reference(A, universe):
    n = len(universe)
    members = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    inside = np.array([u in A for u in universe])
    return np.array([float(all(inside[i] for i in range(n) if row[i])) for row in members])


def _anova_reference(X, Y, s):
    """k_s as the coefficient of r**s in prod_i (1 + x_i z_i r); s=None gives kernlab.ANOVA."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if s is None:
        return kernlab.ANOVA()(X, Y)
    K = np.zeros((len(X), len(Y)))
    for i, x in enumerate(X):
        for j, z in enumerate(Y):
            coef = np.array([1.0])
            for v in x * z:
                coef = np.convolve(coef, [1.0, v])        # multiply by (1 + v r)
            K[i, j] = coef[s] if s < len(coef) else 0.0
    return K


HIDDEN = {
    "combine_gram": _combine_hidden,
    "set_kernel": _set_kernel_hidden,
    "subset_features": _subset_features_hidden,
    "spectrum_kernel": _spectrum_hidden,
    "anova_kernel": _anova_hidden,
    "counterexample": _witness_hidden,
}

# The grader's own reference of the parts whose public half gives only the
# expected values of the public cases (coursecheck's answers.json).
REFERENCES = {
    "anova_kernel": _anova_reference,
    "subset_features": subset_features_reference,
}


def implied_values(v):
    """The witness of each sample of variant ``v`` (part 6's answer, of either sign):
    the unit eigenvector of the Gram matrix's smallest eigenvalue."""
    found = {}
    for name, X in v["samples"].items():
        _, vectors = np.linalg.eigh(candidates(v)[name](np.asarray(X, dtype=float)))
        found[f"witness on the sample of {name}"] = ("\u00b1", vectors[:, 0].tolist())
    return found
