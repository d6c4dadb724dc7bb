"""Exactly symmetric matrices: copy one triangle onto the other, block by block."""

import numpy as np

__all__ = ["mirror_block", "mirror_lower", "upper_mask"]

_BLOCK = 256  # rows per block when mirroring a triangle


def upper_mask(size):
    """Boolean mask of the strict upper triangle of a size x size block."""
    return np.triu(np.ones((size, size), dtype=bool), 1)


def mirror_block(K, i, j, upper):
    """Copy rows i:j of the lower triangle of ``K`` onto the upper triangle.

    ``upper`` is ``upper_mask(m)`` for some ``m >= j - i``.
    """
    K[:i, i:j] = K[i:j, :i].T
    square = K[i:j, i:j]
    m = j - i
    np.copyto(square, square.T.copy(), where=upper[:m, :m])


def mirror_lower(K):
    """Copy the lower triangle of square ``K`` onto the upper one, in place.

    Examples
    --------
    >>> mirror_lower(np.array([[1.0, 0.0], [2.0, 3.0]]))
    array([[1., 2.],
           [2., 3.]])
    """
    n = K.shape[0]
    upper = upper_mask(min(_BLOCK, n))
    for i in range(0, n, _BLOCK):
        mirror_block(K, i, min(i + _BLOCK, n), upper)
    return K
