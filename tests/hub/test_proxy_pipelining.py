"""The hub's proxy passes on a connection's pipelined requests one at a time
(deploy/proxy_pipelining.js, loaded into configurable-http-proxy with the proxy's
other limits, deploy/proxy_limits.js, as the hub starts it).

configurable-http-proxy, as it ships, starts every request a connection
pipelines at once, each on a new connection to its server, and keeps them
while the client does not read, and after it has gone: a student's 100
pipelined requests for a 2.2 MB book file on each of 60 connections left 5,862
connections and 968 MB in the proxy. Played on the installed proxy in front of
a server that counts the requests it is answering: one connection pipelines
100 requests for 2 MB each and reads nothing; the server answers one at a time,
and none once the client has gone. An honest client that reads gets all its
answers, in order; one that pipelines more than 32 waiting is cut off. Without
the script the server answers them all at once.
"""

import socket
import time

import pytest
import requests
from proxies import running_proxy

pytestmark = pytest.mark.slow

UPSTREAM = r"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock, state = threading.Lock(), {"now": 0, "most": 0, "done": 0}
BIG = b"x" * (2 << 20)
class Answer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path == "/state":
            with lock:
                body = json.dumps(state).encode()
        else:
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            body = BIG if self.path.startswith("/big") else self.path.encode()
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        finally:
            if self.path != "/state":
                with lock:
                    state["now"] -= 1
                    state["done"] += 1
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Answer).serve_forever()
"""


@pytest.fixture(params=["with", "without"])
def proxy(request, installed, tmp_path):
    """The installed proxy (with the script, as the hub starts it, or without) in
    front of UPSTREAM: (with or without, its port, the upstream's port)."""
    with running_proxy(installed, tmp_path, UPSTREAM, limits=request.param == "with") as (
            port, upstream, _):
        yield request.param, port, upstream


def state(upstream):
    return requests.get(f"http://127.0.0.1:{upstream}/state", timeout=10).json()


def pipelined(paths):
    return "".join(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n" for path in paths).encode()


def test_pipelined_requests_reach_the_server_one_at_a_time(proxy):
    kind, port, upstream = proxy
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(pipelined([f"/big/{n}" for n in range(30)]))
    time.sleep(3)
    busy = state(upstream)
    s.close()                      # and goes, having read nothing
    if kind == "without":          # the attack as measured: started at once, whether
        # she reads or not (how many overlap depends on how fast the server
        # answers: 8 to 30 of them)
        assert busy["most"] >= 2 and busy["done"] + busy["now"] >= 10, busy
        return
    end = time.monotonic() + 30
    while state(upstream)["now"] and time.monotonic() < end:
        time.sleep(0.5)
    after = state(upstream)
    assert busy["most"] == 1, busy
    assert after["now"] == 0 and after["done"] <= 2, after


def test_an_honest_pipelining_client_gets_every_answer_in_order(proxy):
    kind, port, upstream = proxy
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(pipelined([f"/n/{n}" for n in range(20)]))
        got, end = b"", time.monotonic() + 60
        while got.count(b"HTTP/1.1 200") < 20 or not got.endswith(b"/n/19"):
            assert time.monotonic() < end, got[-500:]
            got += s.recv(1 << 16)
    bodies = [part.rsplit(b"\r\n\r\n", 1)[-1][:8].decode() for part in got.split(b"HTTP/1.1 200")[1:]]
    assert [body.split("/")[-1] for body in bodies] == [str(n) for n in range(20)], bodies


def test_a_connection_with_too_many_waiting_is_cut_off(proxy):
    kind, port, upstream = proxy
    if kind == "without":
        pytest.skip("as configurable-http-proxy ships, nothing cuts it off")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(pipelined([f"/big/{n}" for n in range(40)]))
        time.sleep(2)
        s.settimeout(10)
        closed = False
        try:
            while s.recv(1 << 16):
                pass
            closed = True
        except (ConnectionResetError, TimeoutError, socket.timeout) as e:
            closed = isinstance(e, ConnectionResetError)
    assert closed
    assert state(upstream)["most"] == 1
