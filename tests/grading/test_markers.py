"""nbgrader's markers, read in one place (coursegrader/markers.py) by every user."""

from nbformat.v4 import new_code_cell

from coursegrader.markers import (HIDDEN_TESTS, SOLUTION, outside_lines, region_lines,
                                  without_marker_lines)
from coursegrader.preprocessors import HideHiddenTests

CELL = "\n".join([
    "def f(x):",
    "    ### BEGIN SOLUTION",
    "    return 2 * x",
    "    ### END SOLUTION",
    "check(f)",
    "### BEGIN HIDDEN TESTS",
    "check_hidden(f)",
    "### END HIDDEN TESTS",
    "print('done')",
])


def test_regions_and_what_lies_outside_them():
    assert region_lines(CELL, SOLUTION) == ["    return 2 * x"]
    assert region_lines(CELL, HIDDEN_TESTS) == ["check_hidden(f)"]
    assert outside_lines(CELL) == ["def f(x):", "check(f)", "print('done')"]
    assert outside_lines(CELL, (HIDDEN_TESTS,)) == [
        "def f(x):", "    ### BEGIN SOLUTION", "    return 2 * x",
        "    ### END SOLUTION", "check(f)", "print('done')"]


def test_an_answer_keeps_its_code_without_the_markers():
    assert without_marker_lines(CELL, SOLUTION).split("\n")[:3] == [
        "def f(x):", "    return 2 * x", "check(f)"]


def test_feedback_hides_the_hidden_tests_of_graded_cells_only():
    graded = new_code_cell(CELL, metadata={"nbgrader": {"grade": True}})
    student = new_code_cell(CELL)
    hide = HideHiddenTests()
    assert "check_hidden" not in hide.preprocess_cell(graded, {}, 0)[0].source
    assert "print('done')" in graded.source
    assert hide.preprocess_cell(student, {}, 0)[0].source == CELL
