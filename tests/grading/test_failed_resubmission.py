"""A resubmission that fails to grade keeps nothing of the earlier grade, its dating
or its similarity flag.

Through the LMS's zip (``make zip_collect``), with Canvas's gradebook CSV as
the roster: cy hands in the reference solution, bob his own answers, and ada
and dee hand in cy's notebook verbatim.  All four score 10, and ``make
similarity`` flags ada and dee with cy.  Then ada and dee each upload, marked
``LATE_`` by Canvas, a notebook that cannot be graded: ada's holds a lone
surrogate (``\\ud800``) in a written answer, which no encoding takes, dee's
1,022 cells, over the 1,000 allowed (``c.BoundSubmission.max_cells``).

Their latest hand-in is the one collected, so the export (plain and
Canvas's), the feedback and the similarity check must describe it: not graded,
0, one day late as Canvas marked it, named with why by ``make export``,
which exits non-zero as ``make autograde`` does; a page saying it was not
graded in place of the earlier feedback; and in ``make similarity``, each
still flagged with cy, compared as handed in and named as not graded.
bob and cy keep 10 on time and their pages.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell

from coursegrader.tools.course import Course, fill_answers
from grading.ps1_honest import BOB
from lms_zips import canvas_roster, canvas_zip
from conftest import CHROMIUM_ARGS
from course_steps import make
from formgraders import formgrader_server

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
pytestmark = [pytest.mark.timeout(1200),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def _answers(released, answers):
    nb = fill_answers(released, released)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def _rows(path, key):
    with open(path, newline="", encoding="utf-8") as f:
        return {r[key]: r for r in csv.DictReader(f)}


def _pairs(course):
    rows = _rows_list(course.root / "report" / f"{PS}-similarity.csv")
    return {frozenset((r["student_a"], r["student_b"])): r for r in rows}


def _rows_list(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def course(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("resubmission")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=[PS], secret="resubmission-secret", part_timeout=20)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n"
                                         "ada,Ada,Example,ada@uni.example\n"
                                         "bob,Bob,Example,bob@uni.example\n"
                                         "cy,Cy,Example,cy@uni.example\n"
                                         "dee,Dee,Example,dee@uni.example\n")
    (c.root / "canvas.csv").write_text(canvas_roster([
        ("Ada Example", 10, "S1", "ada"), ("Bob Example", 30, "S2", "bob"),
        ("Cy Example", 12, "S3", "cy"), ("Dee Example", 14, "S4", "dee")]))
    (c.root / "due_dates.csv").write_text(f"assignment,due\n{PS},2026-10-05 23:59:00\n")
    make(c, "db", f"PS={PS}")
    c.nbgrader("generate_assignment", PS)
    released = c.released(PS)
    cys = nbformat.writes(fill_answers(released, c.source(PS))).encode()
    bobs = nbformat.writes(_answers(released, BOB)).encode()
    first = tmp / "first.zip"
    first.write_bytes(canvas_zip([
        ("ada_10_20_ps1.ipynb", cys), ("bob_30_40_ps1.ipynb", bobs),
        ("cy_12_22_ps1.ipynb", cys), ("dee_14_24_ps1.ipynb", cys)]))
    c.first = make(c, "zip_collect", f"PS={PS}", f"ZIP={first}", "ROSTER=canvas.csv",
                   "JOBS=2", check=False)
    c.first_scores = c.code_scores(PS)
    c.first_similarity = make(c, "similarity", f"PS={PS}", check=False)
    c.first_pairs = _pairs(c)
    c.nbgrader("generate_feedback", PS, "--force", "--RefuseHalfGraded.allow_ungraded=True")
    c.first_pages = {s: (c.root / "feedback" / s / PS / f"{PS}.html").read_text()
                     for s in ("ada", "bob", "cy", "dee")}

    # ada: cy's notebook with a lone surrogate in a written answer, as JSON writes it
    surrogate = json.loads(cys)
    for cell in surrogate["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "validity_arguments":
            cell["source"] = "oops \ud800"
    # dee: cy's notebook and 1,022 empty Markdown cells more
    many = fill_answers(released, c.source(PS))
    many.cells.extend(new_markdown_cell("") for _ in range(1022 - len(many.cells)))
    second = tmp / "second.zip"
    second.write_bytes(canvas_zip([
        ("ada_LATE_10_21_ps1.ipynb", json.dumps(surrogate, ensure_ascii=True).encode()),
        ("dee_LATE_14_25_ps1.ipynb", nbformat.writes(many).encode())]))
    c.second = make(c, "zip_collect", f"PS={PS}", f"ZIP={second}", "ROSTER=canvas.csv",
                    "JOBS=2", check=False)
    # the written parts are not graded by hand here: provisional grades
    c.export = make(c, "export", f"PS={PS}", "FORCE=1", check=False)
    c.canvas = make(c, "export", f"PS={PS}", "LMS=canvas", "ROSTER=canvas.csv", "FORCE=1",
                    check=False)
    c.similarity = make(c, "similarity", f"PS={PS}", check=False)
    c.pairs = _pairs(c)
    c.feedback = c.nbgrader("generate_feedback", PS, "--force",
                            "--RefuseHalfGraded.allow_ungraded=True", check=False)
    c.refused = subprocess.run([sys.executable, "-m", "coursegrader.tools.refused_feedback",
                                PS], cwd=c.root, capture_output=True, text=True, timeout=300)
    return c


def test_first_hand_ins_score_full_marks_and_the_copies_are_flagged(course):
    assert course.first.returncode == 0, course.first.stdout[-3000:] + course.first.stderr
    assert course.first_scores == {s: (10.0, 10.0) for s in ("ada", "bob", "cy", "dee")}
    assert course.first_pairs[frozenset(("ada", "cy"))]["flagged"] == "true"
    assert course.first_pairs[frozenset(("dee", "cy"))]["flagged"] == "true"
    assert course.first_pairs[frozenset(("bob", "cy"))]["flagged"] == "false"


def test_an_ungradable_resubmission_is_exported_as_not_graded_and_late(course):
    assert course.second.returncode != 0
    assert "ps1/ada: UnicodeEncodeError" in course.second.stderr, course.second.stderr[-3000:]
    assert "ps1/dee: NotebookTooLarge" in course.second.stderr
    assert not (course.root / "autograded" / "ada" / PS).exists()
    # nothing of the earlier grade is left in the gradebook
    assert set(course.code_scores(PS)) == {"bob", "cy"}

    export = course.export
    assert export.returncode != 0, export.stdout + export.stderr      # the command's 1
    assert "2 submission(s) not graded, exported as 0" in export.stderr
    rows = _rows(course.root / "grades.csv", "student_id")
    for student in ("ada", "dee"):
        row = rows[student]
        assert float(row["score"]) == 0 and float(row["raw_score"]) == 0, row
        assert row["days_late"] == "1", row                # Canvas's LATE_ marker
        assert "the LMS marked it late" in row["time_source"], row
        assert row["not_graded"].startswith("not graded (0): "), row
        assert f"ps1 {student}: " in export.stderr
    assert "UnicodeEncodeError" in rows["ada"]["not_graded"]
    assert "\\ud800" in rows["ada"]["not_graded"]          # written out, not the character
    assert "1,022 cells" in rows["dee"]["not_graded"]
    for student in ("bob", "cy"):                           # the honest classmates
        assert float(rows[student]["score"]) == 10 and rows[student]["days_late"] == "0"
        assert rows[student]["not_graded"] == ""


def test_the_lms_file_gets_0_and_the_list_names_why(course):
    canvas = course.canvas
    assert canvas.returncode != 0, canvas.stdout + canvas.stderr
    with open(course.root / "grades-canvas.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    column = rows[0].index(next(h for h in rows[0] if h.startswith(PS)))
    by_login = {r[rows[0].index("SIS Login ID")]: r[column] for r in rows[1:]}
    assert by_login["ada"] == "0" and by_login["dee"] == "0", by_login
    assert by_login["bob"] == "10" and by_login["cy"] == "10", by_login
    listing = (course.root / "grades-canvas-not-graded.txt").read_text()
    assert "ps1 ada: UnicodeEncodeError" in listing and "ps1 dee: NotebookTooLarge" in listing


def test_the_copy_stays_flagged_compared_as_handed_in(course):
    done = course.similarity
    assert done.returncode == 0, done.stderr
    for student in ("ada", "dee"):
        pair = course.pairs[frozenset((student, "cy"))]
        assert pair["flagged"] == "true" and float(pair["similarity"]) > 0.9, pair
        assert f"not graded, compared as handed in: {student}: its latest hand-in " \
               "failed to grade" in done.stdout
    assert course.pairs[frozenset(("bob", "cy"))]["flagged"] == "false"
    assert "not compared" not in done.stderr, done.stderr
    page = (course.root / "report" / f"{PS}-similarity.html").read_text()
    assert "Not graded, compared as handed in" in page


def test_the_feedback_says_not_graded_in_place_of_the_earlier_page(course):
    assert course.refused.returncode == 1
    assert "2 submission(s) not graded" in course.refused.stderr
    for student in ("ada", "dee"):
        assert "has no score" not in course.first_pages[student]
        page = (course.root / "feedback" / student / PS / f"{PS}.html").read_text()
        assert "ps1: not graded" in page and "has no score" in page, page
    assert "1,022 cells" in (course.root / "feedback" / "dee" / PS / f"{PS}.html").read_text()
    ada = (course.root / "feedback" / "ada" / PS / f"{PS}.html").read_text()
    assert "oops" not in ada and "ud800" not in ada
    for student in ("bob", "cy"):
        page = (course.root / "feedback" / student / PS / f"{PS}.html").read_text()
        assert "ps1: not graded" not in page and "quadratic" in page


def _formgrader_autograde(course, student, chromium):
    """Click ``student``'s autograde in Formgrader's list of ps1's submissions, in
    Chromium; the text of the box it opens."""
    from playwright.sync_api import sync_playwright
    with formgrader_server(course.root) as (url, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(
                extra_http_headers={"Authorization": f"token {token}"}).new_page()
            page.goto(f"{url}/formgrader/manage_submissions/{PS}")
            row = f'tr:has(td.student-id:text-is("{student}"))'
            page.locator(f"{row} td.autograde a").click()
            modal = page.locator("#success-modal, #error-modal")
            modal.wait_for(state="visible", timeout=300_000)
            return modal.inner_text()
        finally:
            browser.close()


def test_through_the_folder_exchange_the_ungradable_resubmission_gets_0(slow, chromium,
                                                                       tmp_path):
    """The same through the folder exchange (`nbgrader submit`, `make collect`, `make
    autograde`, which the hub's collects share): ada's graded hand-in is replaced
    by one with a lone surrogate in a written answer; bob hands in once.  The
    instructor first autogrades it with Formgrader's button, in a browser: the box
    says it was not graded and why, and the export gives it 0 (Formgrader's own
    autograde kept the earlier 10); then `make autograde` fails it again."""
    c = Course.copy_of(COURSE, tmp_path / "course", exchange=tmp_path / "exchange",
                       assignments=[PS], secret="resubmission-secret", part_timeout=20)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (c.root / "students.csv").write_text("id,first_name,last_name,email\n"
                                         "ada,Ada,Example,ada@uni.example\n"
                                         "bob,Bob,Example,bob@uni.example\n")
    make(c, "db", f"PS={PS}")
    c.nbgrader("generate_assignment", PS)
    make(c, "release", f"PS={PS}")
    for student in ("ada", "bob"):
        c.student(student, "fetch_assignment", PS)
        path = c.student_notebook_path(student, PS)
        answers = BOB if student == "bob" else None
        nb = nbformat.read(path, as_version=4)
        nb = _answers(nb, answers) if answers else fill_answers(nb, c.source(PS))
        nbformat.write(nb, path)
        c.student(student, "submit", PS)
    make(c, "collect", f"PS={PS}")
    make(c, "autograde", f"PS={PS}", "JOBS=1")
    assert c.code_scores(PS) == {"ada": (10.0, 10.0), "bob": (10.0, 10.0)}

    path = c.student_notebook_path("ada", PS)
    data = json.loads(path.read_text())
    for cell in data["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "validity_arguments":
            cell["source"] = "oops \ud800"
    path.write_text(json.dumps(data, ensure_ascii=True))
    c.student("ada", "submit", PS)
    make(c, "collect", f"PS={PS}")

    box = _formgrader_autograde(c, "ada", chromium)
    assert "There was an error autograding 'ps1' for student 'ada'" in box, box
    assert "UnicodeEncodeError" in box and "Not graded: the gradebook keeps no earlier" in box
    assert set(c.code_scores(PS)) == {"bob"}
    export = make(c, "export", f"PS={PS}", "FORCE=1", check=False)
    assert export.returncode != 0 and "ps1 ada: UnicodeEncodeError" in export.stderr
    rows = _rows(c.root / "grades.csv", "student_id")
    assert float(rows["ada"]["score"]) == 0 and rows["ada"]["not_graded"], rows["ada"]
    assert float(rows["bob"]["score"]) == 10 and rows["bob"]["not_graded"] == ""
    lines = [json.loads(line) for line in
             (c.root / "gradelog" / f"{PS}.jsonl").read_text().splitlines()]
    assert [e["status"] for e in lines if e["student"] == "ada"] == ["graded", "failed"]

    graded = make(c, "autograde", f"PS={PS}", "JOBS=1", check=False)
    assert graded.returncode != 0 and "ps1/ada: UnicodeEncodeError" in graded.stderr

    export = make(c, "export", f"PS={PS}", "FORCE=1", check=False)
    assert export.returncode != 0 and "ps1 ada: UnicodeEncodeError" in export.stderr
    rows = _rows(c.root / "grades.csv", "student_id")
    assert float(rows["ada"]["score"]) == 0 and rows["ada"]["not_graded"]
    assert "the last change (ctime)" in rows["ada"]["time_source"] \
        or "first found" in rows["ada"]["time_source"]
    assert float(rows["bob"]["score"]) == 10 and rows["bob"]["not_graded"] == ""
