"""Gram matrices and positive semi-definiteness.

``gram_matrix`` evaluates any kernel (or plain function of two points) on
data, ``kernel_mult`` forms K v without storing K, ``is_psd`` decides
whether a symmetric matrix is positive semi-definite up to a tolerance and
returns the evidence, and ``find_counterexample`` searches for point sets on
which a candidate function fails to give a PSD Gram matrix -- the practical
way to show that something is *not* a kernel.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ._validation import check_array, check_instance, check_scalar
from .kernels import FunctionKernel, Kernel

__all__ = [
    "gram_matrix",
    "kernel_mult",
    "is_psd",
    "PSDVerdict",
    "find_counterexample",
    "Counterexample",
]


_FULL_EIGH_MAX = 300  # up to this size one full eigendecomposition is cheap enough


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
class PSDVerdict:
    """Outcome of :func:`is_psd`: truthy when the matrix is PSD.

    Attributes
    ----------
    psd : bool
        The verdict.
    min_eigenvalue : float
        Smallest eigenvalue of the matrix.
    threshold : float
        Eigenvalues down to ``-threshold`` count as zero (rounding).
    witness : ndarray or None
        When not PSD, a unit vector z with z^T K z = min_eigenvalue < 0.
    """

    psd: bool
    min_eigenvalue: float
    threshold: float
    witness: np.ndarray = None

    def __bool__(self):
        return bool(self.psd)

    def __repr__(self):
        return (f"PSDVerdict(psd={self.psd}, min_eigenvalue={self.min_eigenvalue:.3g}, "
                f"threshold={self.threshold:.3g})")


def is_psd(K, tol=1e-10):
    """Decide whether a symmetric matrix is positive semi-definite.

    The smallest eigenvalue counts as non-negative when it is above
    ``-tol * scale``, scale being the largest eigenvalue magnitude: rounding
    alone makes the zero eigenvalues of a singular Gram matrix slightly
    negative, by an amount proportional to the size of the matrix entries.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix (asymmetry beyond 1e-10 relative is an error).
    tol : float
        Relative tolerance, >= 0.

    Returns
    -------
    PSDVerdict
        Truthy iff PSD; carries the smallest eigenvalue and, when not PSD, a
        witness vector z with z^T K z < 0.

    Examples
    --------
    >>> bool(is_psd([[1.0, 2.0], [2.0, 1.0]]))
    False
    >>> is_psd([[2.0, 1.0], [1.0, 2.0]]).min_eigenvalue
    1.0
    """
    K = check_array(K, "K")
    tol = check_scalar(tol, "tol", low=0, finite=True)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    size = np.abs(K).max()
    if np.abs(K - K.T).max() > 1e-10 * size:
        raise ValueError("K must be symmetric; positive semi-definiteness is defined for "
                         "symmetric matrices (a kernel must satisfy k(x, t) = k(t, x))")
    lowest, witness, highest = _extreme_eigenpairs((K + K.T) / 2.0)
    threshold = tol * max(abs(lowest), abs(highest))
    if lowest >= -threshold:
        return PSDVerdict(True, lowest, threshold)
    return PSDVerdict(False, lowest, threshold, witness=witness)


def _extreme_eigenpairs(K):
    """Smallest eigenvalue with its unit eigenvector, and the largest eigenvalue."""
    n = K.shape[0]
    if n <= _FULL_EIGH_MAX:
        values, vectors = np.linalg.eigh(K)
        return float(values[0]), vectors[:, 0].copy(), float(values[-1])
    # For large matrices ask LAPACK for the two ends of the spectrum only, which
    # is several times faster than the full eigendecomposition.
    low, vector = linalg.eigh(K, subset_by_index=[0, 0], driver="evx")
    high = linalg.eigh(K, subset_by_index=[n - 1, n - 1], eigvals_only=True, driver="evx")
    return float(low[0]), vector[:, 0].copy(), float(high[0])


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
