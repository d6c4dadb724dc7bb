"""Rademacher complexity of an RKHS ball, and the margin bound it gives.

For the ball ``F_B = {f in H : ||f||_H <= B}`` and points ``x_1..x_n`` with
Gram matrix ``K``, the supremum in the empirical Rademacher complexity has a
closed form (Cauchy-Schwarz, with equality at ``f ~ sum_i eps_i k(., x_i)``)::

    R_S(F_B) = E_eps sup_{f in F_B} (1/n) sum_i eps_i f(x_i) = (B/n) E_eps sqrt(eps^T K eps)

with independent signs ``eps_i = +-1``.  Jensen's inequality and the
Khintchine-Kahane inequality with its best constant bracket it:
``B sqrt(tr K / 2) / n <= R_S(F_B) <= B sqrt(tr K) / n``.

* :func:`rkhs_ball_rademacher` -- the expectation exactly (all ``2^n`` signs,
  for small n) or by Monte Carlo, with both brackets.
* :func:`margin_bound` -- the bound on the misclassification probability of
  ``sign f`` for every ``f`` in the ball (Koltchinskii and Panchenko; Bartlett
  and Mendelson): empirical ramp loss + ``2 R_S / rho`` + ``3 sqrt(log(2/delta) / 2n)``.
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ._validation import as_generator, check_array, check_scalar

__all__ = ["RademacherComplexity", "rkhs_ball_rademacher", "MarginBound", "margin_bound"]

_EXACT_MAX_N = 16  # 2^16 sign vectors: exact enumeration in well under a second


@dataclass
class RademacherComplexity:
    """The empirical Rademacher complexity of an RKHS ball and its brackets.

    Attributes
    ----------
    value : float
        ``(B/n) E sqrt(eps^T K eps)``: exact, or a Monte Carlo estimate.
    std_error : float
        Standard error of a Monte Carlo estimate; 0 when exact.
    lower, upper : float
        ``B sqrt(tr K / 2) / n`` and ``B sqrt(tr K) / n``.
    exact : bool
        True when every sign vector was enumerated.
    """

    value: float
    std_error: float
    lower: float
    upper: float
    exact: bool


def rkhs_ball_rademacher(K, radius=1.0, *, n_draws=20000, exact=None, random_state=None):
    """Empirical Rademacher complexity of ``{f : ||f||_H <= radius}`` on points with Gram ``K``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Gram matrix of the sample (symmetric positive semi-definite).
    radius : float, default=1.0
        The radius B of the ball, >= 0.
    n_draws : int, default=20000
        Sign vectors drawn for the Monte Carlo estimate.
    exact : bool or None, default=None
        Enumerate all 2^n sign vectors; None does so when n <= 16.
    random_state : int, numpy Generator or None

    Returns
    -------
    RademacherComplexity

    Examples
    --------
    >>> import numpy as np
    >>> r = rkhs_ball_rademacher(np.eye(4), radius=2.0)     # eps^T I eps = 4 for every sign
    >>> r.value, r.upper, r.exact
    (1.0, 1.0, True)
    """
    K = check_array(K, "K")
    n = K.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K must be a square Gram matrix, got shape {K.shape}")
    if np.abs(K - K.T).max() > 1e-10 * max(np.abs(K).max(), np.finfo(float).tiny):
        raise ValueError("K must be symmetric (a Gram matrix)")
    radius = check_scalar(radius, "radius", low=0.0, finite=True)
    trace = float(np.trace(K))
    if trace < 0 or np.diag(K).min() < -1e-12 * max(abs(trace), 1.0):
        raise ValueError("K must be positive semi-definite; its diagonal has negative entries")
    if exact is None:
        exact = n <= _EXACT_MAX_N
    if exact and n > 24:
        raise ValueError(f"exact enumeration of 2^{n} sign vectors is too costly; use exact=False")
    if exact:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
    else:
        n_draws = check_scalar(n_draws, "n_draws", low=2, integer=True)
        signs = as_generator(random_state).choice((-1.0, 1.0), size=(n_draws, n))
    quad = np.einsum("ij,jk,ik->i", signs, K, signs)
    roots = np.sqrt(np.maximum(quad, 0.0))
    scale = radius / n
    std_error = 0.0 if exact else scale * float(roots.std(ddof=1)) / math.sqrt(len(roots))
    return RademacherComplexity(value=scale * float(roots.mean()), std_error=std_error,
                                lower=scale * math.sqrt(trace / 2.0),
                                upper=scale * math.sqrt(trace), exact=bool(exact))


@dataclass
class MarginBound:
    """The three terms of the margin bound and their sum.

    Attributes
    ----------
    empirical : float
        ``(1/n) sum_i min(1, max(0, 1 - y_i f(x_i) / rho))``, the ramp loss.
    complexity : float
        ``2 B sqrt(tr K) / (rho n)``.
    confidence : float
        ``3 sqrt(log(2 / delta) / (2 n))``.
    total : float
        The bound on ``P(y f(x) <= 0)``, holding with probability at least
        ``1 - delta`` simultaneously for every ``f`` with ``||f||_H <= B``.
    """

    empirical: float
    complexity: float
    confidence: float
    total: float


def margin_bound(margins, *, radius, trace, delta=0.05, rho=1.0):
    """Margin bound on the misclassification probability of ``sign f`` for ``||f||_H <= radius``.

    Parameters
    ----------
    margins : array-like of shape (n,)
        ``y_i f(x_i)`` on the training sample (labels ``y_i = +-1``).
    radius : float
        A radius B, fixed before seeing the data, with ``||f||_H <= B``.
    trace : float
        ``tr K``, the sum of ``k(x_i, x_i)`` over the training sample.
    delta : float, default=0.05
        The bound fails with probability at most ``delta``.
    rho : float, default=1.0
        The margin at which the ramp loss reaches 0.

    Returns
    -------
    MarginBound

    Examples
    --------
    >>> b = margin_bound([2.0, 0.5, -1.0, 3.0], radius=1.0, trace=4.0)
    >>> b.empirical, round(b.complexity, 3)
    (0.375, 1.0)
    """
    margins = check_array(margins, "margins", ensure_2d=False)
    if margins.ndim != 1:
        raise ValueError(f"margins must be 1-D (one y_i f(x_i) per point), got {margins.shape}")
    n = margins.shape[0]
    radius = check_scalar(radius, "radius", low=0.0, finite=True)
    trace = check_scalar(trace, "trace", low=0.0, finite=True)
    delta = check_scalar(delta, "delta", low=0.0, high=1.0, include_low=False,
                         include_high=False)
    rho = check_scalar(rho, "rho", low=0.0, include_low=False, finite=True)
    empirical = float(np.clip(1.0 - margins / rho, 0.0, 1.0).mean())
    complexity = 2.0 * radius * math.sqrt(trace) / (rho * n)
    confidence = 3.0 * math.sqrt(math.log(2.0 / delta) / (2.0 * n))
    return MarginBound(empirical, complexity, confidence, empirical + complexity + confidence)
