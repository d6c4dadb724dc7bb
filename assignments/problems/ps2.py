"""Problem set 2: ridge regression in the primal, in the dual, in a basis and with a kernel.

Every part lists fixed public cases (the student sees their labels, inputs and
expected values); the grader adds hidden ones. Expected values come from
``kernlab``, except for the bump Gram matrix and the basis ridge, whose
closed form is the answer itself: their public expected values are data
(``answers.json``).

Parts 5, 7 and 8 are on each student's own width sigma of the Gaussian bumps
and of the Gaussian kernel (``VARIANT``).  The width is one of 151 numbers, so
the public expected values of the bump Gram matrix and the basis ridge come as
one table per width (``variant_answers``): the values each student's own check
prints, for every width, and never the rule that computes them.  Since the
package holds every width's, those public checks carry no points: the two
parts are scored on their hidden cases (``Part.public_points``).
"""

import numpy as np

import kernlab
from coursecheck.parts import Case, Part, allclose, float_array, log_uniform, variant_answers
from coursecheck.variants import Variation, outside

__all__ = ["PARTS", "VARIANT", "WIDTHS"]


# ---------------------------------------------------------------- helpers


def _max_gap(a, b):
    i = np.unravel_index(int(np.argmax(np.abs(a - b))), a.shape)
    return f"largest difference at index {tuple(int(k) for k in i)}: expected {b[i]:.8g}, got {a[i]:.8g}"


def regression_data(rng, n, d, scale=1.0):
    X = scale * rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = X @ w + 0.3 * rng.normal(size=n)
    return X, y


# ----------------------------------------------------- the variant
#
# Each student's variant gives the Gaussian bumps of parts 5 and 7 and the
# Gaussian kernel of part 8 one width sigma, so that a matrix, weights or
# predictions worked out for a classmate's width, or a function written for
# it, are judged against the student's own.  Every case of those parts depends
# on sigma.  Parts 1, 2 and 4 are functions of their inputs (X, y, lam): see
# the course's README on why they do not vary.

#: the widths a variant is drawn from: log-uniform on [SIGMA_LOW, SIGMA_HIGH],
#: to two decimals
SIGMA_LOW, SIGMA_HIGH = 0.5, 2.0
#: every width a variant can have
WIDTHS = tuple(round(0.5 + 0.01 * i, 2) for i in range(151))


def _draw(rng):
    """One variant: the width sigma of the bumps (parts 5, 7) and the kernel (part 8)."""
    return {"sigma": round(log_uniform(rng, SIGMA_LOW, SIGMA_HIGH), 2)}


def _space():
    return [{"sigma": s} for s in WIDTHS]


def _holds(v):
    """None when sigma is one of the widths.

    That the basis ridge's systems stay well conditioned on every width (so
    that any backward-stable solve meets the part's tolerance) is checked by
    the course's tests, with the grader's reference: the system is the
    solution of part 7.
    """
    return outside("sigma", v["sigma"], SIGMA_LOW, SIGMA_HIGH) or (
        None if v["sigma"] in WIDTHS else f"sigma = {v['sigma']!r} must have two decimals")


# ----------------------------------------------------- 1. primal ridge


def _ridge_primal_public():
    rng = np.random.default_rng(201)
    X, y = regression_data(rng, 12, 3)
    Xw, yw = regression_data(rng, 4, 9)
    return [
        Case(args=(X, y, 0.5), label="12 points in R^3, lam=0.5"),
        Case(args=(X, y, 100.0), label="same data, heavy shrinkage lam=100"),
        Case(args=(Xw, yw, 1.0), label="4 points in R^9 (more features than points), lam=1"),
        Case(args=(np.array([[1.0], [2.0], [3.0]]), np.array([2.0, 4.0, 6.0]), 1.0),
             label="1-D data on the line y = 2x, lam=1 (answer 28/15)"),
    ]


def _ridge_primal_reference(X, y, lam):
    return kernlab.Ridge(lam=lam, solver="primal").fit(X, y).coef_


# ------------------------------------------------------- 2. dual ridge


def _ridge_dual_public():
    rng = np.random.default_rng(202)
    X, y = regression_data(rng, 6, 40)
    Xt, yt = regression_data(rng, 10, 2)
    return [
        Case(args=(X, y, 0.5), label="6 points in R^40, lam=0.5"),
        Case(args=(Xt, yt, 2.0), label="10 points in R^2 (more points than features), lam=2"),
        Case(args=(np.array([[1.0], [2.0], [3.0]]), np.array([2.0, 4.0, 6.0]), 1.0),
             label="1-D data on the line y = 2x, lam=1"),
    ]


def _ridge_dual_reference(X, y, lam):
    return kernlab.Ridge(lam=lam, solver="dual").fit(X, y).alpha_


# ------------------------------------------ 3. ridge with a free intercept


def _ridge_intercept_reference(X, y, lam):
    model = kernlab.Ridge(lam=lam, fit_intercept=True).fit(X, y)
    return {"w": model.coef_, "b": float(model.intercept_)}


def _ridge_intercept_compare(got, expected, case):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return f"expected a pair (w, b), got {type(got).__name__}"
    w, msg = float_array(got[0], "w", ndim=1)
    if msg:
        return msg
    if w.shape != expected["w"].shape:
        return f"expected w of shape {expected['w'].shape}, got {w.shape}"
    b, msg = float_array(np.reshape(got[1], -1) if np.ndim(got[1]) else [got[1]], "b", ndim=1)
    if msg or b.shape != (1,):
        return msg or f"expected b to be a single number, got shape {np.shape(got[1])}"
    if not np.allclose(w, expected["w"], rtol=1e-6, atol=1e-9):
        return "w is wrong; " + _max_gap(w, expected["w"])
    if not np.isclose(b[0], expected["b"], rtol=1e-6, atol=1e-9):
        return f"w is right but b is wrong: expected {expected['b']:.8g}, got {b[0]:.8g}"
    return None


def _ridge_intercept_public():
    rng = np.random.default_rng(203)
    X, y = regression_data(rng, 15, 2)
    return [
        Case(args=(np.array([[0.0], [1.0], [2.0]]), np.array([11.0, 13.0, 15.0]), 1.0),
             label="points on the line y = 11 + 2x, lam=1 (w = 4/3, b = 35/3)"),
        Case(args=(X, y + 50.0, 0.5), label="15 points in R^2 with targets shifted by 50, lam=0.5"),
        Case(args=(X + 10.0, y, 2.0), label="same inputs moved by 10 in every coordinate, lam=2"),
    ]


# ------------------------------- 4. Gram matrix of normalised Gaussian bumps


def _bump_gram_public(v):
    return [
        Case(args=(np.array([[0.0], [1.0], [3.0]]),), label="centres 0, 1, 3 on the line"),
        Case(args=(np.array([[0.0, 0.0], [1.0, 1.0]]),), label="centres (0,0), (1,1) in R^2"),
        Case(args=(np.linspace(-2.0, 2.0, 9).reshape(-1, 1),), label="9 centres on [-2, 2]"),
    ]


# ------------------------------------------ 5. ridge in the bump basis


def _basis_ridge_public(v):
    rng = np.random.default_rng(205)
    t = np.sort(rng.uniform(-3, 3, size=25)).reshape(-1, 1)
    y = np.sin(t[:, 0]) + 0.1 * rng.normal(size=25)
    centres = np.linspace(-3, 3, 7).reshape(-1, 1)
    T2 = rng.uniform(-1, 1, size=(30, 2))
    y2 = T2[:, 0] * T2[:, 1] + 0.05 * rng.normal(size=30)
    c2 = np.array([[x, z] for x in (-1.0, 0.0, 1.0) for z in (-1.0, 0.0, 1.0)])
    return [
        Case(args=(t, y, centres, 0.1), label="sin on [-3, 3], 7 centres, lam=0.1"),
        Case(args=(t, y, centres, 10.0), label="same data, lam=10"),
        Case(args=(T2, y2, c2, 0.05), label="xy on the square, 3x3 grid of centres, lam=0.05"),
    ]


# -------------------------------------------- 6. Gaussian kernel ridge


def _kernel_ridge_reference(v, X, y, X_new, lam):
    model = kernlab.KernelRidge(kernel=kernlab.Gaussian(sigma=v["sigma"]), lam=lam).fit(X, y)
    return model.predict(X_new)


def _kernel_ridge_public(v):
    rng = np.random.default_rng(206)
    x = np.sort(rng.uniform(0, 6, size=20)).reshape(-1, 1)
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=20)
    grid = np.linspace(0, 6, 13).reshape(-1, 1)
    X2 = rng.normal(size=(15, 3))
    y2 = np.exp(-np.sum(X2**2, axis=1))
    return [
        Case(args=(x, y, grid, 0.1), label="sin on [0, 6], 20 points, lam=0.1, 13 new points"),
        Case(args=(x, y, x, 1e-3), label="same data predicted at the training points, lam=0.001"),
        Case(args=(X2, y2, X2[:4] + 0.1, 0.5), label="15 points in R^3, lam=0.5, 4 new points"),
        Case(args=(np.array([[0.0]]), np.array([3.0]), np.array([[0.0], [1.0]]), 1.0),
             label="one point (0, 3), lam=1: predictions 1.5 and 1.5 k(0, 1)"),
    ]


VARIANT = Variation(draw=_draw, check=_holds, space=_space)


# ------------------------------------------------------------- parts

PARTS = {
    "ridge_primal": Part(
        func="ridge_primal", points=3,
        sections=("kt-primal-ridge",),
        description="the weights solve the d x d normal equations",
        public=_ridge_primal_public, reference=_ridge_primal_reference, compare=allclose(rtol=1e-6, atol=1e-9),
    ),
    "ridge_dual": Part(
        func="ridge_dual", points=3,
        sections=("reg-dual", "svm-push-through"),
        description="alpha solves the n x n dual system",
        public=_ridge_dual_public, reference=_ridge_dual_reference, compare=allclose(rtol=1e-6, atol=1e-9),
    ),
    "ridge_intercept": Part(
        func="ridge_intercept", points=3,
        sections=("svm-ridge-intercept",),
        description="w and the unpenalised intercept b",
        public=_ridge_intercept_public, reference=_ridge_intercept_reference, compare=_ridge_intercept_compare,
    ),
    "bump_gram": Part(
        func="bump_gram", points=2, varies=True,
        sections=("bk-gaussian-bumps",),
        description="the L2 inner products of the bumps of your variant's width",
        public=_bump_gram_public, answers=variant_answers("ps2", "bump_gram"), compare=allclose(rtol=1e-8, atol=1e-12),
    ),
    "basis_ridge": Part(
        func="basis_ridge", points=3, varies=True,
        sections=("bk-finite-basis", "bk-ridge-shifts"),
        description="w solves (Phi^T Phi + lam G) w = Phi^T y, bumps of your variant's width",
        public=_basis_ridge_public, answers=variant_answers("ps2", "basis_ridge"), compare=allclose(rtol=1e-5, atol=1e-7),
    ),
    "kernel_ridge_predict": Part(
        func="kernel_ridge_predict", points=3, varies=True,
        sections=("kt-kernelised-ridge", "kt-rbf"),
        description="kernel ridge predictions, Gaussian kernel of your variant's width",
        public=_kernel_ridge_public, reference=_kernel_ridge_reference, compare=allclose(rtol=1e-6, atol=1e-8),
    ),
}
