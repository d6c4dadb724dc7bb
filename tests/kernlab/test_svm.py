"""Support vector machines: scikit-learn as oracle, primal = dual, KKT, formulation, bad input."""

import re

import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.svm import SVC as SkSVC
from sklearn.svm import SVR as SkSVR

from kernlab import (SVC, SVR, Gaussian, KernelRidge, KernelSVCPrimal, Linear, LinearSVCPrimal,
                     Polynomial, Sigmoid, Spectrum, kkt_report, pivoted_cholesky)

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


def _assert_agrees_with_libsvm(ours, ref, K, C, atol, objective_rtol=1e-10):
    """kernlab's answer against LIBSVM's, with LIBSVM's own error allowed for.

    LIBSVM keeps Q in float32 (its kernel cache), so at a large C its answer
    misses the KKT conditions by up to 1e-3 in exact arithmetic (linear kernel
    at C = 100, two moons at C = 1000): kernlab's KKT violation (checked with
    the exact K) is at most 1e-5, its dual objective at most LIBSVM's, and the
    decision values agree within ``atol``.
    """
    from kernlab.svm_dual import kkt_gap

    t = ours.t_
    alpha = _sklearn_alpha(ref, len(t))
    g_ours, g_ref = K @ (t * ours.alpha_), K @ (t * alpha)

    def objective(a, g):
        return 0.5 * (t * a) @ g - a.sum()

    assert kkt_gap(g_ours, t, ours.alpha_, C) <= 1e-5
    assert objective(ours.alpha_, g_ours) <= objective(alpha, g_ref) + objective_rtol * abs(
        objective(alpha, g_ref))
    np.testing.assert_allclose(g_ours + ours.intercept_, g_ref + ref.intercept_[0], atol=atol)


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


def test_strings_with_a_string_kernel():
    words = ["abab", "baba", "aaaa", "abba", "bbbb", "aabb", "baab", "abaa", "bbab", "aaba"]
    y = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 0])
    kernel = Spectrum(p=2)
    model = SVC(kernel, C=1.0).fit(words, y)
    K = kernel(words)
    ref = SkSVC(kernel="precomputed", C=1.0, tol=1e-10).fit(K, y)
    # K has rank 4 (four 2-grams), so alpha is not unique: compare the optimum and f
    t = np.where(y == 1, 1.0, -1.0)

    def dual_value(alpha):
        return alpha.sum() - 0.5 * (t * alpha) @ K @ (t * alpha)

    assert dual_value(model.alpha_) == pytest.approx(dual_value(_sklearn_alpha(ref, 10)),
                                                     abs=1e-6)
    new = ["abab", "bbbb", "abbb", "aab"]
    np.testing.assert_allclose(model.decision_function(new),
                               ref.decision_function(kernel(new, words)), atol=1e-4)
    assert model.predict(new).tolist() == ref.predict(kernel(new, words)).tolist()
    assert model.kkt_report().worst < 1e-7


@pytest.mark.slow   # a solver on a hard problem: seconds
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
    # separable in exact arithmetic, but this wide Gaussian's Gram matrix is singular to
    # working precision: an error, never a "hard-margin" classifier that breaks its margin
    Xw, yw = make_moons(100, noise=0.3, random_state=1)
    with pytest.raises(ValueError, match="not separable") as refused:
        SVC(Gaussian(sigma=2.0), C=np.inf).fit(Xw, yw)
    # The verdict rests on the size of the multipliers, not on the path to them: the
    # hard-margin answer has sum(alpha) = 1 / margin^2 of about 3e10, so its decision
    # values carry rounding errors far above the tolerance, whatever the steps.
    total = re.search(r"\(sum ([0-9.e+]+)\).*rounding errors of about", str(refused.value))
    assert total is not None and float(total.group(1)) > 1e10, str(refused.value)


_WIDE_GAUSSIAN_HARD_MARGIN = """
import numpy as np
from sklearn.datasets import make_moons
from kernlab import SVC, Gaussian
X, y = make_moons(100, noise=0.3, random_state=1)
try:
    SVC(Gaussian(sigma=2.0), C=np.inf).fit(X, y)
    print("fitted")
except ValueError as exc:
    print("refused" if "not separable" in str(exc) else str(exc))
"""


@pytest.mark.slow
@pytest.mark.parametrize("core", ["Prescott", "Nehalem", "SandyBridge", "Haswell", "SkylakeX"])
def test_the_hard_margin_refusal_does_not_depend_on_the_blas_kernels(core):
    """The wide Gaussian's hard margin is refused with every OpenBLAS kernel.

    A machine with another CPU runs other BLAS kernels, which round
    differently; judged by the violation alone, the same fit was accepted on
    some and refused on others.  Each OpenBLAS core type (the kernels of
    another CPU) runs in a fresh process.
    """
    import os
    import subprocess
    import sys

    from threadpoolctl import threadpool_info

    if not any(info.get("internal_api") == "openblas" for info in threadpool_info()):
        pytest.skip("numpy does not use OpenBLAS here")
    # a core type's kernels use its CPU's instructions: SkylakeX's AVX-512 dies with
    # SIGILL on a CPU without them
    needs = {"Haswell": "avx2", "SkylakeX": "avx512f"}.get(core)
    if needs and needs not in open("/proc/cpuinfo").read().split():
        pytest.skip(f"this CPU has no {needs}, which OpenBLAS's {core} kernels use")
    env = dict(os.environ, OPENBLAS_CORETYPE=core)
    out = subprocess.run([sys.executable, "-c", _WIDE_GAUSSIAN_HARD_MARGIN], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "refused", out.stdout + out.stderr


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


def _largest_constant(problem):
    """Shape of the biggest constant or parameter (by entries) inside a CVXPY problem."""
    return max((c.shape for c in problem.constants() + problem.parameters()),
               key=lambda shape: np.prod(shape))


def test_formulation_uses_a_factor_not_the_dense_matrix(monkeypatch):
    n = 400
    X, y = make_moons(n, noise=0.2, random_state=0)
    # the check itself: the textbook formulation carries a dense n x n constant
    t = np.where(y == 1, 1.0, -1.0)
    a = cp.Variable(n)
    textbook = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(
        a, cp.psd_wrap(Gaussian(sigma=0.5)(X) * np.outer(t, t)))), [a >= 0, a <= 1, t @ a == 0])
    assert _largest_constant(textbook) == (n, n)

    seen = []
    solve = cp.Problem.solve

    def spy(problem, *args, **kwargs):
        seen.append(_largest_constant(problem))
        return solve(problem, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("a Gram matrix must not be declared PSD by wrapping it")

    monkeypatch.setattr(cp.Problem, "solve", spy)
    monkeypatch.setattr(cp, "psd_wrap", refuse)
    model = SVC(Gaussian(sigma=0.5), C=1.0).fit(X, y)
    assert model.method_ == "working-set" and seen
    # a working set's QP holds the triangle of its 64 x 64 factor (a parameter,
    # scattered into the triangle by a constant 64^2 x 2080 matrix), nothing of size n
    assert all(n not in shape and max(shape) <= 64**2 for shape in seen), seen
    seen.clear()
    KernelSVCPrimal(Gaussian(sigma=0.5), lam=0.5).fit(X[:200], y[:200])
    # every other constant is a thin n x r factor, never the n x n Gram matrix
    assert len(seen) == 1 and len(seen[0]) == 2 and seen[0][0] != seen[0][1], seen
    assert SVC(Linear(), C=1.0).fit(X, y).rank_ == 2
    assert SVC(Polynomial(degree=2, c=1.0), C=1.0).fit(X, y).rank_ == 6
    assert seen[-1] in ((n, 6), (6, n))


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


@pytest.mark.parametrize("max_rank", [None, 5, 400])
def test_lapack_and_column_pivoted_cholesky_agree(max_rank, monkeypatch):
    """Up to LAPACK_PIVOTED_MAX points dpstrf factors K: the F of the column loop."""
    from kernlab import gram
    from kernlab._columns import Gram

    X = np.random.default_rng(3).standard_normal((300, 2))
    columns = Gram(Gaussian(sigma=0.7), X)
    assert columns.n <= gram.LAPACK_PIVOTED_MAX
    by_lapack = gram.pivoted_cholesky_columns(columns, 1e-8, True, max_rank)
    monkeypatch.setattr(gram, "LAPACK_PIVOTED_MAX", 0)
    by_columns = gram.pivoted_cholesky_columns(columns, 1e-8, True, max_rank)
    if max_rank == 5:  # the rank is far above 5: both say so
        assert by_lapack is None and by_columns is None
        return
    assert 5 < by_lapack.shape[1] < 300 and by_lapack.shape == by_columns.shape
    np.testing.assert_allclose(by_lapack, by_columns, atol=1e-9)
    K = columns.full()
    assert np.abs(by_lapack @ by_lapack.T - K).max() <= 1e-8
    # not PSD: refused on either path, naming the negative pivot
    bad = K - 0.05 * np.outer(X[:, 0], X[:, 0])
    for limit in (0, 600):
        monkeypatch.setattr(gram, "LAPACK_PIVOTED_MAX", limit)
        with pytest.raises(ValueError, match="negative pivot"):
            pivoted_cholesky(bad, tol=1e-8)


# ---------------------------------------------------------------- scikit-learn API
@pytest.mark.parametrize("estimator", [SVC(Gaussian(sigma=1.0), C=2.0), LinearSVCPrimal(C=2.0),
                                       KernelSVCPrimal(Gaussian(sigma=1.0), lam=0.25)],
                         ids=lambda e: type(e).__name__)
def test_classifier_conventions(estimator):
    X, y = DATASETS["moons"]
    labels = np.where(y == 1, "up", "down")
    params = estimator.get_params()
    fresh = clone(estimator)
    with pytest.raises(NotFittedError):
        fresh.predict(X)
    with pytest.raises(NotFittedError):
        fresh.decision_function(X)
    assert fresh.fit(X, labels) is fresh and repr(fresh.get_params()) == repr(params)
    fitted = [name for name in vars(fresh) if name not in params]
    assert fitted and all(name.endswith("_") for name in fitted), fitted
    scores = cross_val_score(clone(estimator), X, labels, cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all(scores > 0.75)


def test_grid_search_cv_tunes_C_and_the_kernel():
    X, y = DATASETS["circles"]
    grid = {"C": [0.01, 10.0], "kernel": [Linear(), Gaussian(sigma=0.5)]}
    search = GridSearchCV(SVC(Linear()), grid, cv=KFold(3, shuffle=True, random_state=0))
    search.fit(X, y)
    assert search.best_params_["C"] == 10.0 and isinstance(search.best_params_["kernel"], Gaussian)
    assert search.best_score_ > 0.9


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
    with pytest.raises(ValueError, match="X has 3 features, but SVC is expecting 2 features"):
        SVC(Gaussian(), C=1.0).fit(X, y).predict(np.zeros((4, 3)))


@pytest.mark.parametrize("make", [lambda: SVC(Gaussian(), C=1.0), lambda: LinearSVCPrimal(C=1.0),
                                  lambda: KernelSVCPrimal(Gaussian(), lam=0.5)],
                         ids=["SVC", "LinearSVCPrimal", "KernelSVCPrimal"])
@pytest.mark.parametrize("labels", [lambda n: [1 if i % 2 else "a" for i in range(n)],
                                    lambda n: np.array([1 if i % 2 else "a" for i in range(n)],
                                                       dtype=object)],
                         ids=["list", "object array"])
def test_labels_mixing_strings_and_numbers_are_refused_naming_y(make, labels):
    X, _ = DATASETS["moons"]
    with pytest.raises(ValueError, match=r"^y mixes strings and numbers \(e.g. 'a' and 1\)"):
        make().fit(X, labels(len(X)))


@pytest.mark.parametrize("make", [lambda: SVC("precomputed"), lambda: SVR("precomputed"),
                                  lambda: KernelRidge("precomputed", lam=0.1)],
                         ids=["SVC", "SVR", "KernelRidge"])
def test_an_asymmetric_precomputed_matrix_is_reported_as_not_symmetric(make):
    X, y = DATASETS["moons"]
    K = Gaussian(sigma=1.0)(X)
    K[3, 7] += 0.25
    with pytest.raises(ValueError, match=r"X must be a symmetric Gram matrix .* "
                                         r"X\[3, 7\] = [0-9.]+ and X\[7, 3\] = [0-9.]+"):
        make().fit(K, y)
    # a user's kernel function that is not symmetric is named too
    with pytest.raises(ValueError, match="not symmetric: the kernel must be a symmetric"):
        SVC(lambda A, B=None: Gaussian(sigma=1.0)(A, B) + (A[:, :1] if B is None else 0.0),
            C=1.0).fit(X, y)


def test_a_float32_gram_matrix_is_accepted_and_matches_libsvm():
    """A Gram matrix computed in float32 has eigenvalues down to about n eps32 below zero:
    accepted (as scikit-learn's checks pass it), and the answer is LIBSVM's on it."""
    X, y = DATASETS["moons"]
    K = Gaussian(sigma=0.8)(X).astype(np.float32)
    assert np.linalg.eigvalsh(K.astype(np.float64))[0] < -1e-10  # not PSD as float64
    for given in (K, K.astype(np.float64), K.tolist()):  # float32 numbers, however given
        ours = SVC("precomputed", C=3.0).fit(given, y)
        ref = SkSVC(kernel="precomputed", C=3.0, tol=1e-8).fit(K.astype(np.float64), y)
        np.testing.assert_allclose(ours.alpha_, _sklearn_alpha(ref, len(y)), atol=1e-3 * 3.0)
        np.testing.assert_allclose(ours.decision_function(K), ref.decision_function(K),
                                   atol=1e-3)
    # a matrix that is not PSD beyond float32's rounding is still refused
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC("precomputed").fit((K - 1e-3 * np.eye(len(y), dtype=np.float32)), y)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("make", [lambda: SVC(kernel="precomputed"),
                                  lambda: SVR(kernel="precomputed")], ids=["SVC", "SVR"])
def test_a_complex_gram_matrix_is_refused_naming_X_without_a_warning(make):
    K = np.eye(4) + 0j
    with pytest.raises(ValueError, match="Complex data not supported: X"):
        make().fit(K, [0, 0, 1, 1])


@pytest.mark.slow
def test_messages_print_C_as_it_was_given():
    X, y = make_blobs(40, centers=2, cluster_std=3.0, random_state=3)
    with pytest.raises(ValueError, match=r"^the SVM dual with C=0\.1 could not be solved"):
        SVC(Linear(), C=0.1).fit(X * 1e7, y)


def test_non_psd_kernel_is_refused():
    X, y = DATASETS["moons"]
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC(Sigmoid(a=2.0, c=-1.0), C=1.0).fit(X, y)
    K = Sigmoid(a=2.0, c=-1.0)(X)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC("precomputed", C=1.0).fit(K, y)
    # nearly linear: its most negative eigenvalue is only -8e-6 of the largest,
    # far below the QP's factor tolerance, and it is still refused
    faint = Sigmoid(a=0.003, c=0.0)
    assert np.linalg.eigvalsh(faint(X))[0] < 0
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC(faint, C=1.0).fit(X, y)
    # a valid Gram matrix minus a rank-one term of 1e-7 of its norm
    G = Gaussian(sigma=0.8)(X)
    u = np.random.default_rng(8).standard_normal(len(X))
    dented = G - 1e-7 * np.linalg.norm(G, 2) * np.outer(u, u) / (u @ u)
    assert np.linalg.eigvalsh(dented)[0] < 0
    with pytest.raises(ValueError, match="not positive semi-definite"):
        SVC("precomputed", C=1.0).fit(dented, y)
    # while the valid one is accepted, with the same factor rank as the kernel itself
    by_matrix = SVC("precomputed", C=1.0).fit(G, y)
    direct = SVC(Gaussian(sigma=0.8), C=1.0).fit(X, y)
    assert by_matrix.rank_ == direct.rank_
    np.testing.assert_allclose(by_matrix.alpha_, direct.alpha_, atol=1e-9)


# ------------------------------------------------------- no silent wrong answer
def _separable(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[y == 1] += 0.5
    X[y == 0] -= 0.5
    return X, y


@pytest.mark.parametrize("C", [1e4, 1e6, 1e8, 1e10])
@pytest.mark.parametrize("kernel, sk_args", KERNELS[:2], ids=["gaussian", "linear"])
def test_large_finite_C_on_separable_data_gives_the_hard_margin_answer(C, kernel, sk_args):
    X, y = _separable()
    hard = SVC(kernel, C=np.inf).fit(X, y)
    ours = SVC(kernel, C=C).fit(X, y)
    # every hard-margin multiplier is below C, so the soft problem has the same solution
    assert hard.alpha_.max() < C
    np.testing.assert_allclose(ours.alpha_, hard.alpha_, rtol=0, atol=1e-7 * hard.alpha_.max())
    assert ours.intercept_ == pytest.approx(hard.intercept_, abs=1e-7)
    assert np.all(ours.predict(X) == y)
    margins = np.where(y == 1, 1, -1) * ours.decision_function(X)
    assert margins.min() >= 1 - 1e-7
    np.testing.assert_allclose(margins[ours.support_], 1.0, atol=1e-7)
    ref = SkSVC(C=C, tol=1e-8, **sk_args).fit(X, y)
    np.testing.assert_allclose(ours.alpha_, _sklearn_alpha(ref, len(X)),
                               atol=1e-3 * hard.alpha_.max())
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-3)


@pytest.mark.parametrize("C", [1e6, 1e10])
def test_linear_primal_with_very_large_C_on_separable_data(C):
    X, y = _separable()
    ours = LinearSVCPrimal(C=C).fit(X, y)
    ref = SkSVC(kernel="linear", C=C, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_[0], rtol=1e-4)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-4)
    np.testing.assert_array_equal(ours.slack_, 0.0)


def test_a_dual_answer_that_fails_the_kkt_check_is_refused(monkeypatch):
    """Whatever the solver returns, fit checks the KKT conditions with the exact K."""
    from kernlab import svm_dual

    X, y = DATASETS["moons"]
    monkeypatch.setattr(svm_dual, "_solve_factored", lambda F, qp, C: np.zeros(F.shape[0]))
    monkeypatch.setattr(svm_dual.WorkingSetDual, "run", lambda self, eps, max_steps=None: 1.0)
    with pytest.raises(ValueError, match="violates the KKT conditions"):
        SVC(Gaussian(sigma=1.0), C=1.0).fit(X, y)


@pytest.mark.slow   # a solver on a hard problem: seconds
def test_small_C_with_more_of_one_class_matches_libsvm():
    # A small C puts nearly every multiplier at C; with 45 points of one class
    # and 48 of the other the optimal face is degenerate, and the factored QP's
    # interior-point answer misses it. fit must still return LIBSVM's classifier.
    X, y = DATASETS["circles"]
    _, (train, _) = list(KFold(3, shuffle=True, random_state=0).split(X))[:2]
    X, y = X[train], y[train]
    assert sorted(np.unique(y, return_counts=True)[1]) == [45, 48]
    ours = SVC(Linear(), C=0.01).fit(X, y)
    ref = SkSVC(kernel="linear", C=0.01, tol=1e-10).fit(X, y)
    # the optimal multipliers are not unique here; the decision function is
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-5)


@pytest.mark.parametrize("make", [lambda k: SVC(k), lambda k: KernelSVCPrimal(k)],
                         ids=["SVC", "KernelSVCPrimal"])
def test_a_kernel_class_instead_of_an_instance_is_named(make):
    X, y = DATASETS["moons"]
    with pytest.raises(TypeError, match="got the class Gaussian itself"):
        make(Gaussian).fit(X, y)


# ------------------------------------------------------- full rank: working sets
def _full_rank(n=300, seed=0):
    from sklearn.datasets import make_classification

    return make_classification(n, n_features=20, n_informative=10, random_state=seed)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_full_rank_gram_is_solved_by_working_sets_and_matches_libsvm(C):
    X, y = _full_rank()
    kernel = Gaussian(sigma=np.sqrt(20.0) / 2)
    ours = SVC(kernel, C=C).fit(X, y)
    assert ours.method_ == "working-set" and ours.rank_ is None
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * kernel.sigma**2), tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.alpha_, _sklearn_alpha(ref, len(X)), atol=1e-3 * C)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-3)
    # KKT conditions of the whole problem with the exact K
    report = ours.kkt_report()
    assert report.worst <= 1e-5 * max(C, 1.0)
    assert report.stationarity <= 1e-9 * C


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_large_factored_qp_is_solved_on_a_shrinking_subset(C, monkeypatch):
    """Above SHRINK_MIN points the factored QP starts on a subset; LIBSVM's answer."""
    from kernlab import svm_dual

    X, y = make_blobs(3000, centers=2, cluster_std=2.0, random_state=3)
    sizes = []
    whole = svm_dual._factored_qp

    def counted(F, *args):
        sizes.append(F.shape[0])
        return whole(F, *args)

    monkeypatch.setattr(svm_dual, "_factored_qp", counted)
    ours = SVC(Linear(), C=C).fit(X, y)
    assert ours.method_ == "factor" and ours.rank_ == 2
    assert sizes[0] == svm_dual.SHRINK_MIN // 2 and max(sizes) < len(X) // 2
    ref = SkSVC(C=C, kernel="linear", tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, Linear()(X), C, atol=1e-4 * C)
    assert ours.kkt_report().worst <= 1e-5 * C


def test_huge_C_on_full_rank_data_matches_libsvm_through_unbounded_steps(monkeypatch):
    """C = 1e6 far above the multipliers: working-set steps drop the bound."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    from kernlab import _working_set
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), 300, replace=False)
    X, y = StandardScaler().fit_transform(X[idx]), y[idx]
    kernel, C = Gaussian(sigma=np.sqrt(15.0)), 1e6
    ours = SVC(kernel, C=C).fit(X, y)
    assert ours.method_ == "working-set"
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * kernel.sigma**2), tol=1e-8).fit(X, y)
    alpha = _sklearn_alpha(ref, len(X))
    assert alpha.max() < 1e-3 * C  # the bound is far above every multiplier
    np.testing.assert_allclose(ours.alpha_, alpha, atol=1e-6 * C)
    assert ours.kkt_report().worst <= 1e-5
    t = np.where(y == 1, 1.0, -1.0)
    bounded = []
    solve = _working_set._solve_subproblem

    def spy(q, has_bound, *args):
        bounded.append(bool(has_bound))
        return solve(q, has_bound, *args)

    monkeypatch.setattr(_working_set, "_solve_subproblem", spy)
    dual = WorkingSetDual(Gram(kernel, X), t, C=C, q=64)
    assert dual.run(eps=1e-3) <= 1e-3
    assert bounded and not any(bounded) and dual.alpha.max() < 1e-3 * C


def _standardised_breast_cancer(n):
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    if n < len(X):
        idx = np.random.default_rng(0).choice(len(X), n, replace=False)
        X, y = X[idx], y[idx]
    return StandardScaler().fit_transform(X), y


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("n, most_solves", [(300, 2), (569, 5)])
def test_huge_C_on_breast_cancer_needs_few_subproblems(n, most_solves, monkeypatch):
    """C = 1e6, full-rank K, few support vectors: a few steps, each polished, end it.

    The first working set holds the points the class means classify worst,
    the support stays in the set while it is small, and the polish after a
    step finds the exact answer once the set has held every support vector.
    """
    from kernlab import _working_set

    solves = []
    solve = _working_set._Subproblem.solve

    def counted(self, *args):
        solves.append(args[0].shape[0])
        return solve(self, *args)

    monkeypatch.setattr(_working_set._Subproblem, "solve", counted)
    X, y = _standardised_breast_cancer(n)
    kernel, C = Gaussian(sigma=np.sqrt(15.0)), 1e6
    ours = SVC(kernel, C=C).fit(X, y)
    assert ours.method_ == "working-set"
    assert "no thin factor" in ours.solver_reason_
    assert 1 <= len(solves) <= most_solves
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * kernel.sigma**2), tol=1e-8).fit(X, y)
    alpha = _sklearn_alpha(ref, len(X))
    assert alpha.max() < 1e-3 * C and np.count_nonzero(alpha) > 40
    np.testing.assert_allclose(ours.alpha_, alpha, atol=1e-6 * C)
    np.testing.assert_array_equal(ours.alpha_ > 0, alpha > 0)
    assert ours.kkt_report().worst <= 1e-5
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("case, most_steps", [("full rank", 5), ("breast cancer", 3)])
def test_a_polish_is_tried_once_the_steps_have_cost_what_it_costs(case, most_steps):
    """Between polishes, the steps cost at most what a polish does (counted in operations).

    Checked only every ten steps, the polish that ends full-rank 20-feature
    data at n = 2000 came after 33 steps instead of 3, and on breast cancer
    at C = 1e6 after 6 instead of 3.  Step counts are counted operations, so
    they do not depend on the machine's load; the answer is LIBSVM's.
    """
    from sklearn.datasets import make_classification

    from kernlab.svm_dual import Polish

    if case == "full rank":
        X, y = make_classification(2000, n_features=20, n_informative=10, random_state=0)
        kernel, C = Gaussian(sigma=np.sqrt(20.0) / 2), 1.0
    else:
        X, y = _standardised_breast_cancer(569)
        kernel, C = Gaussian(sigma=3.0), 1e6
    ours = SVC(kernel, C=C).fit(X, y)
    polishes = [e for e in ours.solver_trace_ if isinstance(e, Polish)]
    assert ours.method_ == "working-set" and polishes[-1].kkt_gap is not None
    assert polishes[-1].after_steps <= most_steps
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * kernel.sigma**2), tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-4)


def test_first_working_set_pairs_the_worst_classified_points_by_second_order():
    """At the start every point violates equally: the tie-break (the difference of the
    class means) ranks the positives, and each is paired with the negative of largest
    second-order gain, (v_i - v_j)^2 / (K_ii + K_jj - 2 K_ij): the nearest in feature space."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_blobs(60, centers=2, cluster_std=2.5, random_state=4)
    t = np.where(y == 1, 1.0, -1.0)
    gram = Gram(Gaussian(sigma=2.0), X)
    K = gram.full()
    u = np.where(t > 0, 1 / np.sum(t > 0), 1 / np.sum(t < 0))
    h = K @ (t * u)  # difference of the class means in feature space
    dual = WorkingSetDual(gram, t, C=1e6, q=8, tiebreak=h)
    first, new = dual.select(*dual.violation()[1:])
    assert sorted(first.tolist()) == sorted(new.tolist()) and len(set(first.tolist())) == 8
    pos, neg = np.flatnonzero(t > 0), np.flatnonzero(t < 0)
    worst = pos[np.argsort(h[pos])[:4]]
    assert set(first[t[first] > 0].tolist()) == set(worst.tolist())
    free = list(neg)
    for i in worst:  # in turn, the nearest negative not taken yet
        j = free[int(np.argmax(K[i, free]))]
        assert j in first
        free.remove(j)
    # the free multipliers stay in the next set, in the slots they held
    dual.step(first, new)
    support = np.flatnonzero(dual.alpha > 0)
    assert 0 < len(support) <= 6
    following, added = dual.select(*dual.violation()[1:])
    assert set(support) <= set(following.tolist()) and len(set(following.tolist())) == 8
    for i in support:
        assert np.flatnonzero(following == i) == np.flatnonzero(first == i)
    assert not set(added.tolist()) & set(support.tolist())


@pytest.mark.parametrize("in_memory", [False, True])
def test_working_set_steps_see_the_exact_block_of_k(in_memory):
    """Each step's subproblem uses K[B][:, B] of its set, kept slot by slot from the last
    step and completed with the new points' rows, whether K is in memory or its columns are
    computed; and the two take the same steps (two moons at C = 1000, 60 steps)."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_moons(400, noise=0.3, random_state=0)
    t = np.where(y == 1, 1.0, -1.0)
    kernel = Gaussian(sigma=0.5)
    K = kernel(X)
    gram = Gram(kernel, X)
    gram = gram.dense() if in_memory else gram.cached(8 * 400 * 100)
    seen = []

    def check(step):
        B = step.working_set
        block = dual._K_BB[:len(B), :len(B)]
        assert np.allclose(block, K[np.ix_(B, B)], rtol=0, atol=1e-14)
        seen.append((B.copy(), step.violation))

    dual = WorkingSetDual(gram, t, C=1000.0, q=16, callback=check)
    dual.run(eps=0.0, max_steps=60)
    assert len(seen) == 60 and len({tuple(B) for B, _ in seen}) > 30
    reference = []
    other = WorkingSetDual(Gram(kernel, X).dense() if not in_memory else Gram(kernel, X),
                           t, C=1000.0, q=16,
                           callback=lambda s: reference.append((s.working_set, s.violation)))
    other.run(eps=0.0, max_steps=60)
    for (B, gap), (B_ref, gap_ref) in zip(seen, reference):
        assert np.array_equal(B, B_ref)
        assert gap == pytest.approx(gap_ref, rel=1e-8, abs=1e-10)


def test_second_order_pairs_mid_run_follow_the_formula_over_all_of_low():
    """Mid-run (after 20 steps on two moons at C = 1000), each i is paired with the point
    j of low, not taken yet, of largest (v_i - v_j)^2 / (K_ii + K_jj - 2 K_ij) over all of
    low with v_j < v_i, as a direct evaluation of the formula finds it."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_moons(400, noise=0.3, random_state=0)
    t = np.where(y == 1, 1.0, -1.0)
    kernel = Gaussian(sigma=0.5)
    K = kernel(X)
    for gram in (Gram(kernel, X), Gram(kernel, X).dense()):
        dual = WorkingSetDual(gram, t, C=1000.0, q=16)
        dual.run(eps=0.0, max_steps=20)
        _, v, up, low = dual.violation()
        chosen = dual._second_order(v, up, low, 16)
        ups = chosen[::2]  # i, j, i, j, ...: no j was refused here
        assert set(chosen[1::2].tolist()).isdisjoint(ups.tolist())
        taken = set()
        for i, j in zip(chosen[::2], chosen[1::2]):
            lows = [k for k in np.flatnonzero(low) if v[k] < v[i] and k not in taken]
            gains = [(v[i] - v[k]) ** 2 / max(2.0 - 2.0 * K[i, k], 1e-12) for k in lows]
            assert j == lows[int(np.argmax(gains))]
            taken.add(j)


def test_large_supports_keep_the_free_multipliers_of_the_last_set():
    """Once the support outgrows a set, the set's free multipliers are kept (at most a
    quarter of a set): sets of the most violating points alone zigzag (two moons at
    C = 1000 stalled)."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_moons(400, noise=0.3, random_state=0)
    t = np.where(y == 1, 1.0, -1.0)
    dual = WorkingSetDual(Gram(Gaussian(sigma=0.5), X), t, C=1000.0, q=16)
    dual.run(eps=0.0, max_steps=30)
    free = (dual.alpha > 0) & (dual.alpha < 1000.0)
    assert free.sum() > 12
    last = dual.B.copy()
    B, new = dual.select(*dual.violation()[1:])
    kept = [i for i in B if i not in set(new.tolist())]
    assert set(kept) == set(last[free[last]][:4]) and 0 < len(kept) <= 4
    assert all(np.flatnonzero(B == i) == np.flatnonzero(last == i) for i in kept)
    assert len(new) == 16 - len(kept) and len(set(B.tolist())) == 16


def test_working_set_subproblem_factor_is_triangular_and_exact():
    from kernlab._working_set import _triangular_root

    X = np.random.default_rng(5).standard_normal((12, 3))
    X[7] = X[2]  # a duplicate point: Q is singular
    t = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    Q = Gaussian(sigma=1.0)(X) * np.outer(t, t)
    order, R = _triangular_root(Q)
    assert sorted(order.tolist()) == list(range(12))
    np.testing.assert_array_equal(R, np.triu(R))
    np.testing.assert_allclose(R.T @ R, Q[np.ix_(order, order)], atol=1e-12)
    assert not R[-1].any()  # the duplicate leaves one row of zeros


def _random_subproblem(q, seed, scale=1.0):
    from kernlab._working_set import _triangular_root

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((q, 3))
    t = np.where(np.arange(q) % 2 == 0, 1.0, -1.0)
    order, R = _triangular_root(Gaussian(sigma=1.0)(X) * np.outer(t, t))
    return R * scale, -np.ones(q) * scale**2, t[order], 0.0, 10.0 / scale


def test_compiled_subproblems_are_kept_per_thread_and_hold_no_state():
    """A compiled subproblem is reused, per thread, but its answer depends on nothing
    but the values it is given: a warm-started Clarabel keeps the scaling of the data it
    was set up with, and after an instance scaled by 1e6 it failed on every later one."""
    import threading

    from kernlab import _working_set
    from kernlab._working_set import _compiled, _solve_subproblem, _Subproblem

    args = _random_subproblem(12, seed=1)
    fresh = _Subproblem(12, True).solve(*args)
    first = _solve_subproblem(12, True, *args)
    kept = _compiled.problems[(12, True)]
    np.testing.assert_array_equal(first, fresh)
    for scale in (1e6, 1e-6):  # an extreme instance, then the first one again
        _solve_subproblem(12, True, *_random_subproblem(12, seed=2, scale=scale))
        np.testing.assert_array_equal(_solve_subproblem(12, True, *args), fresh)
    assert _compiled.problems[(12, True)] is kept
    # a problem whose solve raised is dropped
    with pytest.raises(RuntimeError):
        _solve_subproblem(12, True, np.full((12, 12), 1e300), *args[1:])
    assert (12, True) not in _compiled.problems
    np.testing.assert_array_equal(_solve_subproblem(12, True, *args), fresh)
    # another thread compiles its own
    elsewhere = []

    def solve_there():
        elsewhere.append(_solve_subproblem(12, True, *args))
        elsewhere.append(_working_set._compiled.problems[(12, True)])

    thread = threading.Thread(target=solve_there)
    thread.start()
    thread.join()
    np.testing.assert_array_equal(elsewhere[0], fresh)
    assert elsewhere[1] is not _compiled.problems[(12, True)]


def test_fits_on_two_threads_at_once_agree_with_fits_one_after_the_other():
    """...and leave BLAS's thread count as it was (the limit to one thread that the
    steps take is shared, and lifted by the last fit to leave it)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    # two threads to come back to, wherever the suite runs (its workers run BLAS on one)
    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        assert before and max(before) == 2, before
        _fit_on_two_threads_at_once()
        assert blas_threads() == before


def test_the_solver_computes_kernel_columns_on_one_blas_thread():
    """Every column of K the solver asks for, in its steps and in its polishes, is
    computed on one BLAS thread, even where the caller allows two: OpenBLAS's idle
    threads wait busily for more work after each call they share, and the polishes'
    products on two threads kept one spinning for 40% of a fit's CPU time.

    A kernel sees the limit in force when the solver calls it.  Above DENSE_MAX points
    K is not formed: its columns are computed as the working sets and the polishes need
    them.  Calls before the solve starts may run on two threads; once a call has found
    one, every later call must.
    """
    from threadpoolctl import ThreadpoolController, threadpool_limits

    from kernlab.svm_dual import DENSE_MAX, Polish

    blas = ThreadpoolController().select(user_api="blas")  # reads the libraries' own counts

    def blas_threads():
        return max(lib["num_threads"] for lib in blas.info())

    seen = []

    class Watched(Gaussian):
        def __call__(self, X, Y=None):
            seen.append(blas_threads())
            return super().__call__(X, Y)

    X, y = make_moons(DENSE_MAX + 500, noise=0.3, random_state=5)
    with threadpool_limits(2, user_api="blas"):
        model = SVC(Watched(sigma=0.5), C=1.0).fit(X, y)  # two moons of the bench
        seen.append(blas_threads())
    assert model.method_ == "working-set"
    assert any(isinstance(event, Polish) for event in model.solver_trace_)
    first_single = seen.index(1)
    assert set(seen[first_single:-1]) == {1}, (
        f"{seen[first_single:-1].count(2)} of the solver's {len(seen) - first_single - 1} "
        "calls of the kernel ran with two BLAS threads")
    assert seen[-1] == 2  # the caller's limit is back after the fit


def _fit_on_two_threads_at_once():
    import threading

    data = [_full_rank(260, seed=s) for s in (4, 5)]
    kernel = Gaussian(sigma=np.sqrt(20.0) / 2)
    models = [SVC(kernel, C=1.0).fit(X, y) for X, y in data]
    assert [model.method_ for model in models] == ["working-set"] * 2
    alone = [model.alpha_ for model in models]
    found = [[], []]

    def fit(k):
        for _ in range(3):
            found[k].append(SVC(kernel, C=1.0).fit(*data[k]).alpha_)

    threads = [threading.Thread(target=fit, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k in (0, 1):
        assert len(found[k]) == 3
        for alpha in found[k]:
            # (BLAS may run on one thread or two while the other fit holds the
            # limit, and a factor's rounding depends on that)
            np.testing.assert_allclose(alpha, alone[k], rtol=0, atol=1e-9)


def test_working_set_method_reaches_its_stopping_tolerance():
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = _full_rank(200, seed=1)
    t = np.where(y == 1, 1.0, -1.0)
    gram = Gram(Gaussian(sigma=3.0), X)
    dual = WorkingSetDual(gram, t, C=1.0, q=16)
    assert dual.run(eps=1e-6) <= 1e-6
    assert dual.steps > 1  # more than one working set was needed
    # the gradient kept up to date step by step equals the one computed afresh
    K = gram.full()
    np.testing.assert_allclose(dual.G, t * (K @ (t * dual.alpha)) - 1.0, atol=1e-10)
    assert np.all((dual.alpha >= 0) & (dual.alpha <= 1.0))
    assert abs(dual.alpha @ t) <= 1e-9


def test_thin_factors_keep_the_factor_method():
    """Linear and polynomial kernels of few features: one QP with K = F F^T; so too K of
    at most 600 points and rank at most 200 to rounding (its own pivoted Cholesky
    factor).  Above 600 points a Gaussian kernel is solved by working sets."""
    X, y = DATASETS["moons"]
    assert SVC(Linear(), C=1.0).fit(X, y).rank_ == 2
    model = SVC(Polynomial(degree=3, c=1.0), C=1.0).fit(X, y)
    assert model.method_ == "factor" and model.rank_ == 10
    model = SVC("precomputed", C=1.0).fit(Linear()(X), y)  # no features known: K's factor
    assert model.method_ == "factor" and model.rank_ == 2
    model = SVC(Gaussian(sigma=0.8), C=1.0).fit(X, y)
    assert model.method_ == "factor" and model.rank_ <= len(y)
    Xb, yb = make_moons(700, noise=0.25, random_state=0)
    model = SVC(Gaussian(sigma=0.8), C=1.0).fit(Xb, yb)
    assert model.method_ == "working-set" and model.rank_ is None


# ------------------------------------------------ the dual solver and its edges
@pytest.mark.filterwarnings("error")
def test_the_fitted_model_says_which_method_answered_and_why():
    X, y = _full_rank()
    model = SVC(Gaussian(sigma=np.sqrt(20.0) / 2), C=1.0).fit(X, y)
    assert model.method_ == "working-set"
    assert model.solver_reason_ == ("working-set passed the KKT check after factor: no thin "
                                    "factor (at most 200 columns) of K")
    model = SVC(Linear(), C=1.0).fit(*DATASETS["moons"])
    assert model.method_ == "factor" and "first attempt" in model.solver_reason_


@pytest.mark.parametrize("make", [lambda: SVC(Gaussian(sigma=1.0), 1.0),
                                  lambda: SVR(Gaussian(sigma=1.0), 1.0),
                                  lambda: LinearSVCPrimal(1.0),
                                  lambda: KernelSVCPrimal(Gaussian(sigma=1.0), 0.5)],
                         ids=["SVC", "SVR", "LinearSVCPrimal", "KernelSVCPrimal"])
def test_parameters_after_the_kernel_are_keyword_only(make):
    with pytest.raises(TypeError, match="positional argument"):
        make()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("scale", [1e6, 1e-6])
def test_a_linear_svc_depends_on_the_feature_scale_only_through_C(scale):
    """K = s^2 K_0: C / s^2 on features times s is the same classifier, alpha / s^2."""
    X, y = make_blobs(80, centers=2, cluster_std=3.0, random_state=3)
    base = SVC(Linear(), C=1.0).fit(X, y)
    scaled = SVC(Linear(), C=1.0 / scale**2).fit(X * scale, y)
    np.testing.assert_allclose(scaled.alpha_ * scale**2, base.alpha_, atol=1e-6)
    np.testing.assert_allclose(scaled.decision_function(X * scale), base.decision_function(X),
                               atol=1e-6)


@pytest.mark.slow   # a solver on a hard problem: seconds
@pytest.mark.filterwarnings("error")
def test_features_on_a_scale_of_1e6_with_C_one_are_refused_with_what_was_seen():
    # C = 1 on features times 1e6 is C = 1e12 on the features themselves: on
    # overlapping classes the multipliers at C are so large (against a unit
    # margin) that K (alpha y) cannot be evaluated to the tolerance in floating point
    X, y = make_blobs(40, centers=2, cluster_std=3.0, random_state=3)
    with pytest.raises(ValueError) as refused:
        SVC(Linear(), C=1.0).fit(X * 1e6, y)
    message = str(refused.value)
    assert message.startswith("the SVM dual with C=1.0 could not be solved")
    assert re.search(r"violates the KKT conditions by [0-9.e+-]+ \(tolerance 1e-05", message)
    assert re.search(r"it has \d+ support vectors of 40 \(\d+ free, \d+ at C\)", message)
    assert re.search(r"rounding errors of about [0-9.e+-]+", message)
    assert "the kernel's diagonal reaches 1.2e+14" in message
    assert "far larger than needed" not in message  # what was seen, not a guess


@pytest.mark.filterwarnings("error")
def test_C_of_1e6_on_standardised_breast_cancer_matches_libsvm():
    """Multipliers near 1 with C = 1e6 must not be taken for zeros (alpha / C ~ 1e-6)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), 220, replace=False)
    X, y = StandardScaler().fit_transform(X[idx]), y[idx]
    kernel = Gaussian(sigma=np.sqrt(15.0))
    ours = SVC(kernel, C=1e6).fit(X, y)
    ref = SkSVC(C=1e6, kernel="rbf", gamma=1 / 30, tol=1e-8).fit(X, y)
    ref_alpha = _sklearn_alpha(ref, len(X))
    assert 1.0 < ref_alpha.max() < 1e3  # far below C: the hard-margin answer
    np.testing.assert_allclose(ours.alpha_, ref_alpha, atol=1e-3 * ref_alpha.max())
    assert ours.kkt_report().worst <= 1e-5 * ref_alpha.max()


# ------------------------------------------------------------------------ SVR
def _sine(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    return X, np.sin(X[:, 0]) + 0.2 * rng.standard_normal(n)


def _diabetes(n=200):
    from sklearn.datasets import load_diabetes

    X, z = load_diabetes(return_X_y=True)
    return X[:n] * 10, z[:n] / 100


def _libsvm_coef(model, n):
    coef = np.zeros(n)
    coef[model.support_] = model.dual_coef_[0]
    return coef


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("data, sigma", [(_sine, 1.0), (_diabetes, 3.0)], ids=["sine", "diabetes"])
@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.1])
def test_svr_matches_libsvm(data, sigma, C, epsilon):
    X, z = data()
    ours = SVR(Gaussian(sigma=sigma), C=C, epsilon=epsilon).fit(X, z)
    ref = SkSVR(kernel="rbf", gamma=1 / (2 * sigma**2), C=C, epsilon=epsilon, tol=1e-8).fit(X, z)
    coef = np.zeros(len(z))
    coef[ours.support_] = ours.dual_coef_
    np.testing.assert_allclose(coef, _libsvm_coef(ref, len(z)), atol=1e-3 * C)
    fresh = np.random.default_rng(1).uniform(X.min(0), X.max(0), (500, X.shape[1]))
    np.testing.assert_allclose(ours.predict(fresh), ref.predict(fresh), atol=1e-3)
    # KKT: at most one of alpha_i, alpha*_i is non-zero, and the residuals obey the tube
    assert np.all((ours.alpha_ == 0) | (ours.alpha_star_ == 0)) or epsilon == 0
    residual = z - ours.predict(X)
    free = (np.abs(coef) > 1e-8 * C) & (np.abs(coef) < C * (1 - 1e-8))
    np.testing.assert_allclose(np.abs(residual[free]), epsilon, atol=1e-6)
    assert np.all(np.abs(residual[coef == 0]) <= epsilon + 1e-6)


def test_svr_with_a_precomputed_gram_matrix_matches_libsvm():
    X, z = _sine()
    K = Gaussian(sigma=1.0)(X)
    ours = SVR("precomputed", C=1.0).fit(K, z)
    ref = SkSVR(kernel="precomputed", C=1.0, tol=1e-8).fit(K, z)
    np.testing.assert_allclose(ours.predict(K[:30]), ref.predict(K[:30]), atol=1e-3)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_[0], atol=1e-3)


@pytest.mark.filterwarnings("error")
def test_svr_on_a_full_rank_gram_uses_working_sets_and_matches_libsvm():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((260, 8))
    z = X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.standard_normal(260)
    ours = SVR(Gaussian(sigma=1.0), C=3.0, epsilon=0.1).fit(X, z)
    assert ours.method_ == "working-set"
    ref = SkSVR(kernel="rbf", gamma=0.5, C=3.0, epsilon=0.1, tol=1e-8).fit(X, z)
    coef = np.zeros(len(z))
    coef[ours.support_] = ours.dual_coef_
    np.testing.assert_allclose(coef, _libsvm_coef(ref, len(z)), atol=3e-3)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-3)


def test_svr_linear_kernel_is_the_flattest_line_in_the_tube():
    """Points on z = x with epsilon = 0.5 and a large C: slope 2/3, through (0, 0.5)."""
    X = np.arange(4.0)[:, None]
    model = SVR(Linear(), C=100.0, epsilon=0.5).fit(X, X[:, 0])
    np.testing.assert_allclose(model.predict([[0.0], [3.0]]), [0.5, 2.5], atol=1e-8)


def test_svr_bad_input_is_refused():
    X, z = _sine(20)
    with pytest.raises(ValueError, match="C"):
        SVR(Gaussian(sigma=1.0), C=np.inf).fit(X, z)
    with pytest.raises(ValueError, match="epsilon"):
        SVR(Gaussian(sigma=1.0), epsilon=-0.1).fit(X, z)
    with pytest.raises(ValueError, match="one target per sample"):
        SVR(Gaussian(sigma=1.0)).fit(X, np.column_stack([z, z]))
    with pytest.raises(ValueError, match="rows"):
        SVR(Gaussian(sigma=1.0)).fit(X, z[:-1])
    with pytest.raises(NotFittedError):
        SVR(Gaussian(sigma=1.0)).predict(X)


def test_a_small_column_cache_gives_the_same_answer():
    """With room for only a few columns, the steps evict, never a column a step needs."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_moons(400, noise=0.3, random_state=1)
    t = np.where(y == 1, 1.0, -1.0)
    gram = Gram(Gaussian(sigma=0.5), X)
    roomy = WorkingSetDual(gram.cached(2**30), t, C=10.0, q=16)
    tight_gram = gram.cached(1, min_columns=20)
    tight = WorkingSetDual(tight_gram, t, C=10.0, q=16)
    store = tight_gram._store
    assert store.room == 20 < len(t) and roomy.gram._store.room == len(t)
    evicted = []
    cols = store.cols

    def spy(idx, compute):
        before = set(np.flatnonzero(store.slot >= 0))
        out = cols(idx, compute)
        np.testing.assert_allclose(out, gram.cols(idx), rtol=1e-12, atol=1e-15)
        after = set(np.flatnonzero(store.slot >= 0))
        assert set(idx[:store.room]) <= after or len(set(idx)) > store.room
        assert len(after) <= store.room and store.used <= store.room
        evicted.extend(before - after)
        return out

    store.cols = spy
    assert roomy.run(eps=1e-6) <= 1e-6 and tight.run(eps=1e-6) <= 1e-6
    assert evicted                               # it did have to evict
    # the same optimum (the multipliers themselves need not be unique)
    Q = np.outer(t, t) * gram.full()

    def objective(a):
        return 0.5 * a @ Q @ a - a.sum()

    assert objective(tight.alpha) == pytest.approx(objective(roomy.alpha), rel=1e-8)


def test_the_column_store_evicts_the_least_recently_used_columns():
    from kernlab._columns import Gram

    X = np.random.default_rng(5).standard_normal((40, 3))
    gram = Gram(Gaussian(sigma=1.0), X)
    K = gram.full()
    store = gram.cached(budget_bytes=8 * 40 * 4)    # room for 4
    for idx in ([0, 1], [2], [3], [0]):           # 1 is now the oldest, then 2
        store.cols(idx)
    np.testing.assert_allclose(store.cols([5, 6]), K[:, [5, 6]], rtol=1e-12, atol=1e-15)
    assert sorted(np.flatnonzero(store._store.slot >= 0)) == [0, 3, 5, 6]
    # a request larger than the room: what fits is kept, the rest computed
    idx = [7, 8, 9, 10, 11, 12]
    np.testing.assert_allclose(store.cols(idx), K[:, idx], rtol=1e-12, atol=1e-15)
    assert store.kept() == 4
    v = np.zeros(40)
    v[[1, 5, 30]] = [1.0, -2.0, 0.5]
    np.testing.assert_allclose(store.times(v), K @ v, rtol=1e-12, atol=1e-14)
    store.release()
    assert store._store.block is None and store.kept() == 0
    np.testing.assert_allclose(store.cols([39, 2]), K[:, [39, 2]], rtol=1e-12, atol=1e-15)
    # views share the source, never the kept columns
    assert gram.kept() == 0 and gram.cached(10**6).kept() == 0


def test_a_block_of_kept_columns_is_scaled_once_and_computes_nothing(monkeypatch):
    """A block whose columns, or whose rows (K is symmetric), are kept is read from the
    store, those entries only; the kept columns are already divided by the scale (they
    used to be divided again: K / unit^2 for a kernel whose diagonal is not 1)."""
    from kernlab._columns import Gram

    X = np.random.default_rng(3).standard_normal((30, 3))
    kernel = 2.0 * Gaussian(sigma=1.0)
    K = kernel(X) / 2.0
    store = Gram(kernel, X).scaled(2.0).cached(8 * 30 * 10)   # room for 10 columns
    store.cols([0, 1, 2])
    computed = []
    compute = Gram._compute
    monkeypatch.setattr(Gram, "_compute", lambda self, points: computed.append(points) or
                        compute(self, points))
    rows = np.arange(10, 20)
    np.testing.assert_allclose(store.block(rows, [2, 0]), K[rows][:, [2, 0]], rtol=1e-14)
    np.testing.assert_allclose(store.block([1, 2], rows), K[[1, 2]][:, rows], rtol=1e-14)
    assert computed == []
    # neither side kept: computed, and not kept
    np.testing.assert_allclose(store.block(rows, [5, 6]), K[rows][:, [5, 6]], rtol=1e-14)
    assert store.kept() == 3


def test_a_scaled_kernel_above_the_dense_size_solves_as_the_unscaled_one():
    """SVC(c k, C) is SVC(k, c C) with multipliers divided by c.  Above DENSE_MAX points
    the columns come from the store; with K / unit^2 read from it, 4 * Gaussian at C = 1
    on two moons of 4000 points was refused after 666 steps (violation 1.5e-3), while
    Gaussian at C = 4 took 42."""
    from kernlab.svm_dual import DENSE_MAX

    X, y = make_moons(4000, noise=0.3, random_state=0)
    assert len(y) > DENSE_MAX
    plain = SVC(Gaussian(sigma=0.5), C=4.0).fit(X, y)
    scaled = SVC(4.0 * Gaussian(sigma=0.5), C=1.0).fit(X, y)
    np.testing.assert_array_equal(scaled.support_, plain.support_)
    np.testing.assert_allclose(4.0 * scaled.dual_coef_, plain.dual_coef_, rtol=1e-8,
                               atol=1e-8)
    np.testing.assert_allclose(scaled.decision_function(X), plain.decision_function(X),
                               atol=1e-8)


def test_views_of_a_gram_matrix():
    """Scaled, doubled and dense views read the same source; blocks compute only their rows."""
    from kernlab._columns import Gram

    X = np.random.default_rng(2).standard_normal((30, 2))
    K = Gaussian(sigma=1.0)(X)
    for gram in (Gram(Gaussian(sigma=1.0), X), Gram("precomputed", K)):
        half = gram.scaled(2.0)
        np.testing.assert_allclose(half.full(), K / 2, rtol=1e-14)
        np.testing.assert_allclose(half.dense().cols([4, 1]), K[:, [4, 1]] / 2, rtol=1e-14)
        np.testing.assert_allclose(half.diag(), np.diag(K) / 2)
        twice = half.doubled()
        big = np.tile(K / 2, (2, 2))
        assert twice.n == 60
        np.testing.assert_allclose(twice.cols([3, 33, 59]), big[:, [3, 33, 59]], rtol=1e-14)
        np.testing.assert_allclose(twice.block([0, 45], [31, 2]), big[np.ix_([0, 45], [31, 2])],
                                   rtol=1e-14)
        v = np.random.default_rng(3).standard_normal(60)
        v[::3] = 0.0
        np.testing.assert_allclose(twice.times(v), big @ v, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(twice.dense().times(v), big @ v, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(twice.undoubled().full(), K / 2, rtol=1e-14)


# ------------------------------------- what kernlab used to refuse, against LIBSVM
def _diabetes_standardised():
    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    X, z = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), z


def test_working_sets_converge_on_two_moons_at_C_1000():
    """The study of the stall: sets of the most violating points zigzagged (two moons,
    n = 400, C = 1000: a violation of 1e-3 after 2000 steps), and Clarabel's inexact
    answers made the method cycle near 1e-5.  Kept free multipliers, second-order
    pairs and exact subproblem answers reach 1e-9 in a few tens of steps."""
    from kernlab._columns import Gram
    from kernlab._working_set import WorkingSetDual

    X, y = make_moons(400, noise=0.3, random_state=0)
    t = np.where(y == 1, 1.0, -1.0)
    dual = WorkingSetDual(Gram(Gaussian(sigma=0.5), X).dense(), t, 1000.0, q=64)
    assert dual.run(1e-9, max_steps=60) <= 1e-9
    K = Gaussian(sigma=0.5)(X)
    np.testing.assert_allclose(dual.G, t * (K @ (t * dual.alpha)) - 1.0, atol=1e-8)
    assert abs(dual.alpha @ t) <= 1e-9 * 1000.0


def test_a_subproblem_answer_is_made_exact_on_its_active_sets():
    """Clarabel's answer to 1e-8 of the scale, then the active-set steps: the KKT
    conditions of the subproblem to rounding (checked here in exact terms)."""
    from kernlab._working_set import _exact, _snap_box, _Subproblem, _triangular_root

    X, labels = make_moons(64, noise=0.3, random_state=3)
    y = np.where(labels == 1, 1.0, -1.0)
    Q, C = Gaussian(sigma=0.5)(X) * np.outer(y, y), 1000.0
    p = -np.ones(64)
    order, R = _triangular_root(Q)
    x = _Subproblem(64, True).solve(np.sqrt(C) * R, p[order], y[order], 0.0, 1.0)
    rough = np.empty(64)
    rough[order] = C * _snap_box(x, y[order], 0.0, 1.0)
    a = _exact(Q, p, y, 0.0, C, rough)
    assert np.all((a >= 0) & (a <= C)) and abs(y @ a) <= 1e-12 * C
    h = Q @ a + p
    free = (a > 0) & (a < C)
    mu = -np.mean(h[free] * y[free])  # h + mu y = 0 on the free multipliers
    h = h + mu * y
    assert np.abs(h[free]).max() <= 1e-9
    assert h[a == 0].min(initial=np.inf) >= -1e-9 and h[a == C].max(initial=-np.inf) <= 1e-9
    assert np.abs(a - rough).max() > 1e-9  # Clarabel's answer itself was not exact


@pytest.mark.slow   # 2-4 s of CPU each, on two BLAS threads
@pytest.mark.parametrize("seed", [0, 1])
def test_two_moons_at_C_1000_is_solved_and_beats_libsvm_on_its_own_conditions(seed):
    X, y = make_moons(2000, noise=0.3, random_state=seed)
    kernel, C = Gaussian(sigma=0.5), 1000.0
    ours = SVC(kernel, C=C).fit(X, y)
    ref = SkSVC(C=C, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    # LIBSVM's float32 kernel cache leaves its answer 1e-3 off the KKT conditions,
    # which moves its decision values by a few hundredths
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=0.1)
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.995


@pytest.mark.parametrize("C", [100.0, 1000.0])
@pytest.mark.parametrize("sigma", [np.sqrt(5.0), 1.0])
def test_standardised_diabetes_above_the_median_matches_libsvm(C, sigma):
    X, z = _diabetes_standardised()
    y = (z > np.median(z)).astype(int)
    kernel = Gaussian(sigma=sigma)
    ours = SVC(kernel, C=C).fit(X, y)
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * sigma**2), tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-3)
    np.testing.assert_allclose(ours.alpha_, _sklearn_alpha(ref, len(y)), atol=1e-4 * C)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_make_classification_5000_at_C_100_matches_libsvm(seed):
    from sklearn.datasets import make_classification

    X, y = make_classification(5000, random_state=seed)
    kernel, C = Gaussian(sigma=np.sqrt(10.0)), 100.0
    ours = SVC(kernel, C=C).fit(X, y)
    ref = SkSVC(C=C, kernel="rbf", gamma=0.05, tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-3)


@pytest.mark.parametrize("standardise", [False, True], ids=["targets", "standardised targets"])
def test_svr_on_standardised_diabetes_at_C_100_matches_libsvm(standardise):
    X, z = _diabetes_standardised()
    if standardise:
        z = (z - z.mean()) / z.std()
    kernel, C, epsilon = Gaussian(sigma=np.sqrt(5.0)), 100.0, 0.1
    ours = SVR(kernel, C=C, epsilon=epsilon).fit(X, z)
    ref = SkSVR(kernel="rbf", gamma=0.1, C=C, epsilon=epsilon, tol=1e-8).fit(X, z)
    K = kernel(X)
    coef = np.zeros(len(z))
    coef[ours.support_] = ours.dual_coef_
    ref_coef = _libsvm_coef(ref, len(z))

    def objective(c):  # the dual objective in beta = alpha - alpha*, to be minimised
        return 0.5 * c @ K @ c - z @ c + epsilon * np.abs(c).sum()

    assert objective(coef) <= objective(ref_coef) + 1e-10 * abs(objective(ref_coef))
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-3 * np.abs(z).max())
    # the tube: free points have |residual| = epsilon, the others beyond or inside
    residual = z - ours.predict(X)
    free = (np.abs(coef) > 0) & (np.abs(coef) < C)
    np.testing.assert_allclose(np.abs(residual[free]), epsilon, atol=1e-5)
    assert np.all(np.abs(residual[coef == 0]) <= epsilon + 1e-5)


# ---------------------------------------------------- no state survives a fit
_FITS = """
import json, sys
import numpy as np
from sklearn.datasets import make_blobs, make_classification, make_moons
from kernlab import SVC, SVR, Gaussian, Linear

def fits():
    X, y = make_classification(300, n_features=20, n_informative=10, random_state=0)
    Xm, ym = make_moons(300, noise=0.3, random_state=1)
    out = {
        "full rank": SVC(Gaussian(sigma=np.sqrt(10.0)), C=1.0).fit(X, y),
        "moons at C = 100": SVC(Gaussian(sigma=0.5), C=100.0).fit(Xm, ym),
        "linear": SVC(Linear(), C=1.0).fit(X, y),
        "huge C": SVC(Gaussian(sigma=3.0), C=1e6).fit(X, y),
        "regression": SVR(Gaussian(sigma=3.0), C=10.0).fit(X, X[:, 0]),
    }
    return {name: [m.method_, m.dual_coef_.tolist(), m.intercept_] for name, m in out.items()}
"""


@pytest.mark.slow   # a fresh Python process with kernlab and its fits: about 5 s of CPU
def test_a_refused_fit_leaves_nothing_behind_for_the_next():
    """After a fit that is refused (linear SVC on features scaled by 1e6), every fit gives
    exactly, bit for bit, what it gives in a fresh process (a warm-started Clarabel kept
    the refused fit's scaling, and every later fit was refused)."""
    import json
    import subprocess
    import sys

    namespace = {}
    exec(_FITS, namespace)
    fresh = json.loads(subprocess.run(
        [sys.executable, "-c", _FITS + "print(json.dumps(fits()))"],
        capture_output=True, text=True, check=True).stdout)
    X, y = make_blobs(200, centers=2, cluster_std=3.0, random_state=3)
    for _ in range(2):
        with pytest.raises(ValueError, match="could not be solved to working precision"):
            SVC(Linear(), C=1.0).fit(X * 1e6, y)
        with pytest.raises(ValueError, match="could not be solved to working precision"):
            SVC(Gaussian(sigma=3e6), C=1e9).fit(X * 1e6, y)
        assert json.loads(json.dumps(namespace["fits"]())) == fresh


def test_a_precomputed_gram_of_rank_two_at_a_large_C_is_solved():
    """A precomputed linear kernel of 1000 points at 100 + N(0, 1) in the plane: K has
    rank 2 and max K_ii = 2e4, so every working set's matrix is singular and C acts as
    2e4.  The subproblems' answers are made exact by steps from Clarabel's answer (from
    its solution instead, they ran out of rounds and the method stalled near 3e-3)."""
    rng = np.random.RandomState(0)
    X = rng.normal(loc=100, size=(1000, 2))
    z = rng.normal(size=1000)
    K = X @ X.T
    y = (z > 0).astype(int)
    ours = SVC("precomputed", C=1.0).fit(K, y)
    assert ours.method_ == "working-set"
    ref = SkSVC(kernel="precomputed", C=1.0, tol=1e-8).fit(K, y)
    # LIBSVM's float32 copy of entries of size 2e4 puts its decision values 0.03 off
    _assert_agrees_with_libsvm(ours, ref, K, 1.0, atol=0.1)
    svr = SVR("precomputed", C=1.0).fit(K, z)
    ref = SkSVR(kernel="precomputed", C=1.0, tol=1e-8).fit(K, z)
    coef = np.zeros(1000)
    coef[svr.support_] = svr.dual_coef_
    ref_coef = _libsvm_coef(ref, 1000)

    def objective(c):
        return 0.5 * c @ K @ c - z @ c + 0.1 * np.abs(c).sum()

    assert objective(coef) <= objective(ref_coef) + 1e-9 * abs(objective(ref_coef))
    np.testing.assert_allclose(svr.predict(K), ref.predict(K), atol=0.1)


def test_a_polish_round_seen_diverging_by_the_box_reads_no_column_of_K(monkeypatch):
    """A polish round whose free multipliers leaving the box already make it diverge
    (more than twice the fewest changes of a round so far, or a second rise in a row)
    is given up before g is updated: no column of K is read after its solve.  The
    verdicts are those of counting every change; the answer is still LIBSVM's."""
    from kernlab import svm_dual
    from kernlab._columns import Gram

    events = []
    solve, cols, polish = svm_dual._solve_free_set, Gram.cols, svm_dual._polish

    def solved(qp, free, fixed, cur, g, *args):
        out = solve(qp, free, fixed, cur, g, *args)
        if out is not None:
            new = out[0]
            events.append(("solve", int((free & (new <= 0)).sum() + (free & (new >= qp.C)).sum())))
        return out

    def counted(self, idx):
        events.append(("cols", np.size(idx)))
        return cols(self, idx)

    def polished(*args, **kwargs):
        events.append(("polish", None))
        try:
            return polish(*args, **kwargs)
        finally:
            events.append(("end", None))

    monkeypatch.setattr(svm_dual, "_solve_free_set", solved)
    monkeypatch.setattr(Gram, "cols", counted)
    monkeypatch.setattr(svm_dual, "_polish", polished)
    X, y = make_moons(400, noise=0.3, random_state=0)
    kernel, C = Gaussian(sigma=0.5), 1000.0
    ours = SVC(kernel, C=C).fit(X, y)
    starts = [k for k, (kind, _) in enumerate(events) if kind == "polish"]
    polishes = [e for e in ours.solver_trace_ if isinstance(e, svm_dual.Polish)]
    assert len(starts) == len(polishes)
    cut = 0
    for start, record in zip(starts, polishes):
        during = events[start:events.index(("end", None), start)]
        last = max(k for k, (kind, _) in enumerate(during) if kind == "solve")
        fewest, rising = np.inf, 0
        for changes in record.moves[:-1]:
            rising = rising + 1 if changes > fewest else 0
            fewest = min(fewest, changes)
        left = during[last][1]  # free multipliers that left the box in the last round
        if record.kkt_gap is None and (left > 2 * fewest or (left > fewest and rising == 1)):
            cut += 1
            assert [kind for kind, _ in during[last + 1:]] == []
            assert record.moves[-1] == left
    assert cut >= 1
    ref = SkSVC(C=C, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=0.1)


def test_subset_systems_from_a_kept_factor_equal_fresh_solves():
    """The polish's systems on a sequence of free sets (points joining and leaving),
    solved from one Cholesky factor extended and restricted, equal a fresh solve
    of each formed block to 1e-9, the shifted right-hand side included; a set
    that changes more than the update saves is factored afresh."""
    from kernlab._linalg import SubsetSaddle, saddle_solve

    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 20))
    K = Gaussian(sigma=np.sqrt(10.0))(X)
    systems = SubsetSaddle(lambda r, c: K[np.ix_(r, c)], 400, update_from=50)
    free = np.zeros(400, dtype=bool)
    free[rng.choice(400, 300, replace=False)] = True
    kinds = []
    for change in (0, 5, 12, 1, 150, 3):
        flip = rng.choice(400, change, replace=False)
        free[flip] = ~free[flip]
        F = np.flatnonzero(free)
        c, plus, d = rng.standard_normal(F.size), rng.standard_normal(F.size), 0.7
        before = systems.updates
        a, b, ok, _ = systems.solve(F, c, d, plus=plus)
        kinds.append("update" if systems.updates > before else "fresh")
        Q = K[np.ix_(F, F)]
        ref, ref_ok, _ = saddle_solve(Q, np.ones(F.size), c + Q @ plus, d)
        assert ok and ref_ok
        scale = np.abs(ref).max()
        np.testing.assert_allclose(np.append(a, b), ref, rtol=0, atol=1e-9 * scale)
    assert kinds == ["fresh", "update", "update", "update", "fresh", "update"]


def test_a_singular_large_subset_fails_before_the_rest_of_its_matrix_is_formed():
    """A system in 900 points of 2-D data (a Gaussian K of numerical rank far
    below 900) is refused by Cholesky within the first block of points: only
    that block of Q_FF is read, not the 810,000 entries of all of it.  A
    regular system of the same size, whose first block passes, matches an LU
    solve of the whole."""
    from kernlab._linalg import SubsetSaddle, saddle_solve

    rng = np.random.default_rng(1)
    for dim, regular in ((2, False), (30, True)):
        X = rng.standard_normal((1000, dim))
        K = Gaussian(sigma=0.5 if dim == 2 else np.sqrt(30.0))(X)
        read = []

        def block(r, c):
            read.append(len(r) * len(c))
            return K[np.ix_(r, c)]

        F = np.sort(rng.choice(1000, 900, replace=False))
        c = rng.standard_normal(F.size)
        solved = SubsetSaddle(block, 1000).solve(F, c, 0.3, fallback=False)
        if not regular:
            assert solved is None
            assert sum(read) <= 256 * 256
            continue
        a, b, ok, _ = solved
        ref, ref_ok, _ = saddle_solve(K[np.ix_(F, F)], np.ones(F.size), c, 0.3)
        assert ok and ref_ok
        np.testing.assert_allclose(np.append(a, b), ref, rtol=0,
                                   atol=1e-9 * np.abs(ref).max())


def test_the_polish_of_full_rank_data_updates_its_factor_and_matches_libsvm(monkeypatch):
    """On full-rank 20-feature data (1000 points, about 900 free multipliers) the
    polish's late rounds, which move a few multipliers, solve from the factor of
    the rounds before instead of a new one; the answer is still LIBSVM's."""
    from sklearn.datasets import make_classification

    from kernlab import _linalg

    solve, kinds = _linalg.SubsetSaddle.solve, []

    def counted(self, F, *args, **kwargs):
        before = self.updates
        out = solve(self, F, *args, **kwargs)
        kinds.append((F.size, self.updates > before))
        return out

    monkeypatch.setattr(_linalg.SubsetSaddle, "solve", counted)
    X, y = make_classification(1000, n_features=20, n_informative=10, random_state=0)
    kernel, C = Gaussian(sigma=np.sqrt(20.0) / 2), 1.0
    ours = SVC(kernel, C=C).fit(X, y)
    assert sum(updated for _, updated in kinds) >= 2
    assert all(size >= 256 for size, updated in kinds if updated)
    ref = SkSVC(C=C, kernel="rbf", gamma=1 / (2 * kernel.sigma**2), tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-5)


def test_a_polish_round_of_hundreds_of_singular_free_multipliers_solves_no_lu(monkeypatch):
    """Two moons at n = 3000 (noise 0.3, C = 1), whose Gram matrix has numerical rank
    about 200: a polish at a violation near 1 frees hundreds of multipliers, whose
    system Cholesky cannot solve.  Above _POLISH_LU_MAX of them the polish gives up
    there, without LU or least squares (with 1000 as the limit, LU and least squares
    in 479-819 unknowns took 10-25 ms of each fit, and not one such polish settled);
    at most that many, the polish still solves the system.  The answer is LIBSVM's."""
    from kernlab import _linalg
    from kernlab.svm_dual import _POLISH_LU_MAX

    systems, saddle, fallbacks = _linalg.SubsetSaddle.solve, _linalg.saddle_solve, []
    solved = []  # (free multipliers, answered)

    def system(self, F, *args, **kwargs):
        out = systems(self, F, *args, **kwargs)
        solved.append((F.size, out is not None))
        return out

    def fallback(Q, *args):  # LU, then least squares
        fallbacks.append(len(Q))
        return saddle(Q, *args)

    monkeypatch.setattr(_linalg.SubsetSaddle, "solve", system)
    monkeypatch.setattr(_linalg, "saddle_solve", fallback)
    X, y = make_moons(3000, noise=0.3, random_state=5)
    kernel, C = Gaussian(sigma=0.5), 1.0
    ours = SVC(kernel, C=C).fit(X, y)
    # a singular round of several hundred free multipliers (819 here): the polish gave
    # up there, where LU and least squares used to be tried
    assert any(_POLISH_LU_MAX < size <= 1000 and not answered
               for size, answered in solved), solved
    # smaller singular rounds still fell back to LU; no larger one did
    assert fallbacks and max(fallbacks) <= _POLISH_LU_MAX <= 400, fallbacks
    ref = SkSVC(C=C, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-4)


def test_a_polish_of_thousands_of_changes_that_does_not_settle_stops_early():
    """Two moons at n = 3000 (noise 0.3): polishes tried after the first steps
    release 2200-2700 multipliers.  A round that changes more sets than the
    fewest before it, and more than 256, or whose system in more than
    _POLISH_LU_MAX (400) free multipliers is singular, ends the polish (such
    polishes had gone on for five rounds of thousands of changes, with LU
    solves in 2800 unknowns: the fit took 50 times LIBSVM's time).  The
    answer is still LIBSVM's."""
    from kernlab.svm_dual import Polish

    X, y = make_moons(3000, noise=0.3, random_state=0)
    kernel, C = Gaussian(sigma=0.5), 1.0
    ours = SVC(kernel, C=C).fit(X, y)
    polishes = [e for e in ours.solver_trace_ if isinstance(e, Polish)]
    assert any(max(p.moves) > 1000 for p in polishes)
    assert all(p.rounds <= 2 for p in polishes if max(p.moves) > 1000)
    ref = SkSVC(C=C, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    _assert_agrees_with_libsvm(ours, ref, kernel(X), C, atol=1e-4)
