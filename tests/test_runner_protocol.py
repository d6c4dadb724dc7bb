"""The protocol between the grader and the runners (coursegrader/runners/protocol.py)."""

import json
import os

import pytest

from coursegrader.runners import protocol


def test_a_header_is_read_to_its_length_and_no_further():
    read, write = os.pipe()
    try:
        header = {"cells": ["def f(x):\n    return x  # é"], "func": "f"}
        case = protocol.case_line(0, [1.5])
        protocol.write_all(write, protocol.frame_header(header) + case)
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


def test_part_end_lines_round_trip_and_other_lines_are_not_taken_for_one():
    assert protocol.parse_part_end(protocol.part_end_line(-9).rstrip()) == (-9, False)
    line = protocol.part_end_line(0, tampered=True).rstrip()
    assert protocol.parse_part_end(line) == (0, True)
    assert protocol.parse_part_end(b'{"case": 0, "value": 1}') is None
    with pytest.raises(ValueError):
        protocol.parse_part_end(b'{"part_end": "nine"}')
    with pytest.raises(ValueError):
        protocol.parse_part_end(b'{"part_end": 1')


def test_answers_and_the_end_marker():
    answer = json.loads(protocol.answer_line(3, value=[2.0]))
    assert answer == {"case": 3, "value": [2.0]}
    assert json.loads(protocol.answer_line(3, error="raised")) == {"case": 3,
                                                                   "error": "raised"}
    assert json.loads(protocol.END) == protocol.END_RECORD
    with pytest.raises(ValueError):     # a case that is not plain JSON is never sent
        protocol.case_line(0, [float("nan")])
