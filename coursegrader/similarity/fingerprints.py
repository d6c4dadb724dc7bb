"""Fingerprints of a normal form that are the same in every run.

copydetect winnows the hashes of a document's k-grams (Schleimer, Wilkerson
and Aiken's robust winnowing: the least hash of each window). It hashes them
with Python's ``hash``, which changes with every process (``PYTHONHASHSEED``),
so which k-grams a window keeps, and with them every similarity, moved from
one ``make similarity`` to the next: a pair of honest answers read 0.474 in
one run and 0.502 in another. :class:`Fingerprint` hashes each k-gram with a
polynomial hash of fixed constants instead, and is otherwise copydetect's
document fingerprint (its own winnowing, its own coverage), read by its
``compare_files`` as one; it is taken of the code without the spaces that
start its lines (see :class:`Fingerprint`).
"""

import numpy as np
from copydetect.utils import get_token_coverage, winnow

__all__ = ["Fingerprint", "kgram_hashes", "unindented"]

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


def unindented(code):
    """``code`` with the spaces that start each line removed, and the index in
    ``code`` of each character left (an int array)."""
    kept, text, at = [], [], 0
    for line in code.splitlines(keepends=True):
        start = len(line) - len(line.lstrip(" "))
        text.append(line[start:])
        kept.append(np.arange(at + start, at + len(line)))
        at += len(line)
    where = np.concatenate(kept) if kept else np.array([], dtype=np.int64)
    return "".join(text), where


class Fingerprint:
    """copydetect's winnowed fingerprint of ``code`` (k-grams of ``k`` characters,
    windows of ``window``), the ``boilerplate`` hashes left out, taken of the code
    without its indentation: a block put round a copied function (``with ...
    as _s:``, ``try:`` ... ``except E: return 0``) moves every line one level in,
    and runs of characters taken with their indentation would then share
    nothing, where the normal form's lines are about ten characters and a run
    twenty-five."""

    def __init__(self, code, k, window, boilerplate=None):
        self.raw_code = code
        code, self.where = unindented(code)
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
        self.filtered_code = code
        self.offsets = np.array([])
        self.token_coverage = get_token_coverage(self.hash_idx, k, len(code))

    def in_code(self, slices):
        """copydetect's slices (starts and ends, into the code without its
        indentation) as slices of the code as given."""
        starts, ends = np.asarray(slices[0], dtype=int), np.asarray(slices[1], dtype=int)
        if not len(starts):
            return slices
        return np.array([self.where[starts], self.where[ends - 1] + 1])
