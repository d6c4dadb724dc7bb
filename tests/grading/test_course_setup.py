"""The course's set-up says what it needs: `make db`, `make release`, one exchange.

A new instructor with a fresh copy of the course folder: ``make db`` without
``students.csv`` must say that nobody was registered and how to start from the
example; the examples themselves must load; ``make release`` must refuse an
exchange folder that does not exist rather than create one as root, and say
where a problem set went; the student package's nbgrader settings must name
the exchange the course releases to.
"""

import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from traitlets.config import Config

from coursegrader.settings import CourseSettings

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "assignments"
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


@pytest.fixture
def folder(slow, tmp_path):
    """The course's configuration and Makefile, with an exchange that does not exist."""
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(COURSE / "Makefile", root)
    config = (COURSE / "nbgrader_config.py").read_text()
    (root / "nbgrader_config.py").write_text(
        config + f"\nc.CourseSettings.exchange = {str(tmp_path / 'no-exchange')!r}\n"
        "c.merge(nbgrader_settings(c, HERE))\n")
    return root


def make(root, *args):
    return subprocess.run(["make", *args, f"PYTHON={sys.executable}"], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_make_db_without_students_says_what_is_missing(folder):
    done = make(folder, "db", "PS=ps1 ps2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "db: no students.csv: no students registered" in out
    assert "cp students.example.csv students.csv" in out
    assert "db: no due_dates.csv: no due dates set" in out
    assert "problem set ps1: no due date" in out and "problem set ps2: no due date" in out
    assert "0 student(s), 0 extension(s)" in out
    assert "no student registered" in out and "no due date for ps1, ps2" in out


def test_the_examples_load_and_make_db_says_what_it_registered(folder):
    for name in ("students", "due_dates", "accommodations"):
        shutil.copy(COURSE / f"{name}.example.csv", folder / f"{name}.csv")
    done = make(folder, "db")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "problem set ps1: due 2026-10-05 23:59:00 UTC" in done.stdout
    assert "3 student(s), 2 extension(s)" in done.stdout
    assert "Missing:" not in done.stdout and "db: no " not in done.stdout


def test_make_db_refuses_a_bad_roster_naming_every_row_and_registers_no_one(folder):
    """A roster whose ids are empty, hold a NUL byte or a line break, repeat a
    classmate's or are the example's, and whose names are unprintable: ``make db``
    names each bad row and registers nobody (nbgrader's own import stopped
    half-way at the empty id, and registered the NUL byte, which then stopped
    ``make release`` for the class); once the roster is right, every student is."""
    good = "ada,Ada,Lovelace,ada@uni.example\nbob,Bob,B,bob@uni.example\n"
    bad = ("id,first_name,last_name,email\n" + good
           + ",Empty,Id,e@uni.example\n"
           + "x\x00y,Nul,Byte,n@uni.example\n"
           + '"eve\nmallory",Eve,Line,e@uni.example\n'
           + "ada,Ada,Again,a2@uni.example\n"
           + "example,Ex,Ample,x@uni.example\n"
           + "zed,Z\x1b[8m,Z,z@uni.example\n")
    (folder / "students.csv").write_text(bad)
    done = make(folder, "db")
    assert done.returncode != 0
    err = done.stderr
    assert "students.csv, line 4, field id: empty" in err
    assert "students.csv, line 5, field id: 'x\\x00y' is not a student id" in err
    assert "students.csv, line 7, field id: 'eve\\nmallory' is not a student id" in err
    assert "students.csv, line 8, field id: 'ada' again (first at students.csv, line 2)" in err
    assert "students.csv, line 9, field id: 'example' is not a student id" in err
    assert "students.csv, line 10, field first_name: 'Z\\x1b[8m' holds a character" in err
    assert "no student was registered" in err and "Traceback" not in err
    status = make(folder, "db", "STUDENTS=none.csv")
    assert "0 student(s)" in status.stdout
    # saved by a spreadsheet as "CSV UTF-8", with a byte-order mark
    (folder / "students.csv").write_text("\ufeffid,first_name,last_name,email\n" + good)
    done = make(folder, "db")
    assert done.returncode == 0, done.stderr
    assert "students.csv: 2 student(s) registered, 0 updated" in done.stdout
    assert "2 student(s), 0 extension(s)" in done.stdout


def test_make_release_refuses_a_missing_exchange_and_creates_none(folder, tmp_path):
    done = make(folder, "release", "PS=ps1")
    assert done.returncode != 0
    assert f"the exchange folder {tmp_path / 'no-exchange'} does not exist" in done.stderr
    assert "nothing was released" in done.stderr and "NBGRADER_EXCHANGE" in done.stderr
    assert not (tmp_path / "no-exchange").exists()


@pytest.mark.slow   # nbgrader generates a release
def test_make_release_says_where_it_released(folder, tmp_path):
    from coursegrader.tools.course import Course
    course = Course.copy_of(COURSE, tmp_path / "real", exchange=tmp_path / "exchange",
                            assignments=["ps1"])
    shutil.copy(COURSE / "Makefile", course.root)
    assert make(course.root, "generate", "PS=ps1").returncode == 0
    done = make(course.root, "release", "PS=ps1")
    assert done.returncode == 0, done.stderr
    where = tmp_path / "exchange" / "kernel-methods" / "outbound" / "ps1"
    assert f"released ps1 to {where}" in done.stdout
    assert "nbgrader fetch_assignment ps1 --course kernel-methods" in done.stdout
    assert (where / "ps1.ipynb").is_file()


def student_settings(monkeypatch, exchange=None):
    """The nbgrader settings the student package installs, as nbgrader loads them."""
    if exchange is None:
        monkeypatch.delenv("NBGRADER_EXCHANGE", raising=False)
    else:
        monkeypatch.setenv("NBGRADER_EXCHANGE", exchange)
    c = Config()
    runpy.run_path(str(REPO / "student" / "etc" / "jupyter" / "nbgrader_config.py"),
                   init_globals={"get_config": lambda: c})
    return c


@pytest.mark.parametrize("exchange", [None, "/courses/exchange"])
def test_student_package_and_course_use_one_exchange(monkeypatch, exchange):
    c = student_settings(monkeypatch, exchange)
    course = CourseSettings()       # read now, with the same environment
    assert c.Exchange.root == course.exchange
    assert c.CourseDirectory.course_id == course.course_id
    if exchange is None:            # nbgrader's own default is another folder
        assert c.Exchange.root == "/srv/nbgrader/exchange"
    else:
        assert c.Exchange.root == exchange
    assert os.environ.get("NBGRADER_EXCHANGE") == exchange
