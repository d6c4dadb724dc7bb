"""Register the class: the students of ``students.csv`` in the gradebook, every row
checked before anything is written.

nbgrader's own ``nbgrader db student import`` writes the rows one by one, so a
row with no id stopped it half-way with a traceback (the students after it never
registered), and an id holding a NUL byte was registered and then stopped
``make release`` for the whole class.  Here a bad row is named by its file, line
and field, and nothing in the gradebook changes until every row is right.

An id is what the course's variants take (:func:`coursecheck.variants.valid_student`:
letters, digits, ``. _ @ + -``, starting with a letter or digit, at most 128
characters, not the example's): a student with any other id could be given no
problem of their own.  Names and email are optional, printable, at most 128
characters (the gradebook's columns).

Command line (run in the course folder; the Makefile's ``db``)::

    python -m coursegrader.tools.students students.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from coursecheck.variants import valid_student

from ..gradebook import open_gradebook
from ..settings import private_files
from .command_input import InputError, load_config, read_csv

__all__ = ["COLUMNS", "checked_students", "register_students", "main"]

#: The column every roster must have, and those it may have.
COLUMNS = ("id",)
DETAILS = ("first_name", "last_name", "email")
#: The longest value the gradebook holds in a student's columns.
LIMIT = 128


def _shown(text: str) -> str:
    """``text`` as a message may quote it: cut, its unprintable characters escaped."""
    return ascii(text[:40] + ("..." if len(text) > 40 else ""))


def checked_students(rows: list[tuple[str, dict]]) -> list[dict]:
    """The students of ``rows`` [(where, row)], or :class:`InputError` naming every
    bad row: an id that is missing, not a course id or given twice, a name or email
    that is too long or holds a character that is not printable."""
    problems, seen, students = [], {}, []
    for where, row in rows:
        student = row.get("id", "")
        if not student:
            problems.append(f"{where}, field id: empty (every student needs the id "
                            "the LMS and the hub know them by)")
        elif not valid_student(student):
            problems.append(f"{where}, field id: {_shown(student)} is not a student id "
                            f"(letters, digits, . _ @ + -, starting with a letter or a "
                            f"digit, at most {LIMIT} characters, not 'example')")
        elif student in seen:
            problems.append(f"{where}, field id: {student!r} again (first at {seen[student]})")
        else:
            seen[student] = where
        details = {}
        for field in DETAILS:
            value = row.get(field, "")
            if len(value) > LIMIT:
                problems.append(f"{where}, field {field}: {len(value)} characters, more "
                                f"than the gradebook's {LIMIT}")
            elif not value.isprintable():
                problems.append(f"{where}, field {field}: {_shown(value)} holds a "
                                "character that is not printable")
            details[field] = value or None
        students.append({"id": student, **details})
    if problems:
        raise InputError(problems)
    return students


def register_students(gb, students: list[dict]) -> tuple[int, int]:
    """Add or update each of ``students`` (from :func:`checked_students`) in the
    gradebook ``gb``; (how many were new, how many were already there)."""
    known = {s.id for s in gb.students}
    for student in students:
        gb.update_or_create_student(student["id"], **{
            field: student[field] for field in DETAILS})
    new = sum(s["id"] not in known for s in students)
    return new, len(students) - new


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.students",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("roster", type=Path, help="CSV of students (id,first_name,last_name,email)")
    args = parser.parse_args(argv)
    try:
        students = checked_students([(f"{args.roster}, line {line}", row)
                                     for line, row in read_csv(args.roster, COLUMNS)])
        with open_gradebook(load_config()) as gb:
            new, updated = register_students(gb, students)
    except InputError as exc:
        exc.report()
        print("no student was registered", file=sys.stderr)
        return 2
    print(f"{args.roster}: {new} student(s) registered, {updated} updated")
    return 0


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
