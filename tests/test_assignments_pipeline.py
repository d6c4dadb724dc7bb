"""The nbgrader pipeline end to end, on a temporary copy of the course.

generate -> validate -> release -> fetch -> submit (three students, through
nbgrader's exchange) -> collect -> autograde -> feedback -> export, with its
own exchange folder and gradebook. Each step runs nbgrader's own application
class for that command (see coursegrader.course).
"""

import csv
import html
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from coursegrader.course import Course, answer_cell_ids, fill_answers
from coursegrader.spec import get_parts, hidden_rng
from coursegrader.validation import release_leaks, validate_course

COURSE = Path(__file__).resolve().parents[1] / "assignments"
ASSIGNMENTS = ["ps1", "ps2", "ps3", "ps4", "ps5"]
SECRET = "pipeline-test-secret"
# alice hands in the reference solutions, bob the blank release, carol only
# the first answer cell of each problem set.
STUDENTS = {"alice": "solution", "bob": "blank", "carol": "partial"}

# nbgrader's gradebook trips SQLAlchemy autoflush warnings; they are not ours to fix.
pytestmark = [pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def test_five_problem_sets_with_a_spec_each():
    for ps in ASSIGNMENTS:
        assert (COURSE / "source" / ps / f"{ps}.ipynb").is_file(), ps
        parts = get_parts(ps)
        nb = nbformat.read(COURSE / "source" / ps / f"{ps}.ipynb", as_version=4)
        test_ids = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                    if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
        written = [c for c in nb.cells if c.cell_type == "markdown"
                   and c.metadata.get("nbgrader", {}).get("grade")]
        assert test_ids == set(parts), f"{ps}: test cells and spec parts differ"
        assert written, f"{ps}: no manually graded written answer"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipeline")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=ASSIGNMENTS, secret=SECRET)
    (c.root / "students.csv").write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{s},{s.title()},Example,{s}@example.org\n" for s in STUDENTS))
    c.nbgrader("db student import", "students.csv")
    for ps in ASSIGNMENTS:
        c.nbgrader("db assignment add", ps)
        c.nbgrader("generate_assignment", ps)
    return c


def test_release_holds_no_solution_or_hidden_test(course):
    for ps in ASSIGNMENTS:
        released = course.released(ps)
        assert release_leaks(course.source(ps), released) == [], ps
        text = "\n".join(cell.source for cell in released.cells)
        assert "hidden=True" not in text
        assert "raise NotImplementedError()" in text


def test_validate_sources_pass_and_releases_fail_every_test(course):
    assert validate_course(course.root, ASSIGNMENTS) == []


@pytest.fixture(scope="module")
def graded(course):
    for ps in ASSIGNMENTS:
        course.nbgrader("release_assignment", ps)
        for student, kind in STUDENTS.items():
            course.student(student, "fetch_assignment", ps)
            path = course.student_notebook_path(student, ps)
            fetched = nbformat.read(path, as_version=4)
            if kind == "solution":
                nb = fill_answers(fetched, course.source(ps))
            elif kind == "partial":
                nb = fill_answers(fetched, course.source(ps), ids=answer_cell_ids(fetched)[:1])
            else:
                nb = fetched
            nbformat.write(nb, path)
            course.student(student, "submit", ps)
        course.nbgrader("collect", ps)
        course.nbgrader("autograde", ps)
        course.nbgrader("generate_feedback", ps)
        course.nbgrader("release_feedback", ps)
    course.nbgrader("export", "--to=grades.csv")
    return course


def test_solution_full_blank_zero_partial_between(graded):
    for ps in ASSIGNMENTS:
        scores = graded.code_scores(ps)
        assert set(scores) == set(STUDENTS), ps
        alice, top = scores["alice"]
        assert top > 0 and alice == top, f"{ps}: reference solution got {alice} of {top}"
        assert scores["bob"][0] == 0, f"{ps}: blank release got {scores['bob'][0]}"
        assert 0 < scores["carol"][0] < top, f"{ps}: partial work got {scores['carol'][0]}"


def test_partial_credit_within_a_part(graded):
    # Each auto-graded cell's score is points * passed / run; the reference gets
    # exactly the points of every cell and the blank release none of them.
    for ps in ASSIGNMENTS:
        parts = get_parts(ps)
        cells = graded.cell_scores(ps)
        for part_id, part in parts.items():
            assert cells[("alice", part_id)] == pytest.approx(part.points), (ps, part_id)
            assert cells[("bob", part_id)] == 0, (ps, part_id)


def test_feedback_shows_public_results_but_no_hidden_test(graded):
    for ps in ASSIGNMENTS:
        source_text = "\n".join(c.source for c in graded.source(ps).cells)
        for student in STUDENTS:
            raw = (graded.root / "feedback" / student / ps / f"{ps}.html").read_text()
            page = html.unescape(re.sub(r"<[^>]+>", "", raw))  # the text a student reads
            assert "BEGIN HIDDEN TESTS" not in page and "hidden=True" not in page
            assert "hidden checks passed" in page
            for part_id, part in get_parts(ps).items():
                assert f'check("{ps}", "{part_id}"' in page          # public test shown
                public = {c.label for c in part.public()}
                for case in part.hidden(hidden_rng(SECRET, student, ps, part_id)):
                    if case.label not in public and case.label not in source_text:
                        assert f"'{case.label}'" not in page, (ps, student, case.label)
            # the feedback went back to the student through the exchange
        graded.student("alice", "fetch_feedback", ps)
        assert list((graded.home("alice") / ps / "feedback").rglob(f"{ps}.html"))


def test_exported_csv_matches_gradebook(graded):
    with open(graded.root / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["assignment"], r["student_id"]) for r in rows} == {
        (ps, s) for ps in ASSIGNMENTS for s in STUDENTS}
    for ps in ASSIGNMENTS:
        scores = graded.code_scores(ps)
        for r in rows:
            if r["assignment"] == ps:
                # nothing is graded by hand yet, so the score is the auto-graded one
                assert float(r["score"]) == pytest.approx(scores[r["student_id"]][0])


def test_student_checks_pass_locally_on_finished_work(graded):
    from nbgrader.validator import Validator
    path = graded.student_notebook_path("alice", "ps1")
    assert Validator().validate(str(path)) == {}
    blank = Validator().validate(str(graded.student_notebook_path("bob", "ps1")))
    assert len(blank["failed"]) >= len(get_parts("ps1"))


def test_makefile_export_runs_the_real_command(graded):
    (graded.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (graded.root / "grades.csv").unlink()
    subprocess.run(["make", "export"], cwd=graded.root, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    with open(graded.root / "grades.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(ASSIGNMENTS) * len(STUDENTS)


def test_autograding_again_changes_no_grade(graded):
    before = {ps: graded.cell_scores(ps) for ps in ("ps1", "ps2")}
    for ps in before:
        graded.nbgrader("autograde", ps, "--force")
    after = {ps: graded.cell_scores(ps) for ps in before}
    assert after == before
    assert all(v is not None for scores in after.values() for v in scores.values())


def test_book_extension_publishes_clean_student_notebooks(tmp_path):
    import importlib.util
    import zipfile

    path = COURSE.parent / "book" / "_ext" / "release_assignments.py"
    spec = importlib.util.spec_from_file_location("release_assignments", path)
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)

    course = tmp_path / "course"
    (course / "source").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text((COURSE / "nbgrader_config.py").read_text())
    import shutil
    shutil.copytree(COURSE / "source" / "ps1", course / "source" / "ps1")
    out = tmp_path / "out"
    assert ext.release_notebooks(course, out) == ["ps1"]
    released = nbformat.read(out / "ps1.ipynb", as_version=4)
    source = nbformat.read(course / "source" / "ps1" / "ps1.ipynb", as_version=4)
    assert release_leaks(source, released) == []
    with zipfile.ZipFile(out / "ps1.zip") as zf:
        assert "ps1/ps1.ipynb" in zf.namelist()
    # unchanged sources: the release is reused, not generated again
    before = (out / "ps1.ipynb").stat().st_mtime_ns
    ext.release_notebooks(course, out)
    assert (out / "ps1.ipynb").stat().st_mtime_ns == before
