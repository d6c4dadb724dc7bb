"""ps1's variants through nbgrader's pipeline: generate, release, fetch,
submit, collect, autograde (in the sandbox) and feedback, on a copy of the
course.

alice and bob hand in their own solved copies (the reference solution, which
reads their variant). carol hands in bob's notebook as bob worked it out by
hand on his variant: his constant c written in as a number, his sixteen
verdicts and his witnesses of part 4 (on his samples) as literal tables by
name. dave hands in the answers to ps1 as it was before it varied (the map of
(1 + <x, z>)^2, the answer key by the old names, the numerical search for
counterexample points that part 4 asked for then). Own work scores full marks.
carol loses parts 1 and 4 and keeps of part 3 only the cases where bob's
verdicts happen to fit her candidates of the same name; dave loses parts 1, 3
and 4. Both keep part 2, which does not vary; carol's feedback names her variant.
eve does her own work but hands in bob's sixteen verdicts as a literal table
(nothing else of his): she keeps parts 1, 2 and 4 and of part 3 the cases where
bob's verdicts are hers too. ``make similarity`` then flags carol with bob for
holding his c and his verdicts, eve with bob for his verdicts (the grader's
right verdicts of part 3, withheld from the student package, say where their
variants differ), carol with eve for the one answer sheet they share, and no
one else.
"""

import html

import nbformat
import pytest

from conftest import copy_course, variant_value_pairs
from coursecheck.check import call_and_judge
from coursecheck.variants import bind
from coursegrader.judging.problem_sets import graded_parts, hidden_module
from coursegrader.judging.variants import submission_variant
from coursegrader.judging.verdicts import right_verdicts
from coursegrader.similarity.material import SimilarityCheck
from coursegrader.tools.course import fill_answers
from ps1_by_hand import answer_function, by_hand, earned, with_answers

SECRET = "ps1-variants-secret"
VARYING = {"quadratic_map", "kernel_verdicts", "counterexample"}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

#: ps1's answers before it varied, as a student who had them would hand them in
OLD = {
    "quadratic_map": '''\
def quadratic_feature_map(X):
    X = np.asarray(X, dtype=float)
    x1, x2 = X[:, 0], X[:, 1]
    s = np.sqrt(2.0)
    return np.column_stack([np.ones(len(X)), s * x1, s * x2, x1**2, x2**2, s * x1 * x2])
''',
    "kernel_verdicts": '''\
def is_kernel(name):
    verdicts = {
        "B_diag": True, "B_indefinite": False, "exp_first": True, "lin_minus_sq": False,
        "cubic": True, "gauss": True, "dist": False, "sq_dist": False, "neg_lin": False,
        "lin_plus_one": True, "lin_minus_one": False, "sum_first": False,
        "cos_first": True, "max_first": False, "min_abs_first": True, "norm_product": True,
    }
    return verdicts[name]
''',
    "counterexample": '''\
def counterexample_points(name):
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 4):
        for scale in (0.5, 2.0, 5.0):
            for _ in range(100):
                P = rng.uniform(-scale, scale, size=(m, 2))
                K = gram(name, P)
                if np.linalg.eigvalsh(K)[0] < -1e-3 * max(1.0, np.abs(K).max()):
                    return P
    raise ValueError(f"no counterexample found for {name!r}: is it a kernel?")
''',
}


def test_own_solved_copies_score_full_marks_and_copies_or_old_answers_lose_what_varies(
        slow, tmp_path):
    course = copy_course(tmp_path, ["ps1"], secret=SECRET)
    parts = graded_parts(course.root, "ps1")
    assert {pid for pid, p in parts.items() if p.varies} == VARYING
    source = course.source("ps1")
    variant = {s: submission_variant(SECRET, "ps1", s) for s in ("alice", "bob")}
    bobs, bob_verdicts = by_hand(source, variant["bob"].params)
    verdict = hidden_module(course.root, "ps1").verdict

    def copy_fails(student):
        """bob's c and witnesses fail every public case of ``student``'s variant, and at
        least one of his verdicts is wrong there."""
        params = submission_variant(SECRET, "ps1", student).params
        counter = bind(parts["counterexample"], params)
        witness = answer_function(bobs["counterexample"], "witness")
        return (params["c"] != variant["bob"].params["c"]
                and all(call_and_judge(counter, c, witness) is not None
                        for c in counter.public())
                and any(verdict(s) != bob_verdicts[s["name"]] for s in params["candidates"]))

    carol = next(s for s in (f"carol{i}" for i in range(200)) if copy_fails(s))

    def rights(student):
        return right_verdicts(parts["kernel_verdicts"],
                              submission_variant(SECRET, "ps1", student).params)

    def differing(a, b):
        ra, rb = rights(a), rights(b)
        return sum(ra[k] != rb[k] for k in ra)

    # eve's right verdicts differ from bob's on enough cases for the check to compare
    least = SimilarityCheck().verdict_min
    eve = next(s for s in (f"eve{i}" for i in range(200))
               if differing(s, "bob") >= least and differing(s, carol) >= least)
    cells = {"alice": {}, "bob": {}, carol: bobs, "dave": OLD,
             eve: {"kernel_verdicts": bobs["kernel_verdicts"]}}
    students = tuple(cells)
    course.release_to(students, "ps1")
    for student in students:
        course.student(student, "fetch_assignment", "ps1")
        path = course.student_notebook_path(student, "ps1")
        nb = with_answers(fill_answers(nbformat.read(path, as_version=4), source),
                          cells[student])
        nbformat.write(nb, path)
        course.student(student, "submit", "ps1")
    course.nbgrader("collect", "ps1")
    course.nbgrader("autograde", "ps1")
    course.nbgrader("generate_feedback", "ps1", "--RefuseHalfGraded.allow_ungraded=True")

    scores = course.cell_scores("ps1")
    full = {pid: pytest.approx(p.points) for pid, p in parts.items()}
    for student in ("alice", "bob"):
        assert {pid: scores[(student, pid)] for pid in parts} == full, student
    # carol: parts 1 and 4 lost, part 3 what bob's verdicts share with hers
    shared = earned(course.root, SECRET, "ps1", carol, "kernel_verdicts",
                    answer_function(bobs["kernel_verdicts"], "is_kernel"))
    assert 0 < shared < 2
    assert earned(course.root, SECRET, "ps1", carol, "counterexample",
                  answer_function(bobs["counterexample"], "witness")) == 0.0
    assert {pid: scores[(carol, pid)] for pid in parts} == {
        **full, "quadratic_map": 0.0, "kernel_verdicts": pytest.approx(shared),
        "counterexample": 0.0}
    # dave: the old map, the old key and the old search for points earn nothing
    assert {pid: scores[("dave", pid)] for pid in parts} == {
        **full, "quadratic_map": 0.0, "kernel_verdicts": 0.0, "counterexample": 0.0}
    # eve: her own work, but bob's verdicts: part 3 where they happen to be hers
    mixed = earned(course.root, SECRET, "ps1", eve, "kernel_verdicts",
                   answer_function(bobs["kernel_verdicts"], "is_kernel"))
    assert mixed < 2
    assert {pid: scores[(eve, pid)] for pid in parts} == {
        **full, "kernel_verdicts": pytest.approx(mixed)}
    expected = submission_variant(SECRET, "ps1", carol)
    page = html.unescape((course.root / "feedback" / carol / "ps1" / "ps1.html").read_text())
    assert f"Graded on the variant of {carol} ({expected.label})." in page
    assert f"Variant for {carol} ({expected.label}), as the grader drew it." in page
    assert f"({variant['bob'].label})" not in page

    by_value = variant_value_pairs(course, "ps1")
    assert set(by_value) == {frozenset((carol, "bob")), frozenset((eve, "bob")),
                             frozenset((carol, eve))}, by_value
    assert f"{carol} holds bob's" in by_value[frozenset((carol, "bob"))]
    for copier in (carol, eve):
        why = by_value[frozenset((copier, "bob"))]
        assert "hand in the same verdicts of kernel_verdicts" in why, why
        assert "bob's right ones" in why, why
    # the two copies of one sheet
    assert "hand in the same verdicts of kernel_verdicts" in by_value[frozenset((carol, eve))]
