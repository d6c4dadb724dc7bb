"""The SVM dual by decomposition: a sequence of small QPs on working sets, solved by CVXPY.

When the Gram matrix has full numerical rank no thin factor ``K = F F^T``
exists, and a QP in all n variables at once costs O(n^3).  A working-set
method (Osuna, Joachims' SVMlight, LIBSVM) changes only the q multipliers
of a working set B at a time:

    minimise    1/2 a^T Q_BB a + (G_B - Q_BB alpha_B)^T a
    subject to  0 <= a <= C,   y_B^T a = y_B^T alpha_B

where ``Q_ij = y_i y_j K_ij`` and ``G = Q alpha + p`` is the gradient of the
dual objective, kept up to date with the q columns of K of the set after
each step.  With ``v = -y * G``, a point is optimal iff ``max_up v <=
min_low v`` (see :mod:`kernlab.svm_dual` for the sets "up" and "low"); the
difference is the violation, and the method stops when it is below ``eps``.

Which points make a working set decides whether the method converges in
tens of steps or stalls.  A study of the stall on full-rank kernels with
large support sets (two moons at C = 1000, diabetes at C = 100 and 1000)
found that sets of the q most violating points zigzag: once the support is
larger than a set, each step moves a few of its points against multipliers
that the next step, on other points, pushes back.  After 1500 steps two
moons at C = 1000 was still at a violation of 3.5 (at 46% of the optimal
objective).  A set is therefore made of

1. the free multipliers (``0 < alpha_i < C``) of the previous set, at most
   ``q / 4`` of them (all the free ones while there are at most ``3 q / 4``):
   they are the points whose multipliers interact, and solving them
   together with the new ones is what stops the zigzag (as in SVMlight's
   and Zanni, Serafini and Zanghirati's decomposition).  Keeping more
   helps no ill-conditioned case measured and costs well-conditioned ones
   steps (full-rank data at n = 5000: 560 steps to 1e-5 keeping up to
   q / 2, 390 keeping q / 4);
2. the others new, chosen by LIBSVM's second-order rule (Fan, Chen and
   Lin 2005): the most violating point i of "up" in turn, paired with the
   point j of "low" that most decreases the objective in the direction
   ``e_i - e_j``, ``(v_i - v_j)^2 / (K_ii + K_jj - 2 K_ij)``.

Two moons at C = 1000 then reaches a violation of 1e-3 in 80 steps.

Every subproblem is the same compiled, parameterised CVXPY problem
(disciplined parametrized programming): only the values of its parameters
change, so CVXPY canonicalises it once.  ``Q_BB`` enters as its triangular
pivoted Cholesky factor.  A compiled problem is kept for the next fit in
the same thread, but it holds no state of a fit: every parameter is set
before each solve, Clarabel is set up afresh from the canonical data
(no warm start), and a problem whose solve raised is thrown away.  When C
is far above the multipliers (C = 1e6), a step first solves its
subproblem without the upper bound, in half the iterations, and keeps that
answer if it stays inside the box.

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> from kernlab._columns import Gram
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((80, 5)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
>>> dual = WorkingSetDual(Gram(Gaussian(sigma=2.0), X), y, C=1.0, q=16)
>>> bool(dual.run(eps=1e-6) <= 1e-6 and abs(dual.alpha @ y) < 1e-9)
True
"""

import contextlib
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from scipy import sparse
from scipy.linalg import lapack

from ._linalg import one_blas_thread, saddle_solve

__all__ = ["WorkingSetDual", "Step"]

# Multipliers this close (relative to their scale, or to C) to a bound are put
# on it: an interior-point answer stays a little inside its bounds, and a
# multiplier left at 1e-8 C instead of 0 would count as a violator forever.
_SNAP = 1e-6
# When C is this many times the scale of the multipliers, a step first solves
# its subproblem without the upper bound.
_FAR_BOUND = 1e3
# While the free multipliers fill at most this fraction of a working set, all
# of them stay in the next one (chunking): with few support vectors the
# method then ends in the few steps that find them all.
_KEEP_SUPPORT = 0.75
# Compiled subproblems kept per thread, for the next fit with the same size.
_COMPILED_MAX = 4
_compiled = threading.local()
# Without iterative refinement a step's Clarabel solve takes a quarter less
# time (q = 64); every answer is polished and checked against the KKT
# conditions of the whole problem.
_TIGHT = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8,
              iterative_refinement_enable=False, direct_solve_method="qdldl")
# Unit roundoff: the rounding of each update of the gradient is bounded by a
# few of these times the size of the update (see WorkingSetDual.drift).
_UNIT_ROUNDOFF = np.finfo(float).eps / 2


@dataclass(frozen=True)
class Step:
    """One step of the decomposition, as reported to a ``callback``.

    Attributes
    ----------
    number : int
        Steps taken so far, this one included.
    working_set : ndarray of int
        The points whose multipliers the step's QP solved for.
    new : ndarray of int
        Those of them chosen afresh (the others were kept from the last set).
    violation : float
        The KKT violation ``max_up v - min_low v`` after the step.
    changed : int
        Multipliers that moved.
    """

    number: int
    working_set: np.ndarray
    new: np.ndarray
    violation: float
    changed: int


class _Subproblem:
    """One compiled CVXPY problem for working sets of size q, re-solved with new values.

    With ``Q_BB = R^T R`` and a scale ``s`` of the multipliers, the variable is
    ``x = a / s`` and the objective, divided by s, is ``s/2 ||R x||^2 + p^T x``
    (``R`` is passed already multiplied by ``sqrt(s)``); the upper bound
    ``C / s`` is a parameter, absent for the hard margin (C = inf).  R is
    upper triangular (a pivoted Cholesky factor, the set ordered by its
    pivots), a parameter of its q (q + 1) / 2 entries scattered into the
    triangle: half the entries of a full square root, which Clarabel solves in
    a third of the time (4 ms against 12 ms at q = 64).
    """

    def __init__(self, q, bounded):
        self.triangle = np.triu_indices(q)
        size = len(self.triangle[0])
        rows, cols = self.triangle
        scatter = sparse.csc_array((np.ones(size), (cols * q + rows, np.arange(size))),
                                   shape=(q * q, size))  # into R in column order
        self.R = cp.Parameter(size)
        self.p = cp.Parameter(q)
        self.t = cp.Parameter(q)
        self.rhs = cp.Parameter()
        self.x = cp.Variable(q)
        self.upper = cp.Parameter(nonneg=True) if bounded else None
        constraints = [self.x >= 0, self.t @ self.x == self.rhs]
        if bounded:
            constraints.append(self.x <= self.upper)
        R = cp.reshape(scatter @ self.R, (q, q), order="F")
        objective = cp.Minimize(0.5 * cp.sum_squares(R @ self.x) + self.p @ self.x)
        self.problem = cp.Problem(objective, constraints)
        assert self.problem.is_dpp()

    def solve(self, R, p, t, rhs, upper):
        """Set every parameter, solve from scratch, return x (RuntimeError if no answer)."""
        self.R.value = R[self.triangle]
        self.p.value, self.t.value, self.rhs.value = p, t, rhs
        if self.upper is not None:
            self.upper.value = upper
        try:
            with warnings.catch_warnings():
                # "Solution may be inaccurate": every step is followed by the
                # violation of the whole problem, and the caller's KKT check.
                warnings.filterwarnings("ignore", message="Solution may be inaccurate",
                                        category=UserWarning)
                self.problem.solve(solver=cp.CLARABEL, warm_start=False, **_TIGHT)
        except (cp.error.SolverError, ValueError) as exc:
            raise RuntimeError(f"an SVM working-set subproblem could not be solved by "
                               f"Clarabel: {exc}") from exc
        if self.problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or \
                self.x.value is None:
            raise RuntimeError("Clarabel did not solve an SVM working-set subproblem "
                               f"(status {self.problem.status!r})")
        return np.asarray(self.x.value, dtype=np.float64)


def _solve_subproblem(q, bounded, *args):
    """Solve with the compiled :class:`_Subproblem` for ``(q, bounded)`` of this thread.

    Canonicalising a problem costs several of its solves, so it is kept per
    thread (the most recently used few); one whose solve raised is dropped,
    so that no failure of one fit reaches the next.
    """
    cache = getattr(_compiled, "problems", None)
    if cache is None:
        cache = _compiled.problems = {}
    key = (q, bool(bounded))
    sub = cache.pop(key, None) or _Subproblem(q, bounded)
    x = sub.solve(*args)  # on an exception the problem is not put back
    cache[key] = sub      # most recently used last
    while len(cache) > _COMPILED_MAX:
        del cache[next(iter(cache))]
    return x


class WorkingSetDual:
    """State of the decomposition method: multipliers, gradient and the set's columns.

    Parameters
    ----------
    gram : kernlab._columns.Gram
        The Gram matrix (scaled to a unit diagonal by the caller), with a
        column store if it is not in memory.
    y : ndarray of shape (n,)
        Signs in {-1, +1} (the labels for classification).
    C : float
        Box bound (np.inf for the hard margin).
    q : int
        Size of the working set.
    p : ndarray of shape (n,), optional
        Linear term of the dual (``-1`` for classification).
    start : ndarray of shape (n,), optional
        Multipliers to start from (used when they satisfy the equality).
    tiebreak : ndarray of shape (n,), optional
        Order among points that violate the conditions equally (as all do
        at the start from zero): points are ranked as if the violation
        ``v`` were ``v - s * tiebreak`` for an infinitesimal s > 0.  With
        ``tiebreak = K (y * u)``, ``u`` uniform within each class, that is
        the ranking of the start ``s * u`` (the points the difference of
        the class means in feature space classifies worst come first).
    callback : callable, optional
        Called with a :class:`Step` after every step.
    """

    def __init__(self, gram, y, C, q=64, *, p=None, start=None, tiebreak=None,
                 callback=None):
        self.gram, self.y, self.C = gram, y, C
        n = len(y)
        self.q = min(q, n)
        self.p = -np.ones(n) if p is None else np.asarray(p, dtype=np.float64)
        self.alpha = np.zeros(n)
        self.G = self.p.copy()
        self.diag = gram.diag()
        # Rounding accumulated in G, bounded step by step: a product of
        # entries of K (at most 1 in size, K having a unit diagonal) with a
        # change d of the multipliers adds at most about (q + 2) eps |d|_1.
        self.drift = 0.0
        if start is not None:
            start = np.clip(start, 0.0, C)
            if abs(start @ y) <= 1e-12 * max(float(start.max()), 1e-300) * n:
                self.alpha = start
                self.G += y * gram.times(y * start)
                self.drift += 4 * np.sqrt(n) * _UNIT_ROUNDOFF * np.abs(start).sum()
        # Multipliers are of order 1 / max K_ii when nothing bounds them.
        self.floor = 1.0 / max(float(np.max(self.diag)), np.finfo(float).tiny)
        self.tiebreak = np.zeros(n) if tiebreak is None else tiebreak
        self.callback = callback
        self.B = np.zeros(0, dtype=np.intp)      # the working set, slot by slot
        self._ready = (np.zeros(0, dtype=np.intp), np.zeros((n, 0)))  # see _second_order
        self.W = np.empty((n, self.q), order="F")  # W[:, s] = K[:, B[s]]
        self._K_BB = np.empty((self.q, self.q))     # _K_BB[s, t] = K[B[s], B[t]]
        self.steps = 0
        self.best, self.since_best = np.inf, 0
        self.patience = max(200, 10 * n // self.q)

    # ------------------------------------------------------------ conditions
    def violation(self):
        """``max_up v - min_low v`` with ``v = -y * G``, the sets and v."""
        y, a, C = self.y, self.alpha, self.C
        below_C = a < C if np.isfinite(C) else np.ones(len(a), dtype=bool)
        up = (below_C & (y > 0)) | ((a > 0) & (y < 0))
        low = (below_C & (y < 0)) | ((a > 0) & (y > 0))
        v = -y * self.G
        if not up.any() or not low.any():
            return 0.0, v, up, low
        return float(v[up].max() - v[low].min()), v, up, low

    # ------------------------------------------------------------- selection
    def select(self, v, up, low):
        """The next working set: kept free multipliers, then new points by second order.

        Returns ``(B, new)``: B has the kept points in the slots they held.
        """
        a, C, q = self.alpha, self.C, self.q
        free = (a > 0) & (a < C) if np.isfinite(C) else a > 0
        n_free = int(free.sum())
        if n_free <= _KEEP_SUPPORT * q:
            kept = np.flatnonzero(free)
        else:  # the free ones of the last set, at most a quarter of a set
            kept = self.B[free[self.B]][:q // 4]
        wanted = q - len(kept)
        taken = np.zeros(len(a), dtype=bool)
        taken[kept] = True
        new = self._second_order(v, up & ~taken, low & ~taken, wanted)
        if len(new) < wanted:  # fill with any other points (they stay put if optimal)
            taken[new] = True
            rest = np.flatnonzero(~taken)
            new = np.concatenate([new, rest[:wanted - len(new)]])
        # kept points stay in their slots; the new ones take the others
        B = self.B.copy()
        if len(B) < q:
            B = np.concatenate([B, np.full(q - len(B), -1, dtype=np.intp)])
        stays = np.isin(B, kept)
        slots = np.flatnonzero(~stays)
        extra = np.setdiff1d(kept, B[stays], assume_unique=True)  # kept, not in the last set
        fill = np.concatenate([extra, new]).astype(np.intp)
        B[slots[:len(fill)]] = fill
        return B, fill

    def _second_order(self, v, up, low, count):
        """``count`` points: each most violating i of up with its best j of low.

        j maximises the objective's decrease along ``e_i - e_j`` (LIBSVM's
        WSS 2), ``(v_i - v_j)^2 / (K_ii + K_jj - 2 K_ij)``, among the points
        of low with ``v_j < v_i``; ties of v are broken by ``tiebreak``.
        """
        half = max(1, count // 2)
        ups = _most(np.flatnonzero(up), -v, self.tiebreak, half)
        if ups.size == 0 or not low.any():
            return np.zeros(0, dtype=np.intp)
        v_up = v[ups]
        # Only the points of low with v_j below some v_i can pair with one: the
        # others gain nothing, and their kernel values are not computed (full-rank
        # data at n = 10000: a median of 6800 of 8400 points of low; two moons
        # at n = 5000: 2300 of 2500).
        lows = np.flatnonzero(low & (v < v_up.max()))
        if self.gram.in_memory:  # the i's columns are read anyway: kept for the step
            self._ready = (ups, self.gram.cols(ups))
        chosen = []
        if lows.size:
            # (j among the most violating points of low only: twice the steps on
            # two moons, where at the start every point of low violates alike)
            if self.gram.in_memory:
                K_i = self._ready[1].T[:, lows]  # (|ups|, |lows|): one row per i
            else:  # only these rows; the step computes the columns on its second thread
                K_i = self.gram.block(ups, lows)
            gain = self._gains(ups, lows, v_up, v[lows], K_i)
            for k, i in enumerate(ups):
                if len(chosen) >= count:
                    break
                chosen.append(i)
                j = int(np.argmax(gain[k]))
                if gain[k, j] < 0 or len(chosen) >= count:
                    continue
                gain[k + 1:, j] = -1.0  # j is taken
                chosen.append(lows[j])
        else:
            chosen = list(ups[:count])
        chosen = np.array(list(dict.fromkeys(chosen)), dtype=np.intp)
        if len(chosen) < count:  # more of the most violating points of low
            taken = np.zeros(len(v), dtype=bool)
            taken[chosen] = True
            more = _most(np.flatnonzero(low & ~taken), v, -self.tiebreak, count - len(chosen))
            chosen = np.concatenate([chosen, more])
        return chosen

    def _gains(self, ups, lows, v_up, v_low, K_i):
        """Second-order gains ``(v_i - v_j)^2 / (K_ii + K_jj - 2 K_ij)``, one row per i.

        -1 where ``v_j >= v_i`` (no descent along ``e_i - e_j``).  Computed in
        place in ``K_i`` (a fresh array), in the rounding order of the formula.
        """
        gain = np.add(self.diag[ups][:, None], self.diag[lows][None, :])
        K_i *= 2.0
        gain -= K_i
        np.maximum(gain, 1e-12, out=gain)
        diff = np.subtract(v_up[:, None], v_low[None, :], out=K_i)
        worse = diff <= 0.0
        np.square(diff, out=diff)
        np.divide(diff, gain, out=gain)
        gain[worse] = -1.0
        return gain

    # ------------------------------------------------------------------ step
    def step(self, B, new, pool=None):
        """Solve the subproblem on B (new points: ``new``) and update alpha and G.

        The subproblem needs only the q x q block of K; the n rows of the new
        points' columns are needed after it, for the gradient.  With a
        ``pool`` (a thread), they are computed there while CVXPY and Clarabel
        solve the subproblem: NumPy and BLAS release the GIL, so the two
        cores work at once.
        """
        y, C = self.y, self.C
        pending, later = None, None
        # K_BB slot by slot: the kept points' block from the last step, the new
        # points' rows and columns computed, before the second thread starts on
        # their n rows (gathering the q rows of B from W touched a page per
        # entry: 3 ms a step at n = 10000)
        K_BB = self._K_BB[:len(B), :len(B)]
        if new.size:
            slots = np.flatnonzero(np.isin(B, new))
            cross = self.gram.block(B, B[slots])
            K_BB[:, slots] = cross
            K_BB[slots, :] = cross.T
            ready, columns = self._ready
            have = np.isin(B[slots], ready)
            if have.any():  # columns computed by the selection
                where = {point: k for k, point in enumerate(ready)}
                self.W[:, slots[have]] = columns[:, [where[i] for i in B[slots[have]]]]
            if (~have).any():
                later = slots[~have]
                if pool is None:
                    self.W[:, later] = self.gram.cols(B[later])
                else:
                    pending = pool.submit(self.gram.cols, B[later])
        self.B = B
        yB = y[B]
        Q_BB = K_BB * np.outer(yB, yB)
        order, R = _triangular_root(Q_BB)  # R^T R = Q_BB in the pivots' order
        a_B = self.alpha[B]
        p = self.G[B] - Q_BB @ a_B
        # The variable of the subproblem is a / s, with s the scale of the
        # multipliers: snapping at _SNAP is then relative to them, not to C
        # (with C = 1e6 and multipliers near 1, a / C would snap them to 0).
        s = max(float(self.alpha.max()), self.floor)
        if np.isfinite(C):
            s = min(s, C)
        rhs = float(yB @ a_B) / s
        args = (np.sqrt(s) * R, p[order], yB[order], rhs)
        x = None
        if np.isfinite(C) and C / s >= _FAR_BOUND:
            # A box far wider than the multipliers costs Clarabel twice the
            # iterations (C = 1e6: 26 against 11); without the bound the answer
            # is the subproblem's own whenever it stays inside the box.
            try:
                x = _solve_subproblem(len(B), False, *args, None)
            except RuntimeError:  # unbounded (Q_BB singular), or no answer: use the box
                x = None
            if x is not None and x.max() > C / s:
                x = None
        if x is None:
            x = _solve_subproblem(len(B), np.isfinite(C), *args, C / s)
        x = _snap_box(x, yB[order], rhs, C / s)
        new_a = np.empty(len(B))
        new_a[order] = x * s
        new_a[order[x == C / s]] = C  # exactly C, whatever the rounding of s
        new_a = _exact(Q_BB, self.G[B] - Q_BB @ a_B, yB, float(yB @ a_B), C, new_a)
        delta = new_a - a_B
        changed = np.flatnonzero(delta)
        if pending is not None:
            self.W[:, later] = pending.result()
        if changed.size:
            self.alpha[B] = new_a
            self.G += y * (self.W[:, :len(B)] @ (yB * delta))
            self.drift += (len(B) + 2) * _UNIT_ROUNDOFF * np.abs(delta).sum()
        self.steps += 1
        return changed.size

    def run(self, eps, max_steps=None):
        """Iterate until the violation is at most ``eps``; returns the final violation.

        Stops after ``max_steps`` steps, or when ``self.patience`` steps in a
        row (by default 200, or ten sweeps of n / q steps if more) have not
        lowered the smallest violation seen (``self.stalled``): rounding, or
        a problem too ill-conditioned for its scale.
        """
        max_steps = max_steps or max(500, 50 * len(self.y) // self.q)
        # The q x q algebra is far too small to gain from BLAS threads, and on a
        # busy machine their start-up dominates each step.  Kernel columns that
        # are computed (not read from a matrix in memory) are computed on a
        # second thread while each subproblem is solved.
        with one_blas_thread(), _columns_thread(not self.gram.in_memory) as pool:
            gap, v, up, low = self.violation()
            for _ in range(max_steps):
                if gap <= eps or self.stalled:
                    return gap
                B, new = self.select(v, up, low)
                changed = self.step(B, new, pool)
                gap, v, up, low = self.violation()
                if gap < self.best * (1 - 1e-3):
                    self.best, self.since_best = gap, 0
                else:
                    self.since_best += 1
                if self.callback is not None:
                    self.callback(Step(self.steps, B.copy(), new.copy(), gap, changed))
        return gap

    @property
    def stalled(self):
        """True when ``patience`` steps in a row have not lowered the best violation."""
        return self.since_best >= self.patience


@contextlib.contextmanager
def _columns_thread(wanted):
    """A thread for kernel columns during a run (None if not ``wanted``), shut down after."""
    if not wanted:
        yield None
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool


def _most(idx, key, tiebreak, count):
    """The ``count`` entries of ``idx`` of smallest ``key`` (ties: smallest ``tiebreak``), in order.

    A partition finds the count-th key first, so that only the entries up to it
    (and its ties: all of them at the start from zero) are sorted.
    """
    if idx.size > count:
        kth = np.partition(key[idx], count - 1)[count - 1]
        idx = idx[key[idx] <= kth]
    return idx[np.lexsort((tiebreak[idx], key[idx]))][:count]


def _triangular_root(Q):
    """``(order, R)``: R upper triangular with ``R^T R = Q[order][:, order]``.

    A pivoted Cholesky factor (LAPACK's dpstrf) of the positive
    semi-definite Q; the rows past its numerical rank are zero.
    """
    c, piv, rank, info = lapack.dpstrf(Q, tol=-1.0, lower=0)
    if info < 0:
        raise ValueError(f"dpstrf rejected argument {-info} of a working set's matrix")
    R = np.triu(c)
    R[rank:] = 0.0
    return piv - 1, R


def _exact(Q, p, y, rhs, C, a, rounds=20):
    """The subproblem's answer made exact by active-set steps from the approximate ``a``.

    Clarabel's answer is accurate to its tolerances, about 1e-8 of the
    multipliers' scale; with C = 1000 on a full-rank kernel that leaves the
    gradient wrong by 1e-5, and the method cycles between working sets at
    violations of 1e-5 to 1e-4 (the free multipliers' system is so
    ill-conditioned that such errors swing them by tens).  From ``a``
    (feasible), each round solves the KKT conditions of the subproblem on
    the current sets (``a_i = 0``, ``a_i = C``, free) for the step from the
    current point, and takes it as far as the box allows (a primal
    active-set method: the objective never increases); when the whole step
    fits, bound multipliers whose condition fails become free.  Returns the
    exact answer, or ``a`` if none is found in ``rounds`` rounds.
    """
    finite = np.isfinite(C)
    at_zero = a <= 0.0
    at_C = a >= C if finite else np.zeros_like(at_zero)
    tol = 1e-10 * max(1.0, float(np.abs(p).max()), float(np.abs(Q).max()) * float(a.max()))
    x = a.copy()
    for _ in range(rounds):
        free = np.flatnonzero(~(at_zero | at_C))
        if free.size:
            # the step from x, not the solution itself: where Q_FF is singular
            # (a kernel of low rank) the solutions form a face of the box, and
            # the least-norm step from a point near it stays near it
            sol, ok, _ = saddle_solve(Q[np.ix_(free, free)], y[free], -(Q[free] @ x + p[free]),
                                      rhs - y @ x)
            if not ok:
                return a
            target, mu = x.copy(), sol[-1]
            target[free] += sol[:-1]
        else:
            target, mu = x, None
        d = target - x
        # the longest step towards the target that stays in the box
        step, blocking = 1.0, np.zeros(len(x), dtype=bool)
        down = d < 0
        up = (d > 0) if finite else np.zeros_like(down)
        ratios = np.full(len(x), np.inf)
        ratios[down] = x[down] / -d[down]
        ratios[up] = (C - x[up]) / d[up]
        if ratios.min() < 1.0:
            step = float(ratios.min())
            blocking = ratios <= step * (1 + 1e-12)
        x = x + step * d
        if step < 1.0:
            x[blocking & down] = 0.0
            x[blocking & up] = C
            at_zero |= blocking & down
            at_C |= blocking & up
            continue
        if mu is None:  # every multiplier on a bound: the equality decides b
            lo_hi = Q @ x + p
            mu = -float(np.median(lo_hi * y))
        h = Q @ x + p + mu * y  # >= 0 at 0, <= 0 at C at the optimum
        release = (at_zero & (h < -tol)) | (at_C & (h > tol))
        if not release.any():
            return x
        at_zero &= ~release
        at_C &= ~release
    return a


def _snap_box(x, t, rhs, upper):
    """Put values within _SNAP of 0 or of ``upper`` on the bound; keep t^T x = rhs."""
    x = np.clip(x, 0.0, upper)
    x[x <= _SNAP * min(1.0, upper)] = 0.0
    if np.isfinite(upper):
        x[x >= upper * (1.0 - _SNAP)] = upper
    free = (x > 0.0) & (x < upper)
    if free.any():
        x[free] -= t[free] * (t @ x - rhs) / free.sum()
        np.clip(x, 0.0, upper, out=x)
    return x
