"""The messages between the grader and its runners: their shapes, one encoder, one decoder.

Both sides import this module: the runners inside the sandbox (there it is
``sandboxrunner.protocol``) and the grader's end of the channel on the host
(:mod:`coursegrader.sandbox.channel`).  Each message is a frozen dataclass;
:func:`encode` turns one into the bytes that are sent and :func:`decode` turns
bytes that were read into the message expected there, refusing anything of
another shape (:class:`ProtocolError`).  Nothing else builds or parses them.

The judge's runner (:mod:`.part_runner`) reads from its stdin, for each part,
a :class:`PartHeader` framed by its length (:func:`read_header` reads exactly
that much, so nothing after it -- the part's cases -- is read by the runner),
then the part's :class:`Case` messages one line at a time, each sent after the
previous answer, and finally :class:`End`.  The part's process answers each
case with an :class:`Answer` line on the runner's stdout, preceded by a
:class:`Ran` line (after an empty one) whenever it is about to run code the
submission did not hand in as source; the runner's own
:class:`PartEnd` comes on its stderr, a channel no part can write to, once the
part's process has ended.

The kernel's runner (:mod:`.kernel_runner`) reads one :class:`KernelRequest`
on stdin and writes one :class:`KernelAnswer` on stdout.

Why a run of student code stopped before it finished is a :class:`StopReason`,
whether the kernel's runner says so or the grader finds it out.
"""

import enum
import json
import json.encoder
import os
from dataclasses import dataclass
from typing import Optional

__all__ = ["StopReason", "ProtocolError", "PartHeader", "Case", "End", "Answer", "Ran", "PartEnd",
           "KernelRequest", "CellRun", "KernelStop", "KernelAnswer", "END", "TAMPERED_EXIT",
           "encode", "ran_line", "decode", "read_header", "write_all"]

_HEADER_DIGITS = 20


class StopReason(str, enum.Enum):
    """Why a run of student code stopped before it finished."""

    TIMEOUT = "timeout"              # a part ran past its time limit
    OUTPUT_LIMIT = "output_limit"    # more was sent back than the grader reads
    CPU_LIMIT = "cpu_limit"          # a process used up its CPU seconds (SIGXCPU)
    FILE_LIMIT = "file_limit"        # a process wrote a file over the limit (SIGXFSZ)
    KILLED = "killed"                # a process was killed by another signal
    EXITED = "exited"                # a process exited before answering every case
    VANISHED = "vanished"            # the sandbox stopped answering, its status unknown
    TAMPERED = "tampered"            # a part wrote into the grader's input channel
    CELL_TIMEOUT = "cell_timeout"    # the notebook's run: a cell ran past its limit
    BUDGET = "budget"                # the notebook's run: the whole run past its budget
    KERNEL_DIED = "kernel_died"      # the notebook's run: the kernel died
    NO_KERNEL = "no_kernel"          # the notebook's run: the kernel could not be run
    UNREADABLE = "unreadable"        # the notebook's run sent back something unreadable


class ProtocolError(ValueError):
    """Bytes that are not the message expected."""


# -- the messages -----------------------------------------------------------------
@dataclass(frozen=True)
class PartHeader:
    """Grader to the judge's runner: a part's code cells and the function to call.

    ``sweep``: the part is alone in its sandbox, so the runner kills every
    process left once it ends.  ``forbidden``/``allowed``: the paths the part's
    own confinement refuses and allows (in the mode without a sandbox).
    """

    cells: tuple
    func: str
    sweep: bool = False
    forbidden: tuple = ()
    allowed: tuple = ()


@dataclass(frozen=True)
class Case:
    """Grader to a part's process: case ``index``, its arguments already encoded."""

    index: int
    args: object


@dataclass(frozen=True)
class End:
    """Grader to a part's process: no more cases."""


@dataclass(frozen=True)
class Answer:
    """A part's process to the grader: an encoded ``value`` for case ``index``, or an ``error``."""

    index: int
    value: object = None
    error: Optional[str] = None


@dataclass(frozen=True)
class Ran:
    """A part's process to the grader, before the answer it precedes: it is about to
    run code the submission did not hand in as source (:mod:`.code_origin`);
    ``description`` says which event, through which module."""

    description: str


@dataclass(frozen=True)
class PartEnd:
    """The judge's runner to the grader, on its own channel: the part's process ended
    with ``status`` (``-signal`` when killed); ``tampered`` if it wrote into the
    grader's input channel, or ended with :data:`TAMPERED_EXIT` (it found its
    answer channel replaced when it had code to report)."""

    status: int
    tampered: bool = False


@dataclass(frozen=True)
class KernelRequest:
    """Grader to the kernel's runner: the notebook's cells to run and the limits."""

    cells: tuple
    cell_timeout: float
    budget: float
    output_bytes: int


@dataclass(frozen=True)
class CellRun:
    """One cell as the kernel ran it: its outputs (not trusted) and execution count."""

    outputs: list
    execution_count: Optional[int] = None


@dataclass(frozen=True)
class KernelStop:
    """Where and why the kernel's run stopped: at the ``cell``-th cell sent, for
    ``reason``; ``limit`` in seconds for a timeout, ``detail`` for a kernel
    that could not be run."""

    cell: int
    reason: StopReason
    limit: Optional[float] = None
    detail: Optional[str] = None


@dataclass(frozen=True)
class KernelAnswer:
    """The kernel's runner to the grader: each cell run, and where the run stopped."""

    cells: tuple
    stopped: Optional[KernelStop] = None


# -- their shapes on the wire -------------------------------------------------------
def _check(condition, what):
    if not condition:
        raise ProtocolError(what)


def _text_list(value, what):
    _check(type(value) is list and all(type(v) is str for v in value), f"{what}: not texts")
    return tuple(value)


def _number(value, what):
    _check(type(value) in (int, float) and value >= 0, f"{what}: not a number >= 0")
    return value


def _optional_int(value, what):
    _check(value is None or type(value) is int, f"{what}: not a whole number")
    return value


def _stop_record(stop):
    record = {"cell": stop.cell, "reason": stop.reason.value}
    if stop.limit is not None:
        record["limit"] = stop.limit
    if stop.detail is not None:
        record["detail"] = stop.detail
    return record


def _stop_from(record):
    _check(type(record) is dict and {"cell", "reason"} <= set(record)
           <= {"cell", "reason", "limit", "detail"}, "stopped: not a stop")
    _check(type(record["cell"]) is int and record["cell"] >= 0, "stopped.cell")
    try:
        reason = StopReason(record["reason"])
    except ValueError:
        raise ProtocolError(f"stopped.reason: unknown {record['reason']!r}") from None
    limit = record.get("limit")
    _check(limit is None or type(limit) in (int, float), "stopped.limit")
    detail = record.get("detail")
    _check(detail is None or type(detail) is str, "stopped.detail")
    return KernelStop(record["cell"], reason, limit, detail)


def _to_wire(message):
    """The JSON object of ``message``."""
    kind = type(message)
    if kind is PartHeader:
        return {"cells": list(message.cells), "func": message.func, "sweep": message.sweep,
                "forbidden": list(message.forbidden), "allowed": list(message.allowed)}
    if kind is Case:
        return {"case": message.index, "args": message.args}
    if kind is End:
        return {"end": True}
    if kind is Answer:
        if message.error is not None:
            return {"case": message.index, "error": message.error}
        return {"case": message.index, "value": message.value}
    if kind is PartEnd:
        record = {"part_end": message.status}
        if message.tampered:
            record["tampered"] = True
        return record
    if kind is KernelRequest:
        return {"cells": list(message.cells), "cell_timeout": message.cell_timeout,
                "budget": message.budget, "output_bytes": message.output_bytes}
    if kind is KernelAnswer:
        return {"cells": [{"outputs": c.outputs, "execution_count": c.execution_count}
                          for c in message.cells],
                "stopped": None if message.stopped is None else _stop_record(message.stopped)}
    raise TypeError(f"not a message of the protocol: {message!r}")


def _keys(record, required, optional=()):
    return type(record) is dict and set(required) <= set(record) \
        <= set(required) | set(optional)


def _from_wire(record, kind):
    """The message of type ``kind`` that the JSON object ``record`` is, or None."""
    if kind is PartHeader and _keys(record, ("cells", "func", "sweep", "forbidden",
                                             "allowed")):
        _check(type(record["func"]) is str and record["func"].isidentifier(), "func")
        _check(type(record["sweep"]) is bool, "sweep")
        return PartHeader(_text_list(record["cells"], "cells"), record["func"],
                          record["sweep"], _text_list(record["forbidden"], "forbidden"),
                          _text_list(record["allowed"], "allowed"))
    if kind is Case and _keys(record, ("case", "args")):
        _check(type(record["case"]) is int, "case")
        return Case(record["case"], record["args"])
    if kind is End and record == {"end": True}:
        return End()
    if kind is Answer and (_keys(record, ("case", "value")) or _keys(record, ("case", "error"))):
        _check(type(record["case"]) is int, "case")
        if "error" in record:
            _check(type(record["error"]) is str, "error")
            return Answer(record["case"], error=record["error"])
        return Answer(record["case"], value=record["value"])
    if kind is Ran and _keys(record, ("ran",)):
        _check(type(record["ran"]) is str, "ran")
        return Ran(record["ran"])
    if kind is PartEnd and _keys(record, ("part_end",), ("tampered",)):
        _check(type(record["part_end"]) is int, "part_end")
        _check(record.get("tampered", True) is True, "tampered")
        return PartEnd(record["part_end"], "tampered" in record)
    if kind is KernelRequest and _keys(record, ("cells", "cell_timeout", "budget",
                                                "output_bytes")):
        _check(type(record["output_bytes"]) is int, "output_bytes")
        return KernelRequest(_text_list(record["cells"], "cells"),
                             _number(record["cell_timeout"], "cell_timeout"),
                             _number(record["budget"], "budget"),
                             _number(record["output_bytes"], "output_bytes"))
    if kind is KernelAnswer and _keys(record, ("cells", "stopped")):
        _check(type(record["cells"]) is list, "cells")
        cells = []
        for cell in record["cells"]:
            _check(_keys(cell, ("outputs", "execution_count")), "cells: not a cell run")
            _check(type(cell["outputs"]) is list, "cells: outputs")
            cells.append(CellRun(cell["outputs"],
                                 _optional_int(cell["execution_count"], "execution_count")))
        stopped = None if record["stopped"] is None else _stop_from(record["stopped"])
        return KernelAnswer(tuple(cells), stopped)
    return None


#: The exit status of a part's process that finds its answer channel replaced when
#: it has code to report: its runner reports the part as tampered with.
TAMPERED_EXIT = 86

# JSON's escape of a string in ASCII, in C where the interpreter has it.
_ESCAPE = json.encoder.c_encode_basestring_ascii or json.encoder.py_encode_basestring_ascii


def ran_line(description, _escape=_ESCAPE, _encode=str.encode):
    """The bytes that send ``Ran(description)``, as :func:`encode` sends them.

    Built only from what it was given when this module was loaded (its defaults:
    a function of the interpreter's, in C, and ``str.encode``), and looking up
    no name of a module at run time, so that the code a part runs cannot change
    what it writes by rebinding names (``encode``, ``json.dumps``) in the
    modules it can reach.
    """
    return b'{"ran": ' + _encode(_escape(description), "ascii") + b"}\n"


def encode(message):
    """The bytes that send ``message``: one line of JSON, or a part's header framed
    by its length in bytes on a line of its own."""
    if type(message) is Ran:
        return ran_line(message.description)
    data = json.dumps(_to_wire(message), allow_nan=False).encode()
    if type(message) is PartHeader:
        return b"%d\n" % len(data) + data
    return data + b"\n"


def decode(data, *kinds, max_bytes=None):
    """The message of one of ``kinds`` that ``data`` (a line, or a whole answer) holds.

    Raises :class:`ProtocolError` for anything else: more than ``max_bytes``
    bytes, JSON that is not valid or too deep, or an object of another shape.
    """
    if max_bytes is not None and len(data) > max_bytes:
        raise ProtocolError(f"more than {max_bytes} bytes")
    try:
        record = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not valid JSON ({type(exc).__name__})") from None
    for kind in kinds:
        message = _from_wire(record, kind)
        if message is not None:
            return message
    raise ProtocolError(f"not a {' or '.join(k.__name__ for k in kinds)}")


#: The bytes of :class:`End`, as sent.
END = encode(End())


def write_all(fd, data):
    """Write all of ``data`` to the (blocking) descriptor ``fd``."""
    while data:
        data = data[os.write(fd, data):]


def read_header(fd):
    """The next :class:`PartHeader` from ``fd``; None at the end of the input.

    Read byte by byte and then to the exact length, so that nothing after the
    header (the part's cases, meant for its process alone) is ever read here.
    Raises :class:`ProtocolError` for a header that is not one.
    """
    digits = b""
    while not digits.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte or len(digits) > _HEADER_DIGITS:
            return None
        digits += byte
    try:
        size = int(digits)
    except ValueError:
        raise ProtocolError("a header's length is not a number") from None
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return decode(data, PartHeader)
