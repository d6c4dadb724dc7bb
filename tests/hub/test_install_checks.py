"""What deploy/install.sh refuses before it builds or changes anything.

A login shell (a JupyterLab terminal) takes each course account's PATH from
the course's file in /etc/profile.d. A second install of the same course
under another prefix used to rewrite that file, switching every account of
the first install to the second's environments; it is now refused while the
first is still there. Played with a course id of the test's own, so the
machine's real course is never touched.
"""

import os
import subprocess
from pathlib import Path

import pytest

INSTALL = Path(__file__).resolve().parents[2] / "deploy" / "install.sh"
COURSE = "kc-install-probe"
LOGIN_PATH = Path(f"/etc/profile.d/kernel-course-{COURSE}.sh")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="install.sh runs as root")


def install(prefix, course=COURSE):
    return subprocess.run(["bash", str(INSTALL), str(prefix)], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "NBGRADER_COURSE_ID": course})


@pytest.fixture
def first_install(tmp_path):
    """A live install of the course under tmp_path/first, as its login-path file names it."""
    first = tmp_path / "first"
    (first / "student" / "bin").mkdir(parents=True)
    (first / "student" / "bin" / "python").symlink_to("/usr/bin/python3")
    LOGIN_PATH.write_text(
        f'case " $(id -Gn 2>/dev/null) " in\n'
        f'    *" {COURSE}-instructors "*) PATH="{first}/instructor/bin:$PATH" ;;\n'
        f'    *" {COURSE}-students "*) PATH="{first}/student/bin:$PATH" ;;\n'
        f'esac\nexport PATH\n')
    try:
        yield first
    finally:
        LOGIN_PATH.unlink(missing_ok=True)


def test_a_second_install_of_the_course_elsewhere_is_refused(first_install, tmp_path):
    before = LOGIN_PATH.read_text()
    done = install(tmp_path / "second")
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"refused: course {COURSE} is already installed under {first_install}, and its "
        f"accounts' login shells take their PATH from there ({LOGIN_PATH})."), done.stderr
    assert "Nothing was changed." in done.stderr
    # nothing built, the first install's accounts keep their PATH, no group made
    assert not (tmp_path / "second").exists()
    assert LOGIN_PATH.read_text() == before
    assert subprocess.run(["getent", "group", f"{COURSE}-students"]).returncode == 2


def test_a_course_installed_nowhere_yet_goes_on_to_build(tmp_path):
    """On a machine where no install wrote the course's login-path file (a fresh
    one), the check passes and the install goes on: it stops here at its first
    environment, made by a Python that refuses to make environments."""
    assert not LOGIN_PATH.exists()
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\n'
                      'if [ "$1" = -m ] && [ "$2" = venv ]; then echo "no venv here" >&2; exit 3; fi\n'
                      'exec /usr/bin/python3.11 "$@"\n')
    python.chmod(0o755)
    done = subprocess.run(["bash", str(INSTALL), str(tmp_path / "p")], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "NBGRADER_COURSE_ID": COURSE, "PYTHON": str(python)})
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.strip() == "no venv here"
    assert done.stdout.strip() == f"{tmp_path / 'p'}/hub: installing"


def test_a_course_id_that_cannot_name_groups_and_files_is_refused(tmp_path):
    for bad in ("Kernel Methods", "../../etc/x", "a" * 21, "-x"):
        done = install(tmp_path / "p", course=bad)
        assert done.returncode == 1, bad
        assert done.stderr.startswith(f"course id '{bad}': it names the course's groups "
                                      "and files"), done.stderr
        assert not (tmp_path / "p").exists()
