"""Problem set 3: building kernels.

The closure rules are checked against kernlab's kernel algebra applied to
``Precomputed`` Gram matrices of Gaussian, polynomial and linear kernels; the
set and string kernels against ``kernlab.SetKernel`` and ``kernlab.Spectrum``;
the ANOVA kernel of degree ``s`` against the coefficients of the generating
polynomial prod_i (1 + v_i r), whose sum over all degrees is
``kernlab.ANOVA``; and the counterexamples with ``kernlab.is_psd`` on the functions of the
student's variant (``VARIANT``).
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, public_answers, allclose, float_array
from coursecheck.variants import Variation

__all__ = ["PARTS", "VARIANT", "candidates"]


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


# ----------------------------------------------------- 6. counterexamples
#
# Each student's variant gives the five functions their own parameters (a
# matrix, three directions, a constant) and their own order, so that points
# found by hand for one variant prove nothing about another's functions.

#: the indefinite matrices B = 9 I - 10 n n^T of "x^T B z", n one of e1, e2,
#: (1, 1) / sqrt 2, (1, -1) / sqrt 2: eigenvalue -1 along n and 9 across it, so
#: x^T B x < 0 only within 18.4 degrees of +-n, and these four cones are disjoint
B_CHOICES = (((-1.0, 0.0), (0.0, 9.0)), ((9.0, 0.0), (0.0, -1.0)),
             ((4.0, -5.0), (-5.0, 4.0)), ((4.0, 5.0), (5.0, 4.0)))
#: the unit directions w, u of "w.x + w.z" and "min(u.x, u.z)"
DIRECTIONS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
#: the directions v of "max(v.x, v.z)" (for v and -v one pair of points serves both)
MAX_DIRECTIONS = ((1.0, 0.0), (0.0, 1.0))
#: the constants c of "x.z - c (x.z)^2"
C_CHOICES = (0.25, 1.0, 4.0)
#: the five functions, by the names counterexample() is called with
NAMES = ("x^T B z", "w.x + w.z", "min(u.x, u.z)", "x.z - c(x.z)^2", "max(v.x, v.z)")


def _draw(rng):
    """One variant: B, w, u, v, c and the order in which the functions are asked about."""
    return {"B": B_CHOICES[int(rng.integers(len(B_CHOICES)))],
            "w": DIRECTIONS[int(rng.integers(len(DIRECTIONS)))],
            "u": DIRECTIONS[int(rng.integers(len(DIRECTIONS)))],
            "v": MAX_DIRECTIONS[int(rng.integers(len(MAX_DIRECTIONS)))],
            "c": float(C_CHOICES[int(rng.integers(len(C_CHOICES)))]),
            "order": [NAMES[i] for i in rng.permutation(len(NAMES))]}


def _holds(v):
    """None when every function of the variant is symmetric but not a kernel, as part 6 says."""
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
    return None


VARIANT = Variation(draw=_draw, check=_holds)


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


def _verify_counterexample(v, got, case):
    name = case.args[0]
    P, message = float_array(got, "an (m, 2) array of points", ndim=2)
    if message:
        return message
    if P.shape[1] != 2 or not 1 <= P.shape[0] <= 20:
        return f"expected an array of shape (m, 2) with 1 <= m <= 20, got shape {P.shape}"
    if np.abs(P).max() > 100:
        return f"entries must be at most 100 in absolute value, got {np.abs(P).max():.4g}"
    with np.errstate(all="ignore"):
        K = candidates(v)[name](P)
    if not np.all(np.isfinite(K)):
        return "the Gram matrix on your points overflows (contains inf or nan)"
    verdict = kernlab.is_psd(K, tol=1e-6)
    if verdict:
        return (f"the Gram matrix of {name} (your variant's) on your {len(P)} point(s) is "
                f"positive semi-definite (smallest eigenvalue {verdict.min_eigenvalue:.3g}), "
                "so it proves nothing")
    return None


def _counterexample_public(v):
    return [Case(args=(name,), label=f"k(x, z) = {name}") for name in v["order"]]


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
        func="counterexample", points=3,
        sections=("kt-when-kernel", "rkhs-pd-functions"),
        description="each returned sample gives a Gram matrix with a negative eigenvalue",
        public=_counterexample_public, varies=True,
        verify=_verify_counterexample,
    ),
}
