"""`make similarity` is bounded per submission: 8 MB of dead code makes a small page.

Three students hand in ps1 with their answers and 8 MB of dead code each, in
a cell of its own or below an answer (what once took a minute and wrote a
19 MB page). Their records are
written by the judge's own function (:func:`coursegrader.judging.cells.student_cells`,
which keeps at most ``record.ANSWER_BYTES`` of them, the smallest cells first);
a record holding all 8 MB (one written by hand, past that bound) must be bounded
by the check itself. The page says, for each of them, what was cut; their
answers are still compared.
"""

import copy
import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell

from coursegrader import record
from coursegrader.judging.cells import student_cells
from coursegrader.record import SubmissionResult
from coursegrader.tools.course import Course, fill_answers

from grading.ps1_honest import HONEST

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

DEAD = ("def unused_{i}(a, b):\n    c = a * {i} + b\n    for j in range(c):\n"
        "        c = c - j\n    return c\n\n")
PADDING = "".join(DEAD.format(i=i) for i in range(80_000))       # 8 MB


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _padded(released, answers, student):
    """``answers`` handed in with 8 MB of padding: the copier's in their first
    answer cell, below their answer; the others' in a cell of their own above
    every answer."""
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
        if student == "copier" and _grade_id(cell) == "quadratic_map_answer":
            cell.source += "\n\n" + PADDING
    if student != "copier":
        nb.cells.insert(2, new_code_cell(PADDING))
    return nb


def _write_record(c, student, answers):
    folder = c.root / "autograded" / student / "ps1"
    folder.mkdir(parents=True, exist_ok=True)
    result = SubmissionResult(assignment="ps1", student=student, notebook="ps1",
                              answers=answers)
    record.path(folder, "ps1").write_text(result.dumps(), encoding="utf-8")
    return record.path(folder, "ps1")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("similarity_bounds")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    return c


def _similarity(c):
    done = subprocess.run(["make", "similarity", "PS=ps1", f"PYTHON={sys.executable}"],
                          cwd=c.root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(c.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = {frozenset((r["student_a"], r["student_b"])): r for r in csv.DictReader(f)}
    page = c.root / "report" / "ps1-similarity.html"
    return rows, page.read_text(), page.stat().st_size


def test_eight_megabytes_of_dead_code_each_make_a_small_page(course):
    c = course
    released = c.released("ps1")
    reference = {_grade_id(cell): cell.source
                 for cell in fill_answers(released, c.source("ps1")).cells}
    sizes = {}
    for student, answers in (("alice", reference), ("bob", HONEST["bob"]),
                             ("copier", reference)):
        cells = student_cells(_padded(released, answers, student), record.ANSWER_BYTES)
        sizes[student] = _write_record(c, student, cells).stat().st_size
        # the record keeps every other cell whole: the padded one is what is cut
        kept = {a.cell: a for a in cells if a.cell}
        assert [a.omitted > 0 for a in cells].count(True) == 1
        assert all(kept[part].omitted == 0 for part in answers
                   if part in kept and part != "quadratic_map_answer")
        assert sum(a.omitted for a in cells) > 7_000_000
    assert max(sizes.values()) < 2 * record.ANSWER_BYTES
    rows, page, size = _similarity(c)
    assert rows[frozenset(("alice", "copier"))]["flagged"] == "true"
    assert rows[frozenset(("alice", "bob"))]["flagged"] == "false"
    assert size < 200_000
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    for student in ("alice", "bob", "copier"):
        assert re.search(rf"{student}: \d+(\.\d)? MB of its cells beyond what the record "
                         rf"keeps not compared; code cut at 100 kB", text), student


def test_a_record_past_the_judges_bound_is_bounded_by_the_check(course):
    """A record holding all 8 MB (written past the judge's bound) is cut by the
    check's own bounds, and the copy in it still found."""
    c = course
    released = c.released("ps1")
    reference = {_grade_id(cell): cell.source
                 for cell in fill_answers(released, c.source("ps1")).cells}
    for student in ("alice", "bob", "copier"):
        (c.root / "autograded" / student / "ps1" / "ps1.result.json").unlink(missing_ok=True)
    for student, answers in (("alice", reference), ("bob", HONEST["bob"]),
                             ("copier", reference)):
        cells = student_cells(_padded(released, answers, student), 10**9)
        assert sum(len(a.source) for a in cells) > 8_000_000
        _write_record(c, student, cells)
    rows, page, size = _similarity(c)
    assert rows[frozenset(("alice", "copier"))]["flagged"] == "true"
    assert rows[frozenset(("alice", "bob"))]["flagged"] == "false"
    assert size < 200_000
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert re.search(r"copier: code cut at 100 kB: \d+(\.\d)? MB of \d+(\.\d)? MB", text)
