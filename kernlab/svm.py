"""Support vector machines: classification and regression duals, two primals, KKT.

The dual problem solved by :class:`SVC` is::

    maximise    sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j t_i t_j k(x_i, x_j)
    subject to  0 <= alpha_i <= C,   sum_i alpha_i t_i = 0

with labels ``t_i`` in {-1, +1}.  :class:`SVR` (epsilon-insensitive
regression) solves::

    maximise    sum_i z_i (alpha_i - alpha*_i) - epsilon sum_i (alpha_i + alpha*_i)
                - 1/2 sum_ij (alpha_i - alpha*_i) (alpha_j - alpha*_j) k(x_i, x_j)
    subject to  0 <= alpha_i, alpha*_i <= C,   sum_i (alpha_i - alpha*_i) = 0

for targets ``z_i``.  Both are one box-constrained QP, solved by
:func:`kernlab.svm_dual.solve_dual`: with CVXPY, where K enters only through the
thin feature matrix ``F`` of the kernel (``K = F F^T``, linear and polynomial
kernels) or through small working sets; the answer is returned only if it
satisfies the KKT conditions with the exact K, otherwise a ValueError says so.  A Gram matrix that is not positive
semi-definite is refused with a ValueError.

Two primal problems give the same classifier:

* :class:`LinearSVCPrimal` -- ``min 1/2 ||w||^2 + C sum xi_i`` subject to
  ``t_i (w^T x_i + b) >= 1 - xi_i``, ``xi_i >= 0``;
* :class:`KernelSVCPrimal` -- ``min sum_i [1 - t_i (c^T K_i + b)]_+ + lam c^T K c``.

Dividing the first objective by C gives ``1/(2C) ||w||^2 + sum xi_i``, so the
hinge form with weight ``lam`` on ``||f||^2 = c^T K c`` is the same problem
when ``C = 1 / (2 lam)``, with ``c_i = t_i alpha_i``.
"""

import math
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ._columns import Gram
from ._estimator import (BinaryClassifierTags, RegressorTags, check_cross_gram, check_kernel,
                         check_labels, check_lam, check_targets, compute_gram,
                         entry_rounding, fit_input, is_precomputed, n_samples,
                         predict_input, take)
from ._validation import check_array, check_scalar
from .gram import gram_factor
from .svm_dual import BoxQP, SolverFailed, kkt_gap, quiet_solve, solve_dual

__all__ = [
    "SVC",
    "SVR",
    "LinearSVCPrimal",
    "KernelSVCPrimal",
    "KKTReport",
    "kkt_report",
]


# ----------------------------------------------------------------------------
# arguments and the solver
# ----------------------------------------------------------------------------

def _check_C(C, *, finite=False):
    # C = inf is the hard margin (where allowed)
    return check_scalar(C, "C", low=0.0, include_low=False, finite=finite)


def _solve(problem, what, **options):
    """Solve a primal problem with Clarabel; a failure becomes a RuntimeError naming it.

    The factored problems have a dense n x r block next to diagonal blocks;
    Clarabel's QDLDL factorisation handles that pattern several times faster
    than its automatic choice (measured: 0.45 s against 1.7 s at n = 4000,
    r = 94), so it is requested explicitly.
    """
    try:
        return quiet_solve(problem, direct_solve_method="qdldl", **options)
    except SolverFailed as exc:
        raise RuntimeError(f"the {what} could not be solved: {exc}") from exc


# ----------------------------------------------------------------------------
# the dual SVMs
# ----------------------------------------------------------------------------

class _BinaryClassifier(BinaryClassifierTags, ClassifierMixin, BaseEstimator):
    """Shared predict and tags of the two-class estimators."""

    def predict(self, X):
        """Return the predicted labels, in the form they were given to ``fit``."""
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class SVC(_BinaryClassifier):
    """Kernel support vector classifier, fitted by solving the dual QP with CVXPY.

    Parameters
    ----------
    kernel : kernlab kernel, callable or "precomputed"
        ``kernel(X, Y)`` returns the Gram matrix.  With ``"precomputed"``,
        ``fit`` takes the n x n Gram matrix and ``decision_function`` the
        (n_test, n_train) cross-Gram matrix.
    C : float, default=1.0
        Upper bound on ``alpha_i`` (> 0).  ``C=np.inf`` is the hard margin;
        fitting then raises a ValueError if the data are not separable in
        the feature space.

    The answer always satisfies the KKT conditions of the dual with the
    exact K to ``kernlab.svm_dual.KKT_TOL`` (1e-5, in units of the margin,
    LIBSVM's stopping measure), or no model is returned: a ValueError says
    what was seen.  A kernel that is not PSD by construction (a user's
    function, a precomputed matrix, the sigmoid) must have
    ``K + 1e-10 max(diag K) I`` positive definite (a float32 Gram matrix: to
    float32's rounding).

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual coefficients, one per training point (exact zeros off the support).
    support_ : ndarray of int
        Indices of the support vectors (``alpha_i > 0``).
    dual_coef_ : ndarray
        ``t_i alpha_i`` on the support vectors.
    intercept_ : float
        ``b``, from the KKT conditions: the average of ``t_j - sum_i alpha_i t_i
        k(x_i, x_j)`` over free support vectors (``0 < alpha_j < C``); the
        midpoint of the interval allowed by the bounds when there are none.
    margin_ : float
        ``1 / ||w||`` with ``||w||^2 = sum_ij alpha_i alpha_j t_i t_j k(x_i, x_j)``.
    classes_ : ndarray of shape (2,)
        The labels as given; ``classes_[1]`` is the positive class (t = +1).
    rank_ : int or None
        Number of columns of the factor ``F`` used in the QP (None when the
        dual was solved by working sets).
    method_ : {"factor", "hard-margin", "working-set"}
        How the dual was solved (see :data:`kernlab.svm_dual.STRATEGIES`):
        one QP with a thin factor F of K (``K = F F^T``: the features of
        linear and polynomial kernels, or K's own factor when it has low rank
        to rounding), the same QP without the bound C (a C above every
        multiplier), or by working sets.
    solver_reason_ : str
        Why that method: what was tried before it and how far it missed.
    solver_trace_ : tuple
        What the solver did, in order: each working-set step
        (:class:`kernlab.svm_dual.Step`: the set, the points new in it, the
        KKT violation after it) and each polish
        (:class:`kernlab.svm_dual.Polish`).

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Linear
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [4.0, 4.0]])
    >>> model = SVC(Linear(), C=np.inf).fit(X, ["no", "no", "yes", "yes"])
    >>> model.predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
    ['no', 'yes']
    >>> round(model.margin_, 6)  # half the gap between (1, 1) and (3, 3)
    1.414214
    """

    def __init__(self, kernel=None, *, C=1.0):
        self.kernel = kernel
        self.C = C

    def fit(self, X, y):
        """Solve the dual and read ``b`` off the KKT conditions; returns self."""
        kernel = check_kernel(self.kernel)
        C = _check_C(self.C)
        rounding = entry_rounding(X) if is_precomputed(kernel) else 0.0
        X = fit_input(self, X, kernel)
        t, self.classes_ = check_labels(y, n_samples(X))
        qp = BoxQP.classification(Gram(kernel, X, rounding=rounding), t, C, kernel=kernel,
                                  X=X)
        solution = solve_dual(qp)
        self.method_, self.solver_reason_ = solution.method, solution.reason
        self.rank_, self.solver_trace_ = solution.rank, solution.trace
        self.alpha_ = solution.alpha
        self.support_ = np.flatnonzero(solution.alpha > 0)
        self.dual_coef_ = (t * solution.alpha)[self.support_]
        self.intercept_ = solution.intercept
        w_sq = float(self.dual_coef_ @ solution.decision[self.support_])
        self.margin_ = 1.0 / math.sqrt(w_sq) if w_sq > 0 else math.inf
        self.t_ = t
        _keep_training_points(self, kernel, X)
        return self

    def decision_function(self, X):
        """Return ``sum_i alpha_i t_i k(x_i, x) + b`` for every row of ``X``."""
        check_is_fitted(self, "alpha_")
        return _kernel_expansion(self, X)

    def kkt_report(self):
        """Worst violation of each KKT condition at the fitted solution (see :func:`kkt_report`)."""
        check_is_fitted(self, "alpha_")
        if is_precomputed(self.kernel):
            raise ValueError("kkt_report needs the training Gram matrix; with a precomputed "
                             "kernel call kernlab.kkt_report(K, y, alpha, b, C) directly")
        K = Gram(self.kernel, self.X_fit_).full()
        return kkt_report(K, self.t_, self.alpha_, self.intercept_, self.C)


def _keep_training_points(model, kernel, X):
    """Keep what prediction needs: the support vectors (none when precomputed)."""
    model.n_train_ = n_samples(X)
    if is_precomputed(kernel):
        model.support_vectors_ = model.X_fit_ = None
    else:
        model.support_vectors_ = take(X, model.support_)
        model.X_fit_ = X


def _kernel_expansion(model, X):
    """``sum_i dual_coef_i k(x_i, x) + b`` over the support vectors, per row of X."""
    X = predict_input(model, X, model.kernel)
    if is_precomputed(model.kernel):
        K = check_cross_gram(X, model.n_train_)
        return K[:, model.support_] @ model.dual_coef_ + model.intercept_
    if len(model.support_) == 0:
        return np.full(n_samples(X), model.intercept_)
    K = compute_gram(model.kernel, X, model.support_vectors_)
    return K @ model.dual_coef_ + model.intercept_


class SVR(RegressorTags, RegressorMixin, BaseEstimator):
    """Epsilon-insensitive support vector regression, fitted by its dual QP with CVXPY.

    The prediction is ``f(x) = sum_i (alpha_i - alpha*_i) k(x_i, x) + b``.
    Residuals smaller than ``epsilon`` cost nothing; larger ones cost
    ``C (|z_i - f(x_i)| - epsilon)``, next to ``1/2 ||f||^2``.  On the
    support vectors ``|z_i - f(x_i)| >= epsilon``; on the free ones
    (``0 < alpha_i < C``) it equals ``epsilon``, which fixes ``b``.

    Parameters
    ----------
    kernel : kernlab kernel, callable or "precomputed"
        As in :class:`SVC`.
    C : float, default=1.0
        Upper bound on ``alpha_i`` and ``alpha*_i`` (> 0, finite).
    epsilon : float, default=0.1
        Half-width of the tube inside which residuals cost nothing (>= 0).

    As with :class:`SVC`, the answer satisfies the KKT conditions with the
    exact K to ``KKT_TOL`` or no model is returned.

    Attributes
    ----------
    alpha_, alpha_star_ : ndarray of shape (n,)
        The two sets of multipliers (at most one of each pair is non-zero
        when ``epsilon > 0``).
    support_ : ndarray of int
        Indices of the support vectors (``alpha_i != alpha*_i``).
    dual_coef_ : ndarray
        ``alpha_i - alpha*_i`` on the support vectors.
    intercept_ : float
    method_, solver_reason_, rank_, solver_trace_
        As in :class:`SVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Linear
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = SVR(Linear(), C=10.0, epsilon=0.5).fit(X, [0.0, 1.0, 2.0, 3.0])
    >>> np.round(model.predict([[1.5], [4.0]]), 6).tolist()  # slope 2/3 fits the tube
    [1.5, 3.166667]
    """

    def __init__(self, kernel=None, *, C=1.0, epsilon=0.1):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon

    def fit(self, X, y):
        """Solve the dual and read ``b`` off the KKT conditions; returns self."""
        kernel = check_kernel(self.kernel)
        C = _check_C(self.C, finite=True)
        epsilon = check_scalar(self.epsilon, "epsilon", low=0.0, finite=True)
        rounding = entry_rounding(X) if is_precomputed(kernel) else 0.0
        X = fit_input(self, X, kernel)
        n = n_samples(X)
        z = check_targets(y, n)
        if z.ndim != 1 and z.shape[1:] != (1,):
            raise ValueError(f"y must be one target per sample (shape ({n},)), got "
                             f"shape {z.shape}")
        z = column_or_1d(z, warn=True)  # a column (n, 1) is taken, with a warning
        qp = BoxQP.regression(Gram(kernel, X, rounding=rounding), z, C, epsilon,
                              kernel=kernel, X=X)
        solution = solve_dual(qp)
        self.method_, self.solver_reason_ = solution.method, solution.reason
        self.rank_, self.solver_trace_ = solution.rank, solution.trace
        self.alpha_, self.alpha_star_ = solution.alpha[:n], solution.alpha[n:]
        coef = self.alpha_ - self.alpha_star_
        self.support_ = np.flatnonzero(coef)
        self.dual_coef_ = coef[self.support_]
        self.intercept_ = solution.intercept
        _keep_training_points(self, kernel, X)
        return self

    def predict(self, X):
        """Return ``sum_i (alpha_i - alpha*_i) k(x_i, x) + b`` for each row of X."""
        check_is_fitted(self, "dual_coef_")
        return _kernel_expansion(self, X)


# ----------------------------------------------------------------------------
# KKT conditions
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class KKTReport:
    """Worst violation of each KKT condition of the soft-margin SVM.

    Attributes
    ----------
    primal_feasibility : float
        ``max_i (1 - xi_i - t_i f(x_i))_+`` and ``max_i (-xi_i)_+``.
    dual_feasibility : float
        ``max_i`` of ``(-alpha_i)_+`` and ``(alpha_i - C)_+``.
    complementary_slackness : float
        ``max_i`` of ``|alpha_i (t_i f(x_i) - 1 + xi_i)|`` and ``|(C - alpha_i) xi_i|``.
    stationarity : float
        ``|sum_i alpha_i t_i|`` (the derivative of the Lagrangian in ``b``;
        the derivative in ``w`` vanishes by construction of ``w``).
    """

    primal_feasibility: float
    dual_feasibility: float
    complementary_slackness: float
    stationarity: float

    @property
    def worst(self):
        """The largest of the four violations."""
        return max(self.primal_feasibility, self.dual_feasibility,
                   self.complementary_slackness, self.stationarity)

    def __str__(self):
        return "\n".join(f"{name:>24}: {getattr(self, name):.3e}" for name in
                         ("primal_feasibility", "dual_feasibility",
                          "complementary_slackness", "stationarity"))


def kkt_report(K, y, alpha, b, C, xi=None):
    """Measure how far ``(alpha, b)`` is from satisfying the SVM's KKT conditions.

    With ``f(x_j) = sum_i alpha_i t_i K_ij + b`` the conditions are: primal
    feasibility ``t_j f(x_j) >= 1 - xi_j``, ``xi_j >= 0``; dual feasibility
    ``0 <= alpha_j <= C``; complementary slackness ``alpha_j (t_j f(x_j) - 1
    + xi_j) = 0`` and ``(C - alpha_j) xi_j = 0``; stationarity
    ``sum_j alpha_j t_j = 0``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Training Gram matrix.
    y : array-like of shape (n,)
        Labels: two distinct values (mapped to -1, +1 in sorted order) or
        already -1/+1.
    alpha : array-like of shape (n,)
    b : float
    C : float
        ``np.inf`` for the hard margin (then ``xi = 0``).
    xi : array-like of shape (n,) or None
        Slack variables; by default the smallest feasible ones,
        ``xi_j = (1 - t_j f(x_j))_+`` (zero for the hard margin).

    Returns
    -------
    KKTReport

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> kkt_report(K, [-1, 1], [1.0, 1.0], 0.0, C=10.0).worst
    0.0
    """
    K = check_array(K, "K")
    n = K.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K must be square, got shape {K.shape}")
    t, _ = check_labels(y, n)
    alpha = check_array(alpha, "alpha", ensure_2d=False)
    if alpha.shape != (n,):
        raise ValueError(f"alpha must have shape ({n},), got {alpha.shape}")
    b = check_scalar(b, "b", finite=True)
    C = check_scalar(C, "C", low=0.0, include_low=False)
    margins = t * (K @ (alpha * t) + b)
    if xi is None:
        xi = np.maximum(0.0, 1.0 - margins) if np.isfinite(C) else np.zeros(n)
    else:
        xi = check_array(xi, "xi", ensure_2d=False)
        if xi.shape != (n,):
            raise ValueError(f"xi must have shape ({n},), got {xi.shape}")
    primal = max(np.max(np.maximum(0.0, 1.0 - xi - margins)), np.max(np.maximum(0.0, -xi)))
    upper = np.maximum(0.0, alpha - C) if np.isfinite(C) else np.zeros(n)
    dual = max(np.max(np.maximum(0.0, -alpha)), np.max(upper))
    slack_term = np.abs((C - alpha) * xi) if np.isfinite(C) else np.zeros(n)
    comp = max(np.max(np.abs(alpha * (margins - 1.0 + xi))), np.max(slack_term))
    stat = abs(float(alpha @ t))
    # (+ 0.0 turns a -0.0 from np.maximum(0.0, -0.0) into 0.0 for printing)
    return KKTReport(*(float(v) + 0.0 for v in (primal, dual, comp, stat)))


# ----------------------------------------------------------------------------
# primal problems
# ----------------------------------------------------------------------------

_TIGHT = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, tol_ktratio=1e-9)


def _snap(alpha, C, rel=1e-4):
    """Set multipliers within ``rel`` (of their scale) of 0 or C onto the bound.

    An interior-point solver leaves every multiplier a little inside its
    bounds.  Moving a free multiplier onto a bound cannot hide a KKT
    violation (a free point has margin exactly 1, allowed at either bound),
    so a coarse threshold only removes the solver's rounding.
    """
    alpha = np.clip(alpha, 0.0, C)
    scale = max(float(alpha.max()), np.finfo(float).tiny)
    alpha[alpha <= rel * (min(scale, C) if np.isfinite(C) else scale)] = 0.0
    if np.isfinite(C):
        alpha[alpha >= C * (1 - rel)] = C
    return alpha


def _solve_linear_primal(X, t, C):
    """``(w, b, alpha)`` of the linear SVM primal, or None if Clarabel gives no optimum.

    For a finite C the objective is divided by C (``||w||^2 / (2C) + sum xi``)
    so that the solver's tolerances are relative to the hinge term.
    """
    n, d = X.shape
    w, b = cp.Variable(d), cp.Variable()
    margins = cp.multiply(t, X @ w + b)
    if np.isfinite(C):
        xi = cp.Variable(n)
        margin_constraint = margins >= 1 - xi
        problem = cp.Problem(cp.Minimize(0.5 / C * cp.sum_squares(w) + cp.sum(xi)),
                             [margin_constraint, xi >= 0])
        unscale = C
    else:
        margin_constraint = margins >= 1
        problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [margin_constraint])
        unscale = 1.0
    # Tight tolerances: the answer is accepted only if it passes a KKT check.
    status = _solve(problem, "linear SVM primal problem", **_TIGHT)
    if status != cp.OPTIMAL or w.value is None:
        return None
    alpha = unscale * np.asarray(margin_constraint.dual_value, dtype=np.float64)
    return np.asarray(w.value, dtype=np.float64), float(b.value), alpha


class LinearSVCPrimal(_BinaryClassifier):
    """Linear soft-margin SVM solved in the primal variables ``(w, b, xi)``.

    ``min 1/2 ||w||^2 + C sum_i xi_i`` subject to ``t_i (w^T x_i + b) >= 1 - xi_i``
    and ``xi_i >= 0``; ``C=np.inf`` drops the slacks (hard margin).

    Parameters
    ----------
    C : float, default=1.0

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
        ``w``.
    intercept_ : float
    slack_ : ndarray of shape (n,)
        ``xi`` (zeros for the hard margin).
    alpha_ : ndarray of shape (n,)
        Lagrange multipliers of the margin constraints, as reported by the
        solver: the dual variables of :class:`SVC` with a linear kernel.
    classes_ : ndarray of shape (2,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> model = LinearSVCPrimal(C=np.inf).fit(X, [0, 0, 1, 1])
    >>> np.round([model.coef_[0], model.intercept_], 6).tolist()
    [1.0, -2.0]
    """

    def __init__(self, *, C=1.0):
        self.C = C

    def fit(self, X, y):
        """Solve the primal QP; returns self."""
        C = _check_C(self.C)
        X = fit_input(self, X)
        n, d = X.shape
        t, self.classes_ = check_labels(y, n)
        attempts = [C, np.inf] if np.isfinite(C) else [np.inf]
        gaps = []
        for bound in attempts:
            solution = _solve_linear_primal(X, t, bound)
            if solution is None:
                continue
            w, b, alpha = solution
            # The hard-margin solution is the soft one when its multipliers stay below C.
            if np.isfinite(C) and alpha.max() > C * (1 + 1e-6):
                continue
            alpha = _snap(alpha, C)
            gap = kkt_gap(X @ w, t, alpha, C)
            tied = np.abs(X.T @ (alpha * t) - w).max() <= 1e-5 * max(np.abs(w).max(), 1.0)
            if gap <= 1e-5 and tied:
                break
            gaps.append(gap)
        else:
            if not np.isfinite(C):
                raise ValueError("the hard-margin problem (C=inf) is infeasible: the classes are "
                                 "not linearly separable; use a finite C")
            raise ValueError(
                f"the linear SVM primal with C={C!r} could not be solved to working precision "
                f"(KKT violation {min(gaps, default=np.inf):.3g}); so no model is returned: try "
                "a smaller C or rescale the data")
        self.coef_ = np.asarray(w, dtype=np.float64)
        self.intercept_ = float(b)
        self.slack_ = np.maximum(0.0, 1.0 - t * (X @ self.coef_ + self.intercept_))
        if not np.isfinite(C):
            self.slack_[:] = 0.0
        self.alpha_ = alpha
        return self

    def decision_function(self, X):
        """Return ``X @ w + b``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X)
        return X @ self.coef_ + self.intercept_


class KernelSVCPrimal(_BinaryClassifier):
    """Kernel SVM in the primal, with the hinge loss and an RKHS-norm penalty.

    ``min_{c, b} sum_i [1 - t_i (c^T K_i + b)]_+ + lam c^T K c``; by the
    representer theorem ``f(x) = sum_i c_i k(x, x_i) + b``.  It gives the same
    classifier as :class:`SVC` with ``C = 1 / (2 lam)``, and then
    ``c_i = t_i alpha_i`` (up to the null space of ``K``).  As in
    :class:`SVC`, ``K`` enters CVXPY only through a factor ``F`` with
    ``K = F F^T``: ``K c = F (F^T c)`` and ``c^T K c = ||F^T c||^2``.

    Parameters
    ----------
    kernel : kernlab kernel or callable
    lam : float, default=1.0
        Weight of ``||f||^2``, > 0.
    tol : float, default=1e-10
        Relative tolerance of the pivoted Cholesky factor (there is no exact
        re-solve here, so it is tighter than in :class:`SVC`).

    Attributes
    ----------
    coef_ : ndarray of shape (n,)
        ``c``.
    intercept_ : float
    classes_ : ndarray of shape (2,)

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import Gaussian
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> model = KernelSVCPrimal(Gaussian(sigma=1.0), lam=0.01).fit(X, [0, 0, 1, 1])
    >>> model.predict([[0.2], [3.8]]).tolist()
    [0, 1]
    """

    def __init__(self, kernel=None, *, lam=1.0, tol=1e-10):
        self.kernel = kernel
        self.lam = lam
        self.tol = tol

    def fit(self, X, y):
        """Solve the hinge-loss primal; returns self."""
        kernel = check_kernel(self.kernel)
        if is_precomputed(kernel):
            raise ValueError("KernelSVCPrimal needs a kernel function, not 'precomputed'")
        lam = check_lam(self.lam)
        if lam == 0:
            raise ValueError("lam must be > 0 for the kernel SVM primal, got 0")
        X = fit_input(self, X, kernel)
        n = n_samples(X)
        t, self.classes_ = check_labels(y, n)
        _, F = gram_factor(kernel, X, tol=self.tol)
        c, b = cp.Variable(n), cp.Variable()
        u = F.T @ c
        hinge = cp.sum(cp.pos(1 - cp.multiply(t, F @ u + b)))
        problem = cp.Problem(cp.Minimize(hinge + lam * cp.sum_squares(u)))
        status = _solve(problem, "kernel SVM primal problem")
        if status != cp.OPTIMAL:  # an inaccurate answer is refused, not returned
            raise RuntimeError(f"Clarabel did not solve the kernel SVM primal (status {status!r})")
        self.coef_ = np.asarray(c.value, dtype=np.float64)
        self.intercept_ = float(b.value)
        self.X_fit_ = X
        return self

    def decision_function(self, X):
        """Return ``sum_i c_i k(x, x_i) + b`` for every row of ``X``."""
        check_is_fitted(self, "coef_")
        X = predict_input(self, X, self.kernel)
        return compute_gram(self.kernel, X, self.X_fit_) @ self.coef_ + self.intercept_
