"""The hub's proxy answers 400 to a request whose target it cannot read
(deploy/proxy_paths.js, loaded with the proxy's other limits,
deploy/proxy_limits.js, as the hub starts it).

configurable-http-proxy reads each target as a URL and percent-decodes its path;
a target that fails either threw inside it, and each wrote a stack trace of a
kilobyte and more, the target echoed, to the hub's log, naming no client: 300 a
second from a student's server grew the log by 3.5 MB/s. Played on the installed
proxy in front of a small server: such targets, and a websocket's upgrade to
one, are answered 400 and the log takes nothing of them, while a readable target
is passed on; without the script each is an error with its trace in the log.
"""

import http.client
import socket
import time

import pytest
from proxies import ANSWERING, running_proxy

pytestmark = pytest.mark.slow

UNREADABLE = ["//0999999999/x?" + "a" * 2000, "/user/%zz/api/status", "//[::1/x"]


def status(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                      source_address=("127.0.0.21", 0))
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize("limits", [True, False], ids=["with", "without"])
def test_a_target_the_proxy_cannot_read_is_refused_without_a_trace(installed, tmp_path, limits):
    with running_proxy(installed, tmp_path, ANSWERING, limits=limits) as (port, _, log):
        before = log.stat().st_size
        statuses = [status(port, path) for path in UNREADABLE * 10]
        s = socket.create_connection(("127.0.0.1", port), timeout=30,
                                     source_address=("127.0.0.21", 0))
        s.sendall(b"GET /user/%zz/api/kernels/1/channels HTTP/1.1\r\nHost: x\r\n"
                  b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        first = s.recv(4096).split(b"\r\n", 1)[0]
        s.close()
        time.sleep(0.5)
        grown = log.read_bytes()[before:].decode(errors="replace")
        if not limits:
            assert 400 not in statuses, statuses
            assert "Invalid URL" in grown or "URI malformed" in grown, grown[-2000:]
            return
        assert statuses == [400] * len(statuses), statuses
        assert first == b"HTTP/1.1 400 Bad Request", first
        assert len(grown) < 200 and "Error" not in grown, grown[-2000:]
        assert status(port, "/user/demo-bob/api/status") == 200
