"""Figures drawn twice: for a laptop's column and for a phone's screen.

A figure drawn for the laptop column (about 700 pixels wide) is wider than a
phone (390 CSS pixels); shrinking it to the phone's width makes its labels
unreadable, and showing it at its size cuts it at the screen's edge.  Each
figure is therefore drawn a second time, at most :data:`PHONE_WIDTH` inches
wide with the same font sizes, and the HTML shows one or the other by screen
width: a ``<picture>`` whose ``<source>``, carrying a media query, holds the
phone's drawing.  Formats without HTML (the PDF) get the laptop's drawing as
a PNG image.

Two ways lead there:

* :func:`wide_or_stacked` draws a figure of several panels once in a row and
  once in a column, by the caller's own drawing function;
* :func:`phone_copy` re-lays out a finished Matplotlib figure for a phone
  (panels one under another, legends below their panels), and, loaded as an
  IPython extension (``%load_ext figure_layouts``, with ``book/_ext`` on the path),
  every figure a
  notebook shows comes with that phone drawing (:func:`figure_html`).
"""

from __future__ import annotations

import base64
import html
import io
import math
import pickle

__all__ = [
    "PHONE_WIDTH",
    "WideOrStacked",
    "figure_html",
    "load_ipython_extension",
    "phone_copy",
    "picture",
    "wide_or_stacked",
]

#: Width in inches of a figure's drawing for a phone: 340 pixels at the
#: book's 100 dots per inch, inside the column of a 390 px screen.
PHONE_WIDTH = 3.4


def _png(fig, dpi=None):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def _data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def picture(wide_png, narrow_png, alt, breakpoint):
    """HTML ``<picture>`` showing ``narrow_png`` on screens narrower than
    ``breakpoint`` CSS pixels and ``wide_png`` otherwise.

    Parameters
    ----------
    wide_png, narrow_png : bytes
        The two drawings, as PNG files.
    alt : str
        Alternative text of the image (escaped here); may be empty when the
        page fills it in from the figure's caption.
    breakpoint : int
        Screen width in CSS pixels from which ``wide_png`` is shown.

    Examples
    --------
    >>> picture(b"W", b"N", "a <b>", 600)[:44]
    '<picture><source media="(max-width: 599px)" '
    """
    if int(breakpoint) <= 0:
        raise ValueError(f"breakpoint must be a positive width in pixels, "
                         f"got {breakpoint!r}")
    return ("<picture>"
            f'<source media="(max-width: {int(breakpoint) - 1}px)" '
            f'srcset="{_data_uri(narrow_png)}">'
            f'<img src="{_data_uri(wide_png)}" alt="{html.escape(alt)}">'
            "</picture>")


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
        return {"text/html": picture(wide, stacked, self.alt, self.breakpoint),
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


# ---------------------------------------------------------------------------
# Any finished figure, re-laid out for a phone
# ---------------------------------------------------------------------------

# A panel keeps at least this share of its height when its width shrinks.
_MIN_HEIGHT_SHARE = 0.75
# Space in points between a panel's lowest label and its legend.
_LEGEND_GAP = 4.0


class _DetachedPickler(pickle.Pickler):
    """Pickles a figure without the flag that re-opens it in ``pyplot``."""

    def reducer_override(self, obj):
        from matplotlib.figure import Figure

        if not isinstance(obj, Figure):
            return NotImplemented
        func, args, state, *rest = obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
        state = dict(state)
        state.pop("_restore_to_pylab", None)
        return (func, args, state, *rest)


def _copy(fig):
    """A deep copy of ``fig``, outside ``pyplot``, drawn by Agg."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buffer = io.BytesIO()
    _DetachedPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(fig)
    copy = pickle.loads(buffer.getvalue())
    FigureCanvasAgg(copy)
    return copy


def _is_colorbar(ax):
    return hasattr(ax, "_colorbar") or ax.get_label() == "<colorbar>"


def _is_3d(ax):
    return hasattr(ax, "get_zlabel")


def _grid(fig):
    """The panels in reading order with their (row, column), and the grid's
    shape; None when some axes are not cells of one common grid."""
    panels = [ax for ax in fig.axes if not _is_colorbar(ax)]
    specs = [ax.get_subplotspec() for ax in panels]
    if not panels or len(panels) != len(fig.axes) or None in specs:
        return None
    grids = {id(spec.get_gridspec()) for spec in specs}
    if len(grids) != 1:
        return None
    nrows, ncols = specs[0].get_gridspec().get_geometry()
    cells = [(spec.rowspan.start, spec.colspan.start) for spec in specs]
    order = sorted(range(len(panels)), key=lambda i: cells[i])
    return [panels[i] for i in order], [cells[i] for i in order], nrows, ncols


def _new_cells(cells, nrows, ncols, columns):
    """Cells of the panels in a grid of ``columns`` columns: a row of panels
    becomes a column when it fits, otherwise they go in reading order."""
    if columns == nrows and ncols > nrows:
        return [(c, r) for r, c in cells], ncols
    return ([(i // columns, i % columns) for i in range(len(cells))],
            math.ceil(len(cells) / columns))


def _shared(ax, which):
    group = getattr(ax, f"get_shared_{which}_axes")()
    return [other for other in group.get_siblings(ax) if other is not ax]


def _label_every_panel(panels):
    """Panels that shared an axis hid its tick labels and its label where a
    neighbour showed them; once the panels move, each shows its own."""
    for ax in panels:
        if _is_3d(ax):
            continue
        for which in "xy":
            siblings = _shared(ax, which)
            if not siblings:
                continue
            side = {"x": "labelbottom", "y": "labelleft"}[which]
            ax.tick_params(axis=which, **{side: True})
            label = getattr(ax, f"get_{which}label")
            if not label().strip():
                names = [getattr(o, f"get_{which}label")() for o in siblings]
                named = [n for n in names if n.strip()]
                if named:
                    getattr(ax, f"set_{which}label")(named[0])


def _math_aware_words(text):
    """Words of ``text``, a formula between $ signs counting as one word."""
    words, current, in_math = [], "", False
    for char in text:
        if char == "$":
            in_math = not in_math
        if char == " " and not in_math:
            words.append(current)
            current = ""
        else:
            current += char
    return [w for w in [*words, current] if w]


def _wrap_titles(fig, renderer):
    """Break a panel title wider than its panel into lines, between words."""
    for ax in fig.axes:
        text = ax.title.get_text()
        wide = ax.title.get_window_extent(renderer).width
        room = ax.get_window_extent(renderer).width
        if not text or "\n" in text or wide <= room:
            continue
        per_line = max(1, math.floor(len(text) * room / wide))
        lines, line = [], ""
        for word in _math_aware_words(text):
            if line and len(line) + 1 + len(word) > per_line:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        ax.title.set_text("\n".join([*lines, line]))


def _legends_below(fig, renderer):
    """Put each panel's legend under the panel's labels, and the figure's
    legends under the figure; return the legends moved, with their panel."""
    from matplotlib.transforms import offset_copy

    moved = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or _is_3d(ax):
            continue
        legend.set_visible(False)
        fig.draw_without_rendering()
        below = ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0
        legend.set_visible(True)
        gap = below * 72 / fig.dpi + _LEGEND_GAP
        legend.set_loc("upper center")
        legend.set_bbox_to_anchor(
            (0.5, 0.0), transform=offset_copy(ax.transAxes, fig=fig, y=-gap,
                                              units="points"))
        moved.append((legend, ax))
    for legend in fig.legends:
        legend.set_loc("upper center")
        legend.set_bbox_to_anchor((0.5, 0.0), transform=fig.transFigure)
        moved.append((legend, None))
    return moved


def _with_columns(legend, ncols):
    """``legend`` made again with ``ncols`` columns (a legend lays its entries out
    once, when it is made); where it goes is set afterwards (:func:`_legends_below`)."""
    owner = legend.axes if legend.axes is not None and legend.axes.get_legend() is legend \
        else legend.figure
    new = owner.legend(
        legend.legend_handles, [t.get_text() for t in legend.get_texts()], ncols=ncols,
        prop=legend.prop, frameon=legend.get_frame_on(),
        title=legend.get_title().get_text() or None, handlelength=legend.handlelength,
        handletextpad=legend.handletextpad, columnspacing=legend.columnspacing,
        borderpad=legend.borderpad, markerscale=legend.markerscale)
    if owner is legend.figure:
        legend.figure.legends.remove(legend)
    return new


def _narrow_legends(fig, width_px):
    """Give each legend wider than ``width_px`` as many columns as fit (one at least)."""
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None
               and not _is_3d(ax)] + list(fig.legends)
    for legend in legends:
        ncols = len(legend.get_texts())
        fig.draw_without_rendering()
        while legend.get_window_extent().width > width_px and ncols > 1:
            ncols -= 1
            legend = _with_columns(legend, ncols)
            fig.draw_without_rendering()


def _fit_legends(moved, renderer):
    """The height in inches each panel's legend adds under it."""
    extra = {}
    for legend, ax in moved:
        height = legend.get_window_extent(renderer).height / legend.figure.dpi
        extra[ax] = height + _LEGEND_GAP / 72
    return extra


def phone_copy(fig, width=PHONE_WIDTH):
    """A copy of ``fig`` laid out for a phone, ``fig`` itself unchanged.

    The copy is ``width`` inches wide with the same font sizes.  Panels of a
    grid go one under another (a row of panels becomes a column), or two a
    row where the original panels were already narrow; a panel keeps its
    height, or three quarters of it at least when it gets narrower.  Every
    legend moves under its panel's labels, a figure legend under the
    figure, and panels that shared an axis each show its tick labels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    width : float, default=PHONE_WIDTH
        Width of the copy in inches.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(1, 2, figsize=(7.2, 3))
    >>> phone = phone_copy(fig)
    >>> [ax.get_subplotspec().rowspan.start for ax in phone.axes]
    [0, 1]
    >>> fig.get_size_inches().tolist(), phone.get_size_inches()[0].item()
    ([7.2, 3.0], 3.4)
    """
    from matplotlib.figure import Figure
    from matplotlib.gridspec import GridSpec

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    width = float(width)
    if not width > 0:
        raise ValueError(f"width must be a positive number of inches, got {width!r}")
    copy = _copy(fig)
    old_width, old_height = (float(v) for v in copy.get_size_inches())
    grid = _grid(copy)
    if grid is None:
        rows = 1
        height = old_height * min(1.0, max(width / old_width, _MIN_HEIGHT_SHARE))
    else:
        panels, cells, nrows, ncols = grid
        panel_width = old_width / ncols
        columns = max(1, min(ncols, math.floor(width / (0.9 * panel_width))))
        cells, rows = _new_cells(cells, nrows, ncols, columns)
        share = min(1.0, max(width / columns / panel_width, _MIN_HEIGHT_SHARE))
        height = rows * old_height / nrows * share
        new = GridSpec(rows, max(c for _, c in cells) + 1, figure=copy)
        for ax, (r, c) in zip(panels, cells):
            ax.set_subplotspec(new[r, c])
        _label_every_panel(panels)
    copy.set_size_inches(width, height)
    renderer = copy.canvas.get_renderer()
    copy.tight_layout()
    _wrap_titles(copy, renderer)
    copy.tight_layout()
    _narrow_legends(copy, width * copy.dpi)
    moved = _legends_below(copy, renderer)
    extra = _fit_legends(moved, renderer)
    # Each row of panels grows by its tallest legend; a figure legend hangs
    # under the figure, where the saved image's tight box reaches it.
    by_row = {}
    for ax, inches in extra.items():
        if ax is not None:
            row = ax.get_subplotspec().rowspan.start if ax.get_subplotspec() else 0
            by_row[row] = max(by_row.get(row, 0.0), inches)
    height += sum(by_row.values())
    copy.set_size_inches(width, height)
    copy.tight_layout()
    # Labels of 3-D axes and legends may reach past the figure's edge, where
    # the saved image's tight box follows them: narrow the figure by as much.
    from matplotlib import rcParams

    pad = rcParams["savefig.pad_inches"]
    pad = 0.1 if pad == "layout" else float(pad)
    figure_width = width
    for _ in range(3):
        excess = copy.get_tightbbox(renderer).width + 2 * pad - width
        if excess <= 0.01 or figure_width - excess < width / 2:
            break
        figure_width -= excess
        copy.set_size_inches(figure_width, height)
        copy.tight_layout()
    return copy


def figure_html(fig, *, max_width=None, dpi=None):
    """The laptop's and the phone's drawings of ``fig`` in one ``<picture>``.

    Returns None when ``fig``, saved as the notebook shows it, is no wider
    than its phone drawing would be: then the notebook's PNG serves both.
    The ``<img>`` has an empty ``alt``, for the page to fill in from the
    figure's caption.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    max_width : int, optional
        Widest image in pixels shown as it is on a phone; defaults to
        :data:`PHONE_WIDTH` inches at the figure's resolution.
    dpi : float, optional
        Resolution of both drawings; defaults to the figure's.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(7, 3), dpi=100)
    >>> figure_html(fig).startswith("<picture>")
    True
    >>> small, ax = plt.subplots(figsize=(3, 2), dpi=100)
    >>> figure_html(small) is None
    True
    """
    if not fig.axes:
        return None
    dpi = fig.dpi if dpi is None else float(dpi)
    if max_width is None:
        max_width = round(PHONE_WIDTH * dpi)
    wide = _png(fig, dpi)
    from PIL import Image

    wide_width = Image.open(io.BytesIO(wide)).size[0]
    if wide_width <= max_width:
        return None
    phone = phone_copy(fig, width=max_width / dpi)
    narrow = _png(phone, dpi)
    # The laptop's drawing from the width at which it fits the column, with
    # the page's margins on either side.
    return picture(wide, narrow, "", breakpoint=max(768, wide_width + 64))


def load_ipython_extension(ipython):
    """Show every Matplotlib figure of the session with its phone drawing.

    The HTML formatter is registered for ``FigureBase``, the base class of
    figures: Matplotlib's inline backend resets the formatters registered
    for ``Figure`` itself when it starts, and keeps the PNG formatter that
    formats without HTML (the PDF) use.
    """
    from matplotlib.figure import FigureBase

    ipython.display_formatter.formatters["text/html"].for_type(FigureBase, figure_html)
