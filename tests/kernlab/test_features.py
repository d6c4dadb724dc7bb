"""Feature maps: inner products reproduce kernels, feature counts, and the Gaussian-shift identity."""

import math

import numpy as np
import pytest
from scipy import integrate
from sklearn.exceptions import NotFittedError

from kernlab import (
    ANOVAFeatures, BiasFeatures, CorrelationFeatures, Gaussian, GaussianTaylorFeatures, Linear,
    Nystroem, NystroemKernelRidge, Polynomial, PolynomialFeatures, RandomFourierFeatures,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(15, 3))
Y = RNG.normal(size=(6, 3))

# Every deterministic map, each checked against the kernel it claims to reproduce.
MAPS = [
    PolynomialFeatures(degree=1, c=1.0),
    PolynomialFeatures(degree=2, c=1.0),
    PolynomialFeatures(degree=3, c=0.5),
    PolynomialFeatures(degree=4, c=0.0),
    ANOVAFeatures(),
    ANOVAFeatures(degree=2),
    CorrelationFeatures(),
    CorrelationFeatures(include_squares=True),
    BiasFeatures(),
    GaussianTaylorFeatures(sigma=1.5, order=0),
    GaussianTaylorFeatures(sigma=0.8, order=5),
]


@pytest.mark.parametrize("feature_map", MAPS, ids=[repr(m.kernel) for m in MAPS])
def test_inner_products_reproduce_the_kernel(feature_map):
    Phi_X = feature_map.fit(X).transform(X)
    Phi_Y = feature_map.transform(Y)
    K = feature_map.kernel(X, Y)
    np.testing.assert_allclose(Phi_X @ Phi_Y.T, K, rtol=1e-10, atol=1e-10 * np.abs(K).max())
    assert len(feature_map.get_feature_names_out()) == Phi_X.shape[1] == feature_map.n_output_features_


@pytest.mark.parametrize("D", [1, 2, 3, 5, 8])
def test_quadratic_map_has_D2_plus_3D_plus_2_over_2_features(D):
    phi = PolynomialFeatures(degree=2, c=1.0).fit(np.zeros((1, D)))
    assert phi.n_output_features_ == (D ** 2 + 3 * D + 2) // 2


@pytest.mark.parametrize("D, p", [(1, 5), (2, 3), (3, 4), (4, 2)])
def test_polynomial_feature_counts(D, p):
    assert PolynomialFeatures(degree=p, c=1.0).fit(np.zeros((1, D))).n_output_features_ == math.comb(D + p, p)
    assert PolynomialFeatures(degree=p, c=0.0).fit(np.zeros((1, D))).n_output_features_ == math.comb(D + p - 1, p)


def test_quadratic_map_names_and_values_in_two_dimensions():
    phi = PolynomialFeatures(degree=2, c=1.0).fit(np.zeros((1, 2)))
    assert phi.get_feature_names_out().tolist() == ["1", "√2·x1", "√2·x2", "x1^2", "√2·x1·x2", "x2^2"]
    x1, x2 = 0.3, -1.7
    r2 = math.sqrt(2)
    np.testing.assert_allclose(phi.transform([[x1, x2]])[0], [1, r2 * x1, r2 * x2, x1 ** 2, r2 * x1 * x2, x2 ** 2])
    assert phi.get_feature_names_out(["a", "b"])[4] == "√2·a·b"


def test_feature_map_is_not_unique():
    # (x1^2, x2^2, x1x2, x2x1) and (x1^2, x2^2, √2 x1x2) give the same kernel (x^T t)^2.
    def four(Z):
        return np.column_stack([Z[:, 0] ** 2, Z[:, 1] ** 2, Z[:, 0] * Z[:, 1], Z[:, 1] * Z[:, 0]])

    Z = X[:, :2]
    three = PolynomialFeatures(degree=2, c=0.0).fit_transform(Z)
    assert three.shape[1] == 3
    K = Polynomial(degree=2, c=0.0)(Z)
    scale = 1e-12 * np.abs(K).max()  # entries near zero come from cancellation
    np.testing.assert_allclose(four(Z) @ four(Z).T, K, rtol=1e-12, atol=scale)
    np.testing.assert_allclose(three @ three.T, K, rtol=1e-12, atol=scale)


def test_anova_map_lists_products_of_distinct_coordinates():
    phi = ANOVAFeatures().fit(np.zeros((1, 3)))
    assert phi.get_feature_names_out().tolist() == ["1", "x1", "x2", "x3", "x1·x2", "x1·x3", "x2·x3", "x1·x2·x3"]


def test_correlation_map_makes_xor_linearly_separable():
    corners = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    labels = np.array([-1, 1, 1, -1])
    phi = CorrelationFeatures().fit(corners)
    assert phi.get_feature_names_out().tolist() == ["x1", "x2", "x1·x2"]
    w = np.array([0.0, 0.0, -1.0])  # the weight on x1 x2 alone separates XOR
    np.testing.assert_array_equal(np.sign(phi.transform(corners) @ w), labels)
    # Without the product no affine f(x) = w.x + b works: sum_i y_i f(x_i) = 0 for
    # every (w, b), because the label-weighted sum of the rows (x_i, 1) vanishes, so
    # y_i f(x_i) > 0 cannot hold at all four corners.
    np.testing.assert_array_equal(labels @ np.column_stack([corners, np.ones(4)]), np.zeros(3))
    squares = CorrelationFeatures(include_squares=True).fit(np.zeros((1, 4)))
    assert squares.n_output_features_ == (4 ** 2 + 3 * 4) // 2


def test_bias_map_adds_a_constant_feature():
    phi = BiasFeatures()
    np.testing.assert_array_equal(phi.fit_transform([[2.0, -1.0]]), [[2.0, -1.0, 1.0]])
    np.testing.assert_allclose(phi.kernel(X, Y), Linear()(X, Y) + 1.0, rtol=1e-14)


def test_gaussian_taylor_error_is_bounded_and_shrinks_with_order():
    errors = []
    for order in range(0, 12):
        phi = GaussianTaylorFeatures(sigma=1.2, order=order)
        actual = phi.truncation_error(X, Y)
        assert np.all(actual <= phi.error_bound(X, Y) * (1 + 1e-9) + 1e-15)
        radius = max(np.linalg.norm(X, axis=1).max(), np.linalg.norm(Y, axis=1).max())
        assert actual.max() <= GaussianTaylorFeatures.radius_bound(radius, 1.2, order) + 1e-15
        errors.append(actual.max())
    assert all(later < earlier for earlier, later in zip(errors[3:], errors[4:]))
    assert errors[-1] < 1e-4 < errors[0]
    # The features converge to the Gaussian kernel itself.
    phi = GaussianTaylorFeatures(sigma=1.2, order=25).fit(X)
    np.testing.assert_allclose(phi.transform(X) @ phi.transform(Y).T, Gaussian(sigma=1.2)(X, Y),
                               rtol=0, atol=1e-10)


def test_random_fourier_features_converge_at_monte_carlo_rate():
    target = Gaussian(sigma=1.0)(X, Y)
    errors = {}
    for n in [100, 20000]:
        rff = RandomFourierFeatures(sigma=1.0, n_components=n, random_state=0).fit(X)
        errors[n] = np.abs(rff.transform(X) @ rff.transform(Y).T - target).max()
        # Each entry averages n terms of variance <= 1; a max over 90 entries stays within ~4 sd.
        assert errors[n] < 4.0 / math.sqrt(n)
    assert errors[20000] < errors[100] / 5
    assert rff.kernel(X, Y) == pytest.approx(target)


def test_random_fourier_features_are_reproducible_and_need_fit():
    a = RandomFourierFeatures(sigma=0.5, n_components=50, random_state=3).fit_transform(X)
    b = RandomFourierFeatures(sigma=0.5, n_components=50, random_state=3).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(NotFittedError):
        RandomFourierFeatures(sigma=1.0, n_components=10).transform(X)
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        RandomFourierFeatures(random_state="seed").fit(X)


# ----- the Gaussian shifts of the first note -------------------------------------------
def _shift_inner_product(a, b, sigma):
    """L2 inner product of phi(s - a) and phi(s - b), phi(s) = (sigma sqrt(pi))^(-D/2) e^(-|s|^2/2sigma^2)."""
    D = len(a)
    c = (sigma * math.sqrt(math.pi)) ** (-D / 2)

    def integrand(*s):
        s = np.array(s)
        return c * c * math.exp(-(np.sum((s - a) ** 2) + np.sum((s - b) ** 2)) / (2 * sigma ** 2))

    lim = 12 * sigma + np.abs(np.concatenate([a, b])).max()
    if D == 1:
        return integrate.quad(integrand, -lim, lim, epsabs=1e-13, epsrel=1e-11)[0]
    return integrate.dblquad(lambda y, x: integrand(x, y), -lim, lim, -lim, lim,
                             epsabs=1e-12, epsrel=1e-10)[0]


@pytest.mark.parametrize("a, b, sigma", [
    ([0.0], [0.0], 1.0),
    ([0.3], [-1.1], 0.7),
    ([0.0, 0.0], [0.0, 0.0], 0.9),
    ([0.5, -0.2], [-0.4, 0.6], 0.8),
])
def test_gaussian_shifts_have_inner_product_exp_minus_distance_over_four_sigma_squared(a, b, sigma):
    # Correct statement: with phi(s) = (sigma sqrt(pi))^(-D/2) exp(-|s|^2 / (2 sigma^2)),
    # ||phi||_L2 = 1 and <phi(. - a), phi(. - b)>_L2 = exp(-|a - b|^2 / (4 sigma^2)),
    # i.e. the Gaussian kernel of width sqrt(2) sigma.
    a, b = np.array(a), np.array(b)
    value = _shift_inner_product(a, b, sigma)
    expected = math.exp(-np.sum((a - b) ** 2) / (4 * sigma ** 2))
    assert value == pytest.approx(expected, rel=1e-8)
    assert value == pytest.approx(Gaussian(sigma=math.sqrt(2) * sigma)(a[None], b[None])[0, 0], rel=1e-8)


# ----- bad input ---------------------------------------------------------------------
@pytest.mark.parametrize("feature_map, message", [
    (PolynomialFeatures(degree=-1), "degree must be >= 1"),
    (PolynomialFeatures(degree=2, c=-1.0), "c must be >= 0"),
    (GaussianTaylorFeatures(sigma=-1.0), "sigma must be > 0"),
    (GaussianTaylorFeatures(sigma=1.0, order=-1), "order must be >= 0"),
    (RandomFourierFeatures(sigma=0.0), "sigma must be > 0"),
    (RandomFourierFeatures(n_components=0), "n_components must be >= 1"),
    (ANOVAFeatures(degree=0), "degree must be >= 1"),
])
def test_bad_parameters_are_named_at_fit(feature_map, message):
    with pytest.raises(ValueError, match=message):
        feature_map.fit(X)


def test_bad_data_is_named():
    phi = PolynomialFeatures(degree=2).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but PolynomialFeatures is expecting 3"):
        phi.transform(X[:, :2])
    with pytest.raises(ValueError, match="X contains NaN"):
        phi.transform([[np.nan, 1.0, 2.0]])
    with pytest.raises(ValueError, match="1-D"):
        phi.transform(np.ones(3))
    with pytest.raises(NotFittedError, match="input_features"):
        PolynomialFeatures(degree=2).get_feature_names_out()


# ---------------------------------------------------------------- the Nystroem map
def test_nystroem_features_give_the_low_rank_approximation_of_the_kernel():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(60, 3)), rng.normal(size=(9, 3))
    k = Gaussian(sigma=1.2)
    ny = Nystroem(k, n_components=15, random_state=1).fit(A)
    Z = ny.landmarks_
    assert np.array_equal(Z, A[ny.landmark_indices_]) and Z.shape == (15, 3)
    expected = k(A, Z) @ np.linalg.solve(k(Z), k(Z, B))  # K_nm K_mm^-1 K_mb
    np.testing.assert_allclose(ny.transform(A) @ ny.transform(B).T, expected, atol=1e-6)
    # on the landmarks themselves the map is exact
    FZ = ny.transform(Z)
    np.testing.assert_allclose(FZ @ FZ.T, k(Z), atol=1e-8)
    assert ny.get_feature_names_out().tolist() == [f"nystroem{j}" for j in range(1, 16)]


def test_nystroem_with_every_point_a_landmark_is_exact():
    X_ = np.random.default_rng(2).normal(size=(40, 2))
    k = Polynomial(degree=2, c=1.0) + Gaussian(sigma=0.5)
    F = Nystroem(k, n_components=100, random_state=0).fit_transform(X_)
    assert F.shape == (40, 40)
    np.testing.assert_allclose(F @ F.T, k(X_), atol=1e-7)


def test_nystroem_kernel_ridge_is_ridge_on_the_nystroem_features():
    rng = np.random.default_rng(3)
    A = rng.uniform(-2, 2, (80, 2))
    y = np.sin(A[:, 0]) + A[:, 1]
    k = Gaussian(sigma=1.0)
    model = NystroemKernelRidge(k, lam=0.1, n_components=12, random_state=5).fit(A, y)
    F = Nystroem(k, n_components=12, random_state=5).fit(A).transform(A)
    w = np.linalg.solve(F.T @ F + 0.1 * np.eye(12), F.T @ y)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-8, atol=1e-10)
    assert np.array_equal(model.landmarks_, model.nystroem_.landmarks_)


@pytest.mark.parametrize("make, error, match", [
    (lambda: Nystroem("precomputed").fit(X), ValueError, "not 'precomputed'"),
    (lambda: Nystroem(Gaussian(), n_components=0).fit(X), ValueError, "n_components"),
    (lambda: Nystroem(Gaussian(), random_state="seed").fit(X), TypeError, "random_state"),
    (lambda: Nystroem(Gaussian()).transform(X), NotFittedError, "must be fitted"),
    (lambda: Nystroem().fit(X), TypeError, "kernel is required"),
])
def test_nystroem_refuses_bad_input_by_name(make, error, match):
    with pytest.raises(error, match=match):
        make()
