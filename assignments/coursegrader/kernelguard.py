"""Confinement of the kernel that runs a submission during autograding.

The grade never depends on that kernel (see :mod:`coursegrader.preprocessor`),
but the kernel runs the student's code with the grader's rights, so
:class:`coursegrader.preprocessor.SafeExecute` confines it twice:

* it starts the kernel through ``python -m coursegrader.kernelguard POLICY --
  KERNEL-COMMAND``, which, where the Linux kernel offers Landlock (see
  :mod:`coursegrader.landlock`), gives up for good -- for the kernel and every
  process it starts -- reading the protected folders (the course folder and
  the exchange, except the submission's own folder and the code of
  coursegrader and kernlab, which the notebook's checks import), writing
  anywhere but a private temporary folder (the submission's folder is
  read-only, so nothing the kernel leaves behind reaches the sandbox),
  reading other processes' /proc entries and signalling processes outside
  itself, then runs the kernel;
* :func:`install`, run at kernel start-up, adds an audit hook that forbids
  signalling other processes (the grader is the kernel's parent), starting
  processes, loading native libraries through ctypes or cffi, opening SQLite
  databases (the gradebook), reading or writing the protected folders outside
  the exempt ones, reading other processes' /proc entries, and writing
  outside the temporary folder.
"""

import json
import os
import sys
import tempfile

__all__ = ["install", "main", "KERNEL_MEMORY"]

KERNEL_MEMORY = 8 * 1024**3  # bytes of address space for the kernel

_BLOCKED = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.fork", "os.forkpty", "pty.spawn", "ctypes.dlopen", "sqlite3.connect",
    "sqlite3.connect/handle", "signal.pthread_kill", "resource.setrlimit", "resource.prlimit",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
})
_PATH_EVENTS = frozenset({
    "open", "os.remove", "os.rmdir", "os.rename", "os.truncate", "os.chmod",
    "os.link", "os.symlink", "os.utime", "os.mkdir", "os.listdir", "os.scandir",
    "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move",
})
_WRITE_EVENTS = _PATH_EVENTS - {"open", "os.listdir", "os.scandir"}
_ESCAPE_MODULES = ("cffi", "_cffi_backend", "_xxsubinterpreters", "_xxinterpchannels",
                   "_testcapi", "_testinternalcapi", "_posixsubprocess")


def _real(path):
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.realpath(os.path.abspath(path))


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _package_dirs():
    import importlib.util
    dirs = []
    for name in ("coursegrader", "coursecheck", "kernlab"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(_real(p) for p in spec.submodule_search_locations)
    return dirs


def install(protected=()):
    """Install the hook; ``protected`` lists folders the code may not touch."""
    from coursegrader.sandbox import course_folders
    protected = tuple(_real(p) for p in list(protected) + course_folders())
    exempt = tuple([_real(os.getcwd())] + _package_dirs())
    writable = (_real(tempfile.gettempdir()), "/dev/null")
    my_pid = os.getpid()

    class Forbidden(PermissionError):
        pass

    def writes(event, args):
        if event != "open":
            return event in _WRITE_EVENTS
        mode, flags = args[1], args[2] if len(args) > 2 else 0
        return (mode is not None and any(c in str(mode) for c in "wax+")) or (
            isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT
                                                     | os.O_TRUNC | os.O_APPEND)))

    def hook(event, args):
        if event in ("os.kill", "os.killpg"):
            if args[0] not in (my_pid, 0):
                raise Forbidden("signalling other processes is not allowed during grading")
        elif event == "import":
            if type(args[0]) is not str or args[0].split(".")[0] in _ESCAPE_MODULES:
                raise Forbidden(f"importing {args[0]} is not allowed during grading")
        elif event in _BLOCKED:
            raise Forbidden(f"{event} is not allowed during grading")
        elif event in _PATH_EVENTS and args:
            paths = args[:2] if event != "open" else args[:1]
            for p in paths:
                if not isinstance(p, (str, bytes, os.PathLike)):
                    continue
                real = _real(p)
                parts = real.split(os.sep)
                if len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() \
                        and parts[2] != str(my_pid):
                    raise Forbidden(f"{event} on {p} is not allowed during grading")
                if protected and _under(real, protected) and not _under(real, exempt):
                    raise Forbidden(f"{event} on {p} is not allowed during grading")
                if writes(event, args) and not _under(real, writable):
                    raise Forbidden(f"writing {p} is not allowed during grading")

    sys.addaudithook(hook)
    # The raw process launcher raises no audit event and is already loaded.
    posixsubprocess = sys.modules.get("_posixsubprocess")
    if posixsubprocess is not None:
        def fork_exec(*args, **kwargs):
            raise Forbidden("starting processes is not allowed during grading")
        posixsubprocess.fork_exec = fork_exec


def main(argv=None):
    """``python -m coursegrader.kernelguard POLICY -- COMMAND...``: confine, then run COMMAND.

    POLICY is a JSON object with lists ``denied``, ``readable`` and ``writable``
    (see :func:`coursegrader.landlock.restrict`) and optionally ``memory``, the
    address-space limit in bytes (default :data:`KERNEL_MEMORY`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 3 or argv[1] != "--":
        raise SystemExit("usage: python -m coursegrader.kernelguard POLICY -- COMMAND...")
    policy, command = json.loads(argv[0]), argv[2:]
    import resource
    limit = int(policy.get("memory", KERNEL_MEMORY))
    # a runaway cell cannot take the grader's memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from coursegrader import landlock
    try:
        landlock.restrict(denied=policy.get("denied", []), readable=policy.get("readable", []),
                          writable=policy.get("writable", []), execute=True, network=True)
    except OSError as exc:  # no Landlock: the audit hook of install() is the only guard
        print(f"coursegrader.kernelguard: kernel not confined ({exc})", file=sys.stderr)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
