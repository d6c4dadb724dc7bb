"""nbgrader's markers in a cell's source: the one parser of them in the course.

A source notebook marks its model answers with ``### BEGIN SOLUTION`` ...
``### END SOLUTION`` and the hidden part of a test cell with
``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS``; nbgrader removes both
from the release.  A line holding a marker's text is a marker line, as
nbgrader reads them.  The author (:mod:`coursegrader.tools.author`), the checks
before release (:mod:`coursegrader.tools.validation`), the feedback's
:class:`~coursegrader.preprocessors.hide_hidden_tests.HideHiddenTests`, and
:func:`coursegrader.tools.course.fill_answers` all read the regions here.
"""

__all__ = ["SOLUTION", "HIDDEN_TESTS", "MARKERS", "scan", "region_lines",
           "outside_lines", "without_marker_lines"]

#: (begin, end) of a solution region and of a hidden-test region
SOLUTION = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TESTS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
#: every marker's text, each begin before its end
MARKERS = SOLUTION + HIDDEN_TESTS


def scan(source, regions=(SOLUTION, HIDDEN_TESTS)):
    """Yield ``(line, region, is_marker)`` for each line of ``source``.

    ``region`` is the ``(begin, end)`` pair of ``regions`` whose region the
    line is in (for a marker line, the one it opens or closes), else None.
    A line holding a begin marker opens its region; one holding an end
    marker closes whatever region is open.
    """
    inside = None
    for line in source.split("\n"):
        opened = next((r for r in regions if r[0] in line), None)
        if opened is not None:
            inside = opened
            yield line, opened, True
            continue
        closed = next((r for r in regions if r[1] in line), None)
        if closed is not None:
            inside = None
            yield line, closed, True
            continue
        yield line, inside, False


def region_lines(source, region):
    """The lines of ``source`` inside ``region`` (markers excluded), as written."""
    return [line for line, r, marker in scan(source, (region,))
            if r == region and not marker]


def outside_lines(source, regions=(SOLUTION, HIDDEN_TESTS)):
    """The lines of ``source`` outside every region of ``regions`` (no markers)."""
    return [line for line, r, marker in scan(source, regions)
            if r is None and not marker]


def without_marker_lines(source, region):
    """``source`` with the marker lines of ``region`` removed and its content kept."""
    return "\n".join(line for line, _, marker in scan(source, (region,)) if not marker)
