"""What a sandbox shows of the machine: the allowlist of mounts, as a ``bwrap`` command.

Read-only: the system's shared libraries (``/usr/lib``), the Python
interpreter and its standard library, and in ``site-packages`` only the
distributions a :class:`~coursegrader.sandbox.policy.Policy` names and what
they require -- never a distribution that installs a module graded code may
not import (kernlab, scikit-learn, coursegrader, coursecheck, nbgrader, the
course's own distribution, whatever its name); the runner package
(:mod:`coursegrader.runners`) and the two student-side modules it shares,
bound file by file as the package ``sandboxrunner``.  Writable: one private
``tmpfs`` at ``/tmp``, holding plain-file copies of the submission's files.
``/proc`` of its own PID namespace and a minimal ``/dev``; nothing else.

The private ``/tmp`` is mounted before the runtime, so that a runtime living
under the host's ``/tmp`` (a virtual environment made there) is not hidden.
"""

import functools
import os
import re
import sys
import sysconfig

import coursecheck
from coursecheck.policy import FORBIDDEN_IMPORTS

from .. import runners
from .policy import SCRATCH

__all__ = ["RUNNER", "RUNNER_DIR", "RUNNER_MODULES", "PART_RUNNER", "KERNEL_RUNNER",
           "bwrap_argv", "python_command", "runtime_paths", "forbidden_distributions"]

RUNNER = "sandboxrunner"           # package name of the runner modules inside the sandbox
RUNNER_DIR = "/opt/runner"
_RUNNER_SOURCE = os.path.dirname(os.path.abspath(runners.__file__))
_CHECK = os.path.dirname(os.path.abspath(coursecheck.__file__))
#: The runner modules, by their name inside the sandbox: the runner package and
#: the two student-side modules it shares with the notebook's check.
RUNNER_MODULES = {name: os.path.join(_RUNNER_SOURCE, name)
                  for name in sorted(os.listdir(_RUNNER_SOURCE)) if name.endswith(".py")}
RUNNER_MODULES.update({name: os.path.join(_CHECK, name) for name in ("serial.py", "policy.py")})
#: the runners a sandbox can start
PART_RUNNER = "part_runner"
KERNEL_RUNNER = "kernel_runner"


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=None)
def _distributions(site):
    """{normalised name: distribution} of the packages installed in ``site`` (read once)."""
    from importlib import metadata
    dists = {}
    for d in metadata.distributions(path=[site]):
        dists.setdefault(_norm(d.metadata["Name"] or ""), d)
    return dists


@functools.lru_cache(maxsize=None)
def _top_entries(site, name):
    """The top-level entries of site-packages that distribution ``name`` installed."""
    return tuple(f.parts[0] for f in _distributions(site)[name].files or [])


def _top_modules(site, name):
    """The top-level modules distribution ``name`` installs (editable installs included)."""
    declared = _distributions(site)[name].read_text("top_level.txt")
    if declared:
        return set(declared.split())
    return {top.split(".")[0] for top in _top_entries(site, name)}


@functools.lru_cache(maxsize=None)
def forbidden_distributions(site):
    """The distributions in ``site`` that install a module graded code may not import."""
    return frozenset(name for name in _distributions(site)
                     if _top_modules(site, name) & set(FORBIDDEN_IMPORTS))


@functools.lru_cache(maxsize=None)
def _site_entries(packages):
    """Top-level entries of site-packages that make up ``packages`` and their requirements."""
    from packaging.requirements import Requirement
    site = sysconfig.get_paths()["purelib"]
    dists = _distributions(site)
    forbidden = forbidden_distributions(site)
    todo, seen = [_norm(p) for p in packages], set()
    while todo:
        name = todo.pop()
        if name in seen or name in forbidden or name not in dists:
            continue
        seen.add(name)
        for text in dists[name].requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_norm(req.name))
    entries = set()
    bad = set(FORBIDDEN_IMPORTS)
    for name in seen:
        for top in _top_entries(site, name):
            if top in ("..", "__pycache__") or top.endswith(".pth") or top.startswith("__editable"):
                continue
            if top.split(".")[0] in bad:
                continue
            entries.add(top)
    return site, tuple(sorted(e for e in entries if os.path.exists(os.path.join(site, e))))


@functools.lru_cache(maxsize=None)
def _runtime():
    """(interpreter, [read-only files and folders of the Python runtime], stdlib)."""
    exe = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    paths = [exe]
    ldlib = sysconfig.get_config_var("INSTSONAME") or ""
    if ldlib and os.path.exists(os.path.join(libdir, ldlib)):
        paths.append(os.path.join(libdir, ldlib))
    paths.append(stdlib)
    return exe, paths, stdlib


def runtime_paths():
    """The host's paths a sandbox binds for Python: the runtime's and site-packages."""
    exe, runtime, _ = _runtime()
    return list(runtime) + [sys.executable, sys.prefix, _site_entries(())[0]]


def _system_binds():
    args = []
    for d in ("/usr/lib", "/usr/lib64"):
        if os.path.isdir(d) and not os.path.islink(d):
            args += ["--ro-bind", d, d]
    for link in ("/lib", "/lib64"):
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    if os.path.exists("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def bwrap_argv(policy, command, files=()):
    """The ``bwrap`` command line that runs ``command`` (a list) under ``policy``.

    ``files`` are ``(fd, name)`` pairs: open descriptors of regular files copied
    into the scratch folder as plain files (``bwrap --file``).
    """
    exe, runtime, stdlib = _runtime()
    site, entries = _site_entries(policy.packages)
    argv = ["bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv"]
    for key, value in policy.env:
        argv += ["--setenv", key, value]
    # The private /tmp first: the runtime may live under the host's /tmp (a
    # virtual environment made there), and a later mount would hide it.
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(policy.scratch_bytes), "--tmpfs", SCRATCH]
    argv += _system_binds()
    for path in runtime:
        argv += ["--ro-bind", path, path]
    inner_site = site if not site.startswith(stdlib + os.sep) else os.path.join(stdlib, "site-packages")
    argv += ["--size", str(1024**2), "--tmpfs", inner_site]
    python = exe
    if sys.prefix != sys.base_prefix:
        # A virtual environment (e.g. a server's, deploy/install.sh): its interpreter
        # link and pyvenv.cfg, so that Python puts its site-packages on sys.path.
        python = sys.executable
        cfg = os.path.join(sys.prefix, "pyvenv.cfg")
        argv += ["--ro-bind", cfg, cfg, "--symlink", exe, python]
    for entry in entries:
        argv += ["--ro-bind", os.path.join(site, entry), os.path.join(inner_site, entry)]
    argv += ["--remount-ro", inner_site]
    for name, path in RUNNER_MODULES.items():
        argv += ["--ro-bind", path, f"{RUNNER_DIR}/{RUNNER}/{name}"]
    for fd, name in files:
        argv += ["--file", str(fd), f"{SCRATCH}/{name}"]
    argv += ["--chdir", SCRATCH, "--"]
    return argv + [python if command[0] == "python" else command[0]] + list(command[1:])


def python_command(module, runner_dir=RUNNER_DIR):
    """Command that runs ``sandboxrunner.<module>.main()`` in isolated mode, the runner
    package being in ``runner_dir``."""
    boot = (f"import sys; sys.path.insert(0, {runner_dir!r}); "
            f"from {RUNNER}.{module} import main; main()")
    return ["python", "-I", "-c", boot]
