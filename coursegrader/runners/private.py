"""Making a runner's process private: no part may open its ``/proc`` entries."""

import os

__all__ = ["make_private"]

_PR_SET_DUMPABLE = 4


def make_private():
    """Make this process non-dumpable: no process without capabilities may open its
    ``/proc/<pid>`` entries (descriptors, memory, environment), its children included.

    Inherited by forked children, reset by ``exec``.  Raises OSError if the kernel
    refuses.
    """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
