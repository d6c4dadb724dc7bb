"""The course's calendar and late policy, set in ``nbgrader_config.py``.

``CourseCalendar.time_zone`` is the zone in which instructors write due dates
and extensions and in which every page and export shows them (the gradebook
keeps UTC, as nbgrader does). ``LatePolicy`` says what a late submission
loses; the penalty is worked out from the student's own due date and the
submission's timestamp whenever grades are exported or feedback is written,
so moving a due date or granting an extension needs no grading run.
"""

from __future__ import annotations

import datetime as dt
import math
import zoneinfo

from traitlets import Enum, Float, Integer, Unicode, validate
from traitlets.config import Configurable

__all__ = ["CourseCalendar", "LatePolicy", "TIME_FORMAT"]

#: How due dates and extensions are written: ``2026-10-05 23:59:00``.
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
#: Due dates and extensions are written within these years (any zone shows them).
EARLIEST, LATEST = dt.datetime(2000, 1, 1), dt.datetime(2100, 1, 1)
DAY = 86400.0


class CourseCalendar(Configurable):
    """The time zone of the course's due dates."""

    time_zone = Unicode(
        "UTC",
        help="IANA time zone (e.g. 'Europe/Berlin') in which due dates and extensions "
             "are written and shown.").tag(config=True)

    @validate("time_zone")
    def _check_zone(self, proposal):
        try:
            zoneinfo.ZoneInfo(proposal["value"])
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"CourseCalendar.time_zone: unknown time zone "
                             f"{proposal['value']!r}") from None
        return proposal["value"]

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)

    def parse(self, text: str) -> dt.datetime:
        """``YYYY-MM-DD HH:MM:SS`` in the course's zone -> naive UTC (the gradebook's).

        Raises ``ValueError`` saying what was expected; also for a time the zone's
        clocks show twice or skip when they change (which moment was meant is not
        said, and a due date a guess would move by an hour).
        """
        try:
            local = dt.datetime.strptime(text.strip(), TIME_FORMAT)
        except ValueError:
            raise ValueError(f"{text!r} is not a date of the form YYYY-MM-DD HH:MM:SS"
                             ) from None
        if not EARLIEST <= local <= LATEST:
            raise ValueError(f"{text!r} is not in the years {EARLIEST.year} to "
                             f"{LATEST.year - 1}")
        aware = local.replace(tzinfo=self.zone)
        if aware.utcoffset() != aware.replace(fold=1).utcoffset():
            # the zone's clocks change here: the time is shown twice, or never
            back = aware.astimezone(dt.timezone.utc).astimezone(self.zone)
            if back.replace(tzinfo=None) != local:
                raise ValueError(f"{text!r} never happens in {self.time_zone}: the clocks "
                                 "skip that hour; write a time outside it")
            raise ValueError(f"{text!r} happens twice in {self.time_zone}: the clocks go "
                             "back over that hour; write a time outside it")
        return aware.astimezone(dt.timezone.utc).replace(tzinfo=None)

    def show(self, utc: dt.datetime | None) -> str:
        """A gradebook time (naive UTC) in the course's zone, the zone named."""
        if utc is None:
            return ""
        try:
            local = utc.replace(tzinfo=dt.timezone.utc).astimezone(self.zone)
        except (OverflowError, ValueError):   # at the ends of the calendar: shown in UTC
            return f"{utc.isoformat(' ', 'seconds')} UTC"
        return f"{local.strftime(TIME_FORMAT)} {self.time_zone}"


class LatePolicy(Configurable):
    """What a problem set handed in after the student's due date loses."""

    per_day = Float(
        0.10, min=0.0, max=1.0,
        help="Fraction of the points taken off for each day or part of a day "
             "late.").tag(config=True)
    zero_after_days = Integer(
        5, min=0,
        help="A submission more than this many days late scores zero.").tag(config=True)
    of = Enum(
        ["points_possible", "score"], default_value="points_possible",
        help="What per_day is a fraction of: the problem set's points possible, or "
             "the score the submission earned. The penalty never exceeds the "
             "score.").tag(config=True)

    def days_late(self, seconds_late: float) -> int:
        """Days or parts of a day late (0 when on time)."""
        return math.ceil(max(0.0, seconds_late) / DAY)

    def penalty(self, score: float, max_score: float, seconds_late: float) -> float:
        """Points taken off ``score`` (out of ``max_score``) for ``seconds_late``."""
        days = self.days_late(seconds_late)
        if days == 0 or score <= 0:
            return 0.0
        if seconds_late > self.zero_after_days * DAY:
            return float(score)
        base = max_score if self.of == "points_possible" else score
        return float(min(score, round(self.per_day * days * base, 6)))
