"""The course's gradebook: nbgrader's, with the course's extensions, and each grade after
the late policy.

Each problem set's due date is nbgrader's own (``Assignment.duedate``), so
Formgrader shows it.  An extension gives one student a later due date for one
problem set; nbgrader keeps extensions only on a submission that already
exists, so they live in a table of their own, ``coursegrader_extension``, in
the same database.  :func:`grade_lines` works out every student's grade after
the late policy (:mod:`coursegrader.late_policy`) from their own due date,
whenever it is asked: the export, the LMS's scores and the feedback read it.

A submission's time is nbgrader's (``SubmittedAssignment.timestamp``, read at
autograde from the ``timestamp.txt`` the course's collectors write); where it
came from (:mod:`coursegrader.dating`) is kept beside it in the table
``coursegrader_submission_time``, and :func:`submission_time` returns both.

A submission that fails to grade (over a bound, a character its cells cannot
be encoded with, any error) leaves no grade behind: :func:`record_failure`
removes whatever grade the student's earlier submission of that problem set
had and keeps, in the table ``coursegrader_grading_failure``, why the current
one was not graded and when it was handed in (its collector's account), until
a later submission is graded (:func:`record_dating` takes the row away).
:func:`grade_lines` gives it 0 and the reason (``GradeLine.failed``), dated as
the current submission is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import warnings
from typing import Iterator

from nbgrader.api import Assignment, Gradebook, MissingEntry, Student, SubmittedAssignment
from nbgrader.coursedir import CourseDirectory
from sqlalchemy import (Boolean, Column, DateTime, Integer, String, UniqueConstraint,
                        inspect, select)
from sqlalchemy.exc import DBAPIError, SAWarning
from sqlalchemy.orm import declarative_base
from traitlets.config import Config

from .dating import Dating, Source
from .late_policy import DAY, LatePolicy

__all__ = ["Extension", "SubmissionTime", "GradingFailure", "GradeLine", "UngradedPart",
           "open_gradebook", "registered_assignments", "grade_lines", "submission_time", "record_dating",
           "ungraded_parts", "half_graded_refusal", "create_tables", "record_failure",
           "grading_failures"]

_Base = declarative_base()


class Extension(_Base):
    """A later due date for one student and one problem set (naive UTC)."""

    __tablename__ = "coursegrader_extension"
    __table_args__ = (UniqueConstraint("assignment", "student_id"),)
    id = Column(Integer, primary_key=True)
    assignment = Column(String(128), nullable=False)
    student_id = Column(String(128), nullable=False)
    until = Column(DateTime(), nullable=False)


class SubmissionTime(_Base):
    """Where the time of one student's graded submission came from (:mod:`.dating`)."""

    __tablename__ = "coursegrader_submission_time"
    __table_args__ = (UniqueConstraint("assignment", "student_id"),)
    id = Column(Integer, primary_key=True)
    assignment = Column(String(128), nullable=False)
    student_id = Column(String(128), nullable=False)
    source = Column(String(32), nullable=False)
    lms_late = Column(Boolean(), nullable=True)
    claimed = Column(String(256), nullable=True)
    detail = Column(String(512), nullable=True)


class GradingFailure(_Base):
    """One student's current submission to one problem set that could not be graded:
    why (``reason``), and when it was handed in (its collector's account, as in
    :class:`SubmissionTime`, with the route's ``time``)."""

    __tablename__ = "coursegrader_grading_failure"
    __table_args__ = (UniqueConstraint("assignment", "student_id"),)
    id = Column(Integer, primary_key=True)
    assignment = Column(String(128), nullable=False)
    student_id = Column(String(128), nullable=False)
    reason = Column(String(1024), nullable=False)
    source = Column(String(32), nullable=False)
    time = Column(DateTime(), nullable=True)
    lms_late = Column(Boolean(), nullable=True)
    claimed = Column(String(256), nullable=True)
    detail = Column(String(512), nullable=True)

    @property
    def dating(self) -> Dating:
        return Dating(Source(self.source), self.time, self.lms_late, self.claimed,
                      self.detail or "")


@dataclasses.dataclass(frozen=True)
class GradeLine:
    """One student's grade for one problem set after the late policy."""

    assignment: str
    student_id: str
    last_name: str | None
    first_name: str | None
    email: str | None
    due: dt.datetime | None          # the student's own due date (naive UTC)
    extended: bool
    timestamp: dt.datetime | None    # when handed in (naive UTC), None if never
    raw_score: float
    max_score: float
    days_late: int
    penalty: float
    dating: Dating | None = None     # where ``timestamp`` came from; None if never handed in
    ungraded: tuple[str, ...] = ()  # parts still to be graded by hand: a provisional grade
    failed: str | None = None       # why the current submission was not graded (then 0)

    @property
    def dated(self) -> bool:
        """Whether the route established when it was handed in (or it never was)."""
        return self.dating is None or self.dating.time is not None \
            or self.dating.lms_late is not None

    @property
    def score(self) -> float:
        return self.raw_score - self.penalty

    @property
    def provisional(self) -> bool:
        """True while a part of the submission still needs grading by hand."""
        return bool(self.ungraded)


@dataclasses.dataclass(frozen=True, order=True)
class UngradedPart:
    """A graded part of a submission that nbgrader says needs grading by hand."""

    student_id: str
    assignment: str
    notebook: str
    part: str                         # the part's grade id

    def __str__(self) -> str:
        return f"{self.student_id}, {self.assignment}, {self.part}"


@contextlib.contextmanager
def open_gradebook(config: Config) -> Iterator[Gradebook]:
    """The course's gradebook, with the extension table created if missing."""
    coursedir = CourseDirectory(config=config)
    with warnings.catch_warnings():
        # nbgrader's score properties trip SQLAlchemy autoflush warnings
        warnings.simplefilter("ignore", SAWarning)
        with Gradebook(coursedir.db_url, course_id=coursedir.course_id) as gb:
            create_tables(gb)
            yield gb


def registered_assignments(gb: Gradebook) -> dict[str, Assignment]:
    """{name: nbgrader's Assignment} of every problem set in the gradebook."""
    return {a.name: a for a in gb.db.execute(select(Assignment)).scalars()}


def grade_lines(gb: Gradebook, policy: LatePolicy,
                assignments: list[str] | None = None) -> list[GradeLine]:
    """Every student's grade for every problem set (``assignments``: some only).

    A problem set not handed in scores 0 and shows no timestamp. A submission
    whose route gave no time is not late by the clock; where the LMS marked it
    late, it counts one day (or part of a day) late, the least a late
    submission is.  A submission that failed to grade scores 0, says why
    (``failed``) and is dated as it was handed in.
    """
    datings = _datings(gb)
    failures = {(f.assignment, f.student_id): f for f in _failures(gb)}
    extensions = {(e.assignment, e.student_id): e.until
                  for e in gb.db.execute(select(Extension)).scalars()}
    subs = {(s.assignment.name, s.student.id): s
            for s in gb.db.execute(select(SubmittedAssignment)).scalars()}
    lines = []
    for a in sorted(registered_assignments(gb).values(), key=lambda a: a.name):
        if assignments is not None and a.name not in assignments:
            continue
        max_score = float(a.max_score)
        for st in sorted(gb.db.execute(select(Student)).scalars(), key=lambda s: s.id):
            until = extensions.get((a.name, st.id))
            due = a.duedate
            if until is not None and (due is None or until > due):
                due = until
            sub = subs.get((a.name, st.id))
            failure = failures.get((a.name, st.id))
            if failure is not None:   # record_failure removed any grade
                sub = None
            dating = (failure.dating if failure is not None
                      else _dating(datings, sub) if sub is not None else None)
            stamp = dating.time if dating is not None else None
            raw = float(sub.score) if sub is not None else 0.0
            late = (stamp - due).total_seconds() if stamp and due else 0.0
            if dating is not None and dating.lms_late and late <= 0:
                late = DAY
            ungraded = tuple(p.part for p in _ungraded_in(sub)) if sub is not None else ()
            lines.append(GradeLine(
                a.name, st.id, st.last_name, st.first_name, st.email, due,
                due is not None and due != a.duedate, stamp, raw, max_score,
                policy.days_late(late), policy.penalty(raw, max_score, late), dating,
                ungraded, failure.reason if failure is not None else None))
    return lines


def _datings(gb: Gradebook) -> dict:
    return {(r.assignment, r.student_id): r
            for r in gb.db.execute(select(SubmissionTime)).scalars()}


def _dating(datings: dict, sub: SubmittedAssignment) -> Dating:
    row = datings.get((sub.assignment.name, sub.student.id))
    if row is None:   # entered in the gradebook, not graded through the course's autograde
        return Dating(Source.GRADEBOOK, sub.timestamp)
    source = Source(row.source)
    # nbgrader's timestamp is the route's (the collector wrote it) where the route
    # gives a time; otherwise it is only when the collector ran
    time = sub.timestamp if source.gives_time else None
    return Dating(source, time, row.lms_late, row.claimed, row.detail or "")


def submission_time(gb: Gradebook, assignment: str, student: str) -> Dating | None:
    """When ``student``'s graded submission to ``assignment`` was handed in, and where
    that time came from; None when nothing was handed in.

    The one place the export and the feedback page ask: a :class:`~.dating.Dating`
    whose ``time`` is None when the route could not date it.
    """
    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return None
    return _dating(_datings(gb), sub)


def record_dating(gb: Gradebook, assignment: str, student: str, dating: Dating) -> None:
    """Keep where the time of ``student``'s graded submission came from (at autograde);
    a failure recorded for an earlier submission no longer holds."""
    create_tables(gb)
    for failure in _failures(gb, assignment, student):
        gb.db.delete(failure)
    row = gb.db.execute(select(SubmissionTime).where(
        SubmissionTime.assignment == assignment,
        SubmissionTime.student_id == student)).scalar_one_or_none()
    if row is None:
        row = SubmissionTime(assignment=assignment, student_id=student)
        gb.db.add(row)
    row.source = dating.source.value
    row.lms_late = dating.lms_late
    row.claimed = (dating.claimed or "")[:256] or None
    row.detail = (dating.detail or "")[:512] or None
    gb.db.commit()


def _failures(gb: Gradebook, assignment: str | None = None,
              student: str | None = None) -> list[GradingFailure]:
    query = select(GradingFailure)
    if assignment is not None:
        query = query.where(GradingFailure.assignment == assignment)
    if student is not None:
        query = query.where(GradingFailure.student_id == student)
    return list(gb.db.execute(query).scalars())


def record_failure(gb: Gradebook, assignment: str, student: str, reason: str,
                   dating: Dating) -> None:
    """``student``'s current submission to ``assignment`` could not be graded, for
    ``reason``; it was handed in as ``dating`` says.

    No grade of an earlier submission survives it: nbgrader's submission (its
    scores, comments and time) and the time recorded beside it are removed, so
    the export, the LMS's scores and the feedback see a submission not graded,
    0, dated as the current one."""
    create_tables(gb)
    with contextlib.suppress(MissingEntry):
        gb.remove_submission(assignment, student)
    for row in gb.db.execute(select(SubmissionTime).where(
            SubmissionTime.assignment == assignment,
            SubmissionTime.student_id == student)).scalars():
        gb.db.delete(row)
    rows = _failures(gb, assignment, student)
    row = rows[0] if rows else GradingFailure(assignment=assignment, student_id=student)
    if not rows:
        gb.db.add(row)
    # the message may quote what the student wrote: kept as text any database takes
    row.reason = reason.encode("utf-8", "backslashreplace").decode("utf-8")[:1024] \
        or "not graded"
    row.source = dating.source.value
    row.time = dating.time
    row.lms_late = dating.lms_late
    row.claimed = (dating.claimed or "")[:256] or None
    row.detail = (dating.detail or "")[:512] or None
    gb.db.commit()


def grading_failures(gb: Gradebook, assignment: str) -> dict[str, str]:
    """{student: why their current submission to ``assignment`` was not graded}."""
    create_tables(gb)
    return {f.student_id: f.reason for f in _failures(gb, assignment)}


def _ungraded_in(sub: SubmittedAssignment) -> list[UngradedPart]:
    if not sub.needs_manual_grade:
        return []
    return sorted(UngradedPart(sub.student.id, sub.assignment.name, nb.name, g.name)
                  for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade)


def ungraded_parts(gb: Gradebook, assignments: list[str] | None = None,
                   student: str | None = None) -> list[UngradedPart]:
    """Every part of a submission that still needs grading by hand (nbgrader's
    ``needs_manual_grade``: a written answer nobody has marked yet, or a part
    whose automatic grade a grader must check), of ``assignments`` (default:
    all) and ``student`` (default: everyone)."""
    found = []
    for sub in gb.db.execute(select(SubmittedAssignment)).scalars():
        if assignments is not None and sub.assignment.name not in assignments:
            continue
        if student is not None and sub.student.id != student:
            continue
        found.extend(_ungraded_in(sub))
    return sorted(found)


def half_graded_refusal(parts: list[UngradedPart], what: str, force: str) -> str:
    """The message of every command that refuses to let a half-graded grade go:
    ``what`` it refused, the ``parts`` still to grade, and ``force``, how to go
    ahead anyway."""
    lines = [f"refused: {what}: {len(parts)} part(s) still need grading by hand "
             f"(Formgrader > Manual Grading), listed as student, problem set, part:"]
    lines.extend(f"  {p}" for p in parts)
    lines.append(f"Grade them first, or {force}.")
    return "\n".join(lines)


def create_tables(gb: Gradebook) -> None:
    """Add the course's own tables (extensions, submission times) to the gradebook
    where missing.

    Graders working at once may all find a table missing and all create it; the
    ones that lose that race get the database's error and go on with the tables
    still missing.  Each lost race means another grader made a table, so the
    race is lost at most once per table; an error beyond that is a real one."""
    for _ in range(len(_Base.metadata.tables)):
        try:
            _Base.metadata.create_all(gb.engine)
            return
        except DBAPIError:
            if not set(_Base.metadata.tables) - set(inspect(gb.engine).get_table_names()):
                return
    _Base.metadata.create_all(gb.engine)
