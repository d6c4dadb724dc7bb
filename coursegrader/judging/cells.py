"""What the judge reads of a submitted notebook's cells.

Which cells are auto-graded test cells and which are answer cells
(nbgrader's metadata, as :mod:`nbgrader.utils` reads it), and a code cell's source as
plain Python (IPython's magics and ``!`` commands made calls, which the
part's process stands in for).
"""

from nbgrader import utils

__all__ = ["is_test_cell", "is_answer_cell", "grade_id", "python_source"]


def is_test_cell(cell):
    """True for an auto-graded test cell (a graded code cell that is not an answer)."""
    return (cell.cell_type == "code" and utils.is_grade(cell)
            and not utils.is_solution(cell))


def is_answer_cell(cell):
    """True for a code cell where the student writes an answer (a solution cell)."""
    return cell.cell_type == "code" and utils.is_solution(cell)


def grade_id(cell):
    """The cell's nbgrader grade id, or None."""
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def python_source(source):
    """Turn IPython syntax (magics, !commands) into plain Python calls."""
    from IPython.core.inputtransformer2 import TransformerManager
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source
