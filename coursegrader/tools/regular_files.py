"""Copy a folder a student controls, taking only its regular files.

A student owns the folder they hand in (the exchange's inbound folder) and can
put anything in it: a symbolic link to the instructor's solutions or the course
secret, a hard link, a named pipe that blocks a reader, a device. Copying it
with ``shutil.copytree`` as the instructor follows such links and copies what
they point to. :func:`copy_regular_files` instead walks the folder through
file descriptors: every folder and file is opened relative to its parent's
descriptor with ``O_NOFOLLOW`` (so a link is never followed, even one swapped
in after it was looked at), and what was opened is checked with ``fstat``
before a byte is read. A link (symbolic or hard), or anything that is not a
regular file or folder, is skipped and reported; so are names excluded by the
course's patterns and files over the size limits.
"""

import fnmatch
import os
import stat
from dataclasses import dataclass, field

__all__ = ["CopyReport", "copy_regular_files"]

_CHUNK = 1 << 20
MAX_DEPTH = 16  # folders nested deeper are skipped
#: Files taken from one folder; the rest are skipped (a problem set's submission
#: is a notebook and a few files: thousands of them only slow its grading down).
MAX_FILES = 500
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class CopyReport:
    """What :func:`copy_regular_files` took and skipped (paths relative to ``src``)."""

    taken: list = field(default_factory=list)     # [relative path]
    skipped: list = field(default_factory=list)   # [(relative path, why)]
    bytes: int = 0


def _kind(mode):
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def copy_regular_files(src, dest, *, exclude=(), include=(), max_file_bytes=None,
                       max_total_bytes=None, file_mode=0o644, dir_mode=0o755):
    """Copy the regular files under folder ``src`` to ``dest`` (created here).

    ``exclude`` and ``include`` are file-name globs as nbgrader's
    ``CourseDirectory.ignore`` and ``include`` (a name matching ``exclude`` is
    skipped, a file matching no ``include`` glob is skipped when any is given).
    Returns a :class:`CopyReport`; raises ``ValueError`` when ``src`` itself is
    a link or not a folder.
    """
    report = CopyReport()
    try:
        top = os.open(src, _DIR_FLAGS)
    except OSError as exc:
        raise ValueError(f"src: {src} is not a folder that can be opened without "
                         f"following a link ({exc.strerror})") from None
    try:
        os.mkdir(dest, dir_mode)
        _copy_dir(top, dest, "", report, exclude, include, max_file_bytes,
                  max_total_bytes, file_mode, dir_mode)
    finally:
        os.close(top)
    return report


def _copy_dir(dir_fd, dest, rel, report, exclude, include, max_file, max_total, fmode,
              dmode):
    for name in sorted(os.listdir(dir_fd)):
        path = f"{rel}{name}"
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:   # bytes no later step could name or show
            report.skipped.append((path.encode("utf-8", "backslashreplace").decode(),
                                   "its name is not UTF-8"))
            continue
        if any(fnmatch.fnmatch(name, glob) for glob in exclude):
            report.skipped.append((path, "excluded by CourseDirectory.ignore"))
            continue
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError as exc:
            report.skipped.append((path, f"cannot be read ({exc.strerror})"))
            continue
        if stat.S_ISDIR(mode) and path.count("/") >= MAX_DEPTH:
            report.skipped.append((path, f"a folder nested deeper than {MAX_DEPTH}"))
        elif stat.S_ISDIR(mode):
            try:
                sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                report.skipped.append((path, f"cannot be opened ({exc.strerror})"))
                continue
            try:
                os.mkdir(os.path.join(dest, name), dmode)
                _copy_dir(sub, os.path.join(dest, name), path + "/", report, exclude,
                          include, max_file, max_total, fmode, dmode)
            finally:
                os.close(sub)
        elif not stat.S_ISREG(mode):
            report.skipped.append((path, _kind(mode)))
        elif include and not any(fnmatch.fnmatch(name, glob) for glob in include):
            report.skipped.append((path, "not matched by CourseDirectory.include"))
        elif len(report.taken) >= MAX_FILES:
            report.skipped.append((path, f"over the limit of {MAX_FILES} files"))
        else:
            _copy_file(dir_fd, name, os.path.join(dest, name), path, report, max_file,
                       max_total, fmode)


def _copy_file(dir_fd, name, target, path, report, max_file, max_total, fmode):
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:   # ELOOP: it became a link since it was looked at
        report.skipped.append((path, f"cannot be opened without following a link "
                                     f"({exc.strerror})"))
        return
    try:
        info = os.fstat(fd)
        why = None
        if not stat.S_ISREG(info.st_mode):
            why = _kind(info.st_mode)
        elif info.st_nlink != 1:
            why = "a hard link (the file has other names)"
        elif max_file is not None and info.st_size > max_file:
            why = f"larger than {max_file} bytes"
        elif max_total is not None and report.bytes + info.st_size > max_total:
            why = f"over the limit of {max_total} bytes for the whole folder"
        if why:
            report.skipped.append((path, why))
            return
        os.set_blocking(fd, True)
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                      | os.O_CLOEXEC, fmode)
        remaining = info.st_size   # never more than fstat said, should the file grow
        try:
            while remaining > 0:
                chunk = memoryview(os.read(fd, min(_CHUNK, remaining)))
                if not chunk:
                    break
                remaining -= len(chunk)
                while chunk:
                    chunk = chunk[os.write(out, chunk):]
        finally:
            os.close(out)
        report.bytes += info.st_size - remaining
        report.taken.append(path)
    finally:
        os.close(fd)
