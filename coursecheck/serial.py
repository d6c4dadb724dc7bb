"""Pickle-free encoding of case arguments and returned values.

Only plain data crosses the boundary between a student's code and the
grader: ``None``, bools, ints, floats, complex numbers, strings, NumPy
numeric arrays and scalars, and lists, tuples, sets and dicts (with string
keys) of those.  Anything else -- in particular an object of a student's own
class, however it defines ``__eq__`` -- raises :class:`UnsupportedValue`.

Types are checked exactly (``type(x) is float``), never with ``isinstance``,
so a subclass of ``float`` or of ``numpy.ndarray`` cannot slip through.
"""

import base64
import json
import math

import numpy as np

__all__ = ["UnsupportedValue", "encode", "decode", "dumps", "loads", "loads_bounded",
           "roundtrip"]

_NUMPY_SCALARS = frozenset(
    t for t in set(np.sctypeDict.values())
    if np.dtype(t).kind in "biufc"
)
_MAX_DEPTH = 20
_MAX_ITEMS = 10_000_000


class UnsupportedValue(TypeError):
    """A value that cannot be sent between the student's code and the grader."""


def _encode_float(x):
    if math.isnan(x):
        return {"__float__": "nan"}
    if math.isinf(x):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return x


def encode(value, _depth=0):
    """Return a JSON-ready structure for ``value`` or raise UnsupportedValue."""
    if _depth > _MAX_DEPTH:
        raise UnsupportedValue("the value is nested too deeply")
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if abs(value) < 2**63 else {"__bigint__": str(value)}
    if t is float:
        return _encode_float(value)
    if t is complex:
        return {"__complex__": [_encode_float(value.real), _encode_float(value.imag)]}
    if t in _NUMPY_SCALARS:
        return encode(np.asarray(value).reshape(1), _depth + 1) | {"__scalar__": True}
    if t is np.ndarray:
        if value.dtype.kind not in "biufc":
            raise UnsupportedValue(
                f"a NumPy array of dtype {value.dtype} (only numeric arrays are supported)"
            )
        if value.size > _MAX_ITEMS:
            raise UnsupportedValue(f"an array with {value.size} entries is too large")
        # (np.ascontiguousarray would turn a 0-d array into shape (1,))
        arr = value if value.flags.c_contiguous else value.copy(order="C")
        return {
            "__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"),
            "dtype": arr.dtype.str,
            "shape": list(arr.shape),
        }
    if t is list or t is tuple:
        items = [encode(v, _depth + 1) for v in value]
        return items if t is list else {"__tuple__": items}
    if t is set or t is frozenset:
        return {"__set__": [encode(v, _depth + 1) for v in value]}
    if t is dict:
        for k in value:
            if type(k) is not str:
                raise UnsupportedValue(f"a dict key of type {type(k).__name__} (only str keys)")
        return {"__dict__": {k: encode(v, _depth + 1) for k, v in value.items()}}
    raise UnsupportedValue(f"a value of type {t.__module__}.{t.__qualname__}")


def _decode_float(x):
    if type(x) is dict:
        return float(x["__float__"])
    return float(x)


def decode(obj, _depth=0):
    """Inverse of :func:`encode`; refuses values nested deeper than :func:`encode` makes."""
    if _depth > _MAX_DEPTH + 2:
        raise UnsupportedValue("the value is nested too deeply")
    t = type(obj)
    if obj is None or t in (bool, str, int, float):
        return obj
    d = _depth + 1
    if t is list:
        return [decode(v, d) for v in obj]
    if t is not dict:
        raise UnsupportedValue(f"cannot decode a {t.__name__}")
    if "__ndarray__" in obj:
        dtype = np.dtype(obj["dtype"])
        if dtype.kind not in "biufc":
            raise UnsupportedValue(f"cannot decode an array of dtype {dtype}")
        shape = tuple(obj["shape"])
        if not all(type(n) is int and n >= 0 for n in shape) or len(shape) > 32:
            raise UnsupportedValue("cannot decode an array with a bad shape")
        raw = base64.b64decode(obj["__ndarray__"], validate=True)
        try:
            arr = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        except ValueError as exc:
            raise UnsupportedValue(f"cannot decode an array: {exc}") from None
        return arr[0] if obj.get("__scalar__") else arr
    if "__float__" in obj:
        return _decode_float(obj)
    if "__bigint__" in obj:
        return int(obj["__bigint__"])
    if "__complex__" in obj:
        re, im = obj["__complex__"]
        return complex(_decode_float(re), _decode_float(im))
    if "__tuple__" in obj:
        return tuple(decode(v, d) for v in obj["__tuple__"])
    if "__set__" in obj:
        return {_hashable(decode(v, d)) for v in obj["__set__"]}
    if "__dict__" in obj:
        return {k: decode(v, d) for k, v in obj["__dict__"].items()}
    raise UnsupportedValue("cannot decode an unknown object")


def _hashable(v):
    if type(v) is np.ndarray:
        raise UnsupportedValue("a set cannot contain arrays")
    return v


def loads_bounded(data, max_bytes):
    """Parse one JSON document of at most ``max_bytes`` bytes from an untrusted source.

    Raises :class:`UnsupportedValue` for anything too large, too deep or not
    JSON, so a caller can fail one answer and go on.
    """
    if len(data) > max_bytes:
        raise UnsupportedValue(f"more than {max_bytes} bytes")
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UnsupportedValue(f"not valid JSON ({type(exc).__name__})") from None


def dumps(value):
    """Encode ``value`` as a JSON string."""
    return json.dumps(encode(value), allow_nan=False)


def loads(text):
    """Decode a JSON string made by :func:`dumps`."""
    return decode(json.loads(text))


def roundtrip(value):
    """Send ``value`` through the encoding and back (a deep, plain copy)."""
    return loads(dumps(value))
