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

    python -m coursegrader.tools.grade_export [--lms canvas|moodle] [--roster FILE]
                                        [--out FILE] [ps1 ps2 ...]
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from ..dating import Source
from ..gradebook import GradeLine, grade_lines, open_gradebook
from ..late_policy import CourseCalendar, LatePolicy
from .deadlines import InputError, load_config

__all__ = ["NBGRADER_COLUMNS", "write_csv", "fill_canvas", "write_moodle",
           "report_unmatched", "report_undated", "main"]

NBGRADER_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name",
                    "first_name", "email", "raw_score", "late_submission_penalty",
                    "score", "max_score", "days_late", "time_source"]
CANVAS_REQUIRED = ["Student", "ID", "Section"]
CANVAS_KEYS = ["SIS Login ID", "SIS User ID"]
MOODLE_KEYS = ["ID number", "Email address"]


def _points(x: float) -> str:
    return f"{round(x, 2):g}"


def write_csv(lines: list[GradeLine], out: Path, calendar: CourseCalendar) -> None:
    """One row per student and problem set, nbgrader's columns."""
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(NBGRADER_COLUMNS)
        for g in lines:
            w.writerow([g.assignment, calendar.show(g.due), calendar.show(g.timestamp),
                        g.student_id, g.last_name or "", g.first_name or "",
                        g.email or "",
                        _points(g.raw_score), _points(g.penalty), _points(g.score),
                        _points(g.max_score), g.days_late,
                        g.dating.describe() if g.dating else ""])


def _read_roster(path: Path) -> tuple[list[str], list[list[str]]]:
    if not path.is_file():
        raise InputError([f"{path}: no such file (ROSTER must name the LMS's CSV)"])
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise InputError([f"{path}: the file is empty"])
    return rows[0], rows[1:]


def _by_student(lines: list[GradeLine]) -> dict[str, dict[str, GradeLine]]:
    out: dict[str, dict[str, GradeLine]] = {}
    for g in lines:
        out.setdefault(g.student_id, {})[g.assignment] = g
    return out


def fill_canvas(lines: list[GradeLine], roster: Path, out: Path,
                assignments: list[str]) -> tuple[list[str], list[str]]:
    """Fill the problem sets' columns of Canvas's gradebook CSV ``roster`` into ``out``.

    Returns (roster rows not in the gradebook, gradebook students not in the roster).
    """
    header, rows = _read_roster(roster)
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
    for n, row in enumerate(rows, start=2):
        row.extend([""] * (len(names) - len(row)))
        label = row[student_col].strip()
        if label == "Points Possible":
            for ps, i in columns.items():
                if not row[i].strip():
                    row[i] = _points(next((g.max_score for g in lines
                                           if g.assignment == ps), 0.0))
            continue
        sid = next((row[k].strip() for k in keys if row[k].strip() in grades), None)
        if sid is None:
            ids = ", ".join(f"{names[k]} {row[k].strip()}" for k in keys
                            if row[k].strip())
            unknown.append(f"line {n}: {label} ({ids or 'no SIS id'})")
            continue
        seen.add(sid)
        for ps, i in columns.items():
            if ps in grades[sid]:
                row[i] = _points(grades[sid][ps].score)
    with open(out, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([header] + rows)
    return unknown, sorted(set(grades) - seen)


def write_moodle(lines: list[GradeLine], out: Path, assignments: list[str],
                 roster: Path | None = None) -> tuple[list[str], list[str]]:
    """Moodle's grade-import CSV: ID number, Email address, names, one column a set."""
    grades = _by_student(lines)
    wanted = sorted(grades)
    unknown: list[str] = []
    if roster is not None:
        header, rows = _read_roster(roster)
        names = [h.strip() for h in header]
        keys = [names.index(k) for k in MOODLE_KEYS if k in names]
        if not keys:
            raise InputError([f"{roster}, line 1: no column {' or '.join(MOODLE_KEYS)} "
                              f"to find students by (columns: {', '.join(names)})"])
        by_email = {next(iter(gs.values())).email.lower(): sid
                    for sid, gs in grades.items() if next(iter(gs.values())).email}
        wanted = []
        for n, row in enumerate(rows, start=2):
            row = row + [""] * (len(names) - len(row))
            sid = None
            for k in keys:
                value = row[k].strip()
                sid = value if value in grades else by_email.get(value.lower())
                if sid:
                    break
            if sid is None:
                unknown.append(f"line {n}: " + "/".join(row[k].strip() for k in keys))
            elif sid not in wanted:
                wanted.append(sid)
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["ID number", "Email address", "First name", "Last name"]
                   + assignments)
        for sid in wanted:
            first = next(iter(grades[sid].values()))
            w.writerow([sid, first.email or "", first.first_name or "",
                        first.last_name or ""]
                       + [_points(grades[sid][ps].score) if ps in grades[sid] else ""
                          for ps in assignments])
    return unknown, sorted(set(grades) - set(wanted))


def report_unmatched(out: Path, unknown: list[str], absent: list[str],
                     source: str) -> None:
    """List who is on one side only, on the terminal and in `out`'s `*-unmatched.txt`."""
    text = []
    if unknown:
        text.append(f"In {source} but not in the gradebook (left as they were):")
        text.extend(f"  {u}" for u in unknown)
    if absent:
        text.append(f"In the gradebook but not in {source} (no grade written):")
        text.extend(f"  {a}" for a in absent)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.grade_export",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="*", help="problem sets (default: all)")
    parser.add_argument("--lms", choices=["canvas", "moodle"])
    parser.add_argument("--roster", type=Path)
    parser.add_argument("--out", type=Path)
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
            lines = grade_lines(gb, policy, names)
        if args.lms is None:
            out = args.out or Path("grades.csv")
            write_csv(lines, out, calendar)
        elif args.lms == "canvas":
            out = args.out or Path("grades-canvas.csv")
            unmatched = fill_canvas(lines, args.roster, out, names)
            report_unmatched(out, *unmatched, "the Canvas roster")
        else:
            out = args.out or Path("grades-moodle.csv")
            source = "the Moodle roster" if args.roster else "the roster"
            report_unmatched(out, *write_moodle(lines, out, names, args.roster),
                             source)
        report_undated(lines)
        print(f"wrote {out}: {len(names)} problem set(s), late policy "
              f"{policy.per_day:.0%} of the {policy.of.replace('_', ' ')} per day, "
              f"zero after {policy.zero_after_days} days; times in "
              f"{calendar.time_zone}")
        return 0
    except InputError as exc:
        exc.report()
        return 2


if __name__ == "__main__":
    sys.exit(main())
