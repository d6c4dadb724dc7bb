"""Starting and stopping a sandbox: where student code runs.

Every run of a student's code -- the notebook's own run in a kernel
(:mod:`coursegrader.runners.kernel_runner`) and every run of a graded function
on its cases (:mod:`coursegrader.runners.part_runner`) -- is started by
:func:`start` inside Debian's ``bwrap`` with fresh user, mount, PID, network,
IPC, UTS and cgroup namespaces and no capabilities, the environment
:attr:`~coursegrader.sandbox.policy.Policy.env` and nothing of the grader's.
What the code sees is an allowlist (:mod:`.mounts`), what it may use is
capped (:mod:`.caps`); the caller caps bytes read back and wall-clock time
(:mod:`.channel`), and :func:`stop` kills the whole sandbox
(``--die-with-parent`` and the PID namespace take every process with it).

Where ``bwrap`` cannot build that sandbox, :func:`probe` says why; the
preprocessors then refuse to grade unless the instructor chose the weaker
``"unconfined"`` mode (same limits, environment and private folder, no
namespaces).
"""

import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import replace

from .caps import limits, remove_cgroup, run_caps, run_cgroups
from .mounts import RUNNER, RUNNER_MODULES, bwrap_argv, python_command, runtime_paths
from .policy import JUDGE, KERNEL, MODES, SCRATCH

__all__ = ["ConfinementUnavailable", "Run", "probe", "prepare", "describe", "check_mode",
           "start", "stop"]


class ConfinementUnavailable(RuntimeError):
    """The sandbox cannot be built here (the message says what is missing)."""


@functools.lru_cache(maxsize=None)
def probe():
    """``""`` when the bubblewrap sandbox works here, else what is missing (worked out
    once per process; ``probe.cache_clear()`` forgets it)."""
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
    return {os.path.relpath(p, SCRATCH).split(os.sep)[0] for p in runtime_paths()
            if p.startswith(SCRATCH + os.sep)}


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
    capped, cgroups = run_cgroups(policy)
    try:
        if mode == "bubblewrap":
            argv, cwd, env = bwrap_argv(policy, python_command(module), files), None, {}
        else:
            private = tempfile.mkdtemp(prefix="coursegrader-run-")
            argv, cwd, env = _unconfined(policy, module, files, private)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE if control else subprocess.DEVNULL,
                                cwd=cwd, env=env,
                                pass_fds=[fd for fd, _ in files], start_new_session=True,
                                preexec_fn=limits(policy, cgroups, "pids" in capped))
    except BaseException:
        if private:
            shutil.rmtree(private, ignore_errors=True)
        for path in cgroups:
            remove_cgroup(path)
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
    for name, path in RUNNER_MODULES.items():
        shutil.copyfile(path, os.path.join(runner, name))
    for fd, name in files:
        with open(os.path.join(work, name), "wb") as out:
            out.write(os.pread(fd, os.fstat(fd).st_size, 0))
    env = {k: v.replace(SCRATCH, work) for k, v in policy.env}
    boot = python_command(module, runner_dir=os.path.dirname(runner))
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
        remove_cgroup(path)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if pipe:
                pipe.close()
        except OSError:
            pass
    if run.private:
        shutil.rmtree(run.private, ignore_errors=True)
