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
herself, were it a port she could bind. So the hub binds a port below 1024
for the server and hands it the listening socket (``spawner.py``): this
extension serves on that socket instead of binding one, and keeps it from
every process the server starts. No process of the user's holds a capability,
so none can bind the port once the server is gone. (Were this extension not to
take the socket, the server would try to bind the port itself, be refused,
and stop.)

It also bounds what the server holds of request bodies at once
(``request_bodies.py``): bodies are read whole before any login is checked, and
anyone reaching the hub's public port could otherwise fill the server's memory
cap with them and have it killed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket

import request_bodies

PR_SET_DUMPABLE = 4
#: The variable in which the hub names the socket's descriptor (spawner.py).
SOCKET_VARIABLE = "KERNEL_COURSE_SERVER_SOCKET"


def make_undumpable() -> None:
    """Make this process not dumpable; OSError if the kernel refuses."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, "prctl(PR_SET_DUMPABLE, 0) failed")


def the_hubs_socket() -> socket.socket | None:
    """The listening socket the hub handed this server (None: not started by the
    course's hub), closed to every program the server executes, its variable
    removed from the environment they inherit."""
    fd = os.environ.pop(SOCKET_VARIABLE, None)
    if fd is None:
        return None
    listener = socket.socket(fileno=int(fd))
    listener.set_inheritable(False)
    listener.setblocking(False)
    return listener


def serve_on(serverapp, listener: socket.socket) -> None:
    """Have ``serverapp`` serve on ``listener`` instead of binding its port.

    jupyter_server checks its port and schedules the bind when it creates its
    HTTP server, after the extensions load: both steps are replaced here."""
    ip, port = listener.getsockname()[:2]
    if (ip, port) != (serverapp.ip, serverapp.port):
        raise RuntimeError(f"server_guard: the hub's socket is {ip}:{port}, the server's "
                           f"address {serverapp.ip}:{serverapp.port}")
    serverapp._find_http_port = lambda: None
    serverapp._bind_http_server = lambda: serverapp.http_server.add_socket(listener)


def bound_bodies(serverapp) -> None:
    """Have ``serverapp`` hold at most its budget of request bodies at once
    (``request_bodies.py``: an eighth of its memory limit), and a quarter of it from
    any one client (64 MiB at 2G, a notebook saved whole or a file JupyterLab
    uploads whole, up to 15 MB, passes), from when it serves."""
    bind = serverapp._bind_http_server
    budget = request_bodies.budget_of_user_server(os.environ)

    def bind_bounded():
        request_bodies.bound(serverapp.http_server, budget, "user server", paths=False)
        return bind()
    serverapp._bind_http_server = bind_bounded


def _jupyter_server_extension_points():
    return [{"module": "server_guard"}]


def _load_jupyter_server_extension(serverapp):
    make_undumpable()
    serverapp.log.info("server_guard: this server cannot be traced by its user's "
                       "other processes")
    listener = the_hubs_socket()
    if listener is not None:
        serve_on(serverapp, listener)
        serverapp.log.info("server_guard: serving on the socket the hub bound, "
                           "%s:%s", serverapp.ip, serverapp.port)
    bound_bodies(serverapp)
