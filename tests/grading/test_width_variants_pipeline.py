"""The variants of ps2, ps4 and ps5 through nbgrader's pipeline: generate,
release, fetch, submit, collect, autograde (in the sandbox) and feedback, on a
copy of the course.

ps2's parts 5, 7 and 8 (the bump Gram matrix, the basis ridge, kernel ridge),
ps4's parts 1, 2 and 4 and ps5's part 4 are on each student's own Gaussian
width sigma. alice and bob hand in the reference solution worked out on their own variant: their
width written as a number where the solution reads ``V["sigma"]``, as a
student who copied the width from the printed variant would. carol hands in
bob's notebook; dave hands in the solution for sigma = 1, the width one might
circulate to the whole class. Own work scores full marks; the copy and the
circulated answer lose every case that depends on sigma (everything but
ps4's part 2's zero function), keep the parts that do not vary, and the
feedback names the variant they were graded on. ``make similarity`` then flags
carol with bob for holding his width, and no one else for a width: alice's and
bob's are their own, dave's (1) a number anyone might write.
"""

import html

import nbformat
import pytest

from conftest import copy_course, variant_value_pairs
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.course import fill_answers

SECRET = "width-variants-secret"
VARYING = {"ps2": {"bump_gram", "basis_ridge", "kernel_ridge_predict"},
           "ps4": {"rkhs_inner", "rkhs_norm", "project_onto_span"}, "ps5": {"svm_decision"}}
#: what a copy on another width keeps of ps4's part 2: the zero function, 1 of its 8 cases
KEPT = {("ps4", "rkhs_norm"): 2 * 1 / 8}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def _worked_on(nb, sigma, varying):
    """``nb`` with the answers of the varying parts written for the width ``sigma``
    (only those read ``V``; an answer cell may hold more than one function, and be
    named otherwise than its graded part, as ps2's kernel ridge is)."""
    written = set()
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("_answer") and 'V["sigma"]' in cell.source:
            written |= {pid for pid in varying if f"def {pid}(" in cell.source}
            cell.source = cell.source.replace('V["sigma"]', repr(sigma))
    assert written == varying, written
    return nb


@pytest.mark.parametrize("ps", sorted(VARYING))
def test_own_widths_score_full_marks_and_a_copy_or_a_circulated_width_loses(
        slow, tmp_path, ps):
    course = copy_course(tmp_path, [ps], secret=SECRET)
    parts = graded_parts(course.root, ps)
    varying = {pid for pid, p in parts.items() if p.varies}
    assert varying == VARYING[ps]
    variant = {s: submission_variant(SECRET, ps, s) for s in ("alice", "bob")}
    sigma = {s: v.params["sigma"] for s, v in variant.items()}
    assert sigma["alice"] != sigma["bob"]
    # carol and dave: the first classmates whose width is neither bob's nor 1
    carol, dave = [s for s in (f"student{i}" for i in range(100))
                   if submission_variant(SECRET, ps, s).params["sigma"]
                   not in (sigma["bob"], 1.0)][:2]
    worked = {"alice": sigma["alice"], "bob": sigma["bob"], carol: sigma["bob"], dave: 1.0}
    students = tuple(worked)
    course.release_to(students, ps)
    source = course.source(ps)
    for student in students:
        course.student(student, "fetch_assignment", ps)
        path = course.student_notebook_path(student, ps)
        nb = fill_answers(nbformat.read(path, as_version=4), source)
        nbformat.write(_worked_on(nb, worked[student], varying), path)
        course.student(student, "submit", ps)
    course.nbgrader("collect", ps)
    course.nbgrader("autograde", ps)
    course.nbgrader("generate_feedback", ps, "--RefuseHalfGraded.allow_ungraded=True")

    scores = course.cell_scores(ps)
    for student in ("alice", "bob"):
        assert {pid: scores[(student, pid)] for pid in parts} == {
            pid: pytest.approx(p.points) for pid, p in parts.items()}, student
    for student in (carol, dave):
        assert {pid: scores[(student, pid)] for pid in parts} == {
            pid: (pytest.approx(KEPT.get((ps, pid), 0.0)) if p.varies
                  else pytest.approx(p.points))
            for pid, p in parts.items()}, student
        expected = submission_variant(SECRET, ps, student)
        page = html.unescape((course.root / "feedback" / student / ps / f"{ps}.html").read_text())
        assert f"Graded on the variant of {student} ({expected.label})." in page
        assert f"Variant for {student} ({expected.label}), as the grader drew it." in page
        assert f"({variant['bob'].label})" not in page

    by_value = variant_value_pairs(course, ps)
    assert set(by_value) == {frozenset((carol, "bob"))}
    said = f"{carol} holds bob's sigma ({sigma['bob']!r}, in "
    assert by_value[frozenset((carol, "bob"))].startswith(said)
    assert said in html.unescape((course.root / "report" / f"{ps}-similarity.html").read_text())
