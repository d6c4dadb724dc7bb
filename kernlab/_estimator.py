"""Plumbing shared by the estimators: argument checks, Gram matrices, precomputed kernels.

An estimator takes a kernel (a kernlab kernel, a function ``k(X, Y)`` or
the string ``"precomputed"``) and data (a numeric 2-D array, or a list of
strings or sets for the kernels that take them).  The functions here check
both and evaluate Gram matrices with their shape and values checked.  (The
solvers read the training Gram matrix column by column through
:class:`kernlab._columns.Gram`.)
"""

import numbers
import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import validate_data

from ._validation import check_array, check_instance, check_scalar, holds_objects
from .kernels import Kernel

__all__ = [
    "check_kernel", "is_precomputed", "check_lam", "check_targets", "check_data",
    "check_precomputed_gram", "entry_rounding", "check_cross_gram", "compute_gram",
    "owns_result", "n_samples", "take", "fit_input", "predict_input", "check_labels",
]


def check_kernel(kernel, name="kernel", *, allow_precomputed=True):
    """A kernel instance, a callable ``k(X, Y)`` or ``"precomputed"``; anything else is refused.

    Examples
    --------
    >>> check_kernel("precomputed")
    'precomputed'
    >>> check_kernel("rbf")
    Traceback (most recent call last):
    ...
    ValueError: kernel given as a string must be 'precomputed', got 'rbf'
    """
    if kernel is None:
        raise TypeError(f"{name} is required: pass a kernlab kernel such as Gaussian(sigma=1.0), "
                        "a callable k(X, Y) or the string 'precomputed'")
    check_instance(kernel, name)
    if isinstance(kernel, str) and allow_precomputed:
        if kernel != "precomputed":
            raise ValueError(f"{name} given as a string must be 'precomputed', got {kernel!r}")
        return kernel
    if not callable(kernel):
        raise TypeError(f"{name} must be callable as kernel(X, Y), got {type(kernel).__name__}")
    return kernel


def is_precomputed(kernel):
    """True for the string ``"precomputed"``."""
    return isinstance(kernel, str) and kernel == "precomputed"


def check_lam(lam, name="lam"):
    """``lam`` must be a finite number >= 0.

    Examples
    --------
    >>> check_lam(0.5)
    0.5
    """
    return check_scalar(lam, name, low=0.0, finite=True)


def check_targets(y, n_samples, name="y"):
    """Return ``y`` as float64 of shape (n,) or (n, m) with n matching X.

    Examples
    --------
    >>> check_targets([1, 2], 3)
    Traceback (most recent call last):
    ...
    ValueError: y has 2 rows but X has 3 samples; they must match
    """
    if y is None:
        raise ValueError(f"{name} must be a numeric array: this estimator requires y to be "
                         "passed, but the target y is None")
    y = check_array(y, name, ensure_2d=False)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} rows but X has {n_samples} samples; they must match"
        )
    return y


def check_data(X, kernel=None, name="X"):
    """Validate X: a numeric 2-D array, unless the kernel works on other objects.

    Examples
    --------
    >>> check_data([[1, 2]]).dtype
    dtype('float64')
    >>> check_data(["ab", "ba"], kernel=len)
    ['ab', 'ba']
    """
    if kernel is not None and not isinstance(kernel, str) and holds_objects(X):
        return X  # strings or sets: the kernel checks them
    return check_array(X, name)


def entry_rounding(X):
    """Relative rounding of the entries of ``X`` as given.

    The machine epsilon of a float32 or float16 array, and of float32's for
    float64 entries that are all float32 numbers without all being whole
    (a Gram matrix computed in single precision and then converted, or
    passed as a list); else 0: float64 entries, and integers, are taken as
    they are.

    Examples
    --------
    >>> eps32 = float(np.finfo(np.float32).eps)
    >>> entry_rounding(np.eye(2, dtype=np.float32)) == eps32
    True
    >>> entry_rounding([[1.0, 0.1], [0.1, 1.0]]), entry_rounding([[2, 1], [1, 2]])
    (0.0, 0.0)
    >>> entry_rounding(np.float32([[1.0, 0.1], [0.1, 1.0]]).tolist()) == eps32
    True
    """
    dtype = getattr(X, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
        return float(np.finfo(dtype).eps)
    if dtype is not None and dtype.kind == "c":  # refused by the validation of X, without
        return 0.0                               # numpy's ComplexWarning on the cast here
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return 0.0
    finite = values[np.isfinite(values)]
    single = finite.astype(np.float32).astype(np.float64)
    if finite.size and np.array_equal(single, finite) and not np.array_equal(np.round(finite),
                                                                             finite):
        return float(np.finfo(np.float32).eps)
    return 0.0


def check_precomputed_gram(K, name="X", *, rounding=None):
    """The square, symmetric training Gram matrix given with ``kernel="precomputed"``.

    Symmetry is required to the rounding of the entries as given (1e-10 of
    the largest entry for float64, a few float32 epsilons for float32);
    ``rounding`` overrides what the dtype of ``K`` says (for a matrix
    already converted to float64).

    Examples
    --------
    >>> check_precomputed_gram([[1.0, 0.5], [0.2, 1.0]])
    Traceback (most recent call last):
    ...
    ValueError: with kernel='precomputed', X must be a symmetric Gram matrix (K[i, j] = k(x_i, x_j) = K[j, i]), but X[0, 1] = 0.5 and X[1, 0] = 0.2
    """
    rounding = entry_rounding(K) if rounding is None else rounding
    K = check_array(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f"with kernel='precomputed', {name} must be the square Gram matrix of the training "
            f"points, got shape {K.shape}"
        )
    tol = max(1e-10, 16 * rounding) * np.abs(K).max()
    for start in range(0, K.shape[0], 512):  # a slice at a time: no second n x n array
        gap = np.abs(K[start:start + 512] - K[:, start:start + 512].T)
        if gap.max() > tol:
            i, j = np.unravel_index(np.argmax(gap), gap.shape)
            i += start
            raise ValueError(
                f"with kernel='precomputed', {name} must be a symmetric Gram matrix "
                f"(K[i, j] = k(x_i, x_j) = K[j, i]), but {name}[{i}, {j}] = {K[i, j]:.6g} "
                f"and {name}[{j}, {i}] = {K[j, i]:.6g}")
    return K


def check_cross_gram(K, n_train, name="X"):
    """The (n_test, n_train) cross-Gram matrix given to predict with ``kernel="precomputed"``.

    Examples
    --------
    >>> check_cross_gram([[1.0, 2.0]], 3)
    Traceback (most recent call last):
    ...
    ValueError: with kernel='precomputed', X must be the cross-Gram matrix of shape (n_test, 3), got (1, 2)
    """
    K = check_array(K, name)
    if K.shape[1] != n_train:
        raise ValueError(f"with kernel='precomputed', {name} must be the cross-Gram matrix of "
                         f"shape (n_test, {n_train}), got {K.shape}")
    return K


def compute_gram(kernel, X, Y=None, name="kernel"):
    """Evaluate ``kernel(X, Y)`` and check its shape and values.

    Examples
    --------
    >>> compute_gram(lambda A, B=None: np.ones((len(A), 1)), [[0.0], [1.0]])
    Traceback (most recent call last):
    ...
    ValueError: kernel returned an array of shape (2, 1); expected (2, 2)
    """
    K = kernel(X) if Y is None else kernel(X, Y)
    K = np.asarray(K, dtype=np.float64)
    n_x = n_samples(X)
    n_y = n_x if Y is None else n_samples(Y)
    if K.shape != (n_x, n_y):
        raise ValueError(f"{name} returned an array of shape {K.shape}; expected ({n_x}, {n_y})")
    if not np.isfinite(K).all():
        raise ValueError(f"{name} returned NaN or infinite values on this data")
    return K


def owns_result(kernel):
    """True if ``kernel(X)`` returns a fresh array that may be overwritten.

    kernlab kernels always build a new matrix (``Precomputed`` indexes a copy
    out of its stored matrix); a user's plain function might return a cached
    array, so its result is copied before an in-place Cholesky.
    """
    return isinstance(kernel, Kernel)


def n_samples(X):
    """Number of points: rows of an array, items of a list.

    Examples
    --------
    >>> n_samples(np.zeros((3, 2))), n_samples(["a", "b"])
    (3, 2)
    """
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take(X, idx):
    """The points of ``X`` at positions ``idx`` (rows of an array, items of a list).

    Examples
    --------
    >>> take(["a", "b", "c"], [2, 0])
    ['c', 'a']
    """
    if hasattr(X, "shape"):
        return X[idx]
    return [X[i] for i in idx]


def fit_input(estimator, X, kernel=None, name="X"):
    """Validate training data and record ``n_features_in_`` (and ``feature_names_in_``).

    ``X`` is checked by :func:`check_data` (numeric 2-D, or a list of
    strings/sets for kernels that take them); scikit-learn's
    ``validate_data`` then records the number of columns and, for a data
    frame, the column names, exactly as scikit-learn's own estimators do.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> est = BaseEstimator()
    >>> fit_input(est, [[1.0, 2.0]]).shape, est.n_features_in_
    ((1, 2), 2)
    """
    checked = check_data(X, kernel, name)
    validate_data(estimator, X, reset=True, skip_check_array=True)
    return checked


def predict_input(estimator, X, kernel=None, name="X"):
    """Validate test data against what ``fit`` recorded (columns and their names).

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> est = BaseEstimator()
    >>> _ = fit_input(est, [[1.0, 2.0]])
    >>> predict_input(est, [[1.0, 2.0, 3.0]])
    Traceback (most recent call last):
    ...
    ValueError: X has 3 features, but BaseEstimator is expecting 2 features as input.
    """
    checked = check_data(X, kernel, name)
    validate_data(estimator, X, reset=False, skip_check_array=True)
    return checked


def check_labels(y, n, name="y"):
    """Map two distinct labels to t in {-1, +1}; returns ``(t, classes)``.

    ``classes`` is sorted and ``classes[1]`` is the positive class.  A
    column vector (n, 1) is accepted with scikit-learn's
    DataConversionWarning; continuous targets and a number of classes other
    than two are refused.

    Examples
    --------
    >>> check_labels(["no", "yes", "no"], 3)
    (array([-1.,  1., -1.]), array(['no', 'yes'], dtype='<U3'))
    >>> check_labels([0.5, 1.5, 2.5], 3)
    Traceback (most recent call last):
    ...
    ValueError: Unknown label type: continuous; y must hold the labels of two classes, got 3 distinct non-integer values
    """
    if y is None:
        raise ValueError(f"{name} must be an array of labels: this estimator requires y to be "
                         "passed, but the target y is None")
    _refuse_mixed_labels(y, name)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per sample), got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} labels but X has {n} samples; they must match")
    if y.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} must hold class labels")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinity; labels must be two distinct finite "
                         "values")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and np.isnan(v)) for v in y):
        raise ValueError(f"{name} contains missing labels (None or NaN)")
    classes = np.unique(y)
    if classes.size > 2 and type_of_target(y) == "continuous":
        raise ValueError(f"Unknown label type: continuous; {name} must hold the labels of two "
                         f"classes, got {classes.size} distinct non-integer values")
    if classes.size != 2:
        what = "1 class" if classes.size == 1 else f"{classes.size} classes"
        raise ValueError(f"{name} must take exactly two distinct values: Only binary "
                         f"classification is supported. Got {what}: {classes[:10].tolist()}")
    t = np.where(y == classes[1], 1.0, -1.0)
    return t, classes


def _refuse_mixed_labels(y, name):
    """Labels mixing strings and numbers (``[1, "a"]``) are refused, not coerced or compared."""
    if isinstance(y, np.ndarray) and y.dtype.kind != "O":
        return  # one type throughout
    values = np.asarray(y, dtype=object).reshape(-1)
    strings = [v for v in values if isinstance(v, (str, bytes))]
    numbers_ = [v for v in values if isinstance(v, (numbers.Number, np.number))]
    if strings and numbers_:
        raise ValueError(
            f"{name} mixes strings and numbers (e.g. {strings[0]!r} and {numbers_[0]!r}); "
            f"labels must be all strings or all numbers, e.g. {name} = [str(v) for v in {name}]")


class _KernelTags:
    """With ``kernel="precomputed"`` the input is a Gram matrix (scikit-learn's pairwise tag)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(getattr(self, "kernel", None))
        return tags


class MultiOutputRegressorTags(_KernelTags):
    """Tags of a regressor that accepts y of shape (n,) or (n, m); put first among the bases."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags


class BinaryClassifierTags(_KernelTags):
    """Tags of a two-class classifier; put first among the bases."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class RegressorTags(_KernelTags):
    """Tags of a single-output kernel regressor; put first among the bases."""
