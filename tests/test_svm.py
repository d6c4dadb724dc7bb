"""Support vector machines: scikit-learn as oracle, primal = dual, KKT, formulation, bad input."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.svm import SVC as SkSVC

from kernlab import (SVC, Gaussian, KernelSVCPrimal, Linear, LinearSVCPrimal, Polynomial,
                     Sigmoid, kkt_report, pivoted_cholesky)

DATASETS = {
    "moons": make_moons(150, noise=0.25, random_state=0),
    "blobs": make_blobs(120, centers=2, cluster_std=2.0, random_state=1),
    "circles": make_circles(140, noise=0.1, factor=0.5, random_state=2),
}

KERNELS = [  # (kernlab kernel, matching scikit-learn arguments)
    (Gaussian(sigma=0.8), dict(kernel="rbf", gamma=1 / (2 * 0.8**2))),
    (Linear(), dict(kernel="linear")),
    (Polynomial(degree=3, c=1.0), dict(kernel="poly", degree=3, coef0=1.0, gamma=1.0)),
]


def _sklearn_alpha(model, n):
    alpha = np.zeros(n)
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    return alpha


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("kernel, sk_args", KERNELS, ids=["gaussian", "linear", "poly3"])
@pytest.mark.parametrize("C", [0.1, 3.0])
def test_dual_matches_scikit_learn(name, kernel, sk_args, C):
    X, y = DATASETS[name]
    ours = SVC(kernel, C=C).fit(X, y)
    ref = SkSVC(C=C, tol=1e-8, **sk_args).fit(X, y)
    ref_alpha = _sklearn_alpha(ref, len(X))
    assert ours.alpha_.shape == (len(X),)
    np.testing.assert_allclose(ours.alpha_, ref_alpha, atol=1e-3 * C)
    # same support vectors, up to coefficients below the tolerance
    big_ours = set(np.flatnonzero(ours.alpha_ > 1e-3 * C))
    big_ref = set(np.flatnonzero(ref_alpha > 1e-3 * C))
    assert big_ours <= set(ref.support_) and big_ref <= set(ours.support_)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-3)
    fresh = np.random.default_rng(5).uniform(X.min(0) - 0.5, X.max(0) + 0.5, (5000, 2))
    agree = np.mean(np.sign(ours.decision_function(fresh)) == np.sign(ref.decision_function(fresh)))
    assert agree >= 0.999



@pytest.mark.parametrize("seed", range(8))
def test_small_C_on_overlapping_classes_matches_scikit_learn(seed):
    """Nearly every multiplier sits at a bound; the intercept comes from the KKT interval."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2))
    y = np.where(rng.random(40) < 0.5, -1, 1)
    C = 10 ** rng.uniform(-3, -1)
    ours = SVC(Gaussian(sigma=1.0), C=C).fit(X, y)
    ref = SkSVC(C=C, kernel="rbf", gamma=0.5, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.alpha_, _sklearn_alpha(ref, len(X)), atol=1e-3 * C)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-3)

def test_labels_come_back_as_given():
    X, y = DATASETS["moons"]
    names = np.where(y == 1, "upper", "lower")
    model = SVC(Gaussian(sigma=1.0), C=1.0).fit(X, names)
    assert model.classes_.tolist() == ["lower", "upper"]
    pred = model.predict(X)
    assert set(pred) <= {"lower", "upper"}
    np.testing.assert_array_equal(pred == "upper", model.decision_function(X) > 0)
    shifted = SVC(Gaussian(sigma=1.0), C=1.0).fit(X, 7 + 3 * y)
    np.testing.assert_allclose(shifted.alpha_, model.alpha_, atol=1e-9)
    np.testing.assert_array_equal(shifted.predict(X), np.where(pred == "upper", 10, 7))
    assert np.mean(shifted.predict(X) == 7 + 3 * y) > 0.8


def test_hard_margin_and_margin():
    X, y = make_blobs(60, centers=2, cluster_std=0.6, random_state=0)
    dual = SVC(Linear(), C=np.inf).fit(X, y)
    primal = LinearSVCPrimal(C=np.inf).fit(X, y)
    w = X.T @ (dual.alpha_ * np.where(y == dual.classes_[1], 1.0, -1.0))
    np.testing.assert_allclose(w, primal.coef_, rtol=1e-6, atol=1e-8)
    assert dual.margin_ == pytest.approx(1 / np.linalg.norm(primal.coef_), rel=1e-6)
    # every training point is on or outside the margin
    t = np.where(y == dual.classes_[1], 1.0, -1.0)
    assert np.min(t * dual.decision_function(X)) >= 1 - 1e-7
    Xm, ym = make_moons(80, noise=0.3, random_state=0)
    with pytest.raises(ValueError, match="not separable"):
        SVC(Linear(), C=np.inf).fit(Xm, ym)
    with pytest.raises(ValueError, match="not linearly separable"):
        LinearSVCPrimal(C=np.inf).fit(Xm, ym)


@pytest.mark.parametrize("C", [0.05, 2.0])
def test_linear_primal_equals_dual(C):
    X, y = DATASETS["blobs"]
    dual = SVC(Linear(), C=C).fit(X, y)
    primal = LinearSVCPrimal(C=C).fit(X, y)
    t = np.where(y == dual.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(X.T @ (t * dual.alpha_), primal.coef_, atol=1e-5)
    assert dual.intercept_ == pytest.approx(primal.intercept_, abs=1e-5)
    # the multipliers of the primal margin constraints are the dual variables
    np.testing.assert_allclose(primal.alpha_, dual.alpha_, atol=1e-5 * max(C, 1))
    np.testing.assert_allclose(primal.slack_, np.maximum(0, 1 - t * primal.decision_function(X)),
                               atol=1e-6)


@pytest.mark.parametrize("lam", [0.01, 0.5])
def test_hinge_primal_equals_dual_with_C_one_over_two_lam(lam):
    X, y = DATASETS["moons"]
    kernel = Gaussian(sigma=0.8)
    primal = KernelSVCPrimal(kernel, lam=lam).fit(X, y)
    dual = SVC(kernel, C=1 / (2 * lam)).fit(X, y)
    fresh = np.random.default_rng(6).uniform(-1.5, 2.5, (500, 2))
    f_primal, f_dual = primal.decision_function(fresh), dual.decision_function(fresh)
    np.testing.assert_allclose(f_primal, f_dual, atol=2e-3)
    assert np.mean(np.sign(f_primal) == np.sign(f_dual)) >= 0.998
    assert primal.intercept_ == pytest.approx(dual.intercept_, abs=2e-3)
    # strong duality under the mapping: primal optimum = 2 lam * dual optimum
    K = kernel(X)
    t = np.where(y == 1, 1.0, -1.0)
    c = primal.coef_
    primal_value = np.maximum(0, 1 - t * (K @ c + primal.intercept_)).sum() + lam * c @ K @ c
    a = dual.alpha_ * t
    dual_value = dual.alpha_.sum() - 0.5 * a @ K @ a
    assert primal_value == pytest.approx(2 * lam * dual_value, rel=1e-6)
    # a different mapping (C = 1/lam) gives a different classifier
    other = SVC(kernel, C=1 / lam).fit(X, y)
    assert np.abs(other.decision_function(fresh) - primal.decision_function(fresh)).max() > 1e-2


def test_kkt_report():
    X, y = DATASETS["moons"]
    model = SVC(Gaussian(sigma=0.8), C=1.0).fit(X, y)
    report = model.kkt_report()
    assert report.worst < 1e-7
    K = Gaussian(sigma=0.8)(X)
    t = np.where(y == 1, 1.0, -1.0)
    i = model.support_[0]
    over = model.alpha_.copy()
    over[i] = 1.5
    perturbed = kkt_report(K, t, over, model.intercept_, 1.0)
    assert perturbed.dual_feasibility == pytest.approx(0.5)
    assert perturbed.stationarity == pytest.approx(1.5 - model.alpha_[i], abs=1e-8)
    shifted = kkt_report(K, t, model.alpha_, model.intercept_ + 0.3, 1.0)
    assert shifted.complementary_slackness > 0.05
    hard = kkt_report(K, t, np.zeros(len(t)), 0.0, np.inf)
    assert hard.primal_feasibility == pytest.approx(1.0)


def test_formulation_uses_a_factor_not_the_dense_matrix(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the dense quadratic form must not be used")
    monkeypatch.setattr(cp, "quad_form", refuse)
    X, y = make_moons(400, noise=0.2, random_state=0)
    model = SVC(Gaussian(sigma=0.5), C=1.0).fit(X, y)
    assert model.rank_ < 150
    assert SVC(Linear(), C=1.0).fit(X, y).rank_ == 2
    assert SVC(Polynomial(degree=2, c=1.0), C=1.0).fit(X, y).rank_ == 6


def test_pivoted_cholesky():
    rng = np.random.default_rng(7)
    B = rng.standard_normal((30, 4))
    F = pivoted_cholesky(B @ B.T, tol=1e-12)
    assert F.shape == (30, 4)
    np.testing.assert_allclose(F @ F.T, B @ B.T, atol=1e-10)
    K = Gaussian(sigma=1.0)(rng.standard_normal((200, 2)))
    F = pivoted_cholesky(K, tol=1e-6)
    assert F.shape[1] < 200 and np.abs(F @ F.T - K).max() <= 1e-6
    with pytest.raises(ValueError, match="not positive semi-definite"):
        pivoted_cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="not positive semi-definite"):
        pivoted_cholesky(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="symmetric"):
        pivoted_cholesky(np.array([[1.0, 0.5], [0.0, 1.0]]))


# ---------------------------------------------------------------- bad input
def test_bad_input_is_refused():
    X, y = DATASETS["moons"]
    with pytest.raises(ValueError, match="exactly two distinct values"):
        SVC(Linear(), C=1.0).fit(X, np.arange(len(X)) % 3)
    with pytest.raises(ValueError, match="exactly two distinct values"):
        SVC(Linear(), C=1.0).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="y contains NaN"):
        SVC(Linear(), C=1.0).fit(X, np.where(np.arange(len(X)) == 3, np.nan, y))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        SVC(Linear(), C=1.0).fit(bad, y)
    with pytest.raises(ValueError, match="C must be > 0"):
        SVC(Linear(), C=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="C must be > 0"):
        SVC(Linear(), C=0.0).fit(X, y)
    with pytest.raises(ValueError, match="y has 149 labels but X has 150"):
        SVC(Linear(), C=1.0).fit(X, y[:-1])
    with pytest.raises(ValueError, match="2-D"):
        SVC(Linear(), C=1.0).fit(X[:, 0], y)
    with pytest.raises(ValueError, match="lam must be >= 0"):
        KernelSVCPrimal(Linear(), lam=-1.0).fit(X, y)


def test_non_psd_kernel_is_refused():
    X, y = DATASETS["moons"]
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC(Sigmoid(a=2.0, c=-1.0), C=1.0).fit(X, y)
    K = Sigmoid(a=2.0, c=-1.0)(X)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC("precomputed", C=1.0).fit(K, y)
