"""A written answer as words, and the runs of words two answers share.

Markdown and LaTeX markup, case and punctuation are set aside
(:func:`words`); an answer is the set of its runs of ``n`` consecutive words
(:func:`shingles`, Broder's w-shingling), so rewording a few words here and
there leaves most runs intact, while two answers written independently share
few runs beyond the released prompt's, which never count.
"""

import re
import zlib

__all__ = ["words", "shingles", "marked_words"]

_WORD = re.compile(r"[^\W_]+")
# LaTeX commands that only lay out (their arguments stay)
_LAYOUT = re.compile(r"\\(left|right|big|Big|bigg|Bigg|mathrm|mathbf|text|operatorname"
                     r"|quad|qquad|,|;|!|displaystyle)\b")


def words(text):
    """The words of ``text``, lower-cased, markup and punctuation set aside."""
    text = _LAYOUT.sub(" ", text)
    return [w.lower() for w in _WORD.findall(text)]


def _hash(run):
    return zlib.crc32(" ".join(run).encode("utf-8"))


def shingles(ws, n):
    """{hash of a run of ``n`` consecutive words: index of its first word} of ``ws``."""
    out = {}
    for i in range(len(ws) - n + 1):
        out.setdefault(_hash(ws[i:i + n]), i)
    return out


def marked_words(ws, n, shared):
    """``ws`` cut into (text, shared) pieces: a word is shared when a run of ``n``
    words holding it has its hash in ``shared``."""
    hit = [False] * len(ws)
    for i in range(len(ws) - n + 1):
        if _hash(ws[i:i + n]) in shared:
            hit[i:i + n] = [True] * n
    pieces = []
    for word, h in zip(ws, hit):
        if pieces and pieces[-1][1] == h:
            pieces[-1] = (pieces[-1][0] + " " + word, h)
        else:
            pieces.append(((" " if pieces else "") + word, h))
    return pieces
