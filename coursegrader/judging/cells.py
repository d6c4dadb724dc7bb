"""Which cells of a submitted notebook are auto-graded test cells."""

from nbgrader import utils

__all__ = ["is_test_cell", "test_cell_ids"]


def is_test_cell(cell):
    """True for an auto-graded test cell (a graded code cell that is not an answer)."""
    return (cell.cell_type == "code" and utils.is_grade(cell)
            and not utils.is_solution(cell))


def test_cell_ids(nb, parts):
    """Grade ids of the auto-graded test cells of ``nb`` that belong to ``parts``."""
    return [c.metadata.nbgrader["grade_id"] for c in nb.cells
            if is_test_cell(c) and c.metadata.nbgrader.get("grade_id") in parts]
