"""A student's server in a network namespace of its own: her loopback, her ports.

Loopback ports of 1024 and above are anyone's to bind, and every outgoing TCP
connection on a machine takes its local port from one range (32768-60999). A
student who binds every port of it (116 MiB of her memory cap and three of her
processes) makes every new connection on the machine fail, root's included:
the proxy can no longer reach the hub or any server, and answers 503 to the
whole class. Ports are not memory, so no cap sees it.

So the hub (root) makes each student's server a network namespace of its own,
with a loopback and nothing else, and moves the server into it between fork
and exec, before it becomes her (:meth:`Loopback.enter`): everything it starts
is born there, and leaving needs ``CAP_SYS_ADMIN``. Every port she binds is a
port of her own loopback; the machine's ports, and its network (the database,
the proxy's API, the other services, everyone's abstract Unix sockets), are
absent for her, not forbidden.

Her server still answers the proxy on the socket the hub bound for it in the
machine's namespace (``spawner.py``): a socket stays in the namespace it was
made in. What the server must reach on the machine, the hub's API, the public
port (ngshare, through the proxy) and the book service, it reaches at the
same address as before, ``127.0.0.1`` and the same port: the hub listens on
those ports of her loopback (:class:`Loopback`, made before the server starts,
so none of hers can take them) and joins each connection to the same port of
the machine's loopback, at most :data:`CONNECTIONS` at once per server.
"""

from __future__ import annotations

import asyncio
import ctypes
import fcntl
import os
import socket
import struct
import threading

__all__ = ["CLONE_NEWNET", "CONNECTIONS", "Loopback"]

#: unshare(2)'s and setns(2)'s flag for a network namespace (os.CLONE_NEWNET from
#: Python 3.12).
CLONE_NEWNET = 0x40000000
#: The connections one server may have open at once through the hub's listeners in
#: its namespace: each costs the hub two descriptors.
CONNECTIONS = 64
#: Seconds between two lines of the hub's log saying a server's connections were
#: refused (each line counts those since the last).
LOG_EVERY = 60
#: Bytes read at once from either side of a joined connection.
CHUNK = 1 << 16
#: The kernel's buffers of each of the hub's two sockets of a joined connection, each
#: way (SO_SNDBUF, SO_RCVBUF; the kernel doubles them for its bookkeeping). Left to
#: grow as they do, a connection she opens and never reads, asking the public port
#: for a large file, kept about 9 MB in the hub's sockets, outside her memory cap, for
#: as long as she held it: 590 MB for her 64. Bounded, the hub holds about 2 MiB a
#: connection, and the rest waits in the sender's buffers, where the proxy's own
#: limits see it (proxy_stalled_writes.js).
BUFFER = 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def _check(result, call):
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{call}: {os.strerror(code)}")


def _loopback_up():
    """Bring up ``lo`` of the calling thread's network namespace (as root)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))


def _in_new_namespace(ports):
    """(namespace descriptor, listeners on 127.0.0.1 at ``ports``) of a new network
    namespace, made by the calling thread, which is left in it."""
    _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    _loopback_up()
    fd = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net",
                 os.O_RDONLY | os.O_CLOEXEC)
    listeners = []
    try:
        for port in ports:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listeners.append(listener)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            _bounded(listener)          # inherited by what it accepts
            try:
                listener.bind(("127.0.0.1", port))
            except OSError as e:
                raise OSError(e.errno, f"listening on 127.0.0.1:{port} in the server's "
                                       f"namespace: {e.strerror}") from None
            listener.listen(CONNECTIONS)
            listener.setblocking(False)
    except BaseException:
        os.close(fd)
        for listener in listeners:
            listener.close()
        raise
    return fd, listeners


def _bounded(sock):
    """Bound the kernel's buffers of ``sock`` to :data:`BUFFER` each way."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER)


def _in_a_thread_of_its_own(work, *args):
    """``work(*args)`` in a thread that ends with it: a namespace it enters is never
    the hub's other threads' (nor a pool thread's, reused later)."""
    outcome = {}

    def run():
        try:
            outcome["value"] = work(*args)
        except BaseException as e:
            outcome["error"] = e

    thread = threading.Thread(target=run, name="server-network", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Loopback:
    """A network namespace with a loopback only, in which the hub listens on
    ``127.0.0.1`` at each of ``ports`` and joins what connects to the same port of
    the machine's loopback.

    Made before the server starts (:meth:`make`); the server's process enters it
    between fork and exec (:meth:`enter`); the hub joins connections once
    :meth:`serve` is awaited, until :meth:`close`."""

    def __init__(self, fd, listeners, log=None, name="a server", source=None):
        self.fd = fd
        self.source = source
        self.listeners = listeners
        self.ports = [listener.getsockname()[1] for listener in listeners]
        self.log = log
        self.name = name
        self._servers = []
        self._joined = set()
        self._refused = 0          # connections refused since the last line saying so
        self._said = None          # when that line was written (the loop's clock)

    @classmethod
    def make(cls, ports, log=None, name="a server", source=None):
        """A new namespace and its listeners (``name``: whose, for the log; ``source``:
        the machine-loopback address its joins connect from, ``clients.joined_from``
        of its user, so that the hub and the proxy tell her connections from others'):
        OSError where the kernel refuses."""
        fd, listeners = _in_a_thread_of_its_own(_in_new_namespace, list(ports))
        return cls(fd, listeners, log, name, source)

    def enter(self):
        """Move the calling process into the namespace (between fork and exec, as
        root): OSError if the kernel refuses."""
        _check(_libc.setns(self.fd, CLONE_NEWNET), "setns(CLONE_NEWNET)")

    async def serve(self):
        for listener, port in zip(self.listeners, self.ports):
            self._servers.append(await asyncio.start_server(
                lambda reader, writer, port=port: self._join(reader, writer, port),
                sock=listener, limit=CHUNK))

    async def close(self):
        """Stop listening and drop every joined connection; the namespace goes with
        the last of the server's processes."""
        for server in self._servers:
            server.close()
        for task in list(self._joined):
            task.cancel()
        for server in self._servers:
            await server.wait_closed()
        self._servers = []
        for listener in self.listeners:
            listener.close()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    async def _join(self, inside, inside_writer, port):
        if len(self._joined) >= CONNECTIONS:
            self._refuse(port)
            inside_writer.close()
            return
        task = asyncio.current_task()
        self._joined.add(task)
        writers = [inside_writer]
        try:
            _bounded(inside_writer.get_extra_info("socket"))
            machine = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                _bounded(machine)       # before it connects: its window is set then
                machine.setblocking(False)
                if self.source:
                    machine.bind((self.source, 0))
                await asyncio.get_running_loop().sock_connect(machine, ("127.0.0.1", port))
            except BaseException:
                machine.close()
                raise
            outside, outside_writer = await asyncio.open_connection(sock=machine, limit=CHUNK)
            writers.append(outside_writer)
            await asyncio.gather(_copy(inside, outside_writer), _copy(outside, inside_writer))
        except (OSError, asyncio.CancelledError):
            pass   # either side gone, or the server stopped: the connection ends
        finally:
            self._joined.discard(task)
            for writer in writers:
                writer.close()


    def _refuse(self, port):
        """Count a refused connection; say so at most once a :data:`LOG_EVERY` seconds."""
        self._refused += 1
        now = asyncio.get_running_loop().time()
        if self.log and (self._said is None or now - self._said >= LOG_EVERY):
            self.log.warning("Refused %d connection(s) of %s's server to port %s (and "
                             "others) of the hub: %d already open", self._refused,
                             self.name, port, CONNECTIONS)
            self._refused, self._said = 0, now


async def _copy(reader, writer):
    """Copy ``reader`` to ``writer`` until the end, then end ``writer``'s side."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    finally:
        if writer.can_write_eof() and not writer.is_closing():
            try:
                writer.write_eof()
            except OSError:
                pass
