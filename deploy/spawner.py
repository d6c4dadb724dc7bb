"""The hub's spawner: each user's server on a port that no user's process can take.

Every user server answers on the hub's one origin, and the proxy sends
``/user/<name>/`` to that server's port until the hub notices the server is
gone. A student who kills her own server (``kill -9 $PPID`` in a JupyterLab
terminal) could otherwise bind the freed port herself and, for those seconds,
answer her link with a page of hers on the hub's origin: whoever opened it,
logged in, would run her script with their login. So each server gets a port
below 1024, which only a process with ``CAP_NET_BIND_SERVICE`` may bind: the
hub (root) binds it and hands the listening socket to the server, which serves
on it (``server_guard.py``) and holds no capability at all. Once the server is
gone, no process of its user's can bind that port.
"""

from __future__ import annotations

import errno
import random
import socket

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, Tuple

from server_guard import SOCKET_VARIABLE


def _named_service(port):
    """Whether /etc/services names a TCP service on ``port`` (one the machine may start later)."""
    try:
        socket.getservbyport(port, "tcp")
    except OSError:
        return False
    return True


def _listen(ip, port):
    """A socket listening on ``ip:port``, or None if the port is taken."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((ip, port))
        listener.listen(128)
    except OSError as e:
        listener.close()
        if e.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):
            return None
        raise
    return listener


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose servers serve on a socket below 1024 that the hub binds."""

    port_range = Tuple(
        Integer(), Integer(), default_value=(100, 1024),
        help="The ports a user's server may get: [low, high), below 1024, so that only a "
             "process with CAP_NET_BIND_SERVICE may bind them. A port /etc/services names, "
             "or that something listens on, is never chosen.").tag(config=True)

    def listen(self):
        """A socket listening on a free port of :attr:`port_range`; RuntimeError when
        there is none."""
        low, high = self.port_range
        if not 0 < low < high <= 1024:
            raise ValueError("CourseSpawner.port_range must lie within [1, 1024), "
                             f"not {self.port_range}")
        ports = [port for port in range(low, high) if not _named_service(port)]
        random.shuffle(ports)
        for port in ports:
            listener = _listen(self.ip or "127.0.0.1", port)
            if listener is not None:
                return listener
        raise RuntimeError(f"no free port in CourseSpawner.port_range {self.port_range}: "
                           "every one is named by a service or in use")

    async def start(self):
        # The socket is bound from here until the server exits: no other server
        # gets its port meanwhile, and the server needs no capability to serve.
        listener = self.listen()
        self.port = listener.getsockname()[1]
        fd = listener.fileno()
        self.environment = {**self.environment, SOCKET_VARIABLE: str(fd)}
        self.popen_kwargs = {**self.popen_kwargs, "pass_fds": (fd,)}
        try:
            return await super().start()
        finally:
            listener.close()   # the hub's copy; the server holds its own
