"""Logins with the Unix password (PAM), in a line per client.

JupyterHub checks passwords on a pool of threads (``executor_threads``, 4 as it
ships), and Debian's ``login`` PAM service holds a thread 3 s after a wrong
password (``pam_faildelay``): about 1.3 wrong logins a second from one client
kept every thread asleep, and every honest login of the class waited behind
them. :class:`LoginLinesAuthenticator` gives each client (``clients.key``: the
proxy's last ``X-Forwarded-For`` entry, or the address a student's server
connects from) one password check at a time and a short line of its own
(:attr:`~LoginLinesAuthenticator.login_line`); a login beyond the line is
refused at once (429), and the refusals are logged at most once a minute per
client. A flooder so waits behind her own wrong passwords, as do only those
who share her address.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from jupyterhub.auth import PAMAuthenticator
from tornado import web
from traitlets import Integer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clients  # noqa: E402  (deploy/clients.py, next to this file)

__all__ = ["LoginLinesAuthenticator", "LOG_EVERY", "REFUSAL"]

#: What a refused login is told (the page of the 429 answer).
REFUSAL = ("Too many logins from this address at once: "
           "please try again in a few seconds.")
#: The least time between two log lines about one client's refused logins (s).
LOG_EVERY = 60.0
#: How many clients' tallies of refusals are kept before the old ones are dropped.
_TALLIES_KEPT = 4096


class _Line:
    """One client's logins: how many are being checked or waiting, and whose turn."""

    __slots__ = ("count", "turn")

    def __init__(self):
        self.count = 0
        self.turn = asyncio.Lock()   # first come, first checked


class LoginLinesAuthenticator(PAMAuthenticator):
    """PAM logins, one check at a time per client, a few more of it waiting."""

    # Each client has at most one check on the pool, so the pool is full only when
    # this many clients check at once. A thread waiting out pam_faildelay sleeps
    # (no CPU, a stack of virtual memory); 32 lets up to 31 flooding addresses
    # leave a thread free while costing the hub next to nothing. A correct
    # password costs one hash of the shadow file's (tens of ms of CPU), so 32
    # honest checks at once are a short burst on two cores, not a backlog.
    executor_threads = Integer(
        32, config=True,
        help="Threads checking passwords with PAM (each client uses one at most).")

    # A class behind one NAT address logs in at the start of a lecture: a correct
    # login takes about 0.06 s, so one at a time with 8 waiting lets nine
    # browsers of that address press "Sign in" at the same moment, all served
    # within a second (tests/hub/test_hub_login_limits.py: 30 logins from one
    # address, 9 at a time, the slowest in 0.49 s). A flooder's line costs her
    # own address up to 8 x 3 s of waiting, and the hub a few coroutines.
    login_line = Integer(
        8, config=True,
        help="Logins of one client that may wait while one of its own is checked; "
             "more at once are refused (429).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._lines = {}     # clients.key -> _Line, while it has logins in hand
        self._refused = {}   # clients.key -> [refused since the last line, its time]

    async def authenticate(self, handler, data):
        request = handler.request
        key = clients.key(request.connection, request.headers)
        line = self._lines.setdefault(key, _Line())
        if line.count > self.login_line:
            self._refuse(key, clients.describe(request.connection, request.headers))
        line.count += 1
        try:
            async with line.turn:
                name = await super().authenticate(handler, data)
            if name is None:
                # JupyterHub's own line names request.remote_ip, which Tornado takes
                # from X-Real-IP (or, on a student's direct connection,
                # X-Forwarded-For), whatever the sender wrote, unless request_bodies.py
                # has set it to the client: this one names the client as the limits
                # count it, whichever server runs it, for fail2ban and the instructor
                said = str(data.get("username", ""))
                if len(said) > 32:
                    said = f"{said[:16]}...({len(said)} chars)"
                self.log.warning("Failed login for %r from client %s", said,
                                 clients.client(request.connection, request.headers))
            return name
        finally:
            line.count -= 1
            if not line.count:
                del self._lines[key]

    def _refuse(self, key, who):
        """Refuse a login of client ``key`` (``who``, for the log) with a 429; log it
        unless a line about this client was written less than LOG_EVERY ago."""
        now = time.monotonic()
        tally = self._refused.get(key)
        if tally is None or now - tally[1] >= LOG_EVERY:
            refused = (tally[0] if tally else 0) + 1
            self.log.warning(
                "Too many logins at once from client %s: refused %d login(s) since the "
                "last line about it (at most 1 checked and %d waiting per client; "
                "next line about it at the earliest in %d s)",
                who, refused, self.login_line, LOG_EVERY)
            self._refused.pop(key, None)
            self._refused[key] = [0, now]
            if len(self._refused) > _TALLIES_KEPT:   # oldest first (insertion order)
                for old in list(self._refused)[: len(self._refused) - _TALLIES_KEPT]:
                    del self._refused[old]
        else:
            tally[0] += 1
        error = web.HTTPError(429, reason="Too Many Logins")
        # the page's text; no log_message, so Tornado does not log each refusal
        error.jupyterhub_message = REFUSAL
        raise error
