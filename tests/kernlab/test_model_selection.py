"""Cross-validation for lam and kernel parameters: seeded folds, agreement with scikit-learn."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from kernlab import SVC, Gaussian, GridSearch, KernelRidge, kfold


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (80, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(80)
    return X, y


def test_grid_search_agrees_with_scikit_learn(data):
    X, y = data
    grid = {"lam": [1e-3, 1e-1, 10.0], "kernel": [Gaussian(sigma=s) for s in (0.3, 1.0, 3.0)]}
    ours = GridSearch(KernelRidge(), grid, n_splits=4, random_state=3, progress=False).fit(X, y)
    ref = GridSearchCV(KernelRidge(), grid, cv=kfold(4, random_state=3)).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"], rtol=1e-10)
    assert ours.best_params_ == ref.best_params_
    assert ours.best_params_["kernel"].sigma == 1.0
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-10)


def test_folds_are_seeded(data):
    X, y = data
    grid = {"lam": [1e-2, 1.0]}
    a = GridSearch(KernelRidge(Gaussian()), grid, random_state=1, progress=False).fit(X, y)
    b = GridSearch(KernelRidge(Gaussian()), grid, random_state=1, progress=False).fit(X, y)
    c = GridSearch(KernelRidge(Gaussian()), grid, random_state=2, progress=False).fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["split_test_scores"],
                                  b.cv_results_["split_test_scores"])
    assert not np.array_equal(a.cv_results_["split_test_scores"],
                              c.cv_results_["split_test_scores"])


def test_progress_bar_is_shown_for_long_searches(data, capsys):
    X, y = data
    GridSearch(KernelRidge(Gaussian()), {"lam": [0.1, 1.0]}, n_splits=2, progress=True).fit(X, y)
    assert "cross-validation" in capsys.readouterr().err
    GridSearch(KernelRidge(Gaussian()), {"lam": [0.1, 1.0]}, n_splits=2).fit(X, y)
    assert capsys.readouterr().err == ""
    # "auto" shows the bar once the number of fits reaches the threshold
    GridSearch(KernelRidge(Gaussian()), {"lam": [0.1, 1.0]}, n_splits=2,
               progress_min_fits=4).fit(X, y)
    assert "4/4" in capsys.readouterr().err


def test_classifier_search_uses_accuracy():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")
    search = GridSearch(SVC(Gaussian(sigma=1.0)), {"C": [0.01, 10.0]}, n_splits=3,
                        progress=False).fit(X, y)
    assert search.best_params_ == {"C": 10.0}
    assert 0.5 < search.best_score_ <= 1.0


def test_bad_parameter_names_are_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="'alpha', which is not a parameter"):
        GridSearch(KernelRidge(Gaussian()), {"alpha": [1.0]}, progress=False).fit(X, y)
    with pytest.raises(ValueError, match="n_splits"):
        kfold(1)


def test_grid_search_tunes_a_kernel_parameter_inside_the_estimator(data):
    """GridSearchCV reaches the kernel's sigma through 'kernel__sigma'."""
    X, y = data
    by_name = GridSearchCV(KernelRidge(kernel=Gaussian(sigma=1.0)),
                           {"kernel__sigma": [0.3, 1.0, 3.0], "lam": [1e-3, 1e-1]},
                           cv=kfold(4, random_state=3)).fit(X, y)
    by_object = GridSearchCV(KernelRidge(),
                             {"kernel": [Gaussian(sigma=s) for s in (0.3, 1.0, 3.0)],
                              "lam": [1e-3, 1e-1]},
                             cv=kfold(4, random_state=3)).fit(X, y)
    np.testing.assert_allclose(np.sort(by_name.cv_results_["mean_test_score"]),
                               np.sort(by_object.cv_results_["mean_test_score"]), rtol=1e-10)
    assert by_name.best_params_["kernel__sigma"] == by_object.best_params_["kernel"].sigma
