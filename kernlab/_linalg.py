"""Dense linear algebra shared by the estimators: PSD verdicts and Cholesky solves.

Everything here works on plain float64 matrices and knows nothing of
kernels or estimators, so every other kernlab module may build on it.
"""

import contextlib
import threading
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from threadpoolctl import ThreadpoolController, threadpool_limits

from ._validation import check_array, check_scalar

__all__ = ["PSDVerdict", "is_psd", "blas_guard", "one_blas_thread", "add_to_diagonal",
           "cholesky_solve", "check_shifted_cholesky", "saddle_solve", "SubsetSaddle"]

# Matrix order from which Cholesky runs single-threaded: OpenBLAS's multithreaded
# Cholesky crashes (segfault) once the matrix reaches 2^31 bytes (n >= 16384).
SINGLE_THREAD_FROM = 16000
_FULL_EIGH_MAX = 300  # up to this size one full eigendecomposition is cheap enough
_LSTSQ_MAX = 500  # saddle_solve's last resort, least squares, up to this order
# SubsetSaddle factors this many points of a large Q_FF before all of it: a
# singular Q_FF (two moons at n = 3000: 2700 free points of numerical rank
# about 200) then fails there, before the rest of Q_FF is formed
_LEADING_BLOCK = 256


def blas_guard(n):
    """Context in which a factorisation of order ``n`` runs safely (one BLAS thread when large).

    Examples
    --------
    >>> with blas_guard(10):
    ...     np.linalg.cholesky(np.eye(2))[1, 1]
    np.float64(1.0)
    """
    if n >= SINGLE_THREAD_FROM:
        return threadpool_limits(1, user_api="blas")
    return contextlib.nullcontext()


class _SingleBlasThread:
    """The process-wide limit of BLAS to one thread, shared by every thread that asks.

    threadpoolctl's limits are global to the process: two fits on two
    threads, each entering and leaving its own limit, can restore them in
    the wrong order and leave BLAS on one thread for good.  Here the first
    entry sets the limit and the last exit (an exception included) restores
    what was there before; the loaded libraries are looked up once.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0
        self.limiter = None
        self.controller = None

    @contextlib.contextmanager
    def __call__(self):
        with self.lock:
            if self.depth == 0:
                if self.controller is None:
                    self.controller = ThreadpoolController()
                self.limiter = self.controller.limit(limits=1, user_api="blas")
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                if self.depth == 0:
                    self.limiter.restore_original_limits()
                    self.limiter = None


_single_blas_thread = _SingleBlasThread()


def one_blas_thread():
    """Context in which BLAS and LAPACK run on a single thread.

    For the small factors and products of the SVM solvers: on two busy
    cores the start-up of a second thread costs more than the work.  The
    limit is shared by concurrent users and lifted when the last one leaves
    (see :class:`_SingleBlasThread`).

    Examples
    --------
    >>> with one_blas_thread():
    ...     float(np.linalg.cholesky(4 * np.eye(2))[0, 0])
    2.0
    """
    return _single_blas_thread()


def add_to_diagonal(A, value):
    """Add ``value`` to the diagonal of the square array ``A`` in place; returns ``A``.

    Examples
    --------
    >>> add_to_diagonal(np.zeros((2, 2)), 3.0)
    array([[3., 0.],
           [0., 3.]])
    """
    A.flat[:: A.shape[0] + 1] += value
    return A


def cholesky_solve(A, b, what, overwrite=False):
    """Solve ``A x = b`` for symmetric positive definite ``A``; returns ``(x, factor)``.

    Raises a ValueError naming ``what`` when the factorisation fails: there
    is no fallback to a least-squares or pseudo-inverse answer.

    Examples
    --------
    >>> x, _ = cholesky_solve(np.array([[4.0, 2.0], [2.0, 3.0]]), np.array([2.0, 1.0]), "A")
    >>> x
    array([0.5, 0. ])
    >>> cholesky_solve(np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2), "K + lam I")
    Traceback (most recent call last):
    ...
    ValueError: K + lam I is not positive definite, so the ridge system has no unique solution; increase lam or check that the kernel is positive semi-definite
    """
    if overwrite and A.flags.c_contiguous and not A.flags.f_contiguous:
        # A is symmetric, so A.T is the same matrix in Fortran order, which
        # LAPACK can factor in place (a C-ordered array would be copied).
        A = A.T
    with blas_guard(A.shape[0]):
        try:
            factor = linalg.cho_factor(A, lower=True, overwrite_a=overwrite, check_finite=False)
        except linalg.LinAlgError as exc:
            raise ValueError(
                f"{what} is not positive definite, so the ridge system has no unique solution; "
                "increase lam or check that the kernel is positive semi-definite"
            ) from exc
        return linalg.cho_solve(factor, b, overwrite_b=False, check_finite=False), factor


def check_shifted_cholesky(K, rel_shift):
    """Refuse ``K`` unless ``K + rel_shift * max(diag K) I`` has a Cholesky factor.

    LAPACK's dense Cholesky (O(n^3 / 3), on a copy) decides this far faster
    than an eigendecomposition, and rounding (about n * eps relative) stays
    well below a shift of 1e-10.

    Examples
    --------
    >>> check_shifted_cholesky(np.array([[1.0, 1.0], [1.0, 1.0]]), 1e-10)
    >>> check_shifted_cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]), 1e-10)
    Traceback (most recent call last):
    ...
    ValueError: the Gram matrix is not positive semi-definite: it has an eigenvalue below -1e-10 times its largest diagonal entry (K + 1e-10 I has no Cholesky factor; use kernlab.is_psd for a witness vector)
    """
    n = K.shape[0]
    A = np.array(K, dtype=np.float64)  # C-ordered copy; A.T is the same matrix in Fortran order
    shift = rel_shift * max(float(np.diag(A).max()), np.finfo(float).tiny)
    add_to_diagonal(A, shift)
    with blas_guard(n):
        try:
            linalg.cholesky(A.T, lower=True, overwrite_a=True, check_finite=False)
        except linalg.LinAlgError as exc:
            raise ValueError(
                "the Gram matrix is not positive semi-definite: it has an eigenvalue below "
                f"-{rel_shift:g} times its largest diagonal entry (K + {shift:.3g} I has no "
                "Cholesky factor; use kernlab.is_psd for a witness vector)") from exc


def saddle_solve(Q, y, c, d):
    """Solve ``Q a + y b = c``, ``y^T a = d``; returns ``([a, b], residual_ok, cond)``.

    With Q positive definite (a kernel of full rank on the free points),
    one Cholesky factor gives ``a = Q^-1 (c - y b)`` and b from the second
    equation, in half the flops of an LU of the bordered matrix; ``cond``
    is then the square of the ratio of the factor's largest to smallest
    diagonal entry (a lower bound on Q's condition number).  If the factor
    fails or its answer misses the equations, LU, then (up to order
    ``_LSTSQ_MAX``) least squares; ``ok`` says whether the answer meets the
    equations to 1e-8 of their scale.

    Examples
    --------
    >>> sol, ok, cond = saddle_solve(np.eye(2), np.array([1.0, -1.0]), np.ones(2), 0.0)
    >>> sol.tolist(), ok, cond
    ([1.0, 1.0, 0.0], True, 1.0)
    """
    nf = len(y)

    def residual(sol):
        a, b = sol[:nf], sol[nf]
        return max(np.abs(Q @ a + y * b - c).max(), abs(y @ a - d))

    bound = 1e-8 * max(1.0, np.abs(c).max(), abs(d))
    cond = None
    try:  # an ill-conditioned Q can overflow here: the residual decides
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            factor = linalg.cho_factor(Q, lower=True, check_finite=False)
            diag = np.abs(np.diag(factor[0]))
            cond = float((diag.max() / max(diag.min(), np.finfo(float).tiny)) ** 2)
            u, v = linalg.cho_solve(factor, np.column_stack([c, y]),
                                    check_finite=False).T
            b = (y @ u - d) / (y @ v)
            sol = np.append(u - b * v, b)
            if np.all(np.isfinite(sol)) and residual(sol) < bound:
                return sol, True, cond
    except linalg.LinAlgError:
        cond = np.inf
    A = np.empty((nf + 1, nf + 1))
    A[:nf, :nf] = Q
    A[:nf, nf] = y
    A[nf, :nf] = y
    A[nf, nf] = 0.0
    rhs = np.append(c, d)
    try:  # LU first: several times faster than least squares on a regular system
        sol = np.linalg.solve(A, rhs)
        if residual(sol) < bound:
            return sol, True, cond
    except np.linalg.LinAlgError:
        sol = np.zeros(nf + 1)
    if nf > _LSTSQ_MAX:  # a least-squares solve of this order costs more than it saves
        return sol, False, cond
    # singular or ill-conditioned: the least-squares solution
    # (complete orthogonal factorisation: the minimum-norm solution, as an SVD
    # gives, in a third of its time)
    sol = linalg.lstsq(A, rhs, cond=np.finfo(float).eps * (nf + 1), lapack_driver="gelsy",
                       check_finite=False)[0]
    return sol, bool(residual(sol) < bound), cond


class SubsetSaddle:
    """Saddle systems ``Q_FF a + 1 b = c``, ``1^T a = d`` on a sequence of subsets F of one Q.

    An active-set method (the polish of the SVM dual) solves such a system
    for each guess of its free set, and late guesses differ from the last in
    a few points.  One Cholesky factor ``Q_SS = L L^T``, S the union of the
    sets since it was formed (points in the order they joined), serves them
    all: a point that joins extends L by a row (a triangular solve with its
    column of ``Q_SS``), and each point of S outside F (held) is kept at
    zero by a Lagrange multiplier, which needs ``L^-1 e_h``: computed once
    per held point and carried along when L grows.  When the new solves
    would cost more than factoring ``Q_FF`` afresh (counted in flops), or an
    update fails, S becomes F and Q_FF is factored; a system that Cholesky
    cannot solve to 1e-8 of its scale is handed to :func:`saddle_solve`
    (LU, least squares) and nothing is kept.

    A fresh solve's residual is checked with Q_FF; an updated one's cannot
    be without forming Q_FF (L L^T is Q_SS to rounding, so checking with it
    tells nothing): ``last_update`` says which it was, so that the caller
    can check the answer with Q itself (the polish does, with its exact g).

    ``block(rows, cols)`` returns ``Q[rows][:, cols]``; ``n`` is Q's order.
    The object holds the factor of one sequence only: make one per sequence.

    Examples
    --------
    >>> Q = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    >>> systems = SubsetSaddle(lambda r, c: Q[np.ix_(r, c)], 3, update_from=1)
    >>> a, b, ok, _ = systems.solve(np.array([0, 1, 2]), np.ones(3), 0.0)
    >>> a2, b2, ok2, _ = systems.solve(np.array([0, 2]), np.ones(2), 0.0)
    >>> ref, _, _ = saddle_solve(Q[np.ix_([0, 2], [0, 2])], np.ones(2), np.ones(2), 0.0)
    >>> ok2, bool(np.allclose(np.append(a2, b2), ref))
    (True, True)
    >>> systems.last_update  # a system this small costs less to factor afresh
    False
    """

    def __init__(self, block, n, *, update_from=256):
        self.block, self.update_from = block, update_from
        self.where = np.full(n, -1, dtype=np.intp)  # point -> its row in L
        self.kept = np.full(n, -1, dtype=np.intp)   # point -> its column of H
        self.forget()
        self.updates = 0  # systems solved from an updated factor
        self.last_update = False

    def solve(self, F, c, d, plus=None, fallback=True):
        """Solve on the sorted points F; returns ``(a, b, ok, cond)`` as saddle_solve does.

        With ``plus`` (a vector on F) the right-hand side is ``c + Q_FF plus``,
        computed from the factor when Q_FF is not formed.  Without
        ``fallback``, a system Cholesky cannot solve returns None instead of
        going to :func:`saddle_solve`'s LU and least squares.
        """
        self.last_update = False
        if self.L is not None and F.size >= self.update_from:
            joining = F[self.where[F] < 0]
            size = self.S.size + joining.size
            held = self.S[~np.isin(self.S, F)]  # points of S outside F
            new_held = int((self.kept[held] < 0).sum())  # their L^-1 e_h still to solve
            work = 2 * joining.size + new_held + held.size**2 / size + 6  # in size^2 flops
            if size**2 * work < F.size**3 / 3 and \
                    self._extend(joining):
                solved = self._restricted(F, c, d, plus)
                if solved is not None:
                    self.updates += 1
                    self.last_update = True
                    return solved
        self.forget()
        Q, L = self._factor(F)
        if L is None and not fallback:
            return None
        if Q is None:
            Q = self.block(F, F)
        if plus is not None:
            c = c + Q @ plus
        if L is not None:
            self.S, self.L = F.copy(), L
            self.where[F] = np.arange(F.size)
            self.u1 = linalg.solve_triangular(L, np.ones(F.size), lower=True,
                                              check_finite=False)
            self.U_H = np.zeros((F.size, 0), order="F")
            solved = self._restricted(F, c, d, None, Q=Q)
            if solved is not None:
                return solved
            self.forget()
        if not fallback:
            return None
        sol, ok, cond = saddle_solve(Q, np.ones(F.size), c, d)
        return sol[:-1], float(sol[-1]), ok, cond

    def _factor(self, F):
        """``(Q_FF, L)`` with ``Q_FF = L L^T``; L is None (Q_FF perhaps too) if Cholesky fails.

        The first ``_LEADING_BLOCK`` points of a large F are factored first:
        when Q_FF is singular to working precision, Cholesky fails at about
        its numerical rank, so usually already there, and the rest of Q_FF is
        never formed.  (LAPACK's factor of all of Q_FF updates the whole
        matrix from its first columns on: failing at the 190th of 2700 points
        cost two thirds of a full factor, 0.14-0.25 s.)  When that block
        passes, all of Q_FF is factored in one LAPACK call, as fast as any
        blocking of ours (a factor in two blocks took twice its time).
        """
        k = _LEADING_BLOCK
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if F.size > 2 * k:
                try:
                    lead = linalg.cholesky(self.block(F[:k], F[:k]), lower=True,
                                           check_finite=False)
                except linalg.LinAlgError:
                    return None, None
                if not np.all(np.isfinite(lead)):
                    return None, None
            Q = self.block(F, F)
            try:
                L = linalg.cholesky(Q, lower=True, check_finite=False)
            except linalg.LinAlgError:
                return Q, None
            return Q, (L if np.all(np.isfinite(L)) else None)

    def forget(self):
        """Drop the factor: the next system is factored afresh."""
        if getattr(self, "S", None) is not None:
            self.where[self.S] = -1
            self.kept[self.H] = -1
        self.S, self.L = np.zeros(0, dtype=np.intp), None
        self.u1 = np.zeros(0)                     # L^-1 1_S
        self.H = np.zeros(0, dtype=np.intp)       # points whose L^-1 e_h is kept
        self.U_H = np.zeros((0, 0), order="F")    # their columns L^-1 e_h

    def _extend(self, joining):
        """Add the points ``joining`` to S, extending L; False (S forgotten) if it fails."""
        if joining.size == 0:
            return True
        S, L = self.S, self.L
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            try:
                below = linalg.solve_triangular(L, self.block(S, joining), lower=True,
                                                check_finite=False)  # L21^T
                corner = linalg.cholesky(self.block(joining, joining) - below.T @ below,
                                         lower=True, check_finite=False)
            except linalg.LinAlgError:
                self.forget()
                return False
        if not (np.all(np.isfinite(below)) and np.all(np.isfinite(corner))):
            self.forget()
            return False
        s, k = S.size, joining.size
        grown = np.zeros((s + k, s + k), order="F")
        grown[:s, :s] = L
        grown[s:, :s] = below.T
        grown[s:, s:] = corner
        # [L 0; B C] [u; v] = [e; f] gives v = C^-1 (f - B u): the kept solves grow too
        tail = np.column_stack([np.ones(k), np.zeros((k, self.H.size))]) - \
            below.T @ np.column_stack([self.u1, self.U_H])
        tail = linalg.solve_triangular(corner, tail, lower=True, check_finite=False)
        self.u1 = np.concatenate([self.u1, tail[:, 0]])
        self.U_H = np.asfortranarray(np.vstack([self.U_H, tail[:, 1:]]))
        self.L, self.S = grown, np.concatenate([S, joining])
        self.where[joining] = s + np.arange(k)
        return True

    def _restricted(self, F, c, d, plus, Q=None):
        """The system on F from the factor of Q_SS: ``(a, b, ok, cond)``, or None.

        With N = [1_F, E_D] (D: the points of S outside F), solves
        ``Q_SS x + N lam = c_S``, ``N^T x = (d, 0)``; then ``x_F = a`` and
        ``b = lam_0``.  ``L^-1 N`` is ``L^-1 1_S`` less the kept ``L^-1 e_h``
        of D, and those (computed for new members of D) are kept.  The
        residual is checked with Q_FF when it is given.
        """
        L, S = self.L, self.S
        rows = self.where[F]
        inside = np.zeros(S.size, dtype=bool)
        inside[rows] = True
        D = S[~inside]
        fresh = D[self.kept[D] < 0]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            try:
                if fresh.size:
                    unit = np.zeros((S.size, fresh.size), order="F")
                    unit[self.where[fresh], np.arange(fresh.size)] = 1.0
                    cols = linalg.solve_triangular(L, unit, lower=True, check_finite=False)
                    self.kept[fresh] = self.H.size + np.arange(fresh.size)
                    self.H = np.concatenate([self.H, fresh])
                    self.U_H = np.asfortranarray(np.column_stack([self.U_H, cols]))
                W_D = self.U_H[:, self.kept[D]]
                W = np.column_stack([self.u1 - W_D.sum(axis=1), W_D])
                c_S = np.zeros(S.size)
                c_S[rows] = c
                if plus is not None:  # c + Q_FF plus, with Q_SS = L L^T
                    spread = np.zeros(S.size)
                    spread[rows] = plus
                    c_S[rows] += (L @ (L.T @ spread))[rows]
                u = linalg.solve_triangular(L, c_S, lower=True, check_finite=False)
                target = np.zeros(W.shape[1])
                target[0] = d
                lam = linalg.solve(W.T @ W, W.T @ u - target, assume_a="pos",
                                   check_finite=False)
                x = linalg.solve_triangular(L, u - W @ lam, lower=True, trans="T",
                                            check_finite=False)
            except (linalg.LinAlgError, ValueError):
                return None
            if not (np.all(np.isfinite(x)) and np.all(np.isfinite(lam))):
                return None
            a, b = x[rows], float(lam[0])
            if Q is not None:
                residual = max(np.abs(Q @ a + b - c).max(), abs(a.sum() - d))
                if not residual < 1e-8 * max(1.0, np.abs(c).max(), abs(d)):
                    return None
        diag = np.abs(np.diag(L))
        cond = float((diag.max() / max(diag.min(), np.finfo(float).tiny)) ** 2)
        return a, b, True, cond


@dataclass
class PSDVerdict:
    """Outcome of :func:`is_psd`: truthy when the matrix is PSD.

    Attributes
    ----------
    psd : bool
        The verdict.
    min_eigenvalue : float
        Smallest eigenvalue of the matrix.
    threshold : float
        Eigenvalues down to ``-threshold`` count as zero (rounding).
    witness : ndarray or None
        When not PSD, a unit vector z with z^T K z = min_eigenvalue < 0.
    """

    psd: bool
    min_eigenvalue: float
    threshold: float
    witness: np.ndarray = None

    def __bool__(self):
        return bool(self.psd)

    def __repr__(self):
        return (f"PSDVerdict(psd={self.psd}, min_eigenvalue={self.min_eigenvalue:.3g}, "
                f"threshold={self.threshold:.3g})")


def is_psd(K, tol=1e-10):
    """Decide whether a symmetric matrix is positive semi-definite.

    The smallest eigenvalue counts as non-negative when it is above
    ``-tol * scale``, scale being the largest eigenvalue magnitude: rounding
    alone makes the zero eigenvalues of a singular Gram matrix slightly
    negative, by an amount proportional to the size of the matrix entries.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix (asymmetry beyond 1e-10 relative is an error).
    tol : float
        Relative tolerance, >= 0.

    Returns
    -------
    PSDVerdict
        Truthy iff PSD; carries the smallest eigenvalue and, when not PSD, a
        witness vector z with z^T K z < 0.

    Examples
    --------
    >>> bool(is_psd([[1.0, 2.0], [2.0, 1.0]]))
    False
    >>> is_psd([[2.0, 1.0], [1.0, 2.0]]).min_eigenvalue
    1.0
    """
    K = check_array(K, "K")
    tol = check_scalar(tol, "tol", low=0, finite=True)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    size = np.abs(K).max()
    if np.abs(K - K.T).max() > 1e-10 * size:
        raise ValueError("K must be symmetric; positive semi-definiteness is defined for "
                         "symmetric matrices (a kernel must satisfy k(x, t) = k(t, x))")
    lowest, witness, highest = _extreme_eigenpairs((K + K.T) / 2.0)
    threshold = tol * max(abs(lowest), abs(highest))
    if lowest >= -threshold:
        return PSDVerdict(True, lowest, threshold)
    return PSDVerdict(False, lowest, threshold, witness=witness)


def _extreme_eigenpairs(K):
    """Smallest eigenvalue with its unit eigenvector, and the largest eigenvalue."""
    n = K.shape[0]
    if n <= _FULL_EIGH_MAX:
        values, vectors = np.linalg.eigh(K)
        return float(values[0]), vectors[:, 0].copy(), float(values[-1])
    # For large matrices ask LAPACK for the two ends of the spectrum only, which
    # is several times faster than the full eigendecomposition.
    low, vector = linalg.eigh(K, subset_by_index=[0, 0], driver="evx")
    high = linalg.eigh(K, subset_by_index=[n - 1, n - 1], eigvals_only=True, driver="evx")
    return float(low[0]), vector[:, 0].copy(), float(high[0])
