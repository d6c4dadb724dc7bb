"""Problem set 4: reproducing kernel Hilbert spaces.

Inner products and norms are checked against ``kernlab.RKHSFunction``, the
kernel distance against ``kernlab.kernel_distance``, and the Mercer expansion
of the Gaussian kernel against ``kernlab.gaussian_mercer_eigenvalues`` and
``kernlab.gaussian_mercer_eigenfunctions``.  The projection onto the span of
the data is judged by what defines it -- its values at the data and its RKHS
norm, computed with ``kernlab.Gaussian`` -- because its coefficients can be
ill-conditioned.
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, public_answers, allclose, float_array

__all__ = ["PARTS"]


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


# ----------------------------------------------------- 1. inner products

def _inner_reference(alpha, X, beta, Y, sigma):
    k = kernlab.Gaussian(sigma=sigma)
    return kernlab.RKHSFunction(k, X, alpha).inner(kernlab.RKHSFunction(k, Y, beta))


def _inner_public():
    rng = np.random.default_rng(501)
    a, X = expansion(rng, 4, 2)
    b, Y = expansion(rng, 3, 2)
    return [
        Case(args=(np.array([1.0]), np.array([[0.0]]), np.array([1.0]), np.array([[2.0]]), 1.0),
             label="<k(.,0), k(.,2)> in R^1, sigma=1 (answer exp(-2))"),
        Case(args=(a, X, b, Y, 1.0), label="4 centres against 3 centres in R^2, sigma=1"),
        Case(args=(a, X, a, X, 0.5), label="<f, f> (the squared norm), sigma=0.5"),
        Case(args=(a, X, np.array([1.0]), Y[:1], 2.0), label="<f, k(., y)> = f(y), sigma=2"),
    ]


# ----------------------------------------------------- 2. norms

def _norm_reference(alpha, X, sigma):
    return kernlab.RKHSFunction(kernlab.Gaussian(sigma=sigma), X, alpha).norm()


def _norm_public():
    rng = np.random.default_rng(502)
    a, X = expansion(rng, 5, 3)
    same = np.array([[0.3, -1.2], [0.3, -1.2]])
    return [
        Case(args=(np.array([2.0]), np.array([[1.0, 1.0]]), 1.0),
             label="2 k(., x): norm 2 for any x"),
        Case(args=(a, X, 1.0), label="5 centres in R^3, sigma=1"),
        Case(args=(np.array([1.0, -1.0]), same, 0.7),
             label="alpha=(1,-1) on a repeated centre: the zero function"),
        Case(args=(np.array([1.0, 1.0, -2.0]), np.array([[0.0], [0.0], [0.0]]), 1.0),
             label="three copies of one centre, coefficients summing to 0"),
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


def _project_compare(got, expected, case):
    alpha, X, Z, sigma = case.args
    c, message = float_array(got, f"the coefficients c, shape ({len(Z)},)", ndim=1)
    if message:
        return message
    if c.shape != (len(Z),):
        return f"expected shape ({len(Z)},) (one coefficient per data point), got {c.shape}"
    k = kernlab.Gaussian(sigma=sigma)
    K = k(Z)
    target = k(Z, X) @ np.asarray(alpha, dtype=float)
    scale = max(1.0, float(np.abs(target).max()))
    values = K @ c
    bad = np.abs(values - target) > 1e-6 * scale
    if bad.any():
        j = int(np.argmax(np.abs(values - target)))
        return (f"f_0 does not agree with f at the data: at z_{j}, f(z_{j}) = {target[j]:.8g} "
                f"but your f_0(z_{j}) = sum_i c_i k(z_{j}, z_i) = {values[j]:.8g}")
    norm_got = float(np.sqrt(max(c @ K @ c, 0.0)))
    norm_exp = float(np.sqrt(max(expected @ K @ expected, 0.0)))
    if not np.isclose(norm_got, norm_exp, rtol=1e-6, atol=1e-9):
        return f"||f_0|| should be {norm_exp:.8g}, yours is {norm_got:.8g}"
    return None


def _project_public():
    rng = np.random.default_rng(504)
    alpha, X = expansion(rng, 12, 2)
    Z = spread_points(rng, 5, 2, 0.8)
    alpha1, X1 = expansion(rng, 6, 1)
    Z1 = spread_points(rng, 4, 1, 0.7)
    return [
        Case(args=(np.array([1.0]), np.array([[0.5]]), np.array([[0.5]]), 1.0),
             label="f = k(., 0.5) projected onto its own span (answer c = [1])"),
        Case(args=(alpha, X, Z, 1.0), label="12 centres onto 5 data points in R^2, sigma=1"),
        Case(args=(alpha1, X1, Z1, 0.8), label="6 centres onto 4 data points in R^1, sigma=0.8"),
        Case(args=(alpha, X, X[:6], 1.5), label="onto the span of 6 of the centres, sigma=1.5"),
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


# ----------------------------------------------------- the parts

PARTS = {
    "rkhs_inner": Part(
        func="rkhs_inner", points=2,
        sections=("rkhs-moore-aronszajn",),
        description="alpha^T K(X, Y) beta for Gaussian kernel expansions against kernlab.RKHSFunction",
        public=_inner_public, reference=_inner_reference, compare=allclose(rtol=1e-8, atol=1e-10),
    ),
    "rkhs_norm": Part(
        func="rkhs_norm", points=2,
        sections=("rkhs-moore-aronszajn", "rkhs-norm-smoothness"),
        description="the RKHS norm, expansions of the zero function included, against kernlab.RKHSFunction",
        public=_norm_public, reference=_norm_reference, compare=allclose(rtol=1e-8, atol=1e-7),
    ),
    "kernel_distance": Part(
        func="kernel_distance", points=3,
        sections=("rkhs-norm-smoothness",),
        description="d_k for Gaussian, linear and quadratic kernels against kernlab.kernel_distance",
        public=_distance_public, reference=_distance_reference, compare=allclose(rtol=1e-7, atol=1e-6),
    ),
    "project_onto_span": Part(
        func="project_onto_span", points=4,
        sections=("rkhs-representer",),
        description="f_0 interpolates f at the data and has the exact RKHS norm",
        public=_project_public, answers=public_answers("ps4", "project_onto_span"), compare=_project_compare,
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
