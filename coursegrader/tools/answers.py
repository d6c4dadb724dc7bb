"""Write the course's ``problems/answers.json``: expected values of the public cases, as data.

Most parts' references are kernlab calls, which the student package may run.
A part whose reference is worked out in the grader (it would show the
solution) gives ``answers=public_answers(...)`` in its public half instead,
and this module computes those public expected values with the grader's
reference (the course's ``hidden/psN.py``): ``python -m
coursegrader.tools.answers`` in the course folder after changing such a part
or its public cases (``tests/student/test_coursecheck.py`` fails while the file is out
of date).  A part that varies and is judged this way (``variant_answers``) gets
one table for each variant of its problem set's finite space
(``VARIANT.space``), keyed by ``variant_key``.
"""

import argparse
import json
import sys
from pathlib import Path

from coursecheck.parts import ANSWERS_FILE, variant_key
from coursecheck.serial import encode
from coursecheck.variants import bind, variation

from ..judging.problem_sets import graded_parts, public_parts
from ..settings import find_course

__all__ = ["problem_sets", "compute_answers", "write_answers"]


def problem_sets(course):
    """The problem sets of the course folder ``course``: ``problems/psN.py``, in order."""
    return sorted(p.stem for p in (Path(course) / "problems").glob("ps*.py"))


def _encoded(ps, part_id, part):
    cases = part.public()
    labels = [c.label for c in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"{ps} {part_id}: public case labels must be unique")
    return {c.label: encode(part.reference(*c.args)) for c in cases}


def compute_answers(course):
    """{ps: {part_id: {label: encoded expected value}}} for the parts given by answers;
    for a part that varies, {ps: {part_id: {variant key: {label: ...}}}}."""
    table = {}
    for ps in problem_sets(course):
        public = public_parts(ps)
        for part_id, part in graded_parts(course, ps).items():
            if public[part_id].answers is None:
                continue
            if not part.varies:
                table.setdefault(ps, {})[part_id] = _encoded(ps, part_id, part)
                continue
            found = variation(ps)
            if found is None or found.space is None:
                raise ValueError(f"{ps} {part_id}: a part that varies is judged by a table "
                                 "per variant only when VARIANT.space lists the variants")
            table.setdefault(ps, {})[part_id] = {
                variant_key(params): _encoded(ps, part_id, bind(part, params))
                for params in found.space()}
    return table


def write_answers(course):
    """Write the table to the course's ``problems/answers.json``; return its path."""
    path = Path(course) / "problems" / ANSWERS_FILE
    path.write_text(json.dumps(compute_answers(course), indent=1, sort_keys=True,
                               allow_nan=False) + "\n")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.answers",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--course", type=Path, default=None,
                        help="the course folder (default: the one holding this folder)")
    args = parser.parse_args(argv)
    print(f"wrote {write_answers(args.course or find_course())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
