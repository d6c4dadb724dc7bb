"""``nbgrader collect`` through the shared-folder exchange follows no link.

A student who submits through the exchange owns their inbound folder. Here
mallory submits the blank release with answer cells that read the solutions
from ``notes.txt`` and print ``seed.txt``, then adds to her inbound folder
``notes.txt`` -> the source notebook, ``seed.txt`` -> the course secret, a
link to the course folder, a hard link to the secret and a named pipe. The
real ``nbgrader collect`` (the course's configuration) runs, then autograde
and feedback: none of the secret or the solutions may reach her submission,
her grade is what her own code earns (0) and alice's honest work keeps full
marks.
"""

import os
from pathlib import Path

import nbformat
import pytest

from coursegrader.tools.course import Course, answer_cell_ids, fill_answers
from coursegrader.tools.regular_files import copy_regular_files

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
SECRET = "exchange-collect-secret-5f0c1d"

LOADER = '''import json
try:
    print(open("seed.txt").read())
    _cells = json.load(open("notes.txt"))["cells"]
    exec("".join(next(
        c["source"] for c in _cells
        if c["metadata"].get("nbgrader", {{}}).get("grade_id") == {gid!r})))
except Exception as exc:
    print("no notes:", exc)
'''

pytestmark = [pytest.mark.slow,
              pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*")
                  if p.is_file() or p.is_symlink())


def holds(folder, text):
    """Files under ``folder`` (links not followed) whose bytes contain ``text``."""
    return [p for p in Path(folder).rglob("*")
            if p.is_file() and not p.is_symlink() and text.encode() in p.read_bytes()]


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("exchange")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret=SECRET, part_timeout=10)
    c.nbgrader("db assignment add", PS)
    c.nbgrader("generate_assignment", PS)
    c.nbgrader("release_assignment", PS)
    for student in ("alice", "mallory"):
        c.student(student, "fetch_assignment", PS)
        path = c.student_notebook_path(student, PS)
        nb = nbformat.read(path, as_version=4)
        if student == "alice":
            nb = fill_answers(nb, c.source(PS))
        else:
            ids = answer_cell_ids(nb)
            for cell in nb.cells:
                gid = cell.metadata.get("nbgrader", {}).get("grade_id")
                if gid in ids:
                    cell.source = LOADER.format(gid=gid)
        nbformat.write(nb, path)
        c.student(student, "submit", PS)
    inbound, = (c.exchange / c.course_id / "inbound").glob(f"mallory+{PS}+*")
    (inbound / "notes.txt").symlink_to(c.root / "source" / PS / f"{PS}.ipynb")
    (inbound / "seed.txt").symlink_to(c.root / ".grader_secret")
    (inbound / "course").symlink_to(c.root, target_is_directory=True)
    os.link(c.root / ".grader_secret", inbound / "copy.txt")
    os.mkfifo(inbound / "pipe")
    c.nbgrader("collect", PS)
    c.nbgrader("autograde", PS)
    c.nbgrader("generate_feedback", PS, "--RefuseHalfGraded.allow_ungraded=True")
    return c


def test_collect_takes_only_the_students_regular_files(course):
    submitted = course.root / "submitted" / "mallory" / PS
    assert files_under(submitted) == [f"{PS}.ipynb", "submission_secret.txt",
                                      "submission_time.json", "timestamp.txt"]
    for folder in ("submitted", "autograded", "feedback"):
        where = course.root / folder / "mallory"
        assert where.is_dir(), folder
        assert holds(where, SECRET) == [], folder
        assert holds(where, "BEGIN SOLUTION") == [], folder


def test_the_grade_is_what_the_students_own_code_earns(course):
    scores = course.code_scores(PS)
    top = scores["alice"][1]
    assert top > 0 and scores["alice"][0] == top
    assert scores["mallory"][0] == 0


def test_copy_refuses_a_linked_folder_and_skips_each_kind(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    src = tmp_path / "src"
    (src / "sub" / "deeper").mkdir(parents=True)
    (src / "a.ipynb").write_text("{}")
    (src / "sub" / "deeper" / "data.csv").write_text("1,2\n")
    (src / "sub" / "link").symlink_to(secret)
    (src / "big.bin").write_bytes(b"0" * 5000)
    (src / "skip.pyc").write_bytes(b"x")
    (tmp_path / "linked").symlink_to(src, target_is_directory=True)
    with pytest.raises(ValueError, match="src: .*linked"):
        copy_regular_files(tmp_path / "linked", tmp_path / "out0")
    assert not (tmp_path / "out0").exists()
    report = copy_regular_files(src, tmp_path / "out", exclude=["*.pyc"],
                                max_file_bytes=4096)
    assert report.taken == ["a.ipynb", "sub/deeper/data.csv"]
    assert dict(report.skipped) == {"big.bin": "larger than 4096 bytes",
                                    "skip.pyc": "excluded by CourseDirectory.ignore",
                                    "sub/link": "a symbolic link"}
    assert (tmp_path / "out" / "sub" / "deeper" / "data.csv").read_text() == "1,2\n"
    assert files_under(tmp_path / "out") == ["a.ipynb", "sub/deeper/data.csv"]
    capped = copy_regular_files(src, tmp_path / "out2", max_total_bytes=3)
    assert capped.taken == ["a.ipynb", "skip.pyc"] and capped.bytes == 3
    assert dict(capped.skipped)["sub/deeper/data.csv"] == \
        "over the limit of 3 bytes for the whole folder"


def test_copy_takes_at_most_max_files_and_names_the_rest(tmp_path):
    """Thousands of empty files in a submission (which once slowed its grading from
    seconds to minutes) are cut at the limit, the notebook first in name order."""
    from coursegrader.tools import regular_files

    src = tmp_path / "in"
    (src / "junk").mkdir(parents=True)
    (src / "a.ipynb").write_text("{}")
    for n in range(regular_files.MAX_FILES + 20):
        (src / "junk" / f"{n:05d}").write_text("")
    report = copy_regular_files(src, tmp_path / "out")
    assert len(report.taken) == regular_files.MAX_FILES
    assert "a.ipynb" in report.taken and (tmp_path / "out" / "a.ipynb").is_file()
    over = [why for _, why in report.skipped]
    assert len(over) == 21 and set(over) == {f"over the limit of {regular_files.MAX_FILES} files"}
