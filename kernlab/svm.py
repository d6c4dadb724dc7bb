"""Support vector machines: the soft-margin dual, two primals and a KKT check.

The dual problem solved by :class:`SVC` is::

    maximise    sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j t_i t_j k(x_i, x_j)
    subject to  0 <= alpha_i <= C,   sum_i alpha_i t_i = 0

with labels ``t_i`` in {-1, +1}.  CVXPY never sees the dense n x n matrix:
the Gram matrix is factored as ``K = F F^T`` (the explicit feature map of the
linear and polynomial kernels, otherwise a pivoted Cholesky to a relative
tolerance, which evaluates only the kernel columns it pivots on) and the
quadratic term is written ``1/2 ||F^T (t * alpha)||^2``.  The active sets of
the solver's answer are then re-solved exactly with the true ``K`` and
checked against the KKT conditions.  When K has full numerical rank (more
than 200 columns at the factor tolerance) no thin factor exists, and the dual
is solved instead by working sets (:mod:`kernlab._working_set`): a sequence
of small QPs, all one compiled, parameterised CVXPY problem.  Either way the
answer is returned only if it satisfies the KKT conditions with the exact K;
otherwise a ValueError says so.  A Gram matrix that is not positive
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
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import (BinaryClassifierTags, GramColumns, check_cross_gram, check_kernel,
                         check_labels, check_lam, compute_gram, fit_input, is_precomputed,
                         n_samples, predict_input, take)
from ._validation import check_array, check_scalar
from ._working_set import WorkingSetDual
from .gram import factor_gram, gram_factor, pivoted_cholesky_columns

__all__ = [
    "SVC",
    "LinearSVCPrimal",
    "KernelSVCPrimal",
    "KKTReport",
    "kkt_report",
]


# ----------------------------------------------------------------------------
# labels
# ----------------------------------------------------------------------------

def _check_C(C):
    C = check_scalar(C, "C", low=0.0, include_low=False)
    return C  # may be np.inf: hard margin


def _solve(problem, what, **options):
    """Solve with Clarabel and translate failures into clear errors.

    The factored problems have a dense n x r block next to diagonal blocks;
    Clarabel's QDLDL factorisation handles that pattern several times faster
    than its automatic choice (measured: 0.45 s against 1.7 s at n = 4000,
    r = 94), so it is requested explicitly.
    """
    try:
        problem.solve(solver=cp.CLARABEL, direct_solve_method="qdldl", **options)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"the {what} could not be solved by Clarabel: {exc}") from exc
    return problem.status


# ----------------------------------------------------------------------------
# the dual SVM
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
    tol : float, default=1e-4
        Relative tolerance of the pivoted Cholesky factor of ``K`` used in
        the QP.  The final coefficients do not depend on it: the active sets
        found by the solver are re-solved exactly with the full ``K`` and
        checked against the KKT conditions (if the check fails, the QP is
        solved again with a factor 10^4 times finer).  A kernel that is not
        PSD by construction (a user's function, a precomputed matrix, the
        sigmoid) must moreover have ``K + 1e-10 max(diag K) I`` positive
        definite, so a negative eigenvalue far below ``tol`` is still refused.

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
    method_ : {"factor", "working-set"}
        How the dual was solved: one QP with the factor of K (low numerical
        rank), or by working sets (full rank).

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

    def __init__(self, kernel=None, C=1.0, *, tol=1e-4):
        self.kernel = kernel
        self.C = C
        self.tol = tol

    def fit(self, X, y):
        """Solve the dual problem and recover ``b`` from the KKT conditions; returns self."""
        kernel = check_kernel(self.kernel)
        C = _check_C(self.C)
        X = fit_input(self, X, kernel)
        n = n_samples(X)
        t, self.classes_ = check_labels(y, n)
        tol = check_scalar(self.tol, "tol", low=0.0, high=1.0, include_low=False,
                           include_high=False)
        gram = GramColumns(kernel, X)
        F, exact = factor_gram(gram, kernel, X, tol, max_rank=_FACTOR_MAX_RANK)
        if F is None:  # full numerical rank: no thin factor, solve by working sets
            alpha, b, g = _fit_dual_by_working_sets(gram, t, C)
            self.method_, self.rank_ = "working-set", None
        else:
            alpha, b, g, F = _fit_dual(gram, F, exact, t, C, tol)
            self.method_, self.rank_ = "factor", F.shape[1]
        support = np.flatnonzero(alpha > 0)
        coef = t * alpha
        K_sv = gram.cols(support)
        if not np.isfinite(C):
            worst = float(np.min(t * (g + b)))
            if not worst >= 1 - 1e-5:
                raise ValueError(
                    "the hard-margin problem (C=inf) has no solution to working precision: the "
                    f"best classifier found has min_i t_i f(x_i) = {worst:.3g} < 1, so the classes "
                    "are not separable in the kernel's feature space (its Gram matrix is "
                    "numerically singular); use a finite C")
        self.intercept_ = b
        self.alpha_ = alpha
        self.support_ = support
        self.dual_coef_ = coef[support]
        w_sq = float(coef[support] @ K_sv[support] @ coef[support])
        self.margin_ = 1.0 / math.sqrt(w_sq) if w_sq > 0 else math.inf
        self.t_ = t
        if is_precomputed(kernel):
            self.support_vectors_ = None
            self.X_fit_ = None
        else:
            self.support_vectors_ = take(X, support)
            self.X_fit_ = X
        self.n_train_ = n
        return self

    def decision_function(self, X):
        """Return ``sum_i alpha_i t_i k(x_i, x) + b`` for every row of ``X``."""
        check_is_fitted(self, "alpha_")
        X = predict_input(self, X, self.kernel)
        if is_precomputed(self.kernel):
            K = check_cross_gram(X, self.n_train_)
            return K[:, self.support_] @ self.dual_coef_ + self.intercept_
        if len(self.support_) == 0:
            return np.full(n_samples(X), self.intercept_)
        return compute_gram(self.kernel, X, self.support_vectors_) @ self.dual_coef_ + self.intercept_

    def kkt_report(self):
        """Worst violation of each KKT condition at the fitted solution (see :func:`kkt_report`)."""
        check_is_fitted(self, "alpha_")
        if is_precomputed(self.kernel):
            raise ValueError("kkt_report needs the training Gram matrix; with a precomputed "
                             "kernel call kernlab.kkt_report(K, y, alpha, b, C) directly")
        K = GramColumns(self.kernel, self.X_fit_).full()
        return kkt_report(K, self.t_, self.alpha_, self.intercept_, self.C)




# A fitted SVC must satisfy the KKT conditions with the exact K to this
# accuracy, measured as LIBSVM measures it (in units of the margin, 1).
_KKT_TOL = 1e-5
# Above this numerical rank of K (at the factor tolerance) the dual is solved by
# working sets of this size instead of as one QP with a factor of K.
_FACTOR_MAX_RANK = 200
_WORKING_SET = 32


def _kkt_gap(g, t, alpha, C):
    """Largest KKT violation of a dual point, in units of the margin; independent of ``b``.

    With ``g_j = sum_i alpha_i t_i k(x_i, x_j)`` and ``G_j = t_j - g_j``, the
    point is optimal iff some ``b`` has ``G_j <= b`` for every j that may
    move up (``alpha_j < C`` with ``t_j = +1``, ``alpha_j > 0`` with ``t_j = -1``)
    and ``G_j >= b`` for every j that may move down, i.e. iff
    ``max_up G - min_down G <= 0``; this returns that difference (0 when
    negative), the stopping measure of LIBSVM, together with the
    equality-constraint residual ``|sum_i alpha_i t_i|`` divided by the scale
    of alpha (C, or max(alpha) for the hard margin).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.array([-1.0, 1.0]); alpha = np.array([0.5, 0.5])
    >>> g = np.array([[2.0, 0.0], [0.0, 2.0]]) @ (alpha * t)  # K = 2 I, margin exactly 1
    >>> _kkt_gap(g, t, alpha, C=10.0)
    0.0
    """
    finite = np.isfinite(C)
    below_C = alpha < C if finite else np.ones(len(alpha), dtype=bool)
    above_0 = alpha > 0
    up = (below_C & (t > 0)) | (above_0 & (t < 0))
    down = (below_C & (t < 0)) | (above_0 & (t > 0))
    G = t - g
    gap = (G[up].max() - G[down].min()) if up.any() and down.any() else 0.0
    scale = C if finite else max(float(alpha.max()), np.finfo(float).tiny)
    stationarity = abs(float(alpha @ t)) / scale
    return float(max(gap, stationarity, 0.0))


def _finish_dual(gram, t, alpha, C):
    """Polish a solver's alpha, find b and measure the KKT gap; returns (alpha, b, g, gap)."""
    alpha, thr = _polish(gram, t, alpha, C)
    support = np.flatnonzero(alpha > 0)
    g = gram.cols(support) @ (t * alpha)[support]
    b = _intercept_from_kkt(g, t, alpha, C, thr)
    return alpha, b, g, _kkt_gap(g, t, alpha, C)


def _fit_dual(gram, F, exact, t, C, tol):
    """Solve the dual until its answer passes the KKT check with the exact K.

    Tried in turn: the QP with the factor ``F`` (variables alpha / C); a
    factor 10^4 times finer when ``F`` is approximate; and, for a finite C,
    the hard-margin QP, whose answer is the soft-margin one whenever its
    multipliers stay below C (a large C makes alpha / C tiny, below the
    solver's precision); and the working-set method, which stops on the KKT
    violation itself (a small C makes the QP nearly a linear programme whose
    optimal face an interior-point answer does not pin down).  An answer that fails every attempt is refused with
    a ValueError, never returned.  Returns (alpha, b, g, F).
    """
    gaps = []
    alpha, b, g, gap = _finish_dual(gram, t, _solve_dual(F, t, C), C)
    if gap <= _KKT_TOL:
        return alpha, b, g, F
    gaps.append(gap)
    if not exact and tol > 1e-11:
        F = pivoted_cholesky_columns(gram, max(tol * 1e-4, 1e-12), verify=False)
        alpha, b, g, gap = _finish_dual(gram, t, _solve_dual(F, t, C), C)
        if gap <= _KKT_TOL:
            return alpha, b, g, F
        gaps.append(gap)
    if np.isfinite(C):
        try:
            hard = _solve_dual(F, t, np.inf)
        except ValueError:  # not separable: the hard-margin problem has no solution
            hard = None
        if hard is not None and hard.max() <= C:
            alpha, b, g, gap = _finish_dual(gram, t, hard, C)
            if gap <= _KKT_TOL:
                return alpha, b, g, F
            gaps.append(gap)
        found = _try_working_sets(gram, t, C, gaps)
        if found is not None:
            return (*found, F)
    _refuse(C, gaps)


def _fit_dual_by_working_sets(gram, t, C):
    """The dual by decomposition (see :mod:`kernlab._working_set`), checked like :func:`_fit_dual`.

    Returns (alpha, b, g), or raises a ValueError if no answer passes the
    KKT check.
    """
    gaps = []
    found = _try_working_sets(gram, t, C, gaps)
    if found is None:
        _refuse(C, gaps)
    return found


def _try_working_sets(gram, t, C, gaps):
    """The working-set method, stopped at a violation of 1e-2 first.

    The polish usually finds the exact active sets from there; the answer
    is polished and checked with the exact K, and if it fails the method
    continues from where it stopped with a finer stopping tolerance.
    Returns (alpha, b, g), or None with the violations found added to ``gaps``.
    """
    dual = WorkingSetDual(gram, t, C, q=_WORKING_SET)
    for eps in (1e-2, 1e-3, 1e-5, 1e-7):
        dual.run(eps)
        alpha, b, g, gap = _finish_dual(gram, t, dual.alpha.copy(), C)
        if gap <= _KKT_TOL:
            return alpha, b, g
        gaps.append(gap)
    if np.isfinite(C):  # a C far above every multiplier: the hard-margin answer
        hard = WorkingSetDual(gram, t, np.inf, q=_WORKING_SET)
        hard.run(1e-7)
        if hard.alpha.max() <= C:
            alpha, b, g, gap = _finish_dual(gram, t, hard.alpha.copy(), C)
            if gap <= _KKT_TOL:
                return alpha, b, g
            gaps.append(gap)
    return None


def _refuse(C, gaps):
    """Raise the ValueError for a dual that no attempt solved to KKT accuracy."""
    if not np.isfinite(C):
        raise ValueError(
            "the hard-margin problem (C=inf) has no solution to working precision: the best "
            f"answer found violates the KKT conditions by {min(gaps):.3g}, so the classes are not "
            "separable in the kernel's feature space (its Gram matrix may be numerically "
            "singular); use a finite C")
    raise ValueError(
        f"the SVM dual with C={C!r} could not be solved to working precision: the best answer "
        f"found violates the KKT conditions by {min(gaps):.3g} (tolerance {_KKT_TOL:g}, in units "
        "of the margin), so no model is returned; a C far larger than needed to separate the "
        "classes, or a badly scaled kernel, causes this: try a smaller C or rescale the data")


def _solve_dual(F, t, C):
    """Solve the dual QP with K = F F^T; returns alpha (n,)."""
    n = F.shape[0]
    # Scaling the rows by t turns F^T (t * alpha) into a single dense product.
    Ft = F * t[:, None]
    a = cp.Variable(n)
    if np.isfinite(C):
        # Solve for beta = alpha / C in [0, 1]: the objective divided by C is
        # sum(beta) - C/2 ||Ft^T beta||^2.  The solver's tolerances are then
        # relative to the box, which keeps small C as accurate as C = 1.
        objective = cp.Maximize(cp.sum(a) - 0.5 * C * cp.sum_squares(Ft.T @ a))
        constraints = [a >= 0, a <= 1, t @ a == 0]
    else:
        objective = cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(Ft.T @ a))
        constraints = [a >= 0, t @ a == 0]
    problem = cp.Problem(objective, constraints)
    status = _solve(problem, "SVM dual problem")
    if status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        raise ValueError("the hard-margin problem (C=inf) has no solution: the two classes are "
                         "not separable in the kernel's feature space; use a finite C")
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or a.value is None:
        raise RuntimeError(f"Clarabel did not solve the SVM dual problem (status {status!r})")
    if status == cp.OPTIMAL_INACCURATE and not np.isfinite(C) and np.abs(a.value).max() > 1e8:
        raise ValueError("the hard-margin problem (C=inf) diverges: the classes are not "
                         "separable in the kernel's feature space; use a finite C")
    alpha = np.clip(np.asarray(a.value, dtype=np.float64), 0.0, None)
    return alpha * C if np.isfinite(C) else alpha


def _polish(gram, t, alpha, C, thresholds=(1e-4, 1e-6, 1e-8)):
    """Snap alpha onto its active bounds and re-solve the free part exactly.

    For a guess of the active sets (alpha_i = 0, alpha_i = C, free), the KKT
    conditions make the free coefficients and b solve the linear system
    ``t_j f(x_j) = 1`` (j free), ``sum_i alpha_i t_i = 0``.  A guess is
    accepted when its solution satisfies every KKT condition with the exact
    ``K`` to 1e-7 (the problem is convex, so it is then optimal); the
    thresholds (relative to max(alpha) for zero, to C for C) are tried
    from coarse to fine.  If none works the solver's alpha is returned
    with only tiny values set to zero.  Returns (alpha, threshold).
    """
    finite = np.isfinite(C)
    # Zero is judged relative to the largest multiplier, not to C: with a C far
    # above every multiplier (nearly the hard margin) a threshold relative to
    # C would set them all to zero.
    scale = max(float(alpha.max()), np.finfo(float).tiny)
    if finite:
        scale = min(scale, C)
    for rel in thresholds:
        thr = rel * scale
        at_zero = alpha <= thr
        at_C = (alpha >= C - rel * C) if finite else np.zeros_like(at_zero)
        if (~(at_zero | at_C)).sum() > 3000:  # too many free vectors for a dense solve
            continue
        if (at_zero | at_C).all():
            # Every coefficient on a bound: no equations to solve, only checks;
            # b is then any point of an interval (the midpoint is taken later).
            new = np.where(at_C, C, 0.0)
            g = gram.times(t * new)
            lo, hi = _intercept_interval(g, t, at_zero, at_C)
            if abs(new @ t) <= 1e-9 * scale * len(t) and lo <= hi + 1e-9:
                return new, 0.0
            continue
        # A few active-set steps: free coefficients that leave [0, C] go to the
        # bound; bound points whose margin clearly violates KKT become free.
        converged = False
        for _ in range(10):
            new, b, residual_ok = _solve_free_set(gram, t, C, at_zero, at_C)
            if new is None:
                break
            free = ~(at_zero | at_C)
            below = free & (new <= 0)
            above = free & (new >= C) if finite else np.zeros_like(free)
            if below.any() or above.any():
                at_zero, at_C = at_zero | below, at_C | above
                continue
            margins = t * (gram.times(t * new) + b)
            release = (at_zero & (margins < 1 - 1e-7)) | (at_C & (margins > 1 + 1e-7))
            if release.sum() > 50:  # the guess is far off: give up on this threshold
                break
            if not release.any():
                converged = True
                break
            at_zero, at_C = at_zero & ~release, at_C & ~release
        if converged and residual_ok:
            return new, 0.0
    thr = 1e-8 * scale
    alpha = alpha.copy()
    alpha[alpha < thr] = 0.0
    if finite:
        np.minimum(alpha, C, out=alpha)
    return alpha, thr


def _solve_free_set(gram, t, C, at_zero, at_C):
    """KKT linear system for a guess of the active sets; returns (alpha, b, ok)."""
    finite = np.isfinite(C)
    free = ~(at_zero | at_C)
    nf = int(free.sum())
    if nf == 0:
        return None, None, False
    bound_coef = np.where(at_C, t * C, 0.0) if finite else np.zeros(len(t))
    tf = t[free]
    A = np.empty((nf + 1, nf + 1))
    K_free = gram.cols(np.flatnonzero(free))[free]
    A[:nf, :nf] = K_free * tf[None, :]
    A[:nf, nf] = 1.0
    A[nf, :nf] = tf
    A[nf, nf] = 0.0
    rhs = np.empty(nf + 1)
    rhs[:nf] = tf - (gram.times(bound_coef)[free] if at_C.any() else 0.0)
    rhs[nf] = -bound_coef.sum()
    bound = 1e-8 * max(1.0, np.abs(rhs).max())
    try:  # LU first: several times faster than least squares on a regular system
        sol = np.linalg.solve(A, rhs)
        residual_ok = bool(np.abs(A @ sol - rhs).max() < bound)
    except np.linalg.LinAlgError:
        residual_ok = False
    if not residual_ok:  # singular or ill-conditioned: the least-squares solution
        sol, *_ = np.linalg.lstsq(A, rhs, rcond=None)
        residual_ok = bool(np.abs(A @ sol - rhs).max() < bound)
    new = np.where(at_C, C, 0.0) if finite else np.zeros(len(t))
    new[free] = sol[:nf]
    return new, sol[nf], residual_ok


def _intercept_from_kkt(g, t, alpha, C, thr=0.0):
    """Intercept b from the KKT conditions, given g_j = sum_i alpha_i t_i K_ij.

    The average of ``t_j - g_j`` over free vectors (thr < alpha_j < C - thr);
    without free vectors the midpoint of the interval allowed by
    ``t_j (g_j + b) >= 1`` (alpha_j = 0) and ``<= 1`` (alpha_j = C).
    """
    upper_ok = np.isfinite(C)
    free = (alpha > thr) & ((alpha < C - thr) if upper_ok else True)
    if free.any():
        return float(np.mean(t[free] - g[free]))
    at_zero = alpha <= thr
    lo, hi = _intercept_interval(g, t, at_zero, ~at_zero)
    if np.isfinite(lo) and np.isfinite(hi):
        return float((lo + hi) / 2)
    return float(lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0)


def _intercept_interval(g, t, at_zero, at_C):
    """Interval of b allowed by t_j (g_j + b) >= 1 (alpha_j = 0) and <= 1 (alpha_j = C)."""
    lower = np.concatenate([(1 - g)[at_zero & (t > 0)], (-1 - g)[at_C & (t < 0)]])
    upper = np.concatenate([(-1 - g)[at_zero & (t < 0)], (1 - g)[at_C & (t > 0)]])
    lo = lower.max() if lower.size else -np.inf
    hi = upper.min() if upper.size else np.inf
    return lo, hi


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

    def __init__(self, C=1.0):
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
            gap = _kkt_gap(X @ w, t, alpha, C)
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

    def __init__(self, kernel=None, lam=1.0, *, tol=1e-10):
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
