"""Kernels: properties over one list of kernels, scikit-learn as an oracle, the algebra, bad input."""

import itertools
import warnings
import math
from collections import Counter

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import pairwise

import kernlab
from kernlab import (
    ANOVA, AllSubstrings, Exponential, FunctionKernel, Gaussian, GeneralLinear, LaplacianL1,
    LaplacianL2, Linear, Matern, Min, Polynomial, PolynomialOf, Precomputed, SetKernel, Sigmoid,
    Spectrum, is_psd,
)
from sklearn.gaussian_process.kernels import Matern as SkMatern
from kernlab._validation import check_array, check_pair, check_scalar

RNG = np.random.default_rng(0)
# Positive coordinates so that the Min kernel (defined on [0, inf)) shares the data.
X_VEC = RNG.uniform(0.05, 1.5, size=(12, 3))
Y_VEC = RNG.uniform(0.05, 1.5, size=(5, 3))
STRINGS = ["abracadabra", "cadabra", "abba", "banana", "bandana", "a", "arbadacarba"]
STRINGS_Y = ["abc", "nab", "dabra"]
SETS = [{1, 2, 3}, {2, 3}, set(), {4, 5, 1}, {1, 2, 3, 4, 5}, {6}]
SETS_Y = [{1}, {2, 6}, {3, 4, 5}]
DATA = {
    "vectors": (X_VEC, Y_VEC),
    "strings": (STRINGS, STRINGS_Y),
    "sets": (SETS, SETS_Y),
    "indices": (np.array([0, 3, 4, 7, 9, 2]), np.array([1, 3, 8])),
}
POOL = Gaussian(sigma=0.8)(RNG.normal(size=(10, 2)))

# The one list of kernels (simple and composite) that the property tests run through.
KERNELS = [
    (Linear(), "vectors"),
    (Polynomial(degree=3, c=1.0), "vectors"),
    (Polynomial(degree=2, c=0.0), "vectors"),
    (Gaussian(sigma=0.7), "vectors"),
    (LaplacianL1(sigma=0.8), "vectors"),
    (LaplacianL2(sigma=0.8), "vectors"),
    (Matern(nu=0.5, sigma=0.6), "vectors"),
    (Matern(nu=1.5, sigma=0.6), "vectors"),
    (Matern(nu=2.5, sigma=0.6), "vectors"),
    (LaplacianL1(sigma=1.0) * Matern(nu=2.5, sigma=2.0) + LaplacianL2(sigma=0.5), "vectors"),
    (Exponential(a=0.5), "vectors"),
    (ANOVA(), "vectors"),
    (ANOVA(degree=2), "vectors"),
    (Min(), "vectors"),
    (GeneralLinear([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.1]]), "vectors"),
    (2.0 * Gaussian(sigma=1.0) + Linear(), "vectors"),
    (Linear() * Gaussian(sigma=2.0), "vectors"),
    ((Linear() + 1.0) ** 3, "vectors"),
    (Linear().exp(), "vectors"),
    (Linear().polynomial([1.0, 0.0, 0.5, 2.0]), "vectors"),
    (Gaussian(sigma=1.0).rescale(lambda x: np.sin(x[0]) + 2.0), "vectors"),
    (Gaussian(sigma=1.0).compose(lambda x: np.array([x[0] * x[1], x[2] ** 2])), "vectors"),
    (Polynomial(degree=2, c=1.0).normalize(), "vectors"),
    (Linear().on([0, 1]) + Gaussian(sigma=0.5).on([2]), "vectors"),
    (ANOVA().on([0, 2]) * Min().on([1]), "vectors"),
    (FunctionKernel(lambda x, t: math.exp(-float(np.abs(x - t).sum())), psd=True), "vectors"),
    (SetKernel(), "sets"),
    (Spectrum(p=2), "strings"),
    (Spectrum(p=3) + 0.5 * Spectrum(p=1), "strings"),
    (AllSubstrings(weights=0.5), "strings"),
    (AllSubstrings(weights={"a": 1.0, "ab": 2.0, "abra": 0.25}), "strings"),
    (Spectrum(p=1).normalize(), "strings"),
    (Precomputed(POOL), "indices"),
]
IDS = [repr(k) for k, _ in KERNELS]


@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_gram_is_exactly_symmetric_float64(kernel, kind):
    X, _ = DATA[kind]
    K = kernel(X)
    assert K.dtype == np.float64 and K.shape == (len(X), len(X))
    assert np.array_equal(K, K.T)


@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_gram_is_psd_and_flagged(kernel, kind):
    X, _ = DATA[kind]
    assert kernel.is_known_psd
    assert is_psd(kernel(X))


@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_call_without_Y_equals_call_with_X_twice(kernel, kind):
    X, _ = DATA[kind]
    K = kernel(X)
    np.testing.assert_allclose(kernel(X, X), K, rtol=1e-12, atol=1e-12 * np.abs(K).max())


@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_diag_matches_gram_diagonal(kernel, kind):
    X, _ = DATA[kind]
    K = kernel(X)
    np.testing.assert_allclose(kernel.diag(X), np.diag(K), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_cross_gram_is_block_of_joint_gram(kernel, kind):
    X, Y = DATA[kind]
    joint = np.concatenate([X, Y]) if isinstance(X, np.ndarray) else list(X) + list(Y)
    K = kernel(joint)
    np.testing.assert_allclose(kernel(X, Y), K[:len(X), len(X):], rtol=1e-12,
                               atol=1e-12 * np.abs(K).max())


VECTOR_KERNELS = [k for k, kind in KERNELS if kind == "vectors"]


@pytest.mark.parametrize("k1, k2", list(itertools.combinations(VECTOR_KERNELS[:10], 2)))
def test_sum_and_product_commute(k1, k2):
    X = X_VEC
    for a, b in [(k1 + k2, k2 + k1), (k1 * k2, k2 * k1)]:
        A, B = a(X), b(X)
        np.testing.assert_allclose(A, B, rtol=1e-12, atol=1e-13 * np.abs(A).max())


# ----- scikit-learn as the oracle ----------------------------------------------------
ORACLE_X = np.random.default_rng(0).normal(size=(30, 4))
ORACLE_Y = np.random.default_rng(0).normal(size=(9, 4)) + 0.3


@pytest.mark.parametrize("ours, theirs", [
    (Linear(), lambda X, Y: pairwise.linear_kernel(X, Y)),
    (Polynomial(degree=3, c=1.5), lambda X, Y: pairwise.polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=1.5)),
    (Polynomial(degree=2, c=0.0), lambda X, Y: pairwise.polynomial_kernel(X, Y, degree=2, gamma=1.0, coef0=0.0)),
    (Gaussian(sigma=1.3), lambda X, Y: pairwise.rbf_kernel(X, Y, gamma=1.0 / (2 * 1.3 ** 2))),
    (Gaussian(sigma=0.4), lambda X, Y: pairwise.rbf_kernel(X, Y, gamma=1.0 / (2 * 0.4 ** 2))),
    (Sigmoid(a=0.3, c=-0.2), lambda X, Y: pairwise.sigmoid_kernel(X, Y, gamma=0.3, coef0=-0.2)),
    (LaplacianL1(sigma=0.7), lambda X, Y: pairwise.laplacian_kernel(X, Y, gamma=1 / 0.7)),
    (LaplacianL1(sigma=4.0), lambda X, Y: pairwise.laplacian_kernel(X, Y, gamma=0.25)),
    (LaplacianL2(sigma=0.7), lambda X, Y: SkMatern(length_scale=0.7, nu=0.5)(X, Y)),
    (Matern(nu=0.5, sigma=1.3), lambda X, Y: SkMatern(length_scale=1.3, nu=0.5)(X, Y)),
    (Matern(nu=1.5, sigma=1.3), lambda X, Y: SkMatern(length_scale=1.3, nu=1.5)(X, Y)),
    (Matern(nu=2.5, sigma=1.3), lambda X, Y: SkMatern(length_scale=1.3, nu=2.5)(X, Y)),
    (Matern(nu=2.5, sigma=0.2), lambda X, Y: SkMatern(length_scale=0.2, nu=2.5)(X, Y)),
], ids=["linear", "poly3", "poly2-homogeneous", "gaussian", "gaussian-narrow", "sigmoid",
        "laplacian-L1", "laplacian-L1-wide", "laplacian-L2", "matern-1/2", "matern-3/2",
        "matern-5/2", "matern-5/2-narrow"])
def test_agrees_with_sklearn(ours, theirs):
    for X, Y in [(ORACLE_X, None), (ORACLE_X, ORACLE_Y)]:
        expected = theirs(X, X if Y is None else Y)
        np.testing.assert_allclose(ours(X, Y), expected, rtol=1e-12, atol=1e-15)


def test_the_two_laplacians_differ_as_their_distances_do():
    x, t = np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]])
    assert LaplacianL1(sigma=1.0)(x, t)[0, 0] == pytest.approx(np.exp(-7.0), rel=1e-15)
    assert LaplacianL2(sigma=1.0)(x, t)[0, 0] == pytest.approx(np.exp(-5.0), rel=1e-15)
    # in one dimension the two distances agree
    X1 = ORACLE_X[:, :1]
    np.testing.assert_array_equal(LaplacianL1(sigma=0.5)(X1), LaplacianL2(sigma=0.5)(X1))


def test_matern_closed_forms_and_the_gaussian_limit():
    r = np.linspace(0.0, 3.0, 7)[:, None]
    zero = np.zeros((1, 1))
    s3, s5 = np.sqrt(3) * r[:, 0], np.sqrt(5) * r[:, 0]
    np.testing.assert_allclose(Matern(nu=1.5, sigma=1.0)(r, zero)[:, 0], (1 + s3) * np.exp(-s3),
                               rtol=1e-14)
    np.testing.assert_allclose(Matern(nu=2.5, sigma=1.0)(r, zero)[:, 0],
                               (1 + s5 + s5**2 / 3) * np.exp(-s5), rtol=1e-14)
    # smoother kernels are closer to the Gaussian with the same length scale
    gauss = Gaussian(sigma=1.0)(ORACLE_X)
    gaps = [np.abs(Matern(nu=nu, sigma=1.0)(ORACLE_X) - gauss).max() for nu in (0.5, 1.5, 2.5)]
    assert gaps[0] > gaps[1] > gaps[2]


def test_distance_kernels_are_shift_invariant_to_rounding():
    shift = 1e4
    for k in (LaplacianL1(sigma=0.3), LaplacianL2(sigma=0.3), Matern(nu=2.5, sigma=0.3)):
        np.testing.assert_allclose(k(ORACLE_X + shift), k(ORACLE_X), rtol=0, atol=1e-9)
        assert np.all(np.diagonal(k(ORACLE_X + shift, ORACLE_X + shift)) == 1.0)


@pytest.mark.parametrize("n", [300, 2100])
def test_gaussian_large_block_matches_sklearn_and_is_symmetric(n):
    # Several row blocks (and, for n = 2100, blocks finished on parallel threads).
    X = np.random.default_rng(0).normal(size=(n, 7))
    K = Gaussian(sigma=2.0)(X)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    np.testing.assert_allclose(K, pairwise.rbf_kernel(X, gamma=1 / 8.0), rtol=1e-12, atol=0)
    Y = X[::7] + 0.1
    np.testing.assert_allclose(Gaussian(sigma=2.0)(X, Y), pairwise.rbf_kernel(X, Y, gamma=1 / 8.0),
                               rtol=1e-12, atol=0)


# ----- individual kernels against their definitions ----------------------------------
def test_exponential_and_anova_match_formulas():
    x, t = X_VEC[:1], Y_VEC[:1]
    assert Exponential(a=0.7)(x, t)[0, 0] == pytest.approx(math.exp(0.7 * float(x[0] @ t[0])), rel=1e-14)
    assert ANOVA()(x, t)[0, 0] == pytest.approx(np.prod(1 + x[0] * t[0]), rel=1e-14)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_anova_of_one_degree_sums_over_subsets_of_that_size(degree):
    x, t = RNG.normal(size=4), RNG.normal(size=4)
    expected = sum(np.prod(x[list(s)] * t[list(s)]) for s in itertools.combinations(range(4), degree))
    assert ANOVA(degree=degree)(x[None], t[None])[0, 0] == pytest.approx(expected, rel=1e-12)


def test_min_kernel_is_brownian_covariance_and_refuses_negatives():
    s = np.array([[0.5], [2.0], [1.0]])
    np.testing.assert_array_equal(Min()(s), np.minimum(s, s.T))
    with pytest.raises(ValueError, match="X must be non-negative"):
        Min()(np.array([[-1.0]]))


def test_general_linear_is_x_A_t_and_flags_indefinite_A():
    A = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    k = GeneralLinear(A)
    np.testing.assert_allclose(k(X_VEC[:, :2], Y_VEC[:, :2]), X_VEC[:, :2] @ A @ Y_VEC[:, :2].T, rtol=1e-13)
    assert not k.is_known_psd
    assert GeneralLinear(np.diag([1.0, 0.0])).is_known_psd
    with pytest.raises(ValueError, match="A must be symmetric"):
        GeneralLinear([[1.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="X has 3 columns but A is 2 x 2"):
        k(X_VEC)


def test_set_kernel_counts_common_subsets():
    universe = range(6)
    subsets = [frozenset(c) for r in range(7) for c in itertools.combinations(universe, r)]
    K = SetKernel()(SETS[:5])
    for i, A in enumerate(SETS[:5]):
        for j, B in enumerate(SETS[:5]):
            common = sum(1 for S in subsets if S <= A and S <= B)
            assert K[i, j] == common == 2 ** len(A & B)


def _spectrum_by_full_vector(s, t, p, alphabet):
    """The p-spectrum inner product through the full |alphabet|^p count vector."""
    total = 0
    for letters in itertools.product(alphabet, repeat=p):
        u = "".join(letters)
        total += sum(s[i:i + p] == u for i in range(len(s))) * sum(t[i:i + p] == u for i in range(len(t)))
    return total


@pytest.mark.parametrize("p", [1, 2, 3])
def test_spectrum_equals_inner_product_of_full_count_vectors(p):
    alphabet = sorted(set("".join(STRINGS)))
    K = Spectrum(p=p)(STRINGS[:4])
    for i, j in itertools.product(range(4), repeat=2):
        assert K[i, j] == _spectrum_by_full_vector(STRINGS[i], STRINGS[j], p, alphabet)


def test_all_substrings_weights_by_length_and_by_dict():
    def brute(s, t, w):
        cs = Counter(s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1))
        ct = Counter(t[i:j] for i in range(len(t)) for j in range(i + 1, len(t) + 1))
        return sum(w(u) * cs[u] * ct[u] for u in cs)

    for s, t in [("abab", "bab"), ("banana", "bandana")]:
        assert AllSubstrings(weights=0.3)([s], [t])[0, 0] == pytest.approx(brute(s, t, lambda u: 0.3 ** len(u)))
        table = {"a": 1.0, "an": 2.0, "ban": 0.5}
        assert AllSubstrings(weights=table)([s], [t])[0, 0] == pytest.approx(brute(s, t, lambda u: table.get(u, 0.0)))
    # Sum of spectra: unit weights up to length 2 are Spectrum(1) + Spectrum(2).
    np.testing.assert_allclose(AllSubstrings(weights=1.0, max_length=2)(STRINGS),
                               (Spectrum(p=1) + Spectrum(p=2))(STRINGS), rtol=1e-14)


def test_precomputed_indexes_its_matrix():
    k = Precomputed(POOL)
    np.testing.assert_array_equal(k(k.points), POOL)
    np.testing.assert_array_equal(k([2, 5], [0, 5, 9]), POOL[np.ix_([2, 5], [0, 5, 9])])
    np.testing.assert_array_equal(k(np.array([[2.0], [5.0]])), POOL[np.ix_([2, 5], [2, 5])])
    with pytest.raises(ValueError, match="X holds indices outside 0..9"):
        k([10])
    with pytest.raises(ValueError, match="X must hold whole-number indices"):
        k([0.5])
    with pytest.raises(ValueError, match="K must be symmetric"):
        Precomputed([[1.0, 0.0], [1.0, 1.0]])
    assert not Precomputed(np.array([[1.0, 2.0], [2.0, 1.0]])).is_known_psd


def test_function_kernel_vectorised_and_looped_paths_agree():
    def rbf(x, t):
        return np.exp(-np.sum((x - t) ** 2, axis=-1))

    def dot_based(x, t):  # x @ t does not broadcast over pairs: must fall back to a loop
        return np.exp(-(x @ x + t @ t - 2 * x @ t))

    looped = FunctionKernel(rbf, vectorized=False)(X_VEC, Y_VEC)
    np.testing.assert_allclose(FunctionKernel(rbf)(X_VEC, Y_VEC), looped, rtol=1e-13)
    np.testing.assert_allclose(FunctionKernel(dot_based)(X_VEC, Y_VEC), looped, rtol=1e-12)
    np.testing.assert_allclose(Gaussian(sigma=math.sqrt(0.5))(X_VEC, Y_VEC), looped, rtol=1e-12)
    # Strings and sets reach the function one item at a time.
    k = FunctionKernel(lambda s, t: float(len(set(s) & set(t))))
    assert k(["abc", "cd"])[0, 1] == 1.0
    assert not FunctionKernel(lambda x, t: 0.0).is_known_psd
    # An asymmetric function is refused on a single data set, but usable for k(X, Y).
    asymmetric = FunctionKernel(lambda x, t: x[0] - 2.0 * t[0])
    with pytest.raises(ValueError, match="func is not symmetric"):
        asymmetric(X_VEC)
    assert asymmetric(X_VEC[:1], Y_VEC[:1])[0, 0] == pytest.approx(X_VEC[0, 0] - 2 * Y_VEC[0, 0])


# ----- the algebra ---------------------------------------------------------------------
def test_algebra_matches_elementwise_operations():
    X, Y = X_VEC, Y_VEC
    g, lin = Gaussian(sigma=0.9), Linear()
    G, L = g(X, Y), lin(X, Y)
    np.testing.assert_allclose((g + lin)(X, Y), G + L, rtol=1e-14)
    np.testing.assert_allclose((3.0 * g)(X, Y), 3.0 * G, rtol=1e-14)
    np.testing.assert_allclose((g * 3)(X, Y), 3.0 * G, rtol=1e-14)
    np.testing.assert_allclose((g * lin)(X, Y), G * L, rtol=1e-14)
    np.testing.assert_allclose((lin ** 3)(X, Y), L ** 3, rtol=1e-14)
    np.testing.assert_allclose((2.0 + lin)(X, Y), 2.0 + L, rtol=1e-14)
    np.testing.assert_allclose(lin.exp()(X, Y), np.exp(L), rtol=1e-14)
    np.testing.assert_allclose(PolynomialOf(lin, [1.0, 2.0, 3.0])(X, Y), 1 + 2 * L + 3 * L ** 2, rtol=1e-13)
    f = lambda x: 1.0 + x[1] ** 2  # noqa: E731
    fx, fy = 1 + X[:, 1] ** 2, 1 + Y[:, 1] ** 2
    np.testing.assert_allclose(g.rescale(f)(X, Y), fx[:, None] * G * fy[None, :], rtol=1e-14)
    phi = lambda x: 2.0 * x[:2]  # noqa: E731
    np.testing.assert_allclose(g.compose(phi)(X, Y), g(2 * X[:, :2], 2 * Y[:, :2]), rtol=1e-14)
    P = Polynomial(degree=2, c=1.0)
    expected = P(X, Y) / np.sqrt(np.outer(P.diag(X), P.diag(Y)))
    np.testing.assert_allclose(P.normalize()(X, Y), expected, rtol=1e-13)
    parts = lin.on([0]) * g.on([1, 2])
    np.testing.assert_allclose(parts(X, Y), lin(X[:, :1], Y[:, :1]) * g(X[:, 1:], Y[:, 1:]), rtol=1e-14)


def test_gaussian_is_the_rescaled_exponential_of_a_linear_kernel():
    # exp(-|x-t|^2/2s^2) = f(x) exp(<x,t>/s^2) f(t) with f(x) = exp(-|x|^2/2s^2).
    s = 0.8
    f = lambda x: math.exp(-float(x @ x) / (2 * s * s))  # noqa: E731
    built = (Linear() * (1 / s ** 2)).exp().rescale(f)
    np.testing.assert_allclose(built(X_VEC, Y_VEC), Gaussian(sigma=s)(X_VEC, Y_VEC), rtol=1e-13)


def test_repr_reads_like_the_expression():
    assert repr(2.0 * Gaussian(sigma=1.0) + Linear()) == "2.0 * Gaussian(sigma=1.0) + Linear()"
    assert repr((Linear() + 1.0) ** 2) == "(Linear() + 1.0) ** 2"
    assert repr(Linear() * (Gaussian(sigma=2.0) + Linear())) == "Linear() * (Gaussian(sigma=2.0) + Linear())"
    assert repr(Polynomial(degree=3, c=0.0)) == "Polynomial(degree=3, c=0.0)"
    assert repr(Linear().on([0, 1])) == "Linear().on([0, 1])"
    assert repr(Spectrum(p=2).normalize()) == "normalize(Spectrum(p=2))"


def test_algebra_refuses_what_could_break_psd():
    with pytest.raises(ValueError, match="c \\(scale factor\\) must be >= 0"):
        -1.0 * Linear()
    with pytest.raises(ValueError, match="c must be >= 0"):
        Linear() + (-1.0)
    with pytest.raises(TypeError, match="cannot be subtracted"):
        Linear() - Linear() ** 2
    with pytest.raises(TypeError, match="cannot be negated"):
        -Linear()
    with pytest.raises(ValueError, match="n \\(exponent\\) must be an integer"):
        Linear() ** 0.5
    with pytest.raises(ValueError, match="coef must be non-negative"):
        Linear().polynomial([1.0, -1.0])
    with pytest.raises(TypeError, match="added constant must be a Kernel"):
        Linear() + "one"
    with pytest.raises(ValueError, match="normalisation needs k\\(x, x\\) > 0"):
        Spectrum(p=2).normalize()(["ab", "a"])  # "a" has no substring of length 2


def test_known_psd_flag_follows_the_construction():
    assert not Sigmoid(a=1.0, c=1.0).is_known_psd
    assert not (Sigmoid() + Linear()).is_known_psd
    assert not Polynomial(degree=2, c=-1.0).is_known_psd
    assert not Exponential(a=-1.0).is_known_psd
    assert (2.0 * Gaussian() * Linear() + 1.0).is_known_psd


# ----- bad input ---------------------------------------------------------------------
@pytest.mark.parametrize("make, error, message", [
    (lambda: Gaussian(sigma=-1.0), ValueError, "sigma must be > 0"),
    (lambda: Gaussian(sigma=0.0), ValueError, "sigma must be > 0"),
    (lambda: Gaussian(sigma="wide"), TypeError, "sigma must be a real number"),
    (lambda: Gaussian(sigma=np.inf), ValueError, "sigma must be finite"),
    (lambda: Gaussian(sigma=1e-300), ValueError, "sigma is too small"),
    (lambda: Exponential(a=np.inf), ValueError, "a must be finite"),
    (lambda: Polynomial(degree=2, c=-np.inf), ValueError, "c must be finite"),
    (lambda: np.inf * Linear(), ValueError, "c \\(scale factor\\) must be finite"),
    (lambda: Polynomial(degree=-2), ValueError, "degree must be >= 1"),
    (lambda: Polynomial(degree=2.5), ValueError, "degree must be an integer"),
    (lambda: Polynomial(degree=True), TypeError, "degree must be a real number"),
    (lambda: Spectrum(p=0), ValueError, "p must be >= 1"),
    (lambda: AllSubstrings(weights=-0.5), ValueError, "weights must be > 0"),
    (lambda: AllSubstrings(weights={"a": -1.0}), ValueError, "weights\\['a'\\] must be >= 0"),
    (lambda: Precomputed([[1.0, 2.0, 3.0]]), ValueError, "K must be a square"),
    (lambda: FunctionKernel(3.0), TypeError, "func must be callable"),
    (lambda: LaplacianL1(sigma=0.0), ValueError, "sigma must be > 0"),
    (lambda: LaplacianL2(sigma=-1.0), ValueError, "sigma must be > 0"),
    (lambda: Matern(nu=2.0), ValueError, "nu must be one of 0.5, 1.5, 2.5"),
    (lambda: Matern(nu=1.5, sigma=np.inf), ValueError, "sigma must be finite"),
])
def test_bad_parameters_are_named(make, error, message):
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize("X, Y, error, message", [
    (np.ones(3), None, ValueError, "X must be 2-D .* pass a single point as shape \\(1, d\\)"),
    (np.ones((2, 3)), np.ones((2, 2)), ValueError, "X has 3 and Y has 2"),
    (np.array([[1.0, np.nan]]), None, ValueError, "X contains NaN"),
    (np.ones((2, 2)), np.array([[np.inf, 1.0]]), ValueError, "Y contains infinity"),
    (np.empty((0, 3)), None, ValueError, "X is empty"),
    ([["a", "b"]], None, TypeError, "X must be numeric"),
    ([[1.0, 2.0], [3.0]], None, ValueError, "X must be a rectangular array"),
    (None, None, TypeError, "X must be a numeric array"),
])
def test_bad_data_is_named(X, Y, error, message):
    with pytest.raises(error, match=message):
        Gaussian(sigma=1.0)(X, Y)


def test_string_and_set_kernels_refuse_wrong_types():
    with pytest.raises(TypeError, match="wrap a single string"):
        Spectrum(p=2)("abc")
    with pytest.raises(TypeError, match=r"Y\[1\] must be a str"):
        Spectrum(p=2)(["abc"], ["abc", 3])
    with pytest.raises(TypeError, match=r"X\[0\] must be a set"):
        SetKernel()(["abc"])
    with pytest.raises(ValueError, match="X is empty"):
        SetKernel()([])


def test_validation_helpers():
    assert check_array([[1, 2]]).dtype == np.float64
    assert check_array([1.0, 2.0], "y", ensure_2d=False).shape == (2,)
    with pytest.raises(ValueError, match="Z and W must have the same number of features"):
        check_pair(np.ones((2, 2)), np.ones((2, 3)), names=("Z", "W"))
    assert check_scalar(3.0, "n", low=1, integer=True) == 3
    with pytest.raises(TypeError, match="lam must be a real number"):
        check_scalar(True, "lam")
    with pytest.raises(ValueError, match=r"lam must be in \(0, 1\]"):
        check_scalar(0.0, "lam", low=0, high=1, include_low=False)
    with pytest.raises(ValueError, match="lam must be a number, got NaN"):
        check_scalar(float("nan"), "lam")


def test_top_level_names_are_exported():
    for name in ["Linear", "Polynomial", "Gaussian", "Exponential", "Sigmoid", "ANOVA", "Min",
                 "SetKernel", "Spectrum", "AllSubstrings", "GeneralLinear", "Precomputed",
                 "FunctionKernel", "Kernel", "is_psd", "gram_matrix", "find_counterexample",
                 "LaplacianL1", "LaplacianL2", "Matern"]:
        assert hasattr(kernlab, name), name


# ---------------------------------------------------------------- parameters

@pytest.mark.parametrize("kernel, kind", KERNELS, ids=IDS)
def test_get_params_rebuilds_the_same_kernel(kernel, kind):
    """A kernel rebuilt from get_params, or cloned by scikit-learn, computes the same matrix."""
    X, _ = DATA[kind]
    rebuilt = type(kernel)(**kernel.get_params(deep=False))
    assert repr(rebuilt) == repr(kernel)
    np.testing.assert_array_equal(rebuilt(X), kernel(X))
    np.testing.assert_array_equal(clone(kernel)(X), kernel(X))


def test_nested_parameters_reach_components():
    k = 2.0 * Gaussian(sigma=1.0) + Linear()
    assert k.get_params()["k1__k__sigma"] == 1.0
    k.set_params(k1__k__sigma=0.5, k1__c=3.0)
    assert repr(k) == "3.0 * Gaussian(sigma=0.5) + Linear()"
    X = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_allclose(k(X), 3.0 * Gaussian(sigma=0.5)(X) + X @ X.T, rtol=1e-14)


def test_set_params_validates_and_names_the_parameter():
    k = Gaussian(sigma=1.0)
    with pytest.raises(ValueError, match="sigma"):
        k.set_params(sigma=-1.0)
    assert k.sigma == 1.0
    with pytest.raises(ValueError, match="invalid parameter 'width'"):
        k.set_params(width=2.0)


# ------------------------------------------------------- accuracy far from the origin
@pytest.mark.parametrize("sigma", [1e-3, 0.05, 1.0, 30.0])
@pytest.mark.parametrize("shift", [1e2, 1e4])
def test_gaussian_is_as_accurate_far_from_the_origin_as_at_it(sigma, shift):
    """exp(-||x - t||^2 / (2 sigma^2)) depends only on differences: a shift changes nothing."""
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((150, 4)), rng.standard_normal((90, 4))
    k = Gaussian(sigma=sigma)

    def exact(A, B):  # from the differences themselves: no cancellation
        return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))

    # the shifted inputs are themselves rounded, by about eps * shift per coordinate
    tol = 1e-13 + 10 * np.finfo(float).eps * shift * 8 / sigma
    Xs, Ys = X + shift, Y + shift
    np.testing.assert_allclose(k(Xs), exact(Xs, Xs), rtol=0, atol=min(tol, 1e-6))
    np.testing.assert_allclose(k(Xs, Ys), exact(Xs, Ys), rtol=0, atol=min(tol, 1e-6))
    np.testing.assert_allclose(k(Xs), k(X), rtol=0, atol=min(tol, 1e-6))
    # k(x, x) = 1 exactly on both paths
    assert np.all(np.diagonal(k(Xs)) == 1.0)
    if sigma < 0.1:
        assert np.all(np.diagonal(k(Xs, Xs)) == 1.0)


def test_kernel_class_instead_of_instance_is_refused_with_that_explanation():
    with pytest.raises(TypeError, match="got the class Gaussian itself"):
        kernlab.gram_matrix(Gaussian, [[0.0], [1.0]])
    with pytest.raises(TypeError, match="got the class Gaussian itself"):
        Linear() + Gaussian
    with pytest.raises(TypeError, match="got the class Linear itself"):
        kernlab.KernelRidge(Linear).fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(TypeError, match="got the class Linear itself"):
        kernlab.RKHSFunction(Linear, [[0.0]], [1.0])


# ------------------------------------------------- the Gaussian's fast path runs clean
_SIGNALLING_NAN = 0x7FF0000000000001  # the bit pattern of a signalling NaN


@pytest.mark.parametrize("n, d", [(1, 1), (2, 3), (127, 2), (128, 5), (129, 1), (300, 7),
                                  pytest.param(2100, 3, marks=pytest.mark.slow)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_gaussian_gram_reads_no_uninitialised_memory(n, d, dtype):
    """Freed memory full of signalling NaNs, reused for K, raises no warning (n = 2100: threads)."""
    rng = np.random.default_rng(n * d)
    X = (rng.normal(size=(n, d)) * 3).astype(dtype)
    if n > 1:
        X = np.asfortranarray(X) if d % 2 else X[::-1]  # other layouts than C order
    for sigma in (0.05, 1.0, 40.0):
        poison = np.full((n, n), _SIGNALLING_NAN, dtype=np.uint64)
        del poison  # the allocator may hand these bytes to the Gram matrix next
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            K = Gaussian(sigma=sigma)(X)
            K_cross = Gaussian(sigma=sigma)(X, X[: max(1, n // 3)])
        assert np.isfinite(K).all() and np.array_equal(K, K.T)
        assert np.all(np.diag(K) == 1.0)
        Xf = np.asarray(X, dtype=float)
        exact = pairwise.rbf_kernel(Xf, gamma=1 / (2 * sigma**2))
        np.testing.assert_allclose(K, exact, rtol=0, atol=1e-12)
        np.testing.assert_allclose(K_cross, exact[:, : max(1, n // 3)], rtol=0, atol=1e-12)
