"""Nothing half-graded leaves by accident: `make export` and `make lti_scores`.

A new instructor exports while one student's written part is not graded yet
(nbgrader's ``needs_manual_grade``, as autograde leaves a written answer):
the export must be refused, naming student, problem set and part, and write
nothing; ``FORCE=1`` writes it with that row marked provisional, and the
classmate's fully graded row is unchanged and not marked. The gradebook is
nbgrader's, filled through its API, in a folder with the course's
nbgrader_config.py and Makefile.
"""

import csv
import datetime as dt
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

CANVAS = ("Student,ID,SIS User ID,SIS Login ID,Section,ps1 (4401)\n"
          "    Points Possible,,,,,\n"
          '"Example, Alice",1021,S0001,alice,K,\n'
          '"Example, Bob",1022,S0002,bob,K,\n')


@pytest.fixture
def course(slow, tmp_path):
    """ps1: an auto-graded part (6 points) and a written one (4); alice is graded
    in full, bob's written part still waits for a grader."""
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", root)
    shutil.copy(COURSE / "Makefile", root)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id="kernel-methods") as gb:
        gb.add_assignment("ps1", duedate=dt.datetime(2026, 10, 5, 23, 59))
        gb.add_notebook("ps1", "ps1")
        gb.add_grade_cell("kernel_matrix", "ps1", "ps1", max_score=6, cell_type="code")
        gb.add_grade_cell("closure_proofs", "ps1", "ps1", max_score=4,
                          cell_type="markdown")
        for sid in ("alice", "bob"):
            gb.add_student(sid, first_name=sid.title(), last_name="Example",
                           email=f"{sid}@uni.example")
            gb.add_submission("ps1", sid, timestamp=dt.datetime(2026, 10, 5, 12))
            code = gb.find_grade("kernel_matrix", "ps1", "ps1", sid)
            code.auto_score, code.needs_manual_grade = 6, False
            written = gb.find_grade("closure_proofs", "ps1", "ps1", sid)
            written.auto_score, written.needs_manual_grade = None, True
            if sid == "alice":         # what Formgrader records when a score is entered
                written.manual_score, written.needs_manual_grade = 3, False
            gb.db.commit()
    (root / "canvas.csv").write_text(CANVAS)
    return root


def make(root, *args):
    return subprocess.run(["make", *args, "PS=ps1", f"PYTHON={sys.executable}"], cwd=root,
                          capture_output=True, text=True, timeout=300)


REFUSED = ("1 part(s) still need grading by hand", "  bob, ps1, closure_proofs",
           "FORCE=1")


@pytest.mark.parametrize("args, out", [
    ((), "grades.csv"),
    (("LMS=canvas", "ROSTER=canvas.csv"), "grades-canvas.csv"),
    (("LMS=moodle",), "grades-moodle.csv"),
])
def test_export_is_refused_while_a_part_awaits_grading(course, args, out):
    done = make(course, "export", *args)
    assert done.returncode != 0
    for text in REFUSED:
        assert text in done.stderr, done.stderr
    assert "alice" not in done.stderr             # her parts are all graded
    assert not (course / out).exists()


def test_forced_export_marks_the_provisional_row_only(course):
    done = make(course, "export", "FORCE=1")
    assert done.returncode == 0, done.stderr
    assert "1 grade(s) written as provisional" in done.stderr
    rows = {r["student_id"]: r for r in csv.DictReader(open(course / "grades.csv"))}
    assert rows["bob"]["provisional"] == "still to grade by hand: closure_proofs"
    assert rows["bob"]["score"] == "6"
    assert rows["alice"]["provisional"] == "" and rows["alice"]["score"] == "9"


def test_forced_lms_exports_name_the_provisional_grades(course):
    done = make(course, "export", "FORCE=1", "LMS=canvas", "ROSTER=canvas.csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(open(course / "grades-canvas.csv")))
    assert rows[0] == CANVAS.splitlines()[0].split(",")    # no column Canvas would import
    assert [r[5] for r in rows[1:]] == ["10", "9", "6"]
    listing = (course / "grades-canvas-provisional.txt").read_text()
    assert "bob, ps1: still to grade by hand: closure_proofs" in listing
    assert "alice" not in listing and "closure_proofs" in done.stderr

    assert make(course, "export", "FORCE=1", "LMS=moodle").returncode == 0
    rows = {r["ID number"]: r for r in csv.DictReader(open(course / "grades-moodle.csv"))}
    assert rows["bob"]["Provisional"] == "ps1 still to grade by hand: closure_proofs"
    assert rows["alice"]["Provisional"] == "" and rows["alice"]["ps1"] == "9"


def test_lti_scores_are_refused_before_the_lms_is_reached(course):
    (course / "lti.json").write_text(json.dumps({
        "issuer": "https://lms.invalid", "client_id": "1",
        "token_url": "http://127.0.0.1:9/token",             # nothing listens there
        "lineitems_url": "http://127.0.0.1:9/line_items",
        "memberships_url": "http://127.0.0.1:9/names_and_roles",
        "private_key": "lti-key.pem"}))
    done = make(course, "lti_scores")
    assert done.returncode != 0, done.stdout + done.stderr
    for text in REFUSED:
        assert text in done.stderr, done.stderr
    assert "no scores sent to the LMS" in done.stderr
    assert "LMS refused" not in done.stderr and "LTI:" not in done.stderr
