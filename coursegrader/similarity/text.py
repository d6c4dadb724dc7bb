"""A written answer as words, and the runs of words two answers share.

Markdown, HTML and LaTeX markup, case and punctuation are set aside
(:func:`words`), and so is what changes how a word is stored but not how it
renders (:mod:`.rendered`: an HTML comment, an empty tag or ``&#101;`` inside a
word) or reads (:mod:`.letters`: a zero-width space inside a word, a Cyrillic ``а``
for a Latin ``a``); an answer is the set of its runs of ``n`` consecutive words
(:func:`shingles`, Broder's w-shingling), so rewording a few words here and
there leaves most runs intact, while two answers written independently share
few runs beyond the released prompt's, which never count. A run of one
answer is found in another also with words between its words there
(:func:`skipping_shingles`): a word added after every second or third
breaks every run of the copy, and hides none of the original's.
"""

import itertools
import re
import zlib
from dataclasses import dataclass

import numpy as np

from .letters import compared, folded, mixes_scripts, skeleton
from .rendered import as_rendered

__all__ = ["words", "shingles", "skipping_shingles", "found_in", "marked_words",
           "mixed_script_words", "Reading"]

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


def words(text, formulas=True):
    """The words of ``text`` as they render (:func:`~.rendered.as_rendered`: HTML
    comments, tags and emphasis inside words removed, character references decoded)
    and read (:func:`~.letters.folded`: case folded, characters that show nothing
    removed; a ``|`` between two letters as ``l``), markup and punctuation set
    aside, and a word written twice in a row once; without ``formulas``, each
    formula one word (the prose of a copy whose symbols were renamed is its
    original's)."""
    read = _COMMAND.sub(_layout, folded(as_rendered(text, formulas)))
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


def _runs(ws, n, skip):
    """(hash, positions) of each run of ``n`` words of ``ws`` taken in order from
    ``n + skip`` consecutive ones, starting with the first (``skip`` words at
    most left out between them)."""
    read = [compared(w) for w in ws]
    for i in range(len(ws) - n + 1):
        for rest in itertools.combinations(range(i + 1, min(i + n + skip, len(ws))), n - 1):
            positions = (i, *rest)
            run = " ".join(read[j] for j in positions)
            yield zlib.crc32(run.encode("utf-8")), positions


def skipping_shingles(ws, n, skip):
    """The hashes of every run of ``n`` words of ``ws`` with at most ``skip`` words
    left out between them (``skip`` 0: :func:`shingles`' runs), sorted, each once,
    4 bytes each (a submission at the bound on written answers holds some 160,000):
    another answer's run among them is in ``ws``, whatever was put between its
    words (:func:`found_in`)."""
    return np.unique(np.fromiter((h for h, _ in _runs(ws, n, skip)), dtype=np.uint32))


def found_in(runs, skipping):
    """The hashes of ``runs`` (an iterable) that are among ``skipping`` (sorted, as
    :func:`skipping_shingles` gives them), as a set."""
    runs = runs if isinstance(runs, np.ndarray) else np.fromiter(runs, dtype=np.uint32)
    if not len(runs) or not len(skipping):
        return set()
    at = np.minimum(np.searchsorted(skipping, runs), len(skipping) - 1)
    return set(runs[skipping[at] == runs].tolist())


def marked_words(ws, n, shared, skip=0):
    """``ws`` cut into (text, shared) pieces: a word is shared when a run of ``n``
    words holding it, with at most ``skip`` left out between them, has its hash in
    ``shared``."""
    hit = [False] * len(ws)
    for h, positions in _runs(ws, n, skip):
        if h in shared:
            for j in positions:
                hit[j] = True
    pieces = []
    for word, h in zip(ws, hit):
        if pieces and pieces[-1][1] == h:
            pieces[-1] = (pieces[-1][0] + " " + word, h)
        else:
            pieces.append(((" " if pieces else "") + word, h))
    return pieces


@dataclass(frozen=True, eq=False)
class Reading:
    """One reading of a submission's written answers: its ``words``, its ``runs``
    of ``n`` words that the prompt does not hold ({hash: first word}), and
    ``skipping``, where another's runs are found (:func:`skipping_shingles`)."""

    words: tuple
    runs: dict
    skipping: np.ndarray
    keys: np.ndarray = None    # the hashes of ``runs``, as an array

    @classmethod
    def of(cls, ws, prompt, n, skip):
        """The reading of the words ``ws``, the prompt's words being ``prompt``."""
        held = shingles(list(prompt), n)
        runs = {h: i for h, i in shingles(ws, n).items() if h not in held}
        return cls(tuple(ws), runs, skipping_shingles(ws, n, skip),
                   np.fromiter(runs, dtype=np.uint32, count=len(runs)))

    def found(self, other):
        """The hashes of this reading's runs that ``other`` holds, with words between."""
        return found_in(self.keys, other.skipping)
