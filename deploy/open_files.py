"""The open files of the hub and of its proxy: as many as the machine allows.

The proxy holds two descriptors for each connection it passes on (the client's
and the one to the server), and the hub one or two more for each of those it
answers; a client that opens connections faster than they are closed brought the
proxy to its open-file limit (20,000 inherited here; Node raises its soft limit
to the hard one), after which every other client's connection was refused,
and the hub near it too.  The proxy now caps the connections one address has
open at once (proxy_connections.js); this raises the limit itself to the most
the kernel allows a process (``fs.nr_open``, 1,048,576 by default), which root
may, before the hub starts: the hub and the proxy it starts inherit it, and
filling it then takes hundreds of addresses at their cap.
"""

import os
import resource

__all__ = ["raise_open_files"]


def raise_open_files(proc_sys="/proc/sys"):
    """Raise this process's RLIMIT_NOFILE, soft and hard, to ``fs.nr_open``
    (the hard limit where it cannot be read, or where raising the hard limit is
    refused: a process without CAP_SYS_RESOURCE): (soft, hard) as set, and why
    the hard limit could not be raised, or None."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    path = os.path.join(proc_sys, "fs", "nr_open")
    why = None
    try:
        with open(path) as f:
            most = int(f.read())
    except (OSError, ValueError) as e:
        most, why = hard, f"{path} cannot be read: {getattr(e, 'strerror', None) or e}"
    if hard != resource.RLIM_INFINITY and most > hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (most, most))
            return most, most, None
        except (OSError, ValueError) as e:
            why = f"the hard limit {hard} cannot be raised: {getattr(e, 'strerror', None) or e}"
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard, hard, why
