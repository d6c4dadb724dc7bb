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

Each server also runs in a memory, a pids and a cpu cgroup of its own
(``server_limits.py``), which the hub makes before the server starts and
removes, killing whatever is left in them, when it stops: JupyterHub's
``Spawner.mem_limit`` and ``Spawner.cpu_limit`` (which ``LocalProcessSpawner``
ignores) are honoured, 2G and one CPU unless set, and
:attr:`CourseSpawner.process_limit` caps the processes and threads, 512 unless
set; every server's cpu group has the same weight, so the CPU is shared
between servers, not between processes. Everything the server starts, kernels
and terminals and their children, is inside them, so one student cannot take
the machine's memory, processes or CPU from her classmates or the hub. And each server runs in
an IPC namespace of its own, so that the System V shared memory, semaphores
and message queues she leaves are freed once her last process is gone,
rather than kept past her cap after every stop, and so that she sees no one
else's.

A student's server also runs in a network namespace of its own
(``server_network.py``): every port she binds is one of her own loopback, so
binding every port of the machine's range for outgoing connections (which
stopped the proxy for the whole class) reaches no one else. The hub listens in
her namespace on the few ports of the machine her server must reach (the
hub's API, the public port, the book service: :attr:`CourseSpawner.loopback_ports`)
and joins them to the machine's; nothing else of the machine's network is
there for her.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import resource
import subprocess
import sys

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, List, Tuple, default

import clients
import low_ports
import server_limits
import server_network
from server_guard import SOCKET_VARIABLE


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose servers serve on a socket below 1024 that the hub binds."""

    port_range = Tuple(
        Integer(), Integer(), default_value=low_ports.USER_SERVER_PORTS,
        help="The ports a user's server may get: [low, high), below 1024, so that only a "
             "process with CAP_NET_BIND_SERVICE may bind them. A port /etc/services names, "
             "one of reserved_ports, or one that something listens on, is never "
             "chosen.").tag(config=True)

    reserved_ports = List(
        Integer(),
        help="Ports never given to a user's server, even while free: those of the hub, "
             "its proxy and its services (jupyterhub_config.py names them), whose "
             "processes may be down for a moment.").tag(config=True)

    process_limit = Integer(
        512, allow_none=True,
        help="The processes and threads a user's server and everything it starts may "
             "run at once (a pids cgroup; where none can be made, RLIMIT_NPROC on the "
             "user). None: no limit. The memory is Spawner.mem_limit (2G unless set), "
             "in a memory cgroup.").tag(config=True)

    loopback_ports = List(
        Integer(), allow_none=True, default_value=None,
        help="None: the server shares the hub's network (an instructor's, which may "
             "need the gradebook's database). A list: the server runs in a network "
             "namespace of its own, with a loopback only, on whose 127.0.0.1 the hub "
             "listens at each of these ports and joins it to the same port of the "
             "machine's loopback (server_network.py).").tag(config=True)

    _loopback = None
    _network_refused = None

    @default("mem_limit")
    def _default_mem_limit(self):
        return 2 * 1024**3

    @default("cpu_limit")
    def _default_cpu_limit(self):
        return 1.0

    def listen(self):
        """A socket listening on a free port of :attr:`port_range`; RuntimeError when
        there is none."""
        low, high = self.port_range
        if not 0 < low < high <= 1024:
            raise ValueError("CourseSpawner.port_range must lie within [1, 1024), "
                             f"not {self.port_range}")
        listener = low_ports.listen_on_free_port(self.ip or "127.0.0.1", low, high,
                                                 skip=set(self.reserved_ports))
        if listener is None:
            raise RuntimeError(f"no free port in CourseSpawner.port_range {self.port_range}: "
                               "every one is named by a service, reserved or in use")
        return listener

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        groups, nproc, loopback = self._groups, None, self._loopback
        own_ipc = self._ipc_refused is None
        if "pids" not in groups and self.process_limit is not None:
            nproc = self.process_limit

        def preexec():
            # as root, before the server becomes its user: into its groups, for
            # good (their files are root's), and into a new IPC namespace, which
            # she cannot leave (setns needs CAP_SYS_ADMIN), and into her network
            # namespace, the same way
            server_limits.join(groups)
            if loopback is not None:
                loopback.enter()
            if own_ipc:
                server_limits.own_ipc_namespace()
            if nproc is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            become_user()
        return preexec

    def make_limits(self):
        """Fresh cgroups capping this server, whether it gets an IPC namespace of its
        own (server_limits.py) and, for :attr:`loopback_ports`, a network namespace
        (server_network.py); logs what confines it."""
        if self.loopback_ports is not None:
            try:
                self._loopback = server_network.Loopback.make(
                    self.loopback_ports, self.log, self.user.name,
                    clients.joined_from(pwd.getpwnam(self.user.name).pw_uid))
            except OSError as e:
                self._network_refused = str(e)
        self._groups, missing = server_limits.make(self.user.name, self.mem_limit,
                                                   self.process_limit, cpus=self.cpu_limit)
        self._ipc_refused = server_limits.ipc_namespace_refused()
        line = server_limits.describe(self._groups, missing, self.mem_limit,
                                      self.process_limit, self._ipc_refused,
                                      cpus=self.cpu_limit)
        if self.loopback_ports is not None:
            line += (f"; network NOT private: {self._network_refused}"
                     if self._loopback is None else
                     "; network private, reaching the machine's 127.0.0.1 on ports "
                     + ", ".join(map(str, self._loopback.ports)))
        capped = ("memory" in self._groups and "cpu" in self._groups
                  and "tcp" not in missing
                  and self._ipc_refused is None
                  and (self.loopback_ports is None or self._loopback is not None)
                  and ("pids" in self._groups or self.process_limit is None))
        (self.log.info if capped else self.log.warning)(
            "Server of %s capped: %s", self.user.name, line)

    async def remove_limits(self):
        """Remove this server's cgroups, killing whatever of the user's is left in
        them (the last of its processes: its IPC namespace goes with them), and the
        user's files in shared memory, which would outlive them.

        Run in a thread, off the hub's event loop (a walk of /dev/shm takes as long
        as what is in it), and never raises: what could not be removed is logged,
        named, and the start, stop or poll that asked goes on."""
        user = self.user.name
        self._groups = {}
        loopback, self._loopback = self._loopback, None
        if loopback is not None:
            await loopback.close()   # her server's connections to the hub's ports end
        try:
            # found by the user's name, so also those of a server an earlier hub started
            left = await asyncio.to_thread(_remove_users_limits, user)
        except Exception:
            self.log.exception("Could not remove the cgroups or shared memory of %s", user)
            return
        for what in left:
            self.log.warning("Could not remove %s's %s", user, what)

    def server_log(self):
        """The server's stdout and stderr: a pipe to a log of its own
        (:func:`server_log_path`), never the hub's. Everything the server starts
        holds it (a student's kernel and terminal may write to it at will), so on
        the hub's log her lines could pass for the hub's own: a failed login
        naming a classmate's address, for fail2ban to ban."""
        return _server_log_pipe(self.user.name)

    async def poll(self):
        status = await super().poll()
        if status is not None:
            await self.remove_limits()   # the server died: nothing it started lives on
        return status

    async def stop(self, now=False):
        try:
            await super().stop(now=now)
        finally:
            await self.remove_limits()

    async def start(self):
        await self.remove_limits()   # what a hub that was killed left behind
        listener = None
        try:
            self.make_limits()
            if self._loopback is not None:
                await self._loopback.serve()
            # The socket is bound from here until the server exits: no other server
            # gets its port meanwhile, and the server needs no capability to serve.
            listener = self.listen()
            self.port = listener.getsockname()[1]
            fd = listener.fileno()
            self.environment = {**self.environment, SOCKET_VARIABLE: str(fd)}
            log = self.server_log()
            self.popen_kwargs = {**self.popen_kwargs, "pass_fds": (fd,),
                                 "stdout": log, "stderr": subprocess.STDOUT}
            try:
                return await super().start()
            finally:
                log.close()   # the hub's end of the pipe; the server holds its own
        except BaseException:
            await self.remove_limits()
            raise
        finally:
            if listener is not None:
                listener.close()   # the hub's copy; the server holds its own


#: Each user's server writes to a log of its own, STATE/servers/<name>.log, kept
#: to SERVER_LOG_FILES files of SERVER_LOG_BYTES (log_writer.py).
SERVER_LOG_BYTES = 10 * 1000**2
SERVER_LOG_FILES = 2


def server_log_path(name):
    """Where the server of user ``name`` writes its output: a file of its own in the
    hub's state folder (beside hub.log, the hub's working folder)."""
    settings = os.environ.get("KERNEL_COURSE_SETTINGS")
    state = os.path.dirname(settings) if settings else os.getcwd()
    return os.path.join(state, "servers", f"{name}.log")


def _server_log_pipe(name):
    """The write end of a pipe to a log writer (log_writer.py) that keeps the output
    of ``name``'s server in :func:`server_log_path`; the writer ends once every
    process holding the pipe has."""
    path = server_log_path(name)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    writer = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "log_writer.py"), path,
         "--max-bytes", str(SERVER_LOG_BYTES), "--files", str(SERVER_LOG_FILES)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    return writer.stdin


def _remove_users_limits(user):
    """Remove ``user``'s groups and her files in shared memory: what was left, named."""
    server_limits.remove_all(user)
    return [f"shared memory file {path}" for path in server_limits.remove_shared_memory(user)]
