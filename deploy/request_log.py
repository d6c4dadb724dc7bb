"""One short line per request in the logs of the hub, ngshare and the book service.

The hub's log (``STATE/hub.log``, which its services and the proxy write to as
well) sits on the file system of the hub's database and ngshare's submissions.
As they ship, JupyterHub's line for a request answered 5xx (its
``jupyterhub.log.log_request``) comes after every request header dumped as
JSON, and Tornado logs an uncaught exception with its traceback: a request any
client may send (``GET /hub/static/%00``, a 500) with 64 KiB of headers wrote
61 KB of log, and a student's server sent 170 of them a second (38 GB/h). Both
lines named ``request.remote_ip``, which the hub takes from ``X-Real-IP``, the
sender's own words: she named a classmate's server, and hers was in no line.

So here, for the hub (``c.JupyterHub.tornado_settings["log_function"]``),
the book service (its Application's ``log_function``) and ngshare (its
Application's ``log_request``, ``ngshare_service.py``):

- :func:`log_request` writes one line per request, at most :data:`LINE_CHARS`
  characters: the status, the method and the path (not its query, which may
  hold a token; truncated, every character outside printable ASCII escaped), the user if known, the client as
  ``clients.describe`` names it (the course's notion of the client, never
  ``X-Real-IP``), the time taken, and why, when the handler said (an
  ``HTTPError``'s message), in place of Tornado's second line about it. The
  hub's line of a failed token check (a server asking about a token it was
  sent) says that the token may be anyone's (:data:`TOKEN_CHECK_REASON`): the
  address it names is the server's, whoever sent the server the token.
- :func:`install` has every Tornado handler of the process name its request by
  the same short summary (Tornado's ``_request_summary``, in the lines it and
  JupyterHub write about a request), and log an uncaught exception (a 500: a
  fault of ours on a request that got past ``request_bodies``' check of its
  path) in that one line; its traceback is logged, at most
  :data:`TRACEBACK_CHARS` characters of it, once per :data:`TRACEBACK_EVERY`
  seconds and place in the code it came from, and at most
  :data:`TRACEBACKS_PER_WINDOW` of them per :data:`TRACEBACK_EVERY` seconds in
  all: a client who finds such a fault cannot have it repeated at will.

- :func:`install` also bounds every message any logger of the process writes to
  :data:`MESSAGE_CHARS` characters, the rest replaced by how many were cut:
  JupyterHub quotes what a client sent in some of its own warnings (an OAuth
  request's ``redirect_uri`` that is not the client's, whole), and a student's
  server sent the hub 18 such requests a second with a 60,000-character
  ``redirect_uri``, 1.1 MB of log a second.

The size of the log as a whole is bounded by ``log_writer.py``, which ``hub.py
start`` writes it through.
"""

from __future__ import annotations

import logging
import time
import traceback

import clients  # deploy/clients.py, next to this file
import request_rates  # deploy/request_rates.py, next to this file

__all__ = ["LINE_CHARS", "MESSAGE_CHARS", "PATH_CHARS", "TOKEN_CHECK_REASON", "TRACEBACK_CHARS",
           "TRACEBACK_EVERY", "TRACEBACKS_PER_WINDOW", "escape", "install", "line",
           "log_request"]

#: The most characters of a request's line (before the logger's own prefix).
LINE_CHARS = 240
#: The most characters of any message logged in the process (a traceback apart:
#: TRACEBACK_CHARS).
MESSAGE_CHARS = 1000
#: The most characters of a request's path (after escaping) in its line.
PATH_CHARS = 96
#: The most characters of the user's name, and of the method, in a line.
NAME_CHARS = 32
#: The most characters of the handler's reason in a line.
REASON_CHARS = 60
#: The least time between two tracebacks from one place in the code (s), and the
#: window over which at most TRACEBACKS_PER_WINDOW are logged in all.
TRACEBACK_EVERY = 60.0
TRACEBACKS_PER_WINDOW = 5
#: The most characters of one logged traceback.
TRACEBACK_CHARS = 8000
#: How many places' times are kept before the oldest are dropped.
_PLACES_KEPT = 256

access_log = logging.getLogger("tornado.access")
app_log = logging.getLogger("tornado.application")


def escape(text, limit):
    """``text`` with every character outside printable ASCII and the space (and the
    backslash) written as ``\\xNN`` (or ``\\uNNNN``), at most ``limit`` characters
    of it, then ``...(N chars)`` when it was longer."""
    text = str(text)
    out = []
    size = 0
    for char in text:
        code = ord(char)
        if 0x20 <= code < 0x7f and char != "\\":
            piece = char
        elif code < 0x100:
            piece = f"\\x{code:02x}"
        else:
            piece = f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
        if size + len(piece) > limit:
            return "".join(out) + f"...({len(text)} chars)"
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _user(handler):
    """The name of the request's user, if the handler knows it, else ''."""
    try:
        user = handler.current_user
    except Exception:   # JupyterHub raises HTTPError, RuntimeError, ...
        return ""
    if user is None:
        return ""
    if isinstance(user, str):
        name = user
    elif isinstance(user, dict):
        name = user.get("name", "")
    else:
        name = getattr(user, "name", "")
    return escape(name, NAME_CHARS)


def summary(request):
    """A request, in short: its method, its path (escaped, truncated) and its client
    (``clients.describe``)."""
    return (f"{escape(request.method, NAME_CHARS)} {escape(request.path, PATH_CHARS)} "
            f"({clients.describe(request.connection, request.headers)})")


def line(status, request, user="", milliseconds=None, reason=""):
    """The one line about a request answered ``status``: at most
    :data:`LINE_CHARS` characters."""
    text = (f"{status} {escape(request.method, NAME_CHARS)} "
            f"{escape(request.path, PATH_CHARS)} "
            f"({user}@{clients.describe(request.connection, request.headers)})")
    if milliseconds is not None:
        text += f" {milliseconds:.2f}ms"
    if reason:
        text += f": {escape(reason, REASON_CHARS)}"
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 3] + "..."


def _level(handler, status):
    quiet = status < 300 and any(cls.__name__ in ("StaticFileHandler", "HealthCheckHandler")
                                 for cls in type(handler).__mro__)
    if status == 304 or quiet:
        return logging.DEBUG
    if status < 400:
        return logging.INFO
    if status < 500:
        return logging.WARNING
    return logging.ERROR


def log_request(handler, metrics=None):
    """Tornado's ``log_function``: one line about the request ``handler`` answered
    (static files and health checks answered well at DEBUG, as JupyterHub does)."""
    status = handler.get_status()
    request = handler.request
    milliseconds = 1000.0 * request.request_time()
    level = _level(handler, status)
    if milliseconds >= 1000 and level < logging.INFO:
        level = logging.INFO
    reason = getattr(handler, "_course_log_reason", "")
    access_log.log(level, "%s", line(status, request, _user(handler), milliseconds, reason))
    if metrics is not None:
        metrics(handler)


#: Why a token check failed, in its line: a server asks the hub about each token
#: it is sent, so the address in the line is the server's, and the token's sender
#: may be anyone who reached that server (a classmate flooding it).
TOKEN_CHECK_REASON = "a token it was sent (by anyone) is not valid"


def hub_log_request(handler):
    """:func:`log_request`, with the hub's per-request metrics (what JupyterHub's own
    ``log_request`` records besides its line); a failed check of a token says whose
    it may be (:data:`TOKEN_CHECK_REASON`)."""
    from jupyterhub.log import prometheus_log_method
    request = handler.request
    if (handler.get_status() in (401, 403, 404) and not _user(handler)
            and request_rates.is_token_check(request.method, request.path,
                                                request.headers)):
        handler._course_log_reason = TOKEN_CHECK_REASON
    log_request(handler, prometheus_log_method)


class _Tracebacks:
    """When a traceback was last logged per place in the code, and in all."""

    def __init__(self):
        self.last = {}     # place -> time of its last traceback
        self.window = []   # times of the tracebacks logged in the last window

    def allow(self, place, now):
        self.window = [t for t in self.window if now - t < TRACEBACK_EVERY]
        last = self.last.get(place)
        if (last is not None and now - last < TRACEBACK_EVERY) or \
                len(self.window) >= TRACEBACKS_PER_WINDOW:
            return False
        self.last.pop(place, None)
        self.last[place] = now
        if len(self.last) > _PLACES_KEPT:
            for old in list(self.last)[: len(self.last) - _PLACES_KEPT]:
                del self.last[old]
        self.window.append(now)
        return True


_tracebacks = _Tracebacks()


def _place(typ, tb):
    """Where an exception came from: its type and the innermost frame's file and line."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    last = frames[-1] if frames else None
    return (getattr(typ, "__name__", str(typ)),
            (last.filename, last.lineno) if last is not None else None)


def log_exception(self, typ, value, tb):
    """A Tornado handler's ``log_exception``: an ``HTTPError``'s message goes into the
    request's one line (:func:`log_request`); another exception into that line too,
    its traceback logged bounded and rarely (see the module's text)."""
    from tornado.web import HTTPError

    if isinstance(value, HTTPError):
        message = value.get_message() if hasattr(value, "get_message") else value.log_message
        if message:
            self._course_log_reason = message
        return
    self._course_log_reason = f"uncaught {getattr(typ, '__name__', typ)}"
    if _tracebacks.allow(_place(typ, tb), time.monotonic()):
        text = "".join(traceback.format_exception(typ, value, tb))
        if len(text) > TRACEBACK_CHARS:
            text = text[:TRACEBACK_CHARS // 2] + f"\n...({len(text)} chars)...\n" \
                + text[-TRACEBACK_CHARS // 2:]
        app_log.error("Uncaught exception %s (its traceback, not logged again from there "
                      "for %d s):\n%s", summary(self.request), TRACEBACK_EVERY, text)


def _request_summary(self):
    return summary(self.request)


def install():
    """Have every Tornado handler of this process summarize its request and log its
    exceptions as above (Tornado's ``RequestHandler._request_summary`` and
    ``log_exception``), and every logger of the process bound its messages
    (:class:`BoundedRecord`)."""
    from tornado import web

    web.RequestHandler._request_summary = _request_summary
    web.RequestHandler.log_exception = log_exception
    logging.setLogRecordFactory(BoundedRecord)


class BoundedRecord(logging.LogRecord):
    """A log record whose message is at most :data:`MESSAGE_CHARS` characters, and says
    how many more it had."""

    def getMessage(self):
        message = super().getMessage()
        if len(message) <= MESSAGE_CHARS:
            return message
        return (f"{message[:MESSAGE_CHARS]} ... ({len(message) - MESSAGE_CHARS} more "
                "characters, not logged)")
