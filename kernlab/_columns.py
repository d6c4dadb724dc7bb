"""Columns of a training Gram matrix: the one shape in which the solvers see K.

Everything that factors or solves with the training Gram matrix -- the
pivoted Cholesky factor (:mod:`kernlab.gram`), the dual QP of the support
vector machines and its working sets (:mod:`kernlab.svm_dual`,
:mod:`kernlab._working_set`) -- reads K through a :class:`Gram`:

=========================  ==================================================
``gram.n``                 order of K
``gram.diag()``            the diagonal ``K_ii``
``gram.cols(idx)``         the columns ``K[:, idx]``, an (n, len(idx)) array
``gram.block(rows, cols)`` ``K[rows][:, cols]``, without the other rows
``gram.times(v)``          ``K @ v``, from the columns where v is non-zero
``gram.full()``            all of K
=========================  ==================================================

A Gram comes from a kernel on data (its columns evaluated when asked for,
so that n = 20000 never needs the 3.2 GB of K), or from a matrix in memory
(a precomputed Gram matrix, or K formed once by :meth:`Gram.dense`).  The
variants the solvers need are views of the same source, never copies of K:

- ``gram.scaled(unit)`` is ``K / unit`` (the dual is solved with K scaled
  to a unit diagonal);
- ``gram.doubled()`` is the Gram matrix of the points taken twice,
  ``[[K, K], [K, K]]`` (the 2n variables of support vector regression);
- ``gram.cached(budget)`` keeps the columns it computes, up to a memory
  budget, and drops the least recently used ones when full (never one the
  current request needs).  The kept columns live in one block allocated at
  the first request and given back whole by :meth:`Gram.release`
  (thousands of separate column arrays would stay in the C allocator's
  heap: 1.5 GiB at n = 20000).

A view starts with no kept columns of its own, so nothing computed for one
fit is seen by another.

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> X = np.random.default_rng(0).standard_normal((50, 3))
>>> gram = Gram(Gaussian(sigma=1.0), X)
>>> K = Gaussian(sigma=1.0)(X)
>>> bool(np.allclose(gram.cols([3, 7]), K[:, [3, 7]]))
True
>>> store = gram.cached(budget_bytes=8 * 50 * 10)        # room for 10 columns
>>> bool(np.allclose(store.cols([3, 7, 3]), K[:, [3, 7, 3]])), store.kept()
(True, 2)
>>> bool(np.allclose(gram.scaled(2.0).block([0, 1], [4]), K[[0, 1]][:, [4]] / 2))
True
>>> gram.doubled().n, bool(np.allclose(gram.doubled().cols([53])[:, 0], np.tile(K[:, 3], 2)))
(100, True)
"""

import copy

import numpy as np

from ._estimator import check_precomputed_gram, compute_gram, is_precomputed, n_samples, take
from ._linalg import one_blas_thread
from .kernels import Kernel

__all__ = ["Gram"]


class Gram:
    """The training Gram matrix ``K[i, j] = k(x_i, x_j)``, read by columns.

    Parameters
    ----------
    kernel : kernlab kernel, callable ``k(X, Y)`` or ``"precomputed"``
        With a kernlab kernel, columns are evaluated when asked for; a
        plain callable is evaluated once; with ``"precomputed"`` ``X`` is
        the (checked, symmetric) Gram matrix itself.
    X : array or list
        The training points (or the Gram matrix).
    rounding : float
        Relative rounding of the entries as given (the machine epsilon of a
        float32 matrix; 0 for float64 and kernels): what a PSD check may
        allow for.
    """

    def __init__(self, kernel, X, *, rounding=0.0):
        self.kernel, self.X = kernel, X
        self.rounding = float(rounding)
        if is_precomputed(kernel):
            self._K = check_precomputed_gram(X, rounding=self.rounding)
        elif isinstance(kernel, Kernel):
            self._K = None
        else:
            self._K = compute_gram(kernel, X)
        self.n_points = self._K.shape[0] if self._K is not None else n_samples(X)
        self.n = self.n_points
        self._points = None      # variable -> point (None: the identity)
        self._scale = 1.0        # the matrix is K / _scale
        self._store = None       # kept columns (see cached)

    @classmethod
    def of_matrix(cls, K):
        """A Gram of an explicit matrix (already checked)."""
        gram = cls.__new__(cls)
        gram.kernel, gram.X, gram.rounding = "precomputed", K, 0.0
        gram._K = K
        gram.n_points = gram.n = K.shape[0]
        gram._points, gram._scale, gram._store = None, 1.0, None
        return gram

    # ------------------------------------------------------------------ views
    def _view(self):
        view = copy.copy(self)
        view._store = None
        return view

    def scaled(self, unit):
        """The view ``K / unit``."""
        view = self._view()
        view._scale = self._scale * float(unit)
        return view

    def doubled(self):
        """The view ``[[K, K], [K, K]]``: every point taken twice (variables i and i + n)."""
        if self._points is not None:
            raise ValueError("a doubled Gram matrix cannot be doubled again")
        view = self._view()
        view._points = np.tile(np.arange(self.n_points), 2)
        view.n = 2 * self.n_points
        return view

    def undoubled(self):
        """The view of the points taken once (the same view if they are)."""
        view = self._view()
        view._points, view.n = None, self.n_points
        return view

    def dense(self):
        """The same matrix formed once in memory (scaled), for repeated reads."""
        if self._K is not None and self._scale == 1.0:
            return self._view()
        view = self._view()
        with one_blas_thread():
            # one BLAS thread: with the other core busy, OpenBLAS's second
            # thread made K of 300 points five times slower (8 ms against 1.7 ms)
            K = self._base_full()
        view._K, view._scale = K, 1.0
        return view

    def cached(self, budget_bytes, *, min_columns=1):
        """A view that keeps up to ``budget_bytes`` of columns it computes (LRU).

        A matrix already in memory needs no store: the view reads it directly.
        """
        view = self._view()
        if self._K is None:
            room = int(min(self.n_points,
                           max(min_columns, 1, budget_bytes // (8 * self.n_points))))
            view._store = _Store(self.n_points, room)
        return view

    def kept(self):
        """Number of columns kept by this view's store."""
        return 0 if self._store is None else int((self._store.slot >= 0).sum())

    def release(self):
        """Forget every kept column and give their memory back."""
        if self._store is not None:
            self._store.clear()

    @property
    def in_memory(self):
        """True when K is held in memory (reading a column costs a copy only)."""
        return self._K is not None

    # --------------------------------------------------------------- reading
    def diag(self):
        """``diag(K)``."""
        if self._K is not None:
            d = np.diag(self._K) / self._scale
        else:
            d = np.asarray(self.kernel.diag(self.X), dtype=np.float64) / self._scale
            if not np.isfinite(d).all():
                raise ValueError("kernel returned NaN or infinite values on this data")
        return d if self._points is None else d[self._points]

    def cols(self, idx):
        """``K[:, idx]`` as an (n, len(idx)) array."""
        idx = np.asarray(idx, dtype=np.intp).reshape(-1)
        points = idx if self._points is None else self._points[idx]
        base = self._point_cols(points)
        return base if self._points is None else base[self._points]

    def block(self, rows, cols):
        """``K[rows][:, cols]``, computing only those rows."""
        rows = np.asarray(rows, dtype=np.intp).reshape(-1)
        cols = np.asarray(cols, dtype=np.intp).reshape(-1)
        if self._points is not None:
            rows, cols = self._points[rows], self._points[cols]
        if self._store is not None and self._store.holds(cols):
            return self._store.entries(rows, cols)  # kept columns are scaled already
        if self._store is not None and self._store.holds(rows):
            return self._store.entries(cols, rows).T  # K is symmetric
        if self._K is not None:
            out = self._K[np.ix_(rows, cols)]
        elif rows.size == 0 or cols.size == 0:
            return np.zeros((rows.size, cols.size))
        else:
            out = compute_gram(self.kernel, take(self.X, rows), take(self.X, cols))
        return out / self._scale if self._scale != 1.0 else out

    def rows(self, start, stop):
        """``K[start:stop, :]``."""
        return self.block(np.arange(start, stop), np.arange(self.n))

    def full(self):
        """The whole matrix K."""
        K = self._base_full()
        return K if self._points is None else K[np.ix_(self._points, self._points)]

    def times(self, v, *, slice_columns=None):
        """``K @ v`` for v of shape (n,) or (n, m), from the columns where v is non-zero.

        The columns are read ``slice_columns`` at a time (by default as many
        as the store keeps, else 2^24 entries' worth), never all at once.
        """
        v = np.asarray(v, dtype=np.float64)
        if self._points is not None:  # variables that share a point add up
            folded = np.zeros((self.n_points,) + v.shape[1:])
            np.add.at(folded, self._points, v)
            v = folded
        nz = np.flatnonzero(v if v.ndim == 1 else np.abs(v).sum(axis=1))
        out = np.zeros((self.n_points,) + v.shape[1:])
        if nz.size:
            if self._K is not None:
                # K is symmetric: v[nz] @ K[nz] gathers contiguous rows, and
                # past a quarter of them the whole product is cheaper
                out = self._K @ v if 4 * nz.size > self.n_points else v[nz].T @ self._K[nz]
                out = out.T if out.ndim == 2 else out
                if self._scale != 1.0:
                    out /= self._scale
            else:
                step = slice_columns or max(1, min(nz.size, 2**24 // self.n_points))
                if self._store is not None and not slice_columns:
                    step = max(1, min(step, self._store.room // 2 or 1))
                for start in range(0, nz.size, step):
                    part = nz[start:start + step]
                    out += self._point_cols(part) @ v[part]
        return out if self._points is None else out[self._points]

    # -------------------------------------------------------------- internals
    def _base_full(self):
        if self._K is not None:
            return self._K / self._scale if self._scale != 1.0 else self._K
        K = compute_gram(self.kernel, self.X)
        return K / self._scale if self._scale != 1.0 else K

    def _compute(self, points):
        """Columns of the points (scaled), from the source."""
        if points.size == 0:
            return np.zeros((self.n_points, 0))
        # K is symmetric: its rows are its columns, and rows of a C-ordered
        # array (gathered, or computed as kernel(X[points], X)) transposed are
        # Fortran-ordered columns, which a column store copies contiguously
        if self._K is not None:
            out = self._K[points].T
        else:
            out = compute_gram(self.kernel, take(self.X, points), self.X).T
        return out / self._scale if self._scale != 1.0 else out

    def _point_cols(self, points):
        if self._store is None:
            return self._compute(points)
        return self._store.cols(points, self._compute)


class _Store:
    """Kept columns in one (n, room) block, least recently used dropped first."""

    def __init__(self, n, room):
        self.n, self.room = n, room
        self.slot = np.full(n, -1, dtype=np.intp)           # column i is block[:, slot[i]]
        self.owner = np.full(room, -1, dtype=np.intp)       # slot s holds column owner[s]
        self.stamp = np.zeros(room, dtype=np.int64)         # when slot s was last read
        self.clock = 0
        self.used = 0
        self.block = None

    def clear(self):
        self.block = None
        self.slot.fill(-1)
        self.owner.fill(-1)
        self.used = 0

    def holds(self, idx):
        """True when there are columns ``idx`` and every one of them is kept."""
        return idx.size > 0 and bool((self.slot[idx] >= 0).all())

    def entries(self, rows, idx):
        """``K[rows][:, idx]`` from kept columns ``idx``: only those rows are read.

        (Copying the whole kept columns first read n entries per column: the
        choice of a working set asks for 64 rows of some 7000 columns, which
        with every column kept -- a store of 512 MiB at n = 10000 -- made a
        fit three times slower.)
        """
        slots = self.slot[idx]
        self.clock += 1
        self.stamp[slots] = self.clock
        return self.block[rows[:, None], slots[None, :]]

    def cols(self, idx, compute):
        missing = np.unique(idx[self.slot[idx] < 0])
        if missing.size:
            self._keep(missing, idx, compute)
        slots = self.slot[idx]
        have = slots >= 0
        self.clock += 1
        self.stamp[slots[have]] = self.clock
        if have.all():
            return self.block[:, slots]
        out = np.empty((self.n, idx.size), order="F")
        if have.any():
            out[:, have] = self.block[:, slots[have]]
        out[:, ~have] = compute(idx[~have])  # more than the room: computed, not kept
        return out

    def _keep(self, missing, wanted, compute):
        free = np.arange(self.used, self.room)
        take_n = missing.size
        if take_n > free.size:
            free = np.concatenate([free, self._victims(take_n - free.size, wanted)])
            take_n = min(take_n, free.size)
        if take_n == 0:
            return
        slots, keep = free[:take_n], missing[:take_n]
        if self.block is None:
            self.block = np.empty((self.n, self.room), order="F")
        self.block[:, slots] = compute(keep)
        self.slot[keep] = slots
        self.owner[slots] = keep
        self.used = max(self.used, int(slots.max()) + 1)

    def _victims(self, count, wanted):
        """Up to ``count`` slots of the least recently used columns outside ``wanted``."""
        stamps = self.stamp[:self.used].copy()
        held = self.slot[wanted]
        never = np.iinfo(np.int64).max
        stamps[held[held >= 0]] = never
        candidates = np.flatnonzero(stamps < never)
        count = min(count, candidates.size)
        if count == 0:
            return candidates[:0]
        victims = candidates[np.argpartition(stamps[candidates], count - 1)[:count]]
        self.slot[self.owner[victims]] = -1
        self.owner[victims] = -1
        return victims
