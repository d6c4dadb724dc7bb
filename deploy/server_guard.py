"""What a user's server does to itself, in both user environments: it cannot be
changed by the user's other processes, nor replaced by one of them.

Every user server answers on the hub's one origin, so code running inside one
would answer for that origin to whoever opens its link. The hub starts the
server with none of the user's code (``disable_user_config``, Python's
isolated mode), but the user's kernels and terminals run as the same Unix
user, who may attach a debugger to their own processes and write into them.
This extension makes the server process not dumpable (``PR_SET_DUMPABLE``
0): the kernel then lets no process of the same user trace it or open its
memory, and ``/proc/<pid>`` belongs to root. A process started afresh (a
kernel, a terminal) is dumpable again, so the user's own debugging is not
touched.

The same user can still kill the server, and would then answer on its port
herself. So the hub gives each server a port below 1024 (``spawner.py``), which
only a process holding ``CAP_NET_BIND_SERVICE`` may bind, and starts the server
with that one capability (:func:`keep_bind_capability`, between the spawner's
change of user and the server's start); once the server has bound its port,
this extension drops every capability (:func:`drop_capabilities`), so that no
kernel or terminal it starts has any, and no process of the user's can take
the port when the server is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os

PR_SET_DUMPABLE = 4
PR_SET_KEEPCAPS = 8
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_RAISE = 2
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_NET_BIND_SERVICE = 10
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
#: The capability sets of /proc/<pid>/status that must all be empty after the drop.
HELD = ("CapInh", "CapPrm", "CapEff", "CapAmb")

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _check(result, call):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{call} failed: {os.strerror(errno)}")


def _prctl(option, arg2=0, arg3=0, call="prctl"):
    _check(_libc.prctl(option, arg2, arg3, 0, 0), call)


def _capset(mask):
    """Set this thread's effective, permitted and inheritable capabilities to
    ``mask`` (a bit mask of capability numbers below 32), each alike."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)(_CapData(mask, mask, mask), _CapData(0, 0, 0))
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def make_undumpable() -> None:
    """Make this process not dumpable; OSError if the kernel refuses."""
    _prctl(PR_SET_DUMPABLE, 0, call="prctl(PR_SET_DUMPABLE, 0)")


def keep_capabilities_through_setuid() -> None:
    """Before a root process changes to a user: keep its permitted capabilities."""
    _prctl(PR_SET_KEEPCAPS, 1, call="prctl(PR_SET_KEEPCAPS, 1)")


def keep_bind_capability() -> None:
    """After that change of user: hold ``CAP_NET_BIND_SERVICE`` alone, and pass it
    to the next program this process executes (as an ambient capability)."""
    _capset(1 << CAP_NET_BIND_SERVICE)
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE,
           call="prctl(PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE)")


def drop_capabilities() -> None:
    """Drop every capability of this thread, ambient ones included, so that no
    program it starts has any."""
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, call="prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
    _capset(0)


def capabilities_held() -> dict[str, str]:
    """The threads of this process that hold a capability: {thread id: its sets}."""
    held = {}
    for status in glob.glob("/proc/self/task/*/status"):
        sets = dict(line.split(":\t", 1) for line in open(status).read().splitlines()
                    if line.startswith(HELD))
        if any(int(value, 16) for value in sets.values()):
            held[status.split("/")[4]] = ", ".join(f"{k} {v}" for k, v in sets.items())
    return held


def _drop_once_bound(serverapp):
    if os.geteuid() == 0:
        # not a user's server (the hub never starts one as root): root keeps its own
        serverapp.log.info("server_guard: running as root, capabilities left as they are")
        return
    drop_capabilities()
    held = capabilities_held()
    if held:
        # a thread started before the drop keeps what it had, and so would what it starts
        serverapp.log.critical("server_guard: threads of this server still hold capabilities "
                               "(%s); stopping", held)
        os._exit(1)
    serverapp.log.info("server_guard: this server holds no capability now that it listens")


def _jupyter_server_extension_points():
    return [{"module": "server_guard"}]


def _load_jupyter_server_extension(serverapp):
    make_undumpable()
    serverapp.log.info("server_guard: this server cannot be traced by its user's "
                       "other processes")
    # Extensions load before the server binds its port: the server schedules the
    # bind on its event loop after this, so a callback that schedules the drop
    # runs the drop after the bind, and before the loop has accepted a
    # connection. (Were the drop ever first, the bind of a port below 1024
    # would fail and the server would stop: never a server left with the
    # capability.)
    loop = serverapp.io_loop
    loop.add_callback(loop.add_callback, _drop_once_bound, serverapp)
