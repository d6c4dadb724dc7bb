"""The protocol between the grader and the runners (coursegrader/runners/protocol.py)."""

import json
import os

import pytest

from coursegrader.runners import protocol
from coursegrader.runners.protocol import (Answer, Case, CellRun, End, KernelAnswer,
                                           KernelRequest, KernelStop, PartEnd, PartHeader,
                                           ProtocolError, StopReason, decode, encode)


def test_a_header_is_read_to_its_length_and_no_further():
    read, write = os.pipe()
    try:
        header = PartHeader(("def f(x):\n    return x  # é",), "f", sweep=True)
        case = encode(Case(0, [1.5]))
        protocol.write_all(write, encode(header) + case)
        assert protocol.read_header(read) == header
        assert os.read(read, 1 << 16) == case       # the case is left for the part
        assert json.loads(case) == {"case": 0, "args": [1.5]}
    finally:
        os.close(read)
        os.close(write)


def test_the_end_of_the_input_gives_no_header():
    read, write = os.pipe()
    os.write(write, b"12\n{\"cells\"")     # cut short
    os.close(write)
    try:
        assert protocol.read_header(read) is None
    finally:
        os.close(read)


def test_a_header_that_is_not_one_is_refused():
    read, write = os.pipe()
    data = json.dumps({"cells": ["x = 1"], "func": "not a name", "sweep": True,
                       "forbidden": [], "allowed": []}).encode()
    os.write(write, b"%d\n" % len(data) + data)
    os.close(write)
    try:
        with pytest.raises(ProtocolError, match="func"):
            protocol.read_header(read)
    finally:
        os.close(read)


def test_part_ends_round_trip_and_other_lines_are_not_taken_for_one():
    assert decode(encode(PartEnd(-9)).rstrip(), PartEnd) == PartEnd(-9, False)
    assert decode(encode(PartEnd(0, tampered=True)), PartEnd) == PartEnd(0, True)
    with pytest.raises(ProtocolError):
        decode(b'{"case": 0, "value": 1}', PartEnd)
    with pytest.raises(ProtocolError):
        decode(b'{"part_end": "nine"}', PartEnd)
    with pytest.raises(ProtocolError):
        decode(b'{"part_end": 1', PartEnd)
    with pytest.raises(ProtocolError):        # "tampered" is said only as true
        decode(b'{"part_end": 0, "tampered": false}', PartEnd)


@pytest.mark.parametrize("description", [
    "source text compiled (<cell 1>: <module>)", 'a "quoted" \\ name\n', "\U0001F600" * 200,
    "\udcff lone surrogate"])
def test_a_report_line_is_the_json_of_its_message(description):
    """The line the part's report writes (built from what was bound when the
    protocol loaded) is the JSON line the grader reads back."""
    line = protocol.ran_line(description)
    assert line == encode(protocol.Ran(description))
    assert line == json.dumps({"ran": description}).encode() + b"\n"
    assert decode(line, protocol.Ran) == protocol.Ran(description)


def test_answers_and_the_end_marker():
    assert json.loads(encode(Answer(3, value=[2.0]))) == {"case": 3, "value": [2.0]}
    assert json.loads(encode(Answer(3, error="raised"))) == {"case": 3, "error": "raised"}
    assert decode(encode(Answer(3, error="raised")), Answer) == Answer(3, error="raised")
    assert protocol.END == b'{"end": true}\n' == encode(End())
    assert decode(protocol.END, Case, End) == End()
    assert decode(encode(Case(2, [1])), Case, End) == Case(2, [1])
    with pytest.raises(ValueError):     # a case that is not plain JSON is never sent
        encode(Case(0, [float("nan")]))
    with pytest.raises(ProtocolError):  # an answer is never taken for a case
        decode(encode(Answer(0, value=1)), Case, End)


def test_reads_are_bounded_in_bytes_and_depth():
    line = encode(Answer(0, value="x" * 100))
    assert decode(line, Answer, max_bytes=len(line)) == Answer(0, value="x" * 100)
    with pytest.raises(ProtocolError, match="more than"):
        decode(line, Answer, max_bytes=len(line) - 1)
    with pytest.raises(ProtocolError, match="not valid JSON"):
        decode(b"[" * 200000 + b"]" * 200000, Answer)


def test_the_kernel_runners_messages_round_trip_with_their_stop_reasons():
    request = KernelRequest(("x = 1", "print(x)"), 60, 600.0, 4096)
    assert decode(encode(request), KernelRequest) == request
    answer = KernelAnswer((CellRun([{"output_type": "stream", "name": "stdout",
                                     "text": "1\n"}], 1), CellRun([], None)),
                          KernelStop(1, StopReason.CELL_TIMEOUT, limit=60))
    assert decode(encode(answer), KernelAnswer) == answer
    assert json.loads(encode(answer))["stopped"] == {"cell": 1, "reason": "cell_timeout",
                                                     "limit": 60}
    for stopped in ({"cell": 0, "why": "a sentence"},             # no free text for why
                    {"cell": 0, "reason": "status 9"},             # only the enumerated ones
                    {"cell": -1, "reason": "budget"}):
        with pytest.raises(ProtocolError):
            decode(json.dumps({"cells": [], "stopped": stopped}).encode(), KernelAnswer)
    with pytest.raises(ProtocolError):
        decode(json.dumps({"cells": [{"outputs": "x", "execution_count": 1}],
                           "stopped": None}).encode(), KernelAnswer)
