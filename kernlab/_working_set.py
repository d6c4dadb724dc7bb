"""The SVM dual by decomposition: a sequence of small QPs on working sets, solved by CVXPY.

When the Gram matrix has full numerical rank no thin factor ``K = F F^T``
exists, and a QP in all n variables at once costs O(n^3).  A working-set
method (Osuna, Joachims' SVMlight) changes only q multipliers at a time:

    minimise    1/2 a^T Q_BB a + (G_B - Q_BB alpha_B)^T a
    subject to  0 <= a <= C,   t_B^T a = t_B^T alpha_B

where ``Q_ij = t_i t_j k(x_i, x_j)`` and ``G = Q alpha - 1`` is the gradient of
the dual objective (kept up to date with the q new columns of K after each
step).  The working set holds the q/2 points that most violate the KKT
conditions from each side (the maximal violating pairs), and the method
stops when the violation ``max_up(-t_i G_i) - min_low(-t_j G_j)`` is below
``eps``.  While the support is small it stays in the set, which is filled
with the most violating points (chunking): with few support vectors the
steps then find them all at once.  At the start every point violates the
conditions equally; an optional tie-break (the margins of the difference
of the class means) puts the likely support vectors into the first set.

Every subproblem is the same compiled, parameterised CVXPY problem
(disciplined parametrized programming): only the values of its parameters
change, so CVXPY canonicalises it once, and the compiled problem is kept
for the next fit in the same thread.  ``Q_BB`` enters as its triangular
pivoted Cholesky factor.  Each step starts from the current multipliers,
and a finer ``eps`` continues from where a coarser one stopped.  When C is
far above the multipliers (C = 1e6), a step first solves its subproblem
without the upper bound, in half the iterations, and keeps that answer if
it stays inside the box.  The caller checks the final answer against the
KKT conditions of the whole problem.

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> from kernlab._estimator import GramColumns
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((80, 5)); t = np.where(X[:, 0] > 0, 1.0, -1.0)
>>> dual = WorkingSetDual(GramColumns(Gaussian(sigma=2.0), X), t, C=1.0, q=16)
>>> bool(dual.run(eps=1e-6) <= 1e-6 and abs(dual.alpha @ t) < 1e-9)
True
"""

import threading
import warnings

import cvxpy as cp
import numpy as np
from scipy import sparse
from scipy.linalg import lapack

from ._columns import ColumnStore
from ._linalg import one_blas_thread

__all__ = ["WorkingSetDual"]

# Multipliers this close (relative to their scale, or to C) to a bound are put
# on it: an interior-point answer stays a little inside its bounds, and a
# multiplier left at 1e-8 C instead of 0 would count as a violator forever.
_SNAP = 1e-6
# When C is this many times the scale of the multipliers, a step first solves
# its subproblem without the upper bound.
_FAR_BOUND = 1e3
# While the support holds at most this fraction of a working set, the set is
# the support and the most violating points (chunking): with few support
# vectors the method then ends in the few steps that find them all.
_KEEP_SUPPORT = 0.75
# Compiled subproblems kept per thread, for the next fit with the same size.
_COMPILED_MAX = 4
_compiled = threading.local()
# Without iterative refinement a step's Clarabel solve takes a quarter less
# time (q = 64); every answer is polished and checked against the KKT
# conditions of the whole problem, and the benchmarks' answers are unchanged.
_TIGHT = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8,
              iterative_refinement_enable=False, direct_solve_method="qdldl")


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
                # warm_start: CVXPY updates the Clarabel solver of the previous
                # solve with the new data instead of setting up another
                self.problem.solve(solver=cp.CLARABEL, warm_start=True, **_TIGHT)
        except cp.error.SolverError as exc:
            raise RuntimeError(f"an SVM working-set subproblem could not be solved by "
                               f"Clarabel: {exc}") from exc
        if self.problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or \
                self.x.value is None:
            raise RuntimeError("Clarabel did not solve an SVM working-set subproblem "
                               f"(status {self.problem.status!r})")
        return np.asarray(self.x.value, dtype=np.float64)


def _subproblem(q, bounded):
    """The compiled :class:`_Subproblem` for ``(q, bounded)``, made once per thread.

    Canonicalising a problem costs several of its solves; the
    parameters of a cached one are all set again at every solve.
    """
    cache = getattr(_compiled, "problems", None)
    if cache is None:
        cache = _compiled.problems = {}
    key = (q, bounded)
    sub = cache.pop(key, None)
    if sub is None:
        sub = _Subproblem(q, bounded)
    cache[key] = sub  # most recently used last
    while len(cache) > _COMPILED_MAX:
        del cache[next(iter(cache))]
    return sub


class WorkingSetDual:
    """State of the decomposition method: multipliers, gradient and kept kernel columns.

    Parameters
    ----------
    gram : kernlab._estimator.GramColumns
        The training Gram matrix, column by column.
    t : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        Box bound (np.inf for the hard margin).
    q : int
        Size of the working set.
    cache_bytes : float
        Memory for kernel columns kept between steps (``self.cache``, a
        :class:`kernlab._columns.ColumnStore`; at least 4 q columns).
    p : ndarray of shape (n,), optional
        Linear term of the dual (``-1`` for classification).
    start : ndarray of shape (n,), optional
        Multipliers to start from (used when they satisfy the equality).
    tiebreak : ndarray of shape (n,), optional
        Order among points that violate the conditions equally (as all do
        at the start from zero): points are ranked as if the violation
        ``-t G`` were ``-t G - s * tiebreak`` for an infinitesimal s > 0.
        With ``tiebreak = K (t * u)``, ``u`` uniform within each class, that
        is the ranking of the start ``s * u`` (the points the difference of
        the class means in feature space classifies worst come first).
    """

    def __init__(self, gram, t, C, q=64, cache_bytes=1.5 * 2**30, *, p=None,
                 start=None, tiebreak=None):
        self.gram, self.t, self.C = gram, t, C
        n = len(t)
        self.q = min(q, n)
        self.p = -np.ones(n) if p is None else np.asarray(p, dtype=np.float64)
        self.alpha = np.zeros(n)
        self.G = self.p.copy()
        if start is not None:
            start = np.clip(start, 0.0, C)
            if abs(start @ t) <= 1e-12 * max(float(start.max()), 1e-300) * n:
                self.alpha = start
                self.G += t * gram.times(t * start)
        # Multipliers are of order 1 / max K_ii when nothing bounds them.
        self.floor = 1.0 / max(float(np.max(gram.diag())), np.finfo(float).tiny)
        self.tiebreak = np.zeros(n) if tiebreak is None else tiebreak
        self.bounded = self.unbounded = None  # compiled subproblems, when first needed
        self.cache = ColumnStore(gram, cache_bytes, evict=True, min_columns=4 * self.q)
        self.steps = 0

    def violation(self):
        """``max_up(-t G) - min_low(-t G)`` with the index sets of each side."""
        t, a, C = self.t, self.alpha, self.C
        below_C = a < C if np.isfinite(C) else np.ones(len(a), dtype=bool)
        up = (below_C & (t > 0)) | ((a > 0) & (t < 0))
        low = (below_C & (t < 0)) | ((a > 0) & (t > 0))
        v = -t * self.G
        if not up.any() or not low.any():
            return 0.0, v, up, low
        return float(v[up].max() - v[low].min()), v, up, low

    def select(self, v, up, low):
        """The q/2 most violating points of each side (more of one if the other ends).

        While the support is small (at most ``_KEEP_SUPPORT`` of q), it is
        kept in the set and the rest filled with the most violating points.
        """
        # lexsort: the last key is the first; ties of v are broken by tiebreak
        ups = np.flatnonzero(up)[np.lexsort((self.tiebreak[up], -v[up]))]
        lows = np.flatnonzero(low)[np.lexsort((-self.tiebreak[low], v[low]))]
        support = np.flatnonzero(self.alpha > 0)
        if len(support) > _KEEP_SUPPORT * self.q:
            support = support[:0]
        chosen, seen = list(support), set(support)
        for i in _interleave(ups, lows):
            if i not in seen:
                seen.add(i)
                chosen.append(i)
                if len(chosen) == self.q:
                    break
        if len(chosen) < self.q:  # fill with any other points (they stay where they are if optimal)
            rest = [i for i in range(len(self.t)) if i not in seen]
            chosen.extend(rest[:self.q - len(chosen)])
        return np.array(chosen, dtype=np.intp)

    def step(self, B):
        """Solve the subproblem on B and update alpha and the gradient."""
        t, C = self.t, self.C
        K_B = self.cache.cols(B)  # (n, q)
        tB = t[B]
        Q_BB = K_B[B] * np.outer(tB, tB)
        order, R = _triangular_root(Q_BB)  # R^T R = Q_BB in the pivots' order
        B, K_B, tB = B[order], K_B[:, order], tB[order]
        Q_BB = Q_BB[np.ix_(order, order)]
        a_B = self.alpha[B]
        p = self.G[B] - Q_BB @ a_B
        # The variable of the subproblem is a / s, with s the scale of the
        # multipliers: snapping at _SNAP is then relative to them, not to C
        # (with C = 1e6 and multipliers near 1, a / C would snap them to 0).
        s = max(float(self.alpha.max()), self.floor)
        if np.isfinite(C):
            s = min(s, C)
        args = (np.sqrt(s) * R, p, tB, float(tB @ a_B) / s)
        x = None
        if np.isfinite(C) and C / s >= _FAR_BOUND:
            # A box far wider than the multipliers costs Clarabel twice the
            # iterations (C = 1e6: 26 against 11); without the bound the answer
            # is the subproblem's own whenever it stays inside the box.
            if self.unbounded is None:
                self.unbounded = _subproblem(self.q, False)
            x = self.unbounded.solve(*args, None)
            if x.max() > C / s:
                x = None
        if x is None:
            if self.bounded is None:
                self.bounded = _subproblem(self.q, np.isfinite(C))
            x = self.bounded.solve(*args, C / s)
        x = _snap_box(x, tB, float(tB @ a_B) / s, C / s)
        new = x * s
        new[x == C / s] = C  # exactly C, whatever the rounding of s
        delta = new - a_B
        if np.any(delta):
            self.alpha[B] = new
            self.G += t * (K_B @ (tB * delta))
        self.steps += 1

    def run(self, eps, max_steps=None, patience=None):
        """Iterate until the violation is at most ``eps``; returns the final violation.

        Stops early when ``patience`` steps in a row (by default 200, or ten
        sweeps of n / q steps if more) have not lowered the smallest
        violation seen: the method has stalled (rounding, or a problem too
        ill-conditioned for its scale).
        """
        n = len(self.t)
        max_steps = max_steps or max(200, 50 * n // self.q)
        patience = patience or max(200, 10 * n // self.q)
        best, since_best = np.inf, 0
        # The q x q algebra is far too small to gain from BLAS threads, and on a
        # busy machine their start-up dominates each step.
        with one_blas_thread():
            for _ in range(max_steps):
                gap, v, up, low = self.violation()
                if gap <= eps:
                    return gap
                if gap < best * (1 - 1e-3):
                    best, since_best = gap, 0
                else:
                    since_best += 1
                    if since_best >= patience:
                        return gap
                self.step(self.select(v, up, low))
        return self.violation()[0]


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


def _interleave(a, b):
    """a[0], b[0], a[1], b[1], ... then the rest of the longer one."""
    for i in range(max(len(a), len(b))):
        if i < len(a):
            yield a[i]
        if i < len(b):
            yield b[i]


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
