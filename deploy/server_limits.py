"""Each user's server in cgroups of its own: a cap on its memory, its processes and
its CPU.

Every user's server, and everything it starts (kernels, terminals, their
children), runs as one Unix user on the hub's machine. Without a cap, one
student's notebook that fills the memory, or a fork bomb in her terminal,
starves the machine: the kernel's OOM killer then picks any process (a
classmate's kernel, the hub itself), and no process can be started at all.
And the scheduler shares the CPU between processes (or their sessions), not
between users: 200 spinning processes of hers, each its own session, made a
classmate's login take 3 to 7 s instead of 0.06 s. So the hub (root) makes,
for each server, a ``memory``, a ``pids`` and a ``cpu`` cgroup under its own,
sets their limits and moves the server's process into them between fork and
exec, before it becomes its user. Every server's cpu group has the same
weight, so the CPU is shared between servers however many processes each
runs, and a cap (a student's: one CPU), so one server never takes more than
its cap even from an idle machine's other users. Every process the
server starts is born inside them and cannot leave: the groups and their files
are root's, and moving a process needs write access to the ``cgroup.procs`` of
the group it moves to. A server that goes over its memory has a process of its
own killed (the largest: the kernel that allocated), never another user's.

Both cgroup versions are handled: v1 (one hierarchy per controller:
``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes`` where swap is
accounted, ``pids.max``, ``cpu.shares``, ``cpu.cfs_period_us`` and
``cpu.cfs_quota_us``) and v2 (``memory.max``, ``memory.swap.max``,
``pids.max``, ``cpu.weight``, ``cpu.max``), in the hub's own cgroup where it delegates the controller to its
children, else at the top of the hierarchy. Where a controller can be used in
neither, :func:`describe` says so for the hub's log; the number of processes
then falls back to ``RLIMIT_NPROC`` (which counts every process of the user,
and does not bind root); the CPU has no such fallback.

What outlives a server's processes outlives its groups too, and is memory no
cap holds once the groups are gone: her files in shared memory
(:func:`remove_shared_memory`), and System V shared memory segments,
semaphores and message queues, and POSIX message queues, which stay in the
kernel after the last process that used them exits (unless it removed them,
and ``kernel.shm_rmid_forced`` is 0 by default). So the hub also puts each
server, between fork and exec, in an IPC namespace of its own
(:func:`own_ipc_namespace`): what she makes there is hers alone (she cannot
see or attach a classmate's, nor the hub's or its database's), and the kernel
frees it all with the namespace once her last process exits, which removing
her groups makes sure of.

The course's grading sandbox caps its runs the same way
(``coursegrader/sandbox/caps.py``); the hub's environment holds no course
code, so this module stands alone.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import time

__all__ = ["CONTROLLERS", "SHARED_MEMORY", "make", "join", "remove", "remove_all",
           "remove_shared_memory", "own_ipc_namespace", "ipc_namespace_refused",
           "describe", "raise_machine_limit", "raise_file_max", "raise_pid_max"]

CONTROLLERS = ("memory", "pids", "cpu")
#: Folders in memory that every user may write (tmpfs): what a user's server
#: leaves there outlives the server and its group, and is memory no cap holds.
SHARED_MEMORY = ("/dev/shm",)
#: The prefix of every group this module makes (one per user: a server's).
PREFIX = "kernel-course-"
#: The weight of every server's cpu group (the kernel's default for a group: v1
#: ``cpu.shares``, v2 ``cpu.weight``), written so that no server has more.
CPU_WEIGHT = {1: "1024", 2: "100"}
#: The period, in microseconds, over which a cpu group's cap is counted: a server
#: with a cap of ``c`` CPUs runs at most ``c`` times this in each.
CPU_PERIOD = 100_000
#: The v1 file that makes a memory group charge (and cap) its TCP socket buffers.
TCP_LIMIT = "memory.kmem.tcp.limit_in_bytes"
#: unshare(2)'s flag for a new IPC namespace (os.CLONE_NEWIPC from Python 3.12).
CLONE_NEWIPC = 0x08000000
#: unshare(2) of the C library, looked up once, in the hub: the process between
#: fork and exec only calls it.
_unshare = ctypes.CDLL(None, use_errno=True).unshare


def _limits(ctrl, version, memory_bytes, processes, cpus):
    """[(file, value, required)] of a group of ``ctrl``: the first files first (in v1
    memory+swap may not be set below memory)."""
    if ctrl == "pids":
        return [("pids.max", str(processes), True)]
    if ctrl == "cpu":
        quota = None if cpus is None else max(1000, round(cpus * CPU_PERIOD))
        if version == 1:
            return [("cpu.shares", CPU_WEIGHT[1], True),
                    ("cpu.cfs_period_us", str(CPU_PERIOD), True),
                    ("cpu.cfs_quota_us", str(-1 if quota is None else quota), True)]
        return [("cpu.weight", CPU_WEIGHT[2], True),
                ("cpu.max", f"{'max' if quota is None else quota} {CPU_PERIOD}", True)]
    if version == 1:
        # v1 charges TCP socket buffers to a group only once its kmem.tcp limit is
        # set: without it, loopback connections she never reads held 512 MiB past
        # a 64 MiB cap, out of the machine's TCP pool (v2 charges them to memory.max)
        return [("memory.limit_in_bytes", str(memory_bytes), True),
                ("memory.memsw.limit_in_bytes", str(memory_bytes), False),
                (TCP_LIMIT, str(memory_bytes), False)]
    return [("memory.max", str(memory_bytes), True), ("memory.swap.max", "0", False)]


def _delegates(folder, ctrl):
    """Whether the v2 group ``folder`` enables ``ctrl`` for its children."""
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as f:
            return ctrl in f.read().split()
    except OSError:
        return False


def bases(proc="/proc/self"):
    """{controller: (folder under which a server's group is made, cgroup version)},
    read from the ``cgroup`` and ``mounts`` files of ``proc`` (this process's)."""
    try:
        with open(os.path.join(proc, "cgroup")) as f:
            own = {ctrl: path for _, ctrls, path in
                   (line.rstrip("\n").split(":", 2) for line in f)
                   for ctrl in ctrls.split(",")}
        with open(os.path.join(proc, "mounts")) as f:
            mounts = [line.split() for line in f]
    except (OSError, ValueError):
        return {}
    found = {}
    for _, where, fstype, options, *_ in mounts:
        for ctrl in CONTROLLERS:
            if ctrl in found:
                continue
            if fstype == "cgroup" and ctrl in options.split(",") and ctrl in own:
                found[ctrl] = (where + own[ctrl].rstrip("/"), 1)
            elif fstype == "cgroup2" and "" in own:
                for folder in (where + own[""].rstrip("/"), where):
                    if _delegates(folder, ctrl):
                        found[ctrl] = (folder, 2)
                        break
    return found


def group_name(user):
    """The name of ``user``'s groups: the prefix and the user name (a Unix name)."""
    if not re.fullmatch(r"[a-z_][a-z0-9_.-]{0,63}", user):
        raise ValueError(f"server_limits: user {user!r} is not a Unix user name")
    return PREFIX + user


def make(user, memory_bytes, processes, found=None, cpus=None):
    """Fresh groups for ``user``'s server, limits set: ({controller: folder},
    {controller: why it is not capped}).

    A group left by an earlier server of the user is emptied (its processes
    killed) and made again. ``memory_bytes`` or ``processes`` None: not capped.
    ``cpus``: the CPUs the server may use at most (1.5: one and a half), None:
    no cap; its cpu group is made either way, with the weight of every other
    server's.  ``found``: the result of :func:`bases` (by default, this
    process's)."""
    wanted = {"memory": memory_bytes, "pids": processes, "cpu": cpus}
    found = bases() if found is None else found
    groups, missing = {}, {}
    for ctrl in CONTROLLERS:
        if wanted[ctrl] is None and ctrl != "cpu":   # an equal share even uncapped
            missing[ctrl] = "no limit set"
            continue
        if ctrl not in found:
            missing[ctrl] = f"no {ctrl} cgroup can be made here (no hierarchy offers it)"
            continue
        base, version = found[ctrl]
        folder = os.path.join(base, group_name(user))
        try:
            # v2 has one folder for both controllers: made and emptied once
            if folder not in groups.values():
                remove(folder)
                os.mkdir(folder, 0o755)
            for name, value, required in _limits(ctrl, version, memory_bytes,
                                                 processes, cpus):
                path = os.path.join(folder, name)
                if name == TCP_LIMIT:
                    why = _write_tcp_limit(path, value)
                    if why:
                        missing["tcp"] = why
                    continue
                if not required and not os.path.exists(path):
                    continue   # no swap accounting: the memory limit alone holds
                with open(path, "w") as f:
                    f.write(value)
        except OSError as e:
            missing[ctrl] = f"{folder}: {e.strerror or e}"
            if folder not in groups.values():
                remove(folder)
            continue
        groups[ctrl] = folder
        if ctrl == "memory" and version == 2 and _no_socket_accounting():
            missing["tcp"] = "the kernel was booted with cgroup.memory=nosocket"
    return groups, missing


def _no_socket_accounting(cmdline="/proc/cmdline"):
    """Whether v2 memory groups leave socket buffers uncharged (a boot option)."""
    try:
        with open(cmdline) as f:
            words = f.read().split()
    except OSError:
        return False
    return any("nosocket" in word.partition("=")[2].split(",")
               for word in words if word.startswith("cgroup.memory="))


def _write_tcp_limit(path, value):
    """Set a v1 group's TCP buffer limit: why it could not be, or None."""
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    return None


def join(groups):
    """Move the calling process into ``groups`` (between fork and exec, as root)."""
    pid = str(os.getpid())
    for folder in dict.fromkeys(groups.values()):
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(pid)


def remove(folder, attempts=200):
    """Kill every process left in the group ``folder`` and remove it (nothing if absent)."""
    for _ in range(attempts):
        try:
            with open(os.path.join(folder, "cgroup.procs")) as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.rmdir(folder)
            return
        except OSError:
            time.sleep(0.01)


def remove_all(user):
    """Remove ``user``'s groups wherever this hub makes them, killing what is in them."""
    for folder in dict.fromkeys(os.path.join(base, group_name(user))
                                for base, _ in bases().values()):
        remove(folder)


def remove_shared_memory(user, roots=SHARED_MEMORY):
    """Remove what ``user`` owns in ``roots`` (files, links, emptied folders): the
    paths it could not remove, with why ([] when all went).

    A file in a tmpfs is memory: while the server runs it counts against the
    server's memory group, but it outlives the server, and a fresh group each
    start let a student who stopped and started her server keep 2 GB more
    each time, until the machine ran out.  So the hub removes her files there
    whenever it removes her groups.

    The walk is a loop, not a recursion, so no depth of folders (a chain of
    thousands she made) stops it, and it holds two folders open at any depth:
    it goes down by opening a folder found in the one open (never a link, never
    another file system) and back up by ``..``, checked to be the folder it came
    from.  It enters only her own folders: another student who kept moving
    folders of his own while the hub walked made it start again from the top
    until it gave up, leaving her files.  Where she moved a folder of hers
    meanwhile (her processes are stopped first), the walk starts again from the
    top (a few times at most).  A file of hers in someone else's folder stays.
    Raises nothing: what it could not read or remove is in the list it
    returns."""
    import pwd
    try:
        uid = pwd.getpwnam(user).pw_uid
    except KeyError:
        return []
    left = []
    for root in roots:
        for _ in range(_RESTARTS):
            try:
                if _remove_owned(root, uid, left):
                    break
            except OSError as e:
                left.append(f"{root}: {e.strerror or e}")
                break
        else:
            left.append(f"{root}: folders moved during each of {_RESTARTS} walks")
    return left


#: How many times :func:`remove_shared_memory` starts a walk again when she moves
#: a folder it is in.
_RESTARTS = 3
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _remove_owned(root, uid, left):
    """One walk of ``root``: remove what ``uid`` owns, deepest first; paths not
    removed go to ``left``.  False when a folder was moved under it (walk again)."""
    import stat
    try:
        fd = os.open(root, _DIRECTORY)
    except FileNotFoundError:
        return True
    top = os.fstat(fd)
    # one frame per open level: [(dev, ino), name in its parent, hers, names to visit]
    stack = [[(top.st_dev, top.st_ino), root, False, os.listdir(fd)]]
    try:
        while stack:
            frame = stack[-1]
            if frame[3]:
                name = frame[3].pop()
                try:
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if not stat.S_ISDIR(info.st_mode):
                        if info.st_uid == uid:
                            os.unlink(name, dir_fd=fd)
                        continue
                    if info.st_dev != top.st_dev:
                        continue        # another file system mounted there
                    if info.st_uid != uid:
                        continue        # someone else's folder: never entered
                    child = os.open(name, _DIRECTORY, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except OSError as e:
                    left.append(_named(stack, name, e))
                    continue
                opened = os.fstat(child)
                if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                    os.close(child)     # swapped meanwhile: not what was looked at
                    continue
                try:
                    names = os.listdir(child)
                except OSError as e:
                    os.close(child)
                    left.append(_named(stack, name, e))
                    continue
                os.close(fd)
                fd = child
                stack.append([(info.st_dev, info.st_ino), name, info.st_uid == uid, names])
                continue
            # every entry visited: back up to the parent, then remove this folder
            stack.pop()
            if not stack:
                break
            parent = os.open("..", _DIRECTORY, dir_fd=fd)
            there = os.fstat(parent)
            os.close(fd)
            fd = parent
            if (there.st_dev, there.st_ino) != stack[-1][0]:
                return False
            _, name, hers, _ = frame
            if hers:
                try:
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if (info.st_dev, info.st_ino) == frame[0]:
                        os.rmdir(name, dir_fd=fd)
                except FileNotFoundError:
                    pass
                except OSError as e:
                    left.append(_named(stack, name, e))
        return True
    finally:
        os.close(fd)


def _named(stack, name, error):
    """The path of ``name`` in the folder atop ``stack``, quoted, and why it is left."""
    path = "/".join(frame[1] for frame in stack) + "/" + name
    return f"{path!r}: {error.strerror or error}"


def own_ipc_namespace():
    """Move the calling process into a new IPC namespace (between fork and exec, as
    root): OSError if the kernel refuses.

    Its System V segments, semaphores and message queues, and its POSIX message
    queues, are then seen by it and its children alone, and freed by the kernel
    when the last of them exits.  Files in ``/dev/shm`` (POSIX shared memory and
    semaphores, which multiprocessing and NumPy use) are files, not IPC objects:
    they stay where they were, and :func:`remove_shared_memory` removes hers."""
    if _unshare(CLONE_NEWIPC) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"unshare(CLONE_NEWIPC): {os.strerror(code)}")


def ipc_namespace_refused():
    """Why a server cannot get an IPC namespace of its own here, or None when it can:
    tried by a child of this process, which exits at once (the hub's own namespace
    is never changed)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            own_ipc_namespace()
        except OSError as e:
            code = e.errno or 1
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return None
    return (f"unshare(CLONE_NEWIPC) refused: {os.strerror(code)}" if code > 0
            else f"the process trying unshare(CLONE_NEWIPC) died of signal {-code}")


#: The largest fs.file-max the kernel takes (LONG_MAX), which systemd sets at boot.
FILE_MAX = 2**63 - 1
#: The largest kernel.pid_max of a 64-bit kernel (PID_MAX_LIMIT), which systemd sets
#: at boot.
PID_MAX = 2**22


def raise_machine_limit(setting, largest, proc_sys="/proc/sys"):
    """Raise the machine's ``setting`` (its path under ``/proc/sys``, e.g.
    ``fs/file-max``) to ``largest`` where it is lower: (the value before, the value
    now, why it could not be raised or None)."""
    path = os.path.join(proc_sys, *setting.split("/"))
    try:
        with open(path) as f:
            before = int(f.read())
    except (OSError, ValueError) as e:
        return None, None, f"{path} cannot be read: {getattr(e, 'strerror', None) or e}"
    if before >= largest:
        return before, before, None
    try:
        with open(path, "w") as f:
            f.write(str(largest))
    except OSError as e:
        return before, before, f"{path} cannot be written: {e.strerror or e}"
    return before, largest, None


def raise_file_max(proc_sys="/proc/sys"):
    """Raise the machine's table of open files (``fs.file-max``) to its largest
    (:func:`raise_machine_limit`).

    The table is the machine's: once it is full, every open, socket and accept of
    a process without CAP_SYS_ADMIN fails, a classmate's server and kernels and
    the instructor's included.  Each open file is charged to its opener's memory
    group (260 to 330 bytes), so one student's 2 GiB holds millions, more than a
    table sized at boot from the machine's memory.  At its largest, her memory
    group alone bounds her files."""
    return raise_machine_limit("fs/file-max", FILE_MAX, proc_sys)


def raise_pid_max(proc_sys="/proc/sys"):
    """Raise the machine's largest process id (``kernel.pid_max``) to its largest
    (:func:`raise_machine_limit`).

    Process ids are the machine's: at the kernel's default of 32,768, 64 students
    each at their 512 processes (``CourseSpawner.process_limit``) take them all,
    and then no one can start a process, a classmate's kernel or the hub's
    included.  At its largest (4,194,304), her pids group alone bounds her."""
    return raise_machine_limit("kernel/pid_max", PID_MAX, proc_sys)


def describe(groups, missing, memory_bytes, processes, ipc_refused=None, cpus=None):
    """One line for the hub's log: what caps this server, and what does not.

    ``ipc_refused``: why the server shares the hub's IPC namespace
    (:func:`ipc_namespace_refused`), None when it has its own. ``cpus``: its CPU
    cap as given to :func:`make`."""
    said = []
    if "memory" in groups:
        said.append(f"memory {memory_bytes} bytes (cgroup {groups['memory']})")
        if "tcp" in missing:
            said.append(f"TCP buffers NOT charged to it: {missing['tcp']}")
    else:
        said.append(f"memory NOT capped: {missing['memory']}")
    if "pids" in groups:
        said.append(f"{processes} processes (cgroup {groups['pids']})")
    elif processes is not None:
        said.append(f"{processes} processes of the user by RLIMIT_NPROC only: "
                    f"{missing['pids']}")
    else:
        said.append("processes NOT capped: no limit set")
    if "cpu" in groups:
        said.append(f"{'no CPU cap' if cpus is None else f'{cpus:g} CPU'}, an equal "
                    f"share of the CPU with every server (cgroup {groups['cpu']})")
    else:
        said.append(f"CPU NOT capped nor shared by server: "
                    f"{missing.get('cpu', 'no cpu cgroup made')}")
    if ipc_refused is None:
        said.append("an IPC namespace of its own")
    else:
        said.append(f"IPC NOT private (System V and message queues outlive the server): "
                    f"{ipc_refused}")
    return "; ".join(said)
