"""Fingerprints of a normal form that are the same in every run.

copydetect winnows the hashes of a document's k-grams (Schleimer, Wilkerson
and Aiken's robust winnowing: the least hash of each window). It hashes them
with Python's ``hash``, which changes with every process (``PYTHONHASHSEED``),
so which k-grams a window keeps, and with them every similarity, moved from
one ``make similarity`` to the next: a pair of honest answers read 0.474 in
one run and 0.502 in another. :class:`Fingerprint` hashes each k-gram with a
polynomial hash of fixed constants instead, and is otherwise copydetect's
document fingerprint (its own winnowing, its own coverage), read by its
``compare_files`` as one.
"""

import numpy as np
from copydetect.utils import get_token_coverage, winnow

__all__ = ["Fingerprint", "kgram_hashes"]

#: Odd constants of the polynomial hash and of the mixing after it
_BASE = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


def kgram_hashes(text, k):
    """int64 hashes of the ``len(text) - k + 1`` runs of ``k`` characters of
    ``text``, the same in every process."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = len(codes) - k + 1
    if n <= 0:
        return np.array([], dtype=np.int64)
    with np.errstate(over="ignore"):
        h = np.zeros(n, dtype=np.uint64)
        for j in range(k):                 # sum of c[i + j] * BASE^(k - 1 - j), mod 2^64
            h = h * _BASE + codes[j:j + n]
        h ^= h >> np.uint64(31)
        h *= _MIX
        h ^= h >> np.uint64(29)
    return h.view(np.int64)


class Fingerprint:
    """copydetect's winnowed fingerprint of ``code`` (k-grams of ``k`` characters,
    windows of ``window``), the ``boilerplate`` hashes left out."""

    def __init__(self, code, k, window, boilerplate=None):
        hashes, where = winnow(kgram_hashes(code, k), window_size=window,
                               remove_duplicates=False)
        if len(hashes):
            last = np.ones(len(hashes), dtype=bool)   # a k-gram repeated counts at its last place
            order = np.argsort(hashes, kind="stable")
            last[order[:-1][hashes[order[:-1]] == hashes[order[1:]]]] = False
            if boilerplate is not None and len(boilerplate) > 0:
                last &= ~np.isin(hashes, boilerplate)
            hashes, where = hashes[last], where[last]
        self.hash_idx = {}
        for value, i in zip(hashes.tolist(), where.tolist()):
            self.hash_idx.setdefault(value, []).append(i)
        self.hashes = set(self.hash_idx)
        self.k = k
        self.raw_code = self.filtered_code = code
        self.offsets = np.array([])
        self.token_coverage = get_token_coverage(self.hash_idx, k, len(code))
