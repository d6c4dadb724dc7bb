"""The judge's runner: runs a student's code cells, then their function on one case at a time.

It runs inside the sandbox built by :mod:`coursegrader.confine` (there it is
the module ``sandboxrunner.sandbox``, next to ``serial`` and ``landlock``),
once per submission, and grades each part in a child process of its own
(forked before any student code runs; see :func:`main`).  For each part the
grader writes on its stdin a header, its length in bytes on one line and then
the JSON::

    {"cells": [source, ...], "func": "name"}

then, after each answer, the next case as one JSON line::

    {"case": i, "args": encoded args}          (coursecheck.serial encoding)

and after the last answer the end marker ``{"end": true}``.  It reads one
JSON line per case from the runner's stdout (a private copy of the
descriptor; the code's own stdout and stderr go to /dev/null)::

    {"case": i, "value": encoded result}   or   {"case": i, "error": "message"}

and, on the runner's stderr (a channel no part can write to), one line
``{"part_end": status}`` once the part's process has ended, or
``{"part_end": status, "tampered": true}`` when that process left bytes of
its own in the grader's pipe (then the runner ends, so that nothing a part
wrote is ever read as the next part's header).

A part's process holds only its stdin (the grader's pipe, which it reads),
its private answer channel and /dev/null: every other descriptor is closed
when it is forked, and the runner makes itself non-dumpable before any part
starts, so that ``/proc/<runner>/fd`` (and its memory and environment) cannot
be opened by a part, which holds no capability in the sandbox's user
namespace.  A pipe can be reopened for writing through ``/proc/self/fd/0``;
what a part writes that way is found, unread, once it has ended.

A case is sent only once the previous one is answered, so the process never
holds the cases still to come, and never the expected answers (those stay in
the grader).

The boundary is the sandbox (nothing of the course, the grader or the network
exists in it).  Inside, where the Linux kernel offers Landlock, the process
also gives up writing outside the part's own folder; and an audit hook turns the
usual attempts -- importing kernlab, scikit-learn or coursegrader, starting
processes, signalling others, loading native code -- into a message that
says what is not allowed, instead of a confusing failure.  The hook is only
that message, never the boundary: Python's ``open`` audit event does not say
which directory a relative path given with ``dir_fd=`` is relative to, and
many calls raise no event at all (see :func:`install_guard`).
"""

import json
import os
import shutil
import signal
import sys
import tempfile

from .policy import FORBIDDEN_IMPORTS, forbidden_import_message

__all__ = ["FORBIDDEN_MODULES", "ESCAPE_MODULES", "main"]

FORBIDDEN_MODULES = FORBIDDEN_IMPORTS  # one list, shared with the notebook's check
# Modules that reach around audit hooks: foreign function interfaces, the raw
# process launcher (no audit event), subinterpreters (their own, hook-free
# audit state) and CPython's test helpers.
ESCAPE_MODULES = ("cffi", "_cffi_backend", "_posixsubprocess", "_xxsubinterpreters",
                  "_xxinterpchannels", "_testcapi", "_testinternalcapi", "_testmultiphase",
                  "_testsinglephase", "_testbuffer", "_testimportmultiple")

_BLOCKED_EVENTS = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.fork", "os.forkpty", "pty.spawn", "os.startfile",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata",
    "ctypes.call_function", "ctypes.addressof",
    "socket.connect", "socket.bind", "socket.sendto",
    "sys.settrace", "sys.setprofile", "sys.remote_exec",
    "os.setuid", "os.setgid", "os.chroot",
    "signal.pthread_kill", "sqlite3.connect", "sqlite3.connect/handle",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "resource.setrlimit", "resource.prlimit", "os.chdir", "os.chroot",
})
# Events whose first argument is a path that is modified.
_PATH_WRITE_EVENTS = frozenset({
    "os.remove", "os.rmdir", "os.rename", "os.truncate", "os.chmod", "os.chown",
    "os.link", "os.symlink", "os.utime", "os.mkdir", "shutil.rmtree",
    "shutil.copyfile", "shutil.move", "shutil.copytree",
})


class Forbidden(PermissionError):
    """Raised inside the sandbox for an operation the grader does not allow."""


def _real(path):
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.realpath(os.path.abspath(path))


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _module_dirs(names):
    import importlib.util
    dirs = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        for loc in list(spec.submodule_search_locations or []) or [spec.origin]:
            if loc:
                dirs.append(_real(os.path.dirname(loc) if spec.submodule_search_locations is None
                                  else loc))
    return dirs


def course_folders():
    """The nbgrader course that holds this package (source notebooks, gradebook), if any."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return [here] if os.path.exists(os.path.join(here, "nbgrader_config.py")) else []


def _at(path, dir_fd):
    """``path`` made absolute, against ``dir_fd`` when one is given."""
    if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(os.fsdecode(path)):
        try:
            base = os.readlink(f"/proc/self/fd/{dir_fd}")
        except OSError:
            base = "/nonexistent"     # unknown: judged as outside every allowed folder
        return _real(os.path.join(base, os.fsdecode(path)))
    return _real(path)


# Events that carry a ``dir_fd``: {event: ((path index, dir_fd index), ...)}.
_DIR_FD_ARGS = {"os.mkdir": ((0, 2),), "os.remove": ((0, 1),), "os.rmdir": ((0, 1),),
                "os.rename": ((0, 2), (1, 3)), "os.chmod": ((0, 2),),
                "os.chown": ((0, 3),), "os.utime": ((0, 4),),
                "os.link": ((0, 2), (1, 3)), "os.symlink": ((0, None), (1, 2))}


def install_guard(forbidden, allowed, writable):
    """Install the audit hook (permanent for the life of the process).

    It gives a clear message for the usual attempts; it is not the boundary.
    Events that carry a ``dir_fd`` (``os.mkdir``, ``os.remove``, ``os.rename``,
    ...) are judged on the path resolved against it.  The ``open`` event of
    ``os.open(path, flags, dir_fd=fd)`` carries no ``dir_fd``: a relative path
    is judged against the current folder, so such an open may pass the hook,
    and only the sandbox and Landlock then decide what it reaches.
    """
    forbidden = tuple(_real(p) for p in forbidden)
    allowed = tuple(_real(p) for p in allowed)
    writable = tuple(_real(p) for p in writable)
    my_pid = os.getpid()

    def readable(path):
        if _under(path, allowed):
            return True
        return not _under(path, forbidden)

    def other_process(path):
        parts = path.split(os.sep)
        return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() \
            and parts[2] != str(my_pid)

    def hook(event, args):
        if event == "import":
            name = args[0]
            if type(name) is not str:  # a str subclass could lie about its text
                raise Forbidden("importing a module named by a non-str is not allowed")
            root = name.split(".")[0]
            if root in FORBIDDEN_MODULES or root in ESCAPE_MODULES:
                raise Forbidden(forbidden_import_message(name))
        elif event == "open":
            path, mode = args[0], args[1]
            if isinstance(path, int):
                return
            real = _real(path)
            if not readable(real) or other_process(real):
                raise Forbidden(f"opening {path} is not allowed in graded code")
            flags = args[2] if len(args) > 2 else 0
            writing = (mode is not None and any(c in str(mode) for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT
                                                    | os.O_TRUNC | os.O_APPEND))
            if writing and not _under(real, writable):
                raise Forbidden(f"writing {path} is not allowed in graded code")
        elif event in _PATH_WRITE_EVENTS:
            pairs = _DIR_FD_ARGS.get(event, ((0, None), (1, None)))
            for index, fd_index in pairs:
                if index >= len(args):
                    continue
                p = args[index]
                has_fd = fd_index is not None and fd_index < len(args)
                dir_fd = args[fd_index] if has_fd else None
                if isinstance(p, (str, bytes, os.PathLike)) \
                        and not _under(_at(p, dir_fd), writable):
                    raise Forbidden(f"{event} on {p} is not allowed in graded code")
        elif event in ("os.kill", "os.killpg"):
            if args[0] not in (my_pid, 0):
                raise Forbidden("signalling other processes is not allowed in graded code")
        elif event in _BLOCKED_EVENTS:
            raise Forbidden(f"{event} is not allowed in graded code")
        elif event == "sys.addaudithook":
            raise Forbidden("adding audit hooks is not allowed in graded code")

    sys.addaudithook(hook)


class _Shell:
    """Stands in for IPython's get_ipython(): magics and shell commands do nothing."""

    def run_line_magic(self, *args, **kwargs):
        return None

    def run_cell_magic(self, *args, **kwargs):
        return None

    def system(self, *args, **kwargs):
        return None

    getoutput = system

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


END = b'{"end": true}'   # the grader's line that ends a part's cases


def _read_header(fd):
    """The next part's header, sent as ``<length>\\n<JSON>``; None at the end of the input.

    Read byte by byte and then to the exact length, so that nothing after the
    header (the part's cases, meant for its process alone) is ever read here.
    """
    digits = b""
    while not digits.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte or len(digits) > 20:
            return None
        digits += byte
    size, data = int(digits), b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


_PR_SET_DUMPABLE = 4


def make_private():
    """Make this process non-dumpable: no process without capabilities may open its
    ``/proc/<pid>`` entries (descriptors, memory, environment), its children included.

    Inherited by forked children, reset by ``exec``.  Raises OSError if the kernel
    refuses.
    """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _unread(fd):
    """How many bytes wait unread in the pipe ``fd``."""
    import array
    import fcntl
    import termios
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count, True)
    return count[0]


def _input_left_alone(fd):
    """True unless something other than the end marker was left in the grader's pipe.

    Called once a part's process (and all it started) is gone: the grader has
    then written nothing after the end marker, so anything else there was
    written by the part through ``/proc/self/fd/0``.  At most the end marker
    (shorter than any case) is read.
    """
    left = _unread(fd)
    if left == 0:
        return True
    if left != len(END) + 1:
        return False
    return os.read(fd, left) == END + b"\n"


def main():
    """Start once per submission; grade each part in a fresh forked child.

    The runner imports what every part needs, then reads one header per part
    and forks a child that confines itself and runs the part in a folder of
    its own.  The child reads the part's cases from stdin and answers on the
    private channel until the end marker; the runner only waits for it, then
    kills whatever it started, removes its folder and writes
    ``{"part_end": status}`` (the child's exit status, ``-signal`` if it was
    killed).  The grader sends the next header only after that line, so a
    part never sees another part's cases, and the runner -- whose memory every
    child copies -- never holds a case at all.  Starting Python and importing
    numpy is paid once per submission instead of once per part.
    """
    # Private channels: the parts' answers (stdout) and the runner's own
    # part_end lines (stderr); the student's prints go nowhere.
    make_private()
    out_fd, control = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)

    import numpy  # noqa: F401  (imported before forking, as every notebook needs it)
    from . import serial  # noqa: F401
    try:
        from . import landlock  # noqa: F401
    except ImportError:
        pass

    base = os.getcwd()
    files = sorted(e.name for e in os.scandir(base) if e.is_file(follow_symlinks=False))
    number = 0
    while (header := _read_header(0)) is not None:
        number += 1
        work = os.path.join(base, f".part{number}")
        os.mkdir(work, 0o700)
        for name in files:
            shutil.copyfile(os.path.join(base, name), os.path.join(work, name))
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            _grade_part(header, work, out_fd, control)   # never returns
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        try:
            os.killpg(pid, signal.SIGKILL)     # anything the part started
        except OSError:
            pass
        if header.get("sweep"):     # alone in the sandbox's PID namespace: kill what is left
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)
        clean = _input_left_alone(0)
        end = {"part_end": status} if clean else {"part_end": status, "tampered": True}
        data = (json.dumps(end) + "\n").encode()
        while data:
            data = data[os.write(control, data):]
        if not clean:
            os._exit(3)       # what the part wrote must never be read as a header
    os._exit(0)


def _grade_part(request, work, out_fd, control):
    """In the forked child: confine this process, run the cells, answer the cases."""
    # Only its own descriptors: the grader's pipe (stdin), /dev/null (1, 2) and
    # its answer channel; the runner's channel and anything else are closed.
    del control
    os.closerange(3, out_fd)
    os.closerange(out_fd + 1, os.sysconf("SC_OPEN_MAX"))
    os.chdir(work)
    os.environ.update(HOME=work, TMPDIR=work)
    tempfile.tempdir = work

    from .serial import UnsupportedValue, decode, encode

    dumps, loads, write, os_exit = json.dumps, json.loads, os.write, os._exit
    readline = sys.stdin.buffer.readline

    def emit(record):
        data = (dumps(record, allow_nan=False) + "\n").encode()
        while data:
            n = write(out_fd, data)
            data = data[n:]

    forbidden = list(request.get("forbidden", [])) + _module_dirs(FORBIDDEN_MODULES)
    forbidden += course_folders()
    writable = [work]
    allowed = list(request.get("allowed", [])) + writable
    try:
        from . import landlock
        landlock.restrict(denied=forbidden, writable=allowed)
    except (ImportError, OSError):
        pass  # no Landlock in this kernel: the sandbox alone confines the code
    # The raw process launcher raises no audit event: load it now (so that
    # importing it later is an import of a loaded module) and disable it.
    import _posixsubprocess

    def fork_exec(*args, **kwargs):
        raise Forbidden("starting processes is not allowed in graded code")
    _posixsubprocess.fork_exec = fork_exec
    install_guard(forbidden, allowed, writable)
    for name in [m for m in sys.modules
                 if m.split(".")[0] in FORBIDDEN_MODULES + ESCAPE_MODULES
                 and m != "_posixsubprocess"]:
        del sys.modules[name]

    namespace = {"__name__": "__main__", "get_ipython": _Shell}
    cell_errors = []
    cells, func_name = request["cells"], request["func"]
    del request
    for i, source in enumerate(cells):
        try:
            exec(compile(source, f"<cell {i + 1}>", "exec"), namespace)
        except BaseException as exc:  # a failing cell must not stop grading
            cell_errors.append(f"cell {i + 1}: {type(exc).__name__}: {exc}")
    del cells

    func = namespace.get(func_name)
    while True:
        line = readline()
        if not line or line.rstrip(b"\n") == END:
            break
        message = loads(line)
        i = message["case"]
        if not callable(func):
            hint = f" (a cell failed: {cell_errors[-1]})" if cell_errors else ""
            emit({"case": i, "error": f"the function {func_name} is not defined{hint}"[:500]})
            continue
        try:
            args = decode(message["args"])
            del line, message
            result = func(*args)
        except NotImplementedError:
            emit({"case": i, "error": "not implemented (raises NotImplementedError)"})
            continue
        except BaseException as exc:
            emit({"case": i, "error": f"raised {type(exc).__name__}: {exc}"[:500]})
            continue
        try:
            emit({"case": i, "value": encode(result)})
        except UnsupportedValue as exc:
            emit({"case": i, "error": f"returned an unsupported type: {exc}"[:500]})
        except BaseException as exc:
            emit({"case": i, "error": f"its result could not be sent: {type(exc).__name__}"})
    os_exit(0)


if __name__ == "__main__":
    main()
