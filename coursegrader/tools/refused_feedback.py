"""A feedback page for each submission that failed to grade, saying why where it can.

A notebook over a bound of :class:`~coursegrader.preprocessors.bound_submission.
BoundSubmission` (its bytes, cells or outputs), or one whose grading failed
otherwise (a character its cells cannot be encoded with, any error), is not
graded, so nbgrader writes no feedback for it, and its student would never
learn why, or would keep the page of an earlier submission, whose grade no
longer counts (:func:`coursegrader.gradebook.record_failure`).  ``make
feedback`` runs ``python -m coursegrader.tools.refused_feedback ps1 ...``
after nbgrader's ``generate_feedback``: for each submission in ``submitted/``
whose latest grading (``gradelog/<ps>.jsonl``, for the same files) failed,
it writes ``feedback/<student>/<ps>/<notebook>.html`` for each notebook of
the problem set, in place of any earlier page: a short page saying it was not
graded, so it has no score, and, for a bound, naming the bound, its limit and
what the notebook had (from the log entry's numbers, never its text), and
what to do.  Nothing the student wrote is on it (nor the error's message,
which may quote it), so nothing of theirs is rendered.  Beside it go the submission's ``timestamp.txt`` and
``submission_secret.txt``, so that nbgrader's ``release_feedback`` returns it
as any other page.  It lists each such submission on the terminal and exits
non-zero: the instructor's list of what failed still names it.
"""

import argparse
import html
import shutil
import sys
from pathlib import Path

from ..preprocessors.bound_submission import refusal
from ..settings import course_config, find_course, private_files
from .batch import find_submissions, latest, read_log

__all__ = ["refused", "write_pages", "main"]

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{ps}: not graded</title>
</head>
<body>
<main>
<h1>{ps}: not graded</h1>
<p>Your submission of {ps} was not graded, so it has no score: {why}</p>
</main>
</body>
</html>
"""


_NOT_GRADED = ("the grader could not grade it (your instructor has the reason). Hand in "
               "the problem set's notebook again, with your answers in its cells, and "
               "ask the instructor to grade it again.")


def refused(course, ps):
    """[(student, the log entry's ``bound``, or None)] of each submission of ``ps``
    whose latest grading, of the files now submitted, failed (by a bound, or
    otherwise: None)."""
    from nbgrader.coursedir import CourseDirectory
    coursedir = CourseDirectory(config=course_config(course))
    last = latest(read_log(course, ps))
    found = []
    for sub in find_submissions(coursedir, [ps]):
        entry = last.get(sub.student)
        if entry and entry["status"] == "failed" and entry.get("digest") == sub.digest:
            bound = entry.get("bound")
            found.append((sub.student, bound if isinstance(bound, dict) else None))
    return found


def _page(ps, bound):
    why = (refusal(str(bound["setting"]), int(bound["limit"]), int(bound["found"]))
           if bound is not None else _NOT_GRADED)
    return _PAGE.format(ps=html.escape(ps), why=html.escape(why))


def write_pages(course, ps):
    """Write the page of each submission of ``ps`` that failed to grade; return
    [(student, bound or None)]."""
    from nbgrader.coursedir import CourseDirectory
    coursedir = CourseDirectory(config=course_config(course))
    source = Path(coursedir.format_path(coursedir.source_directory, ".", ps))
    notebooks = sorted(p.stem for p in source.glob("*.ipynb")) or [ps]
    pages = refused(course, ps)
    for student, bound in pages:
        submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, ps))
        folder = Path(coursedir.format_path(coursedir.feedback_directory, student, ps))
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("timestamp.txt", "submission_secret.txt"):
            if (submitted / name).is_file() and not (submitted / name).is_symlink():
                shutil.copyfile(submitted / name, folder / name)
        for notebook in notebooks:
            (folder / f"{notebook}.html").write_text(_page(ps, bound), encoding="utf-8")
    return pages


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.refused_feedback",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="+", help="problem sets, e.g. ps1 ps2")
    parser.add_argument("--course", type=Path, default=None,
                        help="the course folder (default: the one holding this folder)")
    args = parser.parse_args(argv)
    course = args.course or find_course()
    failed = []
    for ps in args.assignments:
        for student, bound in write_pages(course, ps):
            why = (f"over c.BoundSubmission.{bound['setting']} ({int(bound['found']):,} "
                   f"against at most {int(bound['limit']):,})" if bound is not None
                   else "its grading failed (make autograde named why)")
            failed.append(f"  {ps}/{student}: not graded, {why}; a page saying so "
                          "was written in its feedback")
    if failed:
        print(f"{len(failed)} submission(s) not graded:", file=sys.stderr)
        print("\n".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    private_files()
    sys.exit(main())
