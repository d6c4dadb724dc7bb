"""Letters as a reader sees them: what changes how text is stored but not how it
reads is set aside before written answers are compared.

:func:`folded` is text as it reads: Unicode NFKC (fullwidth and mathematical
letters, ligatures, no-break spaces read as the plain ones), with the
characters that show nothing removed (format characters, category Cf: zero-width
spaces and joiners, soft hyphens, bidirectional controls; combining marks,
Mn and Me, such as the combining grapheme joiner or an accent; control
characters other than whitespace; the Hangul fillers), and case folded.
A zero-width space inside a word no longer cuts it in two.

:func:`skeleton` is a folded word with each letter that looks like a Latin
letter or a digit written as that letter, by Unicode's table of confusable
characters (UTS #39, ``confusables.txt``, as the maintained package
``confusable_homoglyphs`` ships it): Cyrillic ``а е о р с х і``, Greek
``Α Κ Ο ο``, Cherokee, Lisu and the rest read as ``a e o p c x i a k o o``.
Where the table gives a character several Latin look-alikes (Cyrillic ``ӏ``:
``l``, ``I`` and ``1``), an upper-case character reads as the upper-case
letter, a lower-case one as the lower-case letter, before case is folded. A
capital whose small letter looks like no Latin letter (Greek ``Κ``, small
``κ``) is already folded to the Latin small letter (:func:`folded`), so
``Κ1`` reads as ``k1``. Plain ASCII letters and digits are not mapped by the
table. Characters the table does not give a Latin look-alike stay as they are
(Cyrillic ``к`` and ``л``): a word mixing Cyrillic and Latin letters is named
anyway (:func:`mixes_scripts`).

:func:`compared` is the skeleton as two words are compared: besides, small
capitals and the Greek letters that look like Latin ones but that the table
does not map (``ᴛ``, ``ε``, ``κ``, ``τ``, ``η``) read as the Latin letter, and
the ASCII spellings many fonts show alike read as one (``I``, folded ``i``, ``1`` and
``l`` as ``l``; ``0`` as ``o``; ``rn`` as ``m``, ``vv`` as ``w``, ``cl`` as
``d``), so that ``vaIue``, ``rnatrix`` or ``c0lumn`` is the word it imitates
(and :func:`.text.words` reads a ``|`` between two letters as ``l``). Both words read the same way,
so two honest words at most merge (``kemel`` for ``kernel`` on both sides).
"""

import functools
import unicodedata

from confusable_homoglyphs.confusables import confusables_data

__all__ = ["folded", "skeleton", "compared", "mixes_scripts", "cyrillic_letters"]

_INVISIBLE_CATEGORIES = frozenset({"Cf", "Mn", "Me"})
#: Letters (category Lo) that show nothing: the Hangul fillers.
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def _shows(c):
    category = unicodedata.category(c)
    if category in _INVISIBLE_CATEGORIES or c in _FILLERS:
        return False
    return category != "Cc" or c.isspace()


def folded(text):
    """``text`` as it reads: NFKC, without characters that show nothing, case folded."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if _shows(c))
    return "".join(map(_fold_char, unicodedata.normalize("NFKC", text)))


@functools.lru_cache(maxsize=4096)
def _fold_char(c):
    """``c`` case folded; a capital that looks like a Latin capital while its small
    letter looks like no Latin letter (Greek ``Κ``, small ``κ``) folds to the Latin
    small letter, so that folding keeps the look-alike."""
    low = c.casefold()
    if c.isascii() or not c.isupper() or len(low) != 1 or _look_alike(low) is not None:
        return low
    latin = _look_alike(c)
    return latin.casefold() if latin is not None else low


def _latin(s):
    return len(s) == 1 and s.isascii() and s.isalnum()


def _look_alike(c):
    """The ASCII letter or digit ``c`` reads as (case kept), or None."""
    if c.isascii():
        return None
    near = {h["c"] for h in confusables_data.get(c, ())}
    found = {h for h in near if _latin(h)}
    for h in list(found):                      # the others sharing its prototype
        found |= {g["c"] for g in confusables_data.get(h, ()) if _latin(g["c"])}
    if not found:
        return None
    rank = (lambda h: (not h.isupper(), h.isdigit(), h)) if c.isupper() else \
        (lambda h: (not h.islower(), h.isdigit(), h))
    return min(found, key=rank)


@functools.lru_cache(maxsize=4096)
def _skeleton_char(c):
    latin = _look_alike(c)
    return c if latin is None else latin.casefold()


def skeleton(word):
    """A :func:`folded` word with every look-alike of a Latin letter or digit as that letter."""
    if word.isascii():
        return word
    return "".join(map(_skeleton_char, word))


#: letters Unicode's table gives no Latin look-alike that still read as one (small
#: capitals, Greek letters in a Latin word): compared as that letter
_OTHER_LOOK_ALIKES = str.maketrans(
    "ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ"
    "εϵɛκĸϰτηιναορσχγωυ",
    "abcdeghijklmnoprstuvwyz"
    "eeekkktnivaopoxywu")
#: ASCII spellings that many fonts show alike, each read as one (after ``skeleton``)
_ASCII_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
_ASCII_SINGLE = str.maketrans("i10", "llo")


def compared(word):
    """A :func:`skeleton` of ``word`` with the ASCII look-alikes read as one:
    ``vaiue`` (``vaIue`` folded) and ``rnatrix`` read as ``value`` and ``matrix``
    do."""
    word = skeleton(word).translate(_OTHER_LOOK_ALIKES).translate(_ASCII_SINGLE)
    for pair, one in _ASCII_PAIRS:
        word = word.replace(pair, one)
    return word


def _script(c):
    if not c.isalpha():
        return None
    name = unicodedata.name(c, "")
    for script in ("LATIN", "CYRILLIC"):
        if name.startswith(script):
            return script
    return None


def mixes_scripts(word):
    """Whether ``word`` holds both Latin and Cyrillic letters (``Саndidate``, with a
    Cyrillic ``С`` and ``а``): honest writing in either alphabet does not. Greek
    letters beside Latin ones are honest mathematics (``λmax``, ``αi``) and are
    not counted."""
    if word.isascii():
        return False
    return len({_script(c) for c in word} - {None}) > 1


def cyrillic_letters(word):
    """The distinct Cyrillic letters of ``word``, in order (to name them on the page)."""
    return list(dict.fromkeys(c for c in word if _script(c) == "CYRILLIC"))
