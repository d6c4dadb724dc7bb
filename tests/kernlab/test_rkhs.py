"""RKHS tools: inner products, kernel distance, Mercer expansions, the min-kernel space."""

import numpy as np
import pytest

from kernlab import (ANOVA, Gaussian, Linear, Min, Polynomial, RKHSFunction,
                     gaussian_mercer_eigenfunctions, gaussian_mercer_eigenvalues, h1_inner,
                     h1_norm, kernel_distance, mercer_eigen, min_kernel_section)

KERNELS = [Gaussian(sigma=0.7), Polynomial(degree=2, c=1.0), Linear() + ANOVA()]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_inner_product_norm_and_reproducing_property(kernel):
    rng = np.random.default_rng(0)
    X, Z = rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    a, b = rng.standard_normal(6), rng.standard_normal(4)
    f, g = RKHSFunction(kernel, X, a), RKHSFunction(kernel, Z, b)
    assert f.inner(g) == pytest.approx(a @ kernel(X, Z) @ b, rel=1e-12)
    assert f.inner(g) == pytest.approx(g.inner(f), rel=1e-12)
    assert f.norm() == pytest.approx(np.sqrt(a @ kernel(X) @ a), rel=1e-12)
    points = rng.standard_normal((5, 3))
    for x in points:
        section = RKHSFunction(kernel, x[None, :], [1.0])
        assert f.inner(section) == pytest.approx(f(x[None, :])[0], rel=1e-10, abs=1e-12)
    np.testing.assert_allclose((f + 2.0 * g)(points), f(points) + 2 * g(points), atol=1e-12)
    assert (f - f).norm() == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_lipschitz_bound_in_the_kernel_distance(kernel):
    rng = np.random.default_rng(1)
    f = RKHSFunction(kernel, rng.standard_normal((8, 3)), rng.standard_normal(8))
    P, Q = rng.standard_normal((300, 3)), rng.standard_normal((300, 3))
    gaps = np.abs(f(P) - f(Q))
    dist = np.diag(kernel_distance(kernel, P, Q))
    assert np.all(gaps <= f.norm() * dist + 1e-10)
    # the bound is attained in the direction of f itself: f = k(., x) - k(., y)
    x, y = P[:1], Q[:1]
    h = RKHSFunction(kernel, np.vstack([x, y]), [1.0, -1.0])
    assert abs(h(x)[0] - h(y)[0]) == pytest.approx(h.norm() * kernel_distance(kernel, x, y)[0, 0],
                                                   rel=1e-8)


def test_kernel_distance_is_a_metric_and_euclidean_for_linear():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((20, 2))
    D = kernel_distance(Linear(), X)
    np.testing.assert_allclose(D, np.linalg.norm(X[:, None] - X[None], axis=-1), atol=1e-7)
    G = kernel_distance(Gaussian(sigma=1.0), X)
    assert np.all(G[:, :, None] <= G[:, None, :] + G.T[None, :, :] + 1e-12)  # triangle
    assert np.allclose(np.diag(G), 0) and np.allclose(G, G.T)


# ---------------------------------------------------------------- Mercer
@pytest.mark.parametrize("sigma, s", [(0.8, 1.0), (1.5, 0.6)])
def test_numerical_mercer_matches_the_gaussian_closed_form(sigma, s):
    density = lambda y: np.exp(-y**2 / (2 * s**2)) / np.sqrt(2 * np.pi * s**2)  # noqa: E731
    numeric = mercer_eigen(Gaussian(sigma=sigma), (-10 * s, 10 * s), density=density,
                           n_nodes=300, n_eig=8)
    np.testing.assert_allclose(numeric.eigenvalues, gaussian_mercer_eigenvalues(8, sigma=sigma,
                                                                                s=s), rtol=1e-8)
    x = np.linspace(-2 * s, 2 * s, 11)
    np.testing.assert_allclose(numeric.eigenfunctions(x),
                               gaussian_mercer_eigenfunctions(x, 8, sigma=sigma, s=s), atol=1e-7)


def test_gaussian_closed_form_is_an_orthonormal_expansion():
    sigma, s = 0.9, 1.3
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    x, w = s * nodes, weights / np.sqrt(2 * np.pi)  # quadrature for N(0, s^2)
    phi = gaussian_mercer_eigenfunctions(x, 10, sigma=sigma, s=s)
    np.testing.assert_allclose((phi * w[:, None]).T @ phi, np.eye(10), atol=1e-10)
    lam = gaussian_mercer_eigenvalues(60, sigma=sigma, s=s)
    assert lam.sum() == pytest.approx(1.0, rel=1e-12)  # trace = int k(x, x) p(x) dx
    pts = np.linspace(-1.5, 1.5, 7)
    series = (gaussian_mercer_eigenfunctions(pts, 60, sigma=sigma, s=s) * lam) @ \
        gaussian_mercer_eigenfunctions(pts, 60, sigma=sigma, s=s).T
    np.testing.assert_allclose(series, Gaussian(sigma=sigma)(pts[:, None]), atol=1e-9)


def test_min_kernel_eigenvalues_on_the_unit_interval():
    expansion = mercer_eigen(Min(), (0.0, 1.0), n_nodes=500, n_eig=4)
    j = np.arange(1, 5)
    np.testing.assert_allclose(expansion.eigenvalues, 1 / ((j - 0.5) ** 2 * np.pi**2), rtol=1e-4)
    x = np.linspace(0.05, 0.95, 9)
    np.testing.assert_allclose(np.abs(expansion.eigenfunctions(x)),
                               np.abs(np.sqrt(2) * np.sin((j - 0.5) * np.pi * x[:, None])),
                               atol=1e-3)


# ---------------------------------------------------------------- int_0^inf f'g'
def test_norms_of_the_example_functions():
    d_a = lambda x: np.cos(x) / (x + 1) - np.sin(x) / (x + 1) ** 2  # noqa: E731
    d_b = lambda x: 10 * np.cos(10 * x) / (x + 1) - np.sin(10 * x) / (x + 1) ** 2  # noqa: E731
    d_c = lambda x: np.where(x <= 10, 0.1, np.where(x <= 20, -0.1, 0.0))  # noqa: E731
    assert h1_norm(d_a) == pytest.approx(0.683, abs=1e-3)
    assert h1_norm(d_b, panel=0.25) == pytest.approx(7.065, abs=1e-3)
    assert h1_norm(d_c, points=[10.0, 20.0]) == pytest.approx(1 / np.sqrt(5), rel=1e-12)


@pytest.mark.parametrize("t", [0.3, 2.0, 7.5])
def test_min_kernel_reproduces_in_the_derivative_space(t):
    f = lambda x: x * np.exp(-x / 3)  # noqa: E731  (f(0) = 0)
    df = lambda x: (1 - x / 3) * np.exp(-x / 3)  # noqa: E731
    k_t, dk_t = min_kernel_section(t)
    assert h1_inner(df, dk_t, points=[t]) == pytest.approx(f(t), rel=1e-10)
    k_s, dk_s = min_kernel_section(1.1)
    assert h1_inner(dk_s, dk_t, points=[1.1, t]) == pytest.approx(min(1.1, t), rel=1e-12)
    # Min() agrees with the section
    np.testing.assert_allclose(Min()(np.array([[0.5], [4.0]]), np.array([[t]]))[:, 0],
                               k_t(np.array([0.5, 4.0])))


def test_bad_input():
    with pytest.raises(ValueError, match="coef must have shape"):
        RKHSFunction(Linear(), np.zeros((3, 2)), [1.0, 2.0])
    with pytest.raises(ValueError, match="interval"):
        mercer_eigen(Gaussian(), (1.0, 0.0))
    with pytest.raises(ValueError, match="sigma"):
        gaussian_mercer_eigenvalues(3, sigma=-1.0, s=1.0)
    with pytest.raises(ValueError, match="t must be >= 0"):
        min_kernel_section(-1.0)


def test_h1_inner_refuses_a_tail_it_cannot_integrate():
    """f'(x)^2 = 1/x is not integrable: an error, not the panels' partial sum."""
    df = lambda x: 1.0 / np.sqrt(np.asarray(x, dtype=float) + 1.0)  # noqa: E731
    with pytest.raises(ValueError, match="could not be computed accurately"):
        h1_inner(df, df)
