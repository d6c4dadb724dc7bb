"""The shared-folder exchange dates a submission by what the student cannot set back,
and takes it only from its owner.

Every student here is a real Unix account (created for the module, removed
after; root only), and every step is the course's own command: ``nbgrader
submit`` (as the student: the folder it leaves in inbound/ is then given to
the student, as a submit run under their account leaves it), ``make collect``,
``make autograde``, ``make export`` and ``make feedback``, in a course whose
time zone is west of UTC.

All of them hand in the reference solution now, four days (less an hour)
after the due date; ada has an extension and is on time. After ``nbgrader
submit`` each late student rewrites the ``timestamp.txt`` of their inbound
folder: to the due day, to 1970, to nothing, to "not a date", and to
``0001-01-01 00:00:00 UTC``. mallory drops a folder named after ada, holding
the blank release, into inbound/, and a link in her own name to ada's
folder. Every late submission must stay four days late (10 - 4 x 10 % of 16
= 3.6 points, not 10), ada must keep 10 (not mallory's 0), and every command
must finish for the whole class; collect exits non-zero naming mallory's
folder and her link.

Where several people share a machine, run it under ``flock`` on the lock file
the hub tests share: it creates Unix accounts.
"""

import csv
import datetime as dt
import os
import pwd
import zoneinfo
from pathlib import Path

import nbformat
import pytest

from coursegrader.late_policy import LatePolicy
from coursegrader.tools.course import Course, fill_answers
from unix_accounts import give_to, temporary_accounts
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
ZONE = "America/Los_Angeles"      # west of UTC
LATE_CLAIMS = {"due": None,       # filled in with the due day
               "epoch": "1970-01-01 00:00:00.000000 UTC",
               "empty": "",
               "nad": "not a date",
               "year1": "0001-01-01 00:00:00 UTC"}

pytestmark = [pytest.mark.timeout(1500),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]



@pytest.fixture(scope="module")
def accounts(slow):
    with temporary_accounts("dt", ["ada", "mallory", *LATE_CLAIMS]) as names:
        yield names


@pytest.fixture(scope="module")
def course(tmp_path_factory, accounts):
    tmp = tmp_path_factory.mktemp("folderdating")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="folder-dating-secret", part_timeout=20)
    config = c.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "c.ExchangeCollect.check_owner = True\n"
                      f"c.CourseCalendar.time_zone = {ZONE!r}\n")
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n" + "".join(
        f"{n},{r.title()},Example,{n}@uni.example\n" for r, n in accounts.items()))
    now = dt.datetime.now(zoneinfo.ZoneInfo(ZONE)).replace(microsecond=0, tzinfo=None)
    c.due = now - dt.timedelta(days=4) + dt.timedelta(hours=1)
    (c.root / "due_dates.csv").write_text(f"assignment,due\n{PS},{c.due:%Y-%m-%d %H:%M:%S}\n")
    LATE_CLAIMS["due"] = f"{c.due:%Y-%m-%d %H:%M:%S}.000000 {ZONE}"
    make(c, "db", f"PS={PS}")
    make(c, "extend", f"PS={PS}", f"STUDENT={accounts['ada']}",
         f"UNTIL={now + dt.timedelta(days=1):%Y-%m-%d %H:%M:%S}")
    c.nbgrader("generate_assignment", PS)
    c.nbgrader("release_assignment", PS)
    inbound = c.exchange / c.course_id / "inbound"
    for role, name in accounts.items():
        if role == "mallory":
            continue
        c.student(name, "fetch_assignment", PS)
        path = c.student_notebook_path(name, PS)
        nbformat.write(fill_answers(nbformat.read(path, as_version=4), c.source(PS)), path)
        c.student(name, "submit", PS)
        folder, = inbound.glob(f"{name}+{PS}+*")
        if role in LATE_CLAIMS:   # after submit: the student rewrites the claim
            (folder / "timestamp.txt").write_text(LATE_CLAIMS[role])
        give_to(folder, name)
    # mallory's folder, named after ada, newer than ada's by its name
    planted = inbound / f"{accounts['ada']}+{PS}+2099-01-01 00:00:00.000000 UTC+x"
    planted.mkdir()
    nbformat.write(c.released(PS), planted / f"{PS}.ipynb")
    (planted / "timestamp.txt").write_text("2099-01-01 00:00:00.000000 UTC")
    give_to(planted, accounts["mallory"])
    # and a link in her own name to ada's folder, to hand in ada's work as hers
    ada_folder, = inbound.glob(f"{accounts['ada']}+{PS}+2026*")
    link = inbound / f"{accounts['mallory']}+{PS}+2026-01-01 00:00:00.000000 UTC+y"
    link.symlink_to(ada_folder, target_is_directory=True)
    os.chown(link, pwd.getpwnam(accounts["mallory"]).pw_uid, -1, follow_symlinks=False)
    c.collect = make(c, "collect", f"PS={PS}", check=False)
    c.autograde = make(c, "autograde", f"PS={PS}", "JOBS=2", check=False)
    # the written parts are not graded by hand here: export and feedback go ahead
    # as provisional, which is what this module is not about
    c.export = make(c, "export", f"PS={PS}", "FORCE=1", check=False)
    c.feedback = make(c, "feedback", f"PS={PS}", "FORCE=1", check=False)
    return c


def exported(course):
    with open(course.root / "grades.csv", newline="") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def test_collect_refuses_the_folder_named_after_a_classmate_and_says_so(course, accounts):
    assert course.collect.returncode != 0
    said = course.collect.stdout + course.collect.stderr
    assert f"named after {accounts['ada']} but owned by {accounts['mallory']}" in said
    assert "2099-01-01" in said                      # the refused folder, named
    assert f"{accounts['mallory']}+{PS}+2026-01-01 00:00:00.000000 UTC+y': refused: " \
        "not a folder" in said                       # her link to ada's folder
    submitted = course.root / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(
        n for r, n in accounts.items() if r != "mallory")


def test_every_late_submission_stays_late_whatever_its_timestamp_says(course, accounts):
    assert course.autograde.returncode == 0, course.autograde.stderr[-3000:]
    assert course.export.returncode == 0, course.export.stderr[-3000:]
    rows = exported(course)
    assert len(rows) == len(accounts)                # every student, mallory too
    ada = rows[accounts["ada"]]
    assert float(ada["raw_score"]) == 10 and float(ada["score"]) == 10   # not mallory's 0
    assert ada["days_late"] == "0"
    policy, top = LatePolicy(), float(ada["max_score"])
    assert top == 16
    late = 10 - policy.penalty(10, top, 4 * 86400)
    assert late == pytest.approx(3.6)
    for role in LATE_CLAIMS:
        row = rows[accounts[role]]
        assert float(row["raw_score"]) == 10, role
        assert row["days_late"] == "4", role
        assert float(row["score"]) == pytest.approx(late), role
        assert row["timestamp"].endswith(ZONE), role
        assert "ctime" in row["time_source"], role
    assert float(rows[accounts["mallory"]]["score"]) == 0


def test_the_collected_time_is_the_routes_and_the_claim_is_kept_beside(course, accounts):
    from coursegrader import dating
    for role in LATE_CLAIMS:
        folder = course.root / "submitted" / accounts[role] / PS
        found = dating.read(folder)
        assert found.source is dating.Source.FOLDER
        utc_due = course.due.replace(tzinfo=zoneinfo.ZoneInfo(ZONE)).astimezone(
            dt.timezone.utc).replace(tzinfo=None)
        assert found.time > utc_due + dt.timedelta(days=3, hours=22), role
        assert found.claimed == LATE_CLAIMS[role], role
        stamp = (folder / "timestamp.txt").read_text()
        assert stamp == found.time.strftime("%Y-%m-%d %H:%M:%S.%f") + " UTC"


def test_feedback_finishes_for_everyone_and_says_where_the_time_came_from(course, accounts):
    assert course.feedback.returncode == 0, course.feedback.stderr[-3000:]
    for role in ["ada", *LATE_CLAIMS]:
        page, = (course.root / "feedback" / accounts[role] / PS).glob("*.html")
        text = page.read_text()
        assert "Time of hand-in: the last change (ctime)" in text, role
        if role != "ada":
            assert "4 day(s) late" in text, role


@pytest.mark.slow
def test_a_bad_folder_fails_alone_and_collect_names_it(tmp_path, capfd):
    """One account plays every student here (the owner check off, as in a dry run):
    a link and a file in inbound/ with a student's name are refused, naming them;
    a timestamp.txt reading "not a date" stops nothing; everyone else is collected."""
    c = Course.copy_of(COURSE, tmp_path / "course", exchange=tmp_path / "exchange",
                       assignments=[PS])
    c.nbgrader("generate_assignment", PS)
    c.nbgrader("release_assignment", PS)
    for student in ("ada", "bob"):
        c.student(student, "fetch_assignment", PS)
        c.student(student, "submit", PS)
    inbound = c.exchange / c.course_id / "inbound"
    ada, = inbound.glob(f"ada+{PS}+*")
    bob, = inbound.glob(f"bob+{PS}+*")
    (bob / "timestamp.txt").write_text("not a date")
    (inbound / f"eve+{PS}+2026-01-01 00:00:00.000000 UTC+l").symlink_to(ada)
    (inbound / f"zed+{PS}+2026-01-01 00:00:00.000000 UTC+f").write_text("{}")
    status = c.nbgrader("collect", PS, check=False)
    assert status != 0
    said = capfd.readouterr().err
    for name in ("eve", "zed"):
        assert f"'{name}+{PS}+2026-01-01 00:00:00.000000 UTC+" in said, name
    assert said.count("refused: not a folder (a link, or a file)") >= 2
    assert sorted(p.name for p in (c.root / "submitted").iterdir()) == ["ada", "bob"]
    from coursegrader import dating
    assert dating.read(c.root / "submitted" / "bob" / PS).claimed == "not a date"


@pytest.mark.slow
def test_release_goes_through_every_problem_set_before_failing(tmp_path):
    """A problem set that fails (here one that does not exist) does not stop
    ``make release`` for the others; it ends non-zero naming it (``make collect``
    and ``make feedback`` loop the same way)."""
    c = Course.copy_of(COURSE, tmp_path / "course", exchange=tmp_path / "exchange",
                       assignments=[PS])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("generate_assignment", PS)
    release = make(c, "release", f"PS=nosuch {PS}", check=False)
    assert release.returncode != 0 and "release failed for: nosuch" in release.stderr
    assert (c.exchange / c.course_id / "outbound" / PS / f"{PS}.ipynb").is_file()
