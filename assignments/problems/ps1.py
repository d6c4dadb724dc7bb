"""Problem set 1: feature maps and kernel validity.

Parts (grade ids):

* ``quadratic_map`` -- ``quadratic_feature_map(X)``: a map R^2 -> R^6 whose
  inner products reproduce (1 + <x, z>)^2;
* ``multinomial_map`` -- ``multinomial_feature_map(X, p)``: the map with
  C(d+p, p) coordinates for (1 + <x, z>)^p on R^d;
* ``kernel_verdicts`` -- ``is_kernel(name)``: which candidate functions are
  positive semi-definite kernels;
* ``counterexample`` -- ``counterexample_points(name)``: points on which a
  candidate that is not a kernel has a Gram matrix with a negative eigenvalue.

A feature map is not unique (coordinates can be permuted or rotated), so the
maps are judged by their inner products against kernlab's polynomial kernel,
not entry by entry.
"""

from math import comb

import numpy as np

from coursecheck.parts import Case, Part, equal, public_answers

__all__ = ["CANDIDATES", "SHEET", "NOT_KERNELS_ON_SHEET", "candidate_gram", "PARTS"]

_B_DIAG = np.array([[1.0, 0.0], [0.0, 5.0]])
_B_INDEF = np.array([[-1.0, 2.0], [2.0, 4.0]])

# name -> k(x, z) on two points of R^2 (1-D arrays of length 2).  The notebook's
# setup cell defines the same functions; tests/grading/test_grading_unit.py checks that.
CANDIDATES = {
    "B_diag": lambda x, z: float(x @ _B_DIAG @ z),
    "B_indefinite": lambda x, z: float(x @ _B_INDEF @ z),
    "exp_first": lambda x, z: float(np.exp(x[0] * z[0])),
    "lin_minus_sq": lambda x, z: float(x @ z - (x @ z) ** 2),
    "cubic": lambda x, z: float((x @ z) ** 3),
    "gauss": lambda x, z: float(np.exp(-np.sum((x - z) ** 2))),
    "dist": lambda x, z: float(np.sqrt(np.sum((x - z) ** 2))),
    "sq_dist": lambda x, z: float(np.sum((x - z) ** 2)),
    "neg_lin": lambda x, z: float(-(x @ z)),
    "lin_plus_one": lambda x, z: float(x @ z + 1.0),
    "lin_minus_one": lambda x, z: float(x @ z - 1.0),
    "sum_first": lambda x, z: float(x[0] + z[0]),
    "cos_first": lambda x, z: float(np.cos(x[0] - z[0])),
    "max_first": lambda x, z: float(max(x[0], z[0])),
    "min_abs_first": lambda x, z: float(min(abs(x[0]), abs(z[0]))),
    "norm_product": lambda x, z: float(np.linalg.norm(x) * np.linalg.norm(z)),
}

# The four candidates of the problem sheet, which the public cases ask about,
# and the two of them that are not kernels (the counterexample's public cases).
SHEET = ["B_diag", "B_indefinite", "exp_first", "lin_minus_sq"]
NOT_KERNELS_ON_SHEET = ["B_indefinite", "lin_minus_sq"]


def candidate_gram(name, P):
    """Gram matrix of candidate ``name`` on the rows of ``P`` (shape (m, 2)), via kernlab."""
    import kernlab
    return kernlab.FunctionKernel(CANDIDATES[name])(np.asarray(P, dtype=float))


def _gram_mismatch(Phi, K):
    """None if Phi Phi^T equals K up to rounding, else a message naming the worst pair."""
    G = Phi @ Phi.T
    scale = max(1.0, float(np.max(np.abs(K))))
    err = np.abs(G - K)
    if np.all(err <= 1e-8 * scale):
        return None
    i, j = np.unravel_index(int(np.argmax(err)), err.shape)
    return (f"<phi(x_{i}), phi(x_{j})> = {G[i, j]:.6g} but the kernel gives "
            f"k(x_{i}, x_{j}) = {K[i, j]:.6g}")


def _check_map(got, X, n_cols):
    arr = np.asarray(got) if isinstance(got, (np.ndarray, list, tuple)) else None
    if arr is None or arr.dtype.kind not in "biuf":
        return f"expected an array of shape ({X.shape[0]}, {n_cols}), got {type(got).__name__}"
    if arr.shape != (X.shape[0], n_cols):
        return f"expected shape ({X.shape[0]}, {n_cols}), got {arr.shape}"
    if not np.all(np.isfinite(arr)):
        return "the feature map contains nan or inf"
    return None


def _verify_quadratic(got, case):
    import kernlab
    (X,) = case.args
    msg = _check_map(got, X, 6)
    if msg:
        return msg
    return _gram_mismatch(np.asarray(got, dtype=float), kernlab.Polynomial(degree=2, c=1.0)(X))


def _verify_multinomial(got, case):
    import kernlab
    X, p = case.args
    msg = _check_map(got, X, comb(X.shape[1] + p, p))
    if msg:
        return msg
    return _gram_mismatch(np.asarray(got, dtype=float), kernlab.Polynomial(degree=p, c=1.0)(X))


def _verify_counterexample(got, case):
    import kernlab
    (name,) = case.args
    P = np.asarray(got) if isinstance(got, (np.ndarray, list, tuple)) else None
    if P is None or P.dtype.kind not in "biuf":
        return f"expected an array of points of shape (m, 2), got {type(got).__name__}"
    if P.ndim != 2 or P.shape[1] != 2 or not 1 <= P.shape[0] <= 20:
        return f"expected shape (m, 2) with 1 <= m <= 20, got {P.shape}"
    P = P.astype(float)
    if not np.all(np.isfinite(P)) or np.max(np.abs(P)) > 1e3:
        return "the points must be finite with coordinates of size at most 1000"
    K = candidate_gram(name, P)
    lam_min = float(np.linalg.eigvalsh(K)[0])
    margin = 1e-6 * max(1.0, float(np.max(np.abs(K))))
    if lam_min < -margin and not kernlab.is_psd(K):
        return None
    return (f"the Gram matrix of {name} on your {P.shape[0]} point(s) is positive "
            f"semi-definite up to rounding (smallest eigenvalue {lam_min:.3g})")


def _quad_public():
    X = np.array([[1.0, 2.0], [0.0, 0.0], [-1.5, 0.5], [3.0, -2.0]])
    return [Case(args=(X,), label="4 points in R^2 (one at the origin)"),
            Case(args=(np.array([[0.5, -4.0]]),), label="a single point (shape (1, 2))")]


def _multi_public():
    rng = np.random.default_rng(101)
    return [
        Case(args=(rng.normal(size=(5, 2)), 2), label="5 points in R^2, p=2"),
        Case(args=(rng.normal(size=(4, 3)), 3), label="4 points in R^3, p=3"),
        Case(args=(rng.normal(size=(3, 1)), 4), label="3 points in R^1, p=4"),
        Case(args=(rng.normal(size=(2, 4)), 1), label="2 points in R^4, p=1"),
    ]


def _verdict_public():
    return [Case(args=(name,), label=f"candidate {name}") for name in SHEET]


def _counter_public():
    return [Case(args=(name,), label=f"candidate {name}")
            for name in NOT_KERNELS_ON_SHEET]


PARTS = {
    "quadratic_map": Part(
        func="quadratic_feature_map", points=2,
        sections=("kt-polynomial-features", "kt-polynomial"),
        description="its inner products equal (1 + <x, z>)^2",
        public=_quad_public, verify=_verify_quadratic,
    ),
    "multinomial_map": Part(
        func="multinomial_feature_map", points=3,
        sections=("bk-polynomials", "kt-polynomial"),
        description="shape (n, C(d+p, p)) and inner products equal (1 + <x, z>)^p",
        public=_multi_public, verify=_verify_multinomial,
    ),
    "kernel_verdicts": Part(
        func="is_kernel", points=2,
        sections=("kt-when-kernel", "reg-closure"),
        description="the verdict for each candidate",
        public=_verdict_public, answers=public_answers("ps1", "kernel_verdicts"), compare=equal(),
    ),
    "counterexample": Part(
        func="counterexample_points", points=3,
        sections=("kt-when-kernel",),
        description="the Gram matrix on the returned points is not PSD",
        public=_counter_public, verify=_verify_counterexample,
    ),
}
