"""Files an instructor opens in a spreadsheet: text that cannot run as a formula.

A student id, a name or an email, and every cell of an LMS's roster, is text
someone else wrote; a spreadsheet that opens the export takes a cell starting
with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or a carriage return)
as a formula: ``=HYPERLINK("http://x","y")`` or ``+cmd|' /C calc'!A0``.
:func:`neutralise` prefixes such text with an apostrophe, as OWASP advises
for CSV injection, so it shows as written and never runs; :func:`writer` is
the CSV writer every export uses. Numbers the tools compute are written as
numbers (an ``int`` or ``float`` is never touched), and text that is only a
plain decimal number (``-3``, ``2.5``, as an LMS writes its points) stays as
it is.

The test is an allowlist: a cell is left as it is only when the first
character a spreadsheet reads is known to be inert (a letter, a digit, or
ASCII punctuation that starts no formula). Before that character a
spreadsheet may skip spaces, line breaks, double quotes (a field's quotes),
control and format characters of every kind (``\\x0b``, ``\\x1c``, ``\\x85``, ``\\u2028``, ``\\u200b``,
``\\u2060``, a byte-order mark, ...), so these are looked past; any other
first character (a trigger, a full-width or small form of one, a symbol no
one has checked) gets the apostrophe.

A spreadsheet does not always see a cell whole: Excel opens a ``.csv`` with
the system's list separator (``;`` in much of Europe), a text import splits
on tabs or spaces, some on ``|`` or ``,``. So every piece of a cell after such a
separator (:data:`SEPARATORS`) is tested the same way, and one that could
open as a formula gets its own apostrophe right after the separator:
``M;=1+1`` is written ``M;'=1+1``, which shows as text split or whole.

And every text cell is written between double quotes (numbers are not), so a
spreadsheet that honours CSV quoting never splits it at all: Canvas's and
Moodle's grade imports read quoted fields (Canvas writes its own export so),
and a number the tools compute, or text that is exactly a plain number such
as an LMS's ``-3``, stays unquoted and opens as a number.
"""

from __future__ import annotations

import csv
import decimal
import re
import unicodedata

__all__ = ["FORMULA_STARTS", "SEPARATORS", "neutralise", "writer"]

#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"),
#: with the full-width forms some spreadsheets fold into them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: What a spreadsheet or a text import may split a cell on (and line breaks).
SEPARATORS = ";,\t|\r\n "
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_SPLIT = re.compile(f"([{re.escape(SEPARATORS)}])")
#: ASCII punctuation that starts no formula in any spreadsheet. Not ``"``: a
#: reader that splits a cell starts a quoted field there, and ``""=1+1``
#: reads as the field ``=1+1``.
_INERT_PUNCTUATION = frozenset("!#$%&'()*,./:;<>?[\\]^_`{|}~")
#: Unicode categories a spreadsheet may skip before the first character it
#: reads: spaces and separators, control and format characters.
_SKIPPED_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


def _opens_as_formula(text):
    """Whether a spreadsheet could read ``text`` as a formula: looking past what it
    may skip, its first character is not known to be inert."""
    for ch in text:
        if ch in FORMULA_STARTS:
            return True
        if ch.isalnum() and ch.isascii() or ch in _INERT_PUNCTUATION:
            return False
        category = unicodedata.category(ch)
        if category[0] in "LN":       # a letter or a digit of any script
            return unicodedata.normalize("NFKC", ch)[:1] in FORMULA_STARTS
        if category in _SKIPPED_CATEGORIES or ch.isspace() or ch == '"':
            continue
        return True                   # nothing known about it: not inert
    return False


def _unsafe(piece):
    """Whether ``piece`` could open as a formula: it starts like one and is not a
    plain number."""
    return _opens_as_formula(piece) and not _PLAIN_NUMBER.fullmatch(piece)


def neutralise(cell):
    """``cell`` as a spreadsheet shows it and never runs, whole or split at any
    of :data:`SEPARATORS`: the cell, and each piece after a separator, that
    starts like a formula gets a leading apostrophe; numbers and other text are
    returned as they are.

    >>> neutralise('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    >>> neutralise("M;=1+1"), neutralise("a\\t@x")
    ("M;'=1+1", "a\\t'@x")
    >>> neutralise("-3"), neutralise(-3.5), neutralise("Ada")
    ('-3', -3.5, 'Ada')
    """
    if not isinstance(cell, str):
        return cell
    pieces = _SPLIT.split(cell)          # text, separator, text, separator, ...
    out = ["'" if _unsafe(cell) else ""]
    for n, piece in enumerate(pieces):
        if n % 2 == 0 and n and _unsafe(piece):
            out.append("'")
        out.append(piece)
    return "".join(out)


def _as_written(cell):
    """The cell as the CSV writer gets it: text that is exactly a plain number
    as a number (written unquoted, to the character), other text as text."""
    if isinstance(cell, str) and _PLAIN_NUMBER.fullmatch(cell):
        number = decimal.Decimal(cell)
        if str(number) == cell:           # "-3", "2.5"; not "007", kept as text
            return number
    return cell


class _Writer:
    """A :func:`csv.writer` whose every cell goes through :func:`neutralise`, text
    quoted."""

    def __init__(self, f, **kwargs):
        kwargs.setdefault("quoting", csv.QUOTE_NONNUMERIC)
        self._csv = csv.writer(f, **kwargs)

    def writerow(self, row):
        return self._csv.writerow([_as_written(neutralise(cell)) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(f, **kwargs) -> _Writer:
    """A CSV writer for ``f`` (as :func:`csv.writer`) that neutralises every cell
    and quotes every text cell."""
    return _Writer(f, **kwargs)
