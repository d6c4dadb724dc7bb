"""Gaussian process regression: kernel ridge regression with error bars and evidence.

The model is ``y_i = f(x_i) + e_i`` with a prior ``f ~ GP(0, k)`` and noise
``e_i ~ N(0, noise_var)``.  With ``K_y = K + noise_var I = L L^T`` and
``alpha = K_y^-1 y``,

* the posterior mean is ``k(x, X) alpha``: kernel ridge regression with
  ``lam = noise_var`` (:class:`kernlab.KernelRidge`);
* the posterior covariance is ``k(x, x') - k(x, X) K_y^-1 k(X, x')``;
* the log marginal likelihood (the *evidence*) is
  ``-y^T alpha / 2 - sum(log diag L) - n log(2 pi) / 2``, and its derivative
  in a hyperparameter ``t`` is ``tr((alpha alpha^T - K_y^-1) dK_y/dt) / 2``.

Hyperparameters are handled on a log scale, as in scikit-learn: ``theta`` is
the vector of natural logarithms of the kernel's positive parameters and of
``noise_var``.  The gradient rules cover kernels built from
:class:`~kernlab.Gaussian`, :class:`~kernlab.Constant` and
:class:`~kernlab.Linear` with ``+``, ``*`` and positive factors (such as
``2.0 * Gaussian(sigma=1.0) + 0.5``); any other kernel can be fitted with
fixed hyperparameters.
"""

import copy

import numpy as np
from scipy import linalg, optimize
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import (MultiOutputRegressorTags, check_data, check_kernel, check_targets,
                         compute_gram, fit_input, predict_input)
from ._linalg import add_to_diagonal, blas_guard, one_blas_thread
from ._validation import as_generator, check_scalar
from .kernels import Constant, Gaussian, Kernel, Linear, Product, Scaled, Sum

__all__ = ["GaussianProcessRegressor", "kernel_hyperparameters"]

_LOG_2PI = np.log(2.0 * np.pi)
# Below this order a factorisation runs on one BLAS thread: on two busy cores,
# waking a second thread costs more than the work (an eigendecomposition of
# order 70 took 30 times longer threaded on a loaded machine).
_ONE_THREAD_BELOW = 2048


def _blas_threads(n):
    """One BLAS thread for small factorisations, and LAPACK's guard for huge ones."""
    return one_blas_thread() if n < _ONE_THREAD_BELOW else blas_guard(n)


# ----------------------------------------------------------------------------
# hyperparameters of a kernel and the derivatives of its Gram matrix
# ----------------------------------------------------------------------------

def kernel_hyperparameters(kernel):
    """The positive parameters of ``kernel`` that the gradient rules know, as ``{name: value}``.

    Names are those of ``kernel.get_params()`` (``"k2__k__sigma"`` is the
    width of the Gaussian in ``Constant(1.0) + 2.0 * Gaussian(sigma=1.0)``),
    in the order of the gradient :meth:`GaussianProcessRegressor.log_marginal_likelihood`
    returns.  A kernel outside the rules (see the module) raises a ValueError.

    Examples
    --------
    >>> from kernlab import Gaussian
    >>> kernel_hyperparameters(0.5 + 2.0 * Gaussian(sigma=3.0))
    {'k1__c': 0.5, 'k2__c': 2.0, 'k2__k__sigma': 3.0}
    """
    names = {}
    _walk(kernel, "", names)
    return names


def _walk(kernel, prefix, names):
    if isinstance(kernel, Gaussian):
        names[prefix + "sigma"] = kernel.sigma
    elif isinstance(kernel, (Constant, Scaled)):
        names[prefix + "c"] = kernel.c
        if isinstance(kernel, Scaled):
            _walk(kernel.k, prefix + "k__", names)
    elif isinstance(kernel, (Sum, Product)):
        _walk(kernel.k1, prefix + "k1__", names)
        _walk(kernel.k2, prefix + "k2__", names)
    elif not isinstance(kernel, Linear):
        raise ValueError(
            f"the derivatives of the Gram matrix are known for kernels built from Gaussian, "
            f"Constant and Linear with +, * and positive factors; got {kernel!r}. Fit with "
            "fixed hyperparameters (optimizer=None) or build the kernel from those parts")


def _gram_and_derivatives(kernel, X):
    """``K = kernel(X)`` and ``[dK / d log t for each hyperparameter t]`` (same order)."""
    if isinstance(kernel, Gaussian):
        K = kernel(X)
        sq = cdist(X, X, "sqeuclidean")
        return K, [K * sq / kernel.sigma ** 2]
    if isinstance(kernel, Constant):
        K = kernel(X)
        return K, [K.copy()]
    if isinstance(kernel, Scaled):
        inner, parts = _gram_and_derivatives(kernel.k, X)
        K = kernel.c * inner
        return K, [K.copy()] + [kernel.c * D for D in parts]
    if isinstance(kernel, Sum):
        K1, d1 = _gram_and_derivatives(kernel.k1, X)
        K2, d2 = _gram_and_derivatives(kernel.k2, X)
        return K1 + K2, d1 + d2
    if isinstance(kernel, Product):
        K1, d1 = _gram_and_derivatives(kernel.k1, X)
        K2, d2 = _gram_and_derivatives(kernel.k2, X)
        return K1 * K2, [D * K2 for D in d1] + [K1 * D for D in d2]
    if isinstance(kernel, Linear):
        return kernel(X), []
    kernel_hyperparameters(kernel)  # raises the error that names the kernel
    raise AssertionError("unreachable")


def _with_hyperparameters(kernel, values):
    """A copy of ``kernel`` with its hyperparameters (in the order of the rules) set to ``values``."""
    names = list(kernel_hyperparameters(kernel))
    return copy.deepcopy(kernel).set_params(**dict(zip(names, map(float, values))))


def _factor(K, noise_var, y):
    """``(L, alpha)`` with ``L L^T = K + noise_var I`` and ``alpha = (K + noise_var I)^-1 y``."""
    A = add_to_diagonal(np.array(K, dtype=np.float64, order="F"), noise_var)
    with _blas_threads(A.shape[0]):
        try:
            L = linalg.cholesky(A, lower=True, overwrite_a=True, check_finite=False)
        except linalg.LinAlgError as exc:
            raise ValueError(
                "K + noise_var I is not positive definite, so the Gaussian process has no "
                "density at the data; increase noise_var (a noise-free process needs "
                "distinct inputs and a strictly positive definite kernel)") from exc
    alpha = linalg.cho_solve((L, True), y, check_finite=False)
    return L, alpha


def _evidence(L, alpha, y):
    """Log marginal likelihood from the factor; summed over the columns of y."""
    m = 1 if y.ndim == 1 else y.shape[1]
    n = L.shape[0]
    fit = -0.5 * float(np.sum(y * alpha))
    return fit - m * float(np.log(np.diag(L)).sum()) - 0.5 * m * n * _LOG_2PI


# ----------------------------------------------------------------------------
# the estimator
# ----------------------------------------------------------------------------

class GaussianProcessRegressor(MultiOutputRegressorTags, RegressorMixin, BaseEstimator):
    """Gaussian process regression with a zero prior mean and Gaussian noise.

    Parameters
    ----------
    kernel : kernlab kernel or callable
        The prior covariance ``k(x, x') = Cov(f(x), f(x'))``.  Its scale is
        part of the prior: ``2.0 * Gaussian(sigma=1.0)`` has variance 2 at
        every point.  A constant term (``1.0 + Gaussian(...)``) gives the
        function an unknown offset with a Gaussian prior.
    noise_var : float, default=1.0
        Variance ``tau^2 >= 0`` of the observation noise.  The posterior
        mean equals ``KernelRidge(kernel, lam=noise_var)``.
    optimizer : {None, "lbfgs"}, default=None
        None keeps the hyperparameters as given; ``"lbfgs"`` maximises the
        log marginal likelihood over ``theta`` (logs of the kernel's
        parameters and of ``noise_var``) with L-BFGS-B and the analytic
        gradient, starting from the given values.
    n_restarts : int, default=0
        Further starts of the optimiser, drawn log-uniformly within ``bounds``.
    bounds : (float, float), default=(1e-5, 1e5)
        Range of every hyperparameter during optimisation.
    random_state : int, numpy Generator or None, default=None
        Seed for the restarts.

    Attributes
    ----------
    kernel_ : kernel
        The kernel used for prediction (optimised when ``optimizer`` is set).
    noise_var_ : float
    hyperparameter_names_ : list of str
        Names of the entries of ``theta`` (estimator parameters, such as
        ``"kernel__k__sigma"`` and ``"noise_var"``); empty for a kernel
        outside the gradient rules.
    theta_ : ndarray
        Natural logarithms of the fitted hyperparameters.
    alpha_ : ndarray of shape (n,) or (n, m)
        ``(K + noise_var I)^-1 y``, the dual coefficients of the mean.
    L_ : ndarray of shape (n, n)
        Lower Cholesky factor of ``K + noise_var I``.
    log_marginal_likelihood_value_ : float
    X_fit_, y_fit_ : the training data

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Gaussian, KernelRidge
    >>> X = np.linspace(0, 5, 12)[:, None]; y = np.sin(X[:, 0])
    >>> gp = GaussianProcessRegressor(Gaussian(sigma=1.0), noise_var=0.01).fit(X, y)
    >>> mean, std = gp.predict([[2.5], [9.0]], return_std=True)
    >>> krr = KernelRidge(Gaussian(sigma=1.0), lam=0.01).fit(X, y)
    >>> bool(np.allclose(mean, krr.predict([[2.5], [9.0]])))
    True
    >>> np.round(std, 3)        # small between the data, the prior's 1 far away
    array([0.072, 1.   ])
    """

    def __init__(self, kernel=None, *, noise_var=1.0, optimizer=None, n_restarts=0,
                 bounds=(1e-5, 1e5), random_state=None):
        self.kernel = kernel
        self.noise_var = noise_var
        self.optimizer = optimizer
        self.n_restarts = n_restarts
        self.bounds = bounds
        self.random_state = random_state

    # ----- fitting -----------------------------------------------------------
    def fit(self, X, y):
        """Factor ``K + noise_var I`` (after optimising the hyperparameters if asked); returns self."""
        kernel = check_kernel(self.kernel, allow_precomputed=False)
        noise_var = check_scalar(self.noise_var, "noise_var", low=0.0, finite=True)
        if self.optimizer not in (None, "lbfgs"):
            raise ValueError(f"optimizer must be None or 'lbfgs', got {self.optimizer!r}")
        X = fit_input(self, X, kernel)
        y = check_targets(y, X.shape[0])
        self.X_fit_, self.y_fit_ = X, y
        known = isinstance(kernel, Kernel) and _knows_derivatives(kernel)
        self.hyperparameter_names_ = (
            [f"kernel__{name}" for name in kernel_hyperparameters(kernel)] + ["noise_var"]
            if known else [])
        if self.optimizer is not None:
            if not known:
                kernel_hyperparameters(kernel)  # raises, naming the kernel
                raise ValueError("optimizer needs a kernlab kernel, not a plain function")
            kernel, noise_var = self._optimise(kernel, noise_var)
        self.kernel_, self.noise_var_ = kernel, noise_var
        K = compute_gram(kernel, X)
        self.L_, self.alpha_ = _factor(K, noise_var, y)
        self.log_marginal_likelihood_value_ = _evidence(self.L_, self.alpha_, y)
        if known:
            values = list(kernel_hyperparameters(kernel).values()) + [noise_var]
            with np.errstate(divide="ignore"):
                self.theta_ = np.log(np.array(values, dtype=float))
        else:
            self.theta_ = np.array([])
        return self

    # ----- the evidence as a function of theta --------------------------------
    def log_marginal_likelihood(self, theta=None, *, eval_gradient=False):
        """Log marginal likelihood of the training targets, and its gradient in ``theta``.

        Parameters
        ----------
        theta : array-like or None
            Natural logarithms of the hyperparameters named by
            ``hyperparameter_names_``; None uses the fitted ones.
        eval_gradient : bool, default=False
            Also return the gradient with respect to ``theta``.

        Returns
        -------
        float, or (float, ndarray) with ``eval_gradient``.
        """
        check_is_fitted(self, "alpha_")
        if theta is None and not eval_gradient:
            return self.log_marginal_likelihood_value_
        if not self.hyperparameter_names_:
            raise ValueError("the gradient and theta need a kernel built from Gaussian, Constant "
                             f"and Linear kernels; this model's kernel is {self.kernel_!r}")
        if theta is None:
            theta = self.theta_
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (len(self.hyperparameter_names_),):
            raise ValueError(f"theta must have one entry per hyperparameter "
                             f"{self.hyperparameter_names_}, got shape {theta.shape}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must be finite (it holds logarithms of positive numbers)")
        return _evidence_and_gradient(self.kernel_, self.X_fit_, self.y_fit_, theta, eval_gradient)

    def _optimise(self, kernel, noise_var):
        names = kernel_hyperparameters(kernel)
        values = np.array(list(names.values()) + [noise_var], dtype=float)
        if np.any(values <= 0):
            zero = (list(names) + ["noise_var"])[int(np.argmin(values))]
            raise ValueError(f"optimizer works with the logarithms of the hyperparameters, so "
                             f"each must start > 0; {zero} is 0")
        low, high = self.bounds
        low = check_scalar(low, "bounds[0]", low=0.0, include_low=False, finite=True)
        high = check_scalar(high, "bounds[1]", low=low, include_low=False, finite=True)
        restarts = check_scalar(self.n_restarts, "n_restarts", low=0, integer=True)
        log_bounds = [(np.log(low), np.log(high))] * len(values)

        def negative(theta):
            value, grad = _evidence_and_gradient(kernel, self.X_fit_, self.y_fit_, theta, True)
            return -value, -grad

        starts = [np.clip(np.log(values), *log_bounds[0])]
        rng = as_generator(self.random_state)
        starts += [rng.uniform(np.log(low), np.log(high), len(values)) for _ in range(restarts)]
        best = None
        for start in starts:
            try:
                result = optimize.minimize(negative, start, jac=True, method="L-BFGS-B",
                                           bounds=log_bounds)
            except ValueError:
                continue  # a start where K + noise_var I is singular: try the next one
            if best is None or result.fun < best.fun:
                best = result
        if best is None:
            raise ValueError("the log marginal likelihood could not be evaluated at any start; "
                             "K + noise_var I was singular everywhere tried")
        self.optimizer_result_ = best
        theta = best.x
        return _with_hyperparameters(kernel, np.exp(theta[:-1])), float(np.exp(theta[-1]))

    # ----- prediction -------------------------------------------------------
    def predict(self, X, return_std=False, return_cov=False):
        """Posterior mean at ``X``; with ``return_std`` or ``return_cov`` also its spread.

        The standard deviation and covariance are those of ``f(x)``, without
        the observation noise (add ``noise_var_`` to the variance for a new
        observation ``y``).  For y of shape (n, m) they are repeated for each
        of the m outputs, which share one kernel.
        """
        if return_std and return_cov:
            raise ValueError("return_std and return_cov cannot both be True; the standard "
                             "deviations are the square roots of the covariance's diagonal")
        check_is_fitted(self, "alpha_")
        X = predict_input(self, X, self.kernel_)
        K_star = compute_gram(self.kernel_, X, self.X_fit_)
        mean = K_star @ self.alpha_
        if not (return_std or return_cov):
            return mean
        V = linalg.solve_triangular(self.L_, K_star.T, lower=True, check_finite=False)
        if return_cov:
            cov = compute_gram(self.kernel_, X) - V.T @ V
            return mean, self._per_output(cov)
        prior_var = (self.kernel_.diag(X) if isinstance(self.kernel_, Kernel)
                     else np.diag(compute_gram(self.kernel_, X)))
        var = prior_var - np.einsum("ij,ij->j", V, V)
        return mean, self._per_output(np.sqrt(np.maximum(var, 0.0)))

    def _per_output(self, spread):
        if self.y_fit_.ndim == 1:
            return spread
        return np.repeat(spread[..., None], self.y_fit_.shape[1], axis=-1)

    def sample_y(self, X, n_samples=1, *, random_state=None):
        """Draw functions from the posterior at the points ``X``.

        Returns an array of shape (n_X, n_samples), or (n_X, m, n_samples)
        for m outputs: column ``s`` holds the values of one draw of
        ``f`` (no observation noise) at the rows of ``X``.
        """
        n_samples = check_scalar(n_samples, "n_samples", low=1, integer=True)
        mean, cov = self.predict(X, return_cov=True)
        cov = cov if cov.ndim == 2 else cov[..., 0]
        return _gaussian_draws(mean, cov, n_samples, as_generator(random_state))

    def sample_prior(self, X, n_samples=1, *, random_state=None):
        """Draw functions from the prior ``GP(0, kernel)`` at ``X`` (no fit needed).

        Returns an array of shape (n_X, n_samples).
        """
        kernel = check_kernel(self.kernel, allow_precomputed=False)
        n_samples = check_scalar(n_samples, "n_samples", low=1, integer=True)
        X = (predict_input(self, X, kernel) if hasattr(self, "n_features_in_")
             else check_data(X, kernel))
        cov = compute_gram(kernel, X)
        mean = np.zeros(cov.shape[0])
        return _gaussian_draws(mean, cov, n_samples, as_generator(random_state))


def _knows_derivatives(kernel):
    try:
        kernel_hyperparameters(kernel)
    except ValueError:
        return False
    return True


def _evidence_and_gradient(kernel, X, y, theta, eval_gradient):
    """Log marginal likelihood at ``theta`` (and its gradient) for training data X, y."""
    values = np.exp(theta)
    kernel = _with_hyperparameters(kernel, values[:-1])
    noise_var = float(values[-1])
    K, derivatives = _gram_and_derivatives(kernel, X)
    L, alpha = _factor(K, noise_var, y)
    value = _evidence(L, alpha, y)
    if not eval_gradient:
        return value
    n = L.shape[0]
    m = 1 if y.ndim == 1 else y.shape[1]
    a = alpha if alpha.ndim == 2 else alpha[:, None]
    # d/dt log p = tr((alpha alpha^T - m K_y^-1) dK_y/dt) / 2, with K_y^-1 from the factor
    with _blas_threads(n):
        W = a @ a.T - m * linalg.cho_solve((L, True), np.eye(n), check_finite=False)
    grad = [0.5 * float(np.sum(W * D)) for D in derivatives]
    grad.append(0.5 * noise_var * float(np.trace(W)))   # dK_y / d log tau^2 = tau^2 I
    return value, np.array(grad)


def _gaussian_draws(mean, cov, n_samples, rng):
    """Columns of draws from N(mean, cov), through the eigendecomposition of cov.

    A posterior covariance is often singular to rounding; the eigenvalues
    below zero (rounding only, the matrix being PSD) are set to zero rather
    than adding jitter, so the draws have exactly the covariance asked for.
    """
    with _blas_threads(cov.shape[0]):
        w, V = np.linalg.eigh((cov + cov.T) / 2.0)
    root = V * np.sqrt(np.maximum(w, 0.0))
    Z = rng.standard_normal((cov.shape[0], n_samples))
    draws = root @ Z
    if mean.ndim == 1:
        return mean[:, None] + draws
    return mean[:, :, None] + draws[:, None, :]
