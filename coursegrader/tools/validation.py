"""Instructor checks on the course's notebooks before release.

``python -m coursegrader.tools.validation [COURSE_ROOT] [psN ...]`` checks that

* every source notebook is up to date with its MyST source (``psN.md``) and
  passes all its tests (nbgrader's Validator);
* every released notebook fails every auto-graded test, and contains no
  solution code, no ``BEGIN SOLUTION`` / ``BEGIN HIDDEN TESTS`` markers and no
  hidden test text;

and exits with status 1, listing the problems, if any check fails.
"""

import os
import sys
from pathlib import Path

import nbformat

from .author import build_notebook, source_path
from ..markers import (HIDDEN_TESTS, MARKERS, SOLUTION, outside_lines,
                      region_lines)

__all__ = ["solution_lines", "hidden_test_lines", "lines_outside_regions", "release_leaks",
           "validate_course"]

def solution_lines(nb):
    """Non-blank lines of every solution region of a source notebook."""
    return [line.strip() for cell in nb.cells
            for line in region_lines(cell.source, SOLUTION) if line.strip()]


def hidden_test_lines(nb):
    """Non-blank lines of every hidden-test region of a source notebook."""
    return [line.strip() for cell in nb.cells
            for line in region_lines(cell.source, HIDDEN_TESTS) if line.strip()]


def lines_outside_regions(nb):
    """Lines of a source notebook outside its solution and hidden-test regions."""
    return [line for cell in nb.cells for line in outside_lines(cell.source)]


def release_leaks(source_nb, released_nb):
    """Problems with a released notebook: markers, solution or hidden-test lines, outputs."""
    problems = []
    text = "\n".join(cell.source for cell in released_nb.cells)
    for marker in MARKERS:
        if marker in text:
            problems.append(f"contains the marker {marker!r}")
    released_lines = {line.strip() for line in text.split("\n")}
    # Lines such as "return X" could also occur in the handout's own text, so
    # only lines that do not occur outside the regions of the source count.
    outside = {line.strip() for line in lines_outside_regions(source_nb)}
    for kind, lines in (("solution", solution_lines(source_nb)),
                        ("hidden test", hidden_test_lines(source_nb))):
        leaked = [ln for ln in lines if ln in released_lines and ln not in outside]
        if leaked:
            problems.append(f"contains {kind} text, e.g. {leaked[0]!r}")
    for cell in released_nb.cells:
        if cell.cell_type == "code" and cell.get("outputs"):
            problems.append("has code cells with outputs")
            break
    return problems


def _test_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"
            and c.metadata.get("nbgrader", {}).get("grade")
            and not c.metadata.get("nbgrader", {}).get("solution")]


def validate_course(root, assignments=None, *, run=True):
    """Return a list of problems (empty when all checks pass)."""
    root = Path(root)
    if assignments is None:
        assignments = sorted(p.name for p in (root / "source").iterdir() if p.is_dir())
    problems = []
    validator = None
    if run:
        from nbgrader.validator import Validator
        validator = Validator()
    for ps in assignments:
        sources = sorted((root / "source" / ps).glob("*.ipynb"))
        if not sources:
            problems.append(f"{ps}: no source notebook (run make generate)")
        for src in sources:
            rel = root / "release" / ps / src.name
            source_nb = nbformat.read(src, as_version=4)
            if src.stem == ps and source_path(root, ps).is_file() and \
                    build_notebook(source_path(root, ps), ps) != source_nb:
                problems.append(f"{src.relative_to(root)}: older than {ps}.md "
                                "(run make generate)")
            if run:
                result = validator.validate(str(src))
                if result:
                    problems.append(f"{src.relative_to(root)}: does not pass its tests "
                                    f"({', '.join(result)})")
            if not rel.exists():
                problems.append(f"{rel.relative_to(root)}: not generated")
                continue
            released = nbformat.read(rel, as_version=4)
            strays = sorted(p.name for p in rel.parent.rglob("*.md"))
            if strays:
                problems.append(f"{rel.parent.relative_to(root)}: holds the Markdown "
                                f"source {strays[0]}")
            problems += [f"{rel.relative_to(root)}: {p}" for p in release_leaks(source_nb, released)]
            if run:
                result = validator.validate(str(rel))
                failed = {cell["source"] for cell in result.get("failed", [])}
                tests = _test_cells(released)
                passing = [c for c in tests if c.source.strip() not in failed]
                if passing or "changed" in result:
                    problems.append(f"{rel.relative_to(root)}: {len(passing)} of {len(tests)} "
                                    "auto-graded tests pass before any work")
    return problems


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    root = argv.pop(0) if argv and os.path.isdir(argv[0]) else "."
    problems = validate_course(root, argv or None)
    for p in problems:
        print("PROBLEM:", p)
    if not problems:
        print("All source notebooks pass their tests; every released notebook fails "
              "every auto-graded test and holds no solution or hidden test text.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
