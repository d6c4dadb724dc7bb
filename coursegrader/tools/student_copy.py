"""Write a problem set's notebook as one student sees it: ``make student_copy``.

``make student_copy PS=ps1 STUDENT=alice`` (``python -m
coursegrader.tools.student_copy ps1 alice``) writes
``student_copies/alice/ps1.ipynb``: the released notebook, and, for a problem
set with variants, run as far as its variant cell with alice's id and code,
so that it opens showing ``Variant for alice (...)`` and her parameters.
``SOLVED=1`` (``--solved``) writes the source notebook instead, its hidden
tests removed and every cell run on alice's variant: the reference solution
computed for that variant, its checks' output below each part.  The copies
are the instructor's (``student_copies/`` is ignored by git).
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import nbformat

from coursecheck.problems import COURSE_ID
from coursecheck.variants import VARIANT_CELL, valid_student, variation

from ..judging.variants import variant_code
from ..markers import HIDDEN_TESTS, outside_lines
from ..secret import SECRET_FILE, course_secret
from ..settings import CourseSettings, course_config, find_course, private_files

__all__ = ["FOLDER", "student_copy"]

#: The folder of the copies, in the course folder.
FOLDER = "student_copies"


def _without_hidden_tests(nb):
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "\n".join(outside_lines(cell.source, (HIDDEN_TESTS,)))
    return nb


def _run(nb, env, upto=None, timeout=600):
    """Run ``nb``'s code cells (up to and including cell ``upto``) in a kernel with ``env``."""
    from nbclient import NotebookClient
    keep = nb.cells[upto + 1:] if upto is not None else []
    nb.cells = nb.cells[:upto + 1] if upto is not None else nb.cells
    with tempfile.TemporaryDirectory() as tmp:
        # the kernel gets this process's environment and the student's identity
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": tmp}}).execute(
                           env={**os.environ, **env})
    nb.cells += keep
    return nb


def student_copy(course, assignment, student, *, solved=False):
    """Write ``student_copies/<student>/<assignment>.ipynb``; return its path."""
    if not valid_student(student):
        raise ValueError(f"student must be a student id (letters, digits, . _ @ + -), "
                         f"got {student!r}")
    course = Path(course)
    where = (course / "source" / assignment if solved else course / "release" / assignment)
    path = where / f"{assignment}.ipynb"
    if not path.is_file():
        raise ValueError(f"no {path}: run make generate PS={assignment} first")
    nb = nbformat.read(path, as_version=4)
    if solved:
        nb = _without_hidden_tests(nb)
    if variation(assignment) is not None:
        secret = course_secret(CourseSettings(config=course_config(course)),
                               course / SECRET_FILE)
        env = {"COURSECHECK_STUDENT": student,
               "COURSECHECK_VARIANT_CODE": variant_code(secret, COURSE_ID, student)}
        cells = [i for i, c in enumerate(nb.cells)
                 if c.metadata.get("nbgrader", {}).get("grade_id") == VARIANT_CELL]
        if not cells:
            raise ValueError(f"{path}: problem set {assignment} has variants but no "
                             f"cell {VARIANT_CELL!r}")
        nb = _run(nb, env, upto=None if solved else cells[0])
    elif solved:
        nb = _run(nb, {})
    out = course / FOLDER / student / f"{assignment}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.student_copy",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignment", help="the problem set, e.g. ps1")
    parser.add_argument("student", help="the student id")
    parser.add_argument("--solved", action="store_true",
                        help="the source notebook with the reference solution, run on "
                             "the student's variant")
    parser.add_argument("--course", type=Path, default=None,
                        help="the course folder (default: the one holding this folder)")
    args = parser.parse_args(argv)
    try:
        out = student_copy(args.course or find_course(), args.assignment, args.student,
                           solved=args.solved)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    private_files()
    sys.exit(main())
