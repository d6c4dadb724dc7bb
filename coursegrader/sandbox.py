"""The sandbox: where student code runs -- its policy and its ``bwrap`` command.

Every run of a student's code -- the notebook's own run in a kernel
(:mod:`coursegrader.runners.kernel_runner`) and every run of a graded function
on its cases (:mod:`coursegrader.runners.part_runner`) -- is started by
:func:`start` inside Debian's ``bwrap`` with fresh user, mount, PID, network,
IPC, UTS and cgroup namespaces and no capabilities.  What the code sees is an
allowlist (:class:`Policy`, and :func:`bwrap_argv` builds the command):

* read-only: the system's shared libraries (``/usr/lib``), the Python
  interpreter and its standard library, and in ``site-packages`` only the
  distributions graded code may use and what they require (never kernlab,
  scikit-learn, coursegrader or nbgrader); the runner package
  (:mod:`coursegrader.runners`), bound file by file as the package
  ``sandboxrunner``;
* writable: one private ``tmpfs`` of :attr:`Policy.scratch_bytes` at
  ``/tmp``, holding plain-file copies of the submission's files;
* ``/proc`` of its own PID namespace and a minimal ``/dev``; nothing else:
  no home folder, no course folder or repository, no exchange, no host
  ``/tmp`` or ``/run`` (hence no Unix socket to the host), no network
  interface but its own loopback;
* the environment :attr:`Policy.env` and nothing of the grader's;
* resource limits set before ``bwrap`` starts and inherited by every process
  inside (CPU seconds, address space, processes, bytes per file), and a
  cgroup per run capping its processes (``pids``) and its memory (``memory``:
  :attr:`Policy.run_memory_bytes` for all its processes together) where one
  can be made (:func:`run_caps` says how, for the log); the caller caps
  bytes read back and wall-clock time, and :func:`stop` kills the whole
  sandbox (``--die-with-parent`` and the PID namespace take every process
  with it).

The private ``/tmp`` is mounted before the runtime, so that a runtime living
under the host's ``/tmp`` (a virtual environment made there) is not hidden.

Where ``bwrap`` cannot build that sandbox, :func:`probe` says why; the
preprocessors then refuse to grade unless the instructor chose the weaker
``"unconfined"`` mode (same limits, environment and private folder, no
namespaces).
"""

import functools
import os
import re
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field, replace

import coursecheck
from coursecheck.policy import FORBIDDEN_IMPORTS

from . import runners

__all__ = ["Policy", "JUDGE", "KERNEL", "MODES", "PART_RUNNER", "KERNEL_RUNNER", "probe",
           "prepare", "start", "stop", "describe", "run_caps", "bwrap_argv", "check_mode",
           "ConfinementUnavailable"]

MODES = ("bubblewrap", "unconfined")
RUNNER = "sandboxrunner"           # package name of the runner modules inside the sandbox
_RUNNER_DIR = "/opt/runner"
_SCRATCH = "/tmp"
_RUNNER_SOURCE = os.path.dirname(os.path.abspath(runners.__file__))
_CHECK = os.path.dirname(os.path.abspath(coursecheck.__file__))
# The runner modules, by their name inside the sandbox: the runner package and
# the two student-side modules it shares with the notebook's check.
_RUNNER_MODULES = {name: os.path.join(_RUNNER_SOURCE, name)
                   for name in sorted(os.listdir(_RUNNER_SOURCE)) if name.endswith(".py")}
_RUNNER_MODULES.update({name: os.path.join(_CHECK, name) for name in ("serial.py", "policy.py")})
#: the runners :func:`start` can start
PART_RUNNER = "part_runner"
KERNEL_RUNNER = "kernel_runner"


def _fixed_env(**extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": _SCRATCH, "TMPDIR": _SCRATCH, "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": _SCRATCH + "/.config/matplotlib",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra)
    return tuple(sorted(env.items()))


@dataclass(frozen=True)
class Policy:
    """What a sandbox holds and how much it may use."""

    packages: tuple = ("numpy", "scipy", "cvxpy")   # importable distributions (+ requirements)
    scratch_bytes: int = 256 * 1024**2               # the writable tmpfs at /tmp
    cpu_seconds: int = 120                           # CPU time per process
    memory_bytes: int = 4 * 1024**3                  # address space per process
    run_memory_bytes: int = 4 * 1024**3              # the whole run's (a cgroup)
    processes: int = 64                              # processes of the sandbox's user at once
    file_bytes: int = 64 * 1024**2                   # largest file a process may write
    output_bytes: int = 16 * 1024**2                 # bytes the grader reads back
    env: tuple = field(default_factory=_fixed_env)


#: graded functions: numerical packages only
JUDGE = Policy()
#: the notebook's run: also Jupyter's kernel machinery (never nbgrader)
KERNEL = Policy(packages=("numpy", "scipy", "cvxpy", "matplotlib", "ipykernel", "nbclient"),
                memory_bytes=8 * 1024**3, run_memory_bytes=8 * 1024**3, processes=128,
                env=_fixed_env(JUPYTER_RUNTIME_DIR=_SCRATCH + "/.jupyter/runtime",
                               JUPYTER_CONFIG_DIR=_SCRATCH + "/.jupyter",
                               JUPYTER_DATA_DIR=_SCRATCH + "/.jupyter/data",
                               JUPYTER_PLATFORM_DIRS="1", IPYTHONDIR=_SCRATCH + "/.ipython"))


class ConfinementUnavailable(RuntimeError):
    """The sandbox cannot be built here (the message says what is missing)."""


def _forbidden():
    return FORBIDDEN_IMPORTS


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


@functools.lru_cache(maxsize=None)
def _site_entries(packages):
    """Top-level entries of site-packages that make up ``packages`` and their requirements."""
    from packaging.requirements import Requirement
    site = sysconfig.get_paths()["purelib"]
    dists = _distributions(site)
    forbidden = {_norm(n) for n in _forbidden()} | {"scikit-learn", "kernel-methods"}
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
    bad = set(_forbidden())
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
    """(interpreter, [read-only files and folders of the Python runtime], stdlib, site)."""
    exe = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    paths = [exe]
    ldlib = sysconfig.get_config_var("INSTSONAME") or ""
    if ldlib and os.path.exists(os.path.join(libdir, ldlib)):
        paths.append(os.path.join(libdir, ldlib))
    paths.append(stdlib)
    return exe, paths, stdlib


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
             "--size", str(policy.scratch_bytes), "--tmpfs", _SCRATCH]
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
    for name, path in _RUNNER_MODULES.items():
        argv += ["--ro-bind", path, f"{_RUNNER_DIR}/{RUNNER}/{name}"]
    for fd, name in files:
        argv += ["--file", str(fd), f"{_SCRATCH}/{name}"]
    argv += ["--chdir", _SCRATCH, "--"]
    return argv + [python if command[0] == "python" else command[0]] + list(command[1:])


def _cgroup_limits(policy, version):
    """{controller: [(file, value), ...]} of a run's cgroup (cgroup ``version`` 1 or 2).

    RLIMIT_NPROC does not bind root (nor counts per sandbox) and RLIMIT_AS
    counts per process, so the number of processes and the memory of a whole
    run are capped by the kernel's ``pids`` and ``memory`` controllers.
    """
    memory = str(policy.run_memory_bytes)
    if version == 1:   # the first file must be written first (memsw >= limit)
        mem = [("memory.limit_in_bytes", memory),
               ("memory.memsw.limit_in_bytes", memory)]
    else:
        mem = [("memory.max", memory), ("memory.swap.max", "0")]
    return {"pids": [("pids.max", str(policy.processes))], "memory": mem}


def _cgroup_bases():
    """[(controller, folder under which this process may make a cgroup, version)]."""
    try:
        with open("/proc/self/cgroup") as f:
            own = dict((ctrl, path) for _, ctrl, path in
                       (line.rstrip("\n").split(":", 2) for line in f))
        with open("/proc/self/mounts") as f:
            mounts = [line.split() for line in f]
    except (OSError, ValueError):
        return []
    bases = []
    for _, where, fstype, options, *_ in mounts:
        for ctrl in ("pids", "memory"):
            if fstype == "cgroup" and ctrl in options.split(",") and ctrl in own:
                bases.append((ctrl, where + own[ctrl], 1))
            elif fstype == "cgroup2" and "" in own:
                base = where + own[""]
                try:
                    with open(os.path.join(base, "cgroup.subtree_control")) as f:
                        if ctrl in f.read().split():
                            bases.append((ctrl, base, 2))
                except OSError:
                    pass
    return bases


def _run_cgroups(policy):
    """Fresh cgroups capping a run's processes and memory: ({controller: path}, paths).

    One cgroup per hierarchy (cgroup v1 has one per controller, v2 one for
    all); a controller that cannot be used here is missing from the answer.
    """
    capped, paths, made = {}, [], {}
    for ctrl, base, version in _cgroup_bases():
        if ctrl in capped:
            continue
        path = made.get(base)
        if path is None:
            name = f"coursegrader-{os.getpid()}-{secrets.token_hex(6)}"
            path = os.path.join(base, name)
            try:
                os.mkdir(path, 0o700)
            except OSError:
                continue
            made[base] = path
            paths.append(path)
        try:
            for name, value in _cgroup_limits(policy, version)[ctrl]:
                if name.startswith("memory.memsw") or name == "memory.swap.max":
                    if not os.path.exists(os.path.join(path, name)):
                        continue   # no swap accounting: the memory limit alone
                with open(os.path.join(path, name), "w") as f:
                    f.write(value)
            capped[ctrl] = path
        except OSError:
            pass
    for path in paths:
        if path not in capped.values():
            _remove_cgroup(path)
    return capped, [p for p in paths if p in capped.values()]


def _remove_cgroup(path):
    """Kill whatever is left in the cgroup ``path`` and remove it."""
    for _ in range(200):
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.01)


def _limits(policy, cgroups=(), pids_capped=False):
    def apply():
        for path in cgroups:
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        limits = [(resource.RLIMIT_AS, policy.memory_bytes),
                  (resource.RLIMIT_CPU, policy.cpu_seconds),
                  (resource.RLIMIT_FSIZE, policy.file_bytes), (resource.RLIMIT_CORE, 0)]
        if not pids_capped and os.getuid() != 0:
            limits.append((resource.RLIMIT_NPROC, policy.processes))
        for which, value in limits:
            resource.setrlimit(which, (value, value))
    return apply


def _python(module):
    """Command that runs ``sandboxrunner.<module>.main()`` in isolated mode."""
    boot = (f"import sys; sys.path.insert(0, {_RUNNER_DIR!r}); "
            f"from {RUNNER}.{module} import main; main()")
    return ["python", "-I", "-c", boot]


@functools.lru_cache(maxsize=None)
def _probe_once():
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    try:
        out = subprocess.run(bwrap_argv(replace(JUDGE, packages=()),
                                        ["python", "-I", "-c", "print(6 * 7)"]),
                             capture_output=True, timeout=60, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be started ({exc})"
    if out.returncode != 0 or out.stdout.strip() != b"42":
        err = out.stderr.decode("utf-8", "replace").strip()[-300:]
        return ("bwrap cannot build the sandbox here (it needs user namespaces, or root, or a "
                f"setuid bwrap): {err or 'exit status %d' % out.returncode}")
    return ""


def probe():
    """``""`` when the bubblewrap sandbox works here, else what is missing."""
    return _probe_once()


@functools.lru_cache(maxsize=None)
def run_caps():
    """How the processes and the memory of a run are capped here (for the log)."""
    trial = replace(JUDGE, processes=1, run_memory_bytes=64 * 1024**2)
    capped, paths = _run_cgroups(trial)
    for path in paths:
        _remove_cgroup(path)
    if "pids" in capped:
        procs = "a pids cgroup per run"
    elif os.getuid() != 0:
        procs = "RLIMIT_NPROC (shared by the grader's user)"
    else:
        procs = ("NOTHING (no pids cgroup can be made here and RLIMIT_NPROC does not "
                 "bind root)")
    if "memory" in capped:
        memory = "a memory cgroup per run"
    else:
        memory = ("RLIMIT_AS per process only (no memory cgroup can be made here, so "
                  "a run may use that much in each of its processes)")
    return f"process count capped by {procs}; memory capped by {memory}"


def prepare():
    """Work out, once per process, what starting a sandbox needs.

    The mounts of the Python runtime and of each policy's packages, whether
    bubblewrap works here and how runs are capped are all cached for the
    process's life; a grading worker calls this while it starts, so that its
    first submission costs no more than the others.
    """
    for policy in (JUDGE, KERNEL):
        bwrap_argv(policy, ["python"])
    if not probe():
        run_caps()


def describe(mode):
    """One line for the autograde log: which confinement grades the submissions."""
    if mode == "bubblewrap":
        return ("confinement: bubblewrap sandbox (new user, mount, PID, network, IPC and UTS "
                "namespaces, read-only allowlisted runtime, private size-capped /tmp, "
                "fixed environment, resource limits; " + run_caps() + ")")
    return ("confinement: UNCONFINED mode chosen by the instructor (separate processes with "
            "resource limits, a fixed environment and a private folder, but no namespaces: "
            "student code can read what the grader's user can read and reach the network)")


def check_mode(mode):
    """Raise ConfinementUnavailable unless ``mode`` can be used here."""
    if mode not in MODES:
        raise ValueError(f"confinement must be one of {MODES}, got {mode!r}")
    if mode == "bubblewrap":
        why = probe()
        if why:
            raise ConfinementUnavailable(
                f"refusing to run student code: {why}. Install bubblewrap, or opt into the "
                "weaker mode with CONFINEMENT = 'unconfined' in nbgrader_config.py "
                "(student code then runs with the grader's rights).")


class Run:
    """A started sandbox: ``proc`` (its stdin/stdout pipes), host folder and cgroups."""

    def __init__(self, proc, private, cgroups):
        self.proc, self.private, self.cgroups = proc, private, cgroups


def _scratch_taken():
    """Names directly in the sandbox's /tmp taken by the runtime's mounts (if there)."""
    exe, runtime, _ = _runtime()
    paths = list(runtime) + [sys.executable, sys.prefix, _site_entries(())[0]]
    return {os.path.relpath(p, _SCRATCH).split(os.sep)[0] for p in paths
            if p.startswith(_SCRATCH + os.sep)}


def _open_files(folder, limit_bytes, limit_count=64):
    """Open the regular files directly in ``folder`` (no links, no subfolders)."""
    fds, total = [], 0
    if folder is None:
        return fds
    taken = _scratch_taken()
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if len(fds) >= limit_count:
            break
        try:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue   # a link (refused) or unreadable
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or total + st.st_size > limit_bytes \
                or entry.name.startswith(".") or entry.name in taken:
            os.close(fd)
            continue
        total += st.st_size
        fds.append((fd, entry.name))
    return fds


def start(policy, module, *, mode="bubblewrap", files_from=None, control=False):
    """Start ``sandboxrunner.<module>.main()`` confined by ``policy``; return a :class:`Run`.

    The process's stdin and stdout are pipes to the caller; stderr goes
    nowhere, or with ``control`` to a third pipe (the runner's own channel).
    ``files_from`` is a folder whose regular files are copied into the scratch
    folder (links and subfolders are left out).
    """
    check_mode(mode)
    files = _open_files(files_from, policy.scratch_bytes // 2)
    private = None
    capped, cgroups = _run_cgroups(policy)
    try:
        if mode == "bubblewrap":
            argv, cwd, env = bwrap_argv(policy, _python(module), files), None, {}
        else:
            private = tempfile.mkdtemp(prefix="coursegrader-run-")
            argv, cwd, env = _unconfined(policy, module, files, private)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE if control else subprocess.DEVNULL,
                                cwd=cwd, env=env,
                                pass_fds=[fd for fd, _ in files], start_new_session=True,
                                preexec_fn=_limits(policy, cgroups, "pids" in capped))
    except BaseException:
        if private:
            shutil.rmtree(private, ignore_errors=True)
        for path in cgroups:
            _remove_cgroup(path)
        raise
    finally:
        for fd, _ in files:
            os.close(fd)
    return Run(proc, private, cgroups)


def _unconfined(policy, module, files, private):
    runner = os.path.join(private, "runner", RUNNER)
    work = os.path.join(private, "work")
    os.makedirs(runner)
    os.makedirs(work)
    for name, path in _RUNNER_MODULES.items():
        shutil.copyfile(path, os.path.join(runner, name))
    for fd, name in files:
        with open(os.path.join(work, name), "wb") as out:
            out.write(os.pread(fd, os.fstat(fd).st_size, 0))
    env = {k: v.replace(_SCRATCH, work) for k, v in policy.env}
    boot = _python(module)
    boot[-1] = boot[-1].replace(repr(_RUNNER_DIR), repr(os.path.dirname(runner)))
    return [sys.executable] + boot[1:], work, env


def stop(run):
    """Kill everything the run started and remove its private folder."""
    proc = run.proc
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
    proc.wait()
    for path in run.cgroups:
        _remove_cgroup(path)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if pipe:
                pipe.close()
        except OSError:
            pass
    if run.private:
        shutil.rmtree(run.private, ignore_errors=True)
