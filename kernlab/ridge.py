"""Ridge regression in its primal, dual, basis and kernel forms.

Every estimator here minimises a squared loss plus ``lam`` times a squared
norm, and every one of them ends in a Cholesky solve of a symmetric positive
definite system:

* :class:`Ridge` -- ``w = (X^T X + lam I)^-1 X^T y`` (primal, d x d system) or
  ``alpha = (X X^T + lam I)^-1 y``, ``w = X^T alpha`` (dual, n x n system);
  :func:`ridge_flops` is the cost model that chooses between them.
* :class:`BasisRidge` -- a finite basis with Gram matrix ``G``:
  ``w = (A^T A + lam G)^-1 A^T y``.
* :class:`KernelRidge` -- ``alpha = (K + lam I)^-1 y``, with an unpenalised
  intercept (the basis function ``psi = 1``) or extra basis functions ``psi_m``
  (the semiparametric representer theorem).
* :class:`NystroemKernelRidge` and :class:`RandomFeatureRidge` -- cheap
  approximations for large ``n``.
"""

import numpy as np
from scipy.linalg import cho_solve
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import (MultiOutputRegressorTags, check_cross_gram, check_kernel, check_lam,
                         check_precomputed_gram, check_targets, compute_gram, fit_input,
                         is_precomputed, owns_result, predict_input)
from ._linalg import add_to_diagonal, cholesky_solve, is_psd
from ._validation import check_array, check_scalar
from .features import Nystroem, RandomFourierFeatures

__all__ = [
    "ridge_flops",
    "Ridge",
    "BasisRidge",
    "KernelRidge",
    "NystroemKernelRidge",
    "RandomFeatureRidge",
]


# ----------------------------------------------------------------------------
# cost model
# ----------------------------------------------------------------------------

def ridge_flops(n_samples, n_features, n_targets=1):
    """Floating-point operation counts of the primal and dual ridge solves.

    The counts follow the dense algorithms used by :class:`Ridge`: forming
    the symmetric matrix (``X^T X`` costs ``n d^2``, ``X X^T`` costs
    ``n^2 d``), a Cholesky factorisation (``p^3 / 3`` for a p x p matrix),
    two triangular solves per target (``2 p^2``) and the products with
    ``y`` or ``alpha`` (``2 n d`` per target).

    Parameters
    ----------
    n_samples, n_features : int
        ``n`` and ``d``.
    n_targets : int, default=1
        Number of outputs ``m``.

    Returns
    -------
    dict
        ``{"primal": float, "dual": float}``.

    Examples
    --------
    >>> cost = ridge_flops(100, 5000)
    >>> cost["dual"] < cost["primal"]
    True
    """
    n = check_scalar(n_samples, "n_samples", low=1, integer=True)
    d = check_scalar(n_features, "n_features", low=1, integer=True)
    m = check_scalar(n_targets, "n_targets", low=1, integer=True)
    n, d, m = float(n), float(d), float(m)
    primal = n * d**2 + 2 * n * d * m + d**3 / 3 + 2 * d**2 * m
    dual = n**2 * d + n**3 / 3 + 2 * n**2 * m + 2 * n * d * m
    return {"primal": primal, "dual": dual}


# ----------------------------------------------------------------------------
# linear ridge
# ----------------------------------------------------------------------------

class Ridge(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Linear ridge regression, solved in the primal or the dual.

    Minimises ``||y - X w - b||^2 + lam ||w||^2``.  The primal solve is
    ``w = (X^T X + lam I_d)^-1 X^T y``; the dual solve is
    ``alpha = (X X^T + lam I_n)^-1 y`` followed by ``w = X^T alpha``.  Both
    give the same ``w``; ``solver="auto"`` picks the cheaper one according
    to :func:`ridge_flops`.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation strength, ``>= 0``.
    fit_intercept : bool, default=False
        If True, an unpenalised intercept is fitted by centring: the columns
        of ``X`` and ``y`` are centred, ridge is fitted without intercept and
        ``b = mean(y) - mean(X) w``.
    solver : {"auto", "primal", "dual"}, default="auto"

    Attributes
    ----------
    coef_ : ndarray of shape (d,) or (d, m)
        The weight vector ``w``; predictions are ``X @ coef_ + intercept_``.
    alpha_ : ndarray of shape (n,) or (n, m)
        Dual coefficients with ``w = X^T alpha``.  After a primal solve they
        are recovered as ``(y - X w) / lam`` (only when ``lam > 0``;
        otherwise None).
    intercept_ : float or ndarray of shape (m,)
    solver_ : str
        The solver actually used.
    flops_ : dict
        The cost model evaluated at the training shape.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]]); y = np.array([1.0, 3.0, 5.0])
    >>> model = Ridge(lam=1e-9, fit_intercept=True).fit(X, y)
    >>> np.round([model.coef_[0], model.intercept_], 6)
    array([2., 1.])
    """

    def __init__(self, lam=1.0, *, fit_intercept=False, solver="auto"):
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.solver = solver

    def fit(self, X, y):
        """Fit the weights; returns self."""
        lam = check_lam(self.lam)
        if self.solver not in ("auto", "primal", "dual"):
            raise ValueError(f"solver must be 'auto', 'primal' or 'dual', got {self.solver!r}")
        X = fit_input(self, X)
        y = check_targets(y, X.shape[0])
        n, d = X.shape
        m = 1 if y.ndim == 1 else y.shape[1]
        if self.fit_intercept:
            x_mean, y_mean = X.mean(axis=0), y.mean(axis=0)
            Xc, yc = X - x_mean, y - y_mean
        else:
            Xc, yc = X, y
        self.flops_ = ridge_flops(n, d, m)
        solver = self.solver
        if solver == "auto":
            solver = "primal" if self.flops_["primal"] <= self.flops_["dual"] else "dual"
        if solver == "primal":
            A = add_to_diagonal(Xc.T @ Xc, lam)
            w, _ = cholesky_solve(A, Xc.T @ yc, "X^T X + lam I", overwrite=True)
            alpha = (yc - Xc @ w) / lam if lam > 0 else None
        else:
            A = add_to_diagonal(Xc @ Xc.T, lam)
            alpha, _ = cholesky_solve(A, yc, "X X^T + lam I", overwrite=True)
            w = Xc.T @ alpha
        self.coef_ = w
        self.alpha_ = alpha
        if self.fit_intercept:
            self.intercept_ = y_mean - x_mean @ w
        else:
            self.intercept_ = 0.0 if y.ndim == 1 else np.zeros(m)
        self.solver_ = solver
        return self

    def predict(self, X):
        """Return ``X @ coef_ + intercept_``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X)
        return X @ self.coef_ + self.intercept_


# ----------------------------------------------------------------------------
# regression in a finite basis with Gram matrix G
# ----------------------------------------------------------------------------

class BasisRidge(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Ridge regression in a finite basis whose Gram matrix is ``G``.

    With the design matrix ``A[i, n] = psi_n(x_i)`` the problem
    ``min_w ||y - A w||^2 + lam w^T G w`` has the solution
    ``w = (A^T A + lam G)^-1 A^T y``.  When the basis is orthonormal
    (``G = I``) this is ordinary ridge and equals the dual form
    ``A^T (A A^T + lam I)^-1 y``.

    Parameters
    ----------
    basis : callable or None, default=None
        ``basis(X)`` returns the design matrix of shape (n, N).  None uses
        the columns of ``X`` themselves.
    lam : float, default=1.0
    gram : array-like of shape (N, N) or None, default=None
        Gram matrix ``G[i, j] = <psi_i, psi_j>`` of the basis; None means the
        identity.  It must be symmetric positive semi-definite.

    Attributes
    ----------
    coef_ : ndarray of shape (N,) or (N, m)
        The weights ``w``.

    Examples
    --------
    >>> import numpy as np
    >>> basis = lambda X: np.hstack([np.ones_like(X), X, X**2])
    >>> X = np.linspace(-1, 1, 9)[:, None]; y = 1 - 2 * X[:, 0] ** 2
    >>> np.round(BasisRidge(basis, lam=1e-10).fit(X, y).coef_, 6)
    array([ 1.,  0., -2.])
    """

    def __init__(self, basis=None, *, lam=1.0, gram=None):
        self.basis = basis
        self.lam = lam
        self.gram = gram

    def _design(self, X):
        if self.basis is None:
            return X
        if not callable(self.basis):
            raise TypeError(f"basis must be a callable returning the design matrix, "
                            f"got {type(self.basis).__name__}")
        A = np.asarray(self.basis(X), dtype=np.float64)
        if A.ndim == 1:
            A = A[:, None]
        if A.ndim != 2 or A.shape[0] != X.shape[0]:
            raise ValueError(f"basis(X) must return shape (n_samples, n_basis) = ({X.shape[0]}, N),"
                             f" got {A.shape}")
        if not np.isfinite(A).all():
            raise ValueError("basis(X) returned NaN or infinite values")
        return A

    def fit(self, X, y):
        """Fit the weights; returns self."""
        lam = check_lam(self.lam)
        X = fit_input(self, X)
        y = check_targets(y, X.shape[0])
        A = self._design(X)
        N = A.shape[1]
        M = A.T @ A
        if self.gram is None:
            add_to_diagonal(M, lam)
        else:
            G = check_array(self.gram, "gram")
            if G.shape != (N, N):
                raise ValueError(f"gram must have shape ({N}, {N}) to match the basis, got {G.shape}")
            if not np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * np.abs(G).max()):
                raise ValueError("gram must be symmetric")
            verdict = is_psd(G, tol=1e-10)
            if not verdict:
                raise ValueError("gram must be positive semi-definite (w^T G w is a squared "
                                 f"norm); its smallest eigenvalue is {verdict.min_eigenvalue:.3g}")
            M += lam * G
        self.coef_, _ = cholesky_solve(M, A.T @ y, "A^T A + lam G", overwrite=True)
        return self

    def predict(self, X):
        """Return ``basis(X) @ coef_``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X)
        return self._design(X) @ self.coef_


# ----------------------------------------------------------------------------
# kernel ridge
# ----------------------------------------------------------------------------

class KernelRidge(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Kernel ridge regression: ``alpha = (K + lam I)^-1 y``.

    The fitted function is ``f(x) = sum_i alpha_i k(x, x_i) + intercept``,
    plus ``sum_m b_m psi_m(x)`` when a ``basis`` is given.

    Parameters
    ----------
    kernel : kernlab kernel, callable or "precomputed"
        ``kernel(X, Y)`` returns the (n_X, n_Y) Gram matrix.  With
        ``"precomputed"``, ``fit`` takes the n x n training Gram matrix and
        ``predict`` the (n_test, n_train) cross-Gram matrix.
    lam : float, default=1.0
        Regularisation strength, ``>= 0``.
    fit_intercept : bool, default=False
        Fit an unpenalised constant: the semiparametric fit with the single
        basis function ``psi = 1``, i.e. ``(K + lam I) alpha + b 1 = y`` with
        ``sum_i alpha_i = 0``.  (In exact arithmetic this is ridge with the
        centred Gram matrix ``H K H``, ``H = I - 11^T/n``; forming ``H K H``
        explicitly would lose accuracy at small ``lam``, because its rounding
        errors are amplified by ``1 / lam``.)
    basis : callable or None, default=None
        Unpenalised basis functions ``psi_m``: ``basis(X)`` returns the
        (n, M) matrix ``Psi``.  The fit solves ``(K + lam I) alpha + Psi b = y``
        and ``Psi^T alpha = 0`` (semiparametric representer theorem).
        Cannot be combined with ``fit_intercept``; include a constant column
        in the basis instead.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,) or (n, m)
        Dual coefficients.
    intercept_ : float or ndarray of shape (m,)
    basis_coef_ : ndarray of shape (M,) or (M, m), only with ``basis``
    X_fit_ : training inputs (None with a precomputed kernel)

    Raises
    ------
    ValueError
        If ``K + lam I`` is not positive definite (no silent fallback).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(0, 1, 20)[:, None]; y = np.sin(3 * X[:, 0])
    >>> model = KernelRidge(lambda A, B=None: A @ (A if B is None else B).T, lam=1e-3)
    >>> model.fit(X, y).alpha_.shape
    (20,)
    """

    def __init__(self, kernel=None, *, lam=1.0, fit_intercept=False, basis=None):
        self.kernel = kernel
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.basis = basis

    def _basis_matrix(self, X, n):
        if not callable(self.basis):
            raise TypeError(f"basis must be a callable returning the (n, M) matrix Psi, "
                            f"got {type(self.basis).__name__}")
        Psi = np.asarray(self.basis(X), dtype=np.float64)
        if Psi.ndim == 1:
            Psi = Psi[:, None]
        if Psi.ndim != 2 or Psi.shape[0] != n:
            raise ValueError(f"basis(X) must return shape ({n}, M), got {Psi.shape}")
        if not np.isfinite(Psi).all():
            raise ValueError("basis(X) returned NaN or infinite values")
        return Psi

    def fit(self, X, y):
        """Solve for ``alpha_`` (and the intercept or basis weights); returns self."""
        kernel = check_kernel(self.kernel)
        lam = check_lam(self.lam)
        if self.fit_intercept and self.basis is not None:
            raise ValueError("fit_intercept=True cannot be combined with basis; "
                             "add a constant column to the basis instead")
        if is_precomputed(kernel):
            fit_input(self, X)
            K = check_precomputed_gram(X).copy()
            X_fit = None
        else:
            X_fit = fit_input(self, X, kernel)
            K = compute_gram(kernel, X_fit)
            if not owns_result(kernel):
                K = K.copy()
        n = K.shape[0]
        y = check_targets(y, n)

        zero = 0.0 if y.ndim == 1 else np.zeros(y.shape[1])
        if self.fit_intercept or self.basis is not None:
            if self.fit_intercept:
                Psi = np.ones((n, 1))
            else:
                Psi = self._basis_matrix(X, n)
                if np.linalg.matrix_rank(Psi) < Psi.shape[1]:
                    raise ValueError(f"basis(X) has rank below its {Psi.shape[1]} columns; "
                                     "the basis functions must be linearly independent on "
                                     "the training points")
            alpha, b = _semiparametric_solve(K, lam, Psi, y)
            if self.fit_intercept:
                self.intercept_ = float(b[0]) if y.ndim == 1 else b[0].copy()
            else:
                self.basis_coef_ = b
                self.intercept_ = zero
        else:
            add_to_diagonal(K, lam)
            alpha, _ = cholesky_solve(K, y, "K + lam I", overwrite=True)
            self.intercept_ = zero
        self.alpha_ = alpha
        self.X_fit_ = X_fit
        self.n_train_ = n
        return self

    def predict(self, X):
        """Evaluate the fitted function at ``X`` (or at a precomputed cross-Gram)."""
        check_is_fitted(self, "alpha_")
        X = predict_input(self, X, self.kernel)
        if is_precomputed(self.kernel):
            K = check_cross_gram(X, self.n_train_)
        else:
            K = compute_gram(self.kernel, X, self.X_fit_)
        out = K @ self.alpha_ + self.intercept_
        if self.basis is not None and not self.fit_intercept:
            out = out + self._basis_matrix(X, K.shape[0]) @ self.basis_coef_
        return out


def _semiparametric_solve(K, lam, Psi, y):
    """``(alpha, b)`` with ``(K + lam I) alpha + Psi b = y`` and ``Psi^T alpha = 0``.

    The bordered system is solved through its Schur complement: with
    ``A = K + lam I`` (Cholesky, overwriting ``K``), ``b`` solves
    ``Psi^T A^-1 Psi b = Psi^T A^-1 y`` and ``alpha = A^-1 (y - Psi b)``.  The
    constraint holds to rounding whatever the size of ``1 / lam``.
    """
    add_to_diagonal(K, lam)
    Ay, factor = cholesky_solve(K, y, "K + lam I", overwrite=True)
    APsi = cho_solve(factor, Psi, check_finite=False)
    b, _ = cholesky_solve(Psi.T @ APsi, Psi.T @ Ay, "Psi^T (K + lam I)^-1 Psi")
    return Ay - APsi @ b, b


# ----------------------------------------------------------------------------
# approximations for large n
# ----------------------------------------------------------------------------

def _feature_ridge(F, y, lam, fit_intercept):
    """Primal ridge on an explicit feature matrix F (n x r): returns (w, b).

    With ``fit_intercept`` the features and targets are centred first, so the
    intercept b is not penalised; otherwise b = 0.
    """
    if fit_intercept:
        f_mean, y_mean = F.mean(axis=0), y.mean(axis=0)
        F, y = F - f_mean, y - y_mean
    A = add_to_diagonal(F.T @ F, lam)
    w, _ = cholesky_solve(A, F.T @ y, "F^T F + lam I", overwrite=True)
    if fit_intercept:
        return w, y_mean - f_mean @ w
    return w, (0.0 if y.ndim == 1 else np.zeros(y.shape[1]))


class NystroemKernelRidge(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Kernel ridge with a Nystroem approximation of the Gram matrix.

    ``n_components`` landmarks ``z_j`` are drawn from the training points;
    the :class:`kernlab.Nystroem` feature map ``F = K(X, Z) L^-T`` (with
    ``K_mm = L L^T``) satisfies ``F F^T = K_nm K_mm^-1 K_mn``, and ridge is
    solved in these ``m`` features at cost ``O(n m^2)`` instead of ``O(n^3)``.

    Parameters
    ----------
    kernel : kernlab kernel or callable
    lam : float, default=1.0
    n_components : int, default=500
        Number of landmarks (capped at n).
    random_state : int or None, default=None
        Seed for the choice of landmarks.

    Attributes
    ----------
    nystroem_ : Nystroem
        The fitted feature map.
    landmarks_ : ndarray of shape (m, d)
    coef_ : ndarray of shape (m,) or (m, k), weights on the Nystroem features
    intercept_ : float or ndarray

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (200, 1)); y = np.sin(3 * X[:, 0])
    >>> rbf = lambda A, B=None: np.exp(-(A - (A if B is None else B).T) ** 2)
    >>> model = NystroemKernelRidge(rbf, lam=1e-3, n_components=20, random_state=0).fit(X, y)
    >>> float(np.abs(model.predict(X) - y).max()) < 0.01
    True
    """

    def __init__(self, kernel=None, *, lam=1.0, n_components=500, fit_intercept=False,
                 random_state=None):
        self.kernel = kernel
        self.lam = lam
        self.n_components = n_components
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, y):
        """Choose landmarks and solve the reduced ridge problem; returns self."""
        lam = check_lam(self.lam)
        X = fit_input(self, X)
        y = check_targets(y, X.shape[0])
        self.nystroem_ = Nystroem(self.kernel, n_components=self.n_components,
                                  random_state=self.random_state).fit(X)
        self.landmarks_ = self.nystroem_.landmarks_
        F = self.nystroem_.transform(X)
        self.coef_, self.intercept_ = _feature_ridge(F, y, lam, self.fit_intercept)
        return self

    def predict(self, X):
        """Evaluate the approximate kernel ridge function at ``X``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X)
        return self.nystroem_.transform(X) @ self.coef_ + self.intercept_


class RandomFeatureRidge(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Ridge on random Fourier features: an approximation to Gaussian kernel ridge.

    For ``k(x, t) = exp(-||x - t||^2 / (2 sigma^2))`` draw ``omega_j ~ N(0, I / sigma^2)``
    and ``b_j ~ U[0, 2 pi)``; then ``z(x) = sqrt(2 / D) cos(Omega x + b)``
    has ``E[z(x)^T z(t)] = k(x, t)``.  Ridge on ``z`` costs ``O(n D^2)``.

    Parameters
    ----------
    sigma : float, default=1.0
        Width of the Gaussian kernel being approximated.
    lam : float, default=1.0
    n_components : int, default=500
        Number of random features ``D``.
    fit_intercept : bool, default=False
    random_state : int or None, default=None

    Attributes
    ----------
    features_ : kernlab.RandomFourierFeatures
        The fitted feature map (``features_.transform(X)`` gives z(X)).
    coef_ : ndarray of shape (D,) or (D, m)
    intercept_ : float or ndarray

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (300, 1)); y = np.sin(3 * X[:, 0])
    >>> model = RandomFeatureRidge(sigma=0.7, lam=1e-3, n_components=200, random_state=0)
    >>> float(np.abs(model.fit(X, y).predict(X) - y).max()) < 0.05
    True
    """

    def __init__(self, sigma=1.0, *, lam=1.0, n_components=500, fit_intercept=False,
                 random_state=None):
        self.sigma = sigma
        self.lam = lam
        self.n_components = n_components
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, y):
        """Draw the random features and solve ridge on them; returns self."""
        sigma = check_scalar(self.sigma, "sigma", low=0.0, include_low=False, finite=True)
        lam = check_lam(self.lam)
        D = check_scalar(self.n_components, "n_components", low=1, integer=True)
        X = fit_input(self, X)
        y = check_targets(y, X.shape[0])
        self.features_ = RandomFourierFeatures(sigma=sigma, n_components=D,
                                               random_state=self.random_state).fit(X)
        F = self.features_.transform(X)
        self.coef_, self.intercept_ = _feature_ridge(F, y, lam, self.fit_intercept)
        return self

    def predict(self, X):
        """Evaluate the random-feature ridge function at ``X``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X)
        return self.features_.transform(X) @ self.coef_ + self.intercept_
