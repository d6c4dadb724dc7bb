"""The protocol between the grader and its runners: markers and framing, spelled once.

Both sides import this module: the runners inside the sandbox (there it is
``sandboxrunner.protocol``) and :mod:`coursegrader.judging.judge` on the host.

The judge's runner (:mod:`.part_runner`) reads from its stdin, for each part,
a header framed by :func:`frame_header` (its length in bytes on one line,
then the JSON ``{"cells": [source, ...], "func": "name", ...}``), then the
part's cases one JSON line at a time (:func:`case_line`), each sent after the
previous answer, and finally :data:`END`.  Answers come back as one JSON line
per case on the runner's stdout (:func:`answer_line`); the runner's own line
:func:`part_end_line` comes on its stderr, a channel no part can write to,
once the part's process has ended.

The kernel's runner (:mod:`.kernel_runner`) reads one JSON request on stdin
and writes one JSON answer on stdout.
"""

import json
import os

__all__ = ["END_RECORD", "END", "PART_END", "frame_header", "read_header", "case_line",
           "answer_line", "part_end_line", "parse_part_end", "write_all"]

#: the grader's record that ends a part's cases, and its line without the newline
END_RECORD = {"end": True}
END = json.dumps(END_RECORD).encode()
#: how the runner's line starts once a part's process has ended
PART_END = b'{"part_end": '
_HEADER_DIGITS = 20


def write_all(fd, data):
    """Write all of ``data`` to the (blocking) descriptor ``fd``."""
    while data:
        data = data[os.write(fd, data):]


def _line(record):
    return (json.dumps(record, allow_nan=False) + "\n").encode()


def frame_header(record):
    """A part's header as sent: its length in bytes on one line, then its JSON."""
    data = json.dumps(record, allow_nan=False).encode()
    return b"%d\n" % len(data) + data


def read_header(fd):
    """The next part's header from ``fd``; None at the end of the input.

    Read byte by byte and then to the exact length, so that nothing after the
    header (the part's cases, meant for its process alone) is ever read here.
    """
    digits = b""
    while not digits.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte or len(digits) > _HEADER_DIGITS:
            return None
        digits += byte
    size, data = int(digits), b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def case_line(index, encoded_args):
    """The line that hands case ``index`` (arguments already encoded) to a part."""
    return _line({"case": index, "args": encoded_args})


def answer_line(index, *, value=None, error=None):
    """A part's answer to case ``index``: an encoded ``value``, or an ``error``."""
    if error is not None:
        return _line({"case": index, "error": error})
    return _line({"case": index, "value": value})


def part_end_line(status, tampered=False):
    """The runner's line once a part's process ended with ``status``."""
    record = {"part_end": status}
    if tampered:
        record["tampered"] = True
    return _line(record)


def parse_part_end(line):
    """(status, tampered) of a runner's ``part_end`` line; None for another line.

    Raises ValueError when the line starts as one but cannot be read.
    """
    if not line.startswith(PART_END):
        return None
    try:
        record = json.loads(line)
        return int(record["part_end"]), record.get("tampered") is True
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"unreadable part_end line: {exc}") from None
