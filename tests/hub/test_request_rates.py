"""How many requests a Tornado server of the course takes from one client
(deploy/request_rates.py).

Played without a hub on a Tornado server as the course runs its own (its
request bodies bounded, then rated, as the hub is), at 20 requests a second, 20
at once and 20 waiting: one client's 120 requests at once get 20 answers at
once, 20 within their turns and 80 refusals (429, Retry-After) before any
handler, while another client is answered at once; a pipelined flood ends at its
rate; the log says so once per client; the machine's own processes
are not counted; token checks are counted apart, so a server whose rate is spent
still checks tokens; what a client writes in X-Forwarded-For from an address
other than the proxy's gains it nothing; and made-up addresses keep nothing once
their requests stop. The real hub is flooded in tests/hub/test_hub_rates.py.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
RATE, BURST, QUEUE = 20, 20, 20

SERVER = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
import request_bodies, request_rates
from tornado import httpserver, web

answered = {"n": 0}

class Count(web.RequestHandler):
    def get(self):
        answered["n"] += 1
        self.finish("ok")

    post = get

class State(web.RequestHandler):
    def get(self):
        self.finish(json.dumps({"answered": answered["n"], "refused": rates.refused,
                                "kept": len(rates.requests.clear)}))

async def main():
    global rates
    # as the hub: both wrappers installed for every server, rates outermost
    request_rates.rate_every_server(20, 20, 20, name="test", checks=request_rates.is_token_check)
    request_bodies.bound_every_server(1 << 20, "test")
    server = httpserver.HTTPServer(web.Application(
        [("/state", State), (".*", Count)]))
    server.listen(0, "127.0.0.1")
    rates = server.request_callback
    assert isinstance(rates, request_rates.Rates), rates
    assert isinstance(rates.inner, request_bodies.Budget), rates.inner
    port = next(iter(server._sockets.values())).getsockname()[1]
    print(port, flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.fixture
def server():
    """(port, process) of a rated server, its log on stderr."""
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(DEPLOY)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    yield port, proc
    proc.kill()
    proc.wait()


def log_of(proc):
    proc.kill()
    return proc.communicate()[1]


def ask(port, path="/x", source="127.0.0.1", forwarded=None, method="GET", token=None,
        cookie=None):
    """(status, the answer's headers, seconds) of one request on a connection of its
    own, from ``source``, with ``X-Forwarded-For: forwarded``, a ``token`` in its
    ``Authorization`` header and a ``cookie`` when given."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                      source_address=(source, 0))
    headers = {name: value for name, value in (("X-Forwarded-For", forwarded),
               ("Authorization", token and f"token {token}"), ("Cookie", cookie)) if value}
    try:
        conn.request(method, path, headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status, answer.headers, time.monotonic() - started
    finally:
        conn.close()


def at_once(count, *args, each=None, **kwargs):
    """``count`` requests sent together, each on its own connection (the ``i``-th
    with the further keywords ``each(i)``): their answers."""
    answers, threads = [None] * count, []
    for i in range(count):
        def one(i=i):
            answers[i] = ask(*args, **kwargs, **(each(i) if each else {}))
        threads.append(threading.Thread(target=one))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def state(port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while part := s.recv(1 << 16):
            data += part
    return json.loads(data.partition(b"\r\n\r\n")[2])


def test_one_clients_flood_is_answered_at_its_rate_and_anothers_at_once(server):
    port, proc = server
    flood = at_once(120, port, forwarded="127.0.0.5")
    statuses = [status for status, _, _ in flood]
    # 20 at once and 20 in their turns, while the 120 arrive over a second or two:
    # the rate's own requests of that time may be answered too
    answered = statuses.count(200)
    assert BURST + QUEUE <= answered <= BURST + QUEUE + 3 * RATE, statuses
    assert statuses.count(429) == 120 - answered, statuses
    refused = [headers for status, headers, _ in flood if status == 429]
    assert all(int(headers["Retry-After"]) >= 1 for headers in refused), refused[:1]
    # the ones that waited their turn were answered within the queue's time
    assert max(seconds for status, _, seconds in flood if status == 200) < 10
    # a classmate, at once
    status, _, seconds = ask(port, forwarded="127.0.0.6")
    assert status == 200 and seconds < 2
    assert state(port)["answered"] == answered + 1
    # one line, naming her, with the count
    lines = [line for line in log_of(proc).splitlines() if "429 test GET" in line]
    assert len(lines) == 1 and "from client 127.0.0.5" in lines[0], lines


def test_a_pipelined_flood_is_answered_at_the_rate(server):
    """500 requests pipelined on one connection wait their turns one by one: in 3 s,
    its burst and the rate's 60 answered, no more."""
    port, _ = server
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
        s.sendall(b"".join(b"GET /x HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 127.0.0.7\r\n\r\n"
                           for _ in range(500)))
        data, until = b"", time.monotonic() + 3
        while time.monotonic() < until:
            try:
                data += s.recv(1 << 16)
            except TimeoutError:
                pass
    answers = data.count(b"HTTP/1.1 200")
    assert BURST + RATE <= answers <= BURST + 4 * RATE, answers
    time.sleep(0.5)
    # and the server handled no more than the rate allows (of 500)
    assert state(port)["answered"] <= BURST + 5 * RATE


def test_the_machines_own_processes_are_not_counted(server):
    port, _ = server
    statuses = [status for status, _, _ in at_once(120, port)]
    assert statuses == [200] * 120


def test_token_checks_are_counted_apart(server):
    port, _ = server
    # her server's requests spent its rate
    spent = [status for status, _, _ in at_once(120, port, forwarded="127.0.0.8")]
    assert 429 in spent
    # its checks of the tokens it is sent go on (a token in the header, no cookie)
    status, _, _ = ask(port, "/hub/api/user?x=1", forwarded="127.0.0.8", token="t")
    assert status == 200
    # her own model asked with her cookie is no check of a server's: 60 at once are
    # past the rest's 20 and 20 waiting, not the checks' 40 and 40
    mine = [status for status, _, _ in at_once(60, port, "/hub/api/user",
                                                forwarded="127.0.0.10", token="t", cookie="c")]
    assert 429 in mine, mine
    status, _, _ = ask(port, "/hub/api/oauth2/token", forwarded="127.0.0.8", method="POST")
    assert status == 200
    # and have a rate of their own: twice the rest's
    checks = [status for status, _, _ in at_once(240, port, "/hub/api/user",
                                                  forwarded="127.0.0.9", token="t")]
    assert 429 in checks and checks.count(200) >= 2 * (BURST + QUEUE), checks.count(200)


def test_what_a_client_writes_in_x_forwarded_for_gains_it_nothing(server):
    """From an address other than the proxy's (a student's joined server), each
    request naming a client of its own: one client, refused past its rate."""
    port, _ = server
    statuses = [status for status, _, _ in at_once(
        120, port, source="127.128.0.9", each=lambda i: {"forwarded": f"198.51.100.{i}"})]
    assert BURST + QUEUE <= statuses.count(200) <= BURST + QUEUE + 3 * RATE, statuses
    assert statuses.count(429) == 120 - statuses.count(200)


def test_made_up_addresses_keep_nothing_once_their_requests_stop(server):
    port, _ = server
    for i in range(1000):
        assert ask(port, forwarded=f"10.9.{i // 250}.{i % 250}")[0] == 200
    assert state(port)["kept"] >= 1   # those of the last moments
    time.sleep(5.5)    # request_rates.SWEEP_EVERY, then one request to sweep
    assert ask(port, forwarded="10.8.0.1")[0] == 200
    assert state(port)["kept"] <= 2
