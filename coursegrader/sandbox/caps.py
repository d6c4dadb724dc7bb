"""How a sandbox's use of the machine is capped: resource limits and a cgroup per run.

Resource limits are set before ``bwrap`` starts and inherited by every process
inside (CPU seconds, address space, processes, bytes per file).  RLIMIT_NPROC
does not bind root (nor counts per sandbox) and RLIMIT_AS counts per process,
so a cgroup per run caps its processes (``pids``) and the memory of all its
processes together (``memory``) where one can be made; :func:`run_caps` says
how runs are capped here, for the log.
"""

import functools
import os
import resource
import secrets
import signal
import time
from dataclasses import replace

from .policy import JUDGE

__all__ = ["run_cgroups", "remove_cgroup", "limits", "run_caps"]


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


def run_cgroups(policy):
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
            remove_cgroup(path)
    return capped, [p for p in paths if p in capped.values()]


def remove_cgroup(path):
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


def limits(policy, cgroups=(), pids_capped=False):
    """The function a run's process calls before ``bwrap``: it joins ``cgroups`` and
    sets the resource limits of ``policy``."""
    def apply():
        for path in cgroups:
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        caps = [(resource.RLIMIT_AS, policy.memory_bytes),
                (resource.RLIMIT_CPU, policy.cpu_seconds),
                (resource.RLIMIT_FSIZE, policy.file_bytes), (resource.RLIMIT_CORE, 0)]
        if not pids_capped and os.getuid() != 0:
            caps.append((resource.RLIMIT_NPROC, policy.processes))
        for which, value in caps:
            resource.setrlimit(which, (value, value))
    return apply


@functools.lru_cache(maxsize=None)
def run_caps():
    """How the processes and the memory of a run are capped here (for the log)."""
    trial = replace(JUDGE, processes=1, run_memory_bytes=64 * 1024**2)
    capped, paths = run_cgroups(trial)
    for path in paths:
        remove_cgroup(path)
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
