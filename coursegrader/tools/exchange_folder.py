"""``make release``'s two ends: the exchange folder exists before, and where each problem set went.

nbgrader's ``release_assignment`` creates a missing exchange folder itself,
owned by whoever runs it (root, on a server) and open to everyone, with
only a log line; the students' environments, looking elsewhere, then find
nothing. ``check`` refuses instead, naming the folder and how to make it;
``released`` says where each problem set was put and how students fetch it.
Through ngshare (the course's JupyterHub, ``KERNEL_COURSE_EXCHANGE=ngshare``)
there is no folder and both only say so.

On the plain folder exchange (no hub), ``check`` also warns when a
registered student's home folder is open to other users (Debian's default
0755): ``nbgrader submit`` keeps each submission's secret in a cache in the
student's home, and a classmate who can read it can open that student's
released feedback.  The course's JupyterHub makes homes 0700.  It warns too
when the exchange is in memory (tmpfs, ramfs): collect dates a hand-in by
its files' change times (``coursegrader/dating.py``), and there a write
through a memory map the student opened before the due date changes a
file without changing its change time (on a disk file system the kernel
sets it at the first such write after the page was written back).

    python -m coursegrader.tools.exchange_folder check
    python -m coursegrader.tools.exchange_folder released ps1 [ps2 ...]
"""

import argparse
import os
import pwd
import re
import stat
import sys
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from ..settings import CourseSettings, private_files
from .command_input import InputError, load_config

__all__ = ["file_system_type", "open_homes", "main"]

#: File systems where a write through a memory map leaves a file's change time as it was.
IN_MEMORY = frozenset({"tmpfs", "ramfs", "hugetlbfs"})


def file_system_type(path):
    """The type of the file system ``path`` is on (``/proc/self/mountinfo``'s name:
    ``ext4``, ``tmpfs``...), or None if no mount holds it."""
    path, best, kind = os.path.realpath(path), "", None
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
        for line in mounts:
            fields, _, after = line.partition(" - ")
            # a space in a mount point is written \040
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields.split()[4])
            inside = path == point or path.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, after.split()[0]
    return kind


def open_homes(students):
    """``[(student, home, mode)]`` for each of ``students`` with a Unix account whose
    home folder other users may enter or list."""
    found = []
    for student in students:
        try:
            home = pwd.getpwnam(student).pw_dir
            mode = stat.S_IMODE(os.stat(home).st_mode)
        except (KeyError, ValueError, OSError):   # no such account, or no name pwd takes
            continue
        if mode & 0o005 and home != "/":
            found.append((student, home, mode))
    return found


def _registered_students(config):
    """The ids of the students in the course's gradebook (none if it does not exist yet)."""
    from nbgrader.api import Gradebook
    coursedir = CourseDirectory(config=config)
    url = coursedir.db_url
    if url.startswith("sqlite:///") and not Path(url[10:].split("?")[0]).is_file():
        return []
    with Gradebook(url, coursedir.course_id) as gb:
        return [s.id for s in gb.students]


def _warn_open_homes(config):
    homes = open_homes(_registered_students(config))
    if not homes:
        return
    listed = ", ".join(f"{s} ({h}, {m:04o})" for s, h, m in homes[:10])
    more = f" and {len(homes) - 10} more" if len(homes) > 10 else ""
    print(f"warning: release: {len(homes)} student(s) have a home folder other users can "
          f"enter or list: {listed}{more}. nbgrader submit keeps each submission's "
          "secret in the student's home (~/.local/share/jupyter/nbgrader_cache), and a "
          "classmate who reads it can open that student's released feedback. Make "
          "students' homes private (e.g. 'chmod 0700 /home/*', and HOME_MODE 0700 in "
          "/etc/login.defs for new accounts), as the course's JupyterHub does.",
          file=sys.stderr)


def _warn_in_memory(root):
    kind = file_system_type(root)
    if kind in IN_MEMORY:
        print(f"warning: release: the exchange folder {root} is on {kind}, in memory: "
              "collect dates each hand-in by its files' change times, and there a "
              "student who opened her submitted file as a memory map before the due "
              "date can change it afterwards without changing its change time. Put "
              "the exchange on a disk file system (ext4, xfs).", file=sys.stderr)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.exchange_folder",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="refuse if the exchange folder does not exist")
    released = sub.add_parser("released", help="say where problem sets were released")
    released.add_argument("assignments", nargs="+")
    args = parser.parse_args(argv)
    try:
        config = load_config()
    except InputError as exc:
        exc.report()
        return 2
    course_id = CourseDirectory(config=config).course_id
    if CourseSettings(config=config).hub_exchange == "ngshare":
        if args.command == "released":
            print(f"released {', '.join(args.assignments)} through ngshare, course "
                  f"{course_id}")
        return 0
    root = Path(config.Exchange.root)
    if args.command == "check":
        if not root.is_dir():
            print(f"error: release: the exchange folder {root} does not exist; nothing "
                  f"was released.\n  Create it, open to every student, e.g. "
                  f"'sudo install -d -m 1777 {root}', or name the one students use "
                  f"(NBGRADER_EXCHANGE, or c.CourseSettings.exchange in "
                  f"nbgrader_config.py); the student package reads the same setting.",
                  file=sys.stderr)
            return 2
        if not CourseSettings(config=config).hub_exchange:
            _warn_open_homes(config)
        _warn_in_memory(root)
        return 0
    for ps in args.assignments:
        where = root / course_id / "outbound" / ps
        if where.is_dir():
            print(f"released {ps} to {where}; students fetch it with: nbgrader "
                  f"fetch_assignment {ps} --course {course_id}")
        else:
            print(f"error: {ps} is not in {where}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
