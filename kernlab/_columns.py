"""Columns of a Gram matrix kept for reuse, in one block of memory within a budget.

Two parts of the SVM solver ask for the same columns of K again and again
without room for all of K (n = 20000 makes K 3.2 GB): the working-set
steps, which take a few columns per step and often the recently used ones
again, and the polish, which takes the same large set of columns several
times over.  :class:`ColumnStore` serves both:

- ``evict=True`` (the steps): when full, the least recently used columns
  make room, never one the current request needs;
- ``evict=False`` (the polish): columns are kept until the budget is used,
  and later ones are computed when asked for and not kept (for a set
  larger than the budget that is read again and again, keeping the first
  ones does better than any eviction).

The columns live in one ``(n, room)`` array allocated at the first request;
its pages become resident only as columns are written, and :meth:`release`
gives the whole block back to the system at once.  (Thousands of separate
column arrays would not: the C allocator keeps freed blocks of that size in
the process's heap, which at n = 20000 held 1.5 GiB after the steps' columns
had been let go.)

Examples
--------
>>> import numpy as np
>>> from kernlab import Gaussian
>>> from kernlab._estimator import GramColumns
>>> X = np.random.default_rng(0).standard_normal((50, 3))
>>> gram = GramColumns(Gaussian(sigma=1.0), X)
>>> store = ColumnStore(gram, budget_bytes=8 * 50 * 10, evict=True)   # room for 10
>>> store.room
10
>>> bool(np.allclose(store.cols([3, 7, 3]), gram.cols([3, 7, 3])))
True
>>> v = np.zeros(50); v[:30] = 1.0
>>> bool(np.allclose(store.times(v), gram.cols(range(50)) @ v))
True
>>> store.release(); store.used
0
"""

import numpy as np

__all__ = ["ColumnStore"]


class ColumnStore:
    """Columns ``K[:, idx]`` of a :class:`kernlab._estimator.GramColumns`, kept within a budget.

    Parameters
    ----------
    gram : kernlab._estimator.GramColumns
        Where the columns come from.
    budget_bytes : float
        Memory for kept columns (8 n bytes each).
    evict : bool
        When full, make room by dropping the least recently used columns
        (True), or compute the columns that do not fit without keeping them
        (False).
    min_columns : int
        Room for at least this many columns, whatever the budget (capped at n).
    """

    def __init__(self, gram, budget_bytes, *, evict, min_columns=1):
        self.gram = gram
        n = gram.n
        self.room = int(min(n, max(min_columns, 1, budget_bytes // (8 * n))))
        self.evict = evict
        self.slot = np.full(n, -1, dtype=np.intp)           # column i is block[:, slot[i]]
        self.owner = np.full(self.room, -1, dtype=np.intp)  # slot s holds column owner[s]
        self.stamp = np.zeros(self.room, dtype=np.int64)    # when slot s was last read
        self.clock = 0
        self.used = 0
        self.block = None

    def cols(self, idx):
        """``K[:, idx]`` as an (n, len(idx)) Fortran-ordered array."""
        idx = np.asarray(idx, dtype=np.intp).reshape(-1)
        missing = np.unique(idx[self.slot[idx] < 0])
        if missing.size:
            self._keep(missing, wanted=idx)
        slots = self.slot[idx]
        have = slots >= 0
        self.clock += 1
        self.stamp[slots[have]] = self.clock
        if have.all():
            return self.block[:, slots]
        out = np.empty((self.gram.n, idx.size), order="F")
        if have.any():
            out[:, have] = self.block[:, slots[have]]
        out[:, ~have] = self.gram.cols(idx[~have])  # over the budget: computed, not kept
        return out

    def times(self, v):
        """``K @ v``, over the columns where ``v`` is non-zero, a slice at a time."""
        nz = np.flatnonzero(v)
        step = max(1, self.room // 4) if nz.size > self.room else max(nz.size, 1)
        out = np.zeros(self.gram.n)
        for start in range(0, nz.size, step):
            part = nz[start:start + step]
            out += self.cols(part) @ v[part]
        return out

    def release(self):
        """Forget every column and give the block's memory back."""
        self.block = None
        self.slot.fill(-1)
        self.owner.fill(-1)
        self.used = 0

    def _keep(self, missing, wanted):
        """Compute and keep as many of the ``missing`` columns as the policy allows."""
        free = np.arange(self.used, self.room)
        take = missing.size if self.evict else min(missing.size, free.size)
        if take > free.size:
            free = np.concatenate([free, self._victims(take - free.size, wanted)])
            take = min(take, free.size)
        if take == 0:
            return
        slots, keep = free[:take], missing[:take]
        if self.block is None:
            self.block = np.empty((self.gram.n, self.room), order="F")
        self.block[:, slots] = self.gram.cols(keep)
        self.slot[keep] = slots
        self.owner[slots] = keep
        self.used = max(self.used, int(slots.max()) + 1)

    def _victims(self, count, wanted):
        """Up to ``count`` slots of the least recently used columns outside ``wanted``."""
        stamps = self.stamp[:self.used].copy()
        held = self.slot[wanted]
        stamps[held[held >= 0]] = np.iinfo(np.int64).max
        candidates = np.flatnonzero(stamps < np.iinfo(np.int64).max)
        count = min(count, candidates.size)
        if count == 0:
            return candidates[:0]
        victims = candidates[np.argpartition(stamps[candidates], count - 1)[:count]]
        self.slot[self.owner[victims]] = -1
        self.owner[victims] = -1
        return victims
