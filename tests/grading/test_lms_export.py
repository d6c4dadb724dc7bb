"""`make export LMS=canvas|moodle`: grades after the late policy, in the LMS's CSV.

The gradebook is nbgrader's, filled through its API (two problem sets, grades
given by hand), in a folder with the course's nbgrader_config.py and Makefile.
"""

import csv
import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

# student id -> (email, {ps: (points, handed in)}); ps1 due 2026-10-05 23:59 UTC
STUDENTS = {
    "alice": ("alice@uni.example", {"ps1": (8, "2026-10-05 12:00"),
                                    "ps2": (9, "2026-10-12 12:00")}),
    "S0002": ("bob@uni.example", {"ps1": (10, "2026-10-06 10:00")}),  # 1 day late
    "dave": ("dave@uni.example", {"ps1": (4, "2026-10-01 12:00")}),
}

CANVAS = ("Student,ID,SIS User ID,SIS Login ID,Section,ps1 (4401),ps2 (4402),"
          "Current Points,Final Score\n") + """\
    Points Possible,,,,,,,(read only),(read only)
"Example, Alice",1021,S0001,alice,Kernel Methods 2026,,,0,0
"Example, Bob",1022,S0002,bob.example,Kernel Methods 2026,,,0,0
"Example, Erin",1023,S0005,erin,Kernel Methods 2026,3,,0,0
"Student, Test",1099,,,Kernel Methods 2026,,,0,0
"""


@pytest.fixture
def course(slow, tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", root)
    shutil.copy(COURSE / "Makefile", root)
    db = f"sqlite:///{root / 'gradebook.db'}"
    with Gradebook(db, course_id="kernel-methods") as gb:
        for ps, due in (("ps1", dt.datetime(2026, 10, 5, 23, 59)),
                        ("ps2", dt.datetime(2026, 10, 12, 23, 59))):
            gb.add_assignment(ps, duedate=due)
            gb.add_notebook(ps, ps)
            gb.add_grade_cell("answer", ps, ps, max_score=10, cell_type="markdown")
        for sid, (email, work) in STUDENTS.items():
            gb.add_student(sid, first_name=sid.title(), last_name="Example",
                           email=email)
            for ps, (points, when) in work.items():
                gb.add_submission(ps, sid, timestamp=dt.datetime.fromisoformat(when))
                grade = gb.find_grade("answer", ps, ps, sid)
                grade.manual_score = points
                grade.needs_manual_grade = False    # graded, as Formgrader records it
                gb.db.commit()
    return root


def make(root, *args, check=True):
    done = subprocess.run(["make", "export", *args, f"PYTHON={sys.executable}"],
                          cwd=root,
                          capture_output=True, text=True, timeout=300)
    if check and done.returncode:
        raise AssertionError(done.stdout + done.stderr)
    return done


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_canvas_roster_filled_in_place_and_unmatched_listed(course):
    # Canvas writes a byte-order mark
    (course / "canvas.csv").write_text(CANVAS, encoding="utf-8-sig")
    done = make(course, "LMS=canvas", "ROSTER=canvas.csv")
    rows = read(course / "grades-canvas.csv")
    original = list(csv.reader(CANVAS.splitlines()))
    assert rows[0] == original[0]                          # every column kept, in order
    assert len(rows) == len(original)
    by_name = {r[0]: r for r in rows}
    assert by_name["    Points Possible"][5:7] == ["10", "10"]
    assert by_name["Example, Alice"][5:7] == ["8", "9"]    # by SIS Login ID, on time
    assert by_name["Example, Bob"][5:7] == ["9", "0"]      # by SIS User ID; 1 day late
    assert by_name["Example, Erin"] == original[4]         # not in the gradebook
    assert by_name["Example, Alice"][7:] == ["0", "0"]     # read-only columns untouched
    listed = (course / "grades-canvas-unmatched.txt").read_text()
    for text in (listed, done.stderr):
        assert "line 5: Example, Erin (SIS Login ID erin, SIS User ID S0005)" in text
        assert "line 6: Student, Test (no SIS id)" in text
        assert "In the gradebook but not in the Canvas roster" in text
        assert "dave" in text


def test_export_follows_a_new_extension(course):
    (course / "canvas.csv").write_text(CANVAS)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_student("erin", first_name="Erin", last_name="Example")
    subprocess.run([sys.executable, "-m", "coursegrader.tools.deadlines", "extend", "ps1",
                    "S0002", "2026-10-07 00:00:00"], cwd=course, check=True,
                   capture_output=True)
    make(course, "LMS=canvas", "ROSTER=canvas.csv")
    by_name = {r[0]: r for r in read(course / "grades-canvas.csv")}
    assert by_name["Example, Bob"][5] == "10"
    assert by_name["Example, Erin"][5:7] == ["0", "0"]     # now known, no work


@pytest.mark.parametrize("header, message", [
    ("Student,ID,Section,ps1 (4401),ps2 (4402)",
     "no column SIS Login ID or SIS User ID"),
    ("Name,SIS Login ID,ps1,ps2", "no column Student, ID, Section"),
    ("Student,ID,SIS User ID,SIS Login ID,Section,ps1 (4401)",
     "no column for problem set ps2"),
])
def test_canvas_roster_without_a_matching_column_is_refused(course, header, message):
    (course / "roster.csv").write_text(
        header + "\n\"Example, Alice\",1021,S0001,alice,A\n")
    done = make(course, "LMS=canvas", "ROSTER=roster.csv", check=False)
    assert done.returncode != 0
    assert f"roster.csv, line 1: {message}" in done.stderr
    assert not (course / "grades-canvas.csv").exists()


def test_moodle_import_file_by_id_number_and_email(course):
    make(course, "LMS=moodle")
    rows = read(course / "grades-moodle.csv")
    assert rows[0] == ["ID number", "Email address", "First name", "Last name",
                       "ps1", "ps2"]
    assert rows[1:] == [["S0002", "bob@uni.example", "S0002", "Example", "9", "0"],
                        ["alice", "alice@uni.example", "Alice", "Example", "8", "9"],
                        ["dave", "dave@uni.example", "Dave", "Example", "4", "0"]]
    (course / "moodle.csv").write_text(
        "First name,Last name,ID number,Institution,Department,Email address\n"
        "Alice,Example,alice,Uni,CS,a.example@uni.example\n"
        "Bob,Example,,Uni,CS,BOB@uni.example\n"
        "Frank,Example,frank,Uni,CS,frank@uni.example\n"
        "Ada,Other,,Uni,CS,ALICE@UNI.EXAMPLE\n"
        "Alice,Again,alice,Uni,CS,\n")
    done = make(course, "LMS=moodle", "ROSTER=moodle.csv")
    rows = read(course / "grades-moodle.csv")
    assert [r[0] for r in rows[1:]] == ["alice", "S0002"]
    assert "line 4: frank/frank@uni.example" in done.stderr
    # a second row that matches a student already matched is named, not dropped
    assert "line 5: /ALICE@UNI.EXAMPLE (the student of line 2 again: not matched)" \
        in done.stderr
    assert "line 6: alice/ (the student of line 2 again: not matched)" in done.stderr
    assert "In the gradebook but not in the Moodle roster" in done.stderr
    assert "dave" in done.stderr


def test_plain_export_states_due_date_and_penalty(course):
    make(course)
    with open(course / "grades.csv", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    bob = rows[("ps1", "S0002")]
    assert bob["duedate"] == "2026-10-05 23:59:00 UTC"
    assert bob["raw_score"] == "10" and bob["late_submission_penalty"] == "1"
    assert bob["score"] == "9"
    dave = rows[("ps2", "dave")]
    assert dave["timestamp"] == "" and dave["score"] == "0"


def test_an_email_two_students_share_matches_neither(course):
    """A student registered with a classmate's email in other capitals cannot take
    the classmate's row of a Moodle roster matched by email: neither is matched,
    and the instructor is told why."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="kernel-methods") as gb:
        gb.add_student("eve", first_name="Eve", last_name="Example", email="DAVE@uni.example")
    # without a roster, the shared email is left out of both rows (match by ID number)
    done = make(course, "LMS=moodle")
    rows = {r[0]: r[1] for r in read(course / "grades-moodle.csv")[1:]}
    assert rows["dave"] == rows["eve"] == "" and rows["alice"] == "alice@uni.example"
    assert "1 email(s) shared by several students left out" in done.stderr
    (course / "moodle.csv").write_text(
        "First name,Last name,ID number,Email address\n"
        "Dave,Example,,dave@uni.example\n"
        "Eve,Example,,DAVE@uni.example\n"
        "Alice,Example,alice,alice@uni.example\n")
    done = make(course, "LMS=moodle", "ROSTER=moodle.csv")
    rows = read(course / "grades-moodle.csv")
    assert [r[0] for r in rows[1:]] == ["alice"]          # nobody's grade is given to eve
    assert "line 2: /dave@uni.example (an email several students share" in done.stderr
    assert "line 3: /DAVE@uni.example (an email several students share" in done.stderr
