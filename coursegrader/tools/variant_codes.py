"""Write each student's variant code, for students who work without the course hub.

``make variant_codes`` (``python -m coursegrader.tools.variant_codes``) writes
``variant_codes.csv`` in the course folder: one row per student of the
gradebook (or per ``--student``), with their code and the notebook cell that
sets it once in the student package (``set_student('ID', 'CODE')``; in a
terminal, ``python -m coursecheck.variants ID CODE`` does the same).
Send each student their own row (the LMS's private message or comment, say):
a code shows its student's variants, and no one else's.  The codes are keyed
by the course secret (:func:`coursegrader.judging.variants.variant_code`),
which this command creates if it is missing, as autograde would; the file is
the instructor's alone and ignored by git.
"""

import argparse
import sys
from pathlib import Path

from ..gradebook import open_gradebook
from ..judging.variants import variant_code
from ..secret import SECRET_FILE, course_secret
from ..settings import CourseSettings, course_config, find_course, private_files
from ..spreadsheet import writer

__all__ = ["codes", "write_codes", "OUTPUT"]

#: The file written in the course folder.
OUTPUT = "variant_codes.csv"


def codes(course, students=None):
    """[(student id, code)] of ``students`` (default: the gradebook's), sorted by id."""
    config = course_config(course)
    settings = CourseSettings(config=config)
    secret = course_secret(settings, Path(course) / SECRET_FILE)
    if not students:
        with open_gradebook(config) as gb:
            students = [s.id for s in gb.students]
    from coursecheck.problems import COURSE_ID
    return [(s, variant_code(secret, COURSE_ID, s)) for s in sorted(set(students))]


def write_codes(course, students=None, out=None):
    """Write the codes to ``out`` (default: :data:`OUTPUT` in the course); return
    (path, number of rows)."""
    rows = codes(course, students)
    path = Path(out) if out else Path(course) / OUTPUT
    with open(path, "w", newline="") as f:
        w = writer(f)
        w.writerow(["student_id", "code", "notebook_cell"])
        for student, code in rows:
            w.writerow([student, code, "from coursecheck.variants import set_student; "
                                       f"set_student({student!r}, {code!r})"])
    return path, len(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.variant_codes",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--course", type=Path, default=None,
                        help="the course folder (default: the one holding this folder)")
    parser.add_argument("--student", action="append", default=[],
                        help="only this student (repeat for several; default: the gradebook's)")
    parser.add_argument("--out", type=Path, default=None, help=f"default: {OUTPUT}")
    args = parser.parse_args(argv)
    path, n = write_codes(args.course or find_course(), args.student, args.out)
    print(f"wrote {path}: the variant codes of {n} student(s); send each their own row")
    if n == 0:
        print("no students: register them first (make db)")
        return 1
    return 0


if __name__ == "__main__":
    private_files()
    sys.exit(main())
