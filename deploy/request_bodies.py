"""How much of requests' bodies a Tornado server of the course holds at once.

Tornado reads the whole body of a request into memory before its handler runs,
so before any login is checked, and by default takes bodies of 100 MB (the
hub, its services) or 512 MiB (a user's server), on any number of connections,
for as long as they take to arrive. Measured on the course's hub: a student
holding 60 connections to the hub's API, each sending all but the last byte of
a 99 MB body, made the hub (root, outside every cap) hold 6 GB; five such
bodies of 500 MB sent to a classmate's server through the public port, with
no login, filled his memory cap and had his server killed, his unsaved work
with it, again whenever he started it.

So every Tornado server the course runs (the hub, its book service, ngshare
and each user's server) holds at most a budget of body bytes at once, across
all its connections (:func:`bound`), counting a body from its first byte
until its handler has answered (the handler holds the body, and copies of it,
until then: a login waiting for PAM held four times its body): a request whose
body would pass it is answered 413, its connection closed and the cut logged,
and the bytes it held are freed. No one body may be larger than the budget, and each must arrive
within :data:`BODY_TIMEOUT` seconds, so what a sender holds is freed even if
she never finishes. A flood of bodies can still make a server refuse others'
bodies while it lasts (the log says so, with the client the proxy names); it
cannot take the server's memory.
"""

from __future__ import annotations

import logging

from tornado import httputil

__all__ = ["BODY_TIMEOUT", "Budget", "bound", "bound_every_server", "budget_of_user_server",
           "client"]

#: Seconds within which a request's whole body must arrive.
BODY_TIMEOUT = 300.0
#: A user's server holds at most this share of its memory limit (``MEM_LIMIT``, set
#: by the hub) in request bodies, and at most :data:`USER_SERVER_BUDGET` without one.
USER_SERVER_SHARE = 8
USER_SERVER_BUDGET = 256 * 1024**2

log = logging.getLogger("tornado.general")
_REFUSED = (b"HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n"
            b"Content-Length: 0\r\n\r\n")


class Budget(httputil.HTTPServerConnectionDelegate):
    """The request handling of a Tornado server (``inner``: its Application), with the
    request bodies it holds at once counted against ``limit`` bytes."""

    def __init__(self, inner, limit, name="server"):
        if not isinstance(inner, httputil.HTTPServerConnectionDelegate):
            raise TypeError(f"request_bodies.Budget needs a Tornado Application, not {inner!r}")
        self.inner, self.limit, self.name = inner, limit, name
        self.held = 0
        self.cuts = 0

    def start_request(self, server_conn, request_conn):
        return _Counted(self, self.inner.start_request(server_conn, request_conn),
                        request_conn)

    def on_close(self, server_conn):
        self.inner.on_close(server_conn)


class _Counted(httputil.HTTPMessageDelegate):
    """One request, its body's bytes counted against its server's :class:`Budget`."""

    def __init__(self, budget, inner, connection):
        self.budget, self.inner, self.connection = budget, inner, connection
        self.held = 0
        self.cut = False
        self.said = "a request"

    def headers_received(self, start_line, headers):
        if isinstance(start_line, httputil.RequestStartLine):
            self.said = (f"{start_line.method} {start_line.path[:200]!r} from "
                         f"{client(self.connection, headers)}")
        return self.inner.headers_received(start_line, headers)

    def data_received(self, chunk):
        if self.cut:
            return None
        self.held += len(chunk)
        self.budget.held += len(chunk)
        if self.budget.held > self.budget.limit:
            self._cut()
            return None
        return self.inner.data_received(chunk)

    def finish(self):
        # the body is whole; its handler holds it (and copies of it) until it has
        # answered, so its bytes count until then
        if not self.cut:
            connection = self.connection
            answered = connection.finish

            def finish_answer():
                del connection.finish   # no cycle holds the request (and its body) on
                self._release()
                return answered()
            connection.finish = finish_answer
            self.inner.finish()

    def on_connection_close(self):
        self.connection.__dict__.pop("finish", None)   # unanswered: see finish()
        self._release()
        self.inner.on_connection_close()

    def _release(self):
        self.budget.held -= self.held
        self.held = 0

    def _cut(self):
        self.cut = True
        self.budget.cuts += 1
        log.warning("%s: cut %s after %d bytes of its body: the bodies held at once would "
                    "pass %d bytes", self.budget.name, self.said, self.held, self.budget.limit)
        self._release()
        stream = getattr(self.connection, "stream", None)
        try:
            if stream is not None and not stream.closed():
                # its outcome is not awaited: the connection closes at once
                stream.write(_REFUSED).add_done_callback(lambda done: done.exception())
        except Exception:   # the client is gone: nothing to answer
            pass
        self.connection.close()


def client(connection, headers):
    """Who sent a request, as far as this server can tell: the connection's address,
    and the last entry of ``X-Forwarded-For`` (the address the proxy appended; the
    earlier ones are the client's own words, and a client that does not come
    through the proxy writes all of it), quoted."""
    address = getattr(getattr(connection, "context", None), "remote_ip", "?")
    forwarded = headers.get("X-Forwarded-For", "")
    if forwarded:
        return f"{forwarded.split(',')[-1].strip()[:64]!r} (X-Forwarded-For) over {address}"
    return address


def bound(server, limit, name="server"):
    """Make the Tornado ``HTTPServer`` ``server`` hold at most ``limit`` bytes of
    request bodies at once, each arriving within :data:`BODY_TIMEOUT`; its Budget."""
    params = server.conn_params
    params.max_body_size = min(params.max_body_size or limit, limit)
    params.body_timeout = min(params.body_timeout or BODY_TIMEOUT, BODY_TIMEOUT)
    if not isinstance(server.request_callback, Budget):
        server.request_callback = Budget(server.request_callback, limit, name)
    return server.request_callback


def bound_every_server(limit, name):
    """Bound every Tornado ``HTTPServer`` this process starts listening (for a program
    that makes its own, such as JupyterHub): :func:`bound` when it listens."""
    from tornado.httpserver import HTTPServer

    listen = HTTPServer.listen
    if getattr(listen, "bounded", False):
        return

    def bounded_listen(self, *args, **kwargs):
        bound(self, limit, name)
        return listen(self, *args, **kwargs)

    bounded_listen.bounded = True
    HTTPServer.listen = bounded_listen


def budget_of_user_server(environ):
    """The budget of a user's server: a share of its memory limit (``MEM_LIMIT``), at
    most :data:`USER_SERVER_BUDGET` where it has none."""
    try:
        memory = int(environ.get("MEM_LIMIT", ""))
    except ValueError:
        memory = 0
    return memory // USER_SERVER_SHARE if memory > 0 else USER_SERVER_BUDGET
