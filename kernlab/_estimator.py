"""Plumbing shared by the estimators: argument checks, Gram matrices, precomputed kernels.

An estimator takes a kernel (a kernlab kernel, a function ``k(X, Y)`` or
the string ``"precomputed"``) and data (a numeric 2-D array, or a list of
strings or sets for the kernels that take them).  The functions here check
both, evaluate Gram matrices with their shape and values checked, and give
the training Gram matrix column by column (:class:`GramColumns`) so that
a factorisation need not form all of it.
"""

import numpy as np

from ._validation import check_array, check_instance, check_scalar, holds_objects
from .kernels import Kernel

__all__ = [
    "check_kernel", "is_precomputed", "check_lam", "check_targets", "check_data",
    "check_precomputed_gram", "check_cross_gram", "compute_gram", "owns_result",
    "n_samples", "n_features", "take", "record_n_features", "check_n_features", "GramColumns",
]


def check_kernel(kernel, name="kernel", *, allow_precomputed=True):
    """A kernel instance, a callable ``k(X, Y)`` or ``"precomputed"``; anything else is refused.

    Examples
    --------
    >>> check_kernel("precomputed")
    'precomputed'
    >>> check_kernel("rbf")
    Traceback (most recent call last):
    ...
    ValueError: kernel given as a string must be 'precomputed', got 'rbf'
    """
    if kernel is None:
        raise TypeError(f"{name} is required: pass a kernlab kernel such as Gaussian(sigma=1.0), "
                        "a callable k(X, Y) or the string 'precomputed'")
    check_instance(kernel, name)
    if isinstance(kernel, str) and allow_precomputed:
        if kernel != "precomputed":
            raise ValueError(f"{name} given as a string must be 'precomputed', got {kernel!r}")
        return kernel
    if not callable(kernel):
        raise TypeError(f"{name} must be callable as kernel(X, Y), got {type(kernel).__name__}")
    return kernel


def is_precomputed(kernel):
    """True for the string ``"precomputed"``."""
    return isinstance(kernel, str) and kernel == "precomputed"


def check_lam(lam, name="lam"):
    """``lam`` must be a finite number >= 0.

    Examples
    --------
    >>> check_lam(0.5)
    0.5
    """
    return check_scalar(lam, name, low=0.0, finite=True)


def check_targets(y, n_samples, name="y"):
    """Return ``y`` as float64 of shape (n,) or (n, m) with n matching X.

    Examples
    --------
    >>> check_targets([1, 2], 3)
    Traceback (most recent call last):
    ...
    ValueError: y has 2 rows but X has 3 samples; they must match
    """
    y = check_array(y, name, ensure_2d=False)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} rows but X has {n_samples} samples; they must match"
        )
    return y


def check_data(X, kernel=None, name="X"):
    """Validate X: a numeric 2-D array, unless the kernel works on other objects.

    Examples
    --------
    >>> check_data([[1, 2]]).dtype
    dtype('float64')
    >>> check_data(["ab", "ba"], kernel=len)
    ['ab', 'ba']
    """
    if kernel is not None and not isinstance(kernel, str) and holds_objects(X):
        return X  # strings or sets: the kernel checks them
    return check_array(X, name)


def check_precomputed_gram(K, name="X"):
    """The square training Gram matrix given with ``kernel="precomputed"``."""
    K = check_array(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f"with kernel='precomputed', {name} must be the square Gram matrix of the training "
            f"points, got shape {K.shape}"
        )
    return K


def check_cross_gram(K, n_train, name="X"):
    """The (n_test, n_train) cross-Gram matrix given to predict with ``kernel="precomputed"``.

    Examples
    --------
    >>> check_cross_gram([[1.0, 2.0]], 3)
    Traceback (most recent call last):
    ...
    ValueError: with kernel='precomputed', X must be the cross-Gram matrix of shape (n_test, 3), got (1, 2)
    """
    K = check_array(K, name)
    if K.shape[1] != n_train:
        raise ValueError(f"with kernel='precomputed', {name} must be the cross-Gram matrix of "
                         f"shape (n_test, {n_train}), got {K.shape}")
    return K


def compute_gram(kernel, X, Y=None, name="kernel"):
    """Evaluate ``kernel(X, Y)`` and check its shape and values.

    Examples
    --------
    >>> compute_gram(lambda A, B=None: np.ones((len(A), 1)), [[0.0], [1.0]])
    Traceback (most recent call last):
    ...
    ValueError: kernel returned an array of shape (2, 1); expected (2, 2)
    """
    K = kernel(X) if Y is None else kernel(X, Y)
    K = np.asarray(K, dtype=np.float64)
    n_x = n_samples(X)
    n_y = n_x if Y is None else n_samples(Y)
    if K.shape != (n_x, n_y):
        raise ValueError(f"{name} returned an array of shape {K.shape}; expected ({n_x}, {n_y})")
    if not np.isfinite(K).all():
        raise ValueError(f"{name} returned NaN or infinite values on this data")
    return K


def owns_result(kernel):
    """True if ``kernel(X)`` returns a fresh array that may be overwritten.

    kernlab kernels always build a new matrix (``Precomputed`` indexes a copy
    out of its stored matrix); a user's plain function might return a cached
    array, so its result is copied before an in-place Cholesky.
    """
    return isinstance(kernel, Kernel)


def n_samples(X):
    """Number of points: rows of an array, items of a list.

    Examples
    --------
    >>> n_samples(np.zeros((3, 2))), n_samples(["a", "b"])
    (3, 2)
    """
    return X.shape[0] if hasattr(X, "shape") else len(X)


def n_features(X):
    """Number of columns of a numeric 2-D array; None for other kinds of data."""
    return X.shape[1] if isinstance(X, np.ndarray) and X.ndim == 2 else None


def take(X, idx):
    """The points of ``X`` at positions ``idx`` (rows of an array, items of a list).

    Examples
    --------
    >>> take(["a", "b", "c"], [2, 0])
    ['c', 'a']
    """
    if hasattr(X, "shape"):
        return X[idx]
    return [X[i] for i in idx]


def record_n_features(estimator, X):
    """Set ``estimator.n_features_in_`` from numeric training data (not for strings or sets)."""
    if n_features(X) is not None:
        estimator.n_features_in_ = n_features(X)


def check_n_features(estimator, X):
    """Refuse test data whose number of columns differs from the training data's."""
    fitted = getattr(estimator, "n_features_in_", None)
    given = n_features(X)
    if fitted is not None and given is not None and given != fitted:
        raise ValueError(f"X has {given} features, but {type(estimator).__name__} is expecting "
                         f"{fitted} features as input (it was fitted with {fitted})")


class GramColumns:
    """Access to the training Gram matrix without necessarily forming it.

    For kernlab kernels, columns ``K[:, idx]`` are evaluated on demand as
    ``kernel(X, X[idx])``, so a pivoted Cholesky of rank r costs O(n r)
    kernel evaluations instead of n^2.  A precomputed matrix, or a plain
    callable, is evaluated once and sliced.

    Examples
    --------
    >>> from kernlab import Linear
    >>> GramColumns(Linear(), np.array([[1.0], [2.0]])).cols([1])
    array([[2.],
           [4.]])
    """

    def __init__(self, kernel, X):
        self.X = X
        self.kernel = kernel
        if is_precomputed(kernel):
            self.K = check_precomputed_gram(X)
        elif isinstance(kernel, Kernel):
            self.K = None
        else:
            self.K = compute_gram(kernel, X)
        self.n = self.K.shape[0] if self.K is not None else n_samples(X)

    @classmethod
    def of_matrix(cls, K):
        """The same interface for an explicit (already checked) matrix."""
        return cls("precomputed", K)

    def diag(self):
        """``diag(K)``."""
        if self.K is not None:
            return np.diag(self.K).copy()
        d = np.asarray(self.kernel.diag(self.X), dtype=np.float64)
        if not np.isfinite(d).all():
            raise ValueError("kernel returned NaN or infinite values on this data")
        return d

    def cols(self, idx):
        """``K[:, idx]`` as an (n, len(idx)) array."""
        idx = np.asarray(idx, dtype=np.intp).reshape(-1)
        if self.K is not None:
            return self.K[:, idx]
        if idx.size == 0:
            return np.zeros((self.n, 0))
        return compute_gram(self.kernel, self.X, take(self.X, idx))

    def rows(self, start, stop):
        """``K[start:stop, :]``."""
        if self.K is not None:
            return self.K[start:stop]
        return compute_gram(self.kernel, take(self.X, np.arange(start, stop)), self.X)

    def full(self):
        """The whole matrix ``K``."""
        return self.K if self.K is not None else compute_gram(self.kernel, self.X)

    def times(self, v):
        """``K @ v`` using only the columns where ``v`` is non-zero."""
        nz = np.flatnonzero(v)
        return self.cols(nz) @ v[nz]
