"""What a user's server does to itself, in both user environments: it cannot be
changed by the user's other processes.

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
"""

from __future__ import annotations

import ctypes
import ctypes.util

PR_SET_DUMPABLE = 4


def make_undumpable() -> None:
    """Make this process not dumpable; OSError if the kernel refuses."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, "prctl(PR_SET_DUMPABLE, 0) failed")


def _jupyter_server_extension_points():
    return [{"module": "server_guard"}]


def _load_jupyter_server_extension(serverapp):
    make_undumpable()
    serverapp.log.info("server_guard: this server cannot be traced by its user's "
                       "other processes")
