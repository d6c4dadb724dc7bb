"""Tools for reproducing kernel Hilbert spaces.

* :class:`RKHSFunction` -- a function ``f = sum_i a_i k(., x_i)`` with its
  values, the RKHS inner product ``<f, g> = a^T K(X, Z) b`` and norm.
* :func:`kernel_distance` -- ``d_K(x, y) = sqrt(k(x,x) - 2 k(x,y) + k(y,y))``,
  the distance for which every ``f`` is Lipschitz with constant ``||f||``:
  ``|f(x) - f(y)| <= ||f|| d_K(x, y)``.
* :func:`mercer_eigen` -- the numerical Mercer expansion of a kernel on an
  interval (Nystroem method on a Gauss-Legendre grid, for any density).
* :func:`gaussian_mercer_eigenvalues`, :func:`gaussian_mercer_eigenfunctions`
  -- the closed form for the Gaussian kernel under a Gaussian input density.
* :func:`h1_inner`, :func:`h1_norm` -- the space of functions on
  ``[0, inf)`` with ``f(0) = 0`` and ``<f, g> = int_0^inf f'(x) g'(x) dx``,
  whose reproducing kernel is ``min(x, t)``.
"""

import math
import warnings

import numpy as np
from scipy import integrate, special

from ._estimator import check_kernel
from ._validation import check_array, check_scalar, holds_objects

__all__ = [
    "RKHSFunction",
    "kernel_distance",
    "MercerExpansion",
    "mercer_eigen",
    "gaussian_mercer_eigenvalues",
    "gaussian_mercer_eigenfunctions",
    "h1_inner",
    "h1_norm",
    "min_kernel_section",
]


# ----------------------------------------------------------------------------
# functions in the span of kernel sections
# ----------------------------------------------------------------------------

class RKHSFunction:
    """The function ``f(x) = sum_i coef_i k(x, centers_i)`` of an RKHS.

    Parameters
    ----------
    kernel : kernlab kernel or callable ``kernel(X, Y)``
    centers : array-like of shape (m, d) (or whatever the kernel accepts)
    coef : array-like of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Gaussian
    >>> f = RKHSFunction(Gaussian(sigma=1.0), [[0.0], [1.0]], [1.0, -1.0])
    >>> g = RKHSFunction(Gaussian(sigma=1.0), [[0.0]], [1.0])
    >>> bool(np.isclose(f.inner(g), f([[0.0]])[0]))   # reproducing property
    True
    >>> bool(f.norm() ** 2 == f.inner(f))
    True
    """

    def __init__(self, kernel, centers, coef):
        check_kernel(kernel, allow_precomputed=False)
        self.kernel = kernel
        if holds_objects(centers):
            self.centers = list(centers)
        else:
            self.centers = check_array(centers, "centers")
        self.coef = check_array(coef, "coef", ensure_2d=False)
        if self.coef.ndim != 1 or self.coef.shape[0] != len(self.centers):
            raise ValueError(f"coef must have shape ({len(self.centers)},), one per center, "
                             f"got {self.coef.shape}")

    def __call__(self, X):
        """Values ``f(x)`` at the rows of ``X``."""
        return np.asarray(self.kernel(X, self.centers)) @ self.coef

    def inner(self, other):
        """RKHS inner product ``<self, other> = a^T K(centers, other.centers) b``."""
        if not isinstance(other, RKHSFunction):
            raise TypeError(f"other must be an RKHSFunction, got {type(other).__name__}")
        cross = np.asarray(self.kernel(self.centers, other.centers))
        return float(self.coef @ cross @ other.coef)

    def norm(self):
        """RKHS norm ``sqrt(a^T K a)`` (rounding below zero is clipped)."""
        return math.sqrt(max(self.inner(self), 0.0))

    def __add__(self, other):
        if not isinstance(other, RKHSFunction):
            return NotImplemented
        if isinstance(self.centers, list) or isinstance(other.centers, list):
            centers = list(self.centers) + list(other.centers)
        else:
            centers = np.vstack([self.centers, other.centers])
        return RKHSFunction(self.kernel, centers, np.concatenate([self.coef, other.coef]))

    def __mul__(self, scalar):
        scalar = check_scalar(scalar, "scalar")
        return RKHSFunction(self.kernel, self.centers, scalar * self.coef)

    __rmul__ = __mul__

    def __sub__(self, other):
        return self + (-1.0) * other

    def __repr__(self):
        return f"RKHSFunction({self.kernel!r}, <{len(self.centers)} centers>)"


def kernel_distance(kernel, X, Y=None):
    """Matrix of kernel distances ``d_K(x_i, y_j) = ||k(., x_i) - k(., y_j)||``.

    ``d_K(x, y)^2 = k(x, x) - 2 k(x, y) + k(y, y)``, which is ``>= 0`` because
    the 2 x 2 Gram matrix of ``x, y`` is PSD.  Tiny negative values from
    rounding are clipped to zero.

    Examples
    --------
    >>> from kernlab import Linear
    >>> kernel_distance(Linear(), [[0.0, 0.0]], [[3.0, 4.0]])
    array([[5.]])
    """
    check_kernel(kernel, allow_precomputed=False)
    if Y is None:
        Y, cross = X, np.asarray(kernel(X), dtype=np.float64)  # exactly symmetric
    else:
        cross = np.asarray(kernel(X, Y), dtype=np.float64)
    dx = _diag(kernel, X)
    dy = _diag(kernel, Y)
    sq = dx[:, None] - 2.0 * cross + dy[None, :]
    return np.sqrt(np.maximum(sq, 0.0))


def _diag(kernel, X):
    if hasattr(kernel, "diag"):
        return np.asarray(kernel.diag(X), dtype=np.float64)
    n = len(X)
    return np.array([np.asarray(kernel(X[i:i + 1], X[i:i + 1]))[0, 0] for i in range(n)])


# ----------------------------------------------------------------------------
# Mercer expansions
# ----------------------------------------------------------------------------

class MercerExpansion:
    """Eigenvalues and eigenfunctions of ``(T f)(x) = int k(x, y) f(y) p(y) dy``.

    Produced by :func:`mercer_eigen`.  The eigenfunctions are orthonormal in
    ``L2(p)`` and extended off the grid by the Nystroem formula
    ``phi_j(x) = (1 / lambda_j) sum_q w_q p(y_q) k(x, y_q) phi_j(y_q)``.

    Attributes
    ----------
    eigenvalues : ndarray of shape (n_eig,)
        In decreasing order.
    nodes, weights : ndarray of shape (n_nodes,)
        Quadrature nodes and weights (weights include the density).
    """

    def __init__(self, kernel, nodes, weights, eigenvalues, values):
        self.kernel = kernel
        self.nodes = nodes
        self.weights = weights
        self.eigenvalues = eigenvalues
        self._values = values  # phi_j(nodes), shape (n_nodes, n_eig)

    def eigenfunctions(self, x):
        """Values ``phi_j(x)``: an array of shape (len(x), n_eig)."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, 1)
        cross = np.asarray(self.kernel(x, self.nodes[:, None]))
        return (cross * self.weights) @ self._values / self.eigenvalues

    def kernel_approximation(self, x, y, n_terms=None):
        """Truncated expansion ``sum_{j < n_terms} lambda_j phi_j(x) phi_j(y)``."""
        n_terms = len(self.eigenvalues) if n_terms is None else n_terms
        px = self.eigenfunctions(x)[:, :n_terms]
        py = self.eigenfunctions(y)[:, :n_terms]
        return (px * self.eigenvalues[:n_terms]) @ py.T


def mercer_eigen(kernel, interval, *, density=None, n_nodes=200, n_eig=20):
    """Numerical Mercer expansion of a kernel on an interval.

    The integral operator ``(T f)(x) = int_a^b k(x, y) f(y) p(y) dy`` is
    discretised with the ``n_nodes``-point Gauss-Legendre rule (nodes ``y_q``,
    weights ``w_q``).  With ``W = diag(w_q p(y_q))`` the symmetric matrix
    ``W^(1/2) K W^(1/2)`` has the eigenpairs ``(lambda_j, u_j)``, and
    ``phi_j(y_q) = u_j[q] / sqrt(W_qq)`` are orthonormal in the discrete
    ``L2(p)`` inner product.

    Parameters
    ----------
    kernel : kernlab kernel or callable on arrays of shape (n, 1)
    interval : (float, float)
        ``(a, b)`` with ``a < b``, both finite.
    density : callable or None, default=None
        ``p(y)``, vectorised; None is the Lebesgue measure (``p = 1``).
    n_nodes : int, default=200
    n_eig : int, default=20

    Returns
    -------
    MercerExpansion

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Min
    >>> # min(x, y) on [0, 1]: lambda_j = 1 / ((j - 1/2)^2 pi^2)
    >>> exp = mercer_eigen(Min(), (0.0, 1.0), n_nodes=400, n_eig=3)
    >>> np.round(exp.eigenvalues * np.pi ** 2 * np.array([0.25, 2.25, 6.25]), 3)
    array([1., 1., 1.])
    """
    check_kernel(kernel, allow_precomputed=False)
    try:
        a, b = (float(v) for v in interval)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"interval must be a pair (a, b) of numbers, got {interval!r}") from exc
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"interval must be finite with a < b, got ({a}, {b})")
    n_nodes = check_scalar(n_nodes, "n_nodes", low=2, integer=True)
    n_eig = check_scalar(n_eig, "n_eig", low=1, high=n_nodes, integer=True)
    x, w = np.polynomial.legendre.leggauss(n_nodes)
    nodes = 0.5 * (b - a) * x + 0.5 * (a + b)
    weights = 0.5 * (b - a) * w
    if density is not None:
        p = np.asarray(density(nodes), dtype=np.float64)
        if p.shape != nodes.shape or not np.isfinite(p).all() or (p < 0).any():
            raise ValueError("density(y) must return finite non-negative values, one per node")
        weights = weights * p
    K = np.asarray(kernel(nodes[:, None]), dtype=np.float64)
    root = np.sqrt(weights)
    M = root[:, None] * K * root[None, :]
    M = (M + M.T) / 2
    vals, vecs = np.linalg.eigh(M)
    order = np.argsort(vals)[::-1][:n_eig]
    vals, vecs = vals[order], vecs[:, order]
    if vals[-1] <= 0:
        raise ValueError(f"only {int((vals > 0).sum())} positive eigenvalues found; "
                         f"ask for fewer (n_eig) or check that the kernel is PSD")
    safe = np.where(root > 0, root, 1.0)
    values = vecs / safe[:, None]
    # Eigenvectors have arbitrary signs: make each eigenfunction positive at the
    # right-most node where it is not negligible (the sign of H_j(x) for large x).
    big = np.abs(values) > 1e-3 * np.abs(values).max(axis=0)
    last = len(nodes) - 1 - np.argmax(big[::-1], axis=0)
    values = values * np.sign(values[last, np.arange(n_eig)])
    return MercerExpansion(kernel, nodes, weights, vals, values)


def _gaussian_constants(sigma, s):
    sigma = check_scalar(sigma, "sigma", low=0.0, include_low=False, finite=True)
    s = check_scalar(s, "s", low=0.0, include_low=False, finite=True)
    a = 1.0 / (4.0 * s**2)          # from the input density N(0, s^2)
    b = 1.0 / (2.0 * sigma**2)      # from the kernel width
    c = math.sqrt(a**2 + 2.0 * a * b)
    A = a + b + c
    return a, b, c, A, b / A


def gaussian_mercer_eigenvalues(n, *, sigma, s):
    """Closed-form Mercer eigenvalues of the Gaussian kernel under ``N(0, s^2)``.

    For ``k(x, y) = exp(-(x - y)^2 / (2 sigma^2))`` and input density
    ``N(0, s^2)`` (Rasmussen & Williams 2006, sec. 4.3.1), with
    ``a = 1/(4 s^2)``, ``b = 1/(2 sigma^2)``, ``c = sqrt(a^2 + 2ab)``,
    ``A = a + b + c`` and ``B = b / A``::

        lambda_j = sqrt(2a / A) B^j,   j = 0, 1, 2, ...

    They sum to ``k(x, x) = 1`` (the trace of the operator).

    Examples
    --------
    >>> lam = gaussian_mercer_eigenvalues(200, sigma=1.0, s=1.0)
    >>> round(float(lam.sum()), 10)
    1.0
    """
    n = check_scalar(n, "n", low=1, integer=True)
    a, b, c, A, B = _gaussian_constants(sigma, s)
    return math.sqrt(2.0 * a / A) * B ** np.arange(n)


def gaussian_mercer_eigenfunctions(x, n, *, sigma, s):
    """Closed-form Mercer eigenfunctions of the Gaussian kernel, orthonormal in ``L2(N(0, s^2))``.

    ``phi_j(x) = N_j exp(-(c - a) x^2) H_j(sqrt(2c) x)`` with the physicists'
    Hermite polynomial ``H_j`` and the constants of
    :func:`gaussian_mercer_eigenvalues`; the normalisation
    ``N_j = (a/c)^(-1/4) / sqrt(2^j j!)`` makes ``int phi_i phi_j p = delta_ij``.

    Returns an array of shape (len(x), n).

    Examples
    --------
    >>> import numpy as np
    >>> x, w = np.polynomial.hermite_e.hermegauss(60)   # weight exp(-x^2/2): s = 1
    >>> phi = gaussian_mercer_eigenfunctions(x, 3, sigma=1.0, s=1.0)
    >>> gram = (phi * (w / np.sqrt(2 * np.pi))[:, None]).T @ phi
    >>> bool(np.allclose(gram, np.eye(3)))
    True
    """
    n = check_scalar(n, "n", low=1, integer=True)
    a, b, c, A, B = _gaussian_constants(sigma, s)
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    j = np.arange(n)
    log_norm = -0.25 * math.log(a / c) - 0.5 * (j * math.log(2.0) + special.gammaln(j + 1))
    H = special.eval_hermite(j[None, :], math.sqrt(2.0 * c) * x[:, None])
    return np.exp(-(c - a) * x[:, None] ** 2 + log_norm[None, :]) * H


# ----------------------------------------------------------------------------
# the space with <f, g> = int_0^inf f'(x) g'(x) dx and its kernel min(x, t)
# ----------------------------------------------------------------------------

def h1_inner(df, dg, *, upper=np.inf, points=None, panel=1.0, cutoff=1e4):
    """``<f, g> = int_0^upper f'(x) g'(x) dx`` from the derivatives ``df``, ``dg``.

    This is the inner product of the space of absolutely continuous
    functions on ``[0, inf)`` with ``f(0) = 0`` and square-integrable
    derivative.  The integral over ``[0, min(upper, cutoff)]`` uses a 20-point
    Gauss-Legendre rule on panels of width ``panel`` (so oscillating
    integrands are resolved), with extra panel edges at ``points`` (kinks such
    as the ``t`` of ``min(., t)``); the tail beyond ``cutoff`` is added by
    ``scipy.integrate.quad``.

    Parameters
    ----------
    df, dg : callable
        Vectorised derivatives ``f'`` and ``g'``.
    upper : float, default=inf
    points : sequence of float or None
        Discontinuities of ``df`` or ``dg``.
    panel : float, default=1.0
    cutoff : float, default=1e4
        Panels cover [0, cutoff]; beyond it ``quad`` integrates the tail, and
        a ValueError is raised when its error estimate exceeds 1e-5 of the
        result rather than returning an inaccurate value.

    Examples
    --------
    >>> import numpy as np
    >>> # f(x) = 0.1 x on [0, 10], 2 - 0.1 x on (10, 20], 0 afterwards: ||f||^2 = 0.2
    >>> df = lambda x: np.where(x <= 10, 0.1, np.where(x <= 20, -0.1, 0.0))
    >>> round(h1_inner(df, df, points=[10, 20]), 10)
    0.2
    """
    if not (callable(df) and callable(dg)):
        raise TypeError("df and dg must be callables returning derivative values")
    upper = float(upper)
    if not upper > 0:
        raise ValueError(f"upper must be > 0, got {upper}")
    panel = check_scalar(panel, "panel", low=0.0, include_low=False)
    end = min(upper, float(cutoff))
    edges = np.arange(0.0, end, panel)
    edges = np.union1d(np.append(edges, end), [p for p in (points or []) if 0 < p < end])
    x, w = np.polynomial.legendre.leggauss(20)
    total = 0.0
    for start in range(0, len(edges) - 1, 4096):  # bounded memory
        lo, hi = edges[start:start + 4097][:-1], edges[start + 1:start + 4097]
        half = (hi - lo)[:, None] / 2
        nodes = (lo[:, None] + hi[:, None]) / 2 + half * x[None, :]
        vals = np.asarray(df(nodes), dtype=np.float64) * np.asarray(dg(nodes), dtype=np.float64)
        total += float(np.sum(vals * half * w[None, :]))
    if upper > end:
        with warnings.catch_warnings():  # judged by the error estimate below instead
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            tail, error = integrate.quad(lambda u: float(df(u) * dg(u)), end, upper, limit=500)
        if not (np.isfinite(tail) and error <= 1e-5 * max(1.0, abs(total + tail))):
            raise ValueError(
                f"the integral beyond cutoff={end:g} could not be computed accurately (estimate "
                f"{tail:.3g}, error estimate {error:.3g}); raise cutoff so that the tail is "
                "covered by the panels, or check that f'(x) g'(x) is integrable")
        total += tail
    return total


def h1_norm(df, **kwargs):
    """``||f|| = sqrt(int_0^inf f'(x)^2 dx)``; keyword arguments go to :func:`h1_inner`.

    Examples
    --------
    >>> import numpy as np
    >>> df = lambda x: np.cos(x) / (x + 1) - np.sin(x) / (x + 1) ** 2  # f = sin(x)/(x+1)
    >>> round(h1_norm(df), 2)
    0.68
    """
    return math.sqrt(max(h1_inner(df, df, **kwargs), 0.0))


def min_kernel_section(t):
    """The section ``k_t = min(., t)`` of the min kernel and its derivative.

    ``k_t(x) = min(x, t)`` has ``k_t(0) = 0`` and derivative ``1[x < t]``, so
    ``<f, k_t> = int_0^t f'(x) dx = f(t) - f(0) = f(t)``: the min kernel is
    the reproducing kernel of the space of :func:`h1_inner`.

    Returns
    -------
    (k_t, dk_t) : tuple of vectorised callables

    Examples
    --------
    >>> import numpy as np
    >>> k2, dk2 = min_kernel_section(2.0)
    >>> f, df = np.sin, np.cos
    >>> bool(np.isclose(h1_inner(df, dk2, points=[2.0]), f(2.0)))
    True
    """
    t = check_scalar(t, "t", low=0.0)
    return (lambda x: np.minimum(np.asarray(x, dtype=np.float64), t),
            lambda x: (np.asarray(x, dtype=np.float64) < t).astype(np.float64))
