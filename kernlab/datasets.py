"""Small two-dimensional data sets used in the book's examples.

All labels are ``-1`` and ``+1``, the convention of the support vector
machine.  Random sets take a ``seed`` and are reproducible.  Import the
module itself::

    from kernlab import datasets
    X, y = datasets.toy_2d()
"""

from __future__ import annotations

import numpy as np

__all__ = ["toy_2d", "xor", "two_moons"]


def _check_count(n, name="n", minimum=2):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(n).__name__}")
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {n}")
    return int(n)


def _check_noise(noise):
    noise = float(noise)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    return noise


def toy_2d():
    """Sixteen labelled points in the plane, eight per class.

    The two classes are linearly separable, but only just: the widest
    separating line, the hard-margin SVM's, has ``w`` close to
    ``(14.23, -3.85)`` and ``b`` close to ``-9.38``, a margin ``1/||w||`` of
    about 0.068.  A soft-margin linear SVM with ``C = 1`` or ``C = 10`` buys a
    much wider margin by leaving the point ``(0.4, -0.7)`` of class ``-1`` on
    the wrong side.  This makes the set a good stage for comparing the
    linear, polynomial and Gaussian kernels.

    Returns
    -------
    X : ndarray of shape (16, 2)
    y : ndarray of shape (16,)
        ``-1`` for the first eight points, ``+1`` for the last eight.

    Examples
    --------
    >>> X, y = toy_2d()
    >>> X.shape, int(y.sum())
    ((16, 2), 0)
    """
    X = np.array(
        [
            [0.4, -0.7], [-1.5, -1.0], [-1.4, -0.9], [-1.3, -1.2],
            [-1.1, -0.2], [-1.2, -0.4], [-0.5, 1.2], [-1.5, 2.1],
            [1.0, 1.0], [1.3, 0.8], [1.2, 0.5], [0.2, -2.0],
            [0.5, -2.4], [0.2, -2.3], [0.0, -2.7], [1.3, 2.1],
        ]
    )
    y = np.repeat([-1, 1], 8)
    return X, y


def xor(n=100, *, noise=0.25, seed=0):
    """Noisy XOR: four Gaussian clouds at the corners of a square.

    Points near ``(1, 1)`` and ``(-1, -1)`` are labelled ``+1``; points near
    ``(1, -1)`` and ``(-1, 1)`` are labelled ``-1``, so the label is the sign
    of ``x_1 x_2`` for the cloud centres and no line separates the classes.

    Parameters
    ----------
    n : int, default=100
        Number of points (split as evenly as possible over the four clouds).
    noise : float, default=0.25
        Standard deviation of each cloud.
    seed : int, default=0

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)

    Examples
    --------
    >>> X, y = xor(8, noise=0.0)
    >>> bool(np.all(np.sign(X[:, 0] * X[:, 1]) == y))
    True
    """
    n = _check_count(n, minimum=4)
    noise = _check_noise(noise)
    rng = np.random.default_rng(seed)
    centres = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    which = np.arange(n) % 4
    X = centres[which] + noise * rng.standard_normal((n, 2))
    y = np.where(which < 2, 1, -1)
    return X, y


def two_moons(n=100, *, noise=0.1, seed=0):
    """Two interleaving half circles, from :func:`sklearn.datasets.make_moons`.

    Parameters
    ----------
    n : int, default=100
        Number of points.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to the points.
    seed : int, default=0

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
        ``-1`` for the upper moon, ``+1`` for the lower one.

    Examples
    --------
    >>> X, y = two_moons(10)
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [-1, 1])
    """
    from sklearn.datasets import make_moons

    n = _check_count(n)
    noise = _check_noise(noise)
    X, labels = make_moons(n_samples=n, noise=noise, random_state=seed)
    return X, 2 * labels - 1
