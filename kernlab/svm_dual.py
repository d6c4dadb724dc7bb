"""The dual QP of the support vector machines, solved with CVXPY and checked by KKT.

Classification and regression lead to one problem, the form LIBSVM solves::

    minimise    1/2 a^T Q a + p^T a
    subject to  0 <= a_i <= C,   sum_i y_i a_i = 0

with ``Q_ij = y_i y_j K_ij`` and ``y_i`` in {-1, +1}:

* :class:`~kernlab.SVC`: ``a = alpha``, ``y = t`` (the labels), ``p = -1``;
* :class:`~kernlab.SVR`: ``a = (alpha, alpha*)`` over the points taken
  twice, ``y = (+1, -1)``, ``p = (epsilon - z, epsilon + z)`` for targets
  ``z``; the prediction is ``sum_i (alpha_i - alpha*_i) k(x_i, x) + b``.

With ``g_j = sum_i a_i y_i K_ij`` and ``r = -y * p`` (``t`` for SVC), a point
is optimal iff some ``b`` has ``r_j - g_j <= b`` wherever ``a_j`` may move up
(``a_j < C`` with ``y_j = +1``, ``a_j > 0`` with ``y_j = -1``) and
``r_j - g_j >= b`` wherever it may move down; ``b`` is the intercept.

:func:`solve_dual` tries, in order, until one answer passes that check with
the exact K (within ``KKT_TOL``, in units of the margin):

1. ``"factor"``: one QP in which K enters only as a thin factor ``K = F F^T``
   (the explicit features of the linear and polynomial kernels, or a pivoted
   Cholesky factor); skipped when K has numerical rank above ``FACTOR_MAX_RANK``;
   above ``SHRINK_MIN`` points it is solved on a subset grown by its violators;
2. ``"hard-margin"``: the same QP without the upper bound, which is the answer
   whenever its multipliers stay below C (a huge C makes ``a / C`` smaller
   than the solver's precision);
3. ``"working-set"``: decomposition into small QPs
   (:mod:`kernlab._working_set`), started from the best answer so far and
   stopped on the KKT violation itself; while the support fits in one
   working set, every step is followed by a polish, which often ends it.

Each answer is first polished: its active sets are read off and the free
multipliers and ``b`` re-solved exactly from the linear KKT system.  No
answer that fails the check is returned: a ValueError says what to change.
The result is a :class:`DualSolution` that names the method that answered
and why the earlier ones did not.

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> from kernlab._estimator import GramColumns
>>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); t = np.array([-1.0, -1.0, 1.0, 1.0])
>>> sol = solve_dual(BoxQP.classification(GramColumns(Gaussian(sigma=1.0), X), t, 10.0))
>>> sol.method, bool(sol.kkt_gap <= KKT_TOL)
('factor', True)
"""

import warnings
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from scipy import linalg

from ._columns import ColumnStore
from ._linalg import one_blas_thread
from ._working_set import WorkingSetDual
from .gram import factor_gram, pivoted_cholesky_columns

__all__ = ["BoxQP", "DualSolution", "solve_dual", "kkt_gap", "quiet_solve",
           "SolverFailed", "KKT_TOL", "FACTOR_MAX_RANK"]

# An answer must satisfy the KKT conditions with the exact K to this accuracy,
# measured as LIBSVM measures it (in units of the margin, 1).
KKT_TOL = 1e-5
# Above this numerical rank of K (at the factor tolerance) no thin factor is
# formed and the dual is solved by working sets of WORKING_SET_SIZE points.
FACTOR_MAX_RANK = 200
# 64 points: at 32, C = 1e6 on breast cancer (n = 300) took 46 steps against 5
# (before small supports were kept in the set; now 2, as its 52 support vectors
# fit in one set), and full-rank data at n = 2000 twice the steps for about the
# same time.
WORKING_SET_SIZE = 64
# Up to this many points K is formed once (50 MB) rather than column by column.
DENSE_MAX = 2500
# A factored QP in more variables is solved on a shrinking subset first (see
# _solve_factored); points whose condition at zero holds by less than _BAND
# (in units of the margin) are kept in it.
SHRINK_MIN = 1500
_BAND = 0.1
# The working-set method is stopped at these violations in turn; after each
# the answer is polished and checked, and usually the first already passes
# (the polish finds the active sets from a violation of 0.1 on the benchmarks,
# with a third fewer steps than from 1e-2).
_STOPPING = (1e-1, 1e-2, 1e-3, 1e-5, 1e-7)
# Steps after each of which a small support is polished (see _working_sets).
_POLISHED_STEPS = 10


# ----------------------------------------------------------------------------
# the problem
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BoxQP:
    """The dual ``min 1/2 a^T Q a + p^T a``, ``0 <= a <= C``, ``y^T a = 0``.

    ``gram`` gives columns of K (a :class:`kernlab._estimator.GramColumns` or
    the doubled matrix of regression), ``factor`` an optional ``F`` with
    ``K = F F^T`` (``exact`` says whether it is exact or a tolerance factor),
    and ``r = -y * p`` the value ``g_j + b`` takes on a free point.

    The constructors divide K by ``unit = max_i K_ii`` and multiply C by it:
    the multipliers of that problem are ``unit`` times those of the given
    one, with the same ``g`` and ``b``, so that features on a scale of 1e6
    or 1e-6 meet the solver at the scale of 1.
    """

    gram: object
    y: np.ndarray
    r: np.ndarray
    C: float
    factor: object = None
    exact: bool = True
    tol: float = 1e-4
    unit: float = 1.0

    @property
    def p(self):
        return -self.y * self.r

    @classmethod
    def classification(cls, gram, t, C, *, kernel=None, X=None, tol=1e-4):
        """The SVC dual for labels ``t`` in {-1, +1}, with a factor of K if thin."""
        gram, F, exact, unit = _normalised(gram, kernel, X, tol)
        return cls(gram, t, t.astype(np.float64), C * unit, F, exact, tol, unit)

    @classmethod
    def regression(cls, gram, z, C, epsilon, *, kernel=None, X=None, tol=1e-4):
        """The epsilon-SVR dual for targets ``z``: variables ``(alpha, alpha*)``."""
        gram, F, exact, unit = _normalised(gram, kernel, X, tol)
        n = len(z)
        y = np.concatenate([np.ones(n), -np.ones(n)])
        r = np.concatenate([z - epsilon, z + epsilon])
        doubled = None if F is None else np.vstack([F, F])
        return cls(DoubledGram(gram), y, r, C * unit, doubled, exact, tol, unit)


def _normalised(gram, kernel, X, tol):
    """``(K / unit, F / sqrt(unit), exact, unit)`` with ``unit = max diag K``."""
    if kernel is None:  # a plain matrix behind the columns
        kernel, X = "precomputed", gram.full()
    top = float(np.max(gram.diag()))
    unit = top if np.isfinite(top) and top > 0 else 1.0
    if gram.n <= DENSE_MAX:  # every column is likely to be needed: form K once
        # on one BLAS thread: with the other core busy, OpenBLAS's second
        # thread made K of 300 points five times slower (8 ms against 1.7 ms)
        with one_blas_thread():
            scaled = DenseGram(gram.full() / unit)
    else:
        scaled = ScaledGram(gram, unit)
    F, exact = factor_gram(scaled, kernel, X, tol, max_rank=FACTOR_MAX_RANK)
    if F is not None and exact:  # explicit features of the kernel itself
        F = F / np.sqrt(unit)
    return scaled, F, exact, unit


class DenseGram:
    """Columns of a Gram matrix held in memory."""

    def __init__(self, K):
        self.K, self.n = K, K.shape[0]

    def diag(self):
        return np.diag(self.K).copy()

    def cols(self, idx):
        return self.K[:, np.asarray(idx, dtype=np.intp).reshape(-1)]

    def rows(self, start, stop):
        return self.K[start:stop]

    def times(self, v):
        return self.K @ v

    def full(self):
        return self.K


class ScaledGram:
    """Columns of ``K / unit``."""

    def __init__(self, gram, unit):
        self.base, self.unit, self.n = gram, unit, gram.n

    def diag(self):
        return self.base.diag() / self.unit

    def cols(self, idx):
        return self.base.cols(idx) / self.unit

    def rows(self, start, stop):
        return self.base.rows(start, stop) / self.unit

    def times(self, v):
        return self.base.times(v) / self.unit

    def full(self):
        return self.base.full() / self.unit


class DoubledGram:
    """Columns of ``[[K, K], [K, K]]``, the Gram matrix of the points taken twice."""

    def __init__(self, gram):
        self.base = gram
        self.n = 2 * gram.n

    def diag(self):
        return np.tile(self.base.diag(), 2)

    def cols(self, idx):
        idx = np.asarray(idx, dtype=np.intp).reshape(-1)
        return np.tile(self.base.cols(idx % self.base.n), (2, 1))

    def times(self, v):
        m = self.base.n
        return np.tile(self.base.times(v[:m] + v[m:]), 2)

    def full(self):
        return np.tile(self.base.full(), (2, 2))


@dataclass(frozen=True)
class DualSolution:
    """An answer of :func:`solve_dual` that passed the KKT check.

    Attributes
    ----------
    alpha : ndarray
        The multipliers ``a`` (exact zeros off the support).
    intercept : float
        ``b``.
    decision : ndarray
        ``g_j = sum_i a_i y_i K_ij`` on the training points (without ``b``).
    method : {"factor", "hard-margin", "working-set"}
        The method whose answer passed.
    reason : str
        Why that method: what was tried before it and how far it missed.
    kkt_gap : float
        The worst KKT violation of the answer (see :func:`kkt_gap`).
    rank : int or None
        Columns of the factor of K in the QP (None for working sets).
    """

    alpha: np.ndarray
    intercept: float
    decision: np.ndarray
    method: str
    reason: str
    kkt_gap: float
    rank: object = None


# ----------------------------------------------------------------------------
# the sequence of methods
# ----------------------------------------------------------------------------

def solve_dual(qp):
    """Solve the dual ``qp`` (a :class:`BoxQP`); returns a :class:`DualSolution`.

    Raises a ValueError when no method finds an answer that passes the KKT
    check, and for the hard margin (``C = inf``) on data that are not
    separable in the kernel's feature space.
    """
    tried = []  # (what, KKT gap or the failure)
    best = None
    F = qp.factor
    if F is not None:
        for what, factor, bound in _factored_attempts(qp):
            if bound > qp.C and best is not None and best[0].max() >= qp.C * (1 - 1e-3):
                # multipliers at C: the hard-margin answer cannot be the soft one
                tried.append((what, "skipped, multipliers at C"))
                continue
            try:
                alpha = _solve_factored(factor, qp, bound)
            except SolverFailed as exc:
                tried.append((what, str(exc)))
                continue
            if bound > qp.C:  # the hard-margin answer, valid when it stays below C
                if alpha.max() > qp.C:
                    tried.append((what, "multipliers above C"))
                    continue
            found = _polished(qp, alpha)
            if found[-1] <= KKT_TOL:
                return _solution(qp, found, what.split(" ")[0], tried, factor.shape[1])
            tried.append((what, found[-1]))
            best = found if best is None or found[-1] < best[-1] else best
    else:
        tried.append(("factor", f"K has numerical rank above {FACTOR_MAX_RANK}"))
    start = None if best is None else best[0]
    for C in (qp.C, np.inf) if np.isfinite(qp.C) else (qp.C,):
        found = _working_sets(qp, C, start if C == qp.C else None)
        if found is not None and found[-1] <= KKT_TOL:
            method = "working-set" if C == qp.C else "hard-margin"
            return _solution(qp, found, method, tried, None)
        tried.append((f"working sets (C={C:g})",
                      "multipliers above C" if found is None else found[-1]))
    _refuse(qp.C / qp.unit, qp.unit, tried)


def _factored_attempts(qp):
    """(name, factor, bound) of the factored QPs worth trying, in order."""
    rank = qp.factor.shape[1]
    yield f"factor (rank {rank})", qp.factor, qp.C
    if not qp.exact and qp.tol > 1e-11:
        base = qp.gram.base if isinstance(qp.gram, DoubledGram) else qp.gram
        fine = pivoted_cholesky_columns(base, max(qp.tol * 1e-4, 1e-12),
                                        verify=False, max_rank=FACTOR_MAX_RANK)
        if fine is not None:
            if isinstance(qp.gram, DoubledGram):
                fine = np.vstack([fine, fine])
            yield f"factor (rank {fine.shape[1]}, finer)", fine, qp.C
    if np.isfinite(qp.C):
        yield f"hard-margin QP (rank {rank})", qp.factor, np.inf


def _solution(qp, found, method, tried, rank):
    alpha, b, g, gap = found
    alpha = alpha / qp.unit
    if tried:
        missed = "; ".join(f"{what}: {_describe(how)}" for what, how in tried)
        reason = f"{method} passed the KKT check after {missed}"
    else:
        reason = f"{method} passed the KKT check at its first attempt"
    if not np.isfinite(qp.C):
        worst = float(np.max(qp.y * (qp.r - g - b)))  # <= 0 when every margin is >= 1
        if worst > KKT_TOL:
            raise ValueError(
                "the hard-margin problem (C=inf) has no solution to working "
                "precision: the best classifier found misses a margin by "
                f"{worst:.3g}, so the classes are not separable in the kernel's "
                "feature space (its Gram matrix is numerically singular); use a "
                "finite C")
    return DualSolution(alpha, b, g, method, reason, gap, rank)


def _describe(how):
    return f"KKT violation {how:.3g}" if isinstance(how, float) else how


def _refuse(C, unit, tried):
    """Raise the ValueError for a dual that no method solved to KKT accuracy.

    ``unit`` is ``max_i K_ii``: the problem depends on C and the kernel's
    scale only through ``C * unit``, and a product far above 1 (features
    on a scale of 1e6, or a C far larger than needed) is what makes it
    numerically hard.
    """
    gaps = [how for _, how in tried if isinstance(how, float)]
    worst = min(gaps, default=np.inf)
    if not np.isfinite(C):
        raise ValueError(
            "the hard-margin problem (C=inf) has no solution to working precision: "
            f"the best answer found violates the KKT conditions by {worst:.3g}, so "
            "the classes are not separable in the kernel's feature space (its Gram "
            "matrix may be numerically singular); use a finite C")
    if unit > 1e4 or unit < 1e-4:
        advice = (f"the kernel's diagonal reaches {unit:.3g}: scale the features "
                  "(e.g. with sklearn.preprocessing.StandardScaler) or the kernel "
                  "so that it is near 1")
    else:
        advice = ("a C far larger than needed to separate the classes causes "
                  "this: try a smaller C, or scale the features")
    raise ValueError(
        f"the SVM dual with C={C!r} could not be solved to working precision: the "
        f"best answer found violates the KKT conditions by {worst:.3g} (tolerance "
        f"{KKT_TOL:g}, in units of the margin), so no model is returned; {advice}")


# ----------------------------------------------------------------------------
# the methods
# ----------------------------------------------------------------------------

class SolverFailed(RuntimeError):
    """Clarabel gave no answer (in :func:`solve_dual`, the next method is tried)."""


def _solve_factored(F, qp, C):
    """Solve the dual with K = F F^T; returns the multipliers.

    Up to ``SHRINK_MIN`` variables this is one QP.  Above, the QP is first
    solved on a random subset of ``SHRINK_MIN // 2`` points, then on the
    points that matter: those with a multiplier, and those whose KKT
    condition at zero (with the factored K and the subset's b) fails or
    holds by less than ``_BAND``.  The set then only grows, by the points
    outside it that come within the band, until no point outside fails its
    condition (to 1e-3 of the margin); the answer is then that of the whole
    QP.  Clarabel's time grows faster than the number of
    variables, and most points of a large problem end at zero.  If the set
    grows past half the points the whole QP is solved instead.
    """
    n = len(qp.y)
    if n <= SHRINK_MIN:
        return _factored_qp(F, qp.y, qp.p, C, qp.C)
    chosen = np.sort(np.random.default_rng(0).choice(n, SHRINK_MIN // 2,
                                                     replace=False))
    first = True
    while 2 * len(chosen) <= n:
        alpha = np.zeros(n)
        alpha[chosen] = _factored_qp(F[chosen], qp.y[chosen], qp.p[chosen], C, qp.C)
        excess, support = _excess(qp, F, alpha, C)
        if first:  # from the random start to the points that matter
            chosen, first = np.flatnonzero((excess > -_BAND) | support), False
            continue
        outside = np.ones(n, dtype=bool)
        outside[chosen] = False
        if not (outside & (excess > -1e-3)).any():
            return alpha
        # the worst of them, at most as many as are in the set already
        added = np.flatnonzero(outside & (excess > -_BAND))
        added = added[np.argsort(-excess[added], kind="stable")[:len(chosen)]]
        chosen = np.union1d(chosen, added)
    return _factored_qp(F, qp.y, qp.p, C, qp.C)


def _excess(qp, F, alpha, C):
    """``y * (r - g - b)``, at most 0 where a zero multiplier is optimal; the support.

    An interior-point answer is a little inside its bounds: multipliers
    below 1e-6 of the largest (or of C) count as zero.
    """
    top = float(alpha.max())
    thr = 1e-6 * (min(top, C) if np.isfinite(C) else top)
    support = alpha > thr
    alpha = np.where(support, alpha, 0.0)
    g = F @ (F.T @ (qp.y * alpha))
    b = _intercept(qp, g, alpha, thr)
    return qp.y * (qp.r - g - b), support


def _factored_qp(F, y, p, C, given_C):
    """One QP in the variables of the rows of F; ``given_C`` is the problem's C."""
    # Scaling the rows by y turns F^T (y * a) into a single dense product.
    Fy = F * y[:, None]
    a = cp.Variable(len(y))
    if np.isfinite(C):
        # Solve for beta = a / C in [0, 1]: the objective divided by C is
        # C/2 ||Fy^T beta||^2 + p^T beta, so the solver's tolerances are
        # relative to the box, which keeps a small C as accurate as C = 1.
        objective = cp.Minimize(0.5 * C * cp.sum_squares(Fy.T @ a) + p @ a)
        constraints = [a >= 0, a <= 1, y @ a == 0]
    else:
        objective = cp.Minimize(0.5 * cp.sum_squares(Fy.T @ a) + p @ a)
        constraints = [a >= 0, y @ a == 0]
    problem = cp.Problem(objective, constraints)
    status = quiet_solve(problem, direct_solve_method="qdldl")
    if status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        if not np.isfinite(given_C):
            raise ValueError("the hard-margin problem (C=inf) has no solution: the two "
                             "classes are not separable in the kernel's feature space; "
                             "use a finite C")
        raise SolverFailed("the hard-margin QP is unbounded")
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or a.value is None:
        raise SolverFailed(f"Clarabel returned status {status!r}")
    diverged = status == cp.OPTIMAL_INACCURATE and np.abs(a.value).max() > 1e8
    if diverged and not np.isfinite(C):
        if not np.isfinite(given_C):
            raise ValueError("the hard-margin problem (C=inf) diverges: the classes "
                             "are not separable in the kernel's feature space; "
                             "use a finite C")
        raise SolverFailed("the hard-margin QP diverges")
    alpha = np.clip(np.asarray(a.value, dtype=np.float64), 0.0, None)
    return alpha * C if np.isfinite(C) else alpha


def quiet_solve(problem, **options):
    """``problem.solve`` with Clarabel; a failure raises :class:`SolverFailed`.

    CVXPY warns "Solution may be inaccurate" when Clarabel stops short of
    its tolerances; every answer here is polished and checked against the
    KKT conditions with the exact K, so the warning is not passed on.
    """
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Solution may be inaccurate",
                                    category=UserWarning)
            problem.solve(solver=cp.CLARABEL, **options)
    except cp.error.SolverError as exc:
        raise SolverFailed(f"Clarabel failed ({exc})") from exc
    return problem.status


def _working_sets(qp, C, start):
    """The working-set method stopped at ever finer violations, polished and checked.

    Returns ``(alpha, b, g, gap)`` of the first answer that passes, else of
    the last; None when a hard-margin run (``C`` above ``qp.C``) ends with
    multipliers above ``qp.C``.
    """
    tiebreak = None
    if isinstance(qp.gram, DenseGram):  # K in memory: one product orders the start
        positive = qp.y > 0
        uniform = np.where(positive, 1.0 / max(positive.sum(), 1),
                           1.0 / max((~positive).sum(), 1))
        tiebreak = qp.gram.times(qp.y * uniform)
    dual = WorkingSetDual(qp.gram, qp.y, C, q=WORKING_SET_SIZE, p=qp.p, start=start,
                          tiebreak=tiebreak)
    found = None
    # While the support fits in one working set, polishing (an exact solve on
    # it) costs about what a step costs and often ends the method several
    # steps before the violation reaches the first stop (C = 1e6 on breast
    # cancer: two steps and a polish instead of three steps), for at most
    # _POLISHED_STEPS steps.  A step that raised the violation (as the first
    # from zero does) has not found the support: it is not polished.
    last = dual.violation()[0]
    for _ in range(_POLISHED_STEPS):
        if np.count_nonzero(dual.alpha) > dual.q:
            break
        steps = dual.steps
        try:
            gap = dual.run(_STOPPING[0], max_steps=1)
        except RuntimeError:
            return found
        if C > qp.C and dual.alpha.max() > qp.C:
            return None
        if gap <= _STOPPING[0] or dual.steps == steps:
            break
        rose, last = gap >= last, gap
        if rose:
            continue
        found = _polished(qp, dual.alpha.copy())
        if found[-1] <= KKT_TOL:
            return found
    for eps in _STOPPING:
        try:
            reached = dual.run(eps) <= eps
        except RuntimeError:
            break
        if C > qp.C and dual.alpha.max() > qp.C:
            return None
        # The polish keeps columns of its own: the steps' columns are let go
        # first, so that the two never hold memory at once (2.5 GiB at n = 20000).
        dual.cache.release()
        found = _polished(qp, dual.alpha.copy())
        if found[-1] <= KKT_TOL or not reached:  # passed, or stalled
            break
    return found


# ----------------------------------------------------------------------------
# polishing and checking an answer
# ----------------------------------------------------------------------------

def kkt_gap(g, y, alpha, C, r=None):
    """Largest KKT violation of a dual point, in units of the margin; free of ``b``.

    With ``F_j = r_j - g_j`` (``r = y`` for classification), the point is
    optimal iff ``max_up F - min_down F <= 0`` (see the module docstring);
    this returns that difference (0 when negative), the stopping measure of
    LIBSVM, or the equality residual ``|sum_i alpha_i y_i|`` divided by the
    scale of alpha (C, or max(alpha) for the hard margin) if that is larger.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.array([-1.0, 1.0]); alpha = np.array([0.5, 0.5])
    >>> g = np.array([[2.0, 0.0], [0.0, 2.0]]) @ (alpha * t)  # K = 2 I: margin 1
    >>> kkt_gap(g, t, alpha, C=10.0)
    0.0
    """
    r = y if r is None else r
    finite = np.isfinite(C)
    below_C = alpha < C if finite else np.ones(len(alpha), dtype=bool)
    above_0 = alpha > 0
    up = (below_C & (y > 0)) | (above_0 & (y < 0))
    down = (below_C & (y < 0)) | (above_0 & (y > 0))
    G = r - g
    gap = (G[up].max() - G[down].min()) if up.any() and down.any() else 0.0
    scale = C if finite else max(float(alpha.max()), np.finfo(float).tiny)
    stationarity = abs(float(alpha @ y)) / scale
    return float(max(gap, stationarity, 0.0))


def _polished(qp, alpha):
    """Polish an answer, find b and measure its KKT gap: ``(alpha, b, g, gap)``."""
    # The polish reads the same columns several times: up to 1 GiB of them
    # are kept (6700 columns at n = 20000), the others computed each time.
    columns = ColumnStore(qp.gram, 2**30, evict=False)
    alpha, thr = _polish(qp, alpha, columns)
    g = columns.times(qp.y * alpha)
    b = _intercept(qp, g, alpha, thr)
    return alpha, b, g, kkt_gap(g, qp.y, alpha, qp.C, qp.r)


def _polish(qp, alpha, gram, thresholds=(1e-4, 1e-6, 1e-8)):
    """Snap alpha onto its active bounds and re-solve the free part exactly.

    For a guess of the active sets (``a_i = 0``, ``a_i = C``, free), the KKT
    conditions make the free coefficients and b solve the linear system
    ``g_j + b = r_j`` (j free), ``sum_i a_i y_i = 0``.  A guess is accepted
    when its solution satisfies every KKT condition to 1e-7 (the problem is
    convex, so it is then optimal); the thresholds (relative to max(alpha)
    for zero, to C for C) are tried from coarse to fine.  If none works the
    answer is returned with only tiny values set to zero.  ``gram`` gives
    the columns of K.  Returns ``(alpha, threshold)``.
    """
    y, r, C = qp.y, qp.r, qp.C
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
            g = gram.times(y * new)
            lo, hi = _intercept_interval(qp, g, at_zero, at_C)
            if abs(new @ y) <= 1e-9 * scale * len(y) and lo <= hi + 1e-9:
                return new, 0.0
            continue
        # A few active-set steps: free coefficients that leave [0, C] go to the
        # bound; bound points whose KKT condition clearly fails become free.
        converged = residual_ok = False
        for _ in range(10):
            new, b, residual_ok = _solve_free_set(qp, gram, at_zero, at_C)
            if new is None:
                break
            free = ~(at_zero | at_C)
            below = free & (new <= 0)
            above = free & (new >= C) if finite else np.zeros_like(free)
            if below.any() or above.any():
                at_zero, at_C = at_zero | below, at_C | above
                continue
            excess = y * (r - gram.times(y * new) - b)  # <= 0 at zero, >= 0 at C
            release = (at_zero & (excess > 1e-7)) | (at_C & (excess < -1e-7))
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


def _solve_free_set(qp, gram, at_zero, at_C):
    """KKT linear system for a guess of the active sets; returns (alpha, b, ok).

    The rows of the free points are multiplied by ``y_j``, which makes the
    matrix ``[[Q_FF, y_F], [y_F^T, 0]]``.
    """
    y, r, C = qp.y, qp.r, qp.C
    finite = np.isfinite(C)
    free = ~(at_zero | at_C)
    nf = int(free.sum())
    if nf == 0:
        return None, None, False
    bound_coef = np.where(at_C, y * C, 0.0) if finite else np.zeros(len(y))
    yf = y[free]
    K_free = gram.cols(np.flatnonzero(free))[free]
    Q = K_free * np.outer(yf, yf)
    c = yf * (r[free] - (gram.times(bound_coef)[free] if at_C.any() else 0.0))
    d = -bound_coef.sum()
    # One BLAS thread: on two busy cores a threaded factor of this order runs
    # several times slower than a single thread (measured at order 1700).
    with one_blas_thread():
        sol, residual_ok = _saddle_solve(Q, yf, c, d)
    new = np.where(at_C, C, 0.0) if finite else np.zeros(len(y))
    new[free] = sol[:nf]
    return new, sol[nf], residual_ok


def _saddle_solve(Q, y, c, d):
    """Solve ``Q a + y b = c``, ``y^T a = d``; returns ``([a, b], residual_ok)``.

    With Q positive definite (a kernel of full rank on the free points),
    one Cholesky factor gives ``a = Q^-1 (c - y b)`` and b from the second
    equation, in half the flops of an LU of the bordered matrix.  If the
    factor fails or its answer misses the equations, LU, then least squares.
    """
    nf = len(y)

    def residual(sol):
        a, b = sol[:nf], sol[nf]
        return max(np.abs(Q @ a + y * b - c).max(), abs(y @ a - d))

    bound = 1e-8 * max(1.0, np.abs(c).max(), abs(d))
    try:  # an ill-conditioned Q can overflow here: the residual decides
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            factor = linalg.cho_factor(Q, lower=True, check_finite=False)
            u, v = linalg.cho_solve(factor, np.column_stack([c, y]),
                                    check_finite=False).T
            b = (y @ u - d) / (y @ v)
            sol = np.append(u - b * v, b)
            if np.all(np.isfinite(sol)) and residual(sol) < bound:
                return sol, True
    except linalg.LinAlgError:
        pass
    A = np.empty((nf + 1, nf + 1))
    A[:nf, :nf] = Q
    A[:nf, nf] = y
    A[nf, :nf] = y
    A[nf, nf] = 0.0
    rhs = np.append(c, d)
    try:  # LU first: several times faster than least squares on a regular system
        sol = np.linalg.solve(A, rhs)
        if residual(sol) < bound:
            return sol, True
    except np.linalg.LinAlgError:
        pass
    # singular or ill-conditioned: the least-squares solution
    sol, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    return sol, bool(residual(sol) < bound)


def _intercept(qp, g, alpha, thr=0.0):
    """Intercept b from the KKT conditions, given ``g``.

    The average of ``r_j - g_j`` over free multipliers (thr < a_j < C - thr);
    without free ones the midpoint of the interval the bounds allow.
    """
    C = qp.C
    free = (alpha > thr) & ((alpha < C - thr) if np.isfinite(C) else True)
    if free.any():
        return float(np.mean(qp.r[free] - g[free]))
    at_zero = alpha <= thr
    lo, hi = _intercept_interval(qp, g, at_zero, ~at_zero)
    if np.isfinite(lo) and np.isfinite(hi):
        return float((lo + hi) / 2)
    return float(lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0)


def _intercept_interval(qp, g, at_zero, at_C):
    """Interval of b allowed by the KKT conditions of the multipliers on a bound."""
    y, G = qp.y, qp.r - g
    lower = G[(at_zero & (y > 0)) | (at_C & (y < 0))]
    upper = G[(at_zero & (y < 0)) | (at_C & (y > 0))]
    lo = lower.max() if lower.size else -np.inf
    hi = upper.min() if upper.size else np.inf
    return lo, hi
