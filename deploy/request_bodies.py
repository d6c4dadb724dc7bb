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
and the bytes it held are freed. No one body may be larger than a client's
share of the budget (below), and each must arrive within :data:`BODY_TIMEOUT`
seconds, so what a sender holds is freed even if she never finishes.

A budget alone is one pool for everyone: one client sending bodies and holding
them (about 1.8 Mbit/s kept the hub's 16 MiB full) made the hub refuse every
other body while it lasted, logins included. So each client (``clients.key``:
the address the proxy names, or the joined address of a student's server) may
hold at most a share of the budget at once (``share`` of :func:`bound`, a
quarter unless the server says otherwise): a body that would take its client
past its share is cut the same way, and logged naming the client, while other
clients' bodies go on being taken. What one address holds denies bodies only
to clients behind that same address; it takes as many addresses as there are
shares in the budget to fill it.

The same wrapper refuses, before any handler runs, a request whose path holds
a control character (raw or percent-encoded, ``%00`` to ``%1F`` and ``%7F``:
:func:`control_in_path`): no page of the course has one, and Tornado's static
files answered ``/hub/static/%00`` with an uncaught ValueError, a 500 and its
traceback in the hub's log, at will. It is answered 400, its connection
closed, in one short line of the server's log naming the client
(``clients.describe``). Users' servers are not guarded so (``paths=False``): a
user's files may have such names.

And every request's ``remote_ip`` (which Tornado takes from ``X-Real-IP`` where
the server trusts such headers, as the hub does, and which JupyterHub's own lines
name) is set to its client as ``clients.client`` names it.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote_to_bytes

from tornado import httputil

import clients  # deploy/clients.py, next to this file (and copied beside it)

__all__ = ["BODY_TIMEOUT", "SHARES", "Budget", "answer_and_close", "bound",
           "bound_every_server", "budget_of_user_server", "control_in_path"]

#: Seconds within which a request's whole body must arrive.
BODY_TIMEOUT = 300.0
#: Unless a server says otherwise, one client may hold at most this fraction (1 /
#: SHARES) of its budget at once.
SHARES = 4
#: A user's server holds at most its memory limit (``MEM_LIMIT``, set by the hub)
#: divided by this in request bodies, and at most :data:`USER_SERVER_BUDGET` without
#: one. (Not to be confused with a client's share of a budget.)
USER_SERVER_PART = 8
USER_SERVER_BUDGET = 256 * 1024**2

log = logging.getLogger("tornado.general")
access_log = logging.getLogger("tornado.access")
_REFUSED = (b"HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n"
            b"Content-Length: 0\r\n\r\n")
_BAD_PATH = (b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
             b"Content-Type: text/plain\r\nContent-Length: 40\r\n\r\n"
             b"A control character in the request path\n")
_CONTROL = frozenset(range(0x20)) | {0x7f}


def control_in_path(path):
    """Whether the path of a request target ``path`` (before any ``?``) holds a
    control character, as itself or percent-encoded."""
    path = path.split("?", 1)[0]
    if any(ord(char) in _CONTROL for char in path):
        return True
    return "%" in path and not _CONTROL.isdisjoint(unquote_to_bytes(path))


class Budget(httputil.HTTPServerConnectionDelegate):
    """The request handling of a Tornado server (``inner``: its Application), with the
    request bodies it holds at once counted against ``limit`` bytes, and those of
    each client (``clients.key``) against ``share`` bytes (``limit // SHARES`` by
    default)."""

    def __init__(self, inner, limit, name="server", share=None, paths=True):
        if not isinstance(inner, httputil.HTTPServerConnectionDelegate):
            raise TypeError(f"request_bodies.Budget needs a Tornado Application, not {inner!r}")
        share = limit // SHARES if share is None else share
        if not 0 < share <= limit:
            raise ValueError(f"a client's share of {name}'s budget must be more than 0 and "
                             f"at most the budget ({limit} bytes), not {share!r}")
        self.inner, self.limit, self.name, self.share = inner, limit, name, share
        #: whether a path with a control character is refused (control_in_path)
        self.paths = paths
        self.held = 0
        #: {client's key: bytes of its bodies held}, for clients holding any
        self.held_by = {}
        self.cuts = 0

    def holders(self, most=4):
        """The clients holding the most bytes of bodies, for a log line: ``client
        bytes`` of at most ``most`` of them, the largest first."""
        largest = sorted(self.held_by.items(), key=lambda item: -item[1])[:most]
        return ", ".join(f"{client} {held}" for client, held in largest) or "no one"

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
        self.client = "?"
        self.refused = False   # its path refused: inner never saw it

    def headers_received(self, start_line, headers):
        if isinstance(start_line, httputil.RequestStartLine) and self.budget.paths \
                and control_in_path(start_line.path):
            self._refuse_path(start_line, headers)
            return None
        if isinstance(start_line, httputil.RequestStartLine):
            # the request's remote_ip, which Tornado takes from X-Real-IP (the sender's
            # own words) on the hub's connections, and which JupyterHub's lines name:
            # the client as the course counts it (clients.py)
            context = getattr(self.connection, "context", None)
            if context is not None and hasattr(context, "remote_ip"):
                context.remote_ip = clients.client(self.connection, headers)
            self.client = clients.key(self.connection, headers)
            self.said = (f"{start_line.method} {start_line.path[:200]!r} from "
                         f"{clients.describe(self.connection, headers)}")
        return self.inner.headers_received(start_line, headers)

    def _refuse_path(self, start_line, headers):
        """Answer 400 to a request whose path holds a control character, before its
        handler (never started: nothing more of the request goes to ``inner``)."""
        self.cut = self.refused = True
        path = start_line.path
        shown = repr(path[:96])[1:-1] + (f"...({len(path)} chars)" if len(path) > 96 else "")
        access_log.warning("400 %s %s (@%s): a control character in its path, refused "
                           "before any handler", repr(start_line.method[:16])[1:-1], shown,
                           clients.describe(self.connection, headers))
        self._answer_and_close(_BAD_PATH)

    def data_received(self, chunk):
        if self.cut:
            return None
        budget = self.budget
        self.held += len(chunk)
        budget.held += len(chunk)
        own = budget.held_by[self.client] = budget.held_by.get(self.client, 0) + len(chunk)
        # the client's own share first: when both are passed, what it holds is why
        # (unless its share is the whole budget)
        if own > budget.share and budget.share < budget.limit:
            self._cut(f"its client's bodies held at once ({self.client}) would pass its "
                      f"share of {budget.share} bytes")
            return None
        if budget.held > budget.limit:
            self._cut(f"the bodies held at once would pass {budget.limit} bytes "
                      f"(held most by {budget.holders()})")
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
        if not self.refused:
            self.inner.on_connection_close()

    def _release(self):
        budget = self.budget
        budget.held -= self.held
        if self.held:
            left = budget.held_by.get(self.client, 0) - self.held
            if left > 0:
                budget.held_by[self.client] = left
            else:    # no key kept for a client holding nothing: they would pile up
                budget.held_by.pop(self.client, None)
        self.held = 0

    def _cut(self, why):
        self.cut = True
        self.budget.cuts += 1
        log.warning("%s: cut %s after %d bytes of its body: %s", self.budget.name, self.said,
                    self.held, why)
        self._release()
        self._answer_and_close(_REFUSED)

    def _answer_and_close(self, answer):
        answer_and_close(self.connection, answer)


def answer_and_close(connection, answer):
    """Write ``answer`` (a whole HTTP response, bytes) on a Tornado request's
    ``connection`` and close it at once, not awaiting the write: a client that is
    gone gets nothing."""
    stream = getattr(connection, "stream", None)
    try:
        if stream is not None and not stream.closed():
            stream.write(answer).add_done_callback(lambda done: done.exception())
    except Exception:   # the client is gone: nothing to answer
        pass
    connection.close()


def bound(server, limit, name="server", share=None, paths=True):
    """Make the Tornado ``HTTPServer`` ``server`` hold at most ``limit`` bytes of
    request bodies at once, at most ``share`` bytes of them (a quarter of ``limit``
    by default) from any one client, each body arriving within
    :data:`BODY_TIMEOUT`, and (``paths``) refuse a path with a control character
    (:func:`control_in_path`); its Budget."""
    if not isinstance(server.request_callback, Budget):
        server.request_callback = Budget(server.request_callback, limit, name, share, paths)
    params = server.conn_params
    # a body larger than a client's share could only be cut once read that far:
    # Tornado refuses it (400) from its Content-Length
    share = server.request_callback.share
    params.max_body_size = min(params.max_body_size or share, share)
    params.body_timeout = min(params.body_timeout or BODY_TIMEOUT, BODY_TIMEOUT)
    return server.request_callback


def bound_every_server(limit, name, share=None):
    """Bound every Tornado ``HTTPServer`` this process starts listening (for a program
    that makes its own, such as JupyterHub): :func:`bound` when it listens."""
    from tornado.httpserver import HTTPServer

    listen = HTTPServer.listen
    if getattr(listen, "bounded", False):
        return

    def bounded_listen(self, *args, **kwargs):
        bound(self, limit, name, share)
        return listen(self, *args, **kwargs)

    bounded_listen.bounded = True
    HTTPServer.listen = bounded_listen


def budget_of_user_server(environ):
    """The budget of a user's server: an eighth of its memory limit (``MEM_LIMIT``), at
    most :data:`USER_SERVER_BUDGET` where it has none."""
    try:
        memory = int(environ.get("MEM_LIMIT", ""))
    except ValueError:
        memory = 0
    return memory // USER_SERVER_PART if memory > 0 else USER_SERVER_BUDGET
