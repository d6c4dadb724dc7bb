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
"""

from __future__ import annotations

import csv
import re

__all__ = ["FORMULA_STARTS", "neutralise", "writer"]

#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"),
#: with the full-width forms some spreadsheets fold into them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")
#: What a spreadsheet may skip before the first character it reads: spaces,
#: line breaks, no-break and zero-width spaces, a byte-order mark.
_SKIPPED = " \n\u00a0\u200b\ufeff\u3000"


def neutralise(cell):
    """``cell`` as a spreadsheet shows it and never runs: text that starts like a
    formula gets a leading apostrophe; numbers and other text are returned as
    they are.

    >>> neutralise('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    >>> neutralise("-3"), neutralise(-3.5), neutralise("Ada")
    ('-3', -3.5, 'Ada')
    """
    if not isinstance(cell, str) or not cell.lstrip(_SKIPPED).startswith(FORMULA_STARTS):
        return cell
    if _PLAIN_NUMBER.fullmatch(cell):
        return cell
    return "'" + cell


class _Writer:
    """A :func:`csv.writer` whose every cell goes through :func:`neutralise`."""

    def __init__(self, f, **kwargs):
        self._csv = csv.writer(f, **kwargs)

    def writerow(self, row):
        return self._csv.writerow([neutralise(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(f, **kwargs) -> _Writer:
    """A CSV writer for ``f`` (as :func:`csv.writer`) that neutralises every cell."""
    return _Writer(f, **kwargs)
