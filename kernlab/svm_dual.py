"""The dual QP of the support vector machines, solved with CVXPY and checked by KKT.

Classification and regression lead to one problem, the form LIBSVM solves::

    minimise    1/2 a^T Q a + p^T a
    subject to  0 <= a_i <= C,   sum_i y_i a_i = 0

with ``Q_ij = y_i y_j K_ij`` and ``y_i`` in {-1, +1}:

* :class:`~kernlab.SVC`: ``a = alpha``, ``y`` the labels, ``p = -1``;
* :class:`~kernlab.SVR`: ``a = (alpha, alpha*)`` over the points taken
  twice, ``y = (+1, -1)``, ``p = (epsilon - z, epsilon + z)`` for targets
  ``z``; the prediction is ``sum_i (alpha_i - alpha*_i) k(x_i, x) + b``.

With ``g_j = sum_i a_i y_i K_ij`` and ``r = -y * p`` (``y`` for SVC), a point
is optimal iff some ``b`` has ``r_j - g_j <= b`` wherever ``a_j`` may move up
(``a_j < C`` with ``y_j = +1``, ``a_j > 0`` with ``y_j = -1``) and
``r_j - g_j >= b`` wherever it may move down; ``b`` is the intercept.  The
largest difference ``max_up (r - g) - min_down (r - g)`` is the KKT
violation (:func:`kkt_gap`), in units of the margin.

:func:`solve_dual` tries the strategies of :data:`STRATEGIES`, in order,
until one gives an answer that passes the KKT check with the exact K:

1. ``"factor"``, when the kernel has explicit features ``F`` with at most
   ``FACTOR_MAX_RANK`` columns (``K = F F^T`` exactly: the linear kernel,
   polynomial kernels of few features), or K has that rank to rounding and
   at most ``FACTOR_MAX_RANK`` points (``LAPACK_PIVOTED_MAX`` for a
   precomputed matrix or a user's function): F is then its pivoted Cholesky
   factor.  One QP in which K enters only as F, on a subset grown by its
   violators above ``SHRINK_MIN`` points;
2. ``"hard-margin"``, with such an F and a finite C: the same QP without the
   upper bound, which is the answer whenever its multipliers stay below C
   (a huge C makes ``a / C`` smaller than the solver's precision);
3. ``"working-set"``, always: decomposition into QPs on small working sets
   (:mod:`kernlab._working_set`), started from the best answer so far.  It
   is stopped at violations of 1, 1e-1, 1e-2, ... in turn, and polished at
   a stop, or when the steps since the last polish have cost as many
   operations as it did (counted, not timed: the same data always take the
   same path).

(A Gaussian kernel has no thin factor: a pivoted Cholesky factor to a
tolerance is one, but finding that its rank is above 200 took longer, at
n = 5000, than the working sets take to solve the problem.)

The polish reads the active sets off an answer (``a_i = 0``, ``a_i = C``,
free) and solves the KKT conditions, which are linear once the sets are
known, for the free multipliers and b; points whose conditions then fail
change sets, and the solve is repeated (an active-set Newton method).  A
polish that does not settle in a few rounds is abandoned and the
working sets go on.  Every answer is checked with g computed from the exact
K, and its rounding is accounted for: an answer passes when its violation
plus the estimated rounding of g is at most ``KKT_TOL``.  No answer that
fails is returned: a ValueError reports what was seen (the violation, the
support, the conditioning).  The result is a :class:`DualSolution` that
names the strategy that answered, why the earlier ones did not, and the
steps it took.  The whole solve runs on one BLAS thread: its products and
factors are small, and OpenBLAS's idle threads spin.

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> from kernlab._columns import Gram
>>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
>>> kernel = Gaussian(sigma=1.0)
>>> sol = solve_dual(BoxQP.classification(Gram(kernel, X), y, 10.0, kernel=kernel, X=X))
>>> sol.method, bool(sol.kkt_gap <= KKT_TOL), sol.rank
('factor', True, 4)
>>> [strategy.name for strategy in STRATEGIES]
['factor', 'hard-margin', 'working-set']
"""

import warnings
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from ._linalg import SubsetSaddle, one_blas_thread
from ._working_set import Step, WorkingSetDual
from .gram import LAPACK_PIVOTED_MAX, check_psd, explicit_factor, pivoted_cholesky_columns
from .kernels import Kernel

__all__ = ["BoxQP", "DualSolution", "Polish", "Step", "STRATEGIES", "solve_dual",
           "kkt_gap", "quiet_solve", "SolverFailed", "KKT_TOL", "FACTOR_MAX_RANK", "Strategy"]

# An answer must satisfy the KKT conditions with the exact K to this accuracy,
# measured as LIBSVM measures it (in units of the margin, 1).
KKT_TOL = 1e-5
# With more explicit features than this the factored QP is not tried.
FACTOR_MAX_RANK = 200
# K of at most LAPACK_PIVOTED_MAX points whose pivoted Cholesky factor stops
# at this relative tolerance within FACTOR_MAX_RANK columns is of low rank to
# rounding: its factor serves as explicit features.  (Working sets on such a
# K, singular and at a large C, stalled: a precomputed linear kernel of 100
# points at 100 + N(0, 1) in the plane, C * max K_ii = 2e4.)
_EXACT_RANK_TOL = 1e-12
# Points per working set: Clarabel's time on a dense set grows as its cube
# (3 ms at 64 points, 10-15 ms at 128, 90 ms at 256), while the steps needed
# fall only about in proportion to the set; but each step also costs O(n)
# (its kernel columns, the gradient, the choice of the next set), and from
# LARGE_SET_FROM points the larger set, half the steps, wins (full-rank 20-D
# data at n = 10000: 24.6 s against 36.4 s on a busy machine, 419 steps
# against 815; at n = 5000, 5.5 s of CPU against 4.5 s the other way).
WORKING_SET_SIZE = 64
LARGE_SET_SIZE, LARGE_SET_FROM = 128, 8000
# Up to this many points K is formed once (50 MB) rather than column by column.
DENSE_MAX = 2500
# Memory for kernel columns kept between working-set steps (K of n = 20000
# points would take 3.2 GB).  Writing a column into fresh memory costs page
# faults, which on a busy machine took longer than computing the column again
# (20-D data, n = 20000: 400 steps in 9.6 s of CPU with 1 GiB, 7.5 s with 256
# columns); once the store is full its pages are reused.
CACHE_BYTES = 2**28
# A factored QP in more variables is solved on a shrinking subset first (see
# _solve_factored); points whose condition at zero holds by less than _BAND
# (in units of the margin) are kept in it.
SHRINK_MIN = 1500
_BAND = 0.1
# The working-set method is stopped at these violations in turn and its
# answer checked and (when the polish is cheap: at most 600 free multipliers,
# or from 0.1 on) polished after each; the last stop is below KKT_TOL, so that
# an answer the polish cannot improve passes on its own.
_STOPPING = (1.0, 1e-1, 1e-2, 1e-3, 1e-4, KKT_TOL / 4)
# Early steps after each of which a small support (at most one working set)
# is polished: with few support vectors this often ends the method.
_POLISHED_STEPS = 10
# The polish solves a dense system in the free multipliers; with more of them
# it is not tried (n = 10000 full-rank data has 6800: 1e11 flops a round).
POLISH_MAX = 3000
# Rounds of the polish's active-set method, and the KKT violation below
# which a multiplier on a bound is left there.
_POLISH_ROUNDS = 12
# A polish round may change more sets than the fewest of a round before it
# only while it changes at most this many (see _diverging).
_POLISH_RISE_MAX = 256
# A round whose free multipliers' system Cholesky cannot solve is solved by LU
# (then least squares) only up to this many of them; past it the polish gives
# up.  Two moons at n = 3000 and noise 0.3: rounds of 2800 singular free
# multipliers, 0.3 s of LU each, in polishes that never settled, made the fit
# 50 times LIBSVM's time; with 1000 here, rounds of 479-993 still took 10-35 ms
# each (two moons at C = 1 and C = 1000) and not one of those polishes
# settled, while SVR on diabetes settles after singular rounds of 114-385.
_POLISH_LU_MAX = 400
_RELEASE = KKT_TOL / 10
_UNIT_ROUNDOFF = np.finfo(float).eps / 2


# ----------------------------------------------------------------------------
# the problem
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BoxQP:
    """The dual ``min 1/2 a^T Q a + p^T a``, ``0 <= a <= C``, ``y^T a = 0``.

    ``gram`` gives columns of K (a :class:`kernlab._columns.Gram`), ``factor``
    an optional thin ``F`` with ``K = F F^T`` exactly, and ``r = -y * p`` the
    value ``g_j + b`` takes on a free point.  ``C_given`` is the C the user
    asked for (for messages).

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
    unit: float = 1.0
    C_given: float = None

    @property
    def p(self):
        return -self.y * self.r

    @property
    def n(self):
        return len(self.y)

    @classmethod
    def classification(cls, gram, y, C, *, kernel=None, X=None):
        """The SVC dual for labels ``y`` in {-1, +1}, with the kernel's features if thin."""
        gram, F, unit = _normalised(gram, kernel, X)
        return cls(gram, y, y.astype(np.float64), C * unit, F, unit, C)

    @classmethod
    def regression(cls, gram, z, C, epsilon, *, kernel=None, X=None):
        """The epsilon-SVR dual for targets ``z``: variables ``(alpha, alpha*)``."""
        gram, F, unit = _normalised(gram, kernel, X)
        n = len(z)
        y = np.concatenate([np.ones(n), -np.ones(n)])
        r = np.concatenate([z - epsilon, z + epsilon])
        doubled = None if F is None else np.vstack([F, F])
        return cls(gram.doubled(), y, r, C * unit, doubled, unit, C)


def _normalised(gram, kernel, X):
    """``(K / unit, F / sqrt(unit) or None, unit)`` with ``unit = max diag K``.

    F is the kernel's explicit features when it has at most
    ``FACTOR_MAX_RANK`` of them; a kernel that is not PSD by construction is
    checked here (see :func:`kernlab.gram.check_psd`).
    """
    if kernel is None:  # a plain matrix behind the columns
        kernel, X = "precomputed", gram.full()
    top = float(np.max(gram.diag()))
    unit = top if np.isfinite(top) and top > 0 else 1.0
    scaled = gram.scaled(unit)
    if gram.n <= DENSE_MAX:  # every column is likely to be needed: form K once
        scaled = scaled.dense()
    check_psd(scaled, kernel)
    F = explicit_factor(kernel, X)
    if F is not None and F.shape[1] <= FACTOR_MAX_RANK:
        return scaled, F / np.sqrt(unit), unit
    if scaled.n <= FACTOR_MAX_RANK or (scaled.n <= LAPACK_PIVOTED_MAX
                                       and not isinstance(kernel, Kernel)):
        # K of at most 600 points is factored by LAPACK in a few milliseconds;
        # when it is of low rank to rounding (a precomputed linear kernel), the
        # factor is as good as explicit features.  (Not sought for kernlab's
        # kernels above 200 points: their rank is then rarely that low, and the
        # few milliseconds were a quarter of a fit on breast cancer at C = 1e6.)
        tol = max(_EXACT_RANK_TOL, scaled.n * scaled.rounding)
        F = pivoted_cholesky_columns(scaled.undoubled(), tol, verify=False,
                                     max_rank=FACTOR_MAX_RANK)
        if F is not None:
            return scaled, F, unit
    return scaled, None, unit


@dataclass(frozen=True)
class Polish:
    """One polish of an answer, as recorded in a solution's trace.

    Attributes
    ----------
    after_steps : int
        Working-set steps before it (0 for the answer of a factored QP).
    violation : float
        KKT violation of the answer it started from.
    free, at_C : int
        Free multipliers and multipliers at C in its last active sets.
    rounds : int
        Linear solves made.
    kkt_gap : float or None
        KKT violation of its answer (None if it did not settle: it then
        diverged, or ran out of rounds).
    moves : tuple of int
        Multipliers that changed sets after each solve (in a last round
        that diverged, possibly only the free ones that left the box: those
        were enough to give up).
    """

    after_steps: int
    violation: float
    free: int
    at_C: int
    rounds: int
    kkt_gap: object
    moves: tuple = ()


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
        The strategy whose answer passed.
    reason : str
        Why that strategy: what was tried before it and how far it missed.
    kkt_gap : float
        The worst KKT violation of the answer (see :func:`kkt_gap`).
    rank : int or None
        Columns of the factor of K in the QP (None for working sets).
    trace : tuple
        The working-set steps (:class:`kernlab._working_set.Step`) and
        polishes (:class:`Polish`), in order.
    """

    alpha: np.ndarray
    intercept: float
    decision: np.ndarray
    method: str
    reason: str
    kkt_gap: float
    rank: object = None
    trace: tuple = ()


class _Found:
    """An answer with its intercept, decision values, violation and their rounding."""

    def __init__(self, alpha, b, g, gap, rounding, *, cond=None):
        self.alpha, self.b, self.g, self.gap = alpha, b, g, gap
        self.rounding, self.cond = rounding, cond

    @property
    def passes(self):
        return self.gap + self.rounding <= KKT_TOL

    @property
    def worst(self):
        return self.gap + self.rounding


class _Log:
    """What a call of :func:`solve_dual` tried, and the events of its trace."""

    def __init__(self):
        self.tried = []   # (what, outcome): a _Found, or why it gave none
        self.trace = []
        self.best = None  # the _Found with the smallest violation

    def note(self, what, outcome):
        self.tried.append((what, outcome))
        if isinstance(outcome, _Found) and (self.best is None or
                                            outcome.worst < self.best.worst):
            self.best = outcome


# ----------------------------------------------------------------------------
# the strategies, in the order they are tried
# ----------------------------------------------------------------------------

def _by_factor(qp, log):
    """One QP with K = F F^T (a subset grown by violators above SHRINK_MIN points)."""
    found = _factored_attempt(qp, qp.factor, qp.C, f"factor (rank {qp.factor.shape[1]})", log)
    return found if found is not None and found.passes else None


def _by_hard_margin(qp, log):
    """The factored QP without the upper bound: the answer if it stays below C."""
    best = log.best
    if best is not None and best.alpha.max() >= qp.C * (1 - 1e-3):
        # multipliers at C: the hard-margin answer cannot be the soft one
        log.note("hard-margin QP", "skipped, multipliers at C")
        return None
    found = _factored_attempt(qp, qp.factor, np.inf, f"hard-margin QP (rank "
                              f"{qp.factor.shape[1]})", log)
    return found if found is not None and found.passes else None


def _by_working_sets(qp, log):
    """Decomposition into working sets from the best answer so far, polished at each stop."""
    start = None if log.best is None else log.best.alpha
    found = _working_sets(qp, start, log)
    log.note("working sets", found if found is not None else "no answer")
    return found if found is not None and found.passes else None


@dataclass(frozen=True)
class Strategy:
    """A way of solving the dual: its name, when it is tried, and how."""

    name: str
    when: str
    applies: object  # qp -> bool
    run: object      # (qp, log) -> _Found that passed, or None


#: The strategies :func:`solve_dual` tries, in order (see the module docstring).
STRATEGIES = (
    Strategy("factor", f"K = F F^T with F of at most {FACTOR_MAX_RANK} columns (the "
             "kernel's features, or K's rank to rounding)", lambda qp: qp.factor is not None,
             _by_factor),
    Strategy("hard-margin", "C is finite and the kernel has those features",
             lambda qp: qp.factor is not None and np.isfinite(qp.C), _by_hard_margin),
    Strategy("working-set", "the others did not answer (any kernel)", lambda qp: True,
             _by_working_sets),
)


def solve_dual(qp):
    """Solve the dual ``qp`` (a :class:`BoxQP`); returns a :class:`DualSolution`.

    The strategies of :data:`STRATEGIES` are tried in order.  Raises a
    ValueError when none finds an answer that passes the KKT check, and for
    the hard margin (``C = inf``) on data that are not separable in the
    kernel's feature space.
    """
    log = _Log()
    # One BLAS thread for the whole solve.  Its products and factors are small
    # (a working set's columns of K, a polish's moved columns, factors of at
    # most POLISH_MAX free multipliers), and on two busy cores a threaded
    # factor of that size ran several times slower than a single thread
    # (full-rank data at n = 2000, 1700 free: the fit took 10-18 times
    # LIBSVM's time instead of 4-5).  OpenBLAS's other thread also spins,
    # waiting for more work, after each threaded call: the products of the
    # polishes alone kept it busy for 40% of the fit's CPU time there, and
    # 20% of it on two moons at n = 3000, for no gain in time.
    with one_blas_thread():
        for strategy in STRATEGIES:
            if not strategy.applies(qp):
                if strategy.name == "factor":
                    log.note("factor", f"no thin factor (at most {FACTOR_MAX_RANK} columns) "
                             "of K")
                continue
            found = strategy.run(qp, log)
            if found is not None:
                return _solution(qp, found, strategy.name, log)
    _refuse(qp, log)


def _solution(qp, found, method, log):
    tried = [(what, how) for what, how in log.tried if how is not found]
    if tried:
        missed = "; ".join(f"{what}: {_describe(how)}" for what, how in tried)
        reason = f"{method} passed the KKT check after {missed}"
    else:
        reason = f"{method} passed the KKT check at its first attempt"
    if not np.isfinite(qp.C):
        worst = float(np.max(qp.y * (qp.r - found.g - found.b)))  # <= 0 when every margin is >= 1
        if worst > KKT_TOL:
            raise ValueError(
                "the hard-margin problem (C=inf) has no solution to working "
                "precision: the best classifier found misses a margin by "
                f"{worst:.3g}, so the classes are not separable in the kernel's "
                "feature space (its Gram matrix is numerically singular); use a "
                "finite C")
    rank = qp.factor.shape[1] if method != "working-set" and qp.factor is not None else None
    return DualSolution(found.alpha / qp.unit, found.b, found.g, method, reason, found.gap,
                        rank, tuple(log.trace))


def _describe(how):
    if isinstance(how, _Found):
        return f"KKT violation {how.gap:.3g}"
    return how


def _refuse(qp, log):
    """Raise the ValueError for a dual that no strategy solved to KKT accuracy.

    The message says what was seen: the smallest violation found, the
    support of that answer, the estimated rounding of its decision values
    (multipliers so large that K (alpha y) cannot be evaluated to the
    tolerance), and the conditioning of its free multipliers' system.
    """
    best = log.best
    steps = sum(isinstance(event, Step) for event in log.trace)
    if best is None:
        seen = "no strategy produced an answer (" + "; ".join(
            f"{what}: {how}" for what, how in log.tried) + ")"
    else:
        a = best.alpha
        free = int(((a > 0) & (a < qp.C)).sum()) if np.isfinite(qp.C) else int((a > 0).sum())
        at_C = int((a >= qp.C).sum()) if np.isfinite(qp.C) else 0
        seen = (f"the best answer found violates the KKT conditions by {best.gap:.3g} "
                f"(tolerance {KKT_TOL:g}, in units of the margin) after {steps} "
                f"working-set steps; it has {free + at_C} support vectors of {qp.n} "
                f"({free} free, {at_C} at C)")
        if best.rounding > KKT_TOL / 10:
            seen += (f"; its multipliers reach {a.max() / qp.unit:.3g} (sum "
                     f"{a.sum() / qp.unit:.3g}), so the decision values computed from them "
                     f"carry rounding errors of about {best.rounding:.2g}")
        if best.cond is not None and best.cond > 1e8:
            seen += (f"; the linear system of its free multipliers has a condition "
                     f"number of about {best.cond:.1g}")
    if qp.unit > 1e4 or qp.unit < 1e-4:
        seen += (f"; the kernel's diagonal reaches {qp.unit:.3g}, so C acts as "
                 f"C * {qp.unit:.3g} = {qp.C:.3g} on the scaled problem")
    if not np.isfinite(qp.C):
        raise ValueError(
            "the hard-margin problem (C=inf) has no solution to working precision: "
            f"{seen}; the classes are not separable in the kernel's feature space (or its "
            "Gram matrix is numerically singular); use a finite C")
    raise ValueError(f"the SVM dual with C={qp.C_given!r} could not be solved to working "
                     f"precision: {seen}; no model is returned")


# ----------------------------------------------------------------------------
# the factored QP
# ----------------------------------------------------------------------------

class SolverFailed(RuntimeError):
    """Clarabel gave no answer (in :func:`solve_dual`, the next strategy is tried)."""


def _factored_attempt(qp, F, C, what, log):
    """Solve the factored QP with bound C, polish and check; the _Found or None."""
    try:
        alpha = _solve_factored(F, qp, C)
    except SolverFailed as exc:
        log.note(what, str(exc))
        return None
    if C > qp.C and alpha.max() > qp.C:  # the hard-margin answer, valid below C
        log.note(what, "multipliers above C")
        return None
    found = _polished(qp, alpha, log, after_steps=0, thresholds=(1e-6, 1e-4, 1e-8))
    if found is None:  # the answer as it is, a start for the working sets
        alpha = _feasible(alpha, qp.y, qp.C)
        g = qp.gram.times(qp.y * alpha)
        found = _Found(alpha, _intercept(qp, g, alpha), g, kkt_gap(g, qp.y, alpha, qp.C, qp.r),
                       _rounding(alpha))
    log.note(what, found)
    return found


def _feasible(alpha, y, C, rel=1e-6):
    """An interior-point answer put on its bounds (within ``rel``) with ``y^T alpha = 0``."""
    alpha = np.clip(alpha, 0.0, C)
    scale = max(float(alpha.max()), np.finfo(float).tiny)
    alpha[alpha <= rel * (min(scale, C) if np.isfinite(C) else scale)] = 0.0
    if np.isfinite(C):
        alpha[alpha >= C * (1 - rel)] = C
    for _ in range(5):
        free = (alpha > 0) & (alpha < C) if np.isfinite(C) else alpha > 0
        residual = float(alpha @ y)
        if not free.any() or abs(residual) <= 1e-14 * scale * len(y):
            break
        alpha[free] -= y[free] * residual / free.sum()
        np.clip(alpha, 0.0, C, out=alpha)
    return alpha


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




# ----------------------------------------------------------------------------
# working sets
# ----------------------------------------------------------------------------

def _working_sets(qp, start, log):
    """The working-set method, stopped at ever finer violations, polished and checked.

    At each stop of ``_STOPPING`` the answer is checked, and polished when
    that is cheap (at most 600 free multipliers, or from 0.1 on).  Between
    stops, a polish is also tried whenever the steps since the last one cost
    as much as it did: with slow steps and a quick polish
    (make_classification(5000) at C = 100: 2000 steps from a violation of 5
    to 0.1, then a polish of three rounds) it ends the method early, and it
    never costs more than the steps themselves.  The costs are counted in
    operations (:func:`_step_cost`, :func:`_polish_cost`), not measured in
    seconds, so that the same data always take the same path to the same
    answer, whatever the load of the machine.  Returns the first answer that
    passes, else the best one seen.
    """
    gram = qp.gram
    if not gram.in_memory:
        gram = gram.cached(CACHE_BYTES, min_columns=4 * LARGE_SET_SIZE)
    tiebreak = None
    if gram.in_memory:  # K in memory: one product orders the start
        positive = qp.y > 0
        uniform = np.where(positive, 1.0 / max(positive.sum(), 1),
                           1.0 / max((~positive).sum(), 1))
        tiebreak = gram.times(qp.y * uniform)
    q = LARGE_SET_SIZE if len(qp.y) >= LARGE_SET_FROM else WORKING_SET_SIZE
    dual = WorkingSetDual(gram, qp.y, qp.C, q=q, p=qp.p, start=start,
                          tiebreak=tiebreak, callback=log.trace.append)
    qp_gram = _with_gram(qp, gram)
    best = None

    def polish(violation):
        found = _polished(qp_gram, dual.alpha.copy(), log, after_steps=dual.steps,
                          violation=violation, g=qp.y * (dual.G - qp.p), drift=dual.drift)
        done = log.trace[-1]  # its cost: each round moved the free and the changed
        moved = done.rounds * done.free + sum(done.moves)
        return found, _polish_cost(done.free, len(qp.y), moved, max(done.rounds, 1))

    try:
        # While the support fits in one working set, polishing costs about what
        # a step costs and often ends the method several steps before the
        # violation reaches the first stop (C = 1e6 on breast cancer: two
        # steps and a polish).  A step that raised the violation (as the
        # first from zero does) has not found the support: it is not polished.
        last = dual.violation()[0]
        for _ in range(_POLISHED_STEPS):
            if np.count_nonzero(dual.alpha) > dual.q:
                break
            steps = dual.steps
            gap = dual.run(_STOPPING[0], max_steps=1)
            if gap <= _STOPPING[0] or dual.steps == steps:
                break
            rose, last = gap >= last, gap
            if rose:
                continue
            found, _ = polish(gap)
            best = _better(best, found)
            if found is not None and found.passes:
                return found
        chunk = max(10, len(qp.y) // dual.q)
        per_step = _step_cost(len(qp.y), dual.q)
        polish_cost, stepping = None, 0.0
        for eps in _STOPPING:
            while True:
                steps = dual.steps
                # no more steps than those after which a polish is due
                free = _free_count(dual.alpha, qp.C)
                expected = polish_cost if polish_cost is not None else \
                    _polish_cost(free, len(qp.y), 3 * free, 3)
                limit = chunk
                if free <= POLISH_MAX:
                    limit = min(chunk, max(1, int(np.ceil((expected - stepping) / per_step))))
                gap = dual.run(eps, max_steps=limit)
                stepping += (dual.steps - steps) * per_step
                reached = gap <= eps
                stuck = dual.stalled or (dual.steps == steps and not reached)
                free = _free_count(dual.alpha, qp.C)
                if polish_cost is None:  # before the first: three rounds
                    polish_cost = _polish_cost(free, len(qp.y), 3 * free, 3)
                due = stepping >= polish_cost and free <= POLISH_MAX
                if not (reached or due or stuck):
                    continue
                found = _from_steps(qp_gram, dual)
                cheap = free <= POLISH_MAX and (eps <= 0.1 or free <= 600)
                if not found.passes and (due or (reached and cheap)):
                    polished, polish_cost = polish(found.gap)
                    found, stepping = _better(found, polished), 0.0
                best = _better(best, found)
                if found.passes:
                    return found
                if reached or stuck:
                    break
            if stuck:
                break
    except RuntimeError as exc:  # Clarabel failed on a step
        log.note("working-set step", str(exc))
    finally:
        gram.release()
    return best


def _free_count(alpha, C):
    return int(((alpha > 0) & (alpha < C)).sum()) if np.isfinite(C) else int((alpha > 0).sum())


def _step_cost(n, q):
    """Operations of one working-set step, in units of floating-point operations.

    CVXPY and Clarabel take about 3 ms a step (3e7 at 1e10 a second); the
    new points' columns of K, the gradient and the choice of the next set
    touch n q numbers, each some tens of operations.
    """
    return 3e7 + 60.0 * n * q


def _polish_cost(free, n, moved, rounds):
    """Operations of a polish, in the units of :func:`_step_cost`.

    Per round, a Cholesky factor of the free multipliers' matrix (free^3 / 3
    flops, at four times the rate of the rest: LAPACK's blocked factor ran
    at 4e10 a second on one core, 40 ms at free = 1700); and, over all
    rounds, the gradient from the ``moved`` columns of K.
    """
    return rounds * free**3 / 12 + 60.0 * n * moved


def _with_gram(qp, gram):
    """The same problem read through another view of its Gram matrix."""
    return BoxQP(gram, qp.y, qp.r, qp.C, qp.factor, qp.unit, qp.C_given)


def _better(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return b if b.worst < a.worst else a


def _from_steps(qp, dual):
    """The working-set answer as it stands, checked with the gradient the steps kept.

    ``G = Q alpha + p`` was updated with exact columns of K at every step;
    its accumulated rounding is bounded by ``dual.drift``.
    """
    alpha = dual.alpha.copy()
    g = qp.y * (dual.G - qp.p)
    b = _intercept(qp, g, alpha)
    gap = kkt_gap(g, qp.y, alpha, qp.C, qp.r)
    return _Found(alpha, b, g, gap, dual.drift + _rounding(alpha))


# ----------------------------------------------------------------------------
# polishing and checking an answer
# ----------------------------------------------------------------------------

def _rounding(alpha):
    """Estimated rounding of ``g = K (alpha y)`` in floating point (K scaled to |K_ij| <= 1).

    Each g_j sums n products of size up to |alpha_i|: its rounding is about
    ``sqrt(n) u ||alpha||_2`` (u the unit roundoff); four times that is taken.
    """
    return 4.0 * np.sqrt(len(alpha)) * _UNIT_ROUNDOFF * float(np.linalg.norm(alpha))


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
    >>> y = np.array([-1.0, 1.0]); alpha = np.array([0.5, 0.5])
    >>> g = np.array([[2.0, 0.0], [0.0, 2.0]]) @ (alpha * y)  # K = 2 I: margin 1
    >>> kkt_gap(g, y, alpha, C=10.0)
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


def _polished(qp, alpha, log, *, after_steps, violation=np.nan, thresholds=(0.0,), g=None,
              drift=0.0):
    """Polish an answer and check it: a _Found, or None when the polish does not settle.

    The answers of working sets sit exactly on their bounds (threshold 0)
    and come with their ``g`` (and its ``drift``); an interior-point answer
    is a little inside its bounds.
    """
    outcome = _polish(qp, alpha, thresholds, g, drift)
    if outcome.alpha is None:
        log.trace.append(Polish(after_steps, float(violation), outcome.free, outcome.at_C,
                                outcome.rounds, None, tuple(outcome.moves)))
        return None
    gap = kkt_gap(outcome.g, qp.y, outcome.alpha, qp.C, qp.r)
    log.trace.append(Polish(after_steps, float(violation), outcome.free, outcome.at_C,
                            outcome.rounds, gap, tuple(outcome.moves)))
    return _Found(outcome.alpha, outcome.b, outcome.g, gap,
                  _rounding(outcome.alpha) + outcome.drift, cond=outcome.cond)


@dataclass
class _Polished:
    """What :func:`_polish` found: the answer (None if it did not settle) and its sets."""

    alpha: object
    b: float = None
    g: object = None
    drift: float = 0.0
    cond: object = None
    rounds: int = 0
    free: int = 0
    at_C: int = 0
    moves: list = None


def _polish(qp, alpha, thresholds, g=None, drift=0.0):
    """Active-set Newton: solve the KKT conditions for a guess of the active sets.

    For a guess (``a_i = 0``, ``a_i = C``, free), the KKT conditions make the
    free multipliers and b solve the linear system ``g_j + b = r_j`` (j free),
    ``sum_i a_i y_i = 0``.  Free multipliers that leave [0, C] go to the
    bound they crossed; a multiplier on a bound whose condition fails by
    more than ``_RELEASE`` becomes free; and the system is solved again,
    until nothing changes (the answer is then optimal: the problem is
    convex) or for at most ``_POLISH_ROUNDS`` rounds.  A round that changes
    more than twice as many sets as the best round so far, or two in a row
    that change more than it, or one that changes more than it and more
    than ``_POLISH_RISE_MAX``, are diverging (ill-conditioned systems, where
    the free multipliers swing far: two moons went 937, 2468, 3448): the
    polish gives up.  (Converging rounds may rise a little: 184, 188, 103.)
    So does a round of more than ``_POLISH_LU_MAX`` free multipliers whose
    system is singular to working precision.  Each round solves its system
    from the factor of the round before when few sets changed
    (:class:`kernlab._linalg.SubsetSaddle`); an answer from such a factor is
    checked with g before the polish settles on it.
    The free multipliers that left the box are counted first: when they
    alone make a round diverge, it ends there, before g is brought up to
    date (the same verdict, without the columns of every multiplier that
    moved).
    The first guess puts multipliers within ``threshold`` (relative to
    their scale, or to C) on the bounds; the thresholds are tried in turn.

    ``g = K (y alpha)`` is updated round by round with the columns of the
    multipliers that moved (not the whole support: two moons at n = 5000 has
    1000 support vectors and 50 free ones); ``drift`` bounds its rounding.

    Returns a :class:`_Polished` (its ``alpha`` None if no guess settled).
    """
    y, r, C = qp.y, qp.r, qp.C
    finite = np.isfinite(C)
    scale = max(float(alpha.max()), np.finfo(float).tiny)
    if finite:
        scale = min(scale, C)
    if g is None:
        g = qp.gram.times(y * alpha)
        drift = _rounding(alpha)
    failed = _Polished(None, moves=[])
    for rel in thresholds:
        at_zero = alpha <= rel * scale
        at_C = (alpha >= C * (1 - rel)) if finite else np.zeros_like(at_zero)
        if (~(at_zero | at_C)).sum() > POLISH_MAX:
            return failed
        cur, g_cur, drift_cur = alpha, g, drift
        fewest, rising, rounds, moves = np.inf, 0, 0, []
        system = SubsetSaddle(qp.gram.block, qp.n)  # its factor kept from round to round
        while rounds < _POLISH_ROUNDS:
            rounds += 1
            free = ~(at_zero | at_C)
            fixed = np.where(at_C, C, 0.0) if finite else np.zeros(len(y))
            if free.any():
                solved = _solve_free_set(qp, free, fixed, cur, g_cur, system)
                if solved is None:
                    break
                new, b, residual_ok, cond = solved
            else:  # every multiplier on a bound: b is any point of an interval
                new, b = fixed, None
                residual_ok, cond = abs(new @ y) <= 1e-9 * scale * len(y), None
            below = free & (new <= 0)
            above = free & (new >= C) if finite else np.zeros_like(free)
            # Free multipliers that left the box change sets whatever g says:
            # when they alone make the round diverge, it is given up before g
            # is updated with the columns of every multiplier that moved (a
            # few tens to hundreds of columns of K in the failed polishes of
            # two moons at n = 5000; a divergence that only the releases show
            # still needs them all)
            left = int(below.sum() + above.sum())
            if _diverging(left, fewest, rising):
                moves.append(left)
                failed = _Polished(None, rounds=rounds, free=int(free.sum()),
                                   at_C=int(at_C.sum()), moves=moves)
                break
            # g follows the multipliers that moved; the conditions are judged
            # with the unclipped solution, as the active-set Newton method
            # (semismooth Newton) prescribes
            moved = np.flatnonzero(new != cur)
            if moved.size:
                step = y[moved] * (new[moved] - cur[moved])
                g_cur = g_cur + qp.gram.cols(moved) @ step
                drift_cur += (moved.size + 2) * _UNIT_ROUNDOFF * float(np.abs(step).sum())
            cur = new
            if b is None:
                lo, hi = _intercept_interval(qp, g_cur, at_zero, at_C)
                b = _midpoint(lo, hi)
            excess = y * (r - g_cur - b)  # <= 0 at zero, >= 0 at C
            release = (at_zero & (excess > _RELEASE)) | (at_C & (excess < -_RELEASE))
            changes = left + int(release.sum())
            moves.append(changes)
            failed = _Polished(None, rounds=rounds, free=int(free.sum()),
                               at_C=int(at_C.sum()), moves=moves)
            if changes == 0:
                if residual_ok and system.last_update:
                    # solved from an updated factor: its equations are checked
                    # with g, whose columns of K are exact
                    scale = max(1.0, float(np.abs(r[free]).max()),
                                float(np.abs(g_cur[free]).max()))
                    if np.abs(r[free] - g_cur[free] - b).max() > 1e-8 * scale:
                        system.last_update = False
                        system.forget()  # the same sets again, with a new factor
                        continue
                if residual_ok:
                    return _Polished(new, b, g_cur, drift_cur, cond, rounds,
                                     int(free.sum()), int(at_C.sum()), moves)
                break
            if _diverging(changes, fewest, rising):
                break
            rising = rising + 1 if changes > fewest else 0
            fewest = min(fewest, changes)
            at_zero = (at_zero & ~release) | below
            at_C = (at_C & ~release) | above
            if (~(at_zero | at_C)).sum() > POLISH_MAX:
                break
    return failed


def _diverging(changes, fewest, rising):
    """True when a polish round that changes ``changes`` sets is diverging.

    ``fewest`` is the fewest changes of a round so far and ``rising`` the
    rounds in a row just before this one that changed more than it.  A round
    may change more than the fewest only while it changes at most
    ``_POLISH_RISE_MAX`` sets (converging rounds rose from 184 to 188; two
    moons at n = 3000 went 2733, 2848, 1578, 2267, 1832 and never settled).
    """
    return changes > 2 * fewest or (changes > fewest and
                                    (rising + 1 == 2 or changes > _POLISH_RISE_MAX))


def _solve_free_set(qp, free, fixed, cur, g, system=None):
    """KKT linear system for a guess of the active sets; ``(alpha, b, ok, cond)`` or None.

    On the free points F the conditions read ``g_j + b = r_j`` with
    ``g = K (y alpha)``: with ``z = y_F * alpha_F`` that is
    ``K_FF z + b 1 = r_F - s_F`` and ``1^T z = -y^T fixed``, where ``s_F`` is
    the bound multipliers' share of the free rows, ``K_F: (y fixed)``
    (``fixed`` holds their values, 0 or C).  It is read off ``g = K (y cur)``
    for the current multipliers, less the columns where ``cur`` is not
    ``fixed``.  ``system`` (a :class:`kernlab._linalg.SubsetSaddle` on the
    scaled K, one per polish) keeps its Cholesky factor from round to round,
    so that a round that changes few sets forms neither K_FF nor a new factor.
    None when there are no free points, or more than ``_POLISH_LU_MAX`` and
    Cholesky cannot solve their system.
    """
    y, r = qp.y, qp.r
    F = np.flatnonzero(free)
    if F.size == 0:
        return None
    c = r[F] - g[F]  # + K_FF (y_F * (cur_F - fixed_F)), added by the solve
    extra = np.flatnonzero((cur != fixed) & ~free)  # multipliers just sent to a bound
    if extra.size:
        c += qp.gram.block(F, extra) @ (y[extra] * (cur[extra] - fixed[extra]))
    if system is None:
        system = SubsetSaddle(qp.gram.block, qp.n)
    # (on one BLAS thread, as all of solve_dual: see there)
    solved = system.solve(F, c, -float(y @ fixed), plus=y[F] * (cur[F] - fixed[F]),
                          fallback=F.size <= _POLISH_LU_MAX)
    if solved is None:  # singular to working precision, and too large for LU
        return None
    z, b, residual_ok, cond = solved
    new = fixed.copy()
    new[F] = y[F] * z
    return new, b, residual_ok, cond


def _midpoint(lo, hi):
    """The middle of [lo, hi], or its finite end, or 0."""
    if np.isfinite(lo) and np.isfinite(hi):
        return float((lo + hi) / 2)
    return float(lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0)


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
    return _midpoint(lo, hi)


def _intercept_interval(qp, g, at_zero, at_C):
    """Interval of b allowed by the KKT conditions of the multipliers on a bound."""
    y, G = qp.y, qp.r - g
    lower = G[(at_zero & (y > 0)) | (at_C & (y < 0))]
    upper = G[(at_zero & (y < 0)) | (at_C & (y > 0))]
    lo = lower.max() if lower.size else -np.inf
    hi = upper.min() if upper.size else np.inf
    return lo, hi
