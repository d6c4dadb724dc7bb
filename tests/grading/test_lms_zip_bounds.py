"""``make zip_collect``: one student's upload cannot use up the bounds of the class.

The bounds on an LMS's zip (how many notebooks, how many bytes) are each
student's. In a Canvas zip, mallory's upload comes first: her notebook and
4,999 one-byte attachments (Canvas names them ``mallory_<ids>_notes-<i>.txt``),
which once used up a bound of 5,000 members for the whole zip, so that no
classmate after her was collected or even named. trudy uploads her notebook
101 times (Canvas's renamed copies ``ps1-<i>.ipynb``), oscar five notebooks
of 45 MiB each. alice and bob come last with the reference solution: both
must be collected and graded 10 of 10; mallory's notebook is taken and her
attachments listed by name; trudy and oscar have nothing taken, each row
naming them and the bound; the command ends non-zero naming them.
"""

import zipfile
from pathlib import Path

import nbformat
import pytest

from coursegrader.tools.course import Course, fill_answers
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
NOTES = 4999

pytestmark = [pytest.mark.timeout(1200),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def zeros(zf, name, n_bytes):
    """A member of ``n_bytes`` zeros, written a MiB at a time."""
    info = zipfile.ZipInfo(name, date_time=(2026, 11, 20, 9, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as f:
        for _ in range(n_bytes >> 20):
            f.write(bytes(1 << 20))


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lmsbounds")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="lms-bounds-secret", part_timeout=20)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", PS)
    c.nbgrader("generate_assignment", PS)
    solved = nbformat.writes(fill_answers(c.released(PS), c.source(PS))).encode()
    blank = nbformat.writes(c.released(PS)).encode()
    upload = tmp / "submissions.zip"
    with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mallory_101_201_ps1.ipynb", blank)
        for i in range(NOTES):
            zf.writestr(f"mallory_101_201_notes-{i}.txt", b"x")
        for i in range(1, 102):
            zf.writestr(f"trudy_102_202_ps1-{i}.ipynb", blank)
        for i in range(1, 6):
            zeros(zf, f"oscar_103_203_ps1-{i}.ipynb", 45 * 1024**2)
        zf.writestr("alice_100_200_ps1.ipynb", solved)
        zf.writestr("bob_104_204_ps1.ipynb", solved)
    c.run = make(c, "zip_collect", f"PS={PS}", f"ZIP={upload}", "JOBS=2", check=False)
    return c


def test_one_students_upload_fails_that_student_and_every_classmate_is_graded(course):
    run = course.run
    assert run.returncode != 0
    scores = course.code_scores(PS)
    assert scores["alice"] == scores["bob"] == (10.0, 10.0)   # after mallory's upload
    assert scores["mallory"][0] == 0                         # her own blank notebook
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == \
        ["alice", "bob", "mallory"]
    table = run.stdout.rsplit("What was taken from", 1)[1]
    assert "more)" not in table                              # every member by name
    rows = [line.split() for line in table.splitlines()[1:] if line.startswith("submissions")]
    assert len(rows) == 1 + NOTES + 101 + 5 + 2
    by_name = {row[1]: row for row in rows}
    assert by_name["mallory_101_201_notes-4998.txt"][2:4] == ["mallory", "no"]
    for i in (1, 101):
        assert by_name[f"trudy_102_202_ps1-{i}.ipynb"][2] == "trudy"
    assert "101 files of trudy: more than the limit of 100 a student" in table
    assert (f"oscar's files unpack to {5 * 45 * 1024**2} bytes: more than the limit "
            f"of {200 * 1024**2} a student") in table
    assert "oscar (5)" in run.stderr and "trudy (101)" in run.stderr
    assert f"mallory ({NOTES})" in run.stderr

