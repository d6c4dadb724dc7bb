"""How many requests a Tornado server of the course takes from one client.

The proxy rates what each client sends to the users' servers
(proxy_rates.js), and a front proxy rates what reaches the machine
(nginx-course.conf). Nothing rated what reached the hub's own pages and API
from a student's server: through the public port around the front, or on the
hub's API port, which her server must reach. Measured on the course's hub: a
classmate's login went from 0.25 s to 0.6-2.6 s while her server sent requests
as fast as it could, and pipelined requests for pages that do not exist wrote
326 KB of the hub's log a second (its 500 MB in about 25 minutes).

So the hub, the book service and ngshare each take requests from one client
(``clients.key``: the address the proxy or a trusted front names, or the joined
address of a student's server) at most at ``rate`` a second: ``burst`` of them at
once, then ``queue`` more waiting their turn, as nginx's ``limit_req`` with
``burst`` and ``delay`` does (the hub's defaults, 50 a second, 500 at once and
500 waiting, are nginx-course.conf's for the hub). A request beyond that is
answered 429 with ``Retry-After`` before any handler (so before its body is
read, its login checked or its line logged) and its connection closed, which
also ends what was pipelined behind it. The server's log says so at most once a
minute per client, with the number refused since. A request waiting its turn
holds its connection and its headers, nothing more: Tornado reads no more of
the connection until it is handed on.

Two kinds of request are counted apart:

- the machine's own processes (the hub's services and the instructors' servers),
  which connect from the proxy's address (``clients.PROXY``) with no
  ``X-Forwarded-For``, are not counted: they are the course's;
- a server's checks of the tokens it is sent (``GET /hub/api/user`` with the
  token in its ``Authorization`` header and no cookie, as a server asks it, and
  the OAuth code it trades for one) have a bucket of their own per client
  (``checks``), at twice the rate: a student who sends bob's server requests with made-up tokens
  makes *his* server ask the hub about each one, from *his* address. With them in
  one bucket she would spend his rate, and his own requests would be refused.
  The proxy lets her send his server at most its own rate (proxy_rates.js), which
  is well under his checks' rate, so she alone cannot spend it.

What is kept of a client is dropped once its line is clear again, so made-up
addresses (many IPv6 ones, say) keep nothing once their requests have stopped.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time

from tornado import httputil

import clients  # deploy/clients.py, next to this file
import request_bodies  # deploy/request_bodies.py, next to this file

__all__ = ["BURST", "RATE", "Rates", "TOKEN_CHECKS", "is_token_check", "rate",
           "rate_every_server"]

#: The requests a server sends the hub to check a token it was given: its own
#: (JupyterHub's HubAuth) and the OAuth code a login to it trades for one.
TOKEN_CHECKS = (("GET", "/hub/api/user"), ("POST", "/hub/api/oauth2/token"))
#: The rate of the course's Tornado servers: requests a second from one client, and
#: how many at once (as many again may wait their turn). nginx-course.conf's for the
#: hub.
RATE, BURST = 50.0, 500
#: How often (s) a client's refusals are logged, at most.
LOG_EVERY = 60.0
#: How often (s) full buckets are dropped, at most.
SWEEP_EVERY = 5.0

log = logging.getLogger("tornado.access")


class _Counter:
    """Per client, requests taken at ``rate`` a second: ``burst`` of them at once,
    then up to ``queue`` more waiting their turn, the rest refused. (A
    token bucket of ``burst`` with a line of ``queue`` behind it, kept as the time
    its client's line is clear: nginx's ``limit_req ... burst= delay=``.)"""

    def __init__(self, rate, burst, queue, clock):
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise ValueError(f"rate must be a positive number of requests a second, "
                             f"not {rate!r}")
        for name, value, least in (("burst", burst, 1), ("queue", queue, 0)):
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= least):
                raise ValueError(f"{name} must be a whole number of requests >= {least}, "
                                 f"not {value!r}")
        self.rate, self.burst, self.queue, self.clock = float(rate), burst, queue, clock
        #: {client's key: when its line is clear (its bucket full again)}
        self.clear = {}
        self.swept = clock()

    def take(self, key):
        """Seconds the client's next request waits (0: at once), or None: refused."""
        now = self.clock()
        if now - self.swept >= SWEEP_EVERY:
            self.swept = now
            self.clear = {k: t for k, t in self.clear.items() if t > now}
        clear = max(self.clear.get(key, now), now)
        wait = max(0.0, clear - self.burst / self.rate - now)
        if wait > self.queue / self.rate:
            return None
        self.clear[key] = clear + 1 / self.rate
        return wait

    def retry_after(self, key):
        """Whole seconds until ``key`` has a request at once again (at least 1)."""
        now = self.clock()
        short = self.clear.get(key, now) - self.burst / self.rate - now
        return max(1, math.ceil(short))


def is_token_check(method, path, headers):
    """Whether a request to the hub is a server's check of a token (:data:`TOKEN_CHECKS`,
    ``path`` without its query): its OAuth code, or ``GET /hub/api/user`` with the
    token in the ``Authorization`` header and no cookie, as a server asks it (a
    browser asking for its own model by its cookie is not one)."""
    if (method.upper(), path) not in TOKEN_CHECKS:
        return False
    return path != "/hub/api/user" or ("Authorization" in headers and "Cookie" not in headers)


class Rates(httputil.HTTPServerConnectionDelegate):
    """The request handling of a Tornado server (``inner``), taking from each client
    at most ``rate`` requests a second, ``burst`` at once and ``queue`` more waiting
    their turn; the requests ``checks(method, path, headers)`` says are token checks
    (``path`` without its query; :func:`is_token_check` for the hub) are counted
    apart, at twice that."""

    def __init__(self, inner, rate, burst, queue=None, name="server", checks=None,
                 clock=time.monotonic):
        if not isinstance(inner, httputil.HTTPServerConnectionDelegate):
            raise TypeError(f"request_rates.Rates needs a Tornado request delegate, "
                            f"not {inner!r}")
        queue = burst if queue is None else queue
        self.inner, self.name, self.clock = inner, name, clock
        self.requests = _Counter(rate, burst, queue, clock)
        self.checks = _Counter(2 * rate, 2 * burst, 2 * queue, clock)
        self.is_check = checks or (lambda method, path, headers: False)
        #: {client's key: (refusals not yet logged, when last logged)}
        self.refusals = {}
        self.refused = 0

    def counted(self, start_line, connection, headers):
        """The counter a request is counted by, and its client's key; (None, None)
        for the machine's own processes."""
        if (clients.client(connection, headers) in clients.PROXY
                and not headers.get("X-Forwarded-For", "").strip()):
            return None, None
        key = clients.key(connection, headers)
        if self.is_check(start_line.method, start_line.path.split("?", 1)[0], headers):
            return self.checks, key
        return self.requests, key

    def refuse(self, counter, key, start_line, connection, headers):
        """Count a refusal, log it (at most once a minute per client); the seconds
        its client should wait."""
        self.refused += 1
        now = self.clock()
        waiting, logged = self.refusals.get(key, (0, None))
        waiting += 1
        if logged is None or now - logged >= LOG_EVERY:
            kind = "token checks" if counter is self.checks else "requests"
            log.warning("429 %s %s (@%s): more than %g %s a second from client %s (%d at "
                        "once, %d waiting); %d refused since the last such line",
                        self.name, repr(start_line.method[:16])[1:-1],
                        clients.describe(connection, headers), counter.rate, kind, key,
                        counter.burst, counter.queue, waiting)
            if len(self.refusals) > 1024:   # the lines of a minute ago are done with
                self.refusals = {k: v for k, v in self.refusals.items()
                                 if now - v[1] < LOG_EVERY}
            self.refusals[key] = (0, now)
        else:
            self.refusals[key] = (waiting, logged)
        return counter.retry_after(key)

    def start_request(self, server_conn, request_conn):
        return _Rated(self, server_conn, request_conn)

    def on_close(self, server_conn):
        self.inner.on_close(server_conn)


class _Rated(httputil.HTTPMessageDelegate):
    """One request: handed on to the server's handling at once or after its turn
    in its client's line, or answered 429 and its connection closed."""

    def __init__(self, rates, server_conn, connection):
        self.rates, self.server_conn, self.connection = rates, server_conn, connection
        self.inner = None
        self.gone = False

    def headers_received(self, start_line, headers):
        rates = self.rates
        wait = 0.0
        if isinstance(start_line, httputil.RequestStartLine):
            counter, key = rates.counted(start_line, self.connection, headers)
            if counter is not None:
                wait = counter.take(key)
                if wait is None:
                    self._answer_and_close(
                        rates.refuse(counter, key, start_line, self.connection, headers))
                    return None
        if wait <= 0:
            return self._hand_on(start_line, headers)
        # Tornado reads nothing more of the connection until this is done
        return self._after(wait, start_line, headers)

    async def _after(self, wait, start_line, headers):
        await asyncio.sleep(wait)
        if not self.gone:
            handed = self._hand_on(start_line, headers)
            if handed is not None:
                await handed

    def _hand_on(self, start_line, headers):
        self.inner = self.rates.inner.start_request(self.server_conn, self.connection)
        return self.inner.headers_received(start_line, headers)

    def data_received(self, chunk):
        if self.inner is not None:
            return self.inner.data_received(chunk)
        return None

    def finish(self):
        if self.inner is not None:
            self.inner.finish()

    def on_connection_close(self):
        self.gone = True
        if self.inner is not None:
            self.inner.on_connection_close()

    def _answer_and_close(self, retry_after):
        body = b"Too many requests from this address at once: try again in a moment\n"
        request_bodies.answer_and_close(self.connection, (
            b"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n"
            b"Retry-After: %d\r\nContent-Type: text/plain\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (retry_after, len(body), body)))


def rate(server, rate, burst, queue=None, name="server", checks=None):
    """Make the Tornado ``HTTPServer`` ``server`` take from each client at most
    ``rate`` requests a second, ``burst`` at once and ``queue`` more (``burst`` by
    default) waiting their turn (its token ``checks`` counted apart), before
    anything else it does with a request; its Rates."""
    if not isinstance(server.request_callback, Rates):
        server.request_callback = Rates(server.request_callback, rate, burst, queue,
                                        name, checks)
    return server.request_callback


def rate_every_server(rate_, burst, queue=None, name="server", checks=None):
    """:func:`rate` every Tornado ``HTTPServer`` this process starts listening (for a
    program that makes its own, such as JupyterHub), once it is listening: outside
    whatever else wraps its handling when it listens (request_bodies.py)."""
    from tornado.httpserver import HTTPServer

    listen = HTTPServer.listen
    if getattr(listen, "rated", False):
        return

    def rated_listen(self, *args, **kwargs):
        listened = listen(self, *args, **kwargs)
        rate(self, rate_, burst, queue, name, checks)
        return listened

    rated_listen.rated = True
    HTTPServer.listen = rated_listen
