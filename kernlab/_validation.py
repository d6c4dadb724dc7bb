"""Input checks shared by every kernlab module.

Each function either returns a clean value (a float64 array, a number) or
raises a ``ValueError`` / ``TypeError`` whose message names the offending
argument and says what was expected.  Keeping the checks here means the
mathematical code elsewhere can assume well-formed input.
"""

import numbers

import numpy as np
from scipy import sparse

__all__ = ["check_array", "check_pair", "check_scalar", "check_instance", "holds_objects",
           "as_generator"]


def check_array(X, name="X", *, ensure_2d=True):
    """Return ``X`` as a finite, non-empty, C-contiguous float64 array.

    Parameters
    ----------
    X : array-like
        Numeric data, shape (n_samples, n_features).
    name : str
        Argument name used in error messages.
    ensure_2d : bool
        If True (default) ``X`` must be 2-D; a single point is passed as
        shape (1, d) and 1-D data of n points as shape (n, 1).  If False,
        1-D arrays (such as a target vector ``y``) are accepted too.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    TypeError
        If ``X`` is not numeric.
    ValueError
        If ``X`` has the wrong number of dimensions, is empty, is ragged or
        contains NaN or infinity.

    Examples
    --------
    >>> check_array([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    if X is None:
        raise TypeError(f"{name} must be a numeric array, got None")
    if sparse.issparse(X):
        raise TypeError(f"{name} is a sparse matrix, and sparse input is not supported: the "
                        f"kernel computations need a dense array; convert it with {name}.toarray()")
    try:
        arr = np.asarray(X)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array; rows have different lengths") from exc
    if arr.dtype.kind == "O":
        # Object arrays may still hold numbers (e.g. a list mixing int and float).
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric; it holds non-numeric objects (each "
                            "argument must be a string or a number that converts to float)") from exc
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {arr.dtype}; kernels "
                         "here are defined on real vectors")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got an array of dtype {arr.dtype}")

    if ensure_2d:
        if arr.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got a 1-D array of "
                f"length {arr.shape[0]}; Reshape your data: pass a single point as shape (1, d) "
                "and 1-D data as shape (n, 1)"
            )
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got {arr.ndim} dimension(s)"
            )
    elif arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got {arr.ndim} dimension(s)")

    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has 0 sample(s) (shape={arr.shape}) while a "
                         "minimum of 1 is required")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: it has 0 feature(s) (shape={arr.shape}) while a "
                         "minimum of 1 is required.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        what = "NaN" if np.isnan(arr).any() else "infinity"
        raise ValueError(f"{name} contains {what}; all values must be finite")
    return arr


def check_pair(X, Y, names=("X", "Y")):
    """Validate two data arrays that must have the same number of columns.

    Parameters
    ----------
    X, Y : array-like
        Arrays of shape (n_X, d) and (n_Y, d).
    names : tuple of str
        Names of the two arguments for error messages.

    Returns
    -------
    X, Y : ndarray of float64

    Examples
    --------
    >>> X, Y = check_pair([[1.0, 2.0]], [[0.0, 1.0], [2.0, 3.0]])
    >>> Y.shape
    (2, 2)
    """
    X = check_array(X, names[0])
    Y = check_array(Y, names[1])
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of features (columns); "
            f"{names[0]} has {X.shape[1]} and {names[1]} has {Y.shape[1]}"
        )
    return X, Y


def _describe_range(low, high, include_low, include_high):
    """Return the allowed range as readable text, e.g. '>= 0' or 'in (0, 1]'."""
    if high is None:
        return f"{'>=' if include_low else '>'} {low}"
    if low is None:
        return f"{'<=' if include_high else '<'} {high}"
    return f"in {'[' if include_low else '('}{low}, {high}{']' if include_high else ')'}"


def check_scalar(value, name, *, low=None, high=None, include_low=True, include_high=True,
                 integer=False, finite=False):
    """Return ``value`` as a float (or int) after checking its type and range.

    Parameters
    ----------
    value : number
        The value to check.  Booleans are rejected.
    name : str
        Argument name used in error messages.
    low, high : float or None
        Bounds of the allowed range (None means unbounded).
    include_low, include_high : bool
        Whether the bounds themselves are allowed.
    integer : bool
        If True the value must be a whole number and an ``int`` is returned.
    finite : bool
        If True, +-infinity is refused (it is otherwise allowed, e.g. for a
        hard-margin ``C=np.inf``).  Integers are always finite.

    Returns
    -------
    float or int

    Examples
    --------
    >>> check_scalar(2, "degree", low=1, integer=True)
    2
    >>> check_scalar(0.5, "sigma", low=0, include_low=False)
    0.5
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if np.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN")
    if np.isinf(value) and (finite or integer):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if integer:
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    else:
        value = float(value)

    too_low = low is not None and (value < low or (value == low and not include_low))
    too_high = high is not None and (value > high or (value == high and not include_high))
    if too_low or too_high:
        allowed = _describe_range(low, high, include_low, include_high)
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return value


def check_instance(obj, name="kernel"):
    """Refuse a class passed where an instance is expected (``kernel=Gaussian``).

    A class is callable, so without this check ``Gaussian(X, Y)`` would be
    tried as if it were a kernel evaluation and fail obscurely (or, for a
    class that accepts two arguments, silently build a kernel object).

    Examples
    --------
    >>> class Gaussian:
    ...     pass
    >>> check_instance(Gaussian, "kernel")
    Traceback (most recent call last):
    ...
    TypeError: kernel must be an instance, got the class Gaussian itself; build one by calling the class with its parameters, e.g. kernel=Gaussian(...)
    """
    if isinstance(obj, type):
        raise TypeError(f"{name} must be an instance, got the class {obj.__name__} itself; "
                        f"build one by calling the class with its parameters, e.g. "
                        f"{name}={obj.__name__}(...)")
    return obj


def holds_objects(X):
    """True when ``X`` is a non-empty list of non-numeric items (strings, sets, ...).

    Such data is passed to string and set kernels (or a user's function)
    unchanged; everything else is validated as a numeric array.

    Examples
    --------
    >>> holds_objects(["abc", "abd"]), holds_objects([[1.0, 2.0]]), holds_objects([{1, 2}])
    (True, False, True)
    """
    return (isinstance(X, (list, tuple)) and len(X) > 0
            and not isinstance(X[0], (numbers.Number, list, tuple, np.ndarray)))


def as_generator(random_state):
    """A numpy Generator from a seed, a Generator or None.

    Examples
    --------
    >>> float(as_generator(0).standard_normal()) == float(np.random.default_rng(0).standard_normal())
    True
    >>> as_generator("seed")
    Traceback (most recent call last):
    ...
    TypeError: random_state must be None, an int or a numpy Generator, got str 'seed'
    """
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise TypeError("random_state must be None, an int or a numpy Generator, "
                        f"got {type(random_state).__name__} {random_state!r}") from exc
