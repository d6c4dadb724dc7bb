"""Grades out of the gradebook, after the late policy: a CSV, Canvas's or Moodle's.

The score of each problem set is the gradebook's (auto-graded plus hand-graded
points) less the late penalty worked out now from the student's own due date
(:mod:`coursegrader.gradebook`), so a moved due date or a new extension shows in
the next export without grading anything again.

- no LMS: ``grades.csv``, nbgrader's columns (``duedate`` is the student's own,
  in the course's time zone, named), ``days_late`` and ``time_source``, where
  the hand-in time came from (:mod:`coursegrader.dating`: a route that could
  not date a submission says so there, and on the terminal);
- ``canvas``: the gradebook CSV exported from Canvas (``--roster``), with each
  problem set's column filled in; students are matched by SIS Login ID, else
  SIS User ID, to the gradebook's student ids. Canvas imports the result as
  it is (Grades > Import);
- ``moodle``: Moodle's grade-import CSV, students identified by ID number and
  email address; with ``--roster`` (Moodle's own grade export, or any CSV with
  the column ``ID number`` or ``Email address``) only its students, matched by
  ID number, else email.

Students in the roster but not in the gradebook, and the other way round, are
listed on the terminal and in the file's companion ``*-unmatched.txt``.

Every cell goes through :func:`coursegrader.spreadsheet.neutralise`, so
no text a student or the LMS wrote opens as a formula. The export is refused,
listing them, while a submission has parts still to be graded by hand
(nbgrader's ``needs_manual_grade``); with ``--force`` (``make export FORCE=1``)
it goes ahead and marks those grades provisional: the column ``provisional``
of ``grades.csv`` and ``Provisional`` of Moodle's file name the parts, and for
Canvas, whose import would take any new column for an assignment, they are
listed on the terminal and in ``grades-canvas-provisional.txt``.

A submission that failed to grade (the student's latest hand-in: over a
bound, an encoding error, any error) is exported as 0, whatever an earlier
submission scored (:func:`coursegrader.gradebook.record_failure`), dated as
the latest hand-in; ``grades.csv``'s column ``not_graded`` says why, every
such submission is listed on the terminal and beside the file (an LMS's has no
column for it) in ``*-not-graded.txt``, and the command exits 1, as
``make autograde`` does.

    python -m coursegrader.tools.grade_export [--lms canvas|moodle] [--roster FILE]
                                        [--out FILE] [--force] [ps1 ps2 ...]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..dating import Source
from ..gradebook import (GradeLine, grade_lines, half_graded_refusal, open_gradebook,
                         ungraded_parts)
from ..late_policy import CourseCalendar, LatePolicy
from ..settings import private_files
from . import lms_roster
from .command_input import InputError, load_config
from .lms_roster import CANVAS_KEYS, CANVAS_REQUIRED
from ..spreadsheet import neutralise, writer

__all__ = ["NBGRADER_COLUMNS", "write_csv", "fill_canvas", "write_moodle",
           "report_unmatched", "report_undated", "report_not_graded", "main"]

NBGRADER_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name",
                    "first_name", "email", "raw_score", "late_submission_penalty",
                    "score", "max_score", "days_late", "time_source", "provisional",
                    "not_graded"]
MOODLE_KEYS = ["ID number", "Email address"]


def _points(x: float) -> str:
    return f"{round(x, 2):g}"


def _provisional(g: GradeLine) -> str:
    return "still to grade by hand: " + " ".join(g.ungraded) if g.ungraded else ""


def write_csv(lines: list[GradeLine], out: Path, calendar: CourseCalendar) -> None:
    """One row per student and problem set, nbgrader's columns."""
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = writer(f)
        w.writerow(NBGRADER_COLUMNS)
        for g in lines:
            w.writerow([g.assignment, calendar.show(g.due), calendar.show(g.timestamp),
                        g.student_id, g.last_name or "", g.first_name or "",
                        g.email or "",
                        _points(g.raw_score), _points(g.penalty), _points(g.score),
                        _points(g.max_score), g.days_late,
                        g.dating.describe() if g.dating else "", _provisional(g),
                        _not_graded(g)])


def _not_graded(g: GradeLine) -> str:
    return f"not graded (0): {g.failed}" if g.failed is not None else ""


def _by_student(lines: list[GradeLine]) -> dict[str, dict[str, GradeLine]]:
    out: dict[str, dict[str, GradeLine]] = {}
    for g in lines:
        out.setdefault(g.student_id, {})[g.assignment] = g
    return out


def _is_points_row(row: list[str], names: list[str], columns: dict[str, int]) -> bool:
    """Canvas's own points row: "Points Possible" under Student, the other fixed
    columns (ID, SIS ids, Section) blank, and every assignment's cell blank or a
    number (or Canvas's "(read only)"); a student's row always has an ID."""
    fixed = [i for i, h in enumerate(names) if h in CANVAS_REQUIRED + CANVAS_KEYS]
    if row[names.index("Student")].strip() != "Points Possible":
        return False
    if any(row[i].strip() for i in fixed if names[i] != "Student"):
        return False
    for i in columns.values():
        value = row[i].strip()
        if value and value != "(read only)":
            try:
                float(value)
            except ValueError:
                return False
    return True


def fill_canvas(lines: list[GradeLine], roster: Path, out: Path,
                assignments: list[str]) -> tuple[list[str], list[str]]:
    """Fill the problem sets' columns of Canvas's gradebook CSV ``roster`` into ``out``.

    Returns (roster rows not in the gradebook, gradebook students not in the roster).
    """
    header, rows = lms_roster.read(roster)
    names = [h.strip() for h in header]
    missing = [c for c in CANVAS_REQUIRED if c not in names]
    keys = [names.index(k) for k in CANVAS_KEYS if k in names]
    if missing or not keys:
        need = missing + ([" or ".join(CANVAS_KEYS)] if not keys else [])
        raise InputError([f"{roster}, line 1: no column {', '.join(need)}; this is not "
                          f"a gradebook CSV exported from Canvas (columns: "
                          f"{', '.join(names)})"])
    columns, problems = {}, []
    for ps in assignments:
        found = [i for i, h in enumerate(names)
                 if re.fullmatch(rf"{re.escape(ps)}(\s*\(\d+\))?", h, re.IGNORECASE)]
        if len(found) != 1:
            how_many = "more than one" if found else "no"
            problems.append(f"{roster}, line 1: {how_many} column for problem set {ps} "
                            f"(expected one named {ps!r} or '{ps} (<Canvas assignment "
                            f"id>)'; create the assignment in Canvas and export its "
                            f"gradebook again)")
        else:
            columns[ps] = found[0]
    if problems:
        raise InputError(problems)
    grades = _by_student(lines)
    student_col = names.index("Student")
    seen, unknown = set(), []
    for row in rows:
        row.extend([""] * (len(names) - len(row)))
    # the points row is the roster's own: the first after the header, by content
    if rows and _is_points_row(rows[0], names, columns):
        for ps, i in columns.items():
            if not rows[0][i].strip():
                rows[0][i] = _points(next((g.max_score for g in lines
                                           if g.assignment == ps), 0.0))
        first = 1
    else:
        first = 0
    for n, row in enumerate(rows[first:], start=2 + first):
        label = row[student_col].strip()
        sid = next((row[k].strip() for k in keys if row[k].strip() in grades), None)
        if sid is None:
            ids = ", ".join(f"{names[k]} {row[k].strip()}" for k in keys if row[k].strip())
            unknown.append(f"line {n}: {label} ({ids or 'no SIS id'})")
            continue
        seen.add(sid)
        for ps, i in columns.items():
            if ps in grades[sid]:
                row[i] = _points(grades[sid][ps].score)
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer(f).writerows([header] + rows)
    return unknown, sorted(set(grades) - seen)


def write_moodle(lines: list[GradeLine], out: Path, assignments: list[str],
                 roster: Path | None = None) -> tuple[list[str], list[str]]:
    """Moodle's grade-import CSV: ID number, Email address, names, one column a set."""
    grades = _by_student(lines)
    wanted = sorted(grades)
    unknown: list[str] = []
    if roster is not None:
        header, rows = lms_roster.read(roster)
        names = [h.strip() for h in header]
        keys = [names.index(k) for k in MOODLE_KEYS if k in names]
        if not keys:
            raise InputError([f"{roster}, line 1: no column {' or '.join(MOODLE_KEYS)} "
                              f"to find students by (columns: {', '.join(names)})"])
        # an email two students share (in any case) identifies neither of them
        owners: dict[str, set] = {}
        for sid, gs in grades.items():
            email = next(iter(gs.values())).email
            if email:
                owners.setdefault(email.strip().casefold(), set()).add(sid)
        by_email = {e: next(iter(s)) for e, s in owners.items() if len(s) == 1}
        wanted, first_line = [], {}
        for n, row in enumerate(rows, start=2):
            row = row + [""] * (len(names) - len(row))
            sid, shared = None, False
            for k in keys:
                value = row[k].strip()
                shared = shared or len(owners.get(value.casefold(), ())) > 1
                sid = value if value in grades else by_email.get(value.casefold())
                if sid:
                    break
            if sid is None:
                unknown.append(f"line {n}: " + "/".join(row[k].strip() for k in keys)
                               + (" (an email several students share: not matched)"
                                  if shared else ""))
            elif sid in first_line:
                # one student, one row: the file gives each grade once
                unknown.append(f"line {n}: " + "/".join(row[k].strip() for k in keys)
                               + f" (the student of line {first_line[sid]} again: "
                                 "not matched)")
            else:
                first_line[sid] = n
                wanted.append(sid)
    provisional = any(g.provisional for sid in wanted for g in grades[sid].values())
    # an email several students share (in any case) is left out of their rows, so
    # that an import matched by email cannot put one's grade on the other's account
    emails = [(next(iter(grades[sid].values())).email or "").strip().casefold()
              for sid in wanted]
    shared = {e for e in emails if e and emails.count(e) > 1}
    if shared:
        print(f"warning: {len(shared)} email(s) shared by several students left out of "
              f"{out.name} (match its rows by ID number)", file=sys.stderr)
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = writer(f)
        w.writerow(["ID number", "Email address", "First name", "Last name"]
                   + assignments + (["Provisional"] if provisional else []))
        for sid in wanted:
            first = next(iter(grades[sid].values()))
            marks = "; ".join(f"{ps} {_provisional(g)}" for ps, g in
                              sorted(grades[sid].items()) if g.provisional)
            email = first.email or ""
            w.writerow([sid, "" if email.strip().casefold() in shared else email,
                        first.first_name or "",
                        first.last_name or ""]
                       + [_points(grades[sid][ps].score) if ps in grades[sid] else ""
                          for ps in assignments] + ([marks] if provisional else []))
    return unknown, sorted(set(grades) - set(wanted))


def report_unmatched(out: Path, unknown: list[str], absent: list[str],
                     source: str) -> None:
    """List who is on one side only, on the terminal and in `out`'s `*-unmatched.txt`."""
    text = []
    if unknown:
        text.append(f"In {source} but not in the gradebook (left as they were):")
        text.extend("  " + neutralise(u, quoted=False) for u in unknown)
    if absent:
        text.append(f"In the gradebook but not in {source} (no grade written):")
        text.extend("  " + neutralise(a, quoted=False) for a in absent)
    listing = out.with_name(out.stem + "-unmatched.txt")
    if text:
        listing.write_text("\n".join(text) + "\n", encoding="utf-8")
        print("\n".join(text + [f"(this list is also in {listing})"]), file=sys.stderr)
    elif listing.exists():
        listing.unlink()


def report_undated(lines: list[GradeLine]) -> None:
    """Tell the instructor which submissions their route did not date."""
    undated = [g for g in lines if not g.dated]
    if undated:
        print(f"{len(undated)} submission(s) not dated, counted on time (grades.csv's "
              f"time_source says so for each row; set the time by hand, or collect them "
              f"again through the course's collect):", file=sys.stderr)
        for g in undated:
            print(f"  {g.assignment} {g.student_id}: {g.dating.describe()}", file=sys.stderr)
    unknown = [g for g in lines if g.dating is not None and g.dating.source is Source.GRADEBOOK]
    if unknown:
        print(f"{len(unknown)} submission(s) dated by the gradebook alone, with no record of "
              f"where the time came from (graded before the course kept one, or entered "
              f"by hand); collect and autograde them again to date them by their route:",
              file=sys.stderr)
        for g in unknown:
            print(f"  {g.assignment} {g.student_id}", file=sys.stderr)


def report_not_graded(out: Path, lines: list[GradeLine]) -> bool:
    """Name every submission exported as 0 because it failed to grade, on the terminal
    and beside the file ``out`` in ``*-not-graded.txt`` (an LMS's file has no column
    for it); whether there was any."""
    listing = out.with_name(out.stem + "-not-graded.txt")
    failed = [g for g in lines if g.failed is not None]
    if failed:
        text = [f"{len(failed)} submission(s) not graded, exported as 0 (the student's "
                f"latest hand-in; an earlier grade does not count): fix the cause or ask "
                f"for a new hand-in, then make autograde:"]
        text += ["  " + neutralise(f"{g.assignment} {g.student_id}: {g.failed}", quoted=False)
                 for g in failed]
        listing.write_text("\n".join(text) + "\n", encoding="utf-8")
        text.append(f"(this list is also in {listing})")
        print("\n".join(text), file=sys.stderr)
    elif listing.exists():
        listing.unlink()
    return bool(failed)


def _list_provisional(out: Path, lines: list[GradeLine]) -> None:
    """Name the provisional grades of an LMS file that has no column for them."""
    listing = out.with_name(out.stem + "-provisional.txt")
    marked = ["  " + neutralise(f"{g.student_id}, {g.assignment}: {_provisional(g)}",
                                quoted=False) for g in lines if g.provisional]
    if marked:
        text = ["Provisional grades (parts still to grade by hand):"] + marked
        listing.write_text("\n".join(text) + "\n", encoding="utf-8")
        print("\n".join(text + [f"(this list is also in {listing})"]), file=sys.stderr)
    elif listing.exists():
        listing.unlink()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.grade_export",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="*", help="problem sets (default: all)")
    parser.add_argument("--lms", choices=["canvas", "moodle"])
    parser.add_argument("--roster", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--force", action="store_true",
                        help="export even while parts still need grading by hand, "
                             "marking those grades provisional")
    args = parser.parse_args(argv)
    if args.lms == "canvas" and args.roster is None:
        parser.error("--lms canvas needs --roster: the gradebook CSV Canvas exports")
    if args.lms is None and args.roster is not None:
        parser.error("--roster needs --lms canvas or --lms moodle")
    try:
        config = load_config()
        calendar, policy = CourseCalendar(config=config), LatePolicy(config=config)
        with open_gradebook(config) as gb:
            known = sorted(a.name for a in gb.assignments)
            names = [ps for ps in (args.assignments or known) if ps in known]
            ungraded = ungraded_parts(gb, names)
            if ungraded and not args.force:
                print(half_graded_refusal(ungraded, "no grades exported",
                                          "export them as provisional with FORCE=1 "
                                          "(make export FORCE=1)"), file=sys.stderr)
                return 1
            lines = grade_lines(gb, policy, names)
        if args.lms is None:
            out = args.out or Path("grades.csv")
            write_csv(lines, out, calendar)
        elif args.lms == "canvas":
            out = args.out or Path("grades-canvas.csv")
            unmatched = fill_canvas(lines, args.roster, out, names)
            report_unmatched(out, *unmatched, "the Canvas roster")
            _list_provisional(out, lines)
        else:
            out = args.out or Path("grades-moodle.csv")
            source = "the Moodle roster" if args.roster else "the roster"
            report_unmatched(out, *write_moodle(lines, out, names, args.roster),
                             source)
        report_undated(lines)
        not_graded = report_not_graded(out, lines)
        if any(g.provisional for g in lines):
            print(f"warning: {sum(g.provisional for g in lines)} grade(s) written as "
                  f"provisional (FORCE): parts still to grade by hand", file=sys.stderr)
        print(f"wrote {out}: {len(names)} problem set(s), late policy "
              f"{policy.per_day:.0%} of the {policy.of.replace('_', ' ')} per day, "
              f"zero after {policy.zero_after_days} days; times in "
              f"{calendar.time_zone}")
        return 1 if not_graded else 0
    except InputError as exc:
        exc.report()
        return 2


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
