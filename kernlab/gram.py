"""Gram matrices and positive semi-definiteness.

``gram_matrix`` evaluates any kernel (or plain function of two points) on
data, ``kernel_mult`` forms K v without storing K, ``is_psd`` decides
whether a symmetric matrix is positive semi-definite up to a tolerance and
returns the evidence (it lives in ``kernlab._linalg`` with the other dense
linear algebra), ``find_counterexample`` searches for point sets on
which a candidate function fails to give a PSD Gram matrix -- the practical
way to show that something is *not* a kernel, and ``pivoted_cholesky`` /
``gram_factor`` factor a Gram matrix as ``K = F F^T``, as the kernel SVM
primal uses it.  For the SVM dual, ``check_psd`` refuses a Gram matrix that
is not PSD and ``explicit_factor`` gives the exact thin features of the
linear and polynomial kernels.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

from ._columns import Gram
from ._estimator import check_data, is_precomputed
from ._linalg import PSDVerdict, check_shifted_cholesky, is_psd, one_blas_thread
from ._validation import check_array, check_instance, check_scalar
from .features import PolynomialFeatures
from .kernels import FunctionKernel, Kernel, Linear, Polynomial, Precomputed

__all__ = [
    "gram_matrix",
    "kernel_mult",
    "is_psd",
    "PSDVerdict",
    "find_counterexample",
    "Counterexample",
    "pivoted_cholesky",
    "gram_factor",
]



def _as_kernel(kernel):
    """A Kernel object, wrapping a plain function k(x, t) if necessary."""
    if isinstance(kernel, Kernel):
        return kernel
    check_instance(kernel, "kernel")
    if callable(kernel):
        return FunctionKernel(kernel)
    raise TypeError(f"kernel must be a Kernel or a function k(x, t), got {type(kernel).__name__}")


def gram_matrix(kernel, X, Y=None):
    """Return the Gram matrix K[i, j] = k(X[i], Y[j]) (Y defaults to X).

    Parameters
    ----------
    kernel : Kernel or callable
        A kernel object, or a function ``k(x, t)`` of two single points.
    X, Y : data accepted by the kernel, e.g. arrays of shape (n, d)

    Returns
    -------
    ndarray of shape (n_X, n_Y)

    Examples
    --------
    >>> gram_matrix(lambda x, t: float(x @ t), [[1.0, 0.0], [1.0, 1.0]])
    array([[1., 1.],
           [1., 2.]])
    """
    return _as_kernel(kernel)(X, Y)


def kernel_mult(kernel, X, v, *, block_size=1024):
    """Return K v, with K = k(X, X), one block of rows at a time.

    Only a (block_size, n) slice of K exists at any moment, so K v can be
    formed for n too large to hold the n x n matrix.

    Parameters
    ----------
    kernel : Kernel or callable
    X : array-like of shape (n, d) (or a list for string/set kernels)
    v : array-like of shape (n,) or (n, m)
    block_size : int
        Rows of K computed per step.

    Examples
    --------
    >>> from kernlab import Linear
    >>> kernel_mult(Linear(), [[1.0], [2.0]], [1.0, 1.0])
    array([3., 6.])
    """
    kernel = _as_kernel(kernel)
    block_size = check_scalar(block_size, "block_size", low=1, integer=True)
    v = check_array(v, "v", ensure_2d=False)
    n = len(X)
    if v.shape[0] != n:
        raise ValueError(f"v must have one row per point of X: X has {n} points, v has {v.shape[0]}")
    out = np.empty(v.shape)
    for i in range(0, n, block_size):
        out[i:i + block_size] = kernel(X[i:i + block_size], X) @ v
    return out


@dataclass
class Counterexample:
    """Points on which a candidate's Gram matrix is not PSD.

    Unpacks as ``points, verdict = find_counterexample(...)``.
    """

    points: object
    gram: np.ndarray
    verdict: PSDVerdict

    def __iter__(self):
        return iter((self.points, self.verdict))


def find_counterexample(candidate, dim=2, n_points=5, n_trials=200, random_state=None, *,
                        sampler=None, tol=1e-8):
    """Search random point sets for one whose Gram matrix is not PSD.

    Each trial draws ``n_points`` points, evaluates the candidate's Gram
    matrix and tests it with :func:`is_psd`.  Vector points are Gaussian with
    a scale drawn log-uniformly from [0.1, 10] per trial, so that functions
    failing only for small or only for large inputs are caught.  Finding
    nothing is evidence, not proof, that the candidate is a kernel.

    Parameters
    ----------
    candidate : Kernel or callable
        A kernel object or a function ``k(x, t)`` of two points.
    dim : int
        Dimension of the vector points (ignored when ``sampler`` is given).
    n_points : int
        Points per trial (>= 1).
    n_trials : int
        Number of point sets tried (>= 1).
    random_state : int, numpy Generator or None
        Seed for reproducible searches.
    sampler : callable or None
        ``sampler(rng, n_points)`` returning the points of one trial (e.g. a
        list of strings or sets for string and set candidates).
    tol : float
        Relative tolerance passed to :func:`is_psd`; larger than its default
        so that rounding is never reported as a counterexample.

    Returns
    -------
    Counterexample or None

    Examples
    --------
    >>> found = find_counterexample(lambda x, t: x @ t - (x @ t) ** 2, dim=1, random_state=0)
    >>> bool(found.verdict)
    False
    """
    kernel = _as_kernel(candidate)
    dim = check_scalar(dim, "dim", low=1, integer=True)
    n_points = check_scalar(n_points, "n_points", low=1, integer=True)
    n_trials = check_scalar(n_trials, "n_trials", low=1, integer=True)
    if sampler is not None and not callable(sampler):
        raise TypeError(f"sampler must be callable, got {type(sampler).__name__}")
    rng = np.random.default_rng(random_state)
    for _ in range(n_trials):
        if sampler is None:
            scale = 10.0 ** rng.uniform(-1.0, 1.0)
            points = scale * rng.standard_normal((n_points, dim))
        else:
            points = sampler(rng, n_points)
        K = kernel(points)
        if not np.isfinite(K).all():
            continue  # overflow at large scales says nothing about PSD
        verdict = is_psd(K, tol=tol)
        if not verdict:
            return Counterexample(points, K, verdict)
    return None


# ----------------------------------------------------------------------------
# factorisations K = F F^T
# ----------------------------------------------------------------------------

# Up to this order the Gram matrix is formed and factored by LAPACK (dpstrf,
# blocked) even at full rank: 2 ms at n = 300 and 23 ms at 600, against 30-35 ms
# for the 200 columns one at a time after which a rank above 200 is known.
LAPACK_PIVOTED_MAX = 600


def pivoted_cholesky(K, tol=1e-6, *, check_symmetry=True):
    """Low-rank factor ``F`` with ``K ~= F F^T`` by pivoted Cholesky, checking PSD.

    At each step the largest remaining diagonal entry of the residual
    ``R = K - F F^T`` is chosen as pivot; the factorisation stops when it falls
    below ``tol * max(diag(K))``.  The cost is ``O(n r^2)`` for rank ``r``.
    For a positive semi-definite ``K`` the residual is positive
    semi-definite, so every entry obeys ``|R_ij| <= sqrt(R_ii R_jj)``, which
    is at most the stopping threshold.  The residual is checked block by
    block; a negative pivot or a residual entry above the bound proves that
    ``K`` is not PSD and a ValueError is raised.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix.
    tol : float, default=1e-6
        Relative tolerance (a fraction of the largest diagonal entry).
    check_symmetry : bool, default=True
        Check that ``K`` is symmetric.

    Returns
    -------
    F : ndarray of shape (n, r)
        ``r`` is the numerical rank at this tolerance (at least 1).

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric or not positive semi-definite
        to the tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((6, 2))
    >>> F = pivoted_cholesky(X @ X.T)
    >>> F.shape, bool(np.allclose(F @ F.T, X @ X.T))
    ((6, 2), True)
    """
    K = check_array(K, "K")
    tol = check_scalar(tol, "tol", low=0.0, high=1.0, include_low=False, include_high=False)
    n = K.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K must be square, got shape {K.shape}")
    if check_symmetry:
        scale = max(np.abs(np.diag(K)).max(), np.finfo(float).tiny)
        for start in range(0, n, 512):
            block = K[start:start + 512]
            if np.abs(block - K[:, start:start + 512].T).max() >= 1e-8 * scale:
                raise ValueError("K must be symmetric")
    return pivoted_cholesky_columns(Gram.of_matrix(K), tol, verify=True)


def pivoted_cholesky_columns(gram, tol, verify, max_rank=None):
    """Pivoted Cholesky from kernel columns; see :func:`pivoted_cholesky`.

    With ``max_rank``, None is returned as soon as the numerical rank at
    ``tol`` is known to exceed it (the caller then uses a method that does
    not need a factor).  Up to ``LAPACK_PIVOTED_MAX`` points the whole
    matrix is factored by LAPACK instead of column by column.
    """
    n = gram.n
    d = gram.diag()
    top = d.max()
    scale = max(abs(top), abs(d.min()), np.finfo(float).tiny)
    if d.min() < -1e-12 * scale:
        i = int(np.argmin(d))
        raise ValueError(f"the Gram matrix is not positive semi-definite: its diagonal entry "
                         f"K[{i},{i}] = {d[i]:.3g} is negative")
    if top <= 0:
        if np.abs(gram.full()).max() > 0:
            raise ValueError("the Gram matrix is not positive semi-definite: its diagonal is "
                             "zero but it has non-zero entries")
        return np.zeros((n, 1))
    abs_tol = tol * top
    roundoff = 1e3 * np.finfo(float).eps * top
    if n <= LAPACK_PIVOTED_MAX:
        F = _lapack_pivoted_cholesky(gram.full(), d, abs_tol, roundoff, max_rank)
    else:
        F = _column_pivoted_cholesky(gram, d, abs_tol, roundoff, max_rank)
    if F is None:
        return None
    if verify:
        # Residual check, block by block so that no second n x n matrix is needed.
        bound = abs_tol + roundoff
        rows = max(1, min(n, 2 ** 22 // max(n, 1)))
        for start in range(0, n, rows):
            stop = min(start + rows, n)
            R = F[start:stop] @ F.T
            R -= gram.rows(start, stop)
            if max(R.max(), -R.min()) > 10 * bound:
                i, j = np.unravel_index(np.argmax(np.abs(R)), R.shape)
                raise ValueError(
                    "the Gram matrix is not positive semi-definite: after a pivoted Cholesky "
                    f"factorisation the residual entry R[{start + i},{j}] = {-R[i, j]:.3g} "
                    f"exceeds the bound {bound:.3g} that holds for PSD matrices (use "
                    "kernlab.is_psd for a witness vector)")
    return F


def _column_pivoted_cholesky(gram, d, abs_tol, roundoff, max_rank):
    """Pivoted Cholesky one kernel column at a time; overwrites ``d = diag(K)``."""
    n = gram.n
    cap = min(n, 64)
    F = np.zeros((n, cap), order="F")
    r = 0
    while r < n:
        j = int(np.argmax(d))
        pivot = d[j]
        if pivot <= abs_tol:
            break
        if max_rank is not None and r >= max_rank:
            return None
        if r == cap:
            cap = min(n, 2 * cap)
            F = np.asfortranarray(np.hstack([F, np.zeros((n, cap - F.shape[1]))]))
        col = gram.cols([j])[:, 0] - F[:, :r] @ F[j, :r]
        col /= math.sqrt(pivot)
        F[:, r] = col
        d -= col * col
        d[j] = 0.0
        r += 1
        if d.min() < -(roundoff + abs_tol):
            raise _negative_pivot(d, r)
    return np.ascontiguousarray(F[:, :max(r, 1)])


def _negative_pivot(residual, steps):
    """The refusal of a Gram matrix whose residual diagonal went negative."""
    i = int(np.argmin(residual))
    return ValueError(
        "the Gram matrix is not positive semi-definite: pivoted Cholesky met a negative "
        f"pivot ({residual[i]:.3g} at row {i} after {steps} steps; use kernlab.is_psd for a "
        "witness vector)")


def _lapack_pivoted_cholesky(K, d, abs_tol, roundoff, max_rank):
    """Pivoted Cholesky of a matrix in memory by LAPACK's ``dpstrf``.

    The same pivots and stopping rule as :func:`_column_pivoted_cholesky`;
    the negative-pivot check is made on the residual diagonal at the end
    (it only decreases from step to step) or at ``max_rank`` columns.
    """
    n = len(d)
    with one_blas_thread():
        c, piv, rank, info = lapack.dpstrf(K, tol=abs_tol, lower=1)
    if info < 0:
        raise ValueError(f"LAPACK's dpstrf rejected its argument {-info} (the Gram "
                         "matrix or its tolerance)")
    rank = max(int(rank), 1)
    kept = rank if max_rank is None else min(rank, max_rank)
    F = np.zeros((n, kept))
    F[piv - 1] = np.tril(c[:, :kept])
    residual = d - np.einsum("ij,ij->i", F, F)
    if residual.min() < -(roundoff + abs_tol):
        raise _negative_pivot(residual, kept)
    if max_rank is not None and rank > max_rank:
        return None
    return F


def _trusted_psd(kernel):
    """True for kernlab kernels that are PSD by construction (no user function inside)."""
    if not isinstance(kernel, Kernel) or isinstance(kernel, (FunctionKernel, Precomputed)):
        return False
    parts = getattr(kernel, "parts", None)
    if parts is not None and not all(_trusted_psd(k) for k in parts):
        return False
    return bool(kernel.is_known_psd)


# A Gram matrix that is not PSD by construction must have K + _CHECK_TOL *
# max(diag K) * I positive definite: a negative eigenvalue far below the QP's
# factor tolerance (about -1e-6 relative for a sigmoid kernel with a small
# slope) would otherwise pass unnoticed.
_CHECK_TOL = 1e-10


def check_psd(gram, kernel):
    """Refuse K unless it is PSD, when the kernel is not PSD by construction.

    ``gram`` is a :class:`kernlab._columns.Gram` of K.  Kernels that are PSD
    by construction are not checked.  Any other kernel (a user's function, a
    precomputed matrix, the sigmoid) must give a symmetric K, and ``K + s I``
    must have a Cholesky factor (:func:`kernlab._linalg.check_shifted_cholesky`)
    with ``s`` 1e-10 of its largest diagonal entry, or n times the rounding
    of its entries if that is larger (a float32 Gram matrix is PSD only to
    float32's precision).
    """
    if _trusted_psd(kernel):
        return
    K = gram.full()
    _check_symmetric(K)
    check_shifted_cholesky(K, max(_CHECK_TOL, gram.n * gram.rounding))


def factor_gram(gram, kernel, X, tol, max_rank=None):
    """Factor F with K = F F^T: explicit features if available, else pivoted Cholesky.

    The kernel's explicit features are taken when it has them; otherwise a
    pivoted Cholesky factor to the tolerance ``tol`` (with its residual
    checked when the kernel is not PSD by construction, which must also
    pass :func:`check_psd`).  Returns ``(F, exact)``; F is None when the
    numerical rank exceeds ``max_rank``.
    """
    F = explicit_factor(kernel, X)
    if F is not None and (max_rank is None or F.shape[1] <= max_rank):
        return F, True
    if _trusted_psd(kernel):
        return pivoted_cholesky_columns(gram, tol, verify=False, max_rank=max_rank), False
    check_psd(gram, kernel)
    shift = max(_CHECK_TOL, gram.n * gram.rounding)
    return pivoted_cholesky_columns(gram, max(tol, shift), verify=True, max_rank=max_rank), False


def _check_symmetric(K):
    """A kernel's Gram matrix must be symmetric (to 1e-10 of its largest entry)."""
    scale = max(np.abs(K).max(), np.finfo(float).tiny)
    for start in range(0, K.shape[0], 512):
        gap = np.abs(K[start:start + 512] - K[:, start:start + 512].T)
        if gap.max() > 1e-10 * scale:
            i, j = np.unravel_index(np.argmax(gap), gap.shape)
            i += start
            raise ValueError(
                "the Gram matrix is not symmetric: the kernel must be a symmetric function "
                f"k(x, t) = k(t, x), but K[{i}, {j}] = {K[i, j]:.6g} and K[{j}, {i}] = "
                f"{K[j, i]:.6g}")


def gram_factor(kernel, X, *, tol=1e-4):
    """Return ``(K, F)`` with ``K = kernel(X)`` and an exact or tolerance factor ``F F^T = K``.

    The linear kernel uses its feature map ``F = X`` when ``d <= n`` and the
    polynomial kernel ``(c + <x, t>)^p`` (``c >= 0``) its multinomial feature
    map when that has at most ``n`` features; every other kernel uses
    :func:`pivoted_cholesky` (which also checks that ``K`` is positive
    semi-definite).  With ``kernel="precomputed"``, ``X`` is the Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Gaussian
    >>> X = np.random.default_rng(0).standard_normal((30, 2))
    >>> K, F = gram_factor(Gaussian(sigma=1.0), X)
    >>> bool(np.abs(K - F @ F.T).max() <= 1e-3)
    True
    """
    if not is_precomputed(kernel):
        X = check_data(X, kernel)
    gram = Gram(kernel, X)
    F, _ = factor_gram(gram, kernel, X, tol)
    return gram.full(), F


def explicit_factor(kernel, X):
    """Exact feature matrix for linear and polynomial kernels when it is small enough."""
    if is_precomputed(kernel) or not isinstance(X, np.ndarray):
        return None
    n, d = X.shape
    if type(kernel) is Linear and d <= n:
        return np.array(X, dtype=np.float64)
    if type(kernel) is Polynomial and kernel.c >= 0:
        p = kernel.degree
        n_features = math.comb(d + p, p) if kernel.c > 0 else math.comb(d + p - 1, p)
        if n_features <= n:
            return PolynomialFeatures(degree=p, c=kernel.c).fit_transform(X)
    return None
