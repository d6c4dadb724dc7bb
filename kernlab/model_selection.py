"""Choosing ``lam`` and kernel parameters by seeded k-fold cross-validation.

:class:`GridSearch` is a thin layer over scikit-learn: the folds come from
``KFold(shuffle=True, random_state=...)``, candidates from ``ParameterGrid``,
scores from ``check_scoring`` and copies of the estimator from ``clone``.
What it adds is a progress bar (tqdm) over the candidate x fold fits, shown
when the search is long.  Because kernlab estimators follow scikit-learn's
conventions, ``sklearn.model_selection.GridSearchCV`` and
``cross_val_score`` accept them too; :func:`kfold` returns the splitter to
pass as their ``cv``.
"""

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import KFold, ParameterGrid
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from ._estimator import fit_input, n_samples, predict_input, take
from ._validation import check_scalar

__all__ = ["kfold", "GridSearch"]


def kfold(n_splits=5, random_state=0):
    """A shuffled, seeded ``sklearn.model_selection.KFold``.

    Examples
    --------
    >>> import numpy as np
    >>> [len(test) for _, test in kfold(3).split(np.zeros((10, 1)))]
    [4, 3, 3]
    """
    n_splits = check_scalar(n_splits, "n_splits", low=2, integer=True)
    return KFold(n_splits=n_splits, shuffle=True, random_state=random_state)


class GridSearch(BaseEstimator):
    """Exhaustive search over a parameter grid by seeded k-fold cross-validation.

    Parameters
    ----------
    estimator : estimator
        Any estimator with ``get_params``/``set_params``, ``fit`` and
        ``predict`` (all kernlab estimators qualify).
    param_grid : dict or list of dicts
        Values to try, e.g. ``{"lam": [0.01, 0.1, 1],
        "kernel": [Gaussian(sigma=s) for s in (0.5, 1, 2)]}``.
    n_splits : int, default=5
    random_state : int or None, default=0
        Seed of the shuffled folds; the same seed gives the same folds.
    scoring : str, callable or None, default=None
        As in scikit-learn; None uses the estimator's ``score`` (R^2 for
        regressors, accuracy for classifiers).
    progress : bool or "auto", default="auto"
        Show a tqdm progress bar; "auto" shows it when there are at least
        ``progress_min_fits`` fits.
    progress_min_fits : int, default=50
    refit : bool, default=True
        Refit the best candidate on all the data (``best_estimator_``).

    Attributes
    ----------
    cv_results_ : dict
        ``params`` (list of dicts), ``mean_test_score``, ``std_test_score``,
        ``split_test_scores`` (n_candidates x n_splits) and
        ``rank_test_score`` (1 is best).
    best_params_ : dict
    best_score_ : float
    best_index_ : int
    best_estimator_ : estimator (if ``refit``)

    Examples
    --------
    >>> import numpy as np
    >>> from kernlab import KernelRidge, Gaussian
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, (60, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(60)
    >>> search = GridSearch(KernelRidge(Gaussian(sigma=1.0)), {"lam": [1e-3, 1e-1, 1e2]},
    ...                     n_splits=3, progress=False).fit(X, y)
    >>> search.best_params_["lam"] < 100
    True
    """

    def __init__(self, estimator, param_grid, *, n_splits=5, random_state=0, scoring=None,
                 progress="auto", progress_min_fits=50, refit=True):
        self.estimator = estimator
        self.param_grid = param_grid
        self.n_splits = n_splits
        self.random_state = random_state
        self.scoring = scoring
        self.progress = progress
        self.progress_min_fits = progress_min_fits
        self.refit = refit

    def fit(self, X, y):
        """Score every candidate on every fold; returns self."""
        if not hasattr(self.estimator, "get_params"):
            raise TypeError("estimator must follow scikit-learn's API (get_params/set_params)")
        if self.progress not in (True, False, "auto"):
            raise ValueError(f"progress must be True, False or 'auto', got {self.progress!r}")
        candidates = list(ParameterGrid(self.param_grid))
        if not candidates:
            raise ValueError("param_grid is empty")
        valid = self.estimator.get_params()
        for name in {k for c in candidates for k in c}:
            if name not in valid:
                raise ValueError(f"param_grid names {name!r}, which is not a parameter of "
                                 f"{type(self.estimator).__name__}; valid: {sorted(valid)}")
        X = fit_input(self, X, getattr(self.estimator, "kernel", None))
        splitter = kfold(self.n_splits, self.random_state)
        n = n_samples(X)
        if n < splitter.n_splits:
            raise ValueError(f"n_splits={splitter.n_splits} is more than the {n} samples")
        folds = list(splitter.split(np.zeros((n, 1))))
        y = np.asarray(y)
        scorer = check_scoring(self.estimator, scoring=self.scoring)
        total = len(candidates) * len(folds)
        show = self.progress is True or (self.progress == "auto"
                                         and total >= self.progress_min_fits)
        scores = np.empty((len(candidates), len(folds)))
        with tqdm(total=total, disable=not show, desc="cross-validation") as bar:
            for i, params in enumerate(candidates):
                for j, (train, test) in enumerate(folds):
                    model = clone(self.estimator).set_params(**params)
                    model.fit(take(X, train), y[train])
                    scores[i, j] = scorer(model, take(X, test), y[test])
                    bar.update()
        mean = scores.mean(axis=1)
        order = np.argsort(-mean, kind="stable")
        rank = np.empty(len(candidates), dtype=int)
        rank[order] = np.arange(1, len(candidates) + 1)
        self.cv_results_ = {"params": candidates, "mean_test_score": mean,
                            "std_test_score": scores.std(axis=1),
                            "split_test_scores": scores, "rank_test_score": rank}
        self.best_index_ = int(order[0])
        self.best_params_ = candidates[self.best_index_]
        self.best_score_ = float(mean[self.best_index_])
        if self.refit:
            self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_)
            self.best_estimator_.fit(X, y)
        return self

    def predict(self, X):
        """Predict with the refitted best estimator."""
        check_is_fitted(self, "best_estimator_")
        X = predict_input(self, X, getattr(self.estimator, "kernel", None))
        return self.best_estimator_.predict(X)
