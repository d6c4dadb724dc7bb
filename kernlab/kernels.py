"""Kernels as objects, with an algebra that follows the closure rules.

A kernel ``k`` is called on data and returns its Gram matrix::

    K = k(X)        # shape (n, n), exactly symmetric
    K = k(X, Y)     # shape (n_X, n_Y), entries k(x_i, y_j)
    d = k.diag(X)   # shape (n,), entries k(x_i, x_i)

How data is passed
------------------
Vector kernels take 2-D arrays of shape (n_samples, n_features).  A single
point ``x`` in R^d is passed as shape (1, d) (``x[None, :]``), and n numbers
(1-D data) as shape (n, 1) (``x[:, None]``).  A 1-D array is refused with a
``ValueError`` rather than guessed at, because "n points in R^1" and "one
point in R^n" are both plausible readings.  String kernels take a list of
``str``; set kernels take a list of sets.  ``Precomputed`` takes integer
indices into its stored Gram matrix.

The algebra
-----------
Sums, non-negative multiples, products and integer powers of kernels are
kernels, and so are the exponential of a kernel, a polynomial with
non-negative coefficients of a kernel, f(x) k(x, t) f(t), k(phi(x), phi(t))
and the normalised kernel k(x, t) / sqrt(k(x, x) k(t, t)).  Each has an
operator or a method here::

    k = 2.0 * Gaussian(sigma=1.0) + Linear()
    k = Linear().on([0, 1]) * Gaussian(sigma=0.5).on([2])

Subtraction and negative factors are refused because they can destroy
positive semi-definiteness.  To study a function that may fail to be a
kernel (``<x, z> - <x, z>^2``, ``x^T B z`` with indefinite ``B``, the
sigmoid), build it with ``FunctionKernel`` or ``GeneralLinear`` and test it
with :func:`kernlab.is_psd` or :func:`kernlab.find_counterexample`.
"""

import copy
import inspect
import math
import numbers
from collections import Counter

import numpy as np
from scipy import sparse
from scipy.spatial import distance

from ._gaussian_gram import gaussian_gram
from ._linalg import is_psd
from ._symmetric import mirror_lower
from ._validation import check_array, check_instance, check_scalar, holds_objects

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "LaplacianL1",
    "LaplacianL2",
    "Matern",
    "Exponential",
    "Sigmoid",
    "ANOVA",
    "Min",
    "GeneralLinear",
    "SetKernel",
    "Spectrum",
    "AllSubstrings",
    "Precomputed",
    "FunctionKernel",
    "Constant",
    "Sum",
    "Product",
    "Scaled",
    "Power",
    "Exp",
    "PolynomialOf",
    "Rescaled",
    "Composed",
    "Normalized",
    "OnColumns",
]

# Precedence levels used to put brackets in reprs only where they are needed.
_PREC_SUM, _PREC_PRODUCT, _PREC_POWER, _PREC_ATOM = 1, 2, 3, 4


def _func_name(f):
    """Readable name of a user function for reprs."""
    return getattr(f, "__name__", type(f).__name__)


class Kernel:
    """Base class: a positive semi-definite kernel k(x, t) evaluated on data.

    Subclasses implement ``_gram(X, Y)`` on already validated data (with
    ``Y=None`` meaning ``Y = X``) and, when cheaper than the default,
    ``_diag(X)``.  Vector kernels take arrays of shape (n, d): pass a single
    point as shape (1, d) and 1-D data as shape (n, 1).

    Attributes
    ----------
    is_known_psd : bool
        True when the kernel is positive semi-definite by construction (a
        known kernel, or built from such by the closure rules).  False means
        "not guaranteed", not "proved indefinite".
    """

    _prec = _PREC_ATOM
    # True when _gram(X, None) is exactly symmetric without a final mirror
    # (elementwise maps of X @ X.T are; user functions need not be).
    _exact_symmetry = True

    is_known_psd = True

    # ----- evaluation -------------------------------------------------------
    def __call__(self, X, Y=None):
        """Return the Gram matrix ``K[i, j] = k(X[i], Y[j])`` as float64."""
        X = self._check_X(X, "X")
        if Y is None:
            K = np.asarray(self._gram(X, None), dtype=np.float64)
            return K if self._exact_symmetry else mirror_lower(K)
        Y = self._check_X(Y, "Y")
        self._check_compatible(X, Y)
        return np.asarray(self._gram(X, Y), dtype=np.float64)

    def diag(self, X):
        """Return ``k(x_i, x_i)`` for every row of ``X`` without forming K."""
        return np.asarray(self._diag(self._check_X(X, "X")), dtype=np.float64)

    def _check_X(self, X, name):
        return check_array(X, name)

    def _check_compatible(self, X, Y):
        if isinstance(X, np.ndarray) and isinstance(Y, np.ndarray) and X.shape[1] != Y.shape[1]:
            raise ValueError(
                "X and Y must have the same number of features (columns); "
                f"X has {X.shape[1]} and Y has {Y.shape[1]}"
            )

    def _gram(self, X, Y):
        raise NotImplementedError

    def _diag(self, X):
        # Generic fallback: one 1 x 1 Gram matrix per point.
        return np.array([self._gram(X[i:i + 1], X[i:i + 1])[0, 0] for i in range(len(X))])

    # ----- parameters (scikit-learn style) ----------------------------------
    # These let GridSearchCV tune a kernel inside an estimator, e.g.
    # {"kernel__sigma": [0.5, 1.0]} or {"kernel__k1__sigma": ...} for a sum.
    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep=True):
        """Return the constructor's arguments; with ``deep`` also the components' as ``k1__sigma``."""
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Kernel):
                    params.update({f"{name}__{key}": v for key, v in value.get_params().items()})
        return params

    def set_params(self, **params):
        """Change constructor arguments (validated again) and return self."""
        own = self.get_params(deep=False)
        nested = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in own:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; "
                                 f"valid parameters are {sorted(own)}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                own[name] = value
        for name, sub in nested.items():
            if not isinstance(own[name], Kernel):
                raise ValueError(f"parameter {name!r} of {type(self).__name__} is not a kernel, "
                                 f"so {name}__... cannot be set")
            own[name] = copy.deepcopy(own[name]).set_params(**sub)
        self.__init__(**own)
        return self

    def __sklearn_clone__(self):
        # Kernels validate (and may convert) their arguments, so scikit-learn's
        # generic clone, which insists on unchanged arguments, is replaced by a copy.
        return copy.deepcopy(self)

    # ----- algebra ----------------------------------------------------------
    def __add__(self, other):
        return Sum(self, _as_kernel(other, "added constant"))

    def __radd__(self, other):
        return Sum(_as_kernel(other, "added constant"), self)

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return Product(self, other)
        return Scaled(other, self)

    def __rmul__(self, other):
        return Scaled(other, self)

    def __pow__(self, n):
        return Power(self, n)

    def __sub__(self, other):
        raise TypeError(
            "kernels cannot be subtracted: a difference of kernels need not be positive "
            "semi-definite; build the candidate with FunctionKernel and test it with is_psd"
        )

    __rsub__ = __sub__

    def __neg__(self):
        raise TypeError(
            "a kernel cannot be negated (the result is not positive semi-definite); "
            "use FunctionKernel to study such functions"
        )

    def exp(self):
        """Return the kernel exp(k(x, t))."""
        return Exp(self)

    def polynomial(self, coef):
        """Return sum_i coef[i] * k(x, t)**i (coefficients must be >= 0)."""
        return PolynomialOf(self, coef)

    def rescale(self, f, *, vectorized=False):
        """Return f(x) k(x, t) f(t) for a real function ``f`` of one point."""
        return Rescaled(self, f, vectorized=vectorized)

    def compose(self, phi, *, vectorized=False):
        """Return k(phi(x), phi(t)) for a map ``phi`` of one point."""
        return Composed(self, phi, vectorized=vectorized)

    def normalize(self):
        """Return k(x, t) / sqrt(k(x, x) k(t, t))."""
        return Normalized(self)

    def on(self, columns):
        """Return the kernel applied to the given columns of the input only."""
        return OnColumns(self, columns)

    def _bracket(self, prec):
        """repr, bracketed if this expression binds more loosely than ``prec``."""
        text = repr(self)
        return f"({text})" if self._prec < prec else text


def _as_kernel(value, name):
    """Wrap a non-negative number as a constant kernel; pass kernels through."""
    if isinstance(value, Kernel):
        return value
    check_instance(value, name)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return Constant(value)
    raise TypeError(f"{name} must be a Kernel or a non-negative number, got {type(value).__name__}")


# ---------------------------------------------------------------------------
# Kernels on vectors
# ---------------------------------------------------------------------------
class Linear(Kernel):
    """The linear kernel <x, t>.

    Examples
    --------
    >>> Linear()([[1.0, 2.0]], [[3.0, 4.0]])
    array([[11.]])
    """

    def _gram(self, X, Y):
        return X @ (X if Y is None else Y).T

    def _diag(self, X):
        return np.einsum("ij,ij->i", X, X)

    def __repr__(self):
        return "Linear()"


class Polynomial(Kernel):
    """The polynomial kernel (c + <x, t>)^degree; homogeneous when c = 0.

    Parameters
    ----------
    degree : int
        Positive integer exponent p.
    c : float
        Offset.  With c >= 0 the kernel is PSD; a negative c is allowed so
        that the course can study it, and ``is_known_psd`` is then False.

    Examples
    --------
    >>> Polynomial(degree=2, c=1.0)([[1.0, 1.0]], [[1.0, 2.0]])
    array([[16.]])
    """

    def __init__(self, degree=2, c=1.0):
        self.degree = check_scalar(degree, "degree", low=1, integer=True)
        self.c = check_scalar(c, "c", finite=True)

    @property
    def is_known_psd(self):
        return self.c >= 0

    def _gram(self, X, Y):
        K = X @ (X if Y is None else Y).T
        K += self.c
        return K ** self.degree

    def _diag(self, X):
        return (self.c + np.einsum("ij,ij->i", X, X)) ** self.degree

    def __repr__(self):
        return f"Polynomial(degree={self.degree}, c={self.c!r})"


class Gaussian(Kernel):
    """The Gaussian kernel exp(-||x - t||^2 / (2 sigma^2)).

    Parameters
    ----------
    sigma : float
        Width, > 0.

    Examples
    --------
    >>> Gaussian(sigma=1.0)([[0.0]], [[2.0]])
    array([[0.13533528]])
    """

    def __init__(self, sigma=1.0):
        self.sigma = check_scalar(sigma, "sigma", low=0, include_low=False, finite=True)
        if self.sigma ** 2 == 0.0 or not np.isfinite(0.5 / self.sigma ** 2):
            raise ValueError(f"sigma is too small: 1 / (2 sigma^2) overflows for sigma={self.sigma!r}")

    def _gram(self, X, Y):
        return gaussian_gram(X, Y, 1.0 / (2.0 * self.sigma ** 2))

    def _diag(self, X):
        return np.ones(X.shape[0])

    def __repr__(self):
        return f"Gaussian(sigma={self.sigma!r})"


def _distances(X, Y, metric):
    """Distances between rows from the differences themselves (no cancellation).

    With ``Y=None`` the matrix is built from the condensed pairwise
    distances, so it is exactly symmetric with an exactly zero diagonal.
    """
    if Y is None:
        return distance.squareform(distance.pdist(X, metric), checks=False)
    return distance.cdist(X, Y, metric)


class _DistanceKernel(Kernel):
    """A kernel f(||x - t|| / sigma) of a distance, with f(0) = 1 (by default f(r) = e^-r)."""

    _metric = "euclidean"

    def _profile(self, r):
        return np.exp(-r)

    def __init__(self, sigma=1.0):
        self.sigma = check_scalar(sigma, "sigma", low=0, include_low=False, finite=True)

    def _gram(self, X, Y):
        return self._profile(_distances(X, Y, self._metric) / self.sigma)

    def _diag(self, X):
        return np.ones(X.shape[0])

    def __repr__(self):
        return f"{type(self).__name__}(sigma={self.sigma!r})"


class LaplacianL1(_DistanceKernel):
    """The Laplacian kernel with the L1 distance, exp(-||x - t||_1 / sigma).

    This is scikit-learn's ``laplacian_kernel`` with ``gamma = 1 / sigma``.
    It is the product over coordinates of the one-dimensional kernels
    exp(-|x_i - t_i| / sigma), hence PSD.  Compare :class:`LaplacianL2`,
    which uses the Euclidean distance.

    Parameters
    ----------
    sigma : float
        Width, > 0.

    Examples
    --------
    >>> LaplacianL1(sigma=1.0)([[0.0, 0.0]], [[1.0, 1.0]])   # exp(-2)
    array([[0.13533528]])
    """

    _metric = "cityblock"


class LaplacianL2(_DistanceKernel):
    """The Laplacian kernel with the Euclidean distance, exp(-||x - t||_2 / sigma).

    This is R kernlab's ``laplacedot(sigma = 1 / sigma)`` and the Matern
    kernel with nu = 1/2.  Compare :class:`LaplacianL1` (scikit-learn's
    convention), which sums absolute coordinate differences instead.

    Parameters
    ----------
    sigma : float
        Width, > 0.

    Examples
    --------
    >>> LaplacianL2(sigma=1.0)([[0.0, 0.0]], [[3.0, 4.0]])   # exp(-5)
    array([[0.00673795]])
    """


class Matern(_DistanceKernel):
    """The Matern kernel for nu = 1/2, 3/2 or 5/2, with r = ||x - t|| / sigma.

    * nu = 1/2: exp(-r) (the Laplacian kernel :class:`LaplacianL2`);
    * nu = 3/2: (1 + sqrt(3) r) exp(-sqrt(3) r);
    * nu = 5/2: (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r).

    Functions in its RKHS have about nu derivatives; as nu grows the kernel
    tends to the Gaussian.  This is scikit-learn's
    ``gaussian_process.kernels.Matern(length_scale=sigma, nu=nu)``.

    Parameters
    ----------
    nu : {0.5, 1.5, 2.5}
        Smoothness.
    sigma : float
        Length scale, > 0.

    Examples
    --------
    >>> Matern(nu=1.5, sigma=1.0)([[0.0]], [[0.0]])
    array([[1.]])
    """

    _NU = (0.5, 1.5, 2.5)

    def __init__(self, nu=1.5, sigma=1.0):
        nu = check_scalar(nu, "nu")
        if nu not in self._NU:
            raise ValueError(f"nu must be one of 0.5, 1.5, 2.5 (the closed forms), got {nu!r}")
        self.nu = nu
        super().__init__(sigma)

    def _profile(self, r):
        if self.nu == 0.5:
            return np.exp(-r)
        if self.nu == 1.5:
            s = math.sqrt(3.0) * r
            return (1.0 + s) * np.exp(-s)
        s = math.sqrt(5.0) * r
        return (1.0 + s + s * s / 3.0) * np.exp(-s)

    def __repr__(self):
        return f"Matern(nu={self.nu!r}, sigma={self.sigma!r})"


class Exponential(Kernel):
    """The exponential kernel exp(a <x, t>), PSD for a >= 0.

    Examples
    --------
    >>> Exponential(a=1.0)([[1.0]], [[1.0]])
    array([[2.71828183]])
    """

    def __init__(self, a=1.0):
        self.a = check_scalar(a, "a", finite=True)

    @property
    def is_known_psd(self):
        return self.a >= 0

    def _gram(self, X, Y):
        K = X @ (X if Y is None else Y).T
        K *= self.a
        return np.exp(K, out=K)

    def _diag(self, X):
        return np.exp(self.a * np.einsum("ij,ij->i", X, X))

    def __repr__(self):
        return f"Exponential(a={self.a!r})"


class Sigmoid(Kernel):
    """The sigmoid function tanh(a <x, t> + c); not PSD in general.

    It is positive semi-definite only for some (a, c) and data, so
    ``is_known_psd`` is False; use :func:`kernlab.is_psd` on its Gram matrix.

    Examples
    --------
    >>> Sigmoid(a=1.0, c=0.0)([[1.0]], [[0.0]])
    array([[0.]])
    """

    is_known_psd = False

    def __init__(self, a=1.0, c=0.0):
        self.a = check_scalar(a, "a", finite=True)
        self.c = check_scalar(c, "c", finite=True)

    def _gram(self, X, Y):
        K = X @ (X if Y is None else Y).T
        K *= self.a
        K += self.c
        return np.tanh(K, out=K)

    def _diag(self, X):
        return np.tanh(self.a * np.einsum("ij,ij->i", X, X) + self.c)

    def __repr__(self):
        return f"Sigmoid(a={self.a!r}, c={self.c!r})"


class ANOVA(Kernel):
    """The ANOVA kernel prod_i (1 + x_i t_i), or its terms of one degree.

    Expanding the product gives sum over subsets S of coordinates of
    prod_{i in S} x_i t_i; ``degree=s`` keeps only the subsets of size s
    (the elementary symmetric polynomial of the products x_i t_i).  The
    feature map lists the products of distinct coordinates (see
    :class:`kernlab.ANOVAFeatures`).

    Parameters
    ----------
    degree : int or None
        None for the full product, or the subset size s >= 1.

    Examples
    --------
    >>> ANOVA()([[1.0, 2.0]], [[3.0, 4.0]])
    array([[36.]])
    >>> ANOVA(degree=2)([[1.0, 2.0]], [[3.0, 4.0]])
    array([[24.]])
    """

    def __init__(self, degree=None):
        self.degree = None if degree is None else check_scalar(degree, "degree", low=1, integer=True)

    def _combine(self, products):
        """Full product, or elementary symmetric polynomial, of the factors z_i."""
        if self.degree is None:
            out = np.ones_like(products[0])
            for z in products:
                out *= 1.0 + z
            return out
        # e_k over the first i factors, updated with e_k += z_i e_{k-1} (k downwards).
        e = [np.ones_like(products[0])] + [np.zeros_like(products[0]) for _ in range(self.degree)]
        for i, z in enumerate(products):
            for k in range(min(i + 1, self.degree), 0, -1):
                e[k] += z * e[k - 1]
        return e[self.degree]

    def _gram(self, X, Y):
        Y = X if Y is None else Y
        return self._combine([np.multiply.outer(X[:, i], Y[:, i]) for i in range(X.shape[1])])

    def _diag(self, X):
        return self._combine([X[:, i] ** 2 for i in range(X.shape[1])])

    def __repr__(self):
        return "ANOVA()" if self.degree is None else f"ANOVA(degree={self.degree})"


class Min(Kernel):
    """The min kernel min(x, t) on [0, inf), taken coordinatewise as a product.

    For d > 1 the kernel is prod_i min(x_i, t_i), a product of kernels.
    Negative inputs are refused with a ValueError.

    Examples
    --------
    >>> Min()([[1.0], [3.0]])
    array([[1., 1.],
           [1., 3.]])
    """

    def _check_X(self, X, name):
        X = check_array(X, name)
        if (X < 0).any():
            raise ValueError(f"{name} must be non-negative: the Min kernel is defined on [0, inf)")
        return X

    def _gram(self, X, Y):
        Y = X if Y is None else Y
        K = np.ones((X.shape[0], Y.shape[0]))
        for i in range(X.shape[1]):
            K *= np.minimum.outer(X[:, i], Y[:, i])
        return K

    def _diag(self, X):
        return np.prod(X, axis=1)

    def __repr__(self):
        return "Min()"


class GeneralLinear(Kernel):
    """The general linear function x^T A t for a symmetric matrix A.

    A kernel exactly when A is positive semi-definite (then A = R R^T and
    phi(x) = R^T x).  An indefinite A is accepted so it can be studied;
    ``is_known_psd`` reports which case holds.

    Parameters
    ----------
    A : array-like of shape (d, d)
        Symmetric matrix.

    Examples
    --------
    >>> GeneralLinear([[2.0, 0.0], [0.0, 1.0]])([[1.0, 1.0]])
    array([[3.]])
    """

    _exact_symmetry = False

    def __init__(self, A):
        A = check_array(A, "A")
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be square, got shape {A.shape}")
        if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12 * np.abs(A).max()):
            raise ValueError("A must be symmetric (otherwise x^T A t is not symmetric in x and t)")
        self.A = (A + A.T) / 2.0

    @property
    def is_known_psd(self):
        eigenvalues = np.linalg.eigvalsh(self.A)
        return bool(eigenvalues.min() >= -1e-12 * np.abs(eigenvalues).max())

    def _check_X(self, X, name):
        X = check_array(X, name)
        if X.shape[1] != self.A.shape[0]:
            raise ValueError(
                f"{name} has {X.shape[1]} columns but A is {self.A.shape[0]} x {self.A.shape[0]}"
            )
        return X

    def _gram(self, X, Y):
        return (X @ self.A) @ (X if Y is None else Y).T

    def _diag(self, X):
        return np.einsum("ij,ij->i", X @ self.A, X)

    def __repr__(self):
        rows = np.array2string(self.A, separator=", ", threshold=20).replace("\n", "")
        return f"GeneralLinear(A={rows})"


class Constant(Kernel):
    """The constant kernel c >= 0 (what a bare number becomes in the algebra)."""

    def __init__(self, c=1.0):
        self.c = check_scalar(c, "c", low=0, finite=True)

    def _check_X(self, X, name):
        return X  # a constant does not look at its input

    def _check_compatible(self, X, Y):
        pass

    def _gram(self, X, Y):
        return np.full((len(X), len(X if Y is None else Y)), self.c)

    def _diag(self, X):
        return np.full(len(X), self.c)

    def __repr__(self):
        return repr(self.c)


# ---------------------------------------------------------------------------
# Kernels on sets and strings
# ---------------------------------------------------------------------------
def _check_sets(X, name):
    """Return a list of frozensets, refusing strings and non-iterables."""
    if isinstance(X, (str, bytes)) or not isinstance(X, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of sets, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one set is needed")
    out = []
    for i, item in enumerate(X):
        if isinstance(item, (str, bytes)) or not hasattr(item, "__iter__"):
            raise TypeError(f"{name}[{i}] must be a set, got {type(item).__name__}")
        out.append(frozenset(item))
    return out


def _check_strings(X, name):
    """Return a list of str, refusing a bare string and non-strings."""
    if isinstance(X, str):
        raise TypeError(f"{name} must be a list of strings; wrap a single string as [{X!r}]")
    if not isinstance(X, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of strings, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one string is needed")
    for i, item in enumerate(X):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(item).__name__}")
    return [str(s) for s in X]


def _count_matrix(counters, vocabulary):
    """COO triplets (rows, columns, counts) of the counts in a list of Counters.

    New keys are appended to ``vocabulary`` (key -> column), so two calls
    sharing one vocabulary give matrices with matching columns.
    """
    rows, cols, vals = [], [], []
    for i, counts in enumerate(counters):
        for key, value in counts.items():
            rows.append(i)
            cols.append(vocabulary.setdefault(key, len(vocabulary)))
            vals.append(value)
    return rows, cols, vals


def _sparse_inner(counts_X, counts_Y, weight=None):
    """Matrix of sum_s w_s h_s(x) h_s(y) from per-item Counters h, never densifying h."""
    vocabulary = {}
    triplets_X = _count_matrix(counts_X, vocabulary)
    triplets_Y = None if counts_Y is None else _count_matrix(counts_Y, vocabulary)
    size = max(len(vocabulary), 1)

    def to_csr(triplets, n):
        rows, cols, vals = triplets
        return sparse.csr_matrix((vals, (rows, cols)), shape=(n, size), dtype=np.float64)

    HX = to_csr(triplets_X, len(counts_X))
    HY = HX if counts_Y is None else to_csr(triplets_Y, len(counts_Y))
    if weight is not None:
        w = np.zeros(size)
        for key, index in vocabulary.items():
            w[index] = weight(key)
        HY = HY @ sparse.diags(w)
    return (HX @ HY.T).toarray()


class SetKernel(Kernel):
    """The kernel 2^|A ∩ B| on finite sets.

    2^|A ∩ B| counts the subsets common to A and B, so the feature map is
    the indicator of all subsets.

    Examples
    --------
    >>> SetKernel()([{1, 2, 3}], [{2, 3, 4}])
    array([[4.]])
    """

    def _check_X(self, X, name):
        return _check_sets(X, name)

    def _gram(self, X, Y):
        counts = [Counter(s) for s in X]
        other = None if Y is None else [Counter(s) for s in Y]
        return np.exp2(_sparse_inner(counts, other))

    def _diag(self, X):
        return np.exp2([len(s) for s in X])

    def __repr__(self):
        return "SetKernel()"


def _substrings(s, lengths):
    """Counter of the substrings of ``s`` whose length is in ``lengths``."""
    return Counter(s[i:i + m] for m in lengths for i in range(len(s) - m + 1))


class Spectrum(Kernel):
    """The p-spectrum string kernel: sum over length-p strings s of h_s(x) h_s(y).

    h_s(x) counts the occurrences of s in x.  Only the substrings that occur
    are visited, so the |alphabet|^p feature vector is never built.

    Parameters
    ----------
    p : int
        Substring length, >= 1.

    Examples
    --------
    >>> Spectrum(p=2)(["abab"], ["bab"])
    array([[3.]])
    """

    def __init__(self, p=3):
        self.p = check_scalar(p, "p", low=1, integer=True)

    def _check_X(self, X, name):
        return _check_strings(X, name)

    def _gram(self, X, Y):
        counts = [_substrings(s, (self.p,)) for s in X]
        other = None if Y is None else [_substrings(s, (self.p,)) for s in Y]
        return _sparse_inner(counts, other)

    def _diag(self, X):
        return np.array([sum(c * c for c in _substrings(s, (self.p,)).values()) for s in X],
                        dtype=np.float64)

    def __repr__(self):
        return f"Spectrum(p={self.p})"


class AllSubstrings(Kernel):
    """The weighted all-substrings kernel sum_s w_s h_s(x) h_s(y).

    Parameters
    ----------
    weights : float, dict or callable
        A number ``lam`` > 0 gives w_s = lam ** len(s) (lam < 1 favours short
        substrings, lam > 1 long ones); a dict maps substrings to weights
        (absent substrings weigh 0); a callable maps a substring to its
        weight.  Weights must be >= 0.
    max_length : int or None
        Longest substring considered (None: no limit).  A string of length L
        has about L^2 / 2 substrings, so set this for long strings.

    Examples
    --------
    >>> AllSubstrings(weights=1.0)(["ab"], ["ab"])   # "a", "b", "ab"
    array([[3.]])
    """

    _exact_symmetry = False

    def __init__(self, weights=0.5, *, max_length=None):
        if isinstance(weights, dict):
            for key, value in weights.items():
                check_scalar(value, f"weights[{key!r}]", low=0, finite=True)
            self._weight = lambda s: weights.get(s, 0.0)
        elif callable(weights):
            self._weight = weights
        else:
            lam = check_scalar(weights, "weights", low=0, include_low=False, finite=True)
            self._weight = lambda s: lam ** len(s)
        self.weights = weights
        self.max_length = None if max_length is None else check_scalar(
            max_length, "max_length", low=1, integer=True)

    def _check_X(self, X, name):
        return _check_strings(X, name)

    def _checked_weight(self, s):
        w = self._weight(s)
        if not w >= 0:
            raise ValueError(f"weights must be >= 0, got {w!r} for substring {s!r}")
        return w

    def _counts(self, strings):
        out = []
        for s in strings:
            top = len(s) if self.max_length is None else min(len(s), self.max_length)
            out.append(_substrings(s, range(1, top + 1)))
        return out

    def _gram(self, X, Y):
        other = None if Y is None else self._counts(Y)
        return _sparse_inner(self._counts(X), other, weight=self._checked_weight)

    def _diag(self, X):
        return np.array([sum(self._checked_weight(s) * c * c for s, c in counts.items())
                         for counts in self._counts(X)], dtype=np.float64)

    def __repr__(self):
        shown = _func_name(self.weights) if callable(self.weights) else repr(self.weights)
        extra = "" if self.max_length is None else f", max_length={self.max_length}"
        return f"AllSubstrings(weights={shown}{extra})"


# ---------------------------------------------------------------------------
# Gram matrices and user functions standing in for kernels
# ---------------------------------------------------------------------------
class Precomputed(Kernel):
    """A Gram matrix standing where a kernel does, addressed by point indices.

    ``Precomputed(K)`` holds the symmetric Gram matrix of a pool of m points.
    It is called with integer indices into that pool: ``k(i)`` returns
    ``K[i][:, i]`` and ``k(i, j)`` returns ``K[i][:, j]``.  Indices may be a
    1-D integer array or a column of shape (n, 1) (so they pass through the
    usual ``(n, d)`` data checks of estimators).  ``k.points`` is the index
    column of the whole pool, so ``k(k.points)`` is K itself.  Precompute on
    training and test points together, then fit on the training indices and
    predict on the test indices.

    Examples
    --------
    >>> k = Precomputed([[2.0, 1.0], [1.0, 3.0]])
    >>> k([1], [0, 1])
    array([[1., 3.]])
    """

    def __init__(self, K):
        K = check_array(K, "K")
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square Gram matrix, got shape {K.shape}")
        scale = max(np.abs(K).max(), np.finfo(float).tiny)
        if np.abs(K - K.T).max() > 1e-10 * scale:
            raise ValueError("K must be symmetric")
        self.K = (K + K.T) / 2.0

    @property
    def points(self):
        """Index column (m, 1) addressing every point of the pool."""
        return np.arange(self.K.shape[0])[:, None]

    @property
    def is_known_psd(self):
        return bool(is_psd(self.K))

    def _check_X(self, X, name):
        try:
            idx = np.asarray(X)
        except ValueError as exc:
            raise ValueError(f"{name} must be an array of indices") from exc
        if idx.ndim == 2 and idx.shape[1] == 1:
            idx = idx[:, 0]
        if idx.ndim != 1 or idx.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array (or (n, 1) column) of indices "
                             f"into the precomputed matrix, got shape {idx.shape}")
        if idx.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold integer indices, got dtype {idx.dtype}")
        if idx.dtype.kind == "f":
            if not (np.isfinite(idx).all() and (idx == np.round(idx)).all()):
                raise ValueError(f"{name} must hold whole-number indices")
        idx = idx.astype(np.intp)
        m = self.K.shape[0]
        if idx.min() < 0 or idx.max() >= m:
            raise ValueError(f"{name} holds indices outside 0..{m - 1}")
        return idx

    def _check_compatible(self, X, Y):
        pass

    def _gram(self, X, Y):
        return self.K[np.ix_(X, X if Y is None else Y)]

    def _diag(self, X):
        return np.diagonal(self.K)[X]

    def __repr__(self):
        m = self.K.shape[0]
        return f"Precomputed(K=<{m}x{m} matrix>)"


class FunctionKernel(Kernel):
    """A user's own function k(x, t) of two points, used as a kernel.

    Nothing is assumed about ``func``: it need not be PSD (``is_known_psd``
    is False unless you pass ``psd=True``) -- test it with
    :func:`kernlab.is_psd` or :func:`kernlab.find_counterexample`.

    Parameters
    ----------
    func : callable
        ``func(x, t)`` returning a number, where x and t are single points:
        1-D arrays for vector data, or items (str, set, ...) of a list.
    vectorized : bool or None
        True: ``func`` broadcasts over leading axes (``func(X[:, None],
        Y[None])`` has shape (n_X, n_Y)).  False: loop over pairs.  None
        (default): try the broadcast call on a few pairs, check it against
        the loop, and use it when it agrees.
    psd : bool
        Declare the function PSD (sets ``is_known_psd``).

    Raises
    ------
    ValueError
        When called with ``Y=None`` on data where ``func`` is not symmetric.

    Examples
    --------
    >>> k = FunctionKernel(lambda x, t: x @ t - (x @ t) ** 2)
    >>> k([[1.0], [2.0]])
    array([[  0.,  -2.],
           [ -2., -12.]])
    """

    _exact_symmetry = False
    _PROBE = (3, 2)  # rows x columns used to test whether broadcasting works

    def __init__(self, func, *, vectorized=None, psd=False):
        check_instance(func, "func")
        if not callable(func):
            raise TypeError(f"func must be callable, got {type(func).__name__}")
        self.func = func
        self.vectorized = vectorized
        self.psd = bool(psd)
        self.is_known_psd = self.psd

    def _check_X(self, X, name):
        if holds_objects(X):
            return list(X)  # strings, sets or other objects: passed through
        return check_array(X, name)

    def _loop(self, X, Y):
        return np.array([[float(self.func(x, y)) for y in Y] for x in X], dtype=np.float64)

    def _broadcast(self, X, Y):
        return np.asarray(self.func(X[:, None, :], Y[None, :, :]), dtype=np.float64)

    def _broadcast_works(self, X, Y):
        a, b = min(len(X), self._PROBE[0]), min(len(Y), self._PROBE[1])
        try:
            with np.errstate(all="ignore"):
                trial = self._broadcast(X[:a], Y[:b])
        except Exception:  # any failure just means "not vectorised"
            return False
        expected = self._loop(X[:a], Y[:b])
        return trial.shape == (a, b) and np.allclose(trial, expected, rtol=1e-12, atol=1e-300)

    def _evaluate(self, X, Y):
        if not isinstance(X, np.ndarray):
            return self._loop(X, Y)
        use_broadcast = self.vectorized
        if use_broadcast is None:
            use_broadcast = self._broadcast_works(X, Y)
        if not use_broadcast:
            return self._loop(X, Y)
        # Row blocks bound the (rows, n_Y, d) temporaries that broadcasting creates.
        rows = max(1, int(2 ** 22 // max(1, len(Y) * X.shape[1])))
        return np.vstack([self._broadcast(X[i:i + rows], Y) for i in range(0, len(X), rows)])

    def _gram(self, X, Y):
        if Y is not None:
            return self._evaluate(X, Y)
        K = self._evaluate(X, X)
        # A kernel is symmetric; say so rather than silently keep one triangle.
        gap = np.abs(K - K.T)
        if gap.max() > 1e-12 * np.abs(K).max():
            i, j = np.unravel_index(np.argmax(gap), gap.shape)
            raise ValueError(
                f"func is not symmetric: k(X[{i}], X[{j}]) = {K[i, j]:.6g} but "
                f"k(X[{j}], X[{i}]) = {K[j, i]:.6g}; a kernel needs k(x, t) = k(t, x)")
        return K

    def _diag(self, X):
        return np.array([float(self.func(x, x)) for x in X], dtype=np.float64)

    def __repr__(self):
        return f"FunctionKernel({_func_name(self.func)})"


# ---------------------------------------------------------------------------
# The algebra: each class is one closure rule
# ---------------------------------------------------------------------------
class _Combination(Kernel):
    """Shared plumbing for kernels built from other kernels."""

    parts = ()

    def _set_parts(self, *kernels):
        """Record the component kernels, refusing anything that is not a Kernel."""
        for k in kernels:
            check_instance(k, "kernel")
            if not isinstance(k, Kernel):
                raise TypeError(f"expected a Kernel, got {type(k).__name__} {k!r}")
        self.parts = kernels

    @property
    def is_known_psd(self):
        return all(k.is_known_psd for k in self.parts)

    @property
    def _exact_symmetry(self):
        return all(k._exact_symmetry for k in self.parts)

    def _check_X(self, X, name):
        for k in self.parts:
            X = k._check_X(X, name)
        return X

    def _check_compatible(self, X, Y):
        for k in self.parts:
            k._check_compatible(X, Y)


class Sum(_Combination):
    """k1(x, t) + k2(x, t)."""

    _prec = _PREC_SUM

    def __init__(self, k1, k2):
        self.k1, self.k2 = k1, k2
        self._set_parts(k1, k2)

    def _gram(self, X, Y):
        K = self.k1._gram(X, Y)
        return K + self.k2._gram(X, Y)

    def _diag(self, X):
        return self.k1._diag(X) + self.k2._diag(X)

    def __repr__(self):
        return f"{self.k1._bracket(_PREC_SUM)} + {self.k2._bracket(_PREC_SUM)}"


class Product(_Combination):
    """k1(x, t) * k2(x, t) (the Schur product of Gram matrices is PSD)."""

    _prec = _PREC_PRODUCT

    def __init__(self, k1, k2):
        self.k1, self.k2 = k1, k2
        self._set_parts(k1, k2)

    def _gram(self, X, Y):
        K = self.k1._gram(X, Y)
        return K * self.k2._gram(X, Y)

    def _diag(self, X):
        return self.k1._diag(X) * self.k2._diag(X)

    def __repr__(self):
        return f"{self.k1._bracket(_PREC_PRODUCT)} * {self.k2._bracket(_PREC_PRODUCT)}"


class Scaled(_Combination):
    """c * k(x, t) with c >= 0."""

    _prec = _PREC_PRODUCT

    def __init__(self, c, k):
        self.c = check_scalar(c, "c (scale factor)", low=0, finite=True)
        self.k = k
        self._set_parts(k)

    def _gram(self, X, Y):
        return self.c * self.k._gram(X, Y)

    def _diag(self, X):
        return self.c * self.k._diag(X)

    def __repr__(self):
        return f"{self.c!r} * {self.k._bracket(_PREC_PRODUCT + 1)}"


class Power(_Combination):
    """k(x, t) ** n for an integer n >= 1 (a repeated product)."""

    _prec = _PREC_POWER

    def __init__(self, k, n):
        self.n = check_scalar(n, "n (exponent)", low=1, integer=True)
        self.k = k
        self._set_parts(k)

    def _gram(self, X, Y):
        return self.k._gram(X, Y) ** self.n

    def _diag(self, X):
        return self.k._diag(X) ** self.n

    def __repr__(self):
        return f"{self.k._bracket(_PREC_ATOM)} ** {self.n}"


class Exp(_Combination):
    """exp(k(x, t)), the limit of polynomials with non-negative coefficients."""

    def __init__(self, k):
        self.k = k
        self._set_parts(k)

    def _gram(self, X, Y):
        return np.exp(self.k._gram(X, Y))

    def _diag(self, X):
        return np.exp(self.k._diag(X))

    def __repr__(self):
        return f"exp({self.k!r})"


class PolynomialOf(_Combination):
    """sum_i coef[i] * k(x, t) ** i with every coefficient >= 0.

    Examples
    --------
    >>> PolynomialOf(Linear(), [1.0, 0.0, 1.0])([[2.0]])   # 1 + (x t)^2
    array([[17.]])
    """

    def __init__(self, k, coef):
        coef = np.atleast_1d(check_array(coef, "coef", ensure_2d=False))
        if coef.ndim != 1:
            raise ValueError(f"coef must be 1-D, got shape {coef.shape}")
        if (coef < 0).any():
            raise ValueError("coef must be non-negative: a negative coefficient can break "
                             "positive semi-definiteness")
        self.coef = coef
        self.k = k
        self._set_parts(k)

    def _horner(self, K):
        out = np.full_like(K, self.coef[-1])
        for a in self.coef[-2::-1]:
            out *= K
            out += a
        return out

    def _gram(self, X, Y):
        return self._horner(self.k._gram(X, Y))

    def _diag(self, X):
        return self._horner(self.k._diag(X))

    def __repr__(self):
        coef = ", ".join(f"{a:.6g}" for a in self.coef)
        return f"poly({self.k!r}, coef=[{coef}])"


def _apply_pointwise(f, X, vectorized):
    """f applied to every item of X (or to all of X at once when vectorized)."""
    if vectorized:
        return f(X)
    values = [f(x) for x in X]
    return np.asarray(values) if isinstance(X, np.ndarray) or np.ndim(values[0]) > 0 else values


class Rescaled(_Combination):
    """f(x) k(x, t) f(t) for a real function f.

    ``f`` is applied to one point at a time unless ``vectorized=True``, in
    which case it receives the whole (n, d) array and returns shape (n,).
    """

    _exact_symmetry = False  # (f_i K_ij) f_j and (f_j K_ji) f_i round differently

    def __init__(self, k, f, *, vectorized=False):
        if not callable(f):
            raise TypeError(f"f must be callable, got {type(f).__name__}")
        self.k, self.f, self.vectorized = k, f, vectorized
        self._set_parts(k)

    def _values(self, X, name):
        v = np.asarray(_apply_pointwise(self.f, X, self.vectorized), dtype=np.float64)
        if v.shape != (len(X),):
            raise ValueError(f"f must return one number per point; got shape {v.shape} for "
                             f"{len(X)} points in {name}")
        if not np.isfinite(v).all():
            raise ValueError(f"f returned a non-finite value on {name}")
        return v

    def _gram(self, X, Y):
        fx = self._values(X, "X")
        fy = fx if Y is None else self._values(Y, "Y")
        return fx[:, None] * self.k._gram(X, Y) * fy[None, :]

    def _diag(self, X):
        return self._values(X, "X") ** 2 * self.k._diag(X)

    def __repr__(self):
        name = _func_name(self.f)
        return f"{name}(x) * {self.k._bracket(_PREC_PRODUCT + 1)} * {name}(t)"


class Composed(_Combination):
    """k(phi(x), phi(t)) for a map phi from the input space to that of k.

    ``phi`` is applied to one point at a time unless ``vectorized=True``, in
    which case it maps the whole (n, d) array to an (n, D) array.
    """

    def __init__(self, k, phi, *, vectorized=False):
        if not callable(phi):
            raise TypeError(f"phi must be callable, got {type(phi).__name__}")
        self.k, self.phi, self.vectorized = k, phi, vectorized
        self._set_parts(k)

    @property
    def _exact_symmetry(self):
        return self.k._exact_symmetry

    def _check_X(self, X, name):
        if holds_objects(X):
            return list(X)
        return check_array(X, name)

    def _check_compatible(self, X, Y):
        pass  # phi may accept inputs the inner kernel would not

    def _mapped(self, X, name):
        Z = _apply_pointwise(self.phi, X, self.vectorized)
        if isinstance(Z, np.ndarray) and Z.ndim == 1 and len(Z) == len(X):
            Z = Z[:, None]  # phi returned one number per point
        Z = self.k._check_X(Z, f"phi({name})")
        if len(Z) != len(X):
            raise ValueError(f"phi must map each point of {name} to one point; "
                             f"got {len(Z)} images for {len(X)} points")
        return Z

    def _gram(self, X, Y):
        ZX = self._mapped(X, "X")
        if Y is None:
            return self.k._gram(ZX, None)
        ZY = self._mapped(Y, "Y")
        self.k._check_compatible(ZX, ZY)
        return self.k._gram(ZX, ZY)

    def _diag(self, X):
        return self.k._diag(self._mapped(X, "X"))

    def __repr__(self):
        return f"compose({self.k!r}, {_func_name(self.phi)})"


class Normalized(_Combination):
    """k(x, t) / sqrt(k(x, x) k(t, t)), the cosine of the feature vectors."""

    _exact_symmetry = False  # the two divisions round differently above and below the diagonal

    def __init__(self, k):
        self.k = k
        self._set_parts(k)

    def _sqrt_diag(self, d, name):
        if (d <= 0).any():
            raise ValueError(f"normalisation needs k(x, x) > 0 for every point of {name}")
        return np.sqrt(d)

    def _gram(self, X, Y):
        K = np.array(self.k._gram(X, Y), dtype=np.float64)
        if Y is None:
            sx = self._sqrt_diag(np.diagonal(K).copy(), "X")
            K /= sx[:, None]
            K /= sx[None, :]
            np.fill_diagonal(K, 1.0)
            return K
        K /= self._sqrt_diag(self.k._diag(X), "X")[:, None]
        K /= self._sqrt_diag(self.k._diag(Y), "Y")[None, :]
        return K

    def _diag(self, X):
        self._sqrt_diag(self.k._diag(X), "X")
        return np.ones(len(X))

    def __repr__(self):
        return f"normalize({self.k!r})"


class OnColumns(_Combination):
    """k applied to selected columns x_a of the input, giving k(x_a, t_a).

    Sums and products of such kernels on different columns give the kernels
    on parts of the input, k_a(x_a, t_a) + k_b(x_b, t_b) and the product.

    Examples
    --------
    >>> k = Linear().on([0]) + Linear().on([1]) ** 2
    >>> k([[1.0, 2.0]], [[3.0, 4.0]])
    array([[67.]])
    """

    def __init__(self, k, columns):
        if isinstance(columns, slice):
            self.columns = columns
        else:
            cols = np.atleast_1d(np.asarray(columns))
            if cols.ndim != 1 or cols.size == 0 or cols.dtype.kind not in "iub":
                raise ValueError("columns must be a slice, a non-empty list of integer column "
                                 "indices or a boolean mask")
            self.columns = cols
        self.k = k
        self._set_parts(k)

    def _check_X(self, X, name):
        X = check_array(X, name)
        try:
            part = X[:, self.columns]
        except IndexError as exc:
            raise ValueError(f"columns {self._cols_text()} do not exist in {name}, "
                             f"which has {X.shape[1]} columns") from exc
        if part.shape[1] == 0:
            raise ValueError(f"columns {self._cols_text()} select nothing from {name}")
        self.k._check_X(np.ascontiguousarray(part), name)
        return X

    def _check_compatible(self, X, Y):
        Kernel._check_compatible(self, X, Y)

    def _part(self, X):
        return np.ascontiguousarray(X[:, self.columns])

    def _gram(self, X, Y):
        return self.k._gram(self._part(X), None if Y is None else self._part(Y))

    def _diag(self, X):
        return self.k._diag(self._part(X))

    def _cols_text(self):
        if isinstance(self.columns, slice):
            s = self.columns
            return f"{'' if s.start is None else s.start}:{'' if s.stop is None else s.stop}" + (
                "" if s.step is None else f":{s.step}")
        return repr(self.columns.tolist())

    def __repr__(self):
        return f"{self.k._bracket(_PREC_ATOM)}.on({self._cols_text()})"
