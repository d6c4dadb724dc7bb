"""Explicit feature maps whose inner products reproduce kernels.

Each map follows the scikit-learn transformer pattern: ``fit(X)`` records
the input dimension (and draws random parameters where there are any) and
returns ``self``; ``transform(X)`` returns the (n, N) matrix of features;
``get_feature_names_out()`` names the N features.  The property ``kernel``
is the :class:`kernlab.Kernel` whose Gram matrix equals ``Phi Phi^T``
(for random Fourier features, in expectation only).

Deterministic maps may be used without ``fit``; ``fit`` only fixes the
input dimension so that later calls are checked against it.
"""

import itertools
import math

import numpy as np
from scipy.linalg import solve_triangular
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError

from ._estimator import check_kernel, compute_gram, fit_input, is_precomputed, predict_input
from ._linalg import add_to_diagonal
from ._validation import as_generator, check_array, check_scalar
from .kernels import ANOVA, Gaussian, Linear, Polynomial, PolynomialOf

__all__ = [
    "FeatureMap",
    "PolynomialFeatures",
    "ANOVAFeatures",
    "CorrelationFeatures",
    "BiasFeatures",
    "GaussianTaylorFeatures",
    "RandomFourierFeatures",
    "Nystroem",
]


def _monomial_name(exponents, input_features):
    """Name such as 'x1^2·x3' for an exponent vector; '1' for the constant."""
    parts = []
    for name, e in zip(input_features, exponents):
        if e == 1:
            parts.append(name)
        elif e > 1:
            parts.append(f"{name}^{e}")
    return "·".join(parts) if parts else "1"


def _coefficient_text(coef):
    """'1', '√2' or '0.7071' for a positive coefficient."""
    square = coef * coef
    if math.isclose(square, round(square), rel_tol=1e-12):
        root = math.isqrt(round(square))
        return str(root) if root * root == round(square) else f"√{round(square)}"
    return f"{coef:.4g}"


def _term_name(coef, exponents, input_features):
    """Name of the feature coef * monomial, e.g. '√2·x1·x2', 'x1^2' or '2.5'."""
    monomial = _monomial_name(exponents, input_features)
    text = _coefficient_text(coef)
    if monomial == "1":
        return text
    return monomial if text == "1" else f"{text}·{monomial}"


def _exponents(n_features, degrees):
    """All exponent vectors of length n_features with total degree in ``degrees``."""
    rows = []
    for k in degrees:
        for combo in itertools.combinations_with_replacement(range(n_features), k):
            rows.append(np.bincount(np.asarray(combo, dtype=int), minlength=n_features))
    return np.array(rows, dtype=int).reshape(len(rows), n_features)


def _monomials(X, exponents):
    """Matrix of monomials prod_i X[:, i] ** exponents[j, i], one column per row j."""
    out = np.ones((X.shape[0], exponents.shape[0]))
    for i in range(X.shape[1]):
        powers = exponents[:, i]
        if powers.any():
            out *= X[:, i:i + 1] ** powers[None, :]
    return out


class FeatureMap(TransformerMixin, BaseEstimator):
    """Base class: an explicit map Phi with ``fit``, ``transform`` and feature names.

    A scikit-learn transformer (``get_params``, ``clone``, pipelines).  The
    maps are fixed formulas, so they can transform without being fitted,
    except those that draw random numbers in ``fit``.
    """

    _stateless = True  # transform needs nothing from fit

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = not self._stateless
        return tags

    def fit(self, X, y=None):
        """Record the input dimension and return ``self``."""
        X = fit_input(self, X)
        self._check_params()
        self._fit(X)
        self.n_output_features_ = len(self._names(self._default_names(X.shape[1])))
        return self

    def transform(self, X):
        """Return the features Phi(x) of every row of ``X``, shape (n, N)."""
        # an unfitted fixed map transforms any number of columns
        X = predict_input(self, X) if hasattr(self, "n_features_in_") else check_array(X, "X")
        self._check_params()
        return self._transform(X)

    def fit_transform(self, X, y=None):
        """``fit(X)`` followed by ``transform(X)``."""
        return self.fit(X).transform(X)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features, built from ``x1, x2, ...`` or ``input_features``."""
        if input_features is None:
            if not hasattr(self, "n_features_in_"):
                raise NotFittedError("call fit(X) first or pass input_features")
            input_features = self._default_names(self.n_features_in_)
        return np.asarray(self._names(list(input_features)), dtype=object)

    @staticmethod
    def _default_names(d):
        return [f"x{i + 1}" for i in range(d)]

    def _check_params(self):
        pass

    def _fit(self, X):
        pass


class PolynomialFeatures(FeatureMap):
    """The multinomial map with Phi(x)·Phi(t) = (c + <x, t>)^degree.

    The feature of the monomial x1^j1 ... xD^jD (total degree k <= p) has
    coefficient sqrt(p! / (j0! j1! ... jD!) * c^j0) with j0 = p - k, from the
    multinomial expansion of (c + x1 t1 + ... + xD tD)^p.  There are
    C(D + p, p) features, or C(D + p - 1, p) when c = 0 (degree p only).

    Parameters
    ----------
    degree : int
        p >= 1.
    c : float
        Offset, >= 0 (a negative c has no real feature map).

    Examples
    --------
    >>> PolynomialFeatures(degree=2, c=1.0).fit([[0.0, 0.0]]).get_feature_names_out().tolist()
    ['1', '√2·x1', '√2·x2', 'x1^2', '√2·x1·x2', 'x2^2']
    """

    def __init__(self, degree=2, *, c=1.0):
        self.degree = degree
        self.c = c

    def _check_params(self):
        check_scalar(self.degree, "degree", low=1, integer=True)
        check_scalar(self.c, "c", low=0, finite=True)

    @property
    def kernel(self):
        """The kernel (c + <x, t>)^degree reproduced by the map."""
        return Polynomial(degree=self.degree, c=self.c)

    def _terms(self, d):
        p = check_scalar(self.degree, "degree", low=1, integer=True)
        c = check_scalar(self.c, "c", low=0, finite=True)
        degrees = [p] if c == 0 else range(p + 1)
        exponents = _exponents(d, degrees)
        coef = []
        for row in exponents:
            j0 = p - int(row.sum())
            multinomial = math.factorial(p) // math.prod(math.factorial(int(j)) for j in (j0, *row))
            coef.append(math.sqrt(multinomial * c ** j0))
        return exponents, np.array(coef)

    def _transform(self, X):
        exponents, coef = self._terms(X.shape[1])
        return _monomials(X, exponents) * coef

    def _names(self, input_features):
        exponents, coef = self._terms(len(input_features))
        return [_term_name(a, e, input_features) for e, a in zip(exponents, coef)]


class ANOVAFeatures(FeatureMap):
    """Products of distinct coordinates: Phi(x)·Phi(t) = ANOVA kernel.

    With ``degree=None`` every subset S of coordinates contributes
    prod_{i in S} x_i (2^D features, the empty product being 1), and the
    inner product is prod_i (1 + x_i t_i).  With ``degree=s`` only subsets of
    size s are used (C(D, s) features), matching ``ANOVA(degree=s)``.

    Examples
    --------
    >>> ANOVAFeatures().fit([[0.0, 0.0]]).get_feature_names_out().tolist()
    ['1', 'x1', 'x2', 'x1·x2']
    """

    def __init__(self, degree=None):
        self.degree = degree

    def _check_params(self):
        if self.degree is not None:
            check_scalar(self.degree, "degree", low=1, integer=True)

    @property
    def kernel(self):
        """The ANOVA kernel reproduced by the map."""
        return ANOVA(degree=self.degree)

    def _subsets(self, d):
        sizes = range(d + 1) if self.degree is None else [self.degree]
        subsets = [s for k in sizes for s in itertools.combinations(range(d), k)]
        if not subsets:
            raise ValueError(f"degree={self.degree} exceeds the input dimension: X has "
                             f"{d} feature(s); degree must be at most {d}")
        exponents = np.zeros((len(subsets), d), dtype=int)
        for row, s in enumerate(subsets):
            exponents[row, list(s)] = 1
        return exponents

    def _transform(self, X):
        return _monomials(X, self._subsets(X.shape[1]))

    def _names(self, input_features):
        return [_monomial_name(e, input_features) for e in self._subsets(len(input_features))]


class CorrelationFeatures(FeatureMap):
    """The map (x, x_i x_j for i < j), which makes XOR linearly separable.

    In two dimensions this is (x1, x2, x1 x2).  Its kernel is
    <x, t> + sum_{i<j} x_i x_j t_i t_j = ``Linear() + ANOVA(degree=2)``.
    With ``include_squares=True`` the squares x_i^2 are added, giving all
    (D^2 + 3D)/2 second-order correlations and the extra kernel term
    sum_i x_i^2 t_i^2.

    Examples
    --------
    >>> CorrelationFeatures().fit_transform([[1.0, -1.0]])
    array([[ 1., -1., -1.]])
    """

    def __init__(self, include_squares=False):
        self.include_squares = include_squares

    @property
    def kernel(self):
        """Linear() + ANOVA(degree=2), plus sum_i x_i^2 t_i^2 with squares."""
        k = Linear() + ANOVA(degree=2)
        if self.include_squares:
            k = k + Linear().compose(np.square, vectorized=True)
        return k

    def _exponents(self, d):
        linear = np.eye(d, dtype=int)
        pairs = _exponents(d, [2])
        if not self.include_squares:
            pairs = pairs[pairs.max(axis=1) == 1]
        return np.vstack([linear, pairs])

    def _transform(self, X):
        return _monomials(X, self._exponents(X.shape[1]))

    def _names(self, input_features):
        return [_monomial_name(e, input_features) for e in self._exponents(len(input_features))]


class BiasFeatures(FeatureMap):
    """The map (x, 1), whose kernel <x, t> + 1 gives a linear fit an intercept.

    Examples
    --------
    >>> BiasFeatures().fit_transform([[2.0, 3.0]])
    array([[2., 3., 1.]])
    """

    @property
    def kernel(self):
        """Linear() + 1.0."""
        return Linear() + 1.0

    def _transform(self, X):
        return np.hstack([X, np.ones((X.shape[0], 1))])

    def _names(self, input_features):
        return list(input_features) + ["1"]


class GaussianTaylorFeatures(FeatureMap):
    """Truncated Taylor features of the Gaussian kernel.

    Writing exp(-||x-t||^2/(2 sigma^2)) = f(x) exp(<x,t>/sigma^2) f(t) with
    f(x) = exp(-||x||^2/(2 sigma^2)) and expanding the middle factor up to
    total degree ``order`` gives the features

        f(x) x^j / (sigma^{|j|} sqrt(j_1! ... j_D!)),   |j| <= order,

    C(D + order, order) of them.  Their inner product is the truncated
    kernel ``self.kernel`` exactly; ``truncation_error`` and ``error_bound``
    compare it with the Gaussian itself.

    Parameters
    ----------
    sigma : float
        Width, > 0.
    order : int
        Highest total degree kept, >= 0.

    Examples
    --------
    >>> phi = GaussianTaylorFeatures(sigma=1.0, order=8)
    >>> Z = phi.fit_transform([[0.3, -0.2], [0.1, 0.4]])
    >>> bool(abs((Z @ Z.T)[0, 1] - Gaussian(1.0)([[0.3, -0.2]], [[0.1, 0.4]])[0, 0]) < 1e-8)
    True
    """

    def __init__(self, sigma=1.0, *, order=4):
        self.sigma = sigma
        self.order = order

    def _check_params(self):
        check_scalar(self.sigma, "sigma", low=0, include_low=False, finite=True)
        check_scalar(self.order, "order", low=0, integer=True)

    @property
    def kernel(self):
        """The truncated kernel f(x) sum_{k<=order} (<x,t>/sigma^2)^k / k! f(t)."""
        self._check_params()
        s2 = float(self.sigma) ** 2
        coef = [1.0 / (s2 ** k * math.factorial(k)) for k in range(int(self.order) + 1)]
        envelope = lambda X: np.exp(-np.einsum("ij,ij->i", X, X) / (2.0 * s2))  # noqa: E731
        envelope.__name__ = "f"
        return PolynomialOf(Linear(), coef).rescale(envelope, vectorized=True)

    @property
    def target_kernel(self):
        """The Gaussian kernel being approximated."""
        return Gaussian(sigma=self.sigma)

    def _terms(self, d):
        exponents = _exponents(d, range(int(self.order) + 1))
        coef = np.array([1.0 / (float(self.sigma) ** int(e.sum())
                                * math.sqrt(math.prod(math.factorial(int(j)) for j in e)))
                         for e in exponents])
        return exponents, coef

    def _transform(self, X):
        exponents, coef = self._terms(X.shape[1])
        envelope = np.exp(-np.einsum("ij,ij->i", X, X) / (2.0 * float(self.sigma) ** 2))
        return _monomials(X, exponents) * coef * envelope[:, None]

    def _names(self, input_features):
        exponents, coef = self._terms(len(input_features))
        return [f"f(x)·{_term_name(a, e, input_features)}" for e, a in zip(exponents, coef)]

    def truncation_error(self, X, Y=None):
        """Actual |Gaussian - truncated kernel| on every pair, shape (n_X, n_Y)."""
        return np.abs(self.target_kernel(X, Y) - self.kernel(X, Y))

    def error_bound(self, X, Y=None):
        """Lagrange bound on the truncation error for every pair.

        With z = <x,t>/sigma^2 the Taylor remainder of e^z after degree m is
        at most e^|z| |z|^(m+1) / (m+1)!, so the error is at most
        f(x) f(t) e^|z| |z|^(m+1) / (m+1)!.
        """
        self._check_params()
        X = check_array(X, "X")
        Y = X if Y is None else check_array(Y, "Y")
        s2 = float(self.sigma) ** 2
        z = np.abs(X @ Y.T) / s2
        m = int(self.order)
        log_f = -np.einsum("ij,ij->i", X, X)[:, None] / (2 * s2) - np.einsum(
            "ij,ij->i", Y, Y)[None, :] / (2 * s2)
        with np.errstate(divide="ignore"):
            log_bound = log_f + z + (m + 1) * np.log(z) - math.lgamma(m + 2)
        return np.exp(log_bound)

    @staticmethod
    def radius_bound(radius, sigma, order):
        """Uniform error bound (r^2/sigma^2)^(order+1) / (order+1)! on the ball ||x|| <= r.

        Follows from ``error_bound`` since f(x) f(t) e^|z| <= 1 when
        |<x,t>| <= ||x|| ||t||.
        """
        radius = check_scalar(radius, "radius", low=0, finite=True)
        sigma = check_scalar(sigma, "sigma", low=0, include_low=False, finite=True)
        order = check_scalar(order, "order", low=0, integer=True)
        u = radius ** 2 / sigma ** 2
        return math.exp((order + 1) * math.log(u) - math.lgamma(order + 2)) if u > 0 else 0.0


class RandomFourierFeatures(FeatureMap):
    """Random Fourier features z(x) = sqrt(2/N) cos(W^T x + b) for the Gaussian kernel.

    ``fit`` draws the columns of W from N(0, I / sigma^2) (the spectral
    density of the Gaussian kernel) and b uniformly on [0, 2 pi).  Then
    E[z(x)·z(t)] = exp(-||x-t||^2 / (2 sigma^2)), with Monte Carlo error of
    order 1/sqrt(N).

    Parameters
    ----------
    sigma : float
        Width of the Gaussian kernel, > 0.
    n_components : int
        Number N of features, >= 1.
    random_state : int, numpy Generator or None
        Seed for the draw.

    Examples
    --------
    >>> rff = RandomFourierFeatures(sigma=1.0, n_components=2000, random_state=0)
    >>> Z = rff.fit_transform([[0.0], [1.0]])
    >>> bool(abs((Z @ Z.T)[0, 1] - np.exp(-0.5)) < 0.1)
    True
    """

    _stateless = False

    def __init__(self, sigma=1.0, *, n_components=100, random_state=None):
        self.sigma = sigma
        self.n_components = n_components
        self.random_state = random_state

    def _check_params(self):
        check_scalar(self.sigma, "sigma", low=0, include_low=False, finite=True)
        check_scalar(self.n_components, "n_components", low=1, integer=True)

    @property
    def kernel(self):
        """The Gaussian kernel approximated (in expectation) by the features."""
        return Gaussian(sigma=self.sigma)

    def _fit(self, X):
        rng = as_generator(self.random_state)
        n = int(self.n_components)
        self.omega_ = rng.standard_normal((X.shape[1], n)) / float(self.sigma)
        self.offset_ = rng.uniform(0.0, 2.0 * np.pi, n)

    def _transform(self, X):
        if not hasattr(self, "omega_"):
            raise NotFittedError("RandomFourierFeatures must be fitted (fit(X)) before transform")
        Z = X @ self.omega_
        Z += self.offset_
        np.cos(Z, out=Z)
        Z *= math.sqrt(2.0 / self.omega_.shape[1])
        return Z

    def _names(self, input_features):
        return [f"cos(w{j + 1}·x + b{j + 1})" for j in range(int(self.n_components))]


class Nystroem(FeatureMap):
    """The Nystroem feature map: m landmarks give features with F F^T = K_nm K_mm^-1 K_mn.

    ``fit`` draws ``n_components`` landmarks ``z_j`` from the rows of X and
    factors their Gram matrix, ``K_mm = L L^T`` (with a jitter of 1e-10 of
    its mean diagonal, as K_mm is often numerically singular).  The features
    of x are ``L^-1 k(Z, x)``, so the inner product of two feature vectors
    is ``k(x, Z) K_mm^-1 k(Z, t)``: the kernel itself whenever x or t is a
    landmark, and a low-rank approximation to it elsewhere.

    Parameters
    ----------
    kernel : kernlab kernel or callable k(X, Y)
        The kernel to approximate (not ``"precomputed"``).
    n_components : int, default=100
        Number m of landmarks (capped at the number of training points).
    random_state : int, numpy Generator or None, default=None
        Seed for the choice of landmarks.

    Attributes
    ----------
    landmarks_ : ndarray of shape (m, d)
        The chosen training points, in their original order.
    landmark_indices_ : ndarray of shape (m,)
        Their row numbers in the training data.
    chol_ : ndarray of shape (m, m)
        The lower Cholesky factor L of K_mm (plus jitter).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> ny = Nystroem(Gaussian(sigma=1.0), n_components=50, random_state=0).fit(X)
    >>> F = ny.transform(X)
    >>> bool(np.allclose(F @ F.T, Gaussian(sigma=1.0)(X), atol=1e-8))
    True
    """

    _stateless = False

    def __init__(self, kernel=None, *, n_components=100, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.random_state = random_state

    def _check_params(self):
        kernel = check_kernel(self.kernel)
        if is_precomputed(kernel):
            raise ValueError("Nystroem needs a kernel function, not 'precomputed'")
        check_scalar(self.n_components, "n_components", low=1, integer=True)
        return kernel

    def _fit(self, X):
        kernel = self._check_params()
        rng = as_generator(self.random_state)
        n = X.shape[0]
        m = min(int(self.n_components), n)
        self.landmark_indices_ = np.sort(rng.choice(n, size=m, replace=False))
        self.landmarks_ = X[self.landmark_indices_]
        K_mm = compute_gram(kernel, self.landmarks_)
        jitter = 1e-10 * max(np.trace(K_mm) / m, np.finfo(float).tiny)
        try:
            self.chol_ = np.linalg.cholesky(add_to_diagonal(K_mm, jitter))
        except np.linalg.LinAlgError as exc:
            raise ValueError("the kernel matrix of the landmarks is not positive definite; "
                             "the kernel must be positive semi-definite") from exc

    def _transform(self, X):
        if not hasattr(self, "chol_"):
            raise NotFittedError("Nystroem must be fitted (fit(X)) before transform")
        K_nm = compute_gram(self.kernel, X, self.landmarks_)
        return solve_triangular(self.chol_, K_nm.T, lower=True, check_finite=False).T

    def _names(self, input_features):
        if not hasattr(self, "chol_"):
            raise NotFittedError("Nystroem must be fitted (fit(X)) before naming its features")
        return [f"nystroem{j + 1}" for j in range(self.chol_.shape[0])]
