"""Plotting helpers shared by the chapters of the book.

Every function draws on a Matplotlib ``Axes`` that the caller creates, labels
the axes, and returns the artists it made, so a chapter keeps full control of
the figure layout.  Import it as a module::

    from kernlab import plotting
    plotting.decision_boundary(ax, model, X, y)

This module is deliberately not star-imported by :mod:`kernlab`.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CLASS_COLOURS",
    "grid_points",
    "scatter_classes",
    "decision_boundary",
    "boundary_legend",
    "contour",
    "surface",
    "gram_heatmap",
]

#: Colours of the negative and the positive class (colour-blind safe pair).
CLASS_COLOURS = ("#d95f02", "#1b9e77")
#: Light versions of the class colours used to shade the decision regions.
_REGION_COLOURS = ("#fbe3cf", "#d2efe6")


def _check_extent(extent):
    try:
        x0, x1, y0, y1 = (float(v) for v in extent)
    except (TypeError, ValueError):
        raise ValueError(
            "extent must be four numbers (xmin, xmax, ymin, ymax), "
            f"got {extent!r}"
        ) from None
    if not (x0 < x1 and y0 < y1):
        raise ValueError(
            f"extent must satisfy xmin < xmax and ymin < ymax, got {extent!r}"
        )
    return x0, x1, y0, y1


def _check_grid(grid):
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)):
        raise TypeError(f"grid must be an integer, got {type(grid).__name__}")
    if grid < 2:
        raise ValueError(f"grid must be at least 2, got {grid}")
    return int(grid)


def _check_points(X, name="X"):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got {X.shape}")
    return X


def _padded_extent(X, pad=0.15):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    return float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])


def grid_points(extent, grid=200):
    """Regular grid over a rectangle, as mesh arrays and as a list of points.

    Parameters
    ----------
    extent : tuple of 4 floats
        ``(xmin, xmax, ymin, ymax)``.
    grid : int, default=200
        Number of grid values along each axis.

    Returns
    -------
    xx, yy : ndarray of shape (grid, grid)
        Mesh coordinates, as from :func:`numpy.meshgrid`.
    points : ndarray of shape (grid * grid, 2)
        The grid points, one per row, in the order of ``xx.ravel()``.

    Examples
    --------
    >>> xx, yy, P = grid_points((0, 1, 0, 2), grid=3)
    >>> P.shape, float(yy.max())
    ((9, 2), 2.0)
    """
    x0, x1, y0, y1 = _check_extent(extent)
    grid = _check_grid(grid)
    xx, yy = np.meshgrid(np.linspace(x0, x1, grid), np.linspace(y0, y1, grid))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def _class_labels(y, n):
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match X, got {y.shape}")
    classes = np.unique(y)
    if classes.size > 2:
        raise ValueError(
            f"y must contain at most two classes, got {classes.size}: {classes}"
        )
    return classes, y


def scatter_classes(ax, X, y, *, s=45, labels=None, legend=True,
                    xlabel="$x_1$", ylabel="$x_2$"):
    """Scatter plot of two-class data, one colour and marker per class.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X : array-like of shape (n, 2)
    y : array-like of shape (n,)
        Two class labels, e.g. ``-1``/``+1`` or ``0``/``1``; the smaller label
        is drawn as the negative class.
    s : float, default=45
        Marker size.
    labels : sequence of 2 str, optional
        Legend entries; defaults to ``"y = <label>"``.
    legend : bool, default=True
    xlabel, ylabel : str

    Returns
    -------
    list of matplotlib.collections.PathCollection

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(scatter_classes(ax, [[0, 0], [1, 1]], [-1, 1]))
    2
    """
    X = _check_points(X)
    classes, y = _class_labels(y, len(X))
    markers = ("o", "s")
    artists = []
    for i, c in enumerate(classes):
        mask = y == c
        if labels is not None:
            label = labels[i]
        elif np.issubdtype(np.asarray(c).dtype, np.number):
            label = f"$y = {c:+g}$"
        else:
            label = f"y = {c}"
        artists.append(
            ax.scatter(X[mask, 0], X[mask, 1], s=s, c=CLASS_COLOURS[i % 2],
                       marker=markers[i % 2], edgecolors="k", linewidths=0.6,
                       zorder=3, label=label)
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(loc="best", fontsize="small", framealpha=0.85)
    return artists


def _support_indices(model, support, n):
    if support is None:
        support = getattr(model, "support_", ())
    support = np.asarray(support)
    if support.size == 0:
        return np.array([], dtype=int)
    if support.dtype == bool:
        if support.shape != (n,):
            raise ValueError(
                f"a boolean support mask must have shape ({n},), got {support.shape}"
            )
        return np.flatnonzero(support)
    if not np.issubdtype(support.dtype, np.integer):
        raise TypeError("support must hold integer indices or be a boolean mask")
    if support.min() < -n or support.max() >= n:
        raise ValueError(f"support indices must lie in [0, {n}), got {support}")
    return support.ravel()


def decision_boundary(ax, model, X, y, *, support=None, margins=True, grid=200,
                      extent=None, shade=True, legend=True,
                      xlabel="$x_1$", ylabel="$x_2$"):
    """Draw a binary classifier's decision regions, boundary and margins.

    The zero level set of ``model.decision_function`` is drawn as a solid
    line and, with ``margins=True``, the levels ``-1`` and ``+1`` as dashed
    lines; for a support vector machine these are the margin hyperplanes seen
    in input space.  Support vectors are circled.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model : object
        Anything with ``decision_function(P)`` mapping an ``(m, 2)`` array to
        ``m`` scores (a fitted :class:`kernlab.SVC`, a scikit-learn
        classifier, ...), or a plain callable doing the same.
    X : array-like of shape (n, 2)
        Training inputs.
    y : array-like of shape (n,)
        Their two class labels.
    support : array-like of int or bool, optional
        Indices (or a mask) of the points to circle.  By default the model's
        ``support_`` attribute is used when it has one; pass ``()`` to circle
        nothing.
    margins : bool, default=True
        Also draw the ``-1`` and ``+1`` levels.
    grid : int, default=200
        Grid resolution along each axis.
    extent : tuple of 4 floats, optional
        ``(xmin, xmax, ymin, ymax)``; defaults to the data range plus 15 %.
    shade : bool, default=True
        Shade the two predicted regions.
    legend : bool, default=True
    xlabel, ylabel : str

    Returns
    -------
    dict
        The artists: ``"regions"``, ``"levels"``, ``"points"``, ``"support"``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> X = np.array([[-1.0, 0.0], [1.0, 0.0]]); y = np.array([-1, 1])
    >>> art = decision_boundary(ax, lambda P: P[:, 0], X, y, support=[0, 1])
    >>> sorted(art)
    ['levels', 'points', 'regions', 'support']
    """
    X = _check_points(X)
    _class_labels(y, len(X))
    score = getattr(model, "decision_function", model)
    if not callable(score):
        raise TypeError(
            "model must have a decision_function method or be callable, "
            f"got {type(model).__name__}"
        )
    extent = _padded_extent(X) if extent is None else _check_extent(extent)
    xx, yy, P = grid_points(extent, grid)
    Z = np.asarray(score(P), dtype=float).reshape(-1)
    if Z.size != P.shape[0]:
        raise ValueError(
            "model.decision_function must return one score per point: got "
            f"{Z.size} scores for {P.shape[0]} points"
        )
    Z = Z.reshape(xx.shape)

    regions = None
    if shade:
        from matplotlib.colors import ListedColormap

        regions = ax.contourf(xx, yy, (Z > 0).astype(float), levels=[-0.5, 0.5, 1.5],
                              cmap=ListedColormap(_REGION_COLOURS), zorder=0)
    if margins:
        levels, styles, widths = [-1.0, 0.0, 1.0], ["--", "-", "--"], [1.0, 1.6, 1.0]
    else:
        levels, styles, widths = [0.0], ["-"], [1.6]
    lines = None
    if Z.min() < levels[-1] and Z.max() > levels[0]:
        lines = ax.contour(xx, yy, Z, levels=levels, colors="k",
                           linestyles=styles, linewidths=widths, zorder=2)
    points = scatter_classes(ax, X, y, legend=False, xlabel=xlabel, ylabel=ylabel)
    idx = _support_indices(model, support, len(X))
    circles = None
    if idx.size:
        circles = ax.scatter(X[idx, 0], X[idx, 1], s=170, facecolors="none",
                             edgecolors="k", linewidths=1.2, zorder=4,
                             label="support vectors")
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    if legend:
        from matplotlib.lines import Line2D

        handles = list(points)
        handles.append(Line2D([], [], color="k", lw=1.6, label="decision boundary"))
        if margins:
            handles.append(Line2D([], [], color="k", lw=1.0, ls="--",
                                  label=r"margins $f = \pm 1$"))
        if circles is not None:
            handles.append(circles)
        ax.legend(handles=handles, loc="best", fontsize="small", framealpha=0.85)
    return {"regions": regions, "levels": lines, "points": points, "support": circles}


def boundary_legend(target, classes=(-1, 1), *, margins=True, support=True, **kwargs):
    """One legend for figures made of several :func:`decision_boundary` panels.

    Parameters
    ----------
    target : matplotlib.figure.Figure or matplotlib.axes.Axes
        Where to put the legend.
    classes : sequence of 2 labels, default=(-1, 1)
        The class labels, smaller first, as passed to ``decision_boundary``.
    margins : bool, default=True
        Include the dashed margin lines.
    support : bool, default=True
        Include the circle marking support vectors.
    **kwargs
        Passed on to ``legend`` (e.g. ``loc``, ``ncol``).

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> len(boundary_legend(fig, loc="lower center").get_texts())
    5
    """
    from matplotlib.lines import Line2D

    if len(classes) != 2:
        raise ValueError(f"classes must hold two labels, got {len(classes)}")
    handles = []
    for colour, marker, c in zip(CLASS_COLOURS, ("o", "s"), sorted(classes)):
        label = f"$y = {c:+g}$" if isinstance(c, (int, float, np.number)) else f"y = {c}"
        handles.append(Line2D([], [], ls="none", marker=marker, markerfacecolor=colour,
                              markeredgecolor="k", markersize=7, label=label))
    handles.append(Line2D([], [], color="k", lw=1.6, label="decision boundary"))
    if margins:
        handles.append(Line2D([], [], color="k", lw=1.0, ls="--",
                              label=r"margins $f = \pm 1$"))
    if support:
        handles.append(Line2D([], [], ls="none", marker="o", markerfacecolor="none",
                              markeredgecolor="k", markersize=12, label="support vectors"))
    kwargs.setdefault("fontsize", "small")
    if hasattr(target, "add_subplot"):  # a figure: one row under the panels
        kwargs.setdefault("ncol", len(handles))
        kwargs.setdefault("frameon", False)
    return target.legend(handles=handles, **kwargs)


def _evaluate(func, P, shape):
    Z = np.asarray(func(P), dtype=float).reshape(-1)
    if Z.size != P.shape[0]:
        raise ValueError(
            f"func must return one value per point: got {Z.size} values for "
            f"{P.shape[0]} points"
        )
    return Z.reshape(shape)


def contour(ax, func, extent, *, grid=120, levels=12, filled=True, colorbar=True,
            cmap="viridis", xlabel="$x_1$", ylabel="$x_2$", label=None):
    """Contour plot of a function of two variables.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    func : callable
        Maps an ``(m, 2)`` array of points to ``m`` values.
    extent : tuple of 4 floats
        ``(xmin, xmax, ymin, ymax)``.
    grid : int, default=120
    levels : int or sequence of float, default=12
    filled : bool, default=True
        Filled contours (``contourf``) rather than lines.
    colorbar : bool, default=True
    cmap : str
    xlabel, ylabel : str
    label : str, optional
        Label of the colour bar.

    Returns
    -------
    matplotlib.contour.QuadContourSet

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> cs = contour(ax, lambda P: (P ** 2).sum(axis=1), (-1, 1, -1, 1), grid=20)
    """
    xx, yy, P = grid_points(extent, grid)
    Z = _evaluate(func, P, xx.shape)
    draw = ax.contourf if filled else ax.contour
    cs = draw(xx, yy, Z, levels=levels, cmap=cmap)
    if colorbar:
        cb = ax.figure.colorbar(cs, ax=ax)
        if label:
            cb.set_label(label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return cs


def surface(ax, func, extent, *, grid=60, cmap="viridis", xlabel="$x_1$",
            ylabel="$x_2$", zlabel="$f(x)$"):
    """Surface plot of a function of two variables on a 3-D axes.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D
        Created with ``fig.add_subplot(projection="3d")``.
    func : callable
        Maps an ``(m, 2)`` array of points to ``m`` values.
    extent : tuple of 4 floats
        ``(xmin, xmax, ymin, ymax)``.
    grid : int, default=60
    cmap : str
    xlabel, ylabel, zlabel : str

    Returns
    -------
    mpl_toolkits.mplot3d.art3d.Poly3DCollection

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot(projection="3d")
    >>> s = surface(ax, lambda P: P[:, 0] * P[:, 1], (-1, 1, -1, 1), grid=10)
    """
    if not hasattr(ax, "plot_surface"):
        raise TypeError("ax must be a 3-D axes: use fig.add_subplot(projection='3d')")
    xx, yy, P = grid_points(extent, grid)
    Z = _evaluate(func, P, xx.shape)
    surf = ax.plot_surface(xx, yy, Z, cmap=cmap, linewidth=0, antialiased=True)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_zlabel(zlabel)
    return surf


def gram_heatmap(ax, K, *, colorbar=True, cmap="magma", label="$K_{ij}$",
                 xlabel="index $j$", ylabel="index $i$"):
    """Show a Gram (kernel) matrix as an image.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    K : array-like of shape (n, m)
    colorbar : bool, default=True
    cmap : str
    label : str
        Colour-bar label.
    xlabel, ylabel : str

    Returns
    -------
    matplotlib.image.AxesImage

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> im = gram_heatmap(ax, np.eye(3))
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2:
        raise ValueError(f"K must be a 2-D matrix, got shape {K.shape}")
    im = ax.imshow(K, cmap=cmap, interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return im
