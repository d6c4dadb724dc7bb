"""Due dates, extensions and late penalties, through nbgrader's gradebook and `make`.

One copy of the course with ps1: three students hand in the reference
solution at different times, nbgrader autogrades them once, and then due
dates move and extensions are granted; each export must follow without any
grading run.
"""

import csv
import datetime as dt
import html
import re
from pathlib import Path

import pytest
from sqlalchemy import text

from coursegrader.tools.course import Course, fill_answers
from coursegrader.late_policy import CourseCalendar, LatePolicy
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = [pytest.mark.slow,
              pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

# handed in (UTC): alice on time, bob 2 days and an hour late, carol 6 days late
HANDED_IN = {"alice": "2026-10-05 20:00:00", "bob": "2026-10-08 00:59:00",
             "carol": "2026-10-11 23:00:00"}
DUE = "2026-10-05 23:59:00"


def exported(course, *args):
    make(course, "export", "PS=ps1", "FORCE=1", *args)   # written parts not graded yet
    with open(course.root / "grades.csv", newline="") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def gradebook_state(course):
    """Everything the commands here may change: due dates and extensions."""
    with course.gradebook() as gb:
        due = {a.name: a.duedate for a in gb.assignments}
        rows = gb.db.execute(text(
            "SELECT assignment, student_id, until FROM coursegrader_extension "
            "ORDER BY assignment, student_id")).all()
    return due, [tuple(r) for r in rows]


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("deadlines")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{s},{s.title()},Example,{s}@uni.example\n" for s in HANDED_IN)
        + "dave,Dave,Example,dave@uni.example\n")
    (c.root / "due_dates.csv").write_text(f"assignment,due\nps1,{DUE}\n")
    make(c, "db", "PS=ps1")
    c.nbgrader("generate_assignment", "ps1")
    for student, when in HANDED_IN.items():
        c.hand_in(student, "ps1", fill_answers(c.released("ps1"), c.source("ps1")),
                  timestamp=f"{when}.000000 UTC")
    c.nbgrader("autograde", "ps1")
    with c.gradebook() as gb:
        c.max_score = float(gb.find_assignment("ps1").max_score)
        c.raw = {s.student.id: float(s.score) for s in gb.assignment_submissions("ps1")}
        c.graded_at = {s.student.id: [(g.name, g.auto_score) for nb in s.notebooks
                                      for g in nb.grades]
                       for s in gb.assignment_submissions("ps1")}
    return c


def test_late_policy_defaults_and_days():
    policy = LatePolicy()
    day = 86400
    assert policy.penalty(8, 10, 0) == 0
    assert policy.penalty(8, 10, 1) == pytest.approx(1.0)       # part of a day: one day
    assert policy.penalty(8, 10, day) == pytest.approx(1.0)
    assert policy.penalty(8, 10, day + 1) == pytest.approx(2.0)
    assert policy.penalty(8, 10, 5 * day) == pytest.approx(5.0)
    assert policy.penalty(8, 10, 5 * day + 1) == 8               # zero after five days
    assert policy.penalty(3, 10, 4 * day) == 3                   # never below zero
    assert LatePolicy(of="score").penalty(8, 10, 2 * day) == pytest.approx(1.6)
    with pytest.raises(Exception, match="time_zone"):
        CourseCalendar(time_zone="Mars/Olympus")


def test_make_db_sets_the_due_date_formgrader_shows(course):
    with course.gradebook() as gb:
        assert gb.find_assignment("ps1").duedate == dt.datetime(2026, 10, 5, 23, 59)
        # what Formgrader's assignment list shows (it was None before)
        assert gb.find_assignment("ps1").to_dict()["duedate"] == "2026-10-05T23:59:00"


def test_export_applies_the_default_policy_from_each_timestamp(course):
    rows = exported(course)
    top, raw = course.max_score, course.raw   # the written answer is not graded yet
    assert 0 < raw["bob"] < top
    assert float(rows["alice"]["score"]) == pytest.approx(raw["alice"])
    assert rows["alice"]["late_submission_penalty"] == "0"
    assert rows["bob"]["days_late"] == "3"                       # 2 days and 60 minutes
    assert float(rows["bob"]["raw_score"]) == pytest.approx(raw["bob"])
    assert float(rows["bob"]["late_submission_penalty"]) == pytest.approx(0.3 * top)
    assert float(rows["bob"]["score"]) == pytest.approx(raw["bob"] - 0.3 * top)
    assert float(rows["carol"]["score"]) == 0                    # more than five days
    assert float(rows["dave"]["score"]) == 0 and rows["dave"]["timestamp"] == ""
    assert rows["bob"]["duedate"] == f"{DUE} UTC"
    assert rows["bob"]["timestamp"] == "2026-10-08 00:59:00 UTC"


def test_extension_and_moved_due_date_change_the_export_without_grading(course):
    make(course, "extend", "PS=ps1", "STUDENT=bob", "UNTIL=2026-10-08 12:00:00")
    rows = exported(course)
    assert float(rows["bob"]["score"]) == pytest.approx(course.raw["bob"])
    assert rows["bob"]["duedate"] == "2026-10-08 12:00:00 UTC"
    assert float(rows["carol"]["score"]) == 0
    # an accommodations file for many students, then the due date moves for all
    (course.root / "accommodations.csv").write_text(
        "assignment,student_id,until\nps1,carol,2026-10-10 23:59:00\n")
    make(course, "extend", "FILE=accommodations.csv")
    (course.root / "due_dates.csv").write_text(
        "assignment,due\nps1,2026-10-06 23:59:00\n")
    make(course, "db", "PS=ps1")
    rows = exported(course)
    assert rows["carol"]["days_late"] == "1"
    assert float(rows["carol"]["score"]) == pytest.approx(
        course.raw["carol"] - 0.1 * course.max_score)
    assert rows["bob"]["duedate"] == "2026-10-08 12:00:00 UTC"  # extension still later
    assert rows["alice"]["duedate"] == "2026-10-06 23:59:00 UTC"
    with course.gradebook() as gb:                               # nothing graded again
        assert {s.student.id: [(g.name, g.auto_score) for nb in s.notebooks
                               for g in nb.grades]
                for s in gb.assignment_submissions("ps1")} == course.graded_at
    # back to the original due date for the tests after this one
    (course.root / "due_dates.csv").write_text(f"assignment,due\nps1,{DUE}\n")
    make(course, "db", "PS=ps1")


@pytest.mark.parametrize("line, field, message", [
    ("ps1,mallory,2026-10-09 12:00:00", "student_id", "no student 'mallory'"),
    ("ps1,alice,2026-13-09 12:00", "until",
     "not a date of the form YYYY-MM-DD HH:MM:SS"),
    ("ps9,alice,2026-10-09 12:00:00", "assignment", "no problem set 'ps9'"),
    ("ps1,alice,2026-10-01 12:00:00", "until", "is not later than the due date"),
])
def test_bad_accommodations_name_file_line_field_and_change_nothing(course, line, field,
                                                                     message):
    before = gradebook_state(course)
    (course.root / "bad.csv").write_text(
        "assignment,student_id,until\nps1,alice,2026-10-20 12:00:00\n" + line + "\n")
    done = make(course, "extend", "FILE=bad.csv", check=False)
    assert done.returncode != 0
    assert f"bad.csv, line 3, field {field}: " in done.stderr and message in done.stderr
    assert "nothing in the gradebook was changed" in done.stderr
    assert gradebook_state(course) == before                    # alice's good line too


def test_bad_due_dates_file_changes_nothing(course):
    before = gradebook_state(course)
    (course.root / "bad_due.csv").write_text("assignment,due\nps1,2026-11-01 10:00:00\n"
                                             "ps1,tomorrow\n")
    done = make(course, "db", "PS=ps1", "DUE_DATES=bad_due.csv", check=False)
    assert done.returncode != 0
    assert "bad_due.csv, line 3, field due: 'tomorrow' is not a date" in done.stderr
    assert gradebook_state(course) == before
    (course.root / "no_header.csv").write_text("ps1,2026-11-01 10:00:00\n")
    done = make(course, "db", "PS=ps1", "DUE_DATES=no_header.csv", check=False)
    assert "no_header.csv, line 1: missing column(s) assignment, due" in done.stderr


def test_extend_on_the_command_line_checks_its_arguments(course):
    done = make(course, "extend", "PS=ps1", "STUDENT=alice", "UNTIL=next week",
                check=False)
    assert done.returncode != 0 and "field until" in done.stderr
    done = make(course, "extend", "STUDENT=alice", "UNTIL=2026-10-20 10:00:00",
                check=False)
    assert done.returncode != 0 and "name one problem set" in done.stderr


def test_time_zone_of_the_course(course):
    calendar = CourseCalendar(time_zone="Europe/Berlin")
    assert calendar.parse("2026-07-01 12:00:00") == dt.datetime(2026, 7, 1, 10, 0)
    assert calendar.show(dt.datetime(2026, 12, 1, 10, 0)) == \
        "2026-12-01 11:00:00 Europe/Berlin"


def _due_note(page):
    """The text of the page's due-date note (the page also inlines MathJax,
    whose script holds stray angle brackets, so tags are stripped only here)."""
    found = re.search(r'<div class="due-date">(.*?)</div>', page, re.S)
    assert found, "no due-date note on the feedback page"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).split())


def test_feedback_shows_due_date_and_penalty(course):
    # bob's own due date, whatever extension he had before: 2 days late
    make(course, "extend", "PS=ps1", "STUDENT=bob", "UNTIL=2026-10-07 00:00:00")
    for student in ("alice", "bob"):
        course.nbgrader("generate_feedback", "ps1", "--force", f"--student={student}",
                        "--RefuseHalfGraded.allow_ungraded=True")   # written parts not graded yet
    page = (course.root / "feedback" / "bob" / "ps1" / "ps1.html").read_text()
    penalty = round(0.2 * course.max_score, 2)
    assert _due_note(page) == ("Due 2026-10-07 00:00:00 UTC (your extension); "
                               "handed in 2026-10-08 00:59:00 UTC: 2 day(s) late, "
                               f"late penalty {penalty} points. "
                               "Time of hand-in: set by the instructor.")
    assert f"Late submission penalty (Score: -{penalty})" in page
    score = round(course.raw["bob"] - penalty, 2)
    assert f"(Score: {score} / {course.max_score})" in page
    alice = (course.root / "feedback" / "alice" / "ps1" / "ps1.html").read_text()
    assert _due_note(alice) == (f"Due {DUE} UTC; handed in 2026-10-05 20:00:00 UTC: "
                                "on time. Time of hand-in: set by the instructor.")
    assert "Late submission penalty" not in alice
