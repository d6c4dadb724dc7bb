"""What one student can hold of the front proxy (deploy/nginx-course.conf), played
through the chain a request takes without a hub: a real nginx with the course's
example config over HTTPS (tests/fronts.py, with the worker settings
deploy/README.md asks of nginx.conf), the installed proxy with its limits
(tests/proxies.py), and a Tornado server standing for the hub and the users'
servers, which counts what reaches it.

As first shipped, the example let one student, from one address:

- open 766 websockets, each two of nginx's connections, and take every one of
  nginx's connections (Debian's 768 per worker): her classmates' logins failed;
- send a 60 MiB body all but its end, which nginx kept whole in its files before
  the hub saw a byte: 64 MiB of disk a connection, under no limit of the hub's;
- ask for a large answer and read nothing, which nginx took from the hub into its
  files (up to 1 GiB a request);
- flood a classmate's server with requests it answers 403 on its own CPU;
- and then, with rates per server, name a new server each time by a backslash
  (``/user/<any>\\..\\bob/``: a name to nginx, a ``/`` to the proxy), and fill
  nginx's logs with a line per refusal (6 MB a second).

Here: her websockets beyond the cap per address are refused 429 and bob is
answered at once; a body reaches the server as it comes; an answer she does not
read stays mostly unsent by the server; and her requests to bob's server are
held to its rate (429 beyond), while bob's own and hers to her own server go
through; a backslash in the path is refused 400; a refusal for a rate is
logged at info, left out of an error log at error, and a 429 has no access
line.
"""

import concurrent.futures
import http.client
import json
import os
import re
import socket
import time
from pathlib import Path

import pytest
from fronts import running_front
from proxies import kept_alive_statuses, running_proxy

pytestmark = pytest.mark.slow

FRONT = "127.0.0.30"
ADA, BOB = "127.0.0.21", "127.0.0.22"
CONF = Path(__file__).resolve().parents[2] / "deploy" / "nginx-course.conf"
PER_ADDRESS = int(re.search(r"limit_conn course_per_address (\d+);", CONF.read_text()).group(1))
BIG = 64 << 20

UPSTREAM = r"""
import asyncio, json, sys
from tornado import httpserver, web, websocket

seen = {"body": 0, "big": 0, "sockets": 0}

class State(web.RequestHandler):
    def get(self):
        self.write(json.dumps(seen))

@web.stream_request_body
class Body(web.RequestHandler):
    def data_received(self, chunk):
        seen["body"] += len(chunk)
    def post(self):
        self.write("ok")

class Big(web.RequestHandler):
    async def get(self):
        chunk = b"x" * (1 << 20)
        for _ in range(%d >> 20):
            self.write(chunk)
            await self.flush()
            seen["big"] += len(chunk)

class Socket(websocket.WebSocketHandler):
    def open(self):
        seen["sockets"] += 1
    def on_close(self):
        seen["sockets"] -= 1

class Page(web.RequestHandler):
    def get(self):
        self.write("page")

async def main():
    app = web.Application([(r"/state", State), (r"/body", Body), (r"/big", Big),
                           (r"/user/[^/]+/ws", Socket), (r"/.*", Page)],
                          websocket_ping_interval=0)
    server = httpserver.HTTPServer(app, xheaders=True, max_body_size=1 << 30)
    server.listen(int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()

asyncio.run(main())
""" % BIG


@pytest.fixture(scope="module")
def front(installed, tmp_path_factory):
    """nginx (from FRONT) in front of the proxy in front of UPSTREAM: (nginx's port,
    its TLS context, the proxy's port, nginx's folder)."""
    folder = tmp_path_factory.mktemp("front-limits")
    saved = os.environ.get("KERNEL_COURSE_FRONT_PROXIES")
    os.environ["KERNEL_COURSE_FRONT_PROXIES"] = FRONT
    try:
        with running_proxy(installed, folder, UPSTREAM) as (port, _, _), \
                running_front(folder / "nginx", port, FRONT) as (front_port, tls, nginx):
            yield front_port, tls, port, nginx
    finally:
        if saved is None:
            os.environ.pop("KERNEL_COURSE_FRONT_PROXIES", None)
        else:
            os.environ["KERNEL_COURSE_FRONT_PROXIES"] = saved


def state(front):
    conn = http.client.HTTPConnection("127.0.0.1", front[2], timeout=30)
    conn.request("GET", "/state")
    return json.loads(conn.getresponse().read())


def connect(front, source):
    port, tls = front[:2]
    raw = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    return tls.wrap_socket(raw, server_hostname="127.0.0.1")


def get(front, source, path):
    """(status, seconds) of one GET through the front from ``source``."""
    port, tls = front[:2]
    started = time.monotonic()
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=60,
                                       source_address=(source, 0))
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        return answer.status, time.monotonic() - started
    finally:
        conn.close()


def flood(front, source, paths, threads=16):
    """GET each of ``paths`` through the front from ``source``, on ``threads``
    connections kept alive: the statuses."""
    port, tls = front[:2]
    share = [paths[k::threads] for k in range(threads)]

    def run(mine):
        return kept_alive_statuses(
            lambda: http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=60,
                                                source_address=(source, 0)), mine)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return [status for part in pool.map(run, share) for status in part]


def open_websocket(front, source, path):
    """A websocket through the front: (the socket or None, the status)."""
    try:
        sock = connect(front, source)
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            got = sock.recv(4096)
            if not got:
                break
            head += got
        status = int(head.split(b" ", 2)[1]) if head else 0
    except OSError:
        return None, 0
    if status != 101:
        sock.close()
        return None, status
    return sock, status


def test_her_websockets_past_her_cap_are_refused_and_bob_is_answered(front):
    """Each websocket is two of nginx's connections; with nginx's workers set as
    deploy/README.md says, one address's cap leaves room for every classmate."""
    opened, statuses = [], []
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        # to the servers of 20 students (a class behind her address): each server's
        # rate of requests (its burst) is not what stops them
        for sock, status in pool.map(lambda n: open_websocket(front, ADA, f"/user/s{n % 20}/ws"),
                                     range(PER_ADDRESS + 100)):
            statuses.append(status)
            if sock is not None:
                opened.append(sock)
    try:
        assert len(opened) == PER_ADDRESS, {s: statuses.count(s) for s in set(statuses)}
        assert statuses.count(429) == 100, {s: statuses.count(s) for s in set(statuses)}
        for path in ("/hub/login", "/user/bob/lab"):
            status, took = get(front, BOB, path)
            assert status == 200 and took < 5, (path, status, took)
    finally:
        for sock in opened:
            sock.close()


def test_a_body_reaches_the_server_as_it_comes_not_kept_whole_first(front):
    """60 MiB announced, 8 MiB sent and held: the server has them (nginx keeps
    nothing whole in its files; the hub's own limits on bodies apply)."""
    before = state(front)["body"]
    sock = connect(front, ADA)
    try:
        sock.sendall(b"POST /body HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Length: %d\r\n\r\n" % (60 << 20))
        sock.sendall(b"b" * (8 << 20))
        deadline = time.monotonic() + 30
        while (got := state(front)["body"] - before) < (6 << 20):
            assert time.monotonic() < deadline, f"the server has {got} bytes of 8 MiB sent"
            time.sleep(0.3)
    finally:
        sock.close()


def test_an_answer_she_does_not_read_is_not_taken_from_the_server_whole(front):
    """She asks for 64 MiB and reads nothing: what the server has sent stays within
    the sockets' and nginx's buffers in memory (with nginx's files, all of it)."""
    before = state(front)["big"]
    sock = connect(front, ADA)
    try:
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(8)
        sent = state(front)["big"] - before
        assert 0 < sent <= 32 << 20, sent
    finally:
        sock.close()


def test_her_flood_of_bobs_server_is_held_to_its_rate_and_bob_is_not(front):
    """Her requests to bob's server, past its burst, are refused 429 at the front;
    bob's own, and hers to her own server, go through. His name with no "/" after it
    is his server's too: it counted under an empty name, a second rate of its own."""
    spellings = ["/user/bob/api/status", "/user/bob?x=1", "/user/bob"]
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda i: get(front, ADA, spellings[i % 3])[0], range(800)))
    took = time.monotonic() - started
    # the burst of 300, then 50 a second, and every other one refused: however long
    # the 800 took on a busy machine, what the rate lets through and no more
    allowed = 300 + 50 * took + 1
    counts = {s: statuses.count(s) for s in set(statuses)}
    assert set(counts) <= {200, 429}, counts
    assert counts.get(200, 0) <= allowed, (counts, took)
    assert counts.get(429, 0) >= 800 - allowed, (counts, took)
    assert get(front, BOB, "/user/bob/api/status")[0] == 200
    assert get(front, ADA, "/user/ada/api/status")[0] == 200


def test_a_backslash_in_the_path_is_refused_not_a_new_name_to_every_rate(front):
    """nginx reads ``\\`` as a character of a name, the proxy as ``/``:
    ``/user/<any>\\..\\bob/`` reached bob's server under a new rate each time. And a
    target beginning ``//``: nginx merges the slashes, the proxy reads a host, so
    ``//x/user/bob/`` reached bob's server at the rate of the rest. And an encoded
    "/" beside "..", or an encoded ".": nginx decodes, then resolves the "..", the
    proxy does not, so ``/user/bob%2F..%2F<any>/`` reached bob's server under a new
    rate each time; and ``/user/bob//../<any>/``: nginx merges the slashes, then
    resolves the "..", the proxy drops the empty segment only; and ``/user/bob//..#``:
    nginx ends the path at the "#" (so the path is ``/user/``, the empty name's
    rate), the proxy sends it to bob's server."""
    for path in ("/user/x1\\..\\bob/api/status", "/user/x2\\..\\..\\hub/login", "/hub\\login",
                 "//x/user/bob/api/status", "//hub/user/bob/api/status",
                 "//user/user/bob/api/status", "/user/bob%2F..%2Fx1/api/status",
                 "/user/bob%2f..%2f..%2fhub/login", "/user/bob/..%2F..%2Fx2/api/status",
                 "/user/bob%2F%2e%2E%2Fx3/api/status", "/user/%2e%2e/user/bob/api/status",
                 "/user/bob//../x4/api/status", "/user/bob///../../hub/login",
                 "/user/bob/./../x5/api/status", "/user/bob//./../x6/api/status",
                 "/user/bob/..", "/user/bob//..#", "/user/bob//..#x7/api/status",
                 "/hub//..#", "/user/bob/api/status#x8", "/user/bob/api/status?a=1#x9"):
        assert get(front, ADA, path)[0] == 400, path
    # a ".." or a "%2F" in the query is not a path's, nor a name beginning "." a
    # dot segment
    assert get(front, BOB, "/user/bob/api/status?next=..%2F..%2Fx")[0] == 200
    assert get(front, BOB, "/user/bob/api/contents/.ipynb_checkpoints/..x")[0] == 200


def test_what_is_refused_for_its_rate_fills_no_log(front):
    """A refusal's line is at info (nginx's error_log is at error unless told), and a
    429 has no access line."""
    folder = Path(front[3])
    refused = flood(front, "127.0.0.24", ["/user/bob/api/status"] * 600)
    assert refused.count(429) >= 50, refused
    time.sleep(1)
    errors = (folder / "error.log").read_text()
    limiting = [line for line in errors.splitlines() if "limiting requests" in line]
    assert limiting and all("[info]" in line for line in limiting), limiting[:3]
    access = (folder / "course.access.log").read_text()
    assert " 429 " not in access and " 200 " in access, access[-500:]
