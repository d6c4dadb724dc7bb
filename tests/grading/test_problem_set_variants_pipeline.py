"""The course's problem sets with variants, through nbgrader's pipeline:
generate, release, fetch, submit, collect, autograde (in the sandbox) and
feedback, on a copy of the course.

alice and bob each hand in their own solved copy (the reference solution,
which reads their variant); carol hands in bob's notebook with the answers of
the parts that vary as bob worked them out on his variant (literal values, as
a copy passed on from a classmate holds them); dave hands in, for ps3, the
answer that was right for every variant of its old question. Own work scores
full marks; carol's copy and dave's answer lose every part that varies and
keep the others, and carol's feedback names the variant she was graded on.
``make similarity`` then flags carol with bob for holding the witnesses of his
samples, and no one else for a value of a variant.
"""

import html

import nbformat
import numpy as np
import pytest

from conftest import copy_course, variant_value_pairs
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.course import fill_answers
from coursecheck.check import call_and_judge
from coursecheck.variants import bind

SECRET = "problem-set-variants-secret"
VARYING = ["ps3"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def _answer(source, part_id, params):
    """The source notebook's answer to ``part_id``, defined with ``V`` = ``params``."""
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in source.cells}
    scope = {}
    exec(cells["setup"], scope)
    scope["V"] = params
    exec(cells[f"{part_id}_answer"], scope)
    return scope


def _literal_cell(func, table):
    """An answer cell defining ``func`` to return, for each name, the value of ``table``."""
    return (f"def {func}(name, *rest):\n"
            f"    return np.array({table!r}[name], dtype=float)\n")


def _by_hand(course, ps, part_id, params):
    """Answer cell of ``part_id``: a table of literal answers, one per name the variant asks
    about, worked out (by the reference solution) on the variant ``params``."""
    part = graded_parts(course.root, ps)[part_id]
    func = _answer(course.source(ps), part_id, params)[part.func]
    table = {case.args[0]: np.asarray(func(*case.args)).tolist()
             for case in bind(part, params).public()}
    return _literal_cell(part.func, table)


#: for each problem set, the literal answers that were right for every variant of a
#: question it asked before: ps3's six points that failed each function for every
#: parameter of its draw
UNIVERSAL = {"ps3": {"counterexample": {
    name: [[1, 0], [0, 1], [0, 0], [1, 1], [-1, -1], [3, 0]]
    for name in ("x^T B z", "w.x + w.z", "min(u.x, u.z)", "x.z - c(x.z)^2", "max(v.x, v.z)")}}}


def _fails_everywhere(course, ps, part_id, answer_cell, params):
    """True when the literal answers of ``answer_cell`` fail every case of variant ``params``."""
    part = bind(graded_parts(course.root, ps)[part_id], params)
    scope = {"np": np}
    exec(answer_cell, scope)
    return all(call_and_judge(part, c, scope[part.func]) is not None for c in part.public())


@pytest.mark.parametrize("ps", VARYING)
def test_own_solved_copies_score_full_marks_and_a_copy_across_variants_loses_what_varies(
        slow, tmp_path, ps):
    course = copy_course(tmp_path, [ps], secret=SECRET)
    parts = graded_parts(course.root, ps)
    varying = [pid for pid, p in parts.items() if p.varies]
    assert varying
    source = course.source(ps)
    variant = {s: submission_variant(SECRET, ps, s) for s in ("alice", "bob")}
    bobs = {pid: _by_hand(course, ps, pid, variant["bob"].params) for pid in varying}
    # carol: the first classmate on whose variant every answer bob worked out fails
    carol = next(s for s in (f"carol{i}" for i in range(200))
                 if all(_fails_everywhere(course, ps, pid, bobs[pid],
                                          submission_variant(SECRET, ps, s).params)
                        for pid in varying))
    universal = {pid: _literal_cell(parts[pid].func, table)
                 for pid, table in UNIVERSAL.get(ps, {}).items()}
    cells = {"alice": {}, "bob": {}, carol: bobs, "dave": universal}
    students = tuple(cells)
    course.release_to(students, ps)
    for student in students:
        course.student(student, "fetch_assignment", ps)
        path = course.student_notebook_path(student, ps)
        nb = fill_answers(nbformat.read(path, as_version=4), source)
        worked = cells[student]
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if gid.endswith("_answer") and gid[:-len("_answer")] in worked:
                cell.source = worked[gid[:-len("_answer")]]
        nbformat.write(nb, path)
        course.student(student, "submit", ps)
    course.nbgrader("collect", ps)
    course.nbgrader("autograde", ps)
    course.nbgrader("generate_feedback", ps, "--RefuseHalfGraded.allow_ungraded=True")

    scores = course.cell_scores(ps)
    for student in ("alice", "bob"):
        assert {pid: scores[(student, pid)] for pid in parts} == {
            pid: pytest.approx(p.points) for pid, p in parts.items()}, student
    for student in (carol, "dave"):
        assert {pid: scores[(student, pid)] for pid in parts} == {
            pid: (0.0 if pid in cells[student] else pytest.approx(p.points))
            for pid, p in parts.items()}, student
    assert set(cells[carol]) == set(varying)
    expected = submission_variant(SECRET, ps, carol)
    page = html.unescape((course.root / "feedback" / carol / ps / f"{ps}.html").read_text())
    assert f"Graded on the variant of {carol} ({expected.label})." in page
    assert f"Variant for {carol} ({expected.label}), as the grader drew it." in page
    assert f"({variant['bob'].label})" not in page

    by_value = variant_value_pairs(course, ps)
    assert set(by_value) == {frozenset((carol, "bob"))}
    assert f"{carol} holds bob's witness on the sample of " in by_value[frozenset((carol, "bob"))]
