"""A notebook far larger than any honest one fails alone, before the grader reads it.

A student with only the README hands in a notebook of 50,000 empty Markdown
cells (3 to 5 MB): every step outside the sandbox pays per cell (nbconvert
validates the whole notebook after each preprocessor), so it held a grader
for 48 to 78 s against about 1.3 s for an honest one, and a larger one would hold it for most of an
hour, the class waiting behind it. ``BoundSubmission`` refuses it before it
is read: through ``make zip_collect`` the attacker's submission fails, named
with the reason, the run exits non-zero, and the classmate keeps 10.
"""

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import jupytext
import nbformat
import pytest
from traitlets.config import Config

from coursegrader.__main__ import configurable_classes
from coursegrader.preprocessors import BoundSubmission
from coursegrader.settings import course_config
from coursegrader.tools import batch
from coursegrader.tools.course import Course, fill_answers
from course_steps import make

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
CELLS = 50_000


def empty_cells(n):
    """A notebook of ``n`` empty Markdown cells, as the attack hands it in."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("") for _ in range(n)]
    return nb


def test_a_notebook_over_the_bounds_is_refused_naming_the_bound(tmp_path):
    path = tmp_path / "ps1.ipynb"
    nbformat.write(empty_cells(1001), path)
    with pytest.raises(ValueError, match=r"ps1.ipynb was not graded: it has 1,001 cells, "
                                         r"more than the 1,000 .*BoundSubmission.max_cells"):
        BoundSubmission().check_file(path)
    small = Config()
    small.BoundSubmission.max_bytes = 1000
    with pytest.raises(ValueError, match=r"the file has [\d,]+ bytes, more than the 1,000 "
                                         r".*BoundSubmission.max_bytes"):
        BoundSubmission(config=small).check_file(path)
    # where nbgrader reads the notebook itself (Formgrader), the preprocessor refuses it
    resources = {"metadata": {"name": "ps1", "path": str(tmp_path)}}
    with pytest.raises(ValueError, match="1,001 cells"):
        BoundSubmission().preprocess(nbformat.read(path, as_version=4), resources)
    # a few cells holding many outputs (an attack held a grader 53 s with 170,000
    # outputs of one letter in 20 cells, 8 MB, under max_bytes)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("", outputs=[
        nbformat.v4.new_output("stream", text="x") for _ in range(105)]) for _ in range(20)]
    nbformat.write(nb, path)
    with pytest.raises(ValueError, match=r"its cells have 2,100 outputs, more than the "
                                         r"2,000 .*BoundSubmission.max_outputs"):
        BoundSubmission().check_file(path)
    with pytest.raises(ValueError, match="2,100 outputs"):
        BoundSubmission().preprocess(nbformat.read(path, as_version=4), resources)


def test_the_course_notebooks_are_well_inside_the_bounds(tmp_path):
    bound = BoundSubmission()
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        text = (COURSE / "source" / ps / f"{ps}.md").read_text()
        nb = jupytext.reads(text, fmt="md:myst")
        assert len(nb.cells) * 10 < bound.max_cells, ps
        assert len(text.encode()) * 10 < bound.max_bytes, ps
    # an honest notebook is not refused
    nbformat.write(nb, tmp_path / "ps5.ipynb")
    bound.check_file(tmp_path / "ps5.ipynb")


@pytest.mark.slow
def test_the_bounds_are_settings_listed_by_help_all():
    assert BoundSubmission in configurable_classes()
    done = subprocess.run([sys.executable, "-m", "coursegrader", "--help-all"],
                          capture_output=True, text=True, check=True)
    assert "--BoundSubmission.max_cells" in done.stdout
    assert "--BoundSubmission.max_bytes" in done.stdout
    assert "--BoundSubmission.max_outputs" in done.stdout
    # and where nbgrader reads the notebook itself, it is the first step after reading
    config = course_config(COURSE)
    assert config.Autograde.sanitize_preprocessors[0] == \
        "coursegrader.preprocessors.BoundSubmission"


def _class_of_ada_and_eve(tmp_path):
    """A copy of the course with ada and eve registered and the problem set generated."""
    c = Course.copy_of(COURSE, tmp_path / "course", exchange=tmp_path / "exchange",
                       assignments=[PS], secret="bounds-secret", part_timeout=20)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n"
                                         "ada,Ada,Example,ada@uni.example\n"
                                         "eve,Eve,Example,eve@uni.example\n")
    make(c, "db", f"PS={PS}")
    c.nbgrader("generate_assignment", PS)
    return c


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")
def test_many_empty_cells_fail_alone_and_the_classmate_keeps_her_grade(tmp_path):
    c = _class_of_ada_and_eve(tmp_path)
    solved = fill_answers(c.released(PS), c.source(PS))
    padded = nbformat.from_dict(solved)
    padded.cells = solved.cells + empty_cells(CELLS).cells   # her answers, then padding
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ada_10_20_ps1.ipynb", nbformat.writes(solved))
        zf.writestr("eve_30_40_ps1.ipynb", nbformat.writes(padded))
    upload = tmp_path / "submissions.zip"
    upload.write_bytes(buf.getvalue())

    run = make(c, "zip_collect", f"PS={PS}", f"ZIP={upload}", "JOBS=1", check=False)

    assert run.returncode != 0
    assert "graded 1 submission(s), 1 failed" in run.stderr
    assert "ps1/eve: NotebookTooLarge: ps1.ipynb was not graded: it has " \
           f"{CELLS + len(solved.cells):,} cells, more than the 1,000" in run.stderr
    # eve's own answers would earn 10: refused, nothing of hers in the gradebook
    # (so 0), and ada keeps her 10
    assert c.code_scores(PS) == {"ada": (10.0, 10.0)}
    entry = batch.latest(batch.read_log(c.root, PS))["eve"]
    assert entry["status"] == "failed" and "BoundSubmission.max_cells" in entry["error"]
    assert not list((c.root / "autograded").glob("eve/*/*.ipynb"))
    # feedback (written parts not graded by hand here: provisional) goes on for ada
    assert c.nbgrader("generate_feedback", PS, "--force",
                      "--RefuseHalfGraded.allow_ungraded=True", check=False) == 0
    assert (c.root / "feedback" / "ada" / PS / f"{PS}.html").is_file()
    assert not (c.root / "feedback" / "eve").exists()


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")
def test_a_refused_submission_gets_a_feedback_page_naming_the_bound(tmp_path):
    """Through the folder exchange: eve hands in her solved notebook padded to 1,250
    cells with `nbgrader submit`. `make autograde` refuses it; `make feedback`
    writes and returns her a short page naming the bound (none of her cells
    rendered), ada gets her usual page, and both commands keep naming eve."""
    c = _class_of_ada_and_eve(tmp_path)
    make(c, "release", f"PS={PS}")
    for student in ("ada", "eve"):
        c.student(student, "fetch_assignment", PS)
        path = c.student_notebook_path(student, PS)
        nb = fill_answers(nbformat.read(path, as_version=4), c.source(PS))
        if student == "eve":
            padding = [nbformat.v4.new_markdown_cell("<script>EVE-WROTE-THIS</script>")
                       for _ in range(1250 - len(nb.cells))]
            nb.cells = nb.cells + padding
        nbformat.write(nb, path)
        c.student(student, "submit", PS)
    make(c, "collect", f"PS={PS}")

    graded = make(c, "autograde", f"PS={PS}", "JOBS=1", check=False)
    assert graded.returncode != 0
    assert "ps1/eve: NotebookTooLarge: ps1.ipynb was not graded: it has 1,250 cells" in graded.stderr
    entry = batch.latest(batch.read_log(c.root, PS))["eve"]
    assert entry["bound"] == {"setting": "max_cells", "limit": 1000, "found": 1250}

    # the written parts are not graded by hand here: feedback goes as provisional
    feedback = make(c, "feedback", f"PS={PS}", "FORCE=1", check=False)
    assert feedback.returncode != 0
    assert "ps1/eve: not graded, over c.BoundSubmission.max_cells (1,250 against at " \
           "most 1,000)" in feedback.stderr
    assert "feedback: not everyone's was written or returned for: ps1" in feedback.stderr
    page = (c.root / "feedback" / "eve" / PS / f"{PS}.html").read_text()
    assert "Your submission of ps1 was not graded, so it has no score: it has 1,250 " \
           "cells, more than the 1,000 a notebook of this course may have " \
           "(c.BoundSubmission.max_cells)." in page
    assert "EVE-WROTE-THIS" not in page and "<script" not in page
    assert "Provisional" in (c.root / "feedback" / "ada" / PS / f"{PS}.html").read_text()
    # returned through the exchange: eve fetches her page, as ada fetches hers
    for student in ("ada", "eve"):
        c.student(student, "fetch_feedback", PS)
    eve_page, = (c.home("eve") / PS / "feedback").glob(f"*/{PS}.html")
    assert "c.BoundSubmission.max_cells" in eve_page.read_text()
    ada_page, = (c.home("ada") / PS / "feedback").glob(f"*/{PS}.html")
    assert "BoundSubmission" not in ada_page.read_text()
    assert c.code_scores(PS)["ada"] == (10.0, 10.0)

    # the instructor's list of failures still names eve
    again = make(c, "autograde", f"PS={PS}", "JOBS=1", check=False)
    assert again.returncode != 0 and "ps1/eve: NotebookTooLarge" in again.stderr
