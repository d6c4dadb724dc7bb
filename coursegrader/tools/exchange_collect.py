"""``nbgrader collect`` from the shared-folder exchange: the owner's own folder, its
regular files only, dated by what the student cannot set back.

With nbgrader's shared-folder exchange, a student owns the folder their
submission lands in (``<exchange>/<course>/inbound/<student>+<ps>+<time>+<n>``)
and can change it after ``nbgrader submit``: rewrite its ``timestamp.txt``,
add links, or drop in a folder named after a classmate. nbgrader's own
collect takes the time from the folder's name and from ``timestamp.txt``,
only warns about a folder its named student does not own, stops the whole
class at a name or a ``timestamp.txt`` it cannot parse, and copies with
``shutil.copytree``, which follows links. :class:`NoLinkCollect` instead:

* takes a folder only from the Unix user it is named after (its owner), when
  ``ExchangeCollect.check_owner`` is on (nbgrader's default); any other
  folder is refused, never in place of the named student's own;
* dates each folder by the last change (ctime) of the folder and everything in
  it (:func:`coursegrader.dating.folder_time`), or, where the course's
  first-seen ledger (:mod:`coursegrader.tools.first_seen`) holds an earlier
  time for the same folder with the same files (an administrator's ``chmod
  -R`` moved the ctime), by that; and takes each student's latest; the
  folder's name and ``timestamp.txt`` are never read for a time; what
  ``timestamp.txt`` said is kept beside, as the student's claim;
* copies with :func:`coursegrader.tools.regular_files.copy_regular_files`: a
  link, wherever it points, is skipped and logged, never followed;
* writes the route's time as ``timestamp.txt`` in ``submitted/<student>/<ps>/``
  and its account beside it (:func:`coursegrader.dating.write`);
* collects everyone it can, then fails (a non-zero exit) with the list of the
  folders it refused or could not collect, each named with the reason.

It is selected in ``nbgrader_config.py`` through nbgrader's exchange factory
(``c.ExchangeFactory.collect``), and on the course's JupyterHub for its
shared folder (``deploy/user_nbgrader_config.py``).
"""

import os
import pwd
import shutil
import stat
import tempfile

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import check_mode

from .. import dating
from .first_seen import Ledger, digest
from .regular_files import copy_regular_files

__all__ = ["NoLinkCollect", "service_dating"]


def service_dating(files):
    """The :class:`~coursegrader.dating.Dating` of a submission collected from ngshare,
    from the files its collect writes: the service appends its own time as the
    last ``timestamp.txt`` (base64), after any file of the student's so named."""
    import base64

    from nbgrader.utils import parse_utc
    stamp = next((f for f in reversed(files) if f.get("path") == dating.TIMESTAMP), None)
    if stamp is None:
        return dating.Dating(dating.Source.NONE, detail="ngshare sent no time")
    text = base64.decodebytes(stamp["content"].encode()).decode("utf-8", "replace")
    return dating.Dating(dating.Source.SERVICE,
                         dating.check_time(parse_utc(text), "ngshare's time"))


class NoLinkCollect(ExchangeCollect):
    """nbgrader's folder-exchange collect: the owner's latest folder, regular files only,
    dated by its change time."""

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail("Course not found: {}".format(self.inbound_path))
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail("You don't have read permissions for the directory: {}".format(
                self.inbound_path))
        self.refused = []
        self.ledger = Ledger(self.coursedir.root)
        self.duedate = self._duedate() if self.before_duedate else None
        by_student = {}
        for name in sorted(os.listdir(self.inbound_path)):
            student = self._named_student(name)
            if student is None:
                continue
            try:
                record = self._record(name, student)
            except Exception as exc:   # this folder only, never the class
                self.refused.append(f"{name!r}: refused: {exc}")
                continue
            by_student.setdefault(student, []).append(record)
        self.src_records = [self._choose(records) for records in by_student.values()]

    def _named_student(self, name):
        """The student a folder of inbound/ is named after, if it is one of this
        problem set's (``<student>+<ps>+<time>[+<random>]``), else None."""
        wanted = self.coursedir.student_id or None
        for splits in (3, 2):
            parts = name.rsplit("+", splits)
            if len(parts) == splits + 1 and parts[1] == self.coursedir.assignment_id:
                if parts[0] and (wanted in (None, "*") or parts[0] == wanted):
                    return parts[0]
                return None
        return None

    def _record(self, name, student):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("its name is not UTF-8") from None
        path = os.path.join(self.inbound_path, name)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            raise ValueError("not a folder (a link, or a file)")
        if self.check_owner:
            try:
                owner = pwd.getpwuid(info.st_uid).pw_name
            except KeyError:
                owner = f"user id {info.st_uid}, who has no name"
            if owner != student:
                raise ValueError(f"it is named after {student} but owned by {owner}: a "
                                 f"submission is taken only from its owner (remove it "
                                 f"from inbound/ once you have looked at it)")
        changed = dating.check_time(dating.folder_time(path), "its last change")
        # which of a student's folders is the latest: by when the ledger first saw
        # it, where it did (a chmod -R of inbound/ moves every ctime); the time
        # the submission gets is settled once its files are copied (_collect)
        seen = self.ledger.earliest(student, self.coursedir.assignment_id, name)
        return {"username": student, "filename": name, "changed": changed,
                "timestamp": min(changed, seen) if seen else changed}

    def _duedate(self):
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                return gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def _choose(self, records):
        """The latest of one student's folders (with ``--before-duedate``, the latest
        one on time, if any)."""
        records = sorted(records, key=lambda r: r["timestamp"], reverse=True)
        if self.duedate is not None:
            on_time = [r for r in records if r["timestamp"] <= self.duedate]
            if on_time:
                return on_time[0]
        return records[0]

    def copy_files(self):
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
        for record in self.src_records:
            try:
                self._collect(record)
            except Exception as exc:   # this student's folder only, never the class
                self.refused.append(f"{record['filename']!r}: not collected "
                                    f"({type(exc).__name__}: {exc})")
        if self.refused:
            for line in self.refused:
                self.log.error("%s", line)
            self.fail(f"collect of {self.coursedir.assignment_id}: everyone else was "
                      f"collected; {len(self.refused)} folder(s) of inbound/ were not:\n  "
                      + "\n  ".join(self.refused))

    def _collect(self, record):
        student, assignment = record["username"], self.coursedir.assignment_id
        src = os.path.join(self.inbound_path, record["filename"])
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student,
                                          assignment)
        if os.path.isdir(dest):
            if not (self.update and dating.newer_than_collected(dest, record["changed"])):
                self.log.info("No newer submission to collect: %s %s", student, assignment)
                return
            self.log.info("Updating submission: %s %s", student, assignment)
        else:
            self.log.info("Collecting submission: %s %s", student, assignment)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        # copied and dated beside, then put in place whole: a folder that fails
        # half-way leaves the student's previous submission as it was
        staging = tempfile.mkdtemp(prefix=f".{assignment}-collecting-",
                                   dir=os.path.dirname(dest))
        try:
            os.rmdir(staging)
            self.do_copy(src, staging)
            claimed = dating.claimed_text(os.path.join(staging, dating.TIMESTAMP))
            # a change during the copy counts: the latest change time, read after it
            time = dating.check_time(max(record["changed"], dating.folder_time(src)),
                                     "its last change")
            # these files, byte for byte, were there by the ledger's time, if earlier
            content = digest(staging)
            seen = self.ledger.earliest(student, assignment, record["filename"], content)
            source = dating.Source.FOLDER
            if seen is not None and seen < time:
                time, source = seen, dating.Source.FIRST_SEEN
            found = dating.Dating(source, time, claimed=claimed,
                                  detail=f"inbound/{record['filename']}")
            dating.write(staging, found)
            self.ledger.record(student, assignment, record["filename"], content, time)
            if os.path.isdir(dest):
                shutil.rmtree(dest)
            os.rename(staging, dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.log.info("%s %s handed in %s UTC (%s); its timestamp.txt said %r, not used",
                      student, assignment, time.isoformat(" ", "seconds"),
                      found.describe(), claimed)

    def do_copy(self, src, dest, log=None):
        coursedir = self.coursedir
        try:
            report = copy_regular_files(
                src, dest, exclude=coursedir.ignore, include=coursedir.include,
                max_file_bytes=1000 * coursedir.max_file_size if coursedir.max_file_size
                else None,
                max_total_bytes=1000 * coursedir.max_dir_size if coursedir.max_dir_size
                else None,
                file_mode=0o664 if coursedir.groupshared else 0o644,
                dir_mode=0o2770 if coursedir.groupshared else 0o755)
        except ValueError as exc:
            raise ValueError(f"not collected: {exc}") from None
        for path, why in report.skipped:
            self.log.warning("Skipped %s in %s: %s", path, src, why)
        self.log.info("Collected %d file(s), %d byte(s), from %s", len(report.taken),
                      report.bytes, src)
