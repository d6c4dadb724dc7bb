"""The collector's ledger: by when each submitted folder's content was first seen.

A folder's change time (ctime) is evidence no student can set back, but an
administrator can move it forward: a ``chmod -R``, ``chown -R`` or restore of
the exchange's ``inbound/`` changes the ctime of every folder in it, and
every submission collected after it would look handed in then. The
collector therefore writes down, for each (student, problem set, inbound
folder, content) it collects, the time by which that content was there (the
folder's ctime read after the copy), in a file of the course folder only the
instructor can write (:data:`LEDGER`, created with mode 0600, ignored by git).
A later collect of the same folder with the same content, byte for byte,
dates it from the earlier of the ledger's time and the folder's ctime; a
folder whose content changed in any way is new content and is dated by its
ctime alone. Nothing a student writes is read for a time: the content is
only compared, as a SHA-256 digest of the collected copy.
"""

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import tempfile

__all__ = ["LEDGER", "Ledger", "digest"]

#: The ledger's file name in the course folder.
LEDGER = "collect_ledger.json"
_VERSION = 1


def digest(folder):
    """SHA-256 of the regular files under ``folder`` (a collected copy): their
    paths and their bytes, in the order of their paths; links not followed."""
    h = hashlib.sha256()
    found = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path):
                found.append(os.path.relpath(path, folder))
    for rel in sorted(found):
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        with open(os.path.join(folder, rel), "rb") as f:
            data = f.read()
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


class Ledger:
    """The ledger of the course folder ``root``: read, kept to the earliest
    time of each entry, written whole under a lock."""

    def __init__(self, root):
        self.path = os.path.join(root, LEDGER)

    @contextlib.contextmanager
    def _locked(self):
        fd = os.open(self.path + ".lock", os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _read(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            raise ValueError(f"{self.path}: not JSON ({exc}); move it away to start "
                             "a new ledger") from None
        if type(data) is not dict or data.get("version") != _VERSION \
                or type(data.get("entries")) is not dict:
            raise ValueError(f"{self.path}: expected a ledger of version {_VERSION}")
        return data["entries"]

    @staticmethod
    def _key(student, assignment, folder, content=None):
        return json.dumps([student, assignment, folder] + ([content] if content else []))

    def earliest(self, student, assignment, folder, content=None):
        """The earliest time (naive UTC) the ledger holds for ``folder`` of
        ``student``'s ``assignment`` with content ``content`` (a :func:`digest`;
        None: with any content), or None."""
        with self._locked():
            entries = self._read()
        if content is not None:
            found = entries.get(self._key(student, assignment, folder, content))
            return dt.datetime.fromisoformat(found) if found else None
        prefix = self._key(student, assignment, folder)[:-1] + ","
        times = [dt.datetime.fromisoformat(v) for k, v in entries.items()
                 if k.startswith(prefix)]
        return min(times) if times else None

    def record(self, student, assignment, folder, content, time):
        """Write that ``folder``'s content ``content`` was there by ``time``
        (naive UTC), unless the ledger holds an earlier time for it."""
        with self._locked():
            entries = self._read()
            key = self._key(student, assignment, folder, content)
            if key in entries and dt.datetime.fromisoformat(entries[key]) <= time:
                return
            entries[key] = time.isoformat()
            fd, tmp = tempfile.mkstemp(prefix=".collect_ledger-",
                                       dir=os.path.dirname(self.path) or ".")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump({"version": _VERSION, "entries": entries}, f, indent=0,
                              ensure_ascii=False)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
