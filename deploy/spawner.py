"""The hub's spawner: each user's server on a port that no user's process can take.

Every user server answers on the hub's one origin, and the proxy sends
``/user/<name>/`` to that server's port until the hub notices the server is
gone. A student who kills her own server (``kill -9 $PPID`` in a JupyterLab
terminal) could otherwise bind the freed port herself and, for those seconds,
answer her link with a page of hers on the hub's origin: whoever opened it,
logged in, would run her script with their login. So each server gets a port
below 1024 (only a process with ``CAP_NET_BIND_SERVICE`` may bind one) and
starts, as its user, with that capability alone; the server drops it once it
listens (``server_guard.py``), so none of its kernels or terminals has it.
"""

from __future__ import annotations

import errno
import random
import socket
import weakref

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, Tuple

import server_guard


def _bindable(ip, port):
    """Whether ``ip:port`` is free now (this process being root)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((ip, port))
        except OSError as e:
            if e.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):
                return False
            raise
    return True


def _named_service(port):
    """Whether /etc/services names a TCP service on ``port`` (one the machine may start later)."""
    try:
        socket.getservbyport(port, "tcp")
    except OSError:
        return False
    return True


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose servers listen on ports below 1024."""

    port_range = Tuple(
        Integer(), Integer(), default_value=(100, 1024),
        help="The ports a user's server may get: [low, high), below 1024, so that only a "
             "process with CAP_NET_BIND_SERVICE may bind them. A port /etc/services names, "
             "or that something listens on, is never chosen.").tag(config=True)

    #: The ports given to servers of this hub, and to which spawner: a port is
    #: taken while its spawner's server runs (or starts), even before it binds.
    _given: dict[int, weakref.ref] = {}

    def _taken(self, port):
        owner = self._given.get(port)
        spawner = owner() if owner else None
        return spawner is not None and spawner is not self and spawner.pid and spawner.port == port

    def choose_port(self):
        """A free port of :attr:`port_range`; RuntimeError when there is none."""
        low, high = self.port_range
        if not 0 < low < high <= 1024:
            raise ValueError("CourseSpawner.port_range must lie within [1, 1024), "
                             f"not {self.port_range}")
        ip = self.ip or "127.0.0.1"
        ports = list(range(low, high))
        random.shuffle(ports)
        for port in ports:
            if not self._taken(port) and not _named_service(port) and _bindable(ip, port):
                self._given[port] = weakref.ref(self)
                return port
        raise RuntimeError(f"no free port in CourseSpawner.port_range {self.port_range}: "
                           "every one is named by a service, in use or another server's")

    async def start(self):
        # chosen and started without yielding to the event loop (LocalProcessSpawner's
        # start runs Popen before its first await), so two servers starting at
        # once never get one port
        self.port = self.choose_port()
        return await super().start()

    def make_preexec_fn(self, name):
        """JupyterHub's change to the user, keeping CAP_NET_BIND_SERVICE alone for the server."""
        as_user = super().make_preexec_fn(name)

        def preexec():
            server_guard.keep_capabilities_through_setuid()
            as_user()
            server_guard.keep_bind_capability()

        return preexec
