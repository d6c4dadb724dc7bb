"""Problem set 3: building kernels.

The closure rules are checked against kernlab's kernel algebra applied to
``Precomputed`` Gram matrices of Gaussian, polynomial and linear kernels; the
set and string kernels against ``kernlab.SetKernel`` and ``kernlab.Spectrum``;
the ANOVA kernel of degree ``s`` against the coefficients of the generating
polynomial prod_i (1 + v_i r), whose sum over all degrees is
``kernlab.ANOVA``; and the witnesses that five functions are not kernels
against the eigenvalues of their Gram matrices, on the functions and samples
of the student's variant (``VARIANT``).
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, public_answers, allclose, witness_fault
from coursecheck.variants import Variation

__all__ = ["PARTS", "VARIANT", "NAMES", "candidates", "draw_sample"]


# ---------------------------------------------------------------- helpers


def points(rng, n, d, scale=1.0):
    return scale * rng.normal(size=(n, d))


# ----------------------------------------------------- 1. closure rules

RULES = ("sum", "scale", "product", "power", "poly", "exp", "normalise")


def _combine_reference(rule, K1, K2, a):
    """The rule applied with kernlab's algebra to the Gram matrices as Precomputed kernels."""
    k1 = kernlab.Precomputed(K1)
    idx = k1.points
    if rule == "sum":
        k = k1 + kernlab.Precomputed(K2)
    elif rule == "scale":
        k = float(a) * k1
    elif rule == "product":
        k = k1 * kernlab.Precomputed(K2)
    elif rule == "power":
        k = k1 ** int(a)
    elif rule == "poly":
        k = k1.polynomial(list(a))
    elif rule == "exp":
        k = k1.exp()
    elif rule == "normalise":
        k = k1.normalize()
    else:  # a bug in this module, never a student's
        raise ValueError(f"unknown rule {rule!r}")
    return k(idx)


def base_grams(rng, n, d, scale):
    X = points(rng, n, d, scale)
    return {
        "Gaussian(sigma=1)": kernlab.Gaussian(sigma=1.0)(X),
        "Polynomial(degree=2, c=1)": kernlab.Polynomial(degree=2, c=1.0)(X),
        "Linear()": kernlab.Linear()(X),
    }


def _combine_public():
    rng = np.random.default_rng(401)
    g = base_grams(rng, 5, 2, 0.7)
    G, P, L = g["Gaussian(sigma=1)"], g["Polynomial(degree=2, c=1)"], g["Linear()"]
    return [
        Case(args=("sum", G, L, None), label="sum: Gaussian + linear on 5 points in R^2"),
        Case(args=("scale", P, None, 2.5), label="scale: 2.5 * polynomial"),
        Case(args=("scale", G, None, 0.0), label="scale: 0 * Gaussian (the zero kernel)"),
        Case(args=("product", G, P, None), label="product: Gaussian * polynomial (pointwise)"),
        Case(args=("power", L, None, 3), label="power: linear ** 3 (pointwise, not a matrix power)"),
        Case(args=("poly", L, None, [1.0, 0.0, 0.5]), label="poly: 1 + 0.5 * linear**2"),
        Case(args=("exp", L, None, None), label="exp: exp(linear)"),
        Case(args=("normalise", P, None, None), label="normalise: polynomial / sqrt(diag x diag)"),
    ]


# ----------------------------------------------------- 2. set kernel

def _set_kernel_public():
    return [
        Case(args=([{1, 2, 3}], [{2, 3, 4}]), label="{1,2,3} against {2,3,4} (answer 4)"),
        Case(args=([{"a", "b"}, set(), {"c"}], [{"a"}, {"a", "b", "c"}]),
             label="three sets of letters (one empty) against two"),
        Case(args=([{"x", "y", "z", "w"}], [{"x", "y", "z", "w"}, {"q"}]),
             label="a set against itself and against a disjoint set"),
    ]


def random_sets(rng, count, universe):
    return [set(np.asarray(universe)[rng.random(len(universe)) < rng.uniform(0.1, 0.9)].tolist())
            for _ in range(count)]


# ----------------------------------------------------- 3. subset features

def _subset_features_public():
    return [
        Case(args=({"b"}, ["a", "b"]), label="A={'b'} in universe ['a','b'] (answer [1,0,1,0])"),
        Case(args=(set(), ["p", "q", "r"]), label="the empty set in a universe of 3"),
        Case(args=({"p", "q", "r"}, ["p", "q", "r"]), label="the whole universe of 3"),
        Case(args=({1, 4}, [1, 2, 3, 4]), label="A={1,4} in universe [1,2,3,4]"),
    ]


# ----------------------------------------------------- 4. spectrum kernel

def _spectrum_reference(S, T, p):
    return kernlab.Spectrum(p=p)(list(S), list(T))


def _spectrum_public():
    return [
        Case(args=(["abab"], ["bab"], 2), label="'abab' against 'bab', p=2 (answer 3)"),
        Case(args=(["aaaa", "ab", "a"], ["aaa", "ba", "aaaaa"], 2),
             label="overlapping repeats and a string shorter than p, p=2"),
        Case(args=(["kernel", "colonel", "panel"], ["kennel", "tunnel"], 3),
             label="five words, p=3"),
        Case(args=(["GATTACA", "TACAGAT"], ["ATTAC", "CAGATTACA"], 1),
             label="DNA strings, p=1 (letter counts)"),
    ]


# ----------------------------------------------------- 5. ANOVA kernel


def _anova_public():
    rng = np.random.default_rng(405)
    X, Y = points(rng, 3, 4), points(rng, 2, 4)
    return [
        Case(args=(np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, 1.0, 1.0]]), 2),
             label="x=(1,2,3), z=(1,1,1), s=2 (answer 1*2+1*3+2*3=11)"),
        Case(args=(X, Y, 0), label="degree 0 (the constant 1), points in R^4"),
        Case(args=(X, Y, 1), label="degree 1 (the linear kernel), points in R^4"),
        Case(args=(X, Y, 3), label="degree 3, points in R^4"),
        Case(args=(X, Y, 4), label="degree 4 = d (the product of all x_i z_i)"),
        Case(args=(X, Y, 5), label="degree 5 > d (an empty sum)"),
        Case(args=(X, Y, None), label="s=None: prod_i (1 + x_i z_i)"),
    ]


# ----------------------------------------------------- 6. witnesses of non-kernels
#
# Each student's variant gives the five functions their own parameters (a
# matrix, three directions, a constant), their own order, and for each its own
# sample of three points.  The answer to a sample is the unit vector a that
# makes sum_ij a_i a_j k(x_i, x_j) smallest: an eigenvector of the Gram
# matrix's smallest eigenvalue, which every sample of the draw makes clearly
# negative.  It is a value of the sample, so the witnesses worked out on one
# sample prove nothing about another's, and no fixed answer fits every variant
# (as a set of points that defeats every function would, were the question to
# ask for points).

#: the indefinite matrices B = 9 I - 10 n n^T of "x^T B z", n one of e1, e2,
#: (1, 1) / sqrt 2, (1, -1) / sqrt 2: eigenvalue -1 along n and 9 across it
B_CHOICES = (((-1.0, 0.0), (0.0, 9.0)), ((9.0, 0.0), (0.0, -1.0)),
             ((4.0, -5.0), (-5.0, 4.0)), ((4.0, 5.0), (5.0, 4.0)))
#: the unit directions w, u of "w.x + w.z" and "min(u.x, u.z)"
DIRECTIONS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
#: the directions v of "max(v.x, v.z)"
MAX_DIRECTIONS = ((1.0, 0.0), (0.0, 1.0))
#: the constants c of "x.z - c (x.z)^2"
C_CHOICES = (0.25, 1.0, 4.0)
#: the five functions, by the names witness() is called with
NAMES = ("x^T B z", "w.x + w.z", "min(u.x, u.z)", "x.z - c(x.z)^2", "max(v.x, v.z)")
#: the points of a sample: three, coordinates in [-LIMIT, LIMIT] with two decimals
SAMPLE_SIZE, LIMIT = 3, 2.0
#: on every sample the smallest eigenvalue is below -MARGIN times the largest
#: absolute one, and at least MARGIN times it below the next (so that a is one
#: line, and rounding decides nothing)
MARGIN = 0.05
#: how close to the smallest value an answer's sum must come, relative to the
#: largest absolute eigenvalue
TOLERANCE = 1e-5


def candidates(v):
    """name -> kernlab object computing that function of variant ``v`` on points of R^2."""
    B = np.asarray(v["B"], dtype=float)
    w, u, d = (np.asarray(v[key], dtype=float) for key in ("w", "u", "v"))
    c = float(v["c"])
    return {
        "x^T B z": kernlab.GeneralLinear(B),
        "w.x + w.z": kernlab.FunctionKernel(lambda x, z: w @ x + w @ z, vectorized=False),
        "min(u.x, u.z)": kernlab.FunctionKernel(lambda x, z: min(u @ x, u @ z), vectorized=False),
        "x.z - c(x.z)^2": kernlab.FunctionKernel(lambda x, z: x @ z - c * (x @ z) ** 2,
                                                 vectorized=False),
        "max(v.x, v.z)": kernlab.FunctionKernel(lambda x, z: max(d @ x, d @ z), vectorized=False),
    }


def sample_fault(v, name, X):
    """None when the Gram matrix of ``name`` (variant ``v``) on the points ``X`` has a
    clearly negative smallest eigenvalue, alone on its line; else what is wrong."""
    values = np.linalg.eigvalsh(candidates(v)[name](np.asarray(X, dtype=float)))
    low, second, scale = values[0], values[1], np.abs(values).max()
    if not low < -MARGIN * scale:
        return f"the Gram matrix of {name} on {X} is not clearly indefinite (smallest {low:.3g})"
    if not second - low > MARGIN * scale:
        return f"the smallest eigenvalue of {name} on {X} is not clearly alone ({low:.3g}, {second:.3g})"
    return None


def draw_sample(rng, v, name):
    """Three points on which the function ``name`` of variant ``v`` clearly fails."""
    for _ in range(1000):
        X = rng.uniform(-LIMIT, LIMIT, size=(SAMPLE_SIZE, 2)).round(2)
        if sample_fault(v, name, X) is None:
            return X.tolist()
    raise RuntimeError(f"no sample found for {name}")   # a bug in this module, never a student's


def _draw(rng):
    """One variant: B, w, u, v, c, the order of the functions and a sample for each."""
    v = {"B": B_CHOICES[int(rng.integers(len(B_CHOICES)))],
         "w": DIRECTIONS[int(rng.integers(len(DIRECTIONS)))],
         "u": DIRECTIONS[int(rng.integers(len(DIRECTIONS)))],
         "v": MAX_DIRECTIONS[int(rng.integers(len(MAX_DIRECTIONS)))],
         "c": float(C_CHOICES[int(rng.integers(len(C_CHOICES)))]),
         "order": [NAMES[i] for i in rng.permutation(len(NAMES))]}
    v["samples"] = {name: draw_sample(rng, v, name) for name in NAMES}
    return v


def _holds(v):
    """None when every function of the variant is symmetric but not a kernel, and each
    sample shows it clearly, as part 6 says."""
    B = np.asarray(v["B"], dtype=float)
    if B.shape != (2, 2) or not np.array_equal(B, B.T):
        return f"B = {v['B']} must be a symmetric 2 x 2 matrix"
    low, high = np.linalg.eigvalsh(B)
    if not low < 0 < high:
        return f"B = {v['B']} must be indefinite (eigenvalues {low:.3g}, {high:.3g})"
    for key in ("w", "u", "v"):
        if not np.isclose(np.linalg.norm(v[key]), 1.0):
            return f"{key} = {v[key]} must be a unit vector"
    if not v["c"] > 0:
        return f"c = {v['c']} must be positive"
    if sorted(v["order"]) != sorted(NAMES):
        return f"order = {v['order']} must list each of the five functions once"
    if sorted(v["samples"]) != sorted(NAMES):
        return f"samples = {sorted(v['samples'])} must give one sample to each function"
    for name, X in v["samples"].items():
        X = np.asarray(X, dtype=float)
        if X.shape != (SAMPLE_SIZE, 2) or np.abs(X).max() > LIMIT:
            return f"the sample of {name} must be {SAMPLE_SIZE} points of [-{LIMIT}, {LIMIT}]^2"
        fault = sample_fault(v, name, X)
        if fault:
            return fault
    return None


VARIANT = Variation(draw=_draw, check=_holds)


def _verify_witness(v, got, case):
    """Whether ``got`` is the unit vector a making sum_ij a_i a_j k(p_i, p_j) smallest."""
    name, X = case.args
    return witness_fault(got, candidates(v)[name](np.asarray(X, dtype=float)), name, tolerance=TOLERANCE)


def _witness_public(v):
    return [Case(args=(name, v["samples"][name]), label=f"k(x, z) = {name} on your sample")
            for name in v["order"]]


# ----------------------------------------------------- the parts

PARTS = {
    "combine_gram": Part(
        func="combine_gram", points=3,
        sections=("reg-closure", "reg-closure-code"),
        description="every closure rule against the kernel algebra of kernlab",
        public=_combine_public, reference=_combine_reference, compare=allclose(rtol=1e-9, atol=1e-10),
    ),
    "set_kernel": Part(
        func="set_kernel", points=2,
        sections=("svm-sets-strings", "reg-beyond-vectors"),
        description="2**|A & B| on lists of sets, including empty ones, against kernlab.SetKernel",
        public=_set_kernel_public, reference=lambda As, Bs: kernlab.SetKernel()(list(As), list(Bs)),
        compare=allclose(rtol=1e-12, atol=0),
    ),
    "subset_features": Part(
        func="subset_features", points=2,
        sections=("svm-sets-strings",),
        description="the 2**n subset indicators, in the order the statement gives",
        public=_subset_features_public, answers=public_answers("ps3", "subset_features"),
        compare=allclose(rtol=0, atol=1e-12),
    ),
    "spectrum_kernel": Part(
        func="spectrum_kernel", points=3,
        sections=("svm-sets-strings",),
        description="p-spectrum Gram matrices, short and repetitive strings included, against kernlab.Spectrum",
        public=_spectrum_public, reference=_spectrum_reference, compare=allclose(rtol=1e-12, atol=0),
    ),
    "anova_kernel": Part(
        func="anova_kernel", points=3,
        sections=("reg-anova-kernels",),
        description="ANOVA Gram matrices of every degree, up to 40 coordinates, against kernlab.ANOVA",
        public=_anova_public, answers=public_answers("ps3", "anova_kernel"), compare=allclose(rtol=1e-8, atol=1e-10),
    ),
    "counterexample": Part(
        func="witness", points=3,
        sections=("kt-when-kernel", "rkhs-pd-functions"),
        description="on each sample, the unit vector a making sum_ij a_i a_j k(x_i, x_j) smallest",
        public=_witness_public, varies=True,
        verify=_verify_witness,
    ),
}
