"""Submissions downloaded from a learning-management system as one zip.

``make zip_collect PS=ps1 ZIP=...`` runs ``nbgrader zip_collect`` with the two
plugins of this module (``nbgrader_config.py``):

* :class:`LmsZipExtractor` reads only the LMS's own zip (each zip file in
  ``downloaded/<ps>/archive/``) and takes a member only when its name, at the
  top level of that zip, follows the LMS's naming (``named_regexp``) and
  names a notebook of the problem set or a Python module handed in beside it
  (``helper.py``, which the notebook imports: the folder exchange takes it
  too; a name ``import`` can use, ``müller.py`` too; a module is taken only
  beside a notebook of the problem set from the same student, since alone it
  would replace their earlier submission with one that cannot be graded). The student is the LMS account that
  handed the file in: with the LMS's roster (``roster``: Canvas's gradebook
  CSV, ``make zip_collect ... ROSTER=file.csv``), the account's number in the
  name (a ``user_id`` group) looked up there, so a namesake, or a student who
  renames themself after a classmate, is never taken for anyone else; without
  it, the name's ``student_id`` group, which Canvas builds from the student's
  name, and a name shared by two accounts takes neither (each is named). It never unpacks an archive found inside, and refuses links,
  folders, absolute names, ``..``, names it cannot decode and names with
  control or invisible characters. It caps the bytes of one file, reading no
  more than the cap, and, for each student, the number of their files and
  the bytes those unpack to together (only members named as a notebook of
  the problem set or a module count): a student over a cap has none taken and is
  named, and every classmate is collected whatever comes before them. Two files of
  one student for the same file are resolved by the LMS's timestamp (the
  ``timestamp`` group of ``named_regexp``) where the names carry one;
  otherwise neither is taken, and the rest of the class is collected. What it
  takes goes to ``extracted/<student>/<file>``, listed in
  ``extracted.json`` next to that folder; every member, taken or skipped with
  the reason, goes in the table ``zip_collect.txt`` there, and those skipped
  in ``zip_collect_skipped.json``.
* Each student's submission is dated by what the LMS wrote
  (:mod:`coursegrader.dating`): the time in the member's name (a
  ``timestamp`` group), else the zip entry's time where the LMS writes the
  submission time there (``entry_time_zone``: Canvas does not, its entries
  carry the time the archive was made), and the LMS's late marker (a
  ``late`` group: Canvas's ``LATE_``). A ``timestamp.txt`` in the upload is
  never read (it is neither a notebook of the problem set nor a module).
* :class:`LmsZipCollector` hands nbgrader exactly what ``extracted.json``
  lists (student, file, timestamp, and the route's ``timestamp.txt`` and
  ``submission_time.json``); it reads no file name.

``python -m coursegrader.tools.lms_zip downloaded/ps1`` prints the table and
exits with status 1 when a member was skipped (``make zip_collect`` ends so).
"""

import datetime as dt
import json
import keyword
import os
import re
import stat
import sys
import unicodedata
import zipfile
import zoneinfo
from dataclasses import dataclass
from pathlib import Path

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin
from nbgrader.utils import find_all_notebooks, parse_utc
from traitlets import Integer, Unicode, validate

from .. import dating
from ..gradebook import open_gradebook
from . import lms_roster
from .command_input import InputError

__all__ = ["LmsZipExtractor", "LmsZipCollector", "Member", "plan", "format_table",
           "MANIFEST", "TABLE", "SKIPPED", "main"]

MANIFEST = "extracted.json"   # next to the extracted folder: what was taken
TABLE = "zip_collect.txt"     # next to it too: every member, taken or skipped
SKIPPED = "zip_collect_skipped.json"   # and the members skipped, as data
#: The longest student id taken (nbgrader's gradebook holds 128 characters).
MAX_STUDENT_ID = 128

# The first bytes of the archive formats a member must not be.
_ARCHIVE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00",
                  b"7z\xbc\xaf\x27\x1c", b"Rar!\x1a\x07", b"\x28\xb5\x2f\xfd")
_ARCHIVE_EXT = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".zst",
                ".whl", ".jar")
def _importable(name):
    """Whether ``import <name>`` finds a module handed in as ``<name>.py``: an
    identifier (``helper``, ``müller``) that is no keyword and that Python's
    normalisation of identifiers (NFKC) leaves as it is."""
    return (name.isidentifier() and not keyword.iskeyword(name)
            and unicodedata.normalize("NFKC", name) == name)
_STUDENT_ID = re.compile(r"[^\W_][\w.@+-]*")
_UTF8_FLAG = 0x800


@dataclass
class Member:
    """One member of an LMS zip and what becomes of it."""

    archive: str            # the zip's file name
    name: str               # the member's name as shown (escaped if odd)
    student: str = ""
    user_id: str = ""       # the LMS's number of the account, where the name has one
    file: str = ""          # the notebook or module it is taken as (its name in the folder)
    timestamp: object = None   # datetime (naive UTC) from the LMS's name, or None
    entry_time: object = None  # the zip entry's time (naive UTC), where it is the LMS's
    late: object = None     # the LMS's late marker: True, False, or None (no marker)
    why: str = ""           # why it is skipped; "" when taken
    info: object = None     # its zipfile.ZipInfo


def _shown(name):
    """The name with control and invisible characters escaped, for the table."""
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}"
                   for ch in name)


def _refuse_name(info):
    """Why a member's name cannot be taken, or None."""
    name = info.filename
    if not info.flag_bits & _UTF8_FLAG and not info.orig_filename.isascii():
        return "a name not marked UTF-8 and not ASCII: it cannot be decoded reliably"
    if any(unicodedata.category(ch)[0] == "C" for ch in info.orig_filename + name):
        return "a name with control or invisible characters"
    if "\\" in name or name.startswith("/") or re.match(r"[A-Za-z]:", name):
        return "an absolute name or one with backslashes"
    if ".." in name.split("/"):
        return "a name with '..'"
    if name.endswith("/") or info.is_dir():
        return "a folder"
    if "/" in name:
        return "inside a folder: not at the top level of the LMS's zip"
    return None


def _kind_of(info):
    """Why a member is not a plain file by its Unix mode (a link, a device), or None."""
    if info.create_system != 3:   # no Unix mode recorded
        return None
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return "a symbolic link"
    if kind not in (0, stat.S_IFREG):   # many tools record only the permissions
        return "not a regular file"
    return None


def plan(archives, *, named_regexp, notebooks, max_files, max_file_bytes,
         max_total_bytes, entry_time_zone="", owner_regexp="", accounts=None):
    """Decide which members are taken, from the zips' directories and first bytes.

    ``archives`` is a list of ``(zip file name, zipfile.ZipFile)``;
    ``notebooks`` the notebook file names of the problem set;
    ``entry_time_zone`` the zone of the zip entries' times when they are the
    LMS's submission times ("" when they are not); ``owner_regexp`` the start
    of any member's name naming its student (shown beside a member that is
    not taken, never used to take one). ``accounts`` is ``{LMS user id:
    student id}`` from the LMS's roster
    (:func:`coursegrader.tools.lms_roster.canvas_accounts`), or None to take
    the student from the name. ``max_files`` and
    ``max_total_bytes`` bound each student's files (their number and the
    bytes they unpack to), so that one student's upload fails that student
    alone. Returns every :class:`Member`, in order, with ``why`` empty for
    those to take.
    """
    pattern = re.compile(named_regexp)
    owner = re.compile(owner_regexp) if owner_regexp else None
    if accounts is not None and "user_id" not in pattern.groupindex:
        raise ValueError("LmsZipExtractor.named_regexp has no group user_id: it cannot "
                         "be matched to the LMS's roster")
    members = []
    for archive, zf in archives:
        for info in zf.infolist():
            m = Member(archive=archive, name=_shown(info.filename), info=info)
            members.append(m)
            m.why = _judge(m, info, zf, pattern, notebooks, max_file_bytes,
                           entry_time_zone, accounts)
            if m.why and not m.student and owner:
                m.student = _owner(owner.match(info.filename), accounts)
    if accounts is None:
        _one_account_per_name([m for m in members if not m.why])
    _bound_per_student([m for m in members if not m.why], max_files, max_total_bytes)
    _resolve_duplicates([m for m in members if not m.why])
    _modules_beside_a_notebook([m for m in members if not m.why], notebooks)
    return members


def _owner(found, accounts):
    """The student a member's name shows (never used to take it), or ""."""
    if not found:
        return ""
    groups = found.groupdict()
    if accounts is not None:
        return accounts.get(groups.get("user_id") or "", "")
    student = groups.get("student_id") or ""
    ok = _STUDENT_ID.fullmatch(student) and len(student) <= MAX_STUDENT_ID
    return student if ok else ""


def _judge(m, info, zf, pattern, notebooks, max_file_bytes, entry_time_zone, accounts):
    """Why the member cannot be taken ("" when it can), filling in what its LMS
    name says (student, file, time, late marker) on the way."""
    why = _refuse_name(info) or _kind_of(info)
    if why:
        return why
    name = unicodedata.normalize("NFC", info.filename)
    if name.lower().endswith(_ARCHIVE_EXT):
        return "an archive inside the archive (not unpacked)"
    match = pattern.fullmatch(name)
    if not match:
        return "does not follow the LMS's naming (named_regexp)"
    groups = match.groupdict()
    m.user_id = groups.get("user_id") or ""
    m.student = groups.get("student_id") or ""
    if accounts is not None:
        named = _shown(m.student)
        m.student = accounts.get(m.user_id, "")
        if not m.student:
            return (f"LMS user {_shown(m.user_id) or '(none)'} ({named}) is not a "
                    "student of the roster")
    file_id, ext = groups.get("file_id") or "", groups.get("ext") or ".ipynb"
    m.file = file_id + ext
    if "late" in pattern.groupindex:
        m.late = bool(groups.get("late"))
    if len(m.student) > MAX_STUDENT_ID:
        return (f"a student id of {len(m.student)} characters: longer than "
                f"{MAX_STUDENT_ID}, the gradebook's limit")
    if not _STUDENT_ID.fullmatch(m.student):
        return f"not a student id: {_shown(m.student)!r}"
    if ext == ".py":
        if not _importable(file_id):
            return (f"a module name Python cannot import: {_shown(m.file)!r} (an "
                    "identifier: letters, digits and _, not starting with a digit)")
    elif m.file not in notebooks:
        return (f"not a notebook of the problem set ({', '.join(sorted(notebooks))}) "
                "nor a Python module")
    if groups.get("timestamp"):
        try:
            m.timestamp = dating.check_time(parse_utc(groups["timestamp"]),
                                            "the LMS's time in the name")
        except (ValueError, OverflowError) as exc:
            return f"an LMS timestamp that cannot be read: {groups['timestamp']!r} ({exc})"
    if entry_time_zone:
        try:
            local = dt.datetime(*info.date_time).replace(
                tzinfo=zoneinfo.ZoneInfo(entry_time_zone))
            m.entry_time = dating.check_time(local, "the zip entry's time")
        except (ValueError, OverflowError) as exc:
            return f"a zip entry time that cannot be used ({exc})"
    if _is_archive(zf, info):
        return "an archive inside the archive (not unpacked)"
    if info.file_size > max_file_bytes:
        return f"{info.file_size} bytes unpacked: more than {max_file_bytes}"
    return ""


def _one_account_per_name(candidates):
    """Skip every file of a name that two LMS accounts hand in under (a namesake,
    or a student named after a classmate): without the roster neither can be
    told from the other."""
    users = {}
    for m in candidates:
        if m.user_id:
            users.setdefault(m.student, set()).add(m.user_id)
    for m in candidates:
        shared = sorted(users.get(m.student, ()))
        if len(shared) > 1:
            m.why = (f"the name {m.student} is on files of {len(shared)} LMS accounts "
                     f"(user ids {', '.join(shared)}): none taken; give the LMS's "
                     "roster (ROSTER=) to tell them apart")


def _bound_per_student(candidates, max_files, max_total_bytes):
    """Skip every file of a student whose files are more than ``max_files``
    or unpack to more than ``max_total_bytes`` together: that student is
    collected by hand, every classmate as usual."""
    by_student = {}
    for m in candidates:
        by_student.setdefault(m.student, []).append(m)
    for student, theirs in by_student.items():
        size = sum(m.info.file_size for m in theirs)
        if len(theirs) > max_files:
            why = (f"{len(theirs)} files of {student}: more than the limit of "
                   f"{max_files} a student (LmsZipExtractor.max_files)")
        elif size > max_total_bytes:
            why = (f"{student}'s files unpack to {size} bytes: more than the limit "
                   f"of {max_total_bytes} a student (LmsZipExtractor.max_total_bytes)")
        else:
            continue
        for m in theirs:
            m.why = why + ": none taken, collect it by hand"


def _resolve_duplicates(candidates):
    groups = {}
    for m in candidates:
        groups.setdefault((m.student, m.file), []).append(m)
    for same in groups.values():
        if len(same) == 1:
            continue
        if all(m.timestamp is not None for m in same):
            newest = max(same, key=lambda m: m.timestamp)
            if sum(m.timestamp == newest.timestamp for m in same) == 1:
                for m in same:
                    if m is not newest:
                        m.why = (f"an older submission of {m.file} "
                                 f"(newest: {newest.name})")
                continue
        for m in same:
            m.why = (f"{len(same)} files for {m.student}'s {m.file} and no LMS "
                     "timestamp to choose by: none taken, collect it by hand")


def _modules_beside_a_notebook(candidates, notebooks):
    """Skip the modules of a student none of whose notebooks of the problem set
    is taken: a module alone is no submission, and taking it would replace the
    student's earlier one with a folder that cannot be graded."""
    with_notebook = {m.student for m in candidates if m.file in notebooks}
    for m in candidates:
        if m.student not in with_notebook:
            m.why = (f"a Python module without a notebook of the problem set "
                     f"({', '.join(sorted(notebooks))}) from {m.student}: not taken")


def _is_archive(zf, info):
    """Whether the member's first bytes are those of an archive (reads only those)."""
    try:
        with zf.open(info) as f:
            return f.read(8).startswith(_ARCHIVE_MAGIC)
    except Exception:   # unreadable: found out when it is unpacked
        return False


def _read_capped(zf, info, limit):
    """The member's bytes; ValueError if they exceed ``limit`` (read no further)."""
    with zf.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"unpacks to more than {limit} bytes")
    return data


def format_table(members, notes=()):
    """The table ``make zip_collect`` ends with: one line per member, then ``notes``."""
    rows = [("zip", "member", "student", "file", "taken", "why skipped")]
    rows += [(m.archive, m.name, m.student, m.file, "no" if m.why else "yes", m.why)
             for m in members]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join([cell.ljust(w) for cell, w in zip(row[:5], widths)] + [row[5]])
             for row in rows]
    taken = sum(not m.why for m in members)
    lines += list(notes)
    lines.append(f"{taken} file(s) taken, {len(members) - taken} skipped")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _datings(members):
    """{student: :class:`~coursegrader.dating.Dating`} of the students whose files were
    taken, from what the LMS wrote: the time in the names, else the entries'
    times, and the late marker."""
    out = {}
    for student in sorted({m.student for m in members if not m.why}):
        taken = [m for m in members if not m.why and m.student == student]
        named = [m.timestamp for m in taken if m.timestamp is not None]
        entries = [m.entry_time for m in taken if m.entry_time is not None]
        marks = [m.late for m in taken if m.late is not None]
        late = any(marks) if marks else None
        detail = ", ".join(m.name for m in taken)
        if named:
            found = dating.Dating(dating.Source.LMS_NAME, max(named), late, detail=detail)
        elif entries:
            found = dating.Dating(dating.Source.LMS_ENTRY, max(entries), late, detail=detail)
        elif late is not None:
            found = dating.Dating(dating.Source.LMS_MARKER, None, late, detail=detail)
        else:
            found = dating.Dating(dating.Source.NONE, detail=detail)
        out[student] = found
    return out


class LmsZipExtractor(ExtractorPlugin):
    """Takes the notebooks and modules of the LMS's top-level zip, by the LMS's naming only."""

    named_regexp = Unicode(
        r"(?P<student_id>[^_]+)_(?P<late>LATE_)?(?P<user_id>\d+)_\d+_(?P<file_id>.+?)"
        r"(?:-\d+)?(?P<ext>\.ipynb|\.py)",
        help="Regular expression for the whole name of a member at the top level of "
             "the LMS's zip, with the groups student_id (the name the LMS shows) and "
             "file_id (the file's name without its extension), and optionally ext "
             "(.ipynb for a notebook of the problem set, .py for a Python module "
             "handed in beside it; .ipynb when there is no such group), user_id "
             "(the LMS's number of the account, looked up in the roster), timestamp "
             "(the LMS's submission time) and late (non-empty when the LMS marked the "
             "submission late). The "
             "default is Canvas's <student>_[LATE_]<user id>_<submission id>_<file>"
             "[-<n>].ipynb or .py."
    ).tag(config=True)
    owner_regexp = Unicode(
        r"(?P<student_id>[^_]+)_(?:LATE_)?(?P<user_id>\d+)_\d+_",
        help="Regular expression for the start of the name of any member of the "
             "LMS's zip, with the group student_id (and user_id, as in named_regexp): "
             "the student shown beside a member "
             "that is not taken (an attachment, a misnamed file), so that the "
             "instructor knows whose it is; it never makes a member taken. The "
             "default is Canvas's <student>_[LATE_]<user id>_<submission id>_."
    ).tag(config=True)
    roster = Unicode(
        "", help="Canvas's gradebook CSV (Grades > Export): each file is then its "
                 "student's by the Canvas account in its name (the user_id group), "
                 "looked up under ID, and the student is the SIS Login ID or SIS User "
                 "ID registered in the gradebook. Empty: the student is the name's "
                 "student_id, which Canvas builds from the student's name."
    ).tag(config=True)
    entry_time_zone = Unicode(
        "", help="Time zone (IANA) of the zip entries' times, when the LMS writes each "
                 "file's submission time there; empty (the default) when it does not "
                 "(Canvas writes the time the archive was made). Check your LMS's "
                 "archive before setting it."
    ).tag(config=True)

    @validate("entry_time_zone")
    def _check_zone(self, proposal):
        if proposal["value"]:
            try:
                zoneinfo.ZoneInfo(proposal["value"])
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"LmsZipExtractor.entry_time_zone: unknown time zone "
                                 f"{proposal['value']!r}") from None
        return proposal["value"]
    max_files = Integer(
        100, help="Most notebooks of the problem set and modules one student's files "
                  "in the LMS's zips may hold (the LMS's renamed copies included); a "
                  "student over it has none taken, and the class is collected."
    ).tag(config=True)
    max_file_bytes = Integer(
        50 * 1024**2, help="Most bytes one member may unpack to.").tag(config=True)
    max_total_bytes = Integer(
        200 * 1024**2, help="Most bytes one student's notebooks of the problem set and "
                            "modules may unpack to together; a student over it has none taken, and "
                            "the class is collected."
    ).tag(config=True)

    def _notebooks(self):
        coursedir = self.parent.coursedir
        released = coursedir.format_path(coursedir.release_directory, ".",
                                         coursedir.assignment_id)
        return set(find_all_notebooks(released))

    def _accounts(self):
        """``({LMS user id: student}, notes)`` from the roster, or ``(None, notes)``."""
        if not self.roster:
            return None, ["Students are told apart by the name in each file, which Canvas "
                          "builds from their names: give the roster (make zip_collect "
                          "... ROSTER=canvas.csv) to match each file to its account."]
        if "user_id" not in re.compile(self.named_regexp).groupindex:
            self.log.error("LmsZipExtractor.roster is set but named_regexp has no group "
                           "user_id (the LMS's number of the account) to look up there")
            raise SystemExit(2)
        with open_gradebook(self.parent.config) as gb:
            students = {s.id for s in gb.students}
        try:
            accounts, problems = lms_roster.canvas_accounts(Path(self.roster), students)
        except InputError as exc:
            for problem in exc.problems:
                self.log.error("LmsZipExtractor.roster: %s", problem)
            raise SystemExit(2) from None
        return accounts, [f"roster: {p}" for p in problems] + [
            f"Students matched by their Canvas account in {self.roster} "
            f"({len(accounts)} accounts)."]

    def extract(self, archive_path, extracted_path):
        members, notes = self.collect_members(archive_path, extracted_path)
        text = format_table(members, notes)
        Path(extracted_path).parent.joinpath(TABLE).write_text(text, encoding="utf-8")
        for line in text.splitlines():
            self.log.info("%s", line)

    def collect_members(self, archive_path, extracted_path):
        """Write the members taken to ``extracted_path``, and the manifest; return
        every member and the notes on how students were told apart."""
        accounts, notes = self._accounts()
        archives, members, opened = [], [], []
        for entry in sorted(os.listdir(archive_path)):
            full = os.path.join(archive_path, entry)
            mode = os.lstat(full).st_mode
            if not stat.S_ISREG(mode) or not zipfile.is_zipfile(full):
                members.append(Member(archive=_shown(entry), name="",
                                      why="not a zip file: only the LMS's zip is read"))
                continue
            try:
                zf = zipfile.ZipFile(full)
            except (zipfile.BadZipFile, UnicodeDecodeError, ValueError) as exc:
                members.append(Member(archive=_shown(entry), name="",
                                      why=f"cannot be read as a zip ({exc})"))
                continue
            opened.append(zf)
            archives.append((_shown(entry), zf))
        try:
            members += plan(archives, named_regexp=self.named_regexp,
                            notebooks=self._notebooks(), max_files=self.max_files,
                            max_file_bytes=self.max_file_bytes,
                            max_total_bytes=self.max_total_bytes,
                            entry_time_zone=self.entry_time_zone,
                            owner_regexp=self.owner_regexp, accounts=accounts)
            zips = dict(archives)
            manifest = {}
            for m in members:
                if m.why:
                    continue
                try:
                    data = _read_capped(zips[m.archive], m.info, self.max_file_bytes)
                except Exception as exc:   # a corrupt member: this file only
                    m.why = f"cannot be unpacked ({exc})"
                    continue
                folder = Path(extracted_path, m.student)
                try:
                    folder.mkdir(exist_ok=True)
                    (folder / m.file).write_bytes(data)
                except OSError as exc:   # a name the file system refuses: this file only
                    m.why = f"cannot be written ({exc.strerror})"
                    continue
                manifest[f"{m.student}/{m.file}"] = {
                    "student_id": m.student, "file_id": m.file}
            for student, found in _datings(members).items():
                dating.write(Path(extracted_path, student), found)
                for name in (dating.FILE, dating.TIMESTAMP):
                    if Path(extracted_path, student, name).is_file():
                        manifest[f"{student}/{name}"] = {"student_id": student,
                                                         "file_id": name}
        finally:
            for zf in opened:
                zf.close()
        Path(extracted_path).parent.joinpath(MANIFEST).write_text(
            json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
        Path(extracted_path).parent.joinpath(SKIPPED).write_text(json.dumps(
            [{"zip": m.archive, "member": m.name, "student": m.student, "why": m.why}
             for m in members if m.why],
            indent=1, ensure_ascii=False), encoding="utf-8")
        return members, notes


class LmsZipCollector(FileNameCollectorPlugin):
    """What :class:`LmsZipExtractor` listed in ``extracted.json``; no name is parsed."""

    def collect(self, submitted_file):
        path = Path(submitted_file)
        extracted = path.parents[1]
        listing = extracted.with_name(MANIFEST)
        if not listing.is_file():
            raise ValueError(f"{listing} is missing: LmsZipCollector takes what "
                             "LmsZipExtractor listed (ZipCollectApp.extractor_plugin)")
        manifest = json.loads(listing.read_text(encoding="utf-8"))
        info = manifest.get(f"{path.parent.name}/{path.name}")
        if info is None:
            self.log.warning("Not listed in %s: %s", MANIFEST, submitted_file)
            return None
        return {key: value for key, value in info.items() if value is not None}


def main(argv=None):
    """Print the table of ``zip_collect`` in folder ``argv[0]`` (``downloaded/psN``);
    status 1 when a member was skipped."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m coursegrader.tools.lms_zip downloaded/<ps>", file=sys.stderr)
        return 2
    folder = Path(args[0])
    try:
        table = (folder / TABLE).read_text(encoding="utf-8")
        skipped = json.loads((folder / SKIPPED).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{folder}: no zip_collect was run there ({exc})", file=sys.stderr)
        return 2
    print(table, end="")
    if skipped:
        print(f"{len(skipped)} member(s) of the LMS's zip not taken, each with the reason "
              "above: collect them by hand if they are a student's work", file=sys.stderr)
        counts = {}
        for s in skipped:
            if s.get("student"):
                counts[s["student"]] = counts.get(s["student"], 0) + 1
        if counts:
            print("Students with members not taken: " + ", ".join(
                f"{_shown(name)} ({n})" for name, n in sorted(counts.items())),
                file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
