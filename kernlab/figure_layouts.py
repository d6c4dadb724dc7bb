"""A figure of several panels drawn twice: side by side and stacked.

A row of three panels fits a laptop column but not a phone, where it would be
shrunk until its labels are unreadable or cut after the first panel.
:func:`wide_or_stacked` draws the panels once in a row and once in a column;
in a notebook, and on the book's web pages, the row is shown on wide screens and
the column on screens narrower than ``breakpoint`` pixels (an HTML ``<picture>``
whose ``<source>`` carries a media query).  Formats without HTML (the PDF)
get the row as a PNG image.
"""

from __future__ import annotations

import base64
import html
import io

__all__ = ["WideOrStacked", "wide_or_stacked"]


def _png(fig, dpi):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


class WideOrStacked:
    """Two drawings of one figure, shown by screen width (see the module).

    Attributes
    ----------
    wide, stacked : matplotlib.figure.Figure
        The panels in a row and in a column.
    alt : str
        The alternative text of the image.
    breakpoint : int
        Screens narrower than this many CSS pixels show ``stacked``.
    """

    def __init__(self, wide, stacked, alt, *, breakpoint=600, dpi=None):
        alt = " ".join(str(alt).split())
        if len(alt) < 20:
            raise ValueError(f"alt must describe the figure in at least 20 "
                             f"characters, got {alt!r}")
        if int(breakpoint) <= 0:
            raise ValueError(f"breakpoint must be a positive width in pixels, "
                             f"got {breakpoint!r}")
        self.wide, self.stacked, self.alt = wide, stacked, alt
        self.breakpoint, self.dpi = int(breakpoint), dpi

    def _repr_mimebundle_(self, include=None, exclude=None):
        wide, stacked = _png(self.wide, self.dpi), _png(self.stacked, self.dpi)

        def uri(data):
            return "data:image/png;base64," + base64.b64encode(data).decode("ascii")

        picture = (
            "<picture>"
            f'<source media="(max-width: {self.breakpoint - 1}px)" '
            f'srcset="{uri(stacked)}">'
            f'<img src="{uri(wide)}" alt="{html.escape(self.alt)}">'
            "</picture>"
        )
        return {"text/html": picture,
                "image/png": base64.b64encode(wide).decode("ascii")}


def wide_or_stacked(draw, n, *, wide_size, stacked_size, alt, breakpoint=600,
                    **subplot_kw):
    """Draw ``n`` panels in a row and in a column; return a :class:`WideOrStacked`.

    Parameters
    ----------
    draw : callable
        ``draw(fig, axes, stacked)`` draws the panels on the ``n`` axes of
        ``fig`` (``stacked`` is True for the column), legend and layout included.
    n : int
        Number of panels.
    wide_size, stacked_size : (float, float)
        Figure sizes in inches of the row and of the column.
    alt : str
        Alternative text: what the figure shows, in at least 20 characters.
    breakpoint : int, default=600
        Screens narrower than this many CSS pixels show the column.
    **subplot_kw
        Passed on to ``plt.subplots`` (e.g. ``sharey=True``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> def draw(fig, axes, stacked):
    ...     for ax in axes:
    ...         ax.plot([0, 1])
    >>> both = wide_or_stacked(draw, 3, wide_size=(7.2, 3), stacked_size=(3.5, 8),
    ...                        alt="three straight lines, one per panel")
    >>> [len(fig.axes) for fig in (both.wide, both.stacked)]
    [3, 3]
    >>> "<picture>" in both._repr_mimebundle_()["text/html"]
    True
    """
    import matplotlib.pyplot as plt

    if int(n) < 1:
        raise ValueError(f"n must be a positive number of panels, got {n!r}")
    figures = []
    for stacked, size in ((False, wide_size), (True, stacked_size)):
        rows, cols = (n, 1) if stacked else (1, n)
        fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False, **subplot_kw)
        draw(fig, list(axes.flat), stacked)
        figures.append(fig)
        # Shown through the returned object only, not a second time by the
        # notebook's inline backend.
        plt.close(fig)
    return WideOrStacked(*figures, alt, breakpoint=breakpoint)
