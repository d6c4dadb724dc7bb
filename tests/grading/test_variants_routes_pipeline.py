"""Every problem set's variants through two collect routes, in one graded class.

One copy of the course, with ps1 to ps5, graded with the sandbox: for each of
ps2 to ps5, alice (her own solved copy) and dave hand in through the folder
exchange (generate, release, fetch, submit, ``nbgrader collect``), bob (his own
solved copy) and carol (bob's notebook) through Canvas's zip of submissions
with Canvas's gradebook CSV as the roster (``make zip_collect NOGRADE=1``,
which takes the files only); one ``make autograde`` then grades every problem
set. carol, who calls herself "Bob Example" in Canvas as bob does, is the
student of her own account. For ps1
(whose folder-exchange route has a test of its own), bob and carol hand in
through the zip. ``make similarity`` then runs on each problem set.

What each hands in, on the parts that vary:

- ps2, ps4, ps5 (each student's own Gaussian width sigma): the reference
  solution with the width written as a number where it reads ``V["sigma"]``:
  alice and bob their own, carol bob's, dave sigma = 1 (the width one might
  circulate to the whole class);
- ps3 (each student's samples, part 6 asks for a witness on each): alice and
  bob the reference, which reads their samples; carol bob's witnesses as a
  literal table; dave the six points that were right for every variant of the
  old question;
- ps1: bob the reference; carol bob's notebook with his constant c written in.

Own work scores full marks, on the variant of the student the route names
(the exchange folder's owner, the LMS's account); a copy across variants and
the circulated answers lose every part that varies (ps4's part 2 keeps its
zero function, whose norm is 0 for every width) and keep the others; the
feedback names the variant each was graded on and never bob's, and each
record holds its student's variant. ``make similarity`` flags carol with bob
for holding a value of his variant, and no one else.
"""

import html
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from conftest import COURSE, copy_course, variant_value_pairs
from coursecheck.check import call_and_judge
from coursecheck.variants import bind
from coursegrader import record
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.course import fill_answers
from lms_zips import canvas_roster, canvas_zip

SECRET = "variants-routes-secret"
PROBLEM_SETS = ("ps1", "ps2", "ps3", "ps4", "ps5")
#: the parts that vary, for the problem sets whose answers are written for one width
WIDTH_VARYING = {"ps2": {"bump_gram", "basis_ridge", "kernel_ridge_predict"},
                 "ps4": {"rkhs_inner", "rkhs_norm", "project_onto_span"},
                 "ps5": {"svm_decision"}}
#: what a copy on another width keeps of ps4's part 2: the zero function, 1 of its 8 cases
KEPT = {("ps4", "rkhs_norm"): 2 * 1 / 8}
#: for each problem set, the literal answers that were right for every variant of a
#: question it asked before: ps3's six points that failed each function for every
#: parameter of its draw
UNIVERSAL = {"ps3": {"counterexample": {
    name: [[1, 0], [0, 1], [0, 0], [1, 1], [-1, -1], [3, 0]]
    for name in ("x^T B z", "w.x + w.z", "min(u.x, u.z)", "x.z - c(x.z)^2", "max(v.x, v.z)")}}}
#: who hands in through which route
FOLDER, ZIP = ("alice", "dave"), ("bob", "carol")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


# -- answers worked out on one variant -------------------------------------------------
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


def _by_hand(root, source, ps, part_id, params):
    """Answer cell of ``part_id``: a table of literal answers, one per name the variant asks
    about, worked out (by the reference solution) on the variant ``params``."""
    part = graded_parts(root, ps)[part_id]
    func = _answer(source, part_id, params)[part.func]
    table = {case.args[0]: np.asarray(func(*case.args)).tolist()
             for case in bind(part, params).public()}
    return _literal_cell(part.func, table)


def _fails_everywhere(root, ps, part_id, answer_cell, params):
    """True when the literal answers of ``answer_cell`` fail every case of variant ``params``."""
    part = bind(graded_parts(root, ps)[part_id], params)
    scope = {"np": np}
    exec(answer_cell, scope)
    return all(call_and_judge(part, c, scope[part.func]) is not None for c in part.public())


def _replaced(nb, cells):
    """``nb`` with the answer cells of the parts in ``cells`` ({part: source}) replaced."""
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("_answer") and gid[:-len("_answer")] in cells:
            cell.source = cells[gid[:-len("_answer")]]
    return nb


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


def _first(prefix, keep, count=1):
    """The first ``count`` ids ``prefix0``, ``prefix1``, ... for which ``keep(id)`` holds."""
    found = [s for s in (f"{prefix}{i}" for i in range(200)) if keep(s)][:count]
    assert len(found) == count, prefix
    return found


def _plan(course, ps):
    """What each student hands in for ``ps``: ({role: student id}, {role: notebook}, what
    the roles carol and dave hand in on the parts that vary ({part: ...}))."""
    root, source, released = course.root, course.source(ps), course.released(ps)
    params = {s: submission_variant(SECRET, ps, s).params for s in ("alice", "bob")}
    if ps == "ps1":
        quadratic = next(c.source for c in source.cells if c.metadata.get("nbgrader", {})
                         .get("grade_id") == "quadratic_map_answer")
        assert 'V["c"]' in quadratic
        bobs = {"quadratic_map": quadratic.replace('V["c"]', repr(params["bob"]["c"]))}
        carol, = _first("carol", lambda s: submission_variant(SECRET, ps, s).params["c"]
                        != params["bob"]["c"])
        ids = {"bob": "bob", "carol": carol}
        return ids, {"bob": fill_answers(released, source),
                     "carol": _replaced(fill_answers(released, source), bobs)}, \
            {"carol": bobs}
    if ps in WIDTH_VARYING:
        sigma = {s: p["sigma"] for s, p in params.items()}
        assert sigma["alice"] != sigma["bob"]
        # carol and dave: the first classmates whose width is neither bob's nor 1
        carol, dave = _first("student", lambda s: submission_variant(SECRET, ps, s)
                             .params["sigma"] not in (sigma["bob"], 1.0), count=2)
        worked = {"alice": sigma["alice"], "bob": sigma["bob"], "carol": sigma["bob"],
                  "dave": 1.0}
        notebooks = {role: _worked_on(fill_answers(released, source), w, WIDTH_VARYING[ps])
                     for role, w in worked.items()}
        varying = WIDTH_VARYING[ps]
        return ({"alice": "alice", "bob": "bob", "carol": carol, "dave": dave}, notebooks,
                {"carol": varying, "dave": varying})
    # ps3: answers by hand on bob's variant, and the old question's universal answer
    parts = graded_parts(root, ps)
    varying = [pid for pid, p in parts.items() if p.varies]
    assert varying
    bobs = {pid: _by_hand(root, source, ps, pid, params["bob"]) for pid in varying}
    # carol: the first classmate on whose variant every answer bob worked out fails
    carol, = _first("carol", lambda s: all(
        _fails_everywhere(root, ps, pid, bobs[pid], submission_variant(SECRET, ps, s).params)
        for pid in varying))
    universal = {pid: _literal_cell(parts[pid].func, table)
                 for pid, table in UNIVERSAL[ps].items()}
    worked = {"alice": {}, "bob": {}, "carol": bobs, "dave": universal}
    return ({"alice": "alice", "bob": "bob", "carol": carol, "dave": "dave"},
            {role: _replaced(fill_answers(released, source), cells)
             for role, cells in worked.items()}, {"carol": bobs, "dave": universal})


def _make(course, *argv, timeout=1200):
    done = subprocess.run(["make", f"PYTHON={sys.executable}", *argv], cwd=course.root,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def graded_class(slow, tmp_path_factory):
    """The class above, collected, graded, fed back and compared.

    ``(course, ids, lost, pairs, taken)``: ``ids`` {ps: {role: student id}}, ``lost``
    {ps: {role: the parts it hands in worked on another variant}}, ``pairs`` {ps: what
    ``make similarity`` found of variant values}, ``taken`` {ps: what zip_collect said}."""
    tmp = tmp_path_factory.mktemp("variants_routes")
    course = copy_course(tmp, list(PROBLEM_SETS), secret=SECRET)
    (course.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    for ps in PROBLEM_SETS:
        course.nbgrader("generate_assignment", ps)
    plans = {ps: _plan(course, ps) for ps in PROBLEM_SETS}
    ids = {ps: plan[0] for ps, plan in plans.items()}
    everyone = sorted({s for who in ids.values() for s in who.values()})
    (course.root / "students.csv").write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{s},{s.title()},Example,{s}@example.org\n" for s in everyone))
    _make(course, "db", f"PS={' '.join(PROBLEM_SETS)}")
    # Canvas accounts: carol calls herself "Bob Example", as bob does
    accounts = {s: 100 + i for i, s in enumerate(everyone)}
    (tmp / "canvas.csv").write_text(canvas_roster(
        [("Bob Example" if s.startswith("carol") else f"{s.title()} Example", accounts[s],
          f"S{accounts[s]}", s) for s in everyone]), encoding="utf-8")
    taken = {}
    for ps in PROBLEM_SETS:
        who, notebooks, _ = plans[ps]
        folder = [r for r in FOLDER if r in who]
        if folder:
            course.nbgrader("release_assignment", ps)
            for role in folder:
                student = who[role]
                course.student(student, "fetch_assignment", ps)
                nbformat.write(notebooks[role], course.student_notebook_path(student, ps))
                course.student(student, "submit", ps)
            course.nbgrader("collect", ps)
        upload = tmp / f"{ps}-submissions.zip"
        upload.write_bytes(canvas_zip(
            [(f"bobexample_{accounts[who[role]]}_{accounts[who[role]] + 1000}_{ps}.ipynb",
              nbformat.writes(notebooks[role]).encode()) for role in ZIP]))
        # takes the zip's files only: one `make autograde` then grades every problem set
        taken[ps] = _make(course, "zip_collect", f"PS={ps}", f"ZIP={upload}",
                          f"ROSTER={tmp / 'canvas.csv'}", "NOGRADE=1")
        assert not (course.root / "autograded").exists() or not list(
            (course.root / "autograded").glob(f"*/{ps}")), ps
    _make(course, "autograde", f"PS={' '.join(PROBLEM_SETS)}")
    for ps in PROBLEM_SETS:
        course.nbgrader("generate_feedback", ps, "--RefuseHalfGraded.allow_ungraded=True")
    pairs = {ps: variant_value_pairs(course, ps) for ps in PROBLEM_SETS}
    return course, ids, {ps: plan[2] for ps, plan in plans.items()}, pairs, taken


@pytest.mark.parametrize("ps", PROBLEM_SETS)
def test_own_solved_copies_score_full_marks_and_a_copy_across_variants_loses_what_varies(
        graded_class, ps):
    course, ids, lost, _, _ = graded_class
    who = ids[ps]
    parts = graded_parts(course.root, ps)
    varying = {pid for pid, p in parts.items() if p.varies}
    if ps in WIDTH_VARYING:
        assert varying == WIDTH_VARYING[ps]
    scores = course.cell_scores(ps)
    assert {s for s, _ in scores} == set(who.values())
    for role in ("alice", "bob"):
        if role in who:
            assert {pid: scores[(who[role], pid)] for pid in parts} == {
                pid: pytest.approx(p.points) for pid, p in parts.items()}, (ps, role)
    for role in ("carol", "dave"):
        if role not in who:
            continue
        assert set(lost[ps][role]) == varying or ps == "ps1", (ps, role)
        assert {pid: scores[(who[role], pid)] for pid in parts} == {
            pid: (pytest.approx(KEPT.get((ps, pid), 0.0)) if pid in lost[ps][role]
                  else pytest.approx(p.points))
            for pid, p in parts.items()}, (ps, role)


@pytest.mark.parametrize("ps", PROBLEM_SETS)
def test_each_is_graded_on_the_variant_of_the_student_its_route_names(graded_class, ps):
    """The record and the feedback name the variant of the student the exchange or
    the LMS's account established; carol's (bob's notebook, under bob's name in
    Canvas) names hers, never bob's."""
    course, ids, lost, _, taken = graded_class
    bobs = submission_variant(SECRET, ps, "bob").label
    for role, student in ids[ps].items():
        expected = submission_variant(SECRET, ps, student)
        saved = record.load(course.root / "autograded" / student / ps, ps)
        assert saved.variant == expected.label, (ps, role)
        if role not in lost[ps]:
            continue
        page = html.unescape(
            (course.root / "feedback" / student / ps / f"{ps}.html").read_text())
        assert f"Graded on the variant of {student} ({expected.label})." in page, (ps, role)
        assert f"Variant for {student} ({expected.label}), as the grader drew it." in page
        assert f"({bobs})" not in page, (ps, role)
    # zip_collect says which file it took for whom: bob's and carol's, each "bobexample"
    # in Canvas, taken for the student of its account
    rows = [line.split() for line in taken[ps].splitlines() if "bobexample_" in line]
    assert sorted((row[2], row[4]) for row in rows) == sorted(
        [(ids[ps]["bob"], "yes"), (ids[ps]["carol"], "yes")]), taken[ps]
    assert "2 file(s) taken, 0 skipped" in taken[ps], taken[ps]


@pytest.mark.parametrize("ps", PROBLEM_SETS)
def test_similarity_flags_the_copy_across_variants_and_no_one_else(graded_class, ps):
    course, ids, _, pairs, _ = graded_class
    carol = ids[ps]["carol"]
    by_value = pairs[ps]
    assert set(by_value) == {frozenset((carol, "bob"))}, by_value
    said = by_value[frozenset((carol, "bob"))]
    if ps in WIDTH_VARYING:
        sigma = submission_variant(SECRET, ps, "bob").params["sigma"]
        line = f"{carol} holds bob's sigma ({sigma!r}, in "
        assert said.startswith(line), said
        assert line in html.unescape(
            (course.root / "report" / f"{ps}-similarity.html").read_text())
    elif ps == "ps3":
        assert f"{carol} holds bob's witness on the sample of " in said, said
    else:
        assert f"{carol} holds bob's" in said, said
