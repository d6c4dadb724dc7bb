"""kernlab.GaussianProcessRegressor against scikit-learn's, against kernel ridge, and against itself.

scikit-learn is the oracle for the posterior and the evidence on fixed
hyperparameters (agreement to 1e-8); the gradient of the evidence is also
checked against central differences, the draws against the moments they
should have, and the optimiser against the gradient it must zero.
"""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor as SklearnGPR
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, DotProduct, WhiteKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernlab import (Constant, Gaussian, GaussianProcessRegressor, KernelRidge, Linear,
                     Polynomial, kernel_hyperparameters)

TOL = 1e-8

# (kernlab kernel, the same kernel in scikit-learn), with a few shapes of composite kernel
KERNELS = [
    (Gaussian(sigma=1.3), RBF(1.3)),
    (0.4 + 1.7 * Gaussian(sigma=0.8), ConstantKernel(0.4) + ConstantKernel(1.7) * RBF(0.8)),
    (Gaussian(sigma=2.0) * Gaussian(sigma=0.9), RBF(2.0) * RBF(0.9)),
    (Linear() + 0.5 * Gaussian(sigma=1.1),
     DotProduct(sigma_0=0.0, sigma_0_bounds="fixed") + ConstantKernel(0.5) * RBF(1.1)),
]


def data(seed, n=35, d=3, m=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    f = np.sin(X[:, 0]) + 0.5 * X[:, 0] * X[:, -1]
    noise = 0.1 * rng.normal(size=(n,) if m is None else (n, m))
    y = (f if m is None else f[:, None] * np.arange(1, m + 1)) + noise
    return X, y, rng.normal(size=(9, d))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("which", range(len(KERNELS)))
def test_posterior_and_evidence_agree_with_scikit_learn(which, seed):
    kernel, sk_kernel = KERNELS[which]
    X, y, X_new = data(seed)
    noise_var = [0.05, 0.3, 1e-3][seed]
    ours = GaussianProcessRegressor(kernel, noise_var=noise_var).fit(X, y)
    theirs = SklearnGPR(sk_kernel, alpha=noise_var, optimizer=None).fit(X, y)
    mean, std = ours.predict(X_new, return_std=True)
    sk_mean, sk_std = theirs.predict(X_new, return_std=True)
    np.testing.assert_allclose(mean, sk_mean, rtol=0, atol=TOL)
    np.testing.assert_allclose(std, sk_std, rtol=0, atol=TOL)
    _, cov = ours.predict(X_new, return_cov=True)
    np.testing.assert_allclose(cov, theirs.predict(X_new, return_cov=True)[1], rtol=0, atol=TOL)
    assert abs(ours.log_marginal_likelihood() - theirs.log_marginal_likelihood_value_) < TOL


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("which", range(len(KERNELS)))
def test_gradient_of_the_evidence_agrees_with_scikit_learn(which, seed):
    """scikit-learn's theta for kernel + WhiteKernel(noise) is ours: logs, in the same order."""
    kernel, sk_kernel = KERNELS[which]
    X, y, _ = data(seed)
    noise_var = [0.05, 0.3, 1e-3][seed]
    ours = GaussianProcessRegressor(kernel, noise_var=noise_var).fit(X, y)
    theirs = SklearnGPR(sk_kernel + WhiteKernel(noise_var), alpha=0.0, optimizer=None).fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.kernel_.theta, rtol=0, atol=1e-14)
    value, grad = ours.log_marginal_likelihood(ours.theta_, eval_gradient=True)
    sk_value, sk_grad = theirs.log_marginal_likelihood(theirs.kernel_.theta, eval_gradient=True)
    assert abs(value - sk_value) < TOL
    np.testing.assert_allclose(grad, sk_grad, rtol=1e-10, atol=TOL)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("which", range(len(KERNELS)))
def test_gradient_matches_central_differences(which, seed):
    kernel, _ = KERNELS[which]
    X, y, _ = data(seed, n=25)
    gp = GaussianProcessRegressor(kernel, noise_var=0.2).fit(X, y)
    rng = np.random.default_rng(seed)
    theta = gp.theta_ + 0.3 * rng.normal(size=gp.theta_.shape)   # away from the fitted point
    _, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    h = 1e-5
    steps = np.eye(len(theta)) * h
    central = np.array([(gp.log_marginal_likelihood(theta + e)
                         - gp.log_marginal_likelihood(theta - e)) / (2 * h) for e in steps])
    np.testing.assert_allclose(grad, central, rtol=1e-6, atol=1e-6)


def test_several_outputs_agree_with_scikit_learn():
    X, y, X_new = data(4, m=3)
    ours = GaussianProcessRegressor(1.5 * Gaussian(sigma=1.0), noise_var=0.1).fit(X, y)
    theirs = SklearnGPR(ConstantKernel(1.5) * RBF(1.0) + WhiteKernel(0.1), alpha=0.0,
                        optimizer=None).fit(X, y)
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), atol=TOL)
    value, grad = ours.log_marginal_likelihood(ours.theta_, eval_gradient=True)
    sk_value, sk_grad = theirs.log_marginal_likelihood(theirs.kernel_.theta, eval_gradient=True)
    assert abs(value - sk_value) < TOL
    np.testing.assert_allclose(grad, sk_grad, rtol=1e-10, atol=TOL)
    assert ours.predict(X_new, return_std=True)[1].shape == (9, 3)
    assert ours.sample_y(X_new, 4, random_state=0).shape == (9, 3, 4)


@pytest.mark.parametrize("noise_var", [1e-4, 0.1, 2.0])
def test_posterior_mean_is_kernel_ridge_with_lam_equal_to_the_noise_variance(noise_var):
    X, y, X_new = data(5)
    kernel = 0.3 + 2.0 * Gaussian(sigma=0.7)
    gp = GaussianProcessRegressor(kernel, noise_var=noise_var).fit(X, y)
    krr = KernelRidge(kernel, lam=noise_var).fit(X, y)
    np.testing.assert_allclose(gp.predict(X_new), krr.predict(X_new), atol=1e-10)
    np.testing.assert_allclose(gp.alpha_, krr.alpha_, atol=1e-10)


def test_posterior_draws_have_the_posterior_mean_and_covariance():
    X, y, _ = data(6, n=15, d=1)
    grid = np.linspace(-2, 2, 6)[:, None]
    gp = GaussianProcessRegressor(Gaussian(sigma=0.8), noise_var=0.05).fit(X, y)
    mean, cov = gp.predict(grid, return_cov=True)
    draws = gp.sample_y(grid, 40000, random_state=0)
    sd = np.sqrt(np.diag(cov))
    # five standard errors of a mean and of a covariance estimated from 40000 draws
    assert np.all(np.abs(draws.mean(axis=1) - mean) < 5 * sd / 200)
    scale = np.sqrt(np.outer(np.diag(cov), np.diag(cov)) + cov ** 2)
    assert np.all(np.abs(np.cov(draws) - cov) < 5 * scale / 200 + 1e-12)
    again = gp.sample_y(grid, 3, random_state=1)
    np.testing.assert_array_equal(again, gp.sample_y(grid, 3, random_state=1))


def test_prior_draws_have_the_kernel_as_covariance():
    grid = np.linspace(0, 3, 5)[:, None]
    kernel = 2.0 * Gaussian(sigma=1.0)
    draws = GaussianProcessRegressor(kernel).sample_prior(grid, 40000, random_state=0)
    K = kernel(grid)
    scale = np.sqrt(np.outer(np.diag(K), np.diag(K)) + K ** 2)
    assert np.all(np.abs(draws.mean(axis=1)) < 5 * np.sqrt(np.diag(K)) / 200)
    assert np.all(np.abs(np.cov(draws) - K) < 5 * scale / 200)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_optimiser_finds_a_stationary_maximum_at_least_as_high_as_scikit_learns(seed):
    X, y, _ = data(seed, n=40)
    start = 1.0 * Gaussian(sigma=1.0)
    gp = GaussianProcessRegressor(start, noise_var=0.5, optimizer="lbfgs", n_restarts=2,
                                  random_state=0).fit(X, y)
    _, grad = gp.log_marginal_likelihood(gp.theta_, eval_gradient=True)
    inside = (gp.theta_ > np.log(1e-5) + 1e-3) & (gp.theta_ < np.log(1e5) - 1e-3)
    assert np.all(np.abs(grad[inside]) < 1e-3)
    fixed = GaussianProcessRegressor(start, noise_var=0.5).fit(X, y)
    assert gp.log_marginal_likelihood_value_ > fixed.log_marginal_likelihood_value_
    theirs = SklearnGPR(ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.5), alpha=0.0,
                        n_restarts_optimizer=2, random_state=0).fit(X, y)
    assert gp.log_marginal_likelihood_value_ > theirs.log_marginal_likelihood_value_ - 1e-6
    assert gp.kernel is start and start.k.sigma == 1.0    # the given kernel is left alone


def test_hyperparameters_are_named_as_the_estimators_parameters():
    kernel = 0.5 + 2.0 * Gaussian(sigma=3.0)
    assert kernel_hyperparameters(kernel) == {"k1__c": 0.5, "k2__c": 2.0, "k2__k__sigma": 3.0}
    gp = GaussianProcessRegressor(kernel, noise_var=0.1).fit(np.zeros((3, 1)) + [[0], [1], [2]],
                                                             [0.0, 1.0, 0.0])
    names = gp.hyperparameter_names_
    assert names == ["kernel__k1__c", "kernel__k2__c", "kernel__k2__k__sigma", "noise_var"]
    params = gp.get_params()
    np.testing.assert_allclose(np.exp(gp.theta_), [params[name] for name in names])


def test_any_kernel_fits_with_fixed_hyperparameters_but_only_known_ones_optimise():
    X, y, X_new = data(7)
    poly = Polynomial(degree=2, c=1.0)
    gp = GaussianProcessRegressor(poly, noise_var=0.5).fit(X, y)
    np.testing.assert_allclose(gp.predict(X_new),
                               KernelRidge(poly, lam=0.5).fit(X, y).predict(X_new), atol=1e-9)
    assert gp.hyperparameter_names_ == []
    with pytest.raises(ValueError, match="Polynomial"):
        gp.log_marginal_likelihood([0.0], eval_gradient=True)
    with pytest.raises(ValueError, match="Polynomial"):
        GaussianProcessRegressor(poly, optimizer="lbfgs").fit(X, y)


def test_bad_input_is_refused_by_name():
    X, y, _ = data(8, n=10)
    with pytest.raises(ValueError, match="noise_var"):
        GaussianProcessRegressor(Gaussian(), noise_var=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="optimizer"):
        GaussianProcessRegressor(Gaussian(), optimizer="adam").fit(X, y)
    with pytest.raises(TypeError, match="kernel"):
        GaussianProcessRegressor("precomputed").fit(X, y)
    with pytest.raises(ValueError, match="increase noise_var"):
        GaussianProcessRegressor(Linear(), noise_var=0.0).fit(X, y)   # rank 3 < 10 points
    with pytest.raises(ValueError, match="start > 0"):
        GaussianProcessRegressor(Constant(0.0) + Gaussian(), optimizer="lbfgs").fit(X, y)
    gp = GaussianProcessRegressor(Gaussian(), noise_var=0.1).fit(X, y)
    with pytest.raises(ValueError, match="theta must have one entry"):
        gp.log_marginal_likelihood([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="return_std and return_cov"):
        gp.predict(X, return_std=True, return_cov=True)
    with pytest.raises(ValueError, match="n_samples"):
        gp.sample_y(X, 0)


@parametrize_with_checks([GaussianProcessRegressor(Gaussian(sigma=1.0), noise_var=0.1)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks([GaussianProcessRegressor(1.0 * Gaussian(sigma=1.0), noise_var=0.1,
                                                   optimizer="lbfgs")])
def test_scikit_learn_estimator_checks_with_the_optimiser(estimator, check):
    """An optimising fit too leaves its parameters alone, refits the same, pickles, ..."""
    check(estimator)
