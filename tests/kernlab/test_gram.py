"""Gram matrices, the PSD test with its witness, and counterexamples for functions that are not kernels."""

import math

import numpy as np
import pytest

from kernlab import (
    FunctionKernel, Gaussian, GeneralLinear, Linear, Polynomial, Sigmoid, Spectrum,
    find_counterexample, gram_matrix, is_psd, kernel_mult,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))


def test_gram_matrix_accepts_kernels_and_plain_functions():
    k = Polynomial(degree=2, c=1.0)
    np.testing.assert_array_equal(gram_matrix(k, X), k(X))

    def poly(x, t):
        return (1.0 + float(np.dot(x, t))) ** 2

    looped = np.array([[poly(a, b) for b in X[:7]] for a in X])
    np.testing.assert_allclose(gram_matrix(poly, X, X[:7]), looped, rtol=1e-13)
    with pytest.raises(TypeError, match="kernel must be a Kernel or a function"):
        gram_matrix("gaussian", X)


@pytest.mark.parametrize("block_size", [1, 7, 40, 1000])
def test_kernel_mult_equals_gram_times_vector(block_size):
    k = Gaussian(sigma=1.5)
    v = RNG.normal(size=40)
    V = RNG.normal(size=(40, 3))
    np.testing.assert_allclose(kernel_mult(k, X, v, block_size=block_size), k(X) @ v, rtol=1e-12)
    np.testing.assert_allclose(kernel_mult(k, X, V, block_size=block_size), k(X) @ V, rtol=1e-12)


def test_kernel_mult_checks_lengths():
    with pytest.raises(ValueError, match="X has 40 points, v has 3"):
        kernel_mult(Linear(), X, np.ones(3))


# ----- is_psd ----------------------------------------------------------------------------
def test_psd_verdict_on_psd_matrices():
    for K in [np.eye(3), Gaussian(sigma=0.5)(X), Linear()(X), np.zeros((2, 2))]:
        verdict = is_psd(K)
        assert verdict and verdict.witness is None
        assert verdict.min_eigenvalue == pytest.approx(np.linalg.eigvalsh(K).min(), abs=1e-10)


def test_non_psd_verdict_carries_a_witness():
    K = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 5.0]])  # eigenvalues -1, 3, 5
    verdict = is_psd(K)
    assert not verdict
    assert verdict.min_eigenvalue == pytest.approx(-1.0)
    z = verdict.witness
    assert np.linalg.norm(z) == pytest.approx(1.0)
    assert z @ K @ z == pytest.approx(-1.0)


def test_large_matrices_use_the_ends_of_the_spectrum_only():
    # Above 300 rows only the extreme eigenpairs are computed; the verdict must not change.
    Z = np.random.default_rng(1).normal(size=(350, 4))
    K = Linear()(Z)  # rank 4: 346 eigenvalues that are zero up to rounding
    assert is_psd(K)
    shifted = K - 1e-3 * np.eye(350)
    verdict = is_psd(shifted)
    assert not verdict
    assert verdict.min_eigenvalue == pytest.approx(np.linalg.eigvalsh(shifted)[0], rel=1e-8)
    assert verdict.witness @ shifted @ verdict.witness == pytest.approx(-1e-3, rel=1e-6)


def test_tolerance_is_relative_to_the_scale_of_K():
    # A rank-deficient Gram matrix (more points than feature dimensions) has eigenvalues
    # that are zero up to rounding, at whatever scale the matrix has.
    base = Linear()(X)  # rank 3, size 40
    for scale in [1e-12, 1.0, 1e12]:
        assert is_psd(scale * base)
    bent = np.diag([1.0, 1.0, -1e-6])
    for scale in [1e-12, 1.0, 1e12]:
        assert not is_psd(scale * bent)
        assert is_psd(scale * bent, tol=1e-5)


@pytest.mark.parametrize("K, error, message", [
    (np.ones((2, 3)), ValueError, "K must be square"),
    (np.array([[1.0, 0.5], [0.0, 1.0]]), ValueError, "K must be symmetric"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), ValueError, "K contains NaN"),
    (np.ones(3), ValueError, "K must be 2-D"),
    ([["a"]], TypeError, "K must be numeric"),
])
def test_is_psd_rejects_bad_matrices(K, error, message):
    with pytest.raises(error, match=message):
        is_psd(K)


def test_is_psd_rejects_negative_tolerance():
    with pytest.raises(ValueError, match="tol must be >= 0"):
        is_psd(np.eye(2), tol=-1.0)
    with pytest.raises(ValueError, match="tol must be finite"):
        is_psd(-np.eye(2), tol=np.inf)  # an infinite tolerance would call anything PSD


# ----- functions that are not kernels are caught ------------------------------------------
def test_sigmoid_is_not_psd_for_some_parameters():
    # tanh(<x, t> - 1): k(x, x) < 0 for short x, so no feature map can exist.
    points = np.array([[0.1, 0.0], [0.0, 0.2]])
    verdict = is_psd(Sigmoid(a=1.0, c=-1.0)(points))
    assert not verdict and verdict.witness @ Sigmoid(a=1.0, c=-1.0)(points) @ verdict.witness < 0
    found = find_counterexample(Sigmoid(a=2.0, c=1.0), dim=2, n_points=5, random_state=0)
    assert found is not None
    points, verdict = found
    assert not is_psd(Sigmoid(a=2.0, c=1.0)(points), tol=1e-8)


def test_indefinite_general_linear_is_caught():
    D = np.array([[1.0, 0.0], [0.0, -1.0]])
    e2 = np.array([[0.0, 1.0]])
    assert not is_psd(GeneralLinear(D)(e2))  # the 1 x 1 Gram matrix [-1]
    found = find_counterexample(GeneralLinear(D), dim=2, random_state=1)
    assert found is not None and found.verdict.min_eigenvalue < 0


def test_linear_minus_its_square_is_caught():
    candidate = FunctionKernel(lambda x, t: x @ t - (x @ t) ** 2)
    # k(x, x) = |x|^2 - |x|^4 < 0 once |x| > 1.
    assert not is_psd(candidate(np.array([[2.0]])))
    found = find_counterexample(lambda x, t: x @ t - (x @ t) ** 2, dim=3, random_state=0)
    assert found is not None
    z = found.verdict.witness
    assert z @ found.gram @ z < 0


def test_kernels_give_no_counterexample():
    for k in [Gaussian(sigma=0.7), Polynomial(degree=3, c=1.0), Linear() * Gaussian(sigma=2.0)]:
        assert find_counterexample(k, dim=2, n_points=6, n_trials=30, random_state=0) is None


def test_counterexample_search_with_samplers_for_strings_and_sets():
    letters = "abc"

    def strings(rng, n):
        return ["".join(rng.choice(list(letters), size=rng.integers(2, 7))) for _ in range(n)]

    def sets(rng, n):
        return [set(rng.choice(6, size=rng.integers(0, 5), replace=False).tolist()) for _ in range(n)]

    assert find_counterexample(Spectrum(p=2), n_trials=30, sampler=strings, random_state=0) is None
    # "same string or not, centred": k(s, s) = 1/2, k(s, t) = -1/2 fails on three distinct strings.
    found = find_counterexample(lambda s, t: 0.5 if s == t else -0.5, n_points=4, sampler=strings,
                                random_state=0)
    assert found is not None and len(set(found.points)) >= 3
    # Size of the symmetric difference is zero on the diagonal: not PSD.
    assert find_counterexample(lambda A, B: float(len(A ^ B)), sampler=sets, random_state=0) is not None


def test_counterexample_search_reports_bad_arguments():
    with pytest.raises(ValueError, match="n_points must be >= 1"):
        find_counterexample(Linear(), n_points=0)
    with pytest.raises(ValueError, match="dim must be >= 1"):
        find_counterexample(Linear(), dim=0)
    with pytest.raises(TypeError, match="sampler must be callable"):
        find_counterexample(Linear(), sampler=3)
    with pytest.raises(TypeError, match="kernel must be a Kernel or a function"):
        find_counterexample(None)


def test_problem_sheet_examples():
    # exp(x1 t1) on R^2 is a kernel: the exponential of a kernel on the first coordinate.
    assert find_counterexample(Linear().on([0]).exp(), dim=2, n_trials=30, random_state=0) is None
    # The matrix [[-1, 2], [2, 4]] is not PSD: trace 3, determinant -8, eigenvalues (3 ± √41)/2.
    verdict = is_psd(np.array([[-1.0, 2.0], [2.0, 4.0]]))
    assert not verdict
    assert verdict.min_eigenvalue == pytest.approx((3 - math.sqrt(41)) / 2, rel=1e-12)
