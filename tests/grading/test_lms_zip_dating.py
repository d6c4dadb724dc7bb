"""``make zip_collect``: the LMS dates a submission and names the student; one bad
member fails only itself.

A Canvas zip as Canvas writes it (``<name>_[LATE_]<user id>_<file id>_<file>``,
every entry dated when the archive was made): ada on time, bob marked
``LATE_`` by Canvas, both with the reference solution. bob also uploads a
``timestamp.txt`` saying he handed in long before the due date, and a
notebook whose Canvas name starts with ada's. Then members no LMS writes but
a crafted archive can hold: a student part longer than the file system
allows in a name, ``../`` and an absolute name. eve renames herself "Ada" in
Canvas, so her file's name starts as ada's does, and hands in a blank
notebook: with Canvas's gradebook CSV as the roster (``ROSTER=``), her file is
hers, not ada's. The class must be collected and graded, the command must end non-zero with the table naming each member
skipped, bob's grade must carry Canvas's late marker (one day, 10 - 1.6 =
8.4 points, not 10) and ada keeps 10. ``make export`` says where each time
came from, and so does the feedback page.
"""

import csv
import io
import zipfile
from pathlib import Path

import nbformat
import pytest

from coursegrader import dating
from coursegrader.tools.course import Course, fill_answers
from coursegrader.tools.lms_zip import LmsZipExtractor, plan
from lms_zips import canvas_roster, canvas_zip
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
LONG = "x" * 300
CANVAS = LmsZipExtractor.named_regexp.default_value
LIMITS = dict(max_files=100, max_file_bytes=10 * 1024**2, max_total_bytes=50 * 1024**2)

pytestmark = [pytest.mark.timeout(1200),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lmsdating")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="lms-dating-secret", part_timeout=20)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n"
                                         "ada,Ada,Example,ada@uni.example\n"
                                         "bob,Bob,Example,bob@uni.example\n"
                                         "eve,Eve,Example,eve@uni.example\n")
    (c.root / "canvas.csv").write_text(canvas_roster([
        ("Ada Example", 10, "S1", "ada"), ("Bob Example", 30, "S2", "bob"),
        ("Ada", 11, "S3", "eve")]))
    (c.root / "due_dates.csv").write_text(f"assignment,due\n{PS},2026-10-05 23:59:00\n")
    make(c, "db", f"PS={PS}")
    c.nbgrader("generate_assignment", PS)
    solved = nbformat.writes(fill_answers(c.released(PS), c.source(PS))).encode()
    blank = nbformat.writes(c.released(PS)).encode()
    upload = tmp / "submissions.zip"
    upload.write_bytes(canvas_zip([
        ("ada_10_20_ps1.ipynb", solved),
        ("ada_11_21_ps1.ipynb", blank),                 # eve, renamed "Ada"
        ("bob_LATE_30_40_ps1.ipynb", solved),
        ("bob_LATE_30_41_timestamp.txt", b"2026-10-01 00:00:00.000000 UTC"),
        ("bob_LATE_30_42_ada_10_20_ps1.ipynb", blank),
        (f"{LONG}_50_60_ps1.ipynb", blank),
        ("../ada_10_20_ps1.ipynb", blank),
        ("/ada_10_20_ps1.ipynb", blank),
    ]))
    c.run = make(c, "zip_collect", f"PS={PS}", f"ZIP={upload}", "ROSTER=canvas.csv",
                 "JOBS=2", check=False)
    # the written parts are not graded by hand here: provisional grades
    c.export = make(c, "export", f"PS={PS}", "FORCE=1", check=False)
    # the feedback page (returned through the LMS: the exchange's release_feedback
    # needs the exchange's submission_secret.txt, which an LMS's zip has not)
    c.feedback = c.nbgrader("generate_feedback", PS, "--force",
                            "--RefuseHalfGraded.allow_ungraded=True", check=False)
    return c


def test_one_bad_member_fails_itself_and_the_run_ends_non_zero_naming_it(course):
    run = course.run
    assert run.returncode != 0
    assert "What was taken from" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    table = run.stdout.rsplit("What was taken from", 1)[1]
    assert f"LMS user 50 ({LONG}) is not a student of the roster" in table
    assert "a name with '..'" in table
    assert "an absolute name or one with backslashes" in table
    assert "5 member(s) of the LMS's zip not taken" in run.stderr
    assert "Students matched by their Canvas account in canvas.csv (3 accounts)" in table
    assert course.code_scores(PS) == {"ada": (10.0, 10.0), "bob": (10.0, 10.0),
                                      "eve": (0.0, 10.0)}
    submitted = sorted(p.name for p in (course.root / "submitted").iterdir())
    assert submitted == ["ada", "bob", "eve"]


def test_the_lms_late_marker_counts_and_the_students_timestamp_does_not(course):
    assert course.export.returncode == 0, course.export.stderr
    with open(course.root / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert float(rows["ada"]["score"]) == 10 and rows["ada"]["days_late"] == "0"
    assert rows["bob"]["days_late"] == "1"
    assert float(rows["bob"]["score"]) == pytest.approx(8.4)
    assert "the LMS marked it late" in rows["bob"]["time_source"]
    assert "the LMS marked it on time" in rows["ada"]["time_source"]
    found = dating.read(course.root / "submitted" / "bob" / PS)
    assert found.source is dating.Source.LMS_MARKER and found.lms_late is True
    assert found.time is None and rows["bob"]["timestamp"] == ""   # no time is known


def test_a_time_in_the_lms_names_dates_the_submission_within_a_sane_range():
    stamped = (r"(?P<student_id>[^_]+)_attempt_(?P<timestamp>[0-9-]+ [0-9:]+)"
               r"_(?P<file_id>.+)\.ipynb")
    members = [("ada_attempt_2026-10-05 12:00:00_ps1.ipynb", b"{}"),
               ("bob_attempt_0001-01-01 00:00:00_ps1.ipynb", b"{}"),
               ("eve_attempt_2026-13-45 99:00:00_ps1.ipynb", b"{}")]
    with zipfile.ZipFile(io.BytesIO(canvas_zip(members))) as zf:
        planned = {m.student: m for m in plan([("a.zip", zf)], named_regexp=stamped,
                                              notebooks={"ps1.ipynb"}, **LIMITS)}
    assert planned["ada"].why == "" and planned["ada"].timestamp.year == 2026
    assert "not a plausible submission time" in planned["bob"].why
    assert "cannot be read" in planned["eve"].why


def test_zip_entry_times_count_only_when_the_instructor_says_the_lms_writes_them():
    members = [("ada_10_20_ps1.ipynb", b"{}")]
    with zipfile.ZipFile(io.BytesIO(canvas_zip(members))) as zf:
        plain, = plan([("a.zip", zf)], named_regexp=CANVAS, notebooks={"ps1.ipynb"},
                      **LIMITS)
        berlin, = plan([("a.zip", zf)], named_regexp=CANVAS, notebooks={"ps1.ipynb"},
                       entry_time_zone="Europe/Berlin", **LIMITS)
    assert plain.entry_time is None and plain.late is False
    assert str(berlin.entry_time) == "2026-11-20 08:00:00"     # 09:00 in Berlin, UTC


def test_the_feedback_page_says_the_lms_marked_it_late_and_no_time_is_known(course):
    assert course.feedback == 0
    bob = (course.root / "feedback" / "bob" / PS / f"{PS}.html").read_text()
    assert "handed in at a time not known: 1 day(s) late" in " ".join(bob.split())
    assert ("Time of hand-in: the LMS's late marker only: its zip holds no submission "
            "time; the LMS marked it late.") in " ".join(bob.split())
    ada = (course.root / "feedback" / "ada" / PS / f"{PS}.html").read_text()
    assert "at a time not known: on time" in " ".join(ada.split())
