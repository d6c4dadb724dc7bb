"""The audit hook of a part's process: a clear message for the usual attempts.

Installed by :mod:`.part_runner` in each part's process before any student
code runs, it turns importing kernlab, scikit-learn or coursegrader,
starting processes, signalling others, loading native code and writing
outside the part's folder into a :class:`Forbidden` error that says what is
not allowed, instead of a confusing failure.

It is only that message, never the boundary (but for what reaches around
the audit hooks themselves -- ctypes, trace functions, the modules of
``ESCAPE_MODULES`` -- which it refuses whatever the part's code changes in
the process: see :func:`install_guard`): the boundary is the sandbox
(:mod:`coursegrader.sandbox`) and, where the kernel offers it, Landlock
(:mod:`.landlock`).  Python's ``open`` audit event does not say which folder
a relative path given with ``dir_fd=`` is relative to, and many calls raise
no event at all (see :func:`install_guard`).
"""

import os
import sys

from .from_coursecheck import policy

__all__ = ["FORBIDDEN_MODULES", "ESCAPE_MODULES", "Forbidden", "module_dirs",
           "install_guard"]

# one list, shared with the notebook's check
FORBIDDEN_MODULES = policy.FORBIDDEN_IMPORTS
# Modules that reach around audit hooks: foreign function interfaces, the raw
# process launcher (no audit event), subinterpreters (their own, hook-free
# audit state) and CPython's test helpers.
ESCAPE_MODULES = ("cffi", "_cffi_backend", "_posixsubprocess", "_xxsubinterpreters",
                  "_xxinterpchannels", "_testcapi", "_testinternalcapi",
                  "_testmultiphase", "_testsinglephase", "_testbuffer",
                  "_testimportmultiple")

# Events that reach around the audit hooks themselves (the watch of
# :mod:`.code_origin` among them): raw memory through ctypes, and a trace or
# profile function, which may write into the frames it sees.  Refused by a
# check that nothing the part's code can reach changes (see install_guard).
_REACHING_AROUND = frozenset({
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata",
    "ctypes.call_function", "ctypes.addressof", "sys.settrace", "sys.setprofile",
})
_BLOCKED_EVENTS = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.fork", "os.forkpty", "pty.spawn", "os.startfile",
    "socket.connect", "socket.bind", "socket.sendto",
    "sys.remote_exec",
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



def module_dirs(names):
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
                package = spec.submodule_search_locations is not None
                dirs.append(_real(loc if package else os.path.dirname(loc)))
    return dirs



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

    def messages(event, args):
        if event == "import":
            name = args[0]
            root = name.split(".")[0]
            if root in FORBIDDEN_MODULES:
                raise Forbidden(policy.forbidden_import_message(name))
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
                raise Forbidden("signalling other processes is not allowed in graded "
                                "code")
        elif event in _BLOCKED_EVENTS:
            raise Forbidden(f"{event} is not allowed in graded code")
        elif event == "sys.addaudithook":
            raise Forbidden("adding audit hooks is not allowed in graded code")

    # What reaches around the hooks is refused first, by a function that looks up
    # no name at run time (all it uses is bound here, as default arguments) and
    # refuses changes to its own code or defaults: the part's code can rebind
    # the names of this module, and reach the functions above through a
    # traceback, but not this.
    def hook(event, args, _escapes=frozenset(ESCAPE_MODULES), _reaching=_REACHING_AROUND,
             _Forbidden=Forbidden, _type=type, _str=str, _partition=str.partition,
             _id=id, _own=0, _messages=messages):
        if event == "import":
            name = args[0]
            if _type(name) is not _str:   # a str subclass could lie about its text
                raise _Forbidden("importing a module named by a non-str is not allowed")
            if _partition(name, ".")[0] in _escapes:
                raise _Forbidden("importing " + name + " is not allowed in graded code")
        elif event in _reaching:
            raise _Forbidden(event + " is not allowed in graded code")
        elif event == "object.__setattr__" and _id(args[0]) == _own:
            raise _Forbidden("changing the grader's own functions is not allowed in graded "
                             "code")
        _messages(event, args)

    hook.__defaults__ = hook.__defaults__[:-2] + (id(hook), messages)
    sys.addaudithook(hook)
