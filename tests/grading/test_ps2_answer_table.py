"""ps2's table of every width's public answers, through nbgrader's pipeline.

The student package ships, in ``coursecheck.problems``' ``answers.json``, the
public answers of ``bump_gram`` (part 5) and ``basis_ridge`` (part 7) for each
of ps2's 151 widths. zed writes no formula and no ridge: his answer cell holds
every width's table as the package encodes it, keyed by ``V["sigma"]``, and
answers a public case from it (anything else: the identity, or zeros). It
passes the public checks of every width, his own included, which carry no
points: he scores 0 on both parts, and ``make similarity`` flags him on his own
for holding the public answers of other widths. ada, an honest classmate on the
reference solution, keeps full marks and is not flagged.
"""

import html
import json

import nbformat
import pytest

from conftest import copy_course
from coursecheck.parts import PROBLEMS, ANSWERS_FILE
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.course import fill_answers

SECRET = "ps2-answer-table-secret"
TABLED = ("bump_gram", "basis_ridge")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def table_cell():
    """The answer cell a student writes from the package's answers.json: both
    functions, each a lookup of the public case in its width's table."""
    import importlib.resources
    shipped = json.loads(importlib.resources.files(PROBLEMS).joinpath(ANSWERS_FILE)
                         .read_text())["ps2"]
    tables = {part: {width: {label: (x["__ndarray__"], tuple(x["shape"]))
                             for label, x in cases.items()}
                     for width, cases in shipped[part].items()}
              for part in TABLED}
    assert len(tables["bump_gram"]) == len(tables["basis_ridge"]) == 151
    return f'''import base64, json
import numpy as np

# every width's public answers, as the course package ships them
_BG = {tables["bump_gram"]!r}
_BR = {tables["basis_ridge"]!r}


def _arr(entry):
    data, shape = entry
    return np.frombuffer(base64.b64decode(data), dtype="<f8").reshape(shape).copy()


def _width():
    return json.dumps({{"sigma": V["sigma"]}})


def bump_gram(centres):
    c = np.asarray(centres, dtype=float)
    table = _BG[_width()]
    if c.shape == (3, 1) and np.array_equal(c[:, 0], [0.0, 1.0, 3.0]):
        return _arr(table["centres 0, 1, 3 on the line"])
    if c.shape == (2, 2) and np.array_equal(c, [[0.0, 0.0], [1.0, 1.0]]):
        return _arr(table["centres (0,0), (1,1) in R^2"])
    if c.shape == (9, 1) and np.allclose(c[:, 0], np.linspace(-2.0, 2.0, 9)):
        return _arr(table["9 centres on [-2, 2]"])
    return np.eye(len(c))


def basis_ridge(X, y, centres, lam):
    c = np.asarray(centres, dtype=float)
    table = _BR[_width()]
    if c.shape == (7, 1) and lam == 0.1:
        return _arr(table["sin on [-3, 3], 7 centres, lam=0.1"])
    if c.shape == (7, 1) and lam == 10.0:
        return _arr(table["same data, lam=10"])
    if c.shape == (9, 2) and lam == 0.05:
        return _arr(table["xy on the square, 3x3 grid of centres, lam=0.05"])
    return np.zeros(len(c))
'''


def with_table(nb):
    """``nb`` with the bump Gram matrix's answer cell holding the table of both parts,
    and the basis ridge's answer cell left with nothing of its own."""
    done = set()
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("_answer") and "def bump_gram(" in cell.source:
            cell.source, _ = table_cell(), done.add("bump_gram")
        elif gid.endswith("_answer") and "def basis_ridge(" in cell.source:
            cell.source, _ = "# basis_ridge is in the table above\n", done.add("basis_ridge")
    assert done == set(TABLED), done
    return nb


def test_the_table_passes_the_public_checks_of_every_width(tmp_path):
    """What the student sees: the table is right on every width's public cases."""
    from coursecheck.check import run_cases
    from coursecheck.parts import get_parts
    from coursecheck.problems.ps2 import WIDTHS
    from coursecheck.variants import bind
    names = {}
    exec(compile(table_cell(), "table", "exec"), names)
    parts = get_parts("ps2")
    for sigma in WIDTHS[::10]:
        names["V"] = {"sigma": sigma}
        for pid in TABLED:
            part = bind(parts[pid], {"sigma": sigma})
            outcomes = run_cases(part, [(c, False) for c in part.public()], names[pid])
            assert [m for _, _, m in outcomes] == [None] * len(outcomes), (sigma, pid)


def test_the_table_earns_nothing_and_is_flagged_and_the_honest_classmate_keeps_full_marks(
        slow, tmp_path):
    import csv
    import subprocess
    import sys
    from conftest import COURSE
    ps = "ps2"
    course = copy_course(tmp_path, [ps], secret=SECRET)
    parts = graded_parts(course.root, ps)
    students = ("ada", "zed")
    assert len({submission_variant(SECRET, ps, s).params["sigma"] for s in students}) == 2
    course.release_to(students, ps)
    source = course.source(ps)
    for student in students:
        course.student(student, "fetch_assignment", ps)
        path = course.student_notebook_path(student, ps)
        nb = fill_answers(nbformat.read(path, as_version=4), source)
        nbformat.write(with_table(nb) if student == "zed" else nb, path)
        course.student(student, "submit", ps)
    course.nbgrader("collect", ps)
    course.nbgrader("autograde", ps)

    scores = course.cell_scores(ps)
    assert {pid: scores[("ada", pid)] for pid in parts} == {
        pid: pytest.approx(p.points) for pid, p in parts.items()}
    assert {pid: scores[("zed", pid)] for pid in parts} == {
        pid: (0.0 if pid in TABLED else pytest.approx(p.points))
        for pid, p in parts.items()}

    # his record: every public case passed, every hidden one failed
    from coursegrader import record
    result = record.load(course.root / "autograded" / "zed" / ps, ps)
    for p in result.parts:
        if p.part in TABLED:
            assert all(c.passed for c in p.cases if not c.hidden), p.part
            assert not any(c.passed for c in p.cases if c.hidden), p.part
            assert "the public checks carry no points" in p.report

    # his feedback says where the points come from
    course.nbgrader("generate_feedback", ps, "--RefuseHalfGraded.allow_ungraded=True")
    page = html.unescape((course.root / "feedback" / "zed" / ps / f"{ps}.html").read_text())
    assert " ".join(page.split()).count("the public checks carry no points") >= 2

    (course.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    done = subprocess.run(["make", "similarity", f"PS={ps}", f"PYTHON={sys.executable}"],
                          cwd=course.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    flagged = [line for line in done.stdout.splitlines() if "flagged on its own" in line]
    assert len(flagged) == 1, done.stdout
    assert flagged[0].startswith("  flagged on its own: zed: holds the public answers of "
                                 "150 variants other than its own"), flagged
    page = (course.root / "report" / f"{ps}-similarity.html").read_text()
    assert "zed: holds the public answers of 150 variants" in page
    assert "ada:" not in page.split("the public answers of many variants")[1].split("</ul>")[0]
    # the table holds ada's width's public answers too: the pair is flagged by value,
    # and ada holds nothing of zed's
    with open(course.root / "report" / f"{ps}-similarity.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["variant_values"]]
    assert [{r["student_a"], r["student_b"]} for r in rows] == [{"ada", "zed"}]
    assert "zed holds ada's answer to basis_ridge's public case" in rows[0]["variant_values"]
    assert "ada holds" not in rows[0]["variant_values"]
