"""Which cases carry a part's points: the public cases of a part judged by a table
per variant are feedback only.

The student package holds such a part's public answers for every variant
(``variant_answers``), so a table of them, keyed by the variant, is right on
every variant's public cases: those cases carry no points, and the part's
points come from its hidden cases, drawn per submission. Every other part
scores as before, public and hidden cases alike.
"""

import dataclasses

import pytest

from coursecheck.check import check_cases, format_report
from coursecheck.parts import (PUBLIC_UNSCORED, Case, Part, get_parts, scored_cases,
                               variant_answers)
from coursecheck.variants import bind
from coursegrader.judging.judge import grade_part
from coursegrader.judging.problem_sets import graded_parts, part_score
from coursegrader.tools.author import build_notebook
from conftest import COURSE
from grading.test_ps2_answer_table import table_cell

TABLED = {("ps2", "bump_gram"), ("ps2", "basis_ridge")}
SIGMA = 0.73
#: the bump Gram matrix worked out from its closed form, on the variant's width
BUMP_GRAM = '''import numpy as np

def bump_gram(centres):
    U = np.asarray(centres, dtype=float)
    d2 = ((U[:, None, :] - U[None, :, :]) ** 2).sum(axis=-1)
    return np.exp(-d2 / (4 * V["sigma"] ** 2))
'''


def _pub(*_):
    return [Case(args=(1.0,), label="one")]


def test_only_the_parts_judged_by_a_table_per_variant_give_their_public_cases_no_points():
    unscored = {(ps, pid) for ps in ("ps1", "ps2", "ps3", "ps4", "ps5")
                for pid, part in get_parts(ps).items() if not part.public_points}
    assert unscored == TABLED
    # the grader swaps the table for its reference, and binds the part to a variant:
    # the rule stays with the part
    graded = graded_parts(COURSE, "ps2")
    for ps, pid in TABLED:
        assert graded[pid].answers is None and graded[pid].reference is not None
        assert not graded[pid].public_points
        assert not bind(graded[pid], {"sigma": SIGMA}).public_points
    assert graded["kernel_ridge_predict"].public_points and graded["ridge_primal"].public_points


def test_an_author_cannot_give_the_public_cases_of_a_table_per_variant_points():
    with pytest.raises(ValueError, match="no points"):
        Part(func="f", points=2, varies=True, public=_pub, public_points=True,
             answers=variant_answers("ps2", "bump_gram"))
    with pytest.raises(ValueError, match="must be a bool"):
        Part(func="f", points=2, public=_pub, reference=abs, public_points="no")
    # turning it off for another part is an author's choice
    assert not Part(func="f", points=2, public=_pub, reference=abs,
                    public_points=False).public_points


def test_scored_cases_leave_out_only_the_public_cases_of_such_a_part():
    table = get_parts("ps2")["bump_gram"]
    plain = get_parts("ps2")["kernel_ridge_predict"]
    outcomes = [(Case((1,), "a"), False, None), (Case((1,), "b"), False, None),
                (Case((1,), "h1"), True, "wrong"), (Case((1,), "h2"), True, None)]
    assert scored_cases(table, outcomes) == outcomes[2:]
    assert scored_cases(plain, outcomes) == outcomes
    # the table's outcomes: every public case right, every hidden one wrong
    table_run = outcomes[:2] + [(c, h, "wrong") for c, h, _ in outcomes[2:]]
    counted = scored_cases(table, table_run)
    assert part_score(table, sum(m is None for *_, m in counted), len(counted)) == 0
    # before the rule: all cases counted, half the points
    assert part_score(table, 2, 4) == table.points / 2


def test_the_check_and_the_report_say_the_public_checks_carry_no_points(capsys):
    names = {"V": {"sigma": SIGMA}}
    exec(compile(table_cell(), "table", "exec"), names)
    part = bind(get_parts("ps2")["bump_gram"], {"sigma": SIGMA})
    check_cases("bump_gram", part, part.public(), names["bump_gram"])
    said = capsys.readouterr().out
    assert "All public checks passed; they carry no points: the grade comes from hidden " \
           "cases." in said
    assert "the grade also uses hidden cases" not in said
    report = format_report("bump_gram", part, [(c, False, None) for c in part.public()])
    assert " ".join(report.split()).endswith(f"Note: {PUBLIC_UNSCORED}.")
    other = bind(get_parts("ps2")["kernel_ridge_predict"], {"sigma": SIGMA})
    assert "carry no points" not in format_report(
        "kernel_ridge_predict", other, [(c, False, None) for c in other.public()])


def test_the_problem_set_says_where_the_points_of_parts_5_and_7_come_from():
    nb = build_notebook(COURSE / "source" / "ps2" / "ps2.md")
    text = "\n".join(c.source for c in nb.cells)
    for pid in ("bump_gram", "basis_ridge"):
        points = get_parts("ps2")[pid].points
        check = next(c.source for c in nb.cells
                     if c.metadata.get("nbgrader", {}).get("grade_id") == pid)
        assert f"({points:g} points, all from hidden checks)." in check.splitlines()[0]
    assert text.count("points, all from hidden checks") == 4   # two headings, two checks
    assert "point, all from hidden checks" not in text.replace("points, all", "")


@pytest.mark.slow   # sandboxes started: seconds
def test_the_table_scores_nothing_and_the_solution_full_marks_in_the_grader():
    part = bind(graded_parts(COURSE, "ps2")["bump_gram"], {"sigma": SIGMA})
    cells = [f"V = {{'sigma': {SIGMA!r}}}"]
    table = grade_part("ps2", "bump_gram", part, cells + [table_cell()], student="s1",
                       secret="k")
    public = [c for c in table.cases if not c.hidden]
    assert public and all(c.passed for c in public)
    assert not any(c.passed for c in table.cases if c.hidden)
    assert table.score == 0
    assert "the public checks carry no points" in " ".join(table.report.split())
    honest = grade_part("ps2", "bump_gram", part, cells + [BUMP_GRAM], student="s1",
                        secret="k")
    assert all(c.passed for c in honest.cases) and honest.score == part.points
    # a part that is not judged by a table still counts its public cases
    other = dataclasses.replace(part, public_points=True)
    assert grade_part("ps2", "bump_gram", other, cells + [table_cell()], student="s1",
                      secret="k").score == round(part.points * len(public)
                                                 / len(table.cases), 2)
