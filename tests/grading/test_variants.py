"""The grader's side of variants: each student is judged on the variant their
route names, never on the one their notebook shows.

Judged through ``JudgeSubmission`` (the preprocessor autograde runs), in the
sandbox, on the small problem set of ``tests/variant_problem.py``.
"""

import pytest
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.utils import determine_grade
from traitlets.config import Config

from coursecheck.variants import VARIANT_CELL
from coursegrader import record
from coursegrader.judging.variants import submission_variant, variant_cell_source
from coursegrader.preprocessors import JudgeSubmission
from variant_problem import install

SECRET = "variant-test-secret"
HIDDEN = '''\
from variant_problem import Case

HIDDEN = {
    "scaled": lambda v, rng: [Case(args=(rng.normal(size=4),), label="random x")],
    "doubled": lambda rng: [Case(args=(rng.normal(size=2),), label="random x")],
}
REFERENCES = {}
'''


@pytest.fixture
def course(monkeypatch, tmp_path):
    """A course folder holding the hidden half of the small problem set."""
    ps = install(monkeypatch)
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / f"{ps}.py").write_text(HIDDEN)
    return ps, Config({"CourseDirectory": {"root": str(tmp_path)},
                       "CourseSettings": {"secret": SECRET}})


def _notebook(ps, scaled, doubled="def doubled(x):\n    return 2 * x"):
    def cell(src, **md):
        base = {"grade": False, "grade_id": md.pop("gid"), "locked": False,
                "schema_version": 3, "solution": False, "task": False}
        base.update(md)
        return new_code_cell(src, metadata={"nbgrader": base})
    return new_notebook(cells=[
        cell("import numpy as np", gid="setup", locked=True),
        cell(f'from coursecheck import variant\nV = variant("{ps}")', gid=VARIANT_CELL,
             locked=True),
        cell(scaled, gid="scaled_answer", solution=True),
        cell(f'from coursecheck import check\ncheck("{ps}", "scaled", scaled)',
             gid="scaled", grade=True, locked=True, points=2),
        cell(doubled, gid="doubled_answer", solution=True),
        cell(f'from coursecheck import check\ncheck("{ps}", "doubled", doubled)',
             gid="doubled", grade=True, locked=True, points=1),
    ])


def _grade(config, ps, student, nb):
    resources = {"nbgrader": {"assignment": ps, "student": student}}
    nb, _ = JudgeSubmission(config=config).preprocess(nb, resources)
    scores = {c.metadata["nbgrader"]["grade_id"]: determine_grade(c)[0] for c in nb.cells
              if c.metadata["nbgrader"]["grade"]}
    return scores, nb, record.attached(resources)


def _hard_coded(c):
    """An answer worked out by hand on a variant whose c is ``c``."""
    return f"def scaled(x):\n    return {c!r} * np.asarray(x)"


def test_own_work_scores_full_marks_and_a_classmates_variant_loses_the_part_that_varies(course):
    ps, config = course
    alice = submission_variant(SECRET, ps, "alice")
    bob = next(submission_variant(SECRET, ps, s) for s in ("bob", "carl", "dora", "ed", "flo")
               if submission_variant(SECRET, ps, s).params["c"] != alice.params["c"])
    # general code, reading the notebook's V: right on every variant
    general = "def scaled(x):\n    return V['c'] * np.asarray(x)"
    for who, variant in (("alice", alice), (bob.student, bob)):
        for answer in (general, _hard_coded(variant.params["c"])):
            scores, nb, result = _grade(config, ps, who, _notebook(ps, answer))
            assert scores == {"scaled": 2.0, "doubled": 1.0}, (who, answer)
            assert result.variant == variant.label
    # alice hands in bob's variant worked by hand: the part that varies is lost,
    # the one that does not is kept, and the report says which variant was expected
    scores, nb, result = _grade(config, ps, "alice", _notebook(ps, _hard_coded(bob.params["c"])))
    assert scores == {"scaled": 0.0, "doubled": 1.0}
    assert result.variant == alice.label
    report = result.part("scaled").report
    assert f"Graded on the variant of alice ({alice.label})." in report
    assert "Graded on" not in result.part("doubled").report
    assert (result.part("scaled").variant, result.part("doubled").variant) == (alice.label, None)
    shown = next(c for c in nb.cells if c.metadata["nbgrader"]["grade_id"] == "scaled")
    assert f"Graded on the variant of alice ({alice.label})." in shown.outputs[0]["text"]
    # the notebook's own run shows the variant the grader drew, not the notebook's
    ran = next(c for c in nb.cells if c.metadata["nbgrader"]["grade_id"] == VARIANT_CELL)
    assert f"Variant for alice ({alice.label}), as the grader drew it." in ran.outputs[0]["text"]


def test_a_notebook_that_rewrites_its_variant_is_still_judged_on_the_students_own(course):
    ps, config = course
    alice = submission_variant(SECRET, ps, "alice")
    other = 4.5 if alice.params["c"] != 4.5 else 0.5
    # V set again after the variant cell (to a classmate's, say): the answer
    # follows it and is judged against alice's own c
    answer = (f"V = {{'c': {other!r}, 'x': [1.0, 2.0, 3.0]}}\n"
              "def scaled(x):\n    return V['c'] * np.asarray(x)")
    scores, _, result = _grade(config, ps, "alice", _notebook(ps, answer))
    assert scores["scaled"] == 0.0 and result.variant == alice.label


def test_a_problem_set_without_variants_records_none():
    from nbformat.v4 import new_notebook as nbk
    from coursegrader.judging.submission import Settings, judge_submission
    result = judge_submission(nbk(cells=[new_code_cell("x = 1")]), {}, Settings(secret=""),
                              assignment="ps1", student="s1", notebook="ps1", folder=".")
    assert result.result.variant is None


def test_the_variant_cell_the_grader_runs_needs_no_course_package(course):
    ps, _ = course
    v = submission_variant(SECRET, ps, "alice")
    namespace = {}
    exec(variant_cell_source(v), namespace)
    assert namespace["V"] == v.params
    assert "coursecheck" not in variant_cell_source(v)


def test_variant_codes_are_each_students_own_and_open_safely_in_a_spreadsheet(tmp_path):
    import csv

    from attacks import spreadsheet_formulas
    from conftest import copy_course
    from coursegrader.tools.variant_codes import main
    from coursegrader.judging.variants import variant_code

    c = copy_course(tmp_path, ["ps1"], secret="codes-secret")
    assert main(["--course", str(c.root), "--student", "bob", "--student", "=cmd|x",
                 "--student", "alice", "--student", "x;'=1+1'"]) == 0
    # read with `;` and `'` as its quote, `x;'=1+1'` was the cell `=1+1`
    assert spreadsheet_formulas((c.root / "variant_codes.csv").read_text()) == []
    rows = list(csv.DictReader((c.root / "variant_codes.csv").open()))
    assert [r["student_id"] for r in rows] == ["'=cmd|x", "alice", "bob", "x;_'=1+1'"]
    for r in rows[1:3]:
        assert r["code"] == variant_code("codes-secret", "kernel-methods", r["student_id"])
        assert r["notebook_cell"] == ("from coursecheck.variants import set_student; "
                                      f"set_student({r['student_id']!r}, {r['code']!r})")
    assert rows[1]["code"] != rows[2]["code"]


def test_a_source_notebooks_hidden_checks_run_on_the_variant_it_shows(course, monkeypatch,
                                                                      tmp_path, capsys):
    from coursecheck import CheckFailed
    from coursecheck.variants import student_variant
    from coursegrader.judging.hidden_checks import check_hidden

    ps, config = course
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("COURSECHECK_STUDENT", raising=False)
    monkeypatch.delenv("COURSECHECK_VARIANT_CODE", raising=False)
    root = config.CourseDirectory.root
    c = student_variant(ps).params["c"]          # the example variant: no student set
    check_hidden(ps, "scaled", lambda x: c * x, course=root)
    assert "All hidden-style checks passed." in capsys.readouterr().out
    with pytest.raises(CheckFailed):
        check_hidden(ps, "scaled", lambda x: (c + 1) * x, course=root)
