"""Problem set 4: reproducing kernel Hilbert spaces.

Inner products and norms are checked against ``kernlab.RKHSFunction``, the
kernel distance against ``kernlab.kernel_distance``, and the Mercer expansion
of the Gaussian kernel against ``kernlab.gaussian_mercer_eigenvalues`` and
``kernlab.gaussian_mercer_eigenfunctions``.  The projection onto the span of
the data is judged by what defines it -- its values at the data, computed
with ``kernlab.Gaussian``, on data whose Gram matrix is well conditioned --
and by its norm being no larger than that of the function projected.

Parts 1, 2 and 4 are on each student's own Gaussian kernel: its width sigma
is the student's variant (``VARIANT``).
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, allclose, float_array, log_uniform
from coursecheck.variants import Variation, outside

__all__ = ["PARTS", "VARIANT"]


# ---------------------------------------------------------------- helpers


def _kernel(name, param):
    if name == "gaussian":
        return kernlab.Gaussian(sigma=param)
    if name == "linear":
        return kernlab.Linear()
    if name == "quadratic":
        return kernlab.Polynomial(degree=2, c=0.0)
    raise ValueError(f"unknown kernel name {name!r}")  # a bug in this module


def expansion(rng, n, d, scale=1.5):
    return rng.normal(size=n), scale * rng.normal(size=(n, d))


def spread_points(rng, m, d, spacing):
    """m points in R^d, pairwise at least ``spacing`` apart (a jittered grid)."""
    side = int(np.ceil(m ** (1.0 / d)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * d, indexing="ij"), axis=-1).reshape(-1, d)
    chosen = grid[rng.permutation(len(grid))[:m]].astype(float)
    return spacing * (2.0 * chosen + rng.uniform(-0.4, 0.4, size=chosen.shape))


# ----------------------------------------------------- the variant
#
# Each student's variant gives the Gaussian kernel of parts 1, 2 and 4 its own
# width sigma, so that a number worked out by hand, or a function written for
# a classmate's sigma, is judged against the student's own kernel.  Every case
# of those parts depends on sigma: a function of the wrong width fails it.

#: the widths a variant is drawn from: log-uniform on [SIGMA_LOW, SIGMA_HIGH],
#: to two decimals
SIGMA_LOW, SIGMA_HIGH = 0.5, 2.0
#: the largest condition number of K_ZZ a projection case may have: below it,
#: agreeing with f at the data to 1e-6 fixes the coefficients of f_0
MAX_CONDITION = 1e4


def _draw(rng):
    """One variant: the width sigma of the Gaussian kernel of parts 1, 2 and 4."""
    return {"sigma": round(log_uniform(rng, SIGMA_LOW, SIGMA_HIGH), 2)}


def _holds(v):
    """None when sigma is in its range and every projection case's K_ZZ is well conditioned."""
    sigma = v["sigma"]
    problem = outside("sigma", sigma, SIGMA_LOW, SIGMA_HIGH)
    if problem:
        return problem
    for case in _project_public(v):
        _, _, Z = case.args
        condition = float(np.linalg.cond(kernlab.Gaussian(sigma=sigma)(Z)))
        if not condition < MAX_CONDITION:
            return f"K_ZZ of the case {case.label!r} has condition number {condition:.3g}"
    return None


# ----------------------------------------------------- 1. inner products

def _inner_reference(v, alpha, X, beta, Y):
    k = kernlab.Gaussian(sigma=v["sigma"])
    return kernlab.RKHSFunction(k, X, alpha).inner(kernlab.RKHSFunction(k, Y, beta))


def _inner_public(v):
    rng = np.random.default_rng(501)
    a, X = expansion(rng, 4, 2)
    b, Y = expansion(rng, 3, 2)
    return [
        Case(args=(np.array([1.0]), np.array([[0.0]]), np.array([1.0]), np.array([[1.0]])),
             label="<k(.,0), k(.,1)> in R^1 (answer exp(-1/(2 sigma^2)))"),
        Case(args=(a, X, b, Y), label="4 centres against 3 centres in R^2"),
        Case(args=(a, X, a, X), label="<f, f> (the squared norm)"),
        Case(args=(a, X, np.array([1.0]), Y[:1]), label="<f, k(., y)> = f(y)"),
    ]


# ----------------------------------------------------- 2. norms

def _norm_reference(v, alpha, X):
    return kernlab.RKHSFunction(kernlab.Gaussian(sigma=v["sigma"]), X, alpha).norm()


def _norm_public(v):
    rng = np.random.default_rng(502)
    a, X = expansion(rng, 5, 3)
    twice = np.array([[0.3, -1.2], [0.3, -1.2], [1.0, 0.0], [0.0, 0.5]])
    return [
        Case(args=(np.array([1.0, 1.0]), np.array([[1.0, 1.0], [0.0, 1.0]])),
             label="k(., x) + k(., y): norm sqrt(2 + 2 k(x, y))"),
        Case(args=(a, X), label="5 centres in R^3"),
        Case(args=(np.array([1.0, -1.0, 1.0, -1.0]), twice),
             label="alpha=(1,-1,1,-1), the first two on one centre: k(., y) - k(., z)"),
        Case(args=(np.array([1.0, 1.0, -2.0]), np.array([[0.0], [0.0], [0.0]])),
             label="three copies of one centre, coefficients summing to 0 (the zero function)"),
    ]


# ----------------------------------------------------- 3. kernel distance

def _distance_reference(X, Y, kernel, param):
    return kernlab.kernel_distance(_kernel(kernel, param), X, Y)


def _distance_public():
    rng = np.random.default_rng(503)
    X, Y = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    return [
        Case(args=(np.array([[0.0], [1.0]]), np.array([[0.0], [3.0]]), "gaussian", 1.0),
             label="gaussian, sigma=1, on 0, 1 against 0, 3 in R^1"),
        Case(args=(X, Y, "gaussian", 0.5), label="gaussian, sigma=0.5, 4 against 3 points in R^2"),
        Case(args=(X, Y, "linear", None), label="linear: the Euclidean distance"),
        Case(args=(X, X, "gaussian", 2.0), label="gaussian, a sample against itself (zero diagonal)"),
        Case(args=(X, -X, "quadratic", None), label="quadratic (x.y)^2, x against -x"),
    ]


# ----------------------------------------------------- 4. projection


def _verify_project(v, got, case):
    """f_0 = sum_j c_j k(., z_j) is the projection of f: it agrees with f at the data.

    K_ZZ is positive definite and, on every case, well conditioned
    (``MAX_CONDITION``, checked by ``VARIANT.check`` and the course's tests), so
    agreeing with f at the data fixes c; being a projection, f_0 has no larger
    a norm than f, which the check states as well.
    """
    alpha, X, Z = case.args
    c, message = float_array(got, f"the coefficients c, shape ({len(Z)},)", ndim=1)
    if message:
        return message
    if c.shape != (len(Z),):
        return f"expected shape ({len(Z)},) (one coefficient per data point), got {c.shape}"
    k = kernlab.Gaussian(sigma=v["sigma"])
    f = kernlab.RKHSFunction(k, X, alpha)
    K = k(Z)
    target = f(Z)
    scale = max(1.0, float(np.abs(target).max()))
    values = K @ c
    bad = np.abs(values - target) > 1e-6 * scale
    if bad.any():
        j = int(np.argmax(np.abs(values - target)))
        return (f"f_0 does not agree with f at the data: at z_{j}, f(z_{j}) = {target[j]:.8g} "
                f"but your f_0(z_{j}) = sum_i c_i k(z_{j}, z_i) = {values[j]:.8g}")
    norm_got = float(np.sqrt(max(c @ K @ c, 0.0)))
    norm_f = f.norm()
    if not norm_got <= norm_f * (1.0 + 1e-6) + 1e-9:
        return f"||f_0|| = {norm_got:.8g} exceeds ||f|| = {norm_f:.8g}: not a projection"
    return None


def _project_public(v):
    sigma = v["sigma"]
    rng = np.random.default_rng(504)
    alpha, X = expansion(rng, 12, 2)
    Z = spread_points(rng, 5, 2, 0.8 * sigma)
    alpha1, X1 = expansion(rng, 6, 1)
    Z1 = spread_points(rng, 4, 1, 0.7 * sigma)
    alpha2 = rng.normal(size=8)
    X2 = spread_points(rng, 8, 2, 0.6 * sigma)
    return [
        Case(args=(np.array([1.0]), np.array([[0.0]]), np.array([[1.0]])),
             label="f = k(., 0) projected onto span{k(., 1)} (answer c = [k(0, 1)])"),
        Case(args=(alpha, X, Z), label="12 centres onto 5 data points in R^2"),
        Case(args=(alpha1, X1, Z1), label="6 centres onto 4 data points in R^1"),
        Case(args=(alpha2, X2, X2[:3]), label="onto the span of 3 of the 8 centres"),
    ]


# ----------------------------------------------------- 5-6. Mercer expansion

def _eigenvalues_public():
    return [
        Case(args=(1.0, 1.0, 5), label="sigma=1, s=1, 5 terms"),
        Case(args=(0.3, 2.0, 8), label="narrow kernel sigma=0.3 under a wide measure s=2, 8 terms"),
        Case(args=(3.0, 0.5, 4), label="wide kernel sigma=3 under a narrow measure s=0.5, 4 terms"),
        Case(args=(1.0, 1.0, 1), label="a single term"),
    ]


def _eigenfunctions_public():
    x = np.linspace(-2.0, 2.0, 9)
    return [
        Case(args=(x, 1.0, 1.0, 4), label="9 points in [-2, 2], sigma=1, s=1, 4 terms"),
        Case(args=(np.array([0.0]), 0.5, 1.0, 6), label="x=0 only (odd eigenfunctions vanish), 6 terms"),
        Case(args=(np.array([-3.0, 0.4, 2.5]), 2.0, 0.7, 12), label="3 points, sigma=2, s=0.7, 12 terms"),
        Case(args=(np.linspace(-1.0, 1.0, 5), 0.8, 1.2, 30), label="30 terms (watch for overflow)"),
    ]


VARIANT = Variation(draw=_draw, check=_holds)


# ----------------------------------------------------- the parts

PARTS = {
    "rkhs_inner": Part(
        func="rkhs_inner", points=2, varies=True,
        sections=("rkhs-moore-aronszajn",),
        description="alpha^T K(X, Y) beta in your variant's Gaussian kernel, against kernlab.RKHSFunction",
        public=_inner_public, reference=_inner_reference, compare=allclose(rtol=1e-8, atol=1e-10),
    ),
    "rkhs_norm": Part(
        func="rkhs_norm", points=2, varies=True,
        sections=("rkhs-moore-aronszajn", "rkhs-norm-smoothness"),
        description="the RKHS norm in your variant's Gaussian kernel, the zero function included",
        public=_norm_public, reference=_norm_reference, compare=allclose(rtol=1e-8, atol=1e-7),
    ),
    "kernel_distance": Part(
        func="kernel_distance", points=3,
        sections=("rkhs-norm-smoothness",),
        description="d_k for Gaussian, linear and quadratic kernels against kernlab.kernel_distance",
        public=_distance_public, reference=_distance_reference, compare=allclose(rtol=1e-7, atol=1e-6),
    ),
    "project_onto_span": Part(
        func="project_onto_span", points=4, varies=True,
        sections=("rkhs-representer",),
        description="f_0 agrees with f at the data (your variant's kernel), no larger a norm",
        public=_project_public, verify=_verify_project,
    ),
    "mercer_eigenvalues": Part(
        func="mercer_eigenvalues", points=2,
        sections=("rkhs-mercer", "rkhs-gaussian-eigen"),
        description="the closed-form eigenvalues against kernlab.gaussian_mercer_eigenvalues",
        public=_eigenvalues_public, reference=lambda sigma, s, n: kernlab.gaussian_mercer_eigenvalues(n, sigma=sigma, s=s),
        compare=allclose(rtol=1e-9, atol=1e-14),
    ),
    "mercer_eigenfunctions": Part(
        func="mercer_eigenfunctions", points=3,
        sections=("rkhs-mercer", "rkhs-gaussian-eigen"),
        description="the orthonormal eigenfunctions, up to 30 terms, against kernlab",
        public=_eigenfunctions_public, reference=lambda x, sigma, s, n: kernlab.gaussian_mercer_eigenfunctions(x, n, sigma=sigma, s=s),
        compare=allclose(rtol=1e-7, atol=1e-9),
    ),
}
