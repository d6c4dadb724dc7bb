"""On the plain folder exchange, ``make release`` warns when students' homes are open
(and when the exchange is in memory, where change times do not date a hand-in).

``nbgrader submit`` keeps each submission's secret in a cache under the
student's home; where homes are 0755 (Debian's default) a classmate reads it
and opens that student's released feedback. ``make release``'s check names
each registered student whose home other users can enter or list, and says
how to close it. The accounts are the machine's own: Debian's ``daemon``
(home /usr/sbin, 0755) and ``root`` (/root, 0700).
"""

import os
import pwd
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from coursegrader.tools.course import Course
from coursegrader.tools import exchange_folder
from coursegrader.tools.exchange_folder import open_homes

COURSE = Path(__file__).resolve().parents[2] / "assignments"


def _mode(user):
    try:
        return stat.S_IMODE(os.stat(pwd.getpwnam(user).pw_dir).st_mode)
    except (KeyError, OSError):
        return None


OPEN, CLOSED = "daemon", "root"
pytestmark = pytest.mark.skipif(
    not (_mode(OPEN) and _mode(OPEN) & 0o005 and _mode(CLOSED) is not None
         and not _mode(CLOSED) & 0o005),
    reason="needs Debian's accounts: daemon's home open to all, root's closed")


def test_open_homes_names_only_homes_others_can_enter():
    found = open_homes([OPEN, CLOSED, "no-such-account-here"])
    assert [(s, m) for s, _, m in found] == [(OPEN, _mode(OPEN))]


def check(capsys, hub=""):
    """``make release``'s first step, as the Makefile runs it; what it said on stderr."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KERNEL_COURSE_EXCHANGE", hub)
        assert exchange_folder.main(["check"]) == 0      # a warning: the release goes ahead
    return capsys.readouterr().err


@pytest.mark.slow
def test_release_warns_naming_each_student_whose_home_is_open(tmp_path, monkeypatch, capsys):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", course)
    (tmp_path / "exchange").mkdir()
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.CourseSettings.exchange = {str(tmp_path / 'exchange')!r}\n"
                "c.merge(nbgrader_settings(c, HERE))\n")
    monkeypatch.chdir(course)
    assert "warning" not in check(capsys)          # no gradebook yet: nobody to check
    c = Course(course, tmp_path / "exchange")
    with c.gradebook() as gb:
        for student in (OPEN, CLOSED):
            gb.add_student(student)
    said = check(capsys)
    assert f"1 student(s) have a home folder other users can enter or list: {OPEN} (" in said
    assert CLOSED + " (" not in said
    assert "chmod 0700" in said and "nbgrader_cache" in said
    # on the course's JupyterHub homes are 0700 and the exchange is the hub's
    assert "warning" not in check(capsys, hub="folder")


def test_release_warns_when_the_exchange_is_in_memory(tmp_path, monkeypatch, capsys):
    """On tmpfs a student's write through a memory map she opened before the due date
    leaves her file's change time, from which collect dates it, as it was: the
    release names the file system; an exchange on disk gets no such warning."""
    shm = Path("/dev/shm")
    if exchange_folder.file_system_type(shm) != "tmpfs" or not os.access(shm, os.W_OK):
        pytest.skip("needs /dev/shm on tmpfs")
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(COURSE / "nbgrader_config.py", course)
    monkeypatch.chdir(course)
    for root, warned in ((Path(tempfile.mkdtemp(dir=shm)), True), (tmp_path / "exchange", False)):
        root.mkdir(exist_ok=True)
        try:
            shutil.copy(COURSE / "nbgrader_config.py", course)
            with open(course / "nbgrader_config.py", "a") as f:
                f.write(f"\nc.CourseSettings.exchange = {str(root)!r}\n"
                        "c.merge(nbgrader_settings(c, HERE))\n")
            said = check(capsys)
            assert (f"the exchange folder {root} is on tmpfs" in said) is warned, said
        finally:
            if root.parent == shm:
                shutil.rmtree(root)
