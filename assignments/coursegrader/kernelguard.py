"""An audit hook for the kernel that runs a submission during autograding.

The grade never depends on that kernel (see :mod:`coursegrader.preprocessor`),
but the kernel runs the student's code with the grader's rights, so
:class:`coursegrader.preprocessor.SafeExecute` installs this hook at kernel
start-up. It forbids signalling other processes (the grader is the kernel's
parent), starting processes, loading native libraries through ctypes, opening
the gradebook database, and reading or writing the protected folders (the
course folder and the exchange) outside the submission's own folder and the
code of coursegrader and kernlab, which the notebook's checks import.
"""

import os
import sys

__all__ = ["install"]

_BLOCKED = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.fork", "os.forkpty", "pty.spawn", "ctypes.dlopen", "sqlite3.connect",
    "signal.pthread_kill",
})
_PATH_EVENTS = frozenset({
    "open", "os.remove", "os.rmdir", "os.rename", "os.truncate", "os.chmod",
    "os.link", "os.symlink", "os.utime", "os.mkdir", "os.listdir", "os.scandir",
    "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move",
})


def _real(path):
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.realpath(os.path.abspath(path))


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _package_dirs():
    import importlib.util
    dirs = []
    for name in ("coursegrader", "kernlab"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(_real(p) for p in spec.submodule_search_locations)
    return dirs


def install(protected=()):
    """Install the hook; ``protected`` lists folders the code may not touch."""
    from coursegrader.sandbox import course_folders
    protected = tuple(_real(p) for p in list(protected) + course_folders())
    exempt = tuple([_real(os.getcwd())] + _package_dirs())
    my_pid = os.getpid()

    class Forbidden(PermissionError):
        pass

    def hook(event, args):
        if event in ("os.kill", "os.killpg"):
            if args[0] not in (my_pid, 0):
                raise Forbidden("signalling other processes is not allowed during grading")
        elif event in _BLOCKED:
            raise Forbidden(f"{event} is not allowed during grading")
        elif event in _PATH_EVENTS and args and protected:
            for p in args[:2] if event != "open" else args[:1]:
                if isinstance(p, (str, bytes, os.PathLike)):
                    real = _real(p)
                    if _under(real, protected) and not _under(real, exempt):
                        raise Forbidden(f"{event} on {p} is not allowed during grading")

    sys.addaudithook(hook)
