"""scikit-learn's own estimator checks, run on every kernlab estimator and feature map."""

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernlab import (SVC, SVR, ANOVAFeatures, BasisRidge, BiasFeatures, CorrelationFeatures,
                     Gaussian, GaussianTaylorFeatures, GridSearch, KernelPCA, KernelRidge,
                     KernelSVCPrimal, Linear, LinearSVCPrimal, Nystroem, NystroemKernelRidge,
                     PolynomialFeatures, RandomFeatureRidge, RandomFourierFeatures, Ridge)

ESTIMATORS = [
    Ridge(lam=0.1),
    Ridge(lam=0.1, fit_intercept=True),
    BasisRidge(lam=0.1),
    KernelRidge(Gaussian(sigma=1.0), lam=0.1),
    KernelRidge(Linear(), lam=0.1, fit_intercept=True),
    NystroemKernelRidge(Gaussian(sigma=3.0), lam=1e-3, n_components=100, random_state=0),
    RandomFeatureRidge(sigma=3.0, lam=1e-3, n_components=200, random_state=0),
    KernelRidge("precomputed", lam=0.1),
    SVC(Gaussian(sigma=1.0), C=1.0),
    SVC("precomputed", C=1.0),
    SVR(Gaussian(sigma=1.0), C=1.0),
    SVR("precomputed", C=1.0),
    LinearSVCPrimal(C=1.0),
    KernelSVCPrimal(Gaussian(sigma=1.0), lam=0.5),
    GridSearch(Ridge(), {"lam": [0.1, 1.0]}, n_splits=2, progress=False),
    PolynomialFeatures(degree=2),
    ANOVAFeatures(),
    ANOVAFeatures(degree=2),
    CorrelationFeatures(),
    BiasFeatures(),
    GaussianTaylorFeatures(sigma=1.0, order=2),
    RandomFourierFeatures(sigma=1.0, n_components=20, random_state=0),
    Nystroem(Gaussian(sigma=1.0), n_components=20, random_state=0),
    KernelPCA(Gaussian(sigma=1.0), n_components=3),
    KernelPCA("precomputed", n_components=3),
]


# With kernel="precomputed" these checks pass matrices that are not positive
# semi-definite (-K, or a Gram matrix rounded to float32 or integers, with
# eigenvalues far below -1e-10 of its scale); kernlab refuses them with a
# ValueError on purpose (test_svm.py and test_ridge.py test that refusal).
NOT_PSD_CHECKS = {
    "check_positive_only_tag_during_fit": "negated Gram matrix: not PSD, refused",
    "check_estimators_dtypes": "Gram matrix rounded to float32/int: not PSD, refused",
    "check_classifiers_train": "Gram matrix rounded to float32: not PSD, refused",
}


def _expected_failures(estimator):
    if getattr(estimator, "kernel", None) != "precomputed":
        return {}
    if isinstance(estimator, SVR):  # kernel ridge solves with any symmetric matrix; SVR not
        return {**NOT_PSD_CHECKS,
                "check_regressors_train": "Gram matrix rounded to float32: not PSD, refused"}
    return NOT_PSD_CHECKS


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _ids(estimator):
    return repr(estimator).replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids)
def test_tags_say_what_each_estimator_is(estimator):
    tags = get_tags(estimator)
    if is_classifier(estimator):
        assert tags.classifier_tags.multi_class is False  # two classes only
    if is_regressor(estimator):  # SVR fits one target, as LIBSVM's does
        assert tags.target_tags.single_output
        assert tags.target_tags.multi_output == (not isinstance(estimator, SVR))
    assert tags.input_tags.pairwise == (getattr(estimator, "kernel", None) == "precomputed")


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS
                                       if getattr(e, "kernel", None) != "precomputed"],
                         ids=_ids)
def test_data_frames_give_feature_names_and_are_checked_at_predict(estimator):
    rng = np.random.default_rng(0)
    values = rng.standard_normal((40, 3))
    y = np.where(values[:, 0] + 0.3 * rng.standard_normal(40) > 0, 1, 0)
    frame = pd.DataFrame(values, columns=["height", "weight", "age"])
    fitted = clone(estimator).fit(frame, y)
    assert fitted.n_features_in_ == 3
    assert list(fitted.feature_names_in_) == ["height", "weight", "age"]
    apply = getattr(fitted, "transform", None) or fitted.predict
    with pytest.warns(UserWarning, match="fitted with feature names"):
        plain = apply(values)
    np.testing.assert_allclose(apply(frame), plain)
    with pytest.raises(ValueError, match="feature names"):
        apply(frame[["weight", "height", "age"]])
    # refitting on a plain array forgets the names
    assert not hasattr(clone(estimator).fit(values, y), "feature_names_in_")


def test_string_data_records_no_feature_count():
    from kernlab import Spectrum

    model = SVC(Spectrum(p=2), C=1.0).fit(["abab", "baba", "aaaa", "bbbb"], [0, 0, 1, 1])
    assert not hasattr(model, "n_features_in_")
    assert model.predict(["aaab"]).shape == (1,)


# GridSearch follows GridSearchCV(estimator, param_grid, *, ...): both are required.
_TWO_POSITIONAL = {"GridSearch"}


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids)
def test_constructor_parameters_after_the_first_are_keyword_only(estimator):
    names = type(estimator).__name__
    params = list(inspect.signature(type(estimator).__init__).parameters.values())[1:]
    n_positional = 2 if names in _TWO_POSITIONAL else 1
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert positional == [p.name for p in params[:n_positional]][:len(positional)]
    assert len(positional) <= n_positional, f"{names}: {positional} may be positional"
