"""Ridge family: primal = dual, kernel ridge against scikit-learn, intercepts, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from kernlab import (BasisRidge, Gaussian, KernelRidge, Linear, NystroemKernelRidge,
                     Polynomial, Precomputed, RandomFeatureRidge, Ridge, Sigmoid, ridge_flops)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = X @ rng.standard_normal(5) + 0.3 * rng.standard_normal(40) + 2.0
    X_test = rng.standard_normal((15, 5))
    return X, y, X_test


# ---------------------------------------------------------------- linear ridge
@pytest.mark.parametrize("shape", [(40, 5), (8, 30)])
def test_primal_and_dual_give_the_same_weights(shape):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal(shape), rng.standard_normal(shape[0])
    primal = Ridge(lam=0.7, solver="primal").fit(X, y)
    dual = Ridge(lam=0.7, solver="dual").fit(X, y)
    np.testing.assert_allclose(primal.coef_, dual.coef_, rtol=1e-10, atol=1e-12)
    # the primal recovers alpha = (y - X w) / lam, equal to the dual solve
    np.testing.assert_allclose(primal.alpha_, dual.alpha_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dual.coef_, X.T @ dual.alpha_, atol=1e-12)


def test_auto_solver_follows_the_cost_model():
    rng = np.random.default_rng(2)
    tall, wide = rng.standard_normal((200, 3)), rng.standard_normal((5, 400))
    assert Ridge(lam=1.0).fit(tall, tall[:, 0]).solver_ == "primal"
    assert Ridge(lam=1.0).fit(wide, wide[:, 0]).solver_ == "dual"


def test_cost_model_counts():
    cost = ridge_flops(100, 10)
    # n d^2 + 2 n d + d^3/3 + 2 d^2  and  n^2 d + n^3/3 + 2 n^2 + 2 n d
    assert cost["primal"] == pytest.approx(100 * 100 + 2000 + 1000 / 3 + 200)
    assert cost["dual"] == pytest.approx(100_000 + 1e6 / 3 + 20_000 + 2000)
    assert ridge_flops(10, 1000)["dual"] < ridge_flops(10, 1000)["primal"]


def test_intercept_by_centring_matches_scikit_learn(data):
    X, y, X_test = data
    ours = Ridge(lam=0.5, fit_intercept=True).fit(X, y)
    ref = SkRidge(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-10)
    assert ours.intercept_ == pytest.approx(ref.intercept_, abs=1e-10)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), atol=1e-10)


# ---------------------------------------------------------------- kernel ridge
def test_kernel_ridge_with_linear_kernel_equals_primal_ridge(data):
    X, y, X_test = data
    kernel = KernelRidge(Linear(), lam=0.3).fit(X, y)
    primal = Ridge(lam=0.3, solver="primal").fit(X, y)
    np.testing.assert_allclose(kernel.predict(X_test), primal.predict(X_test), atol=1e-10)
    np.testing.assert_allclose(X.T @ kernel.alpha_, primal.coef_, atol=1e-10)


@pytest.mark.parametrize("sigma, lam", [(0.7, 1e-3), (1.5, 0.1), (3.0, 2.0)])
def test_kernel_ridge_matches_scikit_learn(data, sigma, lam):
    X, y, X_test = data
    ours = KernelRidge(Gaussian(sigma=sigma), lam=lam).fit(X, y)
    ref = SkKernelRidge(alpha=lam, kernel="rbf", gamma=1 / (2 * sigma**2)).fit(X, y)
    np.testing.assert_allclose(ours.alpha_, ref.dual_coef_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-8, atol=1e-8)


def test_kernel_ridge_several_outputs(data):
    X, y, X_test = data
    Y = np.column_stack([y, np.sin(y), -y])
    multi = KernelRidge(Polynomial(degree=2, c=1.0), lam=0.5).fit(X, Y)
    assert multi.alpha_.shape == (40, 3)
    for j in range(3):
        single = KernelRidge(Polynomial(degree=2, c=1.0), lam=0.5).fit(X, Y[:, j])
        np.testing.assert_allclose(multi.predict(X_test)[:, j], single.predict(X_test),
                                   atol=1e-10)
    ref = SkKernelRidge(alpha=0.5, kernel="poly", degree=2, coef0=1.0, gamma=1.0).fit(X, Y)
    np.testing.assert_allclose(multi.alpha_, ref.dual_coef_, rtol=1e-8, atol=1e-8)


def test_precomputed_kernels(data):
    X, y, X_test = data
    k = Gaussian(sigma=1.2)
    direct = KernelRidge(k, lam=0.2).fit(X, y)
    by_matrix = KernelRidge("precomputed", lam=0.2).fit(k(X), y)
    np.testing.assert_allclose(by_matrix.alpha_, direct.alpha_, atol=1e-12)
    np.testing.assert_allclose(by_matrix.predict(k(X_test, X)), direct.predict(X_test),
                               atol=1e-12)
    pool = Precomputed(k(np.vstack([X, X_test])))
    idx = pool.points
    by_index = KernelRidge(pool, lam=0.2).fit(idx[:40], y)
    np.testing.assert_allclose(by_index.predict(idx[40:]), direct.predict(X_test), atol=1e-10)
    with pytest.raises(ValueError, match="square Gram matrix"):
        KernelRidge("precomputed", lam=0.2).fit(X, y)


def test_centring_equals_semiparametric_constant(data):
    X, y, X_test = data
    k = Gaussian(sigma=1.0)
    centred = KernelRidge(k, lam=0.4, fit_intercept=True).fit(X, y)
    semi = KernelRidge(k, lam=0.4, basis=lambda Z: np.ones((len(Z), 1))).fit(X, y)
    np.testing.assert_allclose(centred.alpha_, semi.alpha_, atol=1e-10)
    assert centred.intercept_ == pytest.approx(semi.basis_coef_[0], abs=1e-10)
    np.testing.assert_allclose(centred.predict(X_test), semi.predict(X_test), atol=1e-10)
    # with the linear kernel both are ridge with an unpenalised intercept
    lin = KernelRidge(Linear(), lam=0.4, fit_intercept=True).fit(X, y)
    np.testing.assert_allclose(lin.predict(X_test),
                               SkRidge(alpha=0.4).fit(X, y).predict(X_test), atol=1e-10)


def test_semiparametric_fit_solves_the_penalised_problem(data):
    """With K = Phi Phi^T explicit, the fit is ridge with unpenalised columns Psi."""
    X, y, X_test = data
    basis = lambda Z: np.column_stack([np.ones(len(Z)), Z[:, 0], Z[:, 1] ** 2])  # noqa: E731
    semi = KernelRidge(Linear(), lam=0.8, basis=basis).fit(X, y)
    Psi = basis(X)
    np.testing.assert_allclose(Psi.T @ semi.alpha_, 0.0, atol=1e-10)
    # normal equations of min ||y - X w - Psi b||^2 + lam ||w||^2
    A = np.hstack([X, Psi])
    M = A.T @ A
    M[:5, :5] += 0.8 * np.eye(5)
    coef = np.linalg.solve(M, A.T @ y)
    np.testing.assert_allclose(semi.predict(X_test), np.hstack([X_test, basis(X_test)]) @ coef,
                               atol=1e-9)
    with pytest.raises(ValueError, match="linearly independent"):
        KernelRidge(Linear(), lam=1.0, basis=lambda Z: np.ones((len(Z), 2))).fit(X, y)


# ---------------------------------------------------------------- basis ridge
def test_basis_ridge_with_identity_gram_is_the_dual_form(data):
    X, y, _ = data
    basis = lambda Z: np.hstack([Z, Z**2, np.ones((len(Z), 1))])  # noqa: E731
    A = basis(X)
    w = BasisRidge(basis, lam=0.6).fit(X, y).coef_
    dual = A.T @ np.linalg.solve(A @ A.T + 0.6 * np.eye(len(X)), y)
    np.testing.assert_allclose(w, dual, atol=1e-10)


def test_basis_ridge_with_a_gram_matrix_is_stationary(data):
    X, y, X_test = data
    rng = np.random.default_rng(3)
    B = rng.standard_normal((5, 5))
    G = B @ B.T + 0.1 * np.eye(5)
    model = BasisRidge(lam=0.9, gram=G).fit(X, y)
    gradient = X.T @ (X @ model.coef_ - y) + 0.9 * G @ model.coef_
    np.testing.assert_allclose(gradient, 0.0, atol=1e-9)
    assert not np.allclose(model.coef_, BasisRidge(lam=0.9).fit(X, y).coef_)
    with pytest.raises(ValueError, match="gram must have shape"):
        BasisRidge(lam=1.0, gram=np.eye(3)).fit(X, y)


# ---------------------------------------------------------------- approximations
def test_nystroem_with_all_points_is_exact(data):
    X, y, X_test = data
    k = Gaussian(sigma=2.0)
    exact = KernelRidge(k, lam=0.5).fit(X, y)
    approx = NystroemKernelRidge(k, lam=0.5, n_components=len(X), random_state=0).fit(X, y)
    np.testing.assert_allclose(approx.predict(X_test), exact.predict(X_test), atol=1e-6)


@pytest.mark.slow   # a solver on a hard problem: seconds
def test_random_features_approach_gaussian_kernel_ridge():
    rng = np.random.default_rng(4)
    X = rng.uniform(-2, 2, (300, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1])
    X_test = rng.uniform(-2, 2, (100, 2))
    exact = KernelRidge(Gaussian(sigma=1.0), lam=0.1).fit(X, y).predict(X_test)
    rff = RandomFeatureRidge(sigma=1.0, lam=0.1, n_components=3000, random_state=0)
    err = np.abs(rff.fit(X, y).predict(X_test) - exact).max()
    few = RandomFeatureRidge(sigma=1.0, lam=0.1, n_components=20, random_state=0)
    assert err < 0.05
    assert err < np.abs(few.fit(X, y).predict(X_test) - exact).max()


# ---------------------------------------------------------------- scikit-learn API
def test_scikit_learn_model_selection_accepts_the_estimators(data):
    X, y, _ = data
    cv = KFold(4, shuffle=True, random_state=0)
    scores = cross_val_score(KernelRidge(Gaussian(sigma=2.0), lam=0.1), X, y, cv=cv)
    assert scores.shape == (4,) and np.all(scores > 0.5)
    search = GridSearchCV(KernelRidge(Gaussian(sigma=2.0)), {"lam": [1e-2, 1e4]}, cv=cv)
    assert search.fit(X, y).best_params_ == {"lam": 1e-2}


REGRESSORS = [
    Ridge(lam=0.5, fit_intercept=True, solver="dual"),
    BasisRidge(lam=0.5),
    KernelRidge(Gaussian(sigma=2.0), lam=0.1, fit_intercept=True),
    NystroemKernelRidge(Gaussian(sigma=2.0), lam=0.1, n_components=20, random_state=0),
    RandomFeatureRidge(sigma=2.0, lam=0.1, n_components=100, random_state=0),
]


@pytest.mark.parametrize("estimator", REGRESSORS, ids=lambda e: type(e).__name__)
def test_estimator_conventions(data, estimator):
    X, y, X_test = data
    params = estimator.get_params()
    fresh = clone(estimator)
    assert repr(fresh.get_params()) == repr(params) and not hasattr(fresh, "intercept_")
    with pytest.raises(NotFittedError):
        fresh.predict(X_test)
    assert fresh.fit(X, y) is fresh
    assert repr(fresh.get_params()) == repr(params)  # fit leaves the parameters alone
    fitted = [name for name in vars(fresh) if name not in params]
    assert fitted and all(name.endswith("_") for name in fitted), fitted
    changed = clone(estimator).set_params(lam=1e3)
    assert changed.lam == 1e3
    assert not np.allclose(changed.fit(X, y).predict(X_test), fresh.predict(X_test))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("make", [lambda: Ridge(lam=-1.0), lambda: KernelRidge(Linear(), lam=-0.1),
                                  lambda: BasisRidge(lam=-2.0)])
def test_negative_lam_is_refused(data, make):
    X, y, _ = data
    with pytest.raises(ValueError, match="lam must be >= 0"):
        make().fit(X, y)


@pytest.mark.parametrize("make", [lambda: Ridge(lam=np.inf), lambda: KernelRidge(Linear(), lam=np.inf),
                                  lambda: BasisRidge(lam=np.nan)])
def test_infinite_or_nan_lam_is_refused(data, make):
    X, y, _ = data
    with pytest.raises(ValueError, match="lam must be"):
        make().fit(X, y)


def test_nan_and_shapes_are_refused(data):
    X, y, _ = data
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        KernelRidge(Linear(), lam=1.0).fit(bad, y)
    with pytest.raises(ValueError, match="y contains NaN"):
        Ridge(lam=1.0).fit(X, np.where(np.arange(40) == 5, np.nan, y))
    with pytest.raises(ValueError, match="y has 39 rows but X has 40"):
        KernelRidge(Linear(), lam=1.0).fit(X, y[:-1])
    with pytest.raises(ValueError, match="2-D"):
        Ridge(lam=1.0).fit(X[:, 0], y)
    with pytest.raises(ValueError, match="features"):
        Ridge(lam=1.0).fit(X, y).predict(X[:, :3])
    with pytest.raises(ValueError, match="solver"):
        Ridge(lam=1.0, solver="qr").fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but KernelRidge is expecting 5 features"):
        KernelRidge(Gaussian(), lam=1.0).fit(X, y).predict(X[:, :3])
    with pytest.raises(ValueError, match="gram must be positive semi-definite"):
        BasisRidge(lam=1.0, gram=np.diag([1.0, 1.0, -0.5, 1.0, 1.0])).fit(X, y)


def test_singular_system_is_an_error_not_a_fallback(data):
    X, y, _ = data
    repeated = np.vstack([X, X[:3]])
    with pytest.raises(ValueError, match="not positive definite"):
        KernelRidge(Linear(), lam=0.0).fit(repeated, np.append(y, y[:3]))
    # an indefinite "kernel" with a small lam: K + lam I is indefinite
    with pytest.raises(ValueError, match="K \\+ lam I is not positive definite"):
        KernelRidge(Sigmoid(a=1.0, c=-1.0), lam=1e-3).fit(X, y)
