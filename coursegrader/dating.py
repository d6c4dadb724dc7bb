"""When a submission was handed in, from evidence the student cannot write.

Each route a submission takes dates it from what the route itself establishes,
never from what the student wrote:

* **ngshare**, the exchange service: the time the service received it;
* **nbgrader's shared-folder exchange** (``make collect``, the hub's folder
  collect): the last change (``ctime``) of the student's inbound folder and of
  everything in it. The kernel sets an inode's change time to the current
  time whenever the file, its name or its metadata changes, and no
  unprivileged user can set it back (``touch`` and ``utime`` set only the
  access and modification times). A submission can therefore look later than
  it is (changing it after the due date makes it late), never earlier. An
  administrator's ``chmod``, ``chown`` or restore moves ctimes later too, so
  the collector also keeps a ledger of when it first found each folder's
  files (:mod:`coursegrader.tools.first_seen`): the same files, byte for
  byte, are dated from the earlier of the two;
* **an LMS's zip** (``make zip_collect``): the time the LMS wrote into the
  member's name (a ``timestamp`` group of the naming), or the zip entry's time
  where the LMS writes the submission time there, and the LMS's own late
  marker (Canvas's ``LATE_``, written against Canvas's due date).

The student's own ``timestamp.txt`` (and the time in an inbound folder's name)
is kept as ``claimed``, shown beside the route's time, never used.

The collector writes a :class:`Dating` beside the submission
(``submitted/<student>/<ps>/submission_time.json``, :func:`write`) together
with the ``timestamp.txt`` nbgrader reads at autograde (the route's time, or
none). At autograde the preprocessor
:class:`~coursegrader.preprocessors.record_submission_time.RecordSubmissionTime`
keeps the source in the gradebook beside nbgrader's timestamp;
:func:`coursegrader.gradebook.submission_time` returns both, and the export
and the feedback page read them there.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import os
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from . import plain_paths

__all__ = ["Source", "Dating", "FILE", "TIMESTAMP", "EARLIEST", "check_time", "write",
           "read", "collected", "newer_than_collected", "folder_time", "claimed_text"]

#: The collector's account of a submission's time, beside the submission.
FILE = "submission_time.json"
#: The file nbgrader reads a submission's time from (written by the collector;
#: no submitted file may be so named, :mod:`coursegrader.plain_paths`).
TIMESTAMP = plain_paths.TIMESTAMP
#: No submission of this course is older than this (naive UTC).
EARLIEST = dt.datetime(2000, 1, 1)
_CLAIM_CHARS = 120
_MAX_ENTRIES = 10000
_MAX_DEPTH = 32
_VERSION = 1


class Source(str, enum.Enum):
    """Where a submission's time came from."""

    SERVICE = "service"
    FOLDER = "folder"
    FIRST_SEEN = "first_seen"
    LMS_NAME = "lms_name"
    LMS_ENTRY = "lms_entry"
    LMS_MARKER = "lms_marker"
    INSTRUCTOR = "instructor"
    GRADEBOOK = "gradebook"
    NONE = "none"

    @property
    def text(self):
        return _TEXT[self]

    @property
    def gives_time(self):
        """Whether a submission dated this way has a time (else at most a late marker)."""
        return self not in (Source.LMS_MARKER, Source.NONE)


_TEXT = {
    Source.SERVICE: "the time the exchange service (ngshare) received it",
    Source.FOLDER: "the last change (ctime) of the submitted folder and its files, "
                   "which no student can set back",
    Source.FIRST_SEEN: "the time the collector first found these same files in the "
                       "submitted folder (its ledger), earlier than the folder's last "
                       "change (ctime), which moved later without its files changing",
    Source.LMS_NAME: "the time the LMS wrote in the file's name",
    Source.LMS_ENTRY: "the time the LMS wrote on the file in its zip",
    Source.LMS_MARKER: "the LMS's late marker only: its zip holds no submission time",
    Source.INSTRUCTOR: "set by the instructor",
    Source.GRADEBOOK: "nbgrader's gradebook, where it was entered with no record of "
                      "where it came from",
    Source.NONE: "not dated: no collector of the course recorded when it was received",
}


@dataclass(frozen=True)
class Dating:
    """A submission's time (naive UTC, or None), where it came from, and what else is known.

    ``lms_late``: the LMS's own late marker (None where the route has none);
    ``claimed``: what the student's ``timestamp.txt`` said, for a person to
    read, never used; ``detail``: what was looked at (a folder's name, an
    archive member).
    """

    source: Source
    time: dt.datetime | None = None
    lms_late: bool | None = None
    claimed: str | None = None
    detail: str = ""

    def describe(self):
        """One sentence for the export and the feedback page."""
        text = self.source.text
        if self.lms_late is not None:
            text += "; the LMS marked it " + ("late" if self.lms_late else "on time")
        return text

    def to_json(self):
        return {"version": _VERSION, "source": self.source.value,
                "time": self.time.isoformat() if self.time else None,
                "lms_late": self.lms_late, "claimed": self.claimed, "detail": self.detail}

    @classmethod
    def from_json(cls, data):
        """The dating ``data`` describes; ValueError names what is wrong."""
        if type(data) is not dict or data.get("version") != _VERSION:
            raise ValueError(f"a dating: expected an object of version {_VERSION}")
        try:
            source = Source(data.get("source"))
        except ValueError:
            raise ValueError(f"source: {data.get('source')!r} is not one of "
                             f"{[s.value for s in Source]}") from None
        time = data.get("time")
        if time is not None:
            if type(time) is not str:
                raise ValueError("time: expected an ISO date or null")
            time = check_time(dt.datetime.fromisoformat(time), "time")
        for key in ("claimed", "detail"):
            if data.get(key) is not None and type(data.get(key)) is not str:
                raise ValueError(f"{key}: expected a string or null")
        if data.get("lms_late") not in (None, True, False):
            raise ValueError("lms_late: expected true, false or null")
        return cls(source, time, data.get("lms_late"), data.get("claimed"),
                   data.get("detail") or "")


def check_time(value, what, *, now=None):
    """``value`` (naive UTC) if it is a plausible submission time, else ValueError.

    Plausible: not before :data:`EARLIEST` and not more than a day after now
    (clocks differ). Every such time can be shown in every time zone.
    """
    if not isinstance(value, dt.datetime):
        raise ValueError(f"{what}: expected a date and time, got {value!r}")
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    latest = (now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)) \
        + dt.timedelta(days=1)
    if not EARLIEST <= value <= latest:
        raise ValueError(f"{what}: {value.isoformat(' ')} UTC is not a plausible "
                         f"submission time (expected between {EARLIEST:%Y-%m-%d} and "
                         f"{latest:%Y-%m-%d %H:%M} UTC)")
    return value


def write(folder, dating, *, timestamp=True):
    """Write ``dating`` beside the submission in ``folder``, and the ``timestamp.txt``
    nbgrader reads (``timestamp=False``: leave it, when the route wrote it itself).

    ``timestamp.txt`` holds the route's time; where the route has none, the time
    of this collect, which nbgrader needs to return feedback and the course
    never takes for the hand-in time (the source says there is none).
    """
    folder = Path(folder)
    (folder / FILE).write_text(json.dumps(dating.to_json(), indent=1, ensure_ascii=False),
                               encoding="utf-8")
    if not timestamp:
        return
    stamp = folder / TIMESTAMP
    if stamp.is_symlink() or stamp.exists():
        stamp.unlink()
    time = dating.time or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    stamp.write_text(time.strftime("%Y-%m-%d %H:%M:%S.%f") + " UTC", encoding="utf-8")


def read(folder):
    """The :class:`Dating` a collector wrote in ``folder``; None when there is none.

    ValueError names what is wrong with one that cannot be read.
    """
    path = Path(folder) / FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    try:
        return Dating.from_json(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def collected(folder):
    """The collector's account of the submission in ``folder`` as autograde keeps it,
    and why it says the submission is not dated (None when it is): what
    :func:`read` finds, or :attr:`Source.NONE` where no collector of the course
    wrote one (or it cannot be read)."""
    try:
        found = read(folder)
    except ValueError as exc:
        return Dating(Source.NONE, detail=f"not readable: {exc}"[:512]), f"not dated: {exc}"
    if found is None:
        found = Dating(Source.NONE, detail=f"no {FILE} in {folder}")
        return found, found.describe()
    return found, None


def newer_than_collected(folder, time):
    """Whether a submission handed in at ``time`` (naive UTC, as the route dates it)
    is newer than the one collected in ``folder``: True too when that one's time
    was never written or cannot be read, so that a collect with ``--update``
    replaces it."""
    try:
        existing = read(folder)
    except ValueError:
        existing = None
    return existing is None or existing.time is None or time > existing.time


def folder_time(path):
    """The latest change time (ctime, naive UTC) of folder ``path`` and of everything
    under it, links not followed (a link's own change time counts)."""
    latest = os.lstat(path).st_ctime
    seen = 0
    folders = [(path, 0)]          # walked with a list, not by recursion: a folder
    while folders:                 # nested a thousand deep is refused, not a crash
        top, depth = folders.pop()
        if depth > _MAX_DEPTH:
            raise ValueError(f"{path}: folders nested deeper than {_MAX_DEPTH}")
        try:
            entries = list(os.scandir(top))
        except FileNotFoundError:   # removed meanwhile: its folder's ctime moved
            continue
        for entry in entries:
            seen += 1
            if seen > _MAX_ENTRIES:
                raise ValueError(f"{path}: more than {_MAX_ENTRIES} entries")
            try:
                latest = max(latest, entry.stat(follow_symlinks=False).st_ctime)
            except FileNotFoundError:
                continue
            if entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, depth + 1))
    return dt.datetime.fromtimestamp(latest, dt.timezone.utc).replace(tzinfo=None)


def claimed_text(path):
    """What the student's file ``path`` says (its first characters, control
    characters escaped), for a person to read; None when there is none.

    Opened without following a link; only a regular file is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, 4 * _CLAIM_CHARS)
    finally:
        os.close(fd)
    text = raw.decode("utf-8", errors="replace").strip()[:_CLAIM_CHARS]
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}"
                   for ch in text)
