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
spreadsheet may skip spaces, line breaks, quote characters (a field's quotes),
control and format characters of every kind (``\\x0b``, ``\\x1c``, ``\\x85``, ``\\u2028``, ``\\u200b``,
``\\u2060``, a byte-order mark, ...), so these are looked past; any other
first character (a trigger, a full-width or small form of one, a symbol no
one has checked) gets the apostrophe.

A spreadsheet does not always see a cell whole: Excel opens a ``.csv`` with
the system's list separator (``;`` in much of Europe), a text import splits
on tabs or spaces, some on ``|`` or ``,``. So every place a reader may start a
field inside a cell, right after such a separator (:data:`SEPARATORS`), is
tested the same way, on the text from there to the cell's end.

A reader may also take ``'`` as its quote character (LibreOffice's and
Excel's text imports offer it): a field that starts with ``'`` is then read
from the next character, so an apostrophe there protects nothing (``M;'=1+1``
read with ``;`` and ``'`` is the field ``=1+1``), and the student's own
``';=1+1`` or ``x;'=1+1'`` opens a formula the same way. Where a reader may
start a field, both quote characters are therefore looked past like spaces,
and what needs marking gets an underscore (:data:`FIELD_MARK`), which no
reader takes for a quote and no spreadsheet for a formula: ``M;=1+1`` is
written ``M;_=1+1``. Only the cell's first character is marked with OWASP's
apostrophe (:data:`CELL_MARK`): every text cell is written between double
quotes, so a reader that honours them reads the apostrophe as text, and one
whose quote is ``'`` sees the double quote first and reads the cell as
written. The unmatched lists are text, not quoted cells: each of their lines
is marked as a field throughout (``quoted=False``).

Every text cell is written between double quotes (numbers are not), so a
spreadsheet that honours CSV quoting never splits it at all: Canvas's and
Moodle's grade imports read quoted fields (Canvas writes its own export so),
and a number the tools compute, or text that is exactly a plain number such
as an LMS's ``-3``, stays unquoted and opens as a number; a row's first
cell, where a reader with another separator starts a field that runs on into
the next cells (``-3,"Eve",...``), is never a bare negative number.
"""

from __future__ import annotations

import csv
import decimal
import re
import unicodedata

__all__ = ["CELL_MARK", "FIELD_MARK", "FORMULA_STARTS", "SEPARATORS", "neutralise",
           "writer"]

#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"),
#: with the full-width forms some spreadsheets fold into them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: What a spreadsheet or a text import may split a cell on (and line breaks).
SEPARATORS = ";,\t|\r\n "
#: The mark before a cell's first character (inside the writer's double quotes).
CELL_MARK = "'"
#: The mark where a reader may start a field itself: not a quote in any reader.
FIELD_MARK = "_"
#: The characters a reader may take as its quote.
_QUOTES = "\"'"
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")     # ASCII digits: "-３" is not one
_SEPARATOR = re.compile(f"[{re.escape(SEPARATORS)}]")
#: ASCII punctuation that starts no formula in any spreadsheet. A quote
#: character (``"`` or ``'``) counts only where no reader opens a quoted
#: field with it: ``""=1+1`` and ``''=1+1`` read as the field ``=1+1``.
_INERT_PUNCTUATION = frozenset("!#$%&'()*,./:;<>?[\\]^_`{|}~")
#: Unicode categories a spreadsheet may skip before the first character it
#: reads: spaces and separators, control and format characters.
_SKIPPED_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


def _kind(ch, quotes):
    """What ``ch`` is to a reader that takes ``quotes`` as quote characters, where
    it reads a field's first character: True a formula sign, False inert, None
    skipped (it looks at the next one)."""
    if ch in FORMULA_STARTS:
        return True
    if ch in quotes:
        return None
    if ch.isalnum() and ch.isascii() or ch in _INERT_PUNCTUATION:
        return False
    category = unicodedata.category(ch)
    if category[0] in "LN":           # a letter or a digit of any script
        return unicodedata.normalize("NFKC", ch)[:1] in FORMULA_STARTS
    if category in _SKIPPED_CATEGORIES or ch.isspace():
        return None
    return True                       # nothing known about it: not inert


def _opens(text, quotes):
    """For each ``i``, whether ``text[i:]`` could open as a formula to a reader
    that takes ``quotes`` as quotes: past what it skips, the first character is
    not known to be inert. One pass from the end, whatever the text's length."""
    opens = [False] * (len(text) + 1)
    for i in range(len(text) - 1, -1, -1):
        kind = _kind(text[i], quotes)
        opens[i] = opens[i + 1] if kind is None else kind
    return opens


def neutralise(cell, *, quoted=True):
    """``cell`` as a spreadsheet shows it and never runs, whole or split at any
    of :data:`SEPARATORS`, whichever quote character the reader takes: where
    the cell starts like a formula it gets :data:`CELL_MARK` (``quoted``: it is
    written between double quotes) or :data:`FIELD_MARK` (it is not), and
    after each separator where it does, :data:`FIELD_MARK`. Numbers, a cell
    that is a plain number (written bare) and other text are returned as they
    are.

    >>> neutralise('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    >>> neutralise("M;=1+1"), neutralise("a\\t@x"), neutralise("x;'=1+1'")
    ('M;_=1+1', 'a\\t_@x', "x;_'=1+1'")
    >>> neutralise("-3"), neutralise(-3.5), neutralise("Ada"), neutralise("'=1")
    ('-3', -3.5, 'Ada', "'=1")
    """
    if not isinstance(cell, str):
        return cell
    fields = _opens(cell, _QUOTES)
    out, done = [], 0
    if quoted:      # written bare when a plain number, else after a double quote
        if _opens(cell, '"')[0] and not _PLAIN_NUMBER.fullmatch(cell):
            out.append(CELL_MARK)
    elif fields[0]:
        out.append(FIELD_MARK)
    # a field a reader starts inside a cell runs on to the closing quote and the
    # next cells: it is never a plain number
    for m in _SEPARATOR.finditer(cell):
        i = m.end()
        if fields[i]:
            out += [cell[done:i], FIELD_MARK]
            done = i
    out.append(cell[done:])
    return "".join(out)


def _as_written(cell):
    """The cell as the CSV writer gets it: text that is exactly a plain number
    as a number (written unquoted, to the character), other text as text."""
    if isinstance(cell, str) and _PLAIN_NUMBER.fullmatch(cell):
        number = decimal.Decimal(cell)
        if str(number) == cell:           # "-3", "2.5"; not "007", kept as text
            return number
    return cell


def _first(cell):
    """A row's first cell: where a reader with another separator starts a field
    that runs on into the next cells, so a negative number is marked as text."""
    cell = neutralise(cell)
    if isinstance(cell, str) and cell.startswith("-"):
        return CELL_MARK + cell
    if isinstance(cell, (int, float, decimal.Decimal)) and cell < 0:
        return CELL_MARK + str(cell)
    return _as_written(cell)


class _Writer:
    """A :func:`csv.writer` whose every cell goes through :func:`neutralise`, text
    quoted."""

    def __init__(self, f, **kwargs):
        kwargs.setdefault("quoting", csv.QUOTE_NONNUMERIC)
        self._csv = csv.writer(f, **kwargs)

    def writerow(self, row):
        row = list(row)
        return self._csv.writerow([_first(cell) for cell in row[:1]]
                                  + [_as_written(neutralise(cell)) for cell in row[1:]])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(f, **kwargs) -> _Writer:
    """A CSV writer for ``f`` (as :func:`csv.writer`) that neutralises every cell
    and quotes every text cell."""
    return _Writer(f, **kwargs)
