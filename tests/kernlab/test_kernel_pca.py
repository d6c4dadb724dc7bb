"""Kernel PCA: scikit-learn's KernelPCA as an oracle (up to sign); PCA as a case."""

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError

from kernlab import (Gaussian, KernelPCA, LaplacianL1, Linear, Polynomial, Sigmoid,
                     Spectrum)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(70, 4))
X_NEW = RNG.normal(size=(9, 4))
TOL = 1e-8

# (kernlab kernel, the same kernel in scikit-learn's terms)
KERNELS = [
    (Gaussian(sigma=1.5), {"kernel": "rbf", "gamma": 1 / (2 * 1.5**2)}),
    (Gaussian(sigma=0.4), {"kernel": "rbf", "gamma": 1 / (2 * 0.4**2)}),
    (Polynomial(degree=3, c=1.0), {"kernel": "poly", "degree": 3, "gamma": 1.0,
                                   "coef0": 1.0}),
    (Linear(), {"kernel": "linear"}),
    (LaplacianL1(sigma=2.0),
     {"kernel": lambda x, t: np.exp(-0.5 * np.abs(x - t).sum())}),
]


def _signs(ours, theirs):
    """The sign of each column that makes ``theirs`` point the way ``ours`` does."""
    return np.where(np.sum(ours * theirs, axis=0) < 0, -1.0, 1.0)


def _assert_agree(ours, theirs, scale):
    np.testing.assert_allclose(ours, theirs * _signs(ours, theirs), rtol=0,
                               atol=TOL * scale)


@pytest.mark.parametrize("kernel, sk_kernel", KERNELS,
                         ids=[repr(k) for k, _ in KERNELS])
def test_agrees_with_scikit_learn_up_to_sign(kernel, sk_kernel):
    # four components: the linear kernel on 4 features has exactly four non-zero ones
    ours = KernelPCA(kernel, n_components=4).fit(X)
    theirs = SkKernelPCA(n_components=4, **sk_kernel).fit(X)
    top = theirs.eigenvalues_[0]
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=0,
                               atol=TOL * top)
    _assert_agree(ours.eigenvectors_, theirs.eigenvectors_, 1.0)
    _assert_agree(ours.transform(X_NEW), theirs.transform(X_NEW), np.sqrt(top))
    _assert_agree(ours.fit_transform(X), theirs.fit_transform(X), np.sqrt(top))


@pytest.mark.parametrize("kernel, sk_kernel", KERNELS[:3],
                         ids=[repr(k) for k, _ in KERNELS[:3]])
def test_precomputed_agrees_with_scikit_learn_and_with_the_kernel(kernel, sk_kernel):
    K, K_new = kernel(X), kernel(X_NEW, X)
    ours = KernelPCA("precomputed", n_components=4).fit(K)
    theirs = SkKernelPCA(n_components=4, kernel="precomputed").fit(K)
    top = theirs.eigenvalues_[0]
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=0,
                               atol=TOL * top)
    _assert_agree(ours.transform(K_new), theirs.transform(K_new), np.sqrt(top))
    direct = KernelPCA(kernel, n_components=4).fit(X)
    np.testing.assert_allclose(ours.transform(K_new), direct.transform(X_NEW), rtol=0,
                               atol=TOL * np.sqrt(top))


def test_with_the_linear_kernel_it_is_ordinary_pca():
    """Kernel PCA with <x, t> is PCA: eigenvalues / n are the biased variances."""
    n = X.shape[0]
    ours = KernelPCA(Linear()).fit(X)
    pca = PCA().fit(X)
    # None keeps the non-zero eigenvalues: d = 4 of them (the 66 others are zero)
    assert ours.eigenvalues_.shape == (4,)
    np.testing.assert_allclose(ours.eigenvalues_ / n,
                               pca.explained_variance_ * (n - 1) / n,
                               rtol=1e-10)
    _assert_agree(ours.transform(X_NEW), pca.transform(X_NEW), 1.0)


def test_training_coordinates_are_uncorrelated_with_the_eigenvalues_as_variances():
    pca = KernelPCA(Gaussian(sigma=1.0), n_components=6).fit(X)
    Z = pca.transform(X)
    np.testing.assert_allclose(Z, pca.fit_transform(X), atol=1e-10)
    np.testing.assert_allclose(Z.T @ Z, np.diag(pca.eigenvalues_), atol=1e-9)
    # centred in feature space
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    assert np.all(np.diff(pca.eigenvalues_) <= 0)


def test_centring_makes_a_constant_shift_of_the_kernel_irrelevant():
    """k + c has the centred Gram matrix of k: the mean image absorbs the constant."""
    a = KernelPCA(Gaussian(sigma=1.0), n_components=3).fit(X)
    b = KernelPCA(Gaussian(sigma=1.0) + 5.0, n_components=3).fit(X)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-10)
    _assert_agree(a.transform(X_NEW), b.transform(X_NEW), 1.0)


def test_strings_with_a_string_kernel():
    words = ["abracadabra", "cadabra", "abba", "banana", "bandana", "arbadacarba",
             "nab"]
    k = Spectrum(p=2)
    on_strings = KernelPCA(k, n_components=3).fit(words)
    on_gram = KernelPCA("precomputed", n_components=3).fit(k(words))
    np.testing.assert_allclose(on_strings.transform(["dabra", "ban"]),
                               on_gram.transform(k(["dabra", "ban"], words)),
                               atol=1e-10)


def test_more_components_than_points_are_capped():
    pca = KernelPCA(Gaussian(sigma=1.0), n_components=50).fit(X[:10])
    # the last component is the constant direction, eigenvalue 0
    assert pca.eigenvalues_.shape == (10,) and pca.eigenvalues_[-1] == 0.0
    assert np.all(pca.transform(X_NEW)[:, -1] == 0.0)
    names = pca.get_feature_names_out().tolist()
    assert names[:2] == ["kernelpca0", "kernelpca1"] and len(names) == 10


@pytest.mark.parametrize("make, error, match", [
    (lambda: KernelPCA().fit(X), TypeError, "kernel is required"),
    (lambda: KernelPCA(Linear(), n_components=0).fit(X), ValueError, "n_components"),
    (lambda: KernelPCA(Linear()).fit(X[:1]), ValueError, "at least 2 samples"),
    (lambda: KernelPCA(Sigmoid(a=1.0, c=-3.0)).fit(X), ValueError,
     "not positive semi-definite"),
    (lambda: KernelPCA("precomputed").fit(X), ValueError, "square Gram matrix"),
    (lambda: KernelPCA("precomputed").fit(Linear()(X)).transform(np.ones((2, 3))),
     ValueError, "expecting 70 features"),
    (lambda: KernelPCA(Linear()).fit(np.zeros((5, 2))), ValueError,
     "centred Gram matrix is zero"),
    (lambda: KernelPCA(Linear()).transform(X), NotFittedError, "not fitted"),
])
def test_bad_input_is_refused_by_name(make, error, match):
    with pytest.raises(error, match=match):
        make()
