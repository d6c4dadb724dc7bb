"""Variants through nbgrader's pipeline: generate, release, fetch, submit,
collect, autograde (in the sandbox) and feedback, on a copy of the course with
the small problem set of ``tests/variant_problem.py`` added as ``ps90``.

alice and bob each hand in their own variant worked out by hand; carol hands
in bob's notebook. The grader judges each on the variant of the student the
exchange named.
"""

import html
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import copy_course
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.author import write_notebook
from variant_problem import install

SECRET = "variant-pipeline-secret"
HERE = Path(__file__).resolve().parent
HIDDEN = (HERE / "test_variants.py").read_text().split("HIDDEN = '''\\\n")[1].split("'''")[0]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def _course(tmp_path, ps):
    """A copy of the course with the small problem set ``ps`` added, its kernels and
    commands finding ``coursecheck.problems.<ps>`` as the test process does."""
    course = copy_course(tmp_path, ["ps1"], secret=SECRET)
    (course.root / "source" / ps).mkdir()
    shutil.copy(HERE.parent / "variant_problem.md", course.root / "source" / ps / f"{ps}.md")
    write_notebook(course.root, ps)
    (course.root / "hidden" / f"{ps}.py").write_text(HIDDEN)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys, variant_problem\n"
        f"sys.modules['coursecheck.problems.{ps}'] = variant_problem.module('{ps}')\n")
    return course, f"{site}:{HERE.parent}"


def _by_hand(nb, c):
    """``nb`` with the answers worked out by hand on a variant whose constant is ``c``."""
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid == "scaled_answer":
            cell.source = f"def scaled(x):\n    return {c!r} * np.asarray(x, dtype=float)"
        elif gid == "doubled_answer":
            cell.source = "def doubled(x):\n    return 2 * np.asarray(x, dtype=float)"
    return nb


@pytest.fixture(scope="module")
def graded_class(slow, tmp_path_factory):
    """ps90 through the pipeline: alice and bob hand in their own variant worked
    out by hand, carol bob's notebook; collected, autograded and fed back.

    ``(course, ps, students, pythonpath)``, the problem set installed for the
    module's tests."""
    with pytest.MonkeyPatch.context() as mp:
        ps = install(mp)
        course, pythonpath = _course(tmp_path_factory.mktemp("graded_class"), ps)
        c_of = {s: submission_variant(SECRET, ps, s).params["c"] for s in ("alice", "bob")}
        carol = next(s for s in ("carol", "cleo", "cora", "cy", "cato")
                     if submission_variant(SECRET, ps, s).params["c"] != c_of["bob"])
        students = ("alice", "bob", carol)
        course.release_to(students, ps)
        for student in students:
            course.student(student, "fetch_assignment", ps)
            path = course.student_notebook_path(student, ps)
            worked_on = c_of["bob"] if student == carol else c_of[student]
            nbformat.write(_by_hand(nbformat.read(path, as_version=4), worked_on), path)
            course.student(student, "submit", ps)
        course.nbgrader("collect", ps)
        course.nbgrader("autograde", ps)
        course.nbgrader("generate_feedback", ps)
        yield course, ps, students, pythonpath


def test_own_variants_score_full_marks_and_a_copy_across_variants_loses_what_varies(
        graded_class):
    course, ps, students, _ = graded_class
    carol = students[2]
    cells = course.cell_scores(ps)
    assert {s: (cells[(s, "scaled")], cells[(s, "doubled")]) for s in students} == {
        "alice": (2.0, 1.0), "bob": (2.0, 1.0), carol: (0.0, 1.0)}
    expected = submission_variant(SECRET, ps, carol)
    page = html.unescape((course.root / "feedback" / carol / ps / f"{ps}.html").read_text())
    assert f"Graded on the variant of {carol} ({expected.label})." in page
    assert f"c times x (on your variant, {expected.label})" in page      # the contents
    assert f"Variant for {carol} ({expected.label}), as the grader drew it." in page
    bobs = submission_variant(SECRET, ps, "bob")
    assert f"Variant for bob ({bobs.label})" not in page
    from coursegrader import record
    saved = record.load(course.root / "autograded" / carol / ps, ps)
    assert saved.variant == expected.label


def test_formgrader_names_the_variant_next_to_the_student_from_the_record(
        graded_class, chromium):
    """An instructor opens each submission from Formgrader's list, as they would:
    the grading page's heading names, next to the student, the variant the
    record says they were judged on; carol's notebook, made to print bob's
    variant, changes nothing."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS
    from formgraders import formgrader_server

    course, ps, students, pythonpath = graded_class
    carol = students[2]
    labels = {s: submission_variant(SECRET, ps, s).label for s in students}
    assert len(set(labels.values())) == 3
    # what the notebook says is the student's to write: carol's claims bob's variant
    autograded = course.root / "autograded" / carol / ps / f"{ps}.ipynb"
    original = autograded.read_text()
    autograded.write_text(original.replace(labels[carol], labels["bob"]))
    seen, violations = {}, []
    try:
        with formgrader_server(course.root, pythonpath=pythonpath) as (url, token), \
                sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                # no page sent holds an inline handler the policy would refuse
                # (Chromium: "Executing inline event handler violates the
                # following Content Security Policy directive"), and every
                # script of the page's own runs
                page.on("console", lambda m: violations.append(m.text)
                        if "Content Security Policy" in m.text else None)
                page.goto(f"{url}/formgrader?token={token}")
                for student in students:
                    page.get_by_role("link", name="Manual Grading").first.click()
                    page.get_by_role("link", name=ps, exact=True).first.click()
                    page.get_by_role("link", name=ps, exact=True).first.click()
                    # the list hides names: the row's eye shows them, as a grader does
                    page.locator("#toggle_names").wait_for()
                    row = page.locator("tr", has=page.locator(
                        "a.name-shown", has_text=f"{student.title()}"))
                    row.locator("span.glyphicon.name-hidden").click()
                    row.locator("a.name-shown").click()
                    page.wait_for_url("**/formgrader/submissions/**")
                    crumb = page.locator("li.live-notebook")
                    crumb.locator("span.glyphicon.name-hidden").click()   # show the name
                    seen[student] = crumb.inner_text()
                    # the heading's label is its own element, readable beside the name
                    assert crumb.locator(".graded-variant").inner_text().strip() == \
                        f"variant {labels[student]}"
            finally:
                browser.close()
    finally:
        autograded.write_text(original)
    for student in students:
        assert f"Example, {student.title()}" in seen[student], seen
        assert labels[student] in seen[student], (student, seen[student])
        others = [labels[s] for s in students if s != student]
        assert not [label for label in others if label in seen[student]], seen
    assert violations == []


def test_student_copy_shows_the_students_variant_and_solved_runs_the_reference_on_it(
        slow, monkeypatch, tmp_path):
    ps = install(monkeypatch)
    course, pythonpath = _course(tmp_path, ps)
    course.nbgrader("generate_assignment", ps, "--force")
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    from coursegrader.tools.student_copy import main

    alice = submission_variant(SECRET, ps, "alice")
    assert main([ps, "alice", "--course", str(course.root)]) == 0
    nb = nbformat.read(course.root / "student_copies" / "alice" / f"{ps}.ipynb", as_version=4)
    shown = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                    for o in c.outputs)
    assert f"Variant for alice ({alice.label})" in shown
    text = "\n".join(c.source for c in nb.cells)
    assert "raise NotImplementedError()" in text and "BEGIN SOLUTION" not in text

    assert main([ps, "alice", "--solved", "--course", str(course.root)]) == 0
    nb = nbformat.read(course.root / "student_copies" / "alice" / f"{ps}.ipynb", as_version=4)
    outputs = {c.metadata["nbgrader"]["grade_id"]: "".join(o.get("text", "") for o in c.outputs)
               for c in nb.cells if c.cell_type == "code"}
    assert f"On the variant of alice ({alice.label})" in outputs["scaled"]
    assert "All public checks passed" in outputs["scaled"]
    assert "check_hidden" not in "\n".join(c.source for c in nb.cells)
    assert main([ps, "../x", "--course", str(course.root)]) == 2

    # make validate: the source passes every check on the example variant (no
    # student set), the release fails every one
    from coursegrader.tools.validation import validate_course
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    assert validate_course(course.root, [ps]) == []


def test_through_an_lms_zip_the_variant_is_the_one_of_the_student_the_lms_names(
        slow, monkeypatch, tmp_path):
    import io
    import subprocess
    import sys
    import zipfile

    ps = install(monkeypatch)
    course, pythonpath = _course(tmp_path, ps)
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    ada = submission_variant(SECRET, ps, "ada")
    bob = next(s for s in ("bob", "ben", "bea", "bo", "bill")
               if submission_variant(SECRET, ps, s).params["c"] != ada.params["c"])
    (course.root / "Makefile").write_text((HERE.parents[1] / "assignments" / "Makefile")
                                          .read_text())
    (course.root / "students.csv").write_text("id,first_name,last_name,email\n"
                                              "ada,Ada,Example,ada@uni.example\n"
                                              f"{bob},Bob,Example,bob@uni.example\n")
    # make's commands, and the graders they start, find the small problem set too
    make = ["make", f"PYTHON={sys.executable}"]
    subprocess.run(make + ["db", f"PS={ps}"], cwd=course.root, check=True,
                   capture_output=True, timeout=600)
    course.nbgrader("generate_assignment", ps)
    adas = nbformat.writes(_by_hand(course.released(ps), ada.params["c"])).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:   # bob hands in ada's notebook
        zf.writestr(f"ada_10_20_{ps}.ipynb", adas)
        zf.writestr(f"{bob}_30_40_{ps}.ipynb", adas)
    upload = tmp_path / "submissions.zip"
    upload.write_bytes(buf.getvalue())
    done = subprocess.run(make + ["zip_collect", f"PS={ps}", f"ZIP={upload}", "JOBS=1"],
                          cwd=course.root, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    cells = course.cell_scores(ps)
    assert {s: (cells[(s, "scaled")], cells[(s, "doubled")]) for s in ("ada", bob)} == {
        "ada": (2.0, 1.0), bob: (0.0, 1.0)}
    from coursegrader import record
    saved = record.load(course.root / "autograded" / bob / ps, ps)
    assert saved.variant == submission_variant(SECRET, ps, bob).label
