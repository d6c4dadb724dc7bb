"""The Gaussian kernel's Gram matrix: one BLAS product, finished in blocks on threads.

exp(-gamma ||x - t||^2) is computed from the expansion
``2 gamma <x, t> - gamma |x|^2 - gamma |t|^2`` on centred data, so that the
only O(n^2 d) work is one matrix product.  The product's blocks of rows are
then finished (subtract, exponentiate) while they are in cache, on two or
more threads for large matrices: numpy releases the GIL inside its
elementwise loops.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas

from ._symmetric import mirror_block, upper_mask

__all__ = ["gaussian_gram"]

_BLOCK = 128  # rows per block of the Gram matrix (a few MB: stays in cache)
_BLOCK_ENTRIES = _BLOCK * 2048  # entries per block of a cross Gram matrix
_THREADED_MIN_ENTRIES = 2048 * 2048  # below this, threads cost more than they save
_N_THREADS = min(4, os.cpu_count() or 1)


def gaussian_gram(X, Y, gamma):
    """exp(-gamma ||x_i - y_j||^2) for rows of X against rows of Y (``Y=None``: X).

    With ``Y=None`` the result is exactly symmetric with a diagonal of ones.
    ``X`` and ``Y`` are validated float64 arrays of shape (n, d).

    Examples
    --------
    >>> import numpy as np
    >>> gaussian_gram(np.array([[0.0], [2.0]]), None, gamma=0.5)
    array([[1.        , 0.13533528],
           [0.13533528, 1.        ]])
    """
    if Y is None:
        return _symmetric(X, gamma)
    return _cross(X, Y, gamma)


def _for_each_block(work, n_rows, n_cols, rows_per_block=_BLOCK):
    """Call work(start) for every block of rows; two or more threads for big jobs.

    A few columns (a kernel column for a solver) are one block on one
    thread: starting threads would cost more than the work.
    """
    starts = range(0, n_rows, rows_per_block)
    if n_rows * n_cols < _THREADED_MIN_ENTRIES or _N_THREADS < 2:
        for start in starts:
            work(start)
        return
    with ThreadPoolExecutor(_N_THREADS) as pool:
        for _ in pool.map(work, starts):
            pass  # consume results so that exceptions propagate


def _exp_of_exponent(block, half_sq_rows, half_sq_cols, X_rows, Y_cols, gamma):
    """In place: block <- exp(block - a_i - b_j), i.e. exp(-gamma ||x_i - y_j||^2).

    ``block`` holds ``2 gamma <x_i, y_j>`` on entry.  The expansion
    ``2 gamma <x, y> - gamma |x|^2 - gamma |y|^2`` loses about
    ``gamma * eps * d * (|x|^2 + |y|^2)`` to cancellation; the callers centre
    the data, which makes this small; the entries whose value k could still
    be off by more than 1e-12 (k times the exponent's error; narrow kernels)
    are recomputed from the differences ``x - y`` directly.
    """
    block -= half_sq_cols[None, :]
    block -= half_sq_rows[:, None]
    d = X_rows.shape[1]
    eps = np.finfo(float).eps
    worst = (d + 4) * eps * (half_sq_rows.max(initial=0.0)
                             + half_sq_cols.max(initial=0.0))
    if worst > 1e-12:
        # k * worst > 1e-12 only where the exponent exceeds log(1e-12 / worst)
        i, j = np.nonzero(block > np.log(1e-12 / worst) - worst)
        if i.size:
            diff = X_rows[i] - Y_cols[j]
            block[i, j] = -gamma * np.einsum("ij,ij->i", diff, diff)
    np.minimum(block, 0.0, out=block)  # rounding can make ||x-t||^2 slightly negative
    np.exp(block, out=block)


def _centre(X, Y=None):
    """Subtract the mean of the rows of X (and Y): the kernel sees only differences."""
    if Y is None:
        return X - X.mean(axis=0), None
    mean = (X.sum(axis=0) + Y.sum(axis=0)) / (X.shape[0] + Y.shape[0])
    return X - mean, Y - mean


def _symmetric(X, gamma):
    """The symmetric case: one triangle from dsyrk, mirrored block by block.

    dsyrk computes the lower triangle of 2 gamma X X^T with half the flops of
    a full product; its Fortran-ordered result viewed transposed is a
    C-ordered array whose lower triangle holds the values.  The upper
    triangle is left as it was, so each diagonal square is zeroed above its
    diagonal before it is read (an uninitialised output spares zero-filling
    the whole n x n array, but its upper triangle may hold any bit pattern,
    signalling NaNs included).  Each finished block of rows is copied onto
    the upper triangle, so the only n x n array allocated is the result.
    """
    X, _ = _centre(X)
    half_sq = gamma * np.einsum("ij,ij->i", X, X)
    n = X.shape[0]
    out = np.empty((n, n), order="F")
    K = blas.dsyrk(2.0 * gamma, X.T, beta=0.0, c=out, trans=1, overwrite_c=1).T
    upper = upper_mask(min(_BLOCK, n))

    def finish(i):
        j = min(i + _BLOCK, n)
        square = K[i:j, i:j]
        np.copyto(square, 0.0, where=upper[:j - i, :j - i])  # never read garbage
        block = K[i:j, :j]  # rows i:j, up to and including the diagonal
        _exp_of_exponent(block, half_sq[i:j], half_sq[:j], X[i:j], X[:j], gamma)
        np.fill_diagonal(square, 1.0)  # k(x, x) = 1 exactly
        mirror_block(K, i, j, upper)

    _for_each_block(finish, n, n)
    return K


def _cross(X, Y, gamma):
    """The cross case: X against Y, centred together."""
    X, Y = _centre(X, Y)
    half_sq_x = gamma * np.einsum("ij,ij->i", X, X)
    half_sq_y = gamma * np.einsum("ij,ij->i", Y, Y)
    K = X @ Y.T
    K *= 2.0 * gamma

    n_rows, n_cols = K.shape
    per_block = max(_BLOCK, _BLOCK_ENTRIES // max(n_cols, 1))

    def finish(i):
        rows = slice(i, i + per_block)
        _exp_of_exponent(K[rows], half_sq_x[rows], half_sq_y, X[rows], Y, gamma)

    _for_each_block(finish, n_rows, n_cols, per_block)
    return K
