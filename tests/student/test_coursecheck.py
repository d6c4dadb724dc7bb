"""The student package coursecheck: it checks, and holds no answers.

coursecheck ships to students (public cases, how answers are judged, the
import policy); the solutions, the hidden cases and their generators, the
course secret's streams and answer keys stay in coursegrader and the
problem sets' Markdown sources.
"""

import ast
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import within_a_quarter_of_the_check
from coursecheck.policy import FORBIDDEN_IMPORTS, forbidden_import_message
from coursecheck.problems import ps1
from coursegrader.tools.author import build_notebook
from coursegrader.judging.problem_sets import HIDDEN_FOLDER, graded_parts, hidden_module
from coursegrader.tools.validation import hidden_test_lines, solution_lines

ASSIGNMENTS = Path(__file__).resolve().parents[2] / "assignments"
# what the student package holds: coursecheck and the problem sets' public half
PACKAGE = [ASSIGNMENTS.parent / "coursecheck", ASSIGNMENTS / "problems"]
SOURCES = sorted(ASSIGNMENTS.glob("source/ps*/ps*.md"))


def _package_text():
    return {path: path.read_text() for folder in PACKAGE for path in sorted(folder.rglob("*.py"))}


def _from_the_course_hidden_half(function, ps):
    """Whether ``function`` is defined in the course's hidden/<ps>.py."""
    import inspect
    return Path(inspect.getfile(function)) == ASSIGNMENTS / HIDDEN_FOLDER / f"{ps}.py"


@pytest.mark.slow   # a fresh interpreter: seconds
def test_importing_coursecheck_never_imports_the_grader():
    code = ("import sys, coursecheck, coursecheck.check, coursecheck.policy\n"
            "from coursecheck.parts import get_parts\n"
            "for ps in ('ps1', 'ps2', 'ps3', 'ps4', 'ps5'):\n"
            "    parts = get_parts(ps)\n"
            "    assert all(p.hidden is None for p in parts.values()), ps\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('coursegrader', 'nbgrader', 'jupytext')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ), timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_coursecheck_source_names_no_grader_module():
    for path, text in _package_text().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                assert node.level > 0 or node.module.split(".")[0] != "coursegrader", path
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "coursegrader" for a in node.names), path
            if isinstance(node, ast.FunctionDef):
                assert not node.name.endswith("_hidden"), (path, node.name)
        for secret_word in ("hmac", "secret_file", "grader_secret", "local_hidden_rng"):
            assert secret_word not in text, (path, secret_word)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_coursecheck_holds_no_solution_or_hidden_test_text(source):
    nb = build_notebook(source)
    outside, inside = set(), False
    for cell in nb.cells:
        for line in cell.source.split("\n"):
            if "### BEGIN" in line or "### END" in line:
                inside = "### BEGIN" in line
            elif not inside:
                outside.add(line.strip())
    solutions = set(solution_lines(nb)) | set(hidden_test_lines(nb))
    # a line of a solution long enough to be its own: not "return K" nor the
    # input handling any function starts with ("X = np.asarray(X, dtype=float)")
    distinctive = {line for line in solutions if len(line) > 30 and line not in outside}
    assert len(distinctive) >= 10  # the scan has something to find
    for path, text in _package_text().items():
        lines = {line.strip() for line in text.split("\n")}
        leaked = sorted(distinctive & lines)
        assert not leaked, f"{path.name} holds solution text of {source.stem}: {leaked[:3]}"


def test_ps1_verdicts_and_hidden_generators_stay_with_the_grader():
    text = "\n".join(_package_text().values())
    # ps1's verdicts: the rule on a variant's candidates is the grader's alone, and no
    # table of them ships (the public check of part 3 takes any bool)
    assert ps1.PARTS["kernel_verdicts"].withheld
    assert ps1.PARTS["kernel_verdicts"].reference is None
    assert ps1.PARTS["kernel_verdicts"].answers is None
    assert "ps1" not in json.loads((ASSIGNMENTS / "problems" / "answers.json").read_text())
    rule = inspect.getsource(hidden_module(ASSIGNMENTS, "ps1").verdict)
    distinctive = [line.strip() for line in rule.splitlines() if "#" in line]
    assert len(distinctive) >= 8
    for line in distinctive:
        assert line not in text, line
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        for part_id, part in graded_parts(ASSIGNMENTS, ps).items():
            assert part.hidden is not None, (ps, part_id)
            assert _from_the_course_hidden_half(part.hidden, ps), (ps, part_id)


def test_policy_lists_the_course_and_the_shortcut_libraries():
    assert {"kernlab", "sklearn", "coursegrader", "coursecheck", "nbgrader"} <= set(
        FORBIDDEN_IMPORTS)
    assert forbidden_import_message("kernlab.svm") == \
        "importing kernlab.svm is not allowed in graded code"
    with pytest.raises(TypeError, match="name"):
        forbidden_import_message(None)


def test_sandbox_uses_the_policy_words():
    from coursegrader.judging.judge import run_part
    import numpy as np
    (ok, msg), = run_part(["def f(x):\n    import sklearn\n    return x"], "f",
                             [(np.ones(2),)], timeout=30).values
    assert not ok and forbidden_import_message("sklearn") in msg


def test_public_answers_are_the_graders_and_up_to_date():
    from coursecheck.serial import decode
    from coursecheck.parts import allclose, get_parts as public_parts, variant_key
    from coursecheck.variants import bind, variation
    from coursegrader.tools.answers import compute_answers
    computed = compute_answers(ASSIGNMENTS)
    assert {(ps, pid) for ps in computed for pid in computed[ps]} == {
        ("ps2", "bump_gram"), ("ps2", "basis_ridge"),
        ("ps3", "subset_features"), ("ps3", "anova_kernel"),
        ("ps5", "svm_intercept"), ("ps5", "support_vectors")}
    for ps, parts in computed.items():
        shipped = public_parts(ps)
        for part_id, answers in parts.items():
            part = shipped[part_id]
            assert part.reference is None, (ps, part_id)
            reference = graded_parts(ASSIGNMENTS, ps)[part_id].reference  # stays with the grader
            assert _from_the_course_hidden_half(reference, ps), (ps, part_id)
            assert f"def {reference.__name__}(" not in "\n".join(_package_text().values())
            # a part that varies has one table per variant of its problem set's space
            tables = ({variant_key(v): (bind(part, v), answers[variant_key(v)])
                       for v in variation(ps).space()} if part.varies
                      else {None: (part, answers)})
            assert set(tables) == (set(answers) if part.varies else {None}), (ps, part_id)
            for bound, table in tables.values():
                assert set(bound.answers) == set(table), (ps, part_id)
                compare = bound.compare if bound.compare is not None else allclose()
                for case in bound.public():  # the file may differ from this machine's rounding only
                    assert within_a_quarter_of_the_check(
                        compare, decode(table[case.label]), bound.answers[case.label], case), case.label
    # only public cases: a hidden-style case has no answer in the student package
    part = graded_parts(ASSIGNMENTS, "ps5")["svm_intercept"]
    from coursegrader.judging.problem_sets import local_hidden_rng
    hidden = part.hidden(local_hidden_rng("ps5", "svm_intercept"))
    assert not set(c.label for c in hidden) & set(public_parts("ps5")["svm_intercept"].answers)


def test_ps3_subset_features_reference_reproduces_the_set_kernel():
    import numpy as np
    import kernlab
    subset_features_reference = hidden_module(ASSIGNMENTS, "ps3").subset_features_reference
    for case in graded_parts(ASSIGNMENTS, "ps3")["subset_features"].public():
        A, universe = case.args
        others = [set(), set(universe[::2]), set(universe[1::2]), set(universe)]
        inner = [subset_features_reference(A, universe) @ subset_features_reference(B, universe)
                 for B in others]
        np.testing.assert_allclose(inner, kernlab.SetKernel()([A], others)[0], rtol=0, atol=0)
