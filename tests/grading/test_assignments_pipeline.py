"""The nbgrader pipeline end to end, on a temporary copy of the course.

generate -> validate -> release -> fetch -> submit (three students, through
nbgrader's exchange) -> collect -> autograde -> feedback -> export, with its
own exchange folder and gradebook. Each step runs nbgrader's own application
class for that command (see coursegrader.tools.course).
"""

import csv
import html
import re
import subprocess
import sys

import nbformat
import pytest

from coursecheck.variants import bind

from coursegrader.tools.author import build_notebook
from coursegrader.tools.course import answer_cell_ids, fill_answers
from coursegrader.judging.problem_sets import graded_parts, hidden_rng
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.validation import release_leaks, validate_course
from conftest import COURSE, copy_course

ASSIGNMENTS = ["ps1", "ps2", "ps3", "ps4", "ps5"]
SECRET = "pipeline-test-secret"
# alice hands in the reference solutions, bob the blank release, carol only
# the first answer cell of each problem set.
STUDENTS = {"alice": "solution", "bob": "blank", "carol": "partial"}

# nbgrader's gradebook trips SQLAlchemy autoflush warnings; they are not ours to fix.
pytestmark = [pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def test_five_problem_sets_each_from_one_markdown_source():
    assert not (COURSE / "tools").exists()  # one authoring path: coursegrader.tools.author
    for ps in ASSIGNMENTS:
        assert (COURSE / "source" / ps / f"{ps}.md").is_file(), ps
        parts = graded_parts(COURSE, ps)
        nb = build_notebook(COURSE / "source" / ps / f"{ps}.md")
        tests = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
        written = [c for c in nb.cells if c.cell_type == "markdown"
                   and c.metadata.get("nbgrader", {}).get("grade")]
        assert set(tests) == set(parts), f"{ps}: test cells and spec parts differ"
        assert written, f"{ps}: no manually graded written answer"
        # the points declared once reach the test cells, the headings and the table
        for pid, cell in tests.items():
            assert cell.metadata["nbgrader"]["points"] == parts[pid].points
            heading = cell.source.split("\n")[0]
            hidden_only = ", all from hidden checks" if not parts[pid].public_points else ""
            assert f"({parts[pid].points:g} points{hidden_only})." in heading
            assert cell.metadata["tags"] == ["raises-exception"]
        total = sum(c.metadata["nbgrader"]["points"] for c in nb.cells
                    if c.metadata.get("nbgrader", {}).get("grade"))
        assert f"| | total | {total:g} |" in nb.cells[0].source, ps
        assert "{{" not in "".join(c.source for c in nb.cells), ps


@pytest.mark.slow   # nbgrader generates a release
def test_make_generate_writes_the_notebook_then_the_release(tmp_path):
    c = copy_course(tmp_path, ["ps1"])
    (c.root / "source" / "ps1" / "ps1.ipynb").unlink()
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    subprocess.run(["make", "generate", "PS=ps1", f"PYTHON={sys.executable}"], cwd=c.root,
                   check=True, capture_output=True, timeout=600)
    assert c.source("ps1") == build_notebook(c.root / "source" / "ps1" / "ps1.md")
    assert [p.name for p in (c.root / "release" / "ps1").iterdir()] == ["ps1.ipynb"]
    assert release_leaks(c.source("ps1"), c.released("ps1")) == []


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipeline")
    c = copy_course(tmp, ASSIGNMENTS, secret=SECRET)
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
        assert "check_hidden" not in text and "coursegrader" not in text
        assert "from coursecheck import check" in text
        assert not list((course.root / "release" / ps).glob("*.md"))
        assert "raise NotImplementedError()" in text


def test_run_all_goes_on_past_a_failing_check_and_validate_shows_why(course, tmp_path):
    from nbclient import NotebookClient
    released = course.released("ps1")
    nb = fill_answers(released, course.source("ps1"))
    for cell in nb.cells:  # the map of (1 + <x, z>)^2: wrong on a variant, whose c is not 1
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "quadratic_map_answer":
            cell.source = ("def quadratic_feature_map(X):\n"
                "    X = np.asarray(X, dtype=float)\n"
                "    return np.column_stack([np.ones(len(X)), np.sqrt(2) * X, X ** 2,\n"
                "                            np.sqrt(2) * X[:, :1] * X[:, 1:]])\n")
    path = tmp_path / "ps1.ipynb"
    nbformat.write(nb, path)
    # "Run all" as JupyterLab sends it: stop at an error unless the cell is
    # tagged raises-exception, as every check cell is.
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = {c.metadata["nbgrader"]["grade_id"]: c.outputs for c in nb.cells
               if c.cell_type == "code"}
    errors = [o for o in outputs["quadratic_map"] if o.output_type == "error"]
    assert [e.ename for e in errors] == ["CheckFailed"]
    later = "".join(o.get("text", "") for o in outputs["multinomial_map"])
    assert "All public checks passed" in later  # the next part ran and passed
    # nbgrader validate, as a student runs it, prints the whole reason
    shown = subprocess.run(["nbgrader", "validate", str(path)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600).stdout
    assert "quadratic_feature_map [quadratic_map]: 2 of 2 checks failed" in shown
    assert "case '4 points in R^2 (one at the origin), then each alone':" in shown
    assert "but the kernel gives" in shown
    assert "..." not in shown.split("The error was:")[1].split("=" * 20)[0]


def test_validate_sources_pass_and_releases_fail_every_test(course):
    assert validate_course(course.root, ASSIGNMENTS) == []


@pytest.fixture(scope="module")
def graded(slow, course):
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
        # the written parts are not graded by hand here: provisional feedback
        course.nbgrader("generate_feedback", ps, "--RefuseHalfGraded.allow_ungraded=True")
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
        parts = graded_parts(COURSE, ps)
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
            variant = submission_variant(SECRET, ps, student)
            for part_id, part in graded_parts(COURSE, ps).items():
                assert f'check("{ps}", "{part_id}"' in page          # public test shown
                part = bind(part, variant.params) if variant else part   # the student's own
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
    assert len(blank["failed"]) >= len(graded_parts(COURSE, "ps1"))


def test_makefile_export_runs_the_real_command(graded):
    (graded.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (graded.root / "grades.csv").unlink()
    subprocess.run(["make", "export", "FORCE=1"], cwd=graded.root, check=True,
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


@pytest.mark.slow   # nbgrader generates a release
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
    source = build_notebook(course / "source" / "ps1" / "ps1.md")
    assert release_leaks(source, released) == []
    with zipfile.ZipFile(out / "ps1.zip") as zf:
        assert zf.namelist() == ["ps1/ps1.ipynb"]  # not the Markdown source
    # unchanged sources: the release is reused, not generated again
    before = (out / "ps1.ipynb").stat().st_mtime_ns
    ext.release_notebooks(course, out)
    assert (out / "ps1.ipynb").stat().st_mtime_ns == before
