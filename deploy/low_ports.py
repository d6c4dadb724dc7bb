"""Ports below 1024 for the hub, its proxy, its services and each user's server.

Only a process holding ``CAP_NET_BIND_SERVICE`` (here: root) may bind a port
below 1024, so while the process that owns such a port is down (a crash, a
restart, the machine booting) no user's process can take it and answer in its
place. The hub and its services get ports of :data:`HUB_PORTS`, chosen once
by ``hub.py init``; each user's server gets one of
``CourseSpawner.port_range`` (:data:`USER_SERVER_PORTS` by default), bound by
the hub when the server starts (``spawner.py``). The two ranges do not meet.
"""

from __future__ import annotations

import errno
import random
import socket

#: The ports of the hub and its services (``hub.py init``): [low, high).
HUB_PORTS = (1, 100)
#: The hub's settings (settings.json) naming the port the hub, its proxy or one of
#: its services listens on: the public one, the hub's, the proxy's API, ngshare's
#: and the book's.
SETTINGS = ("port", "hub_port", "proxy_api_port", "ngshare_port", "book_port")
#: The ports below 1024 that browsers refuse to connect to (the Fetch Standard's
#: "bad ports"): never the hub's, whose public port a browser opens.
BROWSER_REFUSED = frozenset({
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
    101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161,
    179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563,
    587, 601, 636, 989, 990, 993, 995})
#: The default of ``CourseSpawner.port_range``, the ports of users' servers: [low, high).
USER_SERVER_PORTS = (100, 1024)


def unprivileged_start():
    """The lowest port any process may bind (``net.ipv4.ip_unprivileged_port_start``,
    1024 unless lowered); None where the kernel does not say."""
    try:
        return int(open("/proc/sys/net/ipv4/ip_unprivileged_port_start").read())
    except (OSError, ValueError):
        return None


def named_service(port):
    """Whether /etc/services names a TCP service on ``port`` (one the machine may start later)."""
    try:
        socket.getservbyport(port, "tcp")
    except OSError:
        return False
    return True


def listen(ip, port):
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


def listen_on_free_port(ip, low, high, *, skip=()):
    """A socket listening on ``ip`` at a port of [``low``, ``high``) chosen at random
    among those /etc/services names for no service, not in ``skip`` and that nothing
    else holds; None when there is none."""
    ports = [port for port in range(low, high) if port not in skip and not named_service(port)]
    random.shuffle(ports)
    for port in ports:
        listener = listen(ip, port)
        if listener is not None:
            return listener
    return None
