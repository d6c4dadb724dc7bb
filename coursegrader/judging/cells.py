"""What the judge reads of a submitted notebook's cells.

Which cells are auto-graded test cells and which the student wrote
(nbgrader's metadata, as :mod:`nbgrader.utils` reads it), and a code cell's source as
plain Python (IPython's magics and ``!`` commands made calls, which the
part's process stands in for).
"""

import ast

from nbgrader import utils

from ..record import AnswerCode

__all__ = ["is_test_cell", "grade_id", "python_source", "parse_cell", "shares",
           "student_cells"]


def is_test_cell(cell):
    """True for an auto-graded test cell (a graded code cell that is not an answer)."""
    return (cell.cell_type == "code" and utils.is_grade(cell)
            and not utils.is_solution(cell))


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


def parse_cell(source):
    """The syntax tree of a code cell, its IPython syntax (magics, ``!``) read as
    the judge reads it; None when it does not parse."""
    for read in (lambda s: s, python_source):
        try:
            return ast.parse(read(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _is_course_cell(cell):
    """True for a locked cell the gradebook knows (nbgrader has put it back as
    released): a locked cell whose grade id the gradebook does not know has lost
    that id, and is the student's."""
    return grade_id(cell) is not None and utils.is_locked(cell)


def shares(sizes, budget):
    """How many bytes of each of ``sizes`` fit in ``budget``, the smallest first (so
    that a large cell, padding say, cannot push the others out)."""
    out = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: sizes[i]):
        out[i] = min(sizes[i], budget)
        budget -= out[i]
    return out


def student_cells(nb, max_bytes):
    """The cells of ``nb`` the student wrote, as the record keeps them: every code
    and Markdown cell but the course's locked ones, in order, at most
    ``max_bytes`` of their sources in all, the smallest cells first (so that a
    large one, padding say, cannot push the others out); what is not kept is
    counted in ``omitted``."""
    cells = [c for c in nb.cells
             if c.cell_type in ("code", "markdown") and not _is_course_cell(c)]
    data = [c.source.encode("utf-8") for c in cells]
    room = shares([len(d) for d in data], max_bytes)
    out = []
    for cell, raw, keep in zip(cells, data, room):
        kept = raw[:keep].decode("utf-8", "ignore")
        out.append(AnswerCode(grade_id(cell), kept, cell.cell_type,
                              len(raw) - len(kept.encode("utf-8"))))
    return tuple(out)
