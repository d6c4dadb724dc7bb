"""A written answer as words, and the runs of words two answers share.

Markdown, HTML and LaTeX markup, case and punctuation are set aside
(:func:`words`), and so is what changes how a word is stored but not how it
renders (:mod:`.rendered`: an HTML comment, an empty tag or ``&#101;`` inside a
word) or reads (:mod:`.letters`: a zero-width space inside a word, a Cyrillic ``а``
for a Latin ``a``); an answer is the set of its runs of ``n`` consecutive words
(:func:`shingles`, Broder's w-shingling), so rewording a few words here and
there leaves most runs intact, while two answers written independently share
few runs beyond the released prompt's, which never count.
"""

import re
import zlib

from .letters import compared, folded, mixes_scripts, skeleton
from .rendered import as_rendered

__all__ = ["words", "shingles", "marked_words", "mixed_script_words"]

_WORD = re.compile(r"[^\W_]+")
# LaTeX commands that only lay out (their arguments stay), case folded
_LAYOUT = frozenset({"left", "right", "big", "bigg", "mathrm", "mathbf", "text",
                     "operatorname", "quad", "qquad", ",", ";", "!", "displaystyle"})
_COMMAND = re.compile(r"\\([^\W\d_]+|[,;!])")
# ``va|ue``, ``fo||ow``: bars between two letters, which many fonts show as ``l``
_BAR_IN_A_WORD = re.compile(r"(?<=[^\W\d_])\|+(?=[^\W\d_])")


def _layout(match):
    """A LaTeX command that only lays out (read as its look-alike skeleton) as a space."""
    return " " if skeleton(match.group(1)) in _LAYOUT else match.group(0)


def words(text):
    """The words of ``text`` as they render (:func:`~.rendered.as_rendered`: HTML
    comments, tags and emphasis inside words removed, character references decoded)
    and read (:func:`~.letters.folded`: case folded, characters that show nothing
    removed; a ``|`` between two letters as ``l``), markup and punctuation set
    aside, and a word written twice in a row once."""
    read = _COMMAND.sub(_layout, folded(as_rendered(text)))
    found = _WORD.findall(_BAR_IN_A_WORD.sub(lambda bars: "l" * len(bars.group()), read))
    # a word written twice in a row reads once (``the the``: a typo, or padding;
    # ``x x`` in a formula too, on both sides alike)
    return [w for i, w in enumerate(found) if i == 0 or w != found[i - 1]]


def mixed_script_words(ws, limit=5):
    """The first ``limit`` distinct words of ``ws`` that mix Latin and Cyrillic letters."""
    found = []
    for w in ws:
        if w not in found and mixes_scripts(w):
            found.append(w)
            if len(found) == limit:
                break
    return found


def _hash(run):
    """A run of words, each read as :func:`~.letters.compared` (a Cyrillic
    look-alike reads as the Latin letter, ``vaIue`` as ``value``)."""
    return zlib.crc32(" ".join(map(compared, run)).encode("utf-8"))


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
