"""Kernel principal component analysis: PCA of the points' images in feature space.

With a feature map phi and its kernel k, PCA of phi(x_1), ..., phi(x_n)
needs only the Gram matrix.  Centring the images at their mean turns K into
``K_c = H K H`` with ``H = I - 11^T / n``; if ``K_c a = lam a`` with
``||a|| = 1``, then ``v = sum_i a_i phi_c(x_i) / sqrt(lam)`` is a unit
principal axis, the variance along it is ``lam / n``, and the coordinate of
a point x on it is ``sum_i a_i k_c(x, x_i) / sqrt(lam)``, where ``k_c`` is
the kernel centred with the training means.
"""

import numpy as np
from scipy.linalg import eigh
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin,
                          TransformerMixin)
from sklearn.utils.validation import check_is_fitted

from ._estimator import (check_cross_gram, check_kernel, check_precomputed_gram,
                         compute_gram, entry_rounding, fit_input, is_precomputed,
                         predict_input)
from ._validation import check_scalar

__all__ = ["KernelPCA"]

# An eigenvalue of K_c below -_NEGATIVE_RATIO times the largest one (and below
# ten times the rounding of K's entries) shows that the kernel is not positive
# semi-definite; above it, a negative is rounding.
_NEGATIVE_RATIO = 1e-5


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel PCA: the principal components of the data's images in feature space.

    Parameters
    ----------
    kernel : kernlab kernel, callable k(X, Y) or "precomputed"
        With ``"precomputed"``, ``fit`` takes the (n, n) Gram matrix of the
        training points and ``transform`` the (m, n) cross-Gram matrix of
        new points against them.
    n_components : int or None, default=None
        Number of components kept.  None keeps every component whose
        eigenvalue is non-zero (above n * eps times the largest).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centred Gram matrix ``H K H``, largest first; the
        variance of the data along component j is ``eigenvalues_[j] / n``.
    eigenvectors_ : ndarray of shape (n, n_components)
        The matching unit eigenvectors, each with its largest entry (in
        absolute value) positive.
    X_fit_ : array or list, or None with ``kernel="precomputed"``
        The training points.
    gram_row_means_ : ndarray of shape (n,)
        Mean of each row of the training Gram matrix (used to centre new points).
    gram_mean_ : float
        Mean of all entries of the training Gram matrix.

    Examples
    --------
    >>> from kernlab import Gaussian
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> pca = KernelPCA(Gaussian(sigma=1.0), n_components=2).fit(X)
    >>> pca.eigenvalues_.round(4)
    array([1.5314, 0.4502])
    >>> Z = pca.transform(X)
    >>> bool(np.allclose(Z.T @ Z, np.diag(pca.eigenvalues_)))
    True
    """

    def __init__(self, kernel=None, *, n_components=None):
        self.kernel = kernel
        self.n_components = n_components

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def fit(self, X, y=None):
        """Centre the Gram matrix and take its leading eigenpairs; returns ``self``."""
        kernel = check_kernel(self.kernel)
        if self.n_components is not None:
            check_scalar(self.n_components, "n_components", low=1, integer=True)
        rounding = 0.0
        if is_precomputed(kernel):
            fit_input(self, X)
            rounding = entry_rounding(X)
            K = check_precomputed_gram(X, rounding=rounding).copy()
            self.X_fit_ = None
        else:
            self.X_fit_ = fit_input(self, X, kernel)
            K = compute_gram(kernel, self.X_fit_).copy()
        n = K.shape[0]
        if n < 2:
            raise ValueError(f"KernelPCA needs at least 2 samples, got {n} sample(s)")
        if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * np.abs(K).max()):
            raise ValueError("the Gram matrix is not symmetric: the kernel must be a "
                             "symmetric function k(x, t) = k(t, x)")
        # Rounding of K's entries (at K's scale, not the centred matrix's: a
        # Gaussian kernel on features of size 1e-6 is all ones to 1e-12, and its
        # centred matrix of size 1e-10 carries K's rounding of 1e-16)
        floor = n * max(np.finfo(float).eps, rounding) * float(np.abs(K).max())
        self.gram_row_means_ = K.mean(axis=1)
        self.gram_mean_ = float(self.gram_row_means_.mean())
        K_c = self._centre(K)
        K_c += K_c.T  # exactly symmetric
        K_c *= 0.5
        values, vectors = eigh(K_c, overwrite_a=True, check_finite=False)
        values, vectors = values[::-1], vectors[:, ::-1]  # largest first
        self.eigenvalues_, self.eigenvectors_ = self._keep(values, vectors, n, floor)
        return self

    def _centre(self, K):
        """Centre K (rows: any points; columns: training points) in feature space."""
        K_c = K - self.gram_row_means_[None, :]
        K_c -= K.mean(axis=1)[:, None]
        K_c += self.gram_mean_
        return K_c

    def _keep(self, values, vectors, n, floor):
        """Refuse an indefinite kernel, zero the rounding, keep the components asked.

        ``floor`` is the rounding of K's entries, n eps max |K_ij|.
        """
        top = max(values[0], 0.0)
        if values[-1] < -max(_NEGATIVE_RATIO * top, 10 * floor):
            raise ValueError(
                f"the centred Gram matrix has an eigenvalue {values[-1]:.3g} against a "
                f"largest of {top:.3g} (rounding of K's entries: about {floor:.2g}): the "
                "kernel is not positive semi-definite")
        values = np.where(values > max(n * np.finfo(float).eps * top, floor), values, 0.0)
        if self.n_components is None:
            k = int(np.count_nonzero(values))
            if k == 0:
                raise ValueError("the centred Gram matrix is zero: all points have the "
                                 "same image in feature space, so there is no "
                                 "component")
        else:
            k = min(int(self.n_components), n)
        vectors = vectors[:, :k]
        # a deterministic sign: the largest entry of each eigenvector is positive
        rows = np.argmax(np.abs(vectors), axis=0)
        vectors = vectors * np.sign(vectors[rows, np.arange(k)])
        return values[:k], vectors

    def transform(self, X):
        """Coordinates of the points ``X`` on the principal axes, (m, n_components)."""
        check_is_fitted(self, "eigenvalues_")
        X = predict_input(self, X, self.kernel)
        n = self.gram_row_means_.shape[0]
        if is_precomputed(self.kernel):
            K = check_cross_gram(X, n)
        else:
            K = compute_gram(self.kernel, X, self.X_fit_)
        positive = self.eigenvalues_ > 0  # a zero component gives coordinate 0
        scaled = np.zeros_like(self.eigenvectors_)
        scaled[:, positive] = (self.eigenvectors_[:, positive]
                               / np.sqrt(self.eigenvalues_[positive]))
        return self._centre(K) @ scaled

    def fit_transform(self, X, y=None):
        """``fit(X)``, then the training points' coordinates ``a_j sqrt(lam_j)``."""
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    @property
    def _n_features_out(self):
        """Number of output features (for ``get_feature_names_out``)."""
        return self.eigenvalues_.shape[0]

