"""kernlab.rkhs_ball_rademacher and kernlab.margin_bound: closed forms, brackets, refusals."""

import itertools
import math

import numpy as np
import pytest

from kernlab import Gaussian, Linear, margin_bound, rkhs_ball_rademacher


def brute_force(K, radius):
    """(B/n) E sup_{||f|| <= B} sum_i eps_i f(x_i): the supremum by the maximiser, all signs."""
    n = len(K)
    total = 0.0
    for eps in itertools.product((-1.0, 1.0), repeat=n):
        eps = np.array(eps)
        total += math.sqrt(max(eps @ K @ eps, 0.0))
    return radius * total / (n * 2 ** n)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kernel", [Gaussian(sigma=0.3), Gaussian(sigma=3.0), Linear()])
def test_exact_value_matches_enumeration_and_sits_in_its_bracket(kernel, seed):
    X = np.random.default_rng(seed).normal(size=(9, 2))
    K = kernel(X)
    result = rkhs_ball_rademacher(K, radius=2.5)
    assert result.exact and result.std_error == 0.0
    assert abs(result.value - brute_force(K, 2.5)) < 1e-12
    assert result.lower - 1e-12 <= result.value <= result.upper + 1e-12
    assert abs(result.upper - 2.5 * math.sqrt(np.trace(K)) / 9) < 1e-12


@pytest.mark.parametrize("seed", [0, 5])
def test_monte_carlo_estimate_is_within_its_standard_error(seed):
    X = np.random.default_rng(seed).normal(size=(14, 3))
    K = Gaussian(sigma=1.0)(X)
    exact = rkhs_ball_rademacher(K)
    estimate = rkhs_ball_rademacher(K, exact=False, n_draws=40000, random_state=seed)
    assert not estimate.exact and estimate.std_error > 0
    assert abs(estimate.value - exact.value) < 5 * estimate.std_error


def test_the_two_extreme_gram_matrices():
    identity = rkhs_ball_rademacher(np.eye(4))
    assert identity.value == pytest.approx(0.5) == identity.upper
    ones = rkhs_ball_rademacher(np.ones((4, 4)))
    assert ones.value == pytest.approx(0.375)          # E|sum of 4 signs| = 3/2, over n = 4
    assert ones.lower < ones.value < ones.upper


def test_large_samples_use_monte_carlo_and_are_seeded():
    K = Gaussian(sigma=1.0)(np.random.default_rng(0).normal(size=(40, 2)))
    first = rkhs_ball_rademacher(K, random_state=3)
    assert not first.exact
    assert first.value == rkhs_ball_rademacher(K, random_state=3).value
    assert first.lower <= first.value <= first.upper


def test_rademacher_refuses_what_is_not_a_gram_matrix():
    with pytest.raises(ValueError, match="square"):
        rkhs_ball_rademacher(np.ones((2, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        rkhs_ball_rademacher(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="positive semi-definite"):
        rkhs_ball_rademacher(-np.eye(3))
    with pytest.raises(ValueError, match="radius"):
        rkhs_ball_rademacher(np.eye(3), radius=-1.0)
    with pytest.raises(ValueError, match="exact=False"):
        rkhs_ball_rademacher(np.eye(30), exact=True)


def test_margin_bound_terms_by_hand():
    margins = np.array([2.0, 0.5, -1.0, 3.0, 0.0])
    bound = margin_bound(margins, radius=2.0, trace=5.0, delta=0.1, rho=0.5)
    ramp = np.clip(1 - margins / 0.5, 0, 1).mean()
    assert bound.empirical == pytest.approx(ramp)
    assert bound.complexity == pytest.approx(2 * 2.0 * math.sqrt(5.0) / (0.5 * 5))
    assert bound.confidence == pytest.approx(3 * math.sqrt(math.log(2 / 0.1) / 10))
    assert bound.total == pytest.approx(bound.empirical + bound.complexity + bound.confidence)


def test_margin_bound_is_unchanged_when_f_radius_and_rho_scale_together():
    margins = np.random.default_rng(0).normal(size=50)
    one = margin_bound(margins, radius=3.0, trace=50.0)
    scaled = margin_bound(7.0 * margins, radius=21.0, trace=50.0, rho=7.0)
    assert scaled.total == pytest.approx(one.total)


def test_margin_bound_refuses_bad_arguments_by_name():
    with pytest.raises(ValueError, match="delta"):
        margin_bound([1.0], radius=1.0, trace=1.0, delta=1.0)
    with pytest.raises(ValueError, match="rho"):
        margin_bound([1.0], radius=1.0, trace=1.0, rho=0.0)
    with pytest.raises(ValueError, match="margins"):
        margin_bound([[1.0, 2.0]], radius=1.0, trace=1.0)
    with pytest.raises(ValueError, match="trace"):
        margin_bound([1.0], radius=1.0, trace=-1.0)
