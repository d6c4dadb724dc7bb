"""Write ``coursecheck/answers.json``: expected values of the public cases, as data.

Most parts' references are kernlab calls, which the student package may run.
A part whose reference is worked out in the grader (it would show the
solution) gives ``answers=public_answers(...)`` in ``coursecheck`` instead, and
this module computes those public expected values with the grader's reference:
``python -m coursegrader.tools.answers`` after changing such a part or its public
cases (``tests/test_coursecheck.py`` fails while the file is out of date).
"""

import json
import sys

from coursecheck import problems as public_problems
from coursecheck.serial import encode
from coursecheck.parts import ANSWERS_FILE

from ..judging.problem_sets import get_parts

__all__ = ["compute_answers", "write_answers", "ASSIGNMENTS"]

ASSIGNMENTS = ("ps1", "ps2", "ps3", "ps4", "ps5")


def compute_answers(assignments=ASSIGNMENTS):
    """{ps: {part_id: {label: encoded expected value}}} for parts given by answers."""
    import importlib
    table = {}
    for ps in assignments:
        public = importlib.import_module(f"{public_problems.__name__}.{ps}").PARTS
        for part_id, part in get_parts(ps).items():
            if public[part_id].answers is None:
                continue
            cases = public[part_id].public()
            labels = [c.label for c in cases]
            if len(set(labels)) != len(labels):
                raise ValueError(f"{ps} {part_id}: public case labels must be unique")
            table.setdefault(ps, {})[part_id] = {
                c.label: encode(part.reference(*c.args)) for c in cases}
    return table


def write_answers(path=ANSWERS_FILE):
    """Write the table to ``path``; return the path."""
    path.write_text(json.dumps(compute_answers(), indent=1, sort_keys=True, allow_nan=False)
                    + "\n")
    return path


if __name__ == "__main__":
    print(f"wrote {write_answers()}")
    sys.exit(0)
