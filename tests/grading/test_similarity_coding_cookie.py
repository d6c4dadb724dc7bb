"""`make autograde` then `make similarity`: a classmate's answers hidden in a cell
that every reader but Python's takes for a comment, under a coding cookie.

kim adds a code cell before part 1's answer whose first line is
``# coding: utf-7`` and whose second is a comment holding ada's answer cells
in UTF-7, each line break written ``+AAo-``: Jupyter, a person and the text of
the cell read one comment line.  Her part 1 answer cell holds the same text as
a string, writes it to a module and imports it (``import``, or
``pathlib`` and ``importlib.import_module``): Python reads the file under its
cookie and runs ada's answers, whose bytes are those of her own cell.  Working
code is working code (full marks), but every part reports source text in an
unusual encoding, the cell flags her on its own, and her code, read as Python
reads it, is ada's.  ada's grade does not change.
"""

import ast
import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from coursegrader import record
from coursegrader.tools.course import Course, fill_answers

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

#: the answer cell that writes the hidden text ``{text}`` to a module and takes
#: ``{names}`` from it (after handing it the notebook's names it uses)
WRITERS = {
    "kim_import": ('with open("kmnotes.py", "w") as _f:\n'
                   "    _f.write({text})\n"
                   "import kmnotes\n"
                   "kmnotes.V, kmnotes.gram, kmnotes.CANDIDATES = V, gram, CANDIDATES\n"
                   "from kmnotes import {names}\n"),
    "kim_importlib": ("import pathlib, importlib\n"
                      'pathlib.Path("kmnotes2.py").write_text({text})\n'
                      '_k = importlib.import_module("kmnotes2")\n'
                      "_k.V, _k.gram, _k.CANDIDATES = V, gram, CANDIDATES\n"
                      "{names} = {attributes}\n"),
}


def _utf7(text):
    """``text`` in UTF-7, its line breaks written ``+AAo-``: one line to any reader
    but Python's."""
    return "+AAo-".join(line.encode("utf-7").decode("ascii") for line in text.split("\n"))


def _answer_ids(source):
    return [c.metadata["nbgrader"]["grade_id"] for c in source.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


def _hidden_in_a_comment(reference, source, writer):
    """``reference`` (ada's answers) hidden as a comment under ``# coding: utf-7`` in
    a cell added before the first answer cell, which writes it to a module and
    imports it; the other answer cells only point at it; written answers her own."""
    nb = copy.deepcopy(reference)
    ids = _answer_ids(source)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in ids]
    program = "import numpy as np, math, itertools\n" + "\n".join(c.source for c in answers)
    names = [n.name for c in answers for n in ast.parse(c.source).body
             if isinstance(n, ast.FunctionDef)]
    hidden = "# coding: utf-7\n# Notes on the feature maps, kept for myself. " \
        + _utf7("\n" + program) + "\n"
    added = copy.deepcopy(answers[0])
    added.metadata, added.id = {}, "notes"
    added.source = hidden
    nb.cells.insert(nb.cells.index(answers[0]), added)
    answers[0].source = WRITERS[writer].format(
        text=json.dumps(hidden), names=", ".join(names),
        attributes=", ".join(f"_k.{n}" for n in names))
    for cell in answers[1:]:
        cell.source = "# see the notes module\n"
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "markdown" and cell.metadata["nbgrader"].get("solution"):
            cell.source = f"{writer}: my own few words on {grade_id}."
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("coding_cookie")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    released, source = c.released("ps1"), c.source("ps1")
    reference = fill_answers(released, source)
    c.hand_in("ada", "ps1", reference)
    for writer in WRITERS:
        c.hand_in(writer, "ps1", _hidden_in_a_comment(reference, source, writer))
    make = ["make", f"PYTHON={sys.executable}", "PS=ps1"]
    done = subprocess.run(make + ["autograde"], cwd=c.root, capture_output=True,
                          text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    done = subprocess.run(make + ["similarity"], cwd=c.root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with open(c.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = {frozenset((r["student_a"], r["student_b"])): r for r in csv.DictReader(f)}
    records = {s: record.load(c.root / "autograded" / s / "ps1", "ps1")
               for s in ("ada", *WRITERS)}
    return c, done.stdout, rows, records


def test_the_honest_classmate_keeps_full_marks_and_is_not_flagged(graded):
    _, said, _, records = graded
    ada = records["ada"]
    assert ada.score == ada.points, (ada.score, ada.points)
    assert ada.unsubmitted_code == ()
    assert "flagged on its own: ada" not in said, said


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_code_hidden_in_a_utf7_comment_is_reported_in_every_part(graded, writer):
    """It works (full marks: the autograder cannot tell), and every part names the
    source text Python read in another encoding than the cell's."""
    _, _, _, records = graded
    kim, ada = records[writer], records["ada"]
    assert kim.score == ada.points, (kim.score, ada.points)
    assert {u.part for u in kim.unsubmitted_code} == {p.part for p in kim.parts}
    assert all("source text in an unusual encoding (utf-7)" in u.how
               for u in kim.unsubmitted_code), kim.unsubmitted_code


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_the_cell_flags_her_on_its_own_and_reads_as_the_classmates_code(graded, writer):
    c, said, rows, _ = graded
    line = next((l for l in said.splitlines()
                 if l.startswith(f"  flagged on its own: {writer}:")), None)
    assert line is not None, said
    assert "a cell only Python reads as it runs, from a file" in line, line
    assert "declares the encoding utf-7" in line, line
    assert "ran code it did not hand in as source" in line, line
    row = rows[frozenset((writer, "ada"))]
    assert row["flagged"] == "true" and float(row["code"]) >= 0.9, row
