"""A class graded the way an instructor runs it, attacked by accident and on purpose.

One copy of the course with ps1, run with the real commands: ``make db
generate release``, two students' ``nbgrader submit``, ``make collect
autograde``. Autograde leaves ps1's two written parts (Part 5,
``validity_arguments``, and Part 6, ``closure_proofs``) for a person, as it
does in every real class. Then:

- nothing half-graded leaves by accident: ``make feedback`` and Formgrader's
  "Generate Feedback" (nbgrader's API, which Formgrader's handlers call) refuse
  while a part awaits grading, naming it; once a student is graded in full,
  their feedback goes, and the classmate's grade does not move;
- student records stay private: every path written is ignored by the
  repository's ``assignments/.gitignore``, and every one the commands created
  is readable by the instructor alone (what Formgrader creates takes its
  server's umask), while the feedback released through the exchange stays
  readable by its student.
"""

import csv
import os
import stat
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.apps.api import NbGraderAPI
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory

from coursegrader.settings import course_config
from coursegrader.tools.course import Course, fill_answers
import course_steps

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "assignments"
WRITTEN = ("closure_proofs", "validity_arguments")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def make(course, *args, check=True):
    """A step of the course on ps1."""
    return course_steps.make(course, *args, "PS=ps1", check=check, timeout=900)


def paths_under(root):
    return {p.relative_to(root) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("halfgraded")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text(
        "id,first_name,last_name,email\nalice,Alice,Example,alice@uni.example\n"
        "bob,Bob,Example,bob@uni.example\n")
    c.before = paths_under(c.root)     # what the instructor put there, not the commands
    make(c, "db", "generate", "release")
    for student in ("alice", "bob"):
        c.student(student, "fetch_assignment", "ps1")
        path = c.student_notebook_path(student, "ps1")
        nb = fill_answers(nbformat.read(path, as_version=4), c.source("ps1"))
        nbformat.write(nb, path)
        c.student(student, "submit", "ps1")
    make(c, "collect", "autograde")
    return c


def grade_by_hand(course, student, scores):
    """What Formgrader's grade API does when a grader types a score."""
    with course.gradebook() as gb:
        for part, score in scores.items():
            grade = gb.find_grade(part, "ps1", "ps1", student)
            grade.manual_score = score
            grade.needs_manual_grade = False
        gb.db.commit()


def formgrader_api(course):
    """nbgrader's API as Formgrader's handlers build it, on the course's settings."""
    config = course_config(course.root)
    return NbGraderAPI(CourseDirectory(config=config), Authenticator(config=config),
                       config=config)


def feedback_pages(course):
    return sorted(p.relative_to(course.root / "feedback").parts[0]
                  for p in (course.root / "feedback").rglob("*.html")) \
        if (course.root / "feedback").exists() else []


def released(course):
    folder = course.exchange / course.course_id / "feedback"
    return sorted(folder.glob("*.html")) if folder.exists() else []


def test_make_feedback_refuses_while_written_parts_await_grading(course):
    done = make(course, "feedback", check=False)
    assert done.returncode != 0
    assert "refused: no feedback written or released: 4 part(s)" in done.stderr
    for student in ("alice", "bob"):
        for part in WRITTEN:
            assert f"  {student}, ps1, {part}" in done.stderr, done.stderr
    assert "make feedback FORCE=1" in done.stderr
    assert feedback_pages(course) == [] and released(course) == []


def test_formgrader_generate_feedback_refuses_each_half_graded_submission(course,
                                                                        monkeypatch):
    monkeypatch.chdir(course.root)
    before = set(os.listdir(course.root))
    api = formgrader_api(course)
    result = api.generate_feedback("ps1")          # Formgrader's "Generate Feedback"
    assert not result["success"]
    for student in ("alice", "bob"):               # the log Formgrader's dialog shows
        assert f"no feedback for {student} on ps1" in result["log"], result["log"]
        assert f"  {student}, ps1, validity_arguments" in result["log"]
    assert feedback_pages(course) == []

    # alice is graded in full in Formgrader: her feedback goes, bob's does not
    with course.gradebook() as gb:
        code_before = {s.student.id: float(s.code_score)
                       for s in gb.assignment_submissions("ps1")}
    grade_by_hand(course, "alice", {"validity_arguments": 3, "closure_proofs": 2})
    assert api.generate_feedback("ps1", "alice")["success"]
    assert not api.generate_feedback("ps1", "bob")["success"]
    assert feedback_pages(course) == ["alice"]
    assert api.release_feedback("ps1", "alice")["success"]
    assert len(released(course)) == 1
    page = (course.root / "feedback" / "alice" / "ps1" / "ps1.html").read_text()
    assert "Provisional" not in page
    with course.gradebook() as gb:
        subs = {s.student.id: s for s in gb.assignment_submissions("ps1")}
        assert {k: float(s.code_score) for k, s in subs.items()} == code_before
        assert float(subs["alice"].written_score) == 5
        assert subs["bob"].needs_manual_grade and not subs["alice"].needs_manual_grade
    # what Formgrader creates takes its server's umask, not the commands' (README)
    course.by_formgrader = set(os.listdir(course.root)) - before


def test_make_export_names_the_one_student_left_then_force_marks_only_them(course):
    done = make(course, "export", check=False)
    assert done.returncode != 0
    assert "  bob, ps1, validity_arguments" in done.stderr
    assert "alice, ps1" not in done.stderr
    make(course, "export", "FORCE=1")
    rows = {r["student_id"]: r for r in csv.DictReader(open(course.root / "grades.csv"))}
    assert rows["bob"]["provisional"] == ("still to grade by hand: closure_proofs "
                                          "validity_arguments")
    assert rows["alice"]["provisional"] == ""


def test_forced_feedback_says_provisional_then_graded_feedback_does_not(course):
    make(course, "feedback", "FORCE=1")
    bob = (course.root / "feedback" / "bob" / "ps1" / "ps1.html").read_text()
    assert "Provisional: 2 part(s) not graded" in bob
    assert "Provisional" not in (course.root / "feedback" / "alice" / "ps1"
                                 / "ps1.html").read_text()
    grade_by_hand(course, "bob", {"validity_arguments": 4, "closure_proofs": 1})
    make(course, "feedback")                         # nothing left: no FORCE needed
    assert "Provisional" not in (course.root / "feedback" / "bob" / "ps1"
                                 / "ps1.html").read_text()
    # the released pages stay readable by their students (0644 in the exchange)
    pages = released(course)
    assert len(pages) == 2
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in pages), \
        [oct(p.stat().st_mode) for p in pages]


def test_every_record_the_commands_write_is_private_and_ignored_by_git(course):
    make(course, "export", "FORCE=1")     # whatever is left to grade by hand
    # alice's notebook again, as Canvas names it in its zip of submissions
    archive = course.root.parent / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(course.root / "submitted" / "alice" / "ps1" / "ps1.ipynb",
                "alice_1021_5501_ps1.ipynb")
    make(course, "zip_collect", f"ZIP={archive}")
    make(course, "report")
    make(course, "similarity")
    (course.root / "lti.json").write_text(
        '{"issuer": "https://lms.example", "client_id": "1", "token_url": '
        '"https://lms.example/token", "lineitems_url": "https://lms.example/li", '
        '"memberships_url": "https://lms.example/m", "private_key": "lti-key.pem"}')
    course.before.add(Path("lti.json"))
    make(course, "lti_key")
    written = sorted(paths_under(course.root) - course.before)
    tops = {p.parts[0] for p in written}
    for expected in ("submitted", "autograded", "feedback", "gradelog", "report", "downloaded",
                     "gradebook.db", "grades.csv", "lti-key.pem"):
        assert expected in tops, f"{expected} was not written; the test saw {sorted(tops)}"

    # ignored by the repository's own rules, as if this were assignments/
    names = "".join(f"assignments/{p}{'/' if (course.root / p).is_dir() else ''}\n"
                    for p in written)
    check = subprocess.run(["git", "check-ignore", "--no-index", "--verbose",
                            "--non-matching", "--stdin"], cwd=REPO, input=names,
                           capture_output=True, text=True)
    assert check.returncode in (0, 1) and len(check.stdout.splitlines()) == len(written), \
        check.stderr
    not_ignored = [line.split("\t")[1] for line in check.stdout.splitlines()
                   if line.startswith("::")]
    assert not not_ignored, f"not ignored by git: {not_ignored}"

    # readable by the instructor alone: each top-level record the commands
    # created 0700 or 0600 ...
    for top in sorted(tops - getattr(course, "by_formgrader", set())):
        mode = stat.S_IMODE((course.root / top).stat().st_mode)
        want = 0o700 if (course.root / top).is_dir() else 0o600
        assert mode == want, f"{top}: mode {oct(mode)}, expected {oct(want)}"
    # ... so nothing under them is open to anyone else
    for path in written:
        if path.parts[0] in getattr(course, "by_formgrader", set()):
            continue
        chain = [course.root.joinpath(*path.parts[:i + 1]) for i in range(len(path.parts))]
        assert any(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in chain), path
    assert os.stat(course.root / "gradebook.db").st_mode & 0o077 == 0
