"""An administrator's chmod of inbound/ changes no grade's lateness; a student's edit
after the deadline makes nothing earlier.

Real Unix accounts (created for the module, removed after; root only), and the
course's own commands: ``nbgrader submit`` as each student, ``make collect``,
``make db``, ``make autograde``, ``make export``. ada (the classmate) and bob
hand in before the due date and are collected; then the due date passes.
bob, after it, puts the reference solution in place of his blank notebook in
his inbound folder, sets its modification time back and copies his old
``timestamp.txt`` over; an administrator then runs ``chmod -R`` over
inbound/, which moves every folder's change time past the due date. At the
next ``make collect`` ada's files are the ones first seen before the due
date: she stays on time with 10 (not a day late), her ``time_source`` says
the collector's ledger dated her; bob's files are new, dated after the due
date: his 10 is a day late (10 less the policy's penalty), never on time.

Where several people share a machine, run it under ``flock`` on the lock file
the hub tests share: it creates Unix accounts.
"""

import csv
import datetime as dt
import os
import shutil
import stat
import subprocess
import time
import zoneinfo
from pathlib import Path

import nbformat
import pytest

from coursegrader import dating
from coursegrader.late_policy import LatePolicy
from coursegrader.tools.course import Course, fill_answers
from unix_accounts import give_to, temporary_accounts
from coursegrader.tools.first_seen import LEDGER
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
ZONE = "America/Los_Angeles"

pytestmark = [pytest.mark.timeout(1500),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def set_due(course, due):
    (course.root / "due_dates.csv").write_text(f"assignment,due\n{PS},{due:%Y-%m-%d %H:%M:%S}\n")
    make(course, "db", f"PS={PS}")


@pytest.fixture(scope="module")
def accounts(slow):
    with temporary_accounts("fs", ("ada", "bob")) as names:
        yield names


@pytest.fixture(scope="module")
def course(tmp_path_factory, accounts):
    tmp = tmp_path_factory.mktemp("firstseen")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="first-seen-secret", part_timeout=20)
    config = c.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "c.ExchangeCollect.check_owner = True\n"
                      f"c.CourseCalendar.time_zone = {ZONE!r}\n")
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n" + "".join(
        f"{n},{r.title()},Example,{n}@uni.example\n" for r, n in accounts.items()))
    zone = zoneinfo.ZoneInfo(ZONE)
    set_due(c, dt.datetime.now(zone) + dt.timedelta(days=1))       # not yet due
    c.nbgrader("generate_assignment", PS)
    c.nbgrader("release_assignment", PS)
    inbound = c.exchange / c.course_id / "inbound"
    c.folders = {}
    for role, name in accounts.items():
        c.student(name, "fetch_assignment", PS)
        path = c.student_notebook_path(name, PS)
        if role == "ada":
            nbformat.write(fill_answers(nbformat.read(path, as_version=4), c.source(PS)), path)
        c.student(name, "submit", PS)
        c.folders[role], = inbound.glob(f"{name}+{PS}+*")
        give_to(c.folders[role], name)
    c.first_collect = make(c, "collect", f"PS={PS}")
    c.first = {r: dating.read(c.root / "submitted" / n / PS) for r, n in accounts.items()}
    # the due date passes: it is now, to the second (the course's calendar)
    due = dt.datetime.now(zone).replace(microsecond=0, tzinfo=None)
    set_due(c, due)
    c.utc_due = due.replace(tzinfo=zone).astimezone(dt.timezone.utc).replace(tzinfo=None)
    time.sleep(1.5)
    # bob, after the due date, hands in the solution in his old folder, its
    # modification time and his timestamp.txt set back as they were
    bob = c.folders["bob"]
    notebook = bob / f"{PS}.ipynb"
    before = os.stat(notebook)
    solved = fill_answers(nbformat.read(notebook, as_version=4), c.source(PS))
    nbformat.write(solved, notebook)
    os.utime(notebook, ns=(before.st_atime_ns, before.st_mtime_ns))
    give_to(bob, accounts["bob"])
    # the administrator's chmod -R over inbound/: every mode as it was, every
    # change time now
    subprocess.run(["chmod", "-R", "u+r", str(inbound)], check=True)
    c.ctimes = {r: dating.folder_time(f) for r, f in c.folders.items()}
    c.second_collect = make(c, "collect", f"PS={PS}")
    make(c, "autograde", f"PS={PS}", "JOBS=2")
    make(c, "export", f"PS={PS}", "FORCE=1")
    with open(c.root / "grades.csv", newline="") as f:
        c.rows = {r["student_id"]: r for r in csv.DictReader(f)}
    return c


def test_the_administrators_chmod_moved_every_change_time_past_the_due_date(course):
    """What makes the test mean something: without the ledger both would be late."""
    for role in ("ada", "bob"):
        assert course.first[role].time < course.utc_due, role
        assert course.ctimes[role] > course.utc_due, role


def test_the_classmate_stays_on_time_dated_by_the_ledger(course, accounts):
    ada = course.rows[accounts["ada"]]
    assert float(ada["raw_score"]) == 10 and float(ada["score"]) == 10
    assert ada["days_late"] == "0"
    assert "first found these same files" in ada["time_source"]
    found = dating.read(course.root / "submitted" / accounts["ada"] / PS)
    assert found.source is dating.Source.FIRST_SEEN
    assert found.time == course.first["ada"].time


def test_files_changed_after_the_due_date_are_late_whatever_else_is_set_back(course, accounts):
    bob = course.rows[accounts["bob"]]
    policy, top = LatePolicy(), float(bob["max_score"])
    assert float(bob["raw_score"]) == 10                     # the solution was collected
    assert bob["days_late"] == "1"
    assert float(bob["score"]) == pytest.approx(10 - policy.penalty(10, top, 86400))
    assert "ctime" in bob["time_source"]
    found = dating.read(course.root / "submitted" / accounts["bob"] / PS)
    assert found.source is dating.Source.FOLDER and found.time > course.utc_due


def test_the_ledger_is_the_instructors_alone_and_ignored_by_git(course):
    ledger = course.root / LEDGER
    assert ledger.is_file()
    assert stat.S_IMODE(ledger.stat().st_mode) & 0o077 == 0
    assert ledger.stat().st_uid == os.geteuid()
    git = shutil.which("git")
    if git:
        subprocess.run([git, "init", "-q"], cwd=course.root, check=True)
        shutil.copy(COURSE / ".gitignore", course.root / ".gitignore")
        ignored = subprocess.run([git, "check-ignore", LEDGER, LEDGER + ".lock"],
                                 cwd=course.root, capture_output=True, text=True)
        assert ignored.stdout.split() == [LEDGER, LEDGER + ".lock"]
