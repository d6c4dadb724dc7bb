"""Write the notebook nbgrader needs from a problem set's MyST source.

``python -m coursegrader.tools.author [--course DIR] psN ...`` reads
``source/psN/psN.md`` (a MyST Markdown notebook, like the book's chapters)
and writes ``source/psN/psN.ipynb`` with nbgrader's cell metadata.

The facts about an auto-graded part -- its function, points and description --
are declared once, in ``coursecheck.problems.psN.PARTS``; a written part's
points and title once, in its cell's metadata.  Everything else is generated
from them: the table of parts under the title, the points in the headings, the
nbgrader metadata, and the check cell after each answer.

What a source cell may say in its metadata (jupytext keeps it in the ``.md``:
``+++ {"written": ...}`` above a Markdown cell, options of a ``{code-cell}``):

``name``
    the grade id of a read-only cell (the title, the setup code, a task);
``answer: PART``
    a code cell holding the answer to the auto-graded part ``PART`` between
    ``### BEGIN SOLUTION`` and ``### END SOLUTION``; its check cell follows;
``written: ID``, ``points: N``, ``title: TEXT``
    a Markdown cell holding the model answer to a written, hand-graded part.

In the text, ``{{parts}}`` becomes the table of parts and ``{{points:ID}}``
the points of part ``ID`` ("3 points").  A ``{selfcheck}`` block (a quick
question before a part, written as in the book's chapters) becomes text, and
its answer goes into a last read-only cell (:func:`coursegrader.selfcheck.write_out`).
"""

import argparse
import ast
import re
import sys
from pathlib import Path

import jupytext
import nbformat

from coursecheck.parts import get_parts

from ..markers import HIDDEN_TESTS, SOLUTION
from ..selfcheck import SelfCheckError, write_out

__all__ = ["build_notebook", "write_notebook", "source_path", "notebook_path", "main"]

_KEYS = {"name", "answer", "written", "points", "title"}
_POINTS = re.compile(r"\{\{points:([A-Za-z_][A-Za-z0-9_]*)\}\}")
_KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: The grade id of the last cell, which holds the answers to the self-checks.
SELFCHECK_ANSWERS = "selfcheck_answers"


def source_path(course, ps):
    """``COURSE/source/psN/psN.md``."""
    return Path(course) / "source" / ps / f"{ps}.md"


def notebook_path(course, ps):
    """``COURSE/source/psN/psN.ipynb``, the notebook nbgrader reads."""
    return Path(course) / "source" / ps / f"{ps}.ipynb"


def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _points_text(points):
    points = int(points) if float(points).is_integer() else points
    return f"{points} point" + ("" if points == 1 else "s")


def _signature(source, func):
    """``func(a, b)`` as defined in an answer cell, or None when it is not defined there."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == func:
            return f"{func}({', '.join(a.arg for a in node.args.args)})"
    return None


def _part_points_text(part):
    """A part's points, saying when they come from its hidden checks alone
    (``Part.public_points``)."""
    text = _points_text(part.points)
    return text if part.public_points else f"{text}, all from hidden checks"


def _check_source(ps, part_id, part):
    return "\n".join([
        f'"""Checks {part.func}: {part.description} ({_part_points_text(part)})."""',
        "from coursecheck import check",
        f'check("{ps}", "{part_id}", {part.func})',
        f"### {HIDDEN_TESTS[0]}",
        "from coursegrader import check_hidden",
        f'check_hidden("{ps}", "{part_id}", {part.func})',
        f"### {HIDDEN_TESTS[1]}",
    ])


def build_notebook(path, ps=None):
    """The nbgrader notebook (instructor's version) of the MyST source at ``path``."""
    path = Path(path)
    ps = ps or path.stem
    parts = get_parts(ps)
    text = jupytext.read(path, fmt="md:myst")
    # Quick self-checks before a part ({selfcheck}, as in the book's chapters) are
    # written out as text, their answers in a last, read-only cell.
    cells = len(text.cells)
    try:
        write_out(text)
    except SelfCheckError as exc:
        raise ValueError(f"{path.name}: a self-check cannot be read: {exc}") from None
    if len(text.cells) > cells:
        text.cells[-1].metadata["name"] = SELFCHECK_ANSWERS

    def where(i, cell):
        first = cell.source.strip().split("\n")[0][:60]
        return f"{path.name}, cell {i + 1} ({first!r})"

    # First pass: what each cell declares.
    rows, points, seen_ids = [], {}, set()
    answered = {}
    for i, cell in enumerate(text.cells):
        meta = {k: v for k, v in cell.metadata.items() if k in _KEYS}
        unknown = set(cell.metadata) - _KEYS - {"tags", "editable", "deletable"}
        if unknown:
            raise ValueError(f"{where(i, cell)}: unknown metadata {sorted(unknown)}; "
                             f"a cell may give {sorted(_KEYS)}")
        if "answer" in meta:
            pid = meta["answer"]
            if cell.cell_type != "code" or pid not in parts:
                raise ValueError(f"{where(i, cell)}: answer must name an auto-graded part "
                                 f"of {ps} in a code cell ({sorted(parts)}), got {pid!r}")
            if pid in answered:
                raise ValueError(f"{where(i, cell)}: a second answer cell for part {pid!r}")
            if SOLUTION[0] not in cell.source:
                raise ValueError(f"{where(i, cell)}: an answer cell needs a solution region")
            answered[pid] = i
            part = parts[pid]
            sig = _signature(cell.source, part.func)
            if sig is None:
                raise ValueError(f"{where(i, cell)}: the answer to {pid!r} must define "
                                 f"{part.func}()")
            rows.append((f"`{sig}`", part.points))
            points[pid] = part.points
        elif "written" in meta:
            wid = meta["written"]
            if cell.cell_type != "markdown" or "points" not in meta or "title" not in meta:
                raise ValueError(f"{where(i, cell)}: a written part is a Markdown cell with "
                                 "written, points and title")
            if not (isinstance(meta["points"], (int, float)) and meta["points"] > 0):
                raise ValueError(f"{where(i, cell)}: points must be a positive number, "
                                 f"got {meta['points']!r}")
            if wid in parts or wid in points:
                raise ValueError(f"{where(i, cell)}: the written part {wid!r} reuses a part id")
            rows.append((f"written: {meta['title']}", meta["points"]))
            points[wid] = meta["points"]
        elif "points" in meta or "title" in meta:
            raise ValueError(f"{where(i, cell)}: points and title belong to a written part")
        elif "name" not in meta:
            raise ValueError(f"{where(i, cell)}: a read-only cell needs a name "
                             "(its nbgrader grade id)")
    missing = sorted(set(parts) - set(answered))
    if missing:
        raise ValueError(f"{path.name}: no answer cell for the auto-graded parts {missing}")

    total = sum(p for _, p in rows)
    table = "\n".join(["| part | what you hand in | points |", "| --- | --- | --- |"]
                      + [f"| {n} | {what} | {_points_text(p).split()[0]} |"
                         for n, (what, p) in enumerate(rows, 1)]
                      + [f"| | total | {_points_text(total).split()[0]} |"])

    def fill(source, i, cell):
        source = source.replace("{{parts}}", table)

        def one(match):
            if match.group(1) not in points:
                raise ValueError(f"{where(i, cell)}: {{{{points:{match.group(1)}}}}} names no "
                                 f"part of {ps}")
            if match.group(1) in parts:
                return _part_points_text(parts[match.group(1)])
            return _points_text(points[match.group(1)])
        return _POINTS.sub(one, source)

    # Second pass: the nbgrader cells.
    cells = []
    for i, cell in enumerate(text.cells):
        meta = cell.metadata
        source = fill(cell.source, i, cell)
        if "answer" in meta:
            pid = meta["answer"]
            part = parts[pid]
            gid = meta.get("name", f"{pid}_answer")
            cells.append(nbformat.v4.new_code_cell(
                source, metadata={"nbgrader": _meta(gid, solution=True)}))
            cells.append(nbformat.v4.new_code_cell(
                _check_source(ps, pid, part),
                metadata={"nbgrader": _meta(pid, grade=True, locked=True, points=part.points),
                          "tags": ["raises-exception"]}))
            gid_pair = (gid, pid)
        elif "written" in meta:
            cells.append(nbformat.v4.new_markdown_cell(source, metadata={"nbgrader": _meta(
                meta["written"], grade=True, solution=True, points=meta["points"])}))
            gid_pair = (meta["written"],)
        else:
            new = nbformat.v4.new_code_cell if cell.cell_type == "code" else \
                nbformat.v4.new_markdown_cell
            cells.append(new(source, metadata={"nbgrader": _meta(meta["name"], locked=True)}))
            gid_pair = (meta["name"],)
        for gid in gid_pair:
            if gid in seen_ids:
                raise ValueError(f"{where(i, cell)}: the grade id {gid!r} is used twice")
            seen_ids.add(gid)
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": dict(_KERNELSPEC), "language_info": {"name": "python"}})
    for cell in nb.cells:  # stable ids, so a regenerated notebook differs only where its source did
        cell.id = cell.metadata["nbgrader"]["grade_id"]
    nbformat.validate(nb)
    return nb


def write_notebook(course, ps):
    """Write ``source/psN/psN.ipynb`` from ``source/psN/psN.md``; return its path."""
    nb = build_notebook(source_path(course, ps), ps)
    out = notebook_path(course, ps)
    nbformat.write(nb, out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m coursegrader.tools.author",
        description="Write source/psN/psN.ipynb (nbgrader's notebook) from source/psN/psN.md.")
    parser.add_argument("assignments", nargs="*", metavar="psN",
                        help="problem sets (default: every source/psN/psN.md)")
    parser.add_argument("--course", default=".", help="the course folder (default: .)")
    args = parser.parse_args(argv)
    course = Path(args.course)
    names = args.assignments or sorted(p.parent.name for p in
                                       (course / "source").glob("ps*/ps*.md")
                                       if p.stem == p.parent.name)
    if not names:
        parser.error(f"no problem set sources under {course / 'source'}")
    for ps in names:
        if not source_path(course, ps).is_file():
            parser.error(f"{source_path(course, ps)} does not exist")
        print(f"wrote {write_notebook(course, ps)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
