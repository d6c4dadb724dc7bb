"""Due dates and extensions: the instructor's commands that write them into the gradebook.

Due dates go to nbgrader's own ``Assignment.duedate``, extensions to the
course's table (:mod:`coursegrader.gradebook`). Every command checks all of
its input first and then changes the gradebook in one transaction: a bad line
changes nothing.

Command line (run in the course folder; the Makefile's ``db`` and ``extend``):

    python -m coursegrader.tools.deadlines add ps1 ps2 --due due_dates.csv
    python -m coursegrader.tools.deadlines extend ps1 alice "2026-10-09 23:59:00"
    python -m coursegrader.tools.deadlines extend --file accommodations.csv
    python -m coursegrader.tools.deadlines status

``status`` says what the gradebook holds: each problem set and its due date (or
that it has none), how many students, how many extensions, and what is
missing before grading can start.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from nbgrader.api import Assignment, Gradebook, Student
from sqlalchemy import select

from ..gradebook import Extension, open_gradebook, registered_assignments
from ..late_policy import CourseCalendar
from ..settings import private_files
from .command_input import InputError, load_config, read_csv

__all__ = ["set_due_dates", "grant_extensions", "status", "main"]

DUE_COLUMNS = ("assignment", "due")
EXTENSION_COLUMNS = ("assignment", "student_id", "until")


def set_due_dates(gb: Gradebook, path: Path | None, calendar: CourseCalendar,
                  register: list[str] = ()) -> dict[str, dt.datetime]:
    """Register the problem sets ``register`` and set due dates from ``path``.

    ``path`` (columns assignment,due) may name a registered problem set or one
    of ``register``; a problem set it does not name keeps its due date.
    """
    known = registered_assignments(gb)
    rows = read_csv(path, DUE_COLUMNS) if path is not None else []
    problems, dates = [], {}
    for line, row in rows:
        where = f"{path}, line {line}"
        name = row["assignment"]
        if name not in known and name not in register:
            names = ", ".join(sorted(set(known) | set(register))) or "none"
            problems.append(f"{where}, field assignment: no problem set {name!r} in "
                            f"the gradebook (known: {names})")
        elif name in dates:
            problems.append(f"{where}, field assignment: {name!r} appears twice")
        try:
            dates[name] = calendar.parse(row["due"])
        except ValueError as exc:
            problems.append(f"{where}, field due: {exc}")
    if problems:
        raise InputError(problems)
    try:
        for name in register:
            if name not in known:
                known[name] = Assignment(name=name, course_id=gb.course_id)
                gb.db.add(known[name])
        for name, due in dates.items():
            known[name].duedate = due
        gb.db.commit()
    except Exception:
        gb.db.rollback()
        raise
    return dates


def grant_extensions(gb: Gradebook, requests: list[tuple[str, dict]],
                     calendar: CourseCalendar) -> int:
    """Grant each (where, {assignment, student_id, until}) request, all or none."""
    known = registered_assignments(gb)
    students = {s.id for s in gb.db.execute(select(Student)).scalars()}
    problems, grants = [], {}
    for where, row in requests:
        name, student = row["assignment"], row["student_id"]
        ok = True
        if name not in known:
            names = ", ".join(sorted(known)) or "none"
            problems.append(f"{where}, field assignment: no problem set {name!r} in "
                            f"the gradebook (known: {names})")
            ok = False
        if student not in students:
            problems.append(f"{where}, field student_id: no student {student!r} in the "
                            f"gradebook")
            ok = False
        try:
            until = calendar.parse(row["until"])
        except ValueError as exc:
            problems.append(f"{where}, field until: {exc}")
            continue
        if ok and known[name].duedate is None:
            problems.append(f"{where}, field assignment: {name!r} has no due date yet "
                            f"(set the due dates first: make db)")
        elif ok and until <= known[name].duedate:
            problems.append(f"{where}, field until: {calendar.show(until)} is not "
                            f"later than the due date of {name}, "
                            f"{calendar.show(known[name].duedate)}")
        elif ok:
            grants[(name, student)] = until
    if problems:
        raise InputError(problems)
    try:
        for (name, student), until in grants.items():
            found = gb.db.execute(select(Extension).filter_by(
                assignment=name, student_id=student)).scalar_one_or_none()
            if found is None:
                gb.db.add(Extension(assignment=name, student_id=student, until=until))
            else:
                found.until = until
        gb.db.commit()
    except Exception:
        gb.db.rollback()
        raise
    return len(grants)


def status(gb: Gradebook, calendar: CourseCalendar) -> tuple[list[str], list[str]]:
    """(what the gradebook holds, what is missing), one line each, for ``make db``."""
    known = registered_assignments(gb)
    students = gb.db.execute(select(Student)).scalars().all()
    extensions = gb.db.execute(select(Extension)).scalars().all()
    held, missing = [], []
    for name, a in sorted(known.items()):
        held.append(f"problem set {name}: "
                    + (f"due {calendar.show(a.duedate)}" if a.duedate else "no due date"))
    undated = sorted(name for name, a in known.items() if a.duedate is None)
    held.append(f"{len(students)} student(s), {len(extensions)} extension(s)")
    if not known:
        missing.append("no problem set registered (make db PS=ps1 ...)")
    if undated:
        missing.append(f"no due date for {', '.join(undated)}: nothing handed in is late "
                       f"(add them to due_dates.csv; due_dates.example.csv shows the form)")
    if not students:
        missing.append("no student registered: nothing can be collected or graded "
                       "(cp students.example.csv students.csv, edit it, make db again)")
    return held, missing


def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.deadlines",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    due = sub.add_parser("add", help="register problem sets and set due dates")
    due.add_argument("assignments", nargs="*", help="problem sets to register")
    due.add_argument("--due", type=Path, help="CSV of due dates (assignment,due)")
    ext = sub.add_parser("extend", help="grant extensions")
    ext.add_argument("assignment", nargs="?")
    ext.add_argument("student_id", nargs="?")
    ext.add_argument("until", nargs="?")
    ext.add_argument("--file", type=Path,
                     help="CSV of accommodations (assignment,student_id,until)")
    sub.add_parser("status", help="what the gradebook holds, and what is missing")
    args = parser.parse_args(argv)
    if args.command == "extend":
        given = [args.assignment, args.student_id, args.until]
        if args.file is None and not all(given):
            parser.error("extend: give PS, STUDENT and UNTIL, or --file")
        if args.file is not None and any(given):
            parser.error("extend: give PS, STUDENT and UNTIL, or --file, not both")
    return args


def main(argv=None) -> int:
    args = _parse_args(argv)
    try:
        config = load_config()
        calendar = CourseCalendar(config=config)
        with open_gradebook(config) as gb:
            if args.command == "status":
                held, missing = status(gb, calendar)
                print("The gradebook holds:")
                print("\n".join(f"  {line}" for line in held))
                if missing:
                    print("Missing:")
                    print("\n".join(f"  {line}" for line in missing))
                return 0
            if args.command == "add":
                dates = set_due_dates(gb, args.due, calendar, args.assignments)
                for name, due in sorted(dates.items()):
                    print(f"{name}: due {calendar.show(due)}")
                return 0
            if args.file is not None:
                requests = [(f"{args.file}, line {line}", row)
                            for line, row in read_csv(args.file, EXTENSION_COLUMNS)]
            else:
                requests = [("command line", {"assignment": args.assignment,
                                              "student_id": args.student_id,
                                              "until": args.until})]
            n = grant_extensions(gb, requests, calendar)
            print(f"{n} extension(s) granted (times in {calendar.time_zone})")
            return 0
    except InputError as exc:
        exc.report()
        print("nothing in the gradebook was changed", file=sys.stderr)
        return 2


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
