"""Write what comes in on stdin to a log file of bounded size, rotated.

Usage: log_writer.py PATH [--max-bytes N] [--files K]

``hub.py start`` runs the hub with its stdout and stderr on a pipe to this
program, so everything the hub, its proxy, its services and the users' servers
print lands in ``STATE/hub.log`` as before, but the log never takes more than
K files of N bytes (5 of 100 MB unless told otherwise): when ``PATH`` would pass
N bytes it becomes ``PATH.1`` (``PATH.1`` becomes ``PATH.2``, and so on, the
oldest, ``PATH.<K-1>``, dropped) and a new ``PATH`` is begun. A file is cut at
the end of a line where one falls within it. The log shares its file system with
the hub's database and ngshare's submissions: however much a client makes the
hub write, they keep their room.

The program ends when every writer of the pipe has closed it (the hub and all it
started have ended).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

__all__ = ["FILES", "MAX_BYTES", "RotatingWriter", "main"]

#: The most bytes of one file of the log, and how many files are kept (the current
#: one included): at most 500 MB in all.
MAX_BYTES = 100 * 1000**2
FILES = 5
_CHUNK = 64 * 1024


class RotatingWriter:
    """Appends to ``path``, which holds at most ``max_bytes``; ``files`` files are kept
    (``path``, ``path.1``, ... ``path.<files-1>``)."""

    def __init__(self, path, max_bytes=MAX_BYTES, files=FILES):
        if max_bytes < 1 or files < 1:
            raise ValueError("max_bytes and files must be at least 1")
        self.path, self.max_bytes, self.files = str(path), max_bytes, files
        self.fd = None
        self._open()

    def _open(self):
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self.fd).st_size

    def rotate(self):
        """Begin a new file: the current one becomes ``path.1``, and so on."""
        os.close(self.fd)
        if self.files == 1:
            os.unlink(self.path)
        else:
            for index in range(self.files - 1, 0, -1):
                older = f"{self.path}.{index - 1}" if index > 1 else self.path
                if os.path.exists(older):
                    os.replace(older, f"{self.path}.{index}")
        self._open()

    def _write_all(self, data):
        view = memoryview(data)
        while view:
            done = os.write(self.fd, view)
            view = view[done:]
        self.size += len(data)

    def write(self, data):
        """Append ``data``, rotating first whenever the file would pass its size."""
        while data:
            room = self.max_bytes - self.size
            if len(data) <= room:
                self._write_all(data)
                return
            # what fits, up to the end of its last whole line (or, in a file with
            # nothing yet, as much as fits)
            cut = data.rfind(b"\n", 0, max(room, 0)) + 1 if room > 0 else 0
            if cut == 0 and self.size == 0:
                cut = room
            if cut:
                self._write_all(data[:cut])
                data = data[cut:]
            self.rotate()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    parser.add_argument("--files", type=int, default=FILES)
    args = parser.parse_args(argv)
    # stopping the hub (its session, Ctrl-C) must not stop the log before its last lines
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    writer = RotatingWriter(args.path, args.max_bytes, args.files)
    try:
        while True:
            data = os.read(0, _CHUNK)
            if not data:
                return 0
            writer.write(data)
    finally:
        writer.close()


if __name__ == "__main__":
    sys.exit(main())
