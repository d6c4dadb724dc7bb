"""The hub's proxy holds each client to a rate of requests to each user server,
and to all user servers together (deploy/proxy_rates.js, loaded with the proxy's
other limits, deploy/proxy_limits.js, as the hub starts it).

A student's server reaches the proxy from its own address, not through the front
and its rates: from her kernel she sent 900 requests a second to a classmate's
server, each answered 403 on his CPU, and his own file listing took up to a
second. Played on the installed proxy in front of a server that counts what
reaches it, with the rates lowered by their environment variables (50/s, 300 at
once to a server, and 200/s, 2000 at once to all, in the hub): ada's flood of
bob's server, its path written the ways the proxy reads as his, gets at most the
burst and the rate for the time it took, the rest answered 429 by the proxy and
never reaching the server, a websocket's upgrade included, while bob and ada's
own server are answered; a flood spread over many servers is held by the rate to
all; the log names her address at once. Without the script every request reaches the
server.
"""

import http.client
import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
from proxies import ANSWERING, kept_alive_statuses, running_proxy

pytestmark = pytest.mark.slow

RATES = Path(__file__).resolve().parents[2] / "deploy" / "proxy_rates.js"
ADA, BOB = "127.0.0.21", "127.0.0.22"
PER_SERVER = {"KERNEL_COURSE_PROXY_SERVER_RATE": "2", "KERNEL_COURSE_PROXY_SERVER_BURST": "20"}
# one request back every 100 s: the bucket she empties stays empty however slowly
# the machine sends what follows
NO_REFILL = {"KERNEL_COURSE_PROXY_SERVER_RATE": "0.01", "KERNEL_COURSE_PROXY_SERVER_BURST": "20"}
ALL = {"KERNEL_COURSE_PROXY_ALL_SERVERS_RATE": "2", "KERNEL_COURSE_PROXY_ALL_SERVERS_BURST": "30"}


def running(installed, tmp_path, limits, env):
    return running_proxy(installed, tmp_path, ANSWERING, limits=limits, env=env)


def reached(upstream):
    conn = http.client.HTTPConnection("127.0.0.1", upstream, timeout=30)
    try:
        conn.request("GET", "/state")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def statuses(port, address, paths):
    """The status of each of ``paths`` asked in turn from ``address`` on one
    kept-alive connection (a new one after a close), and the seconds it took."""
    start = time.monotonic()
    answers = kept_alive_statuses(
        lambda: http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                           source_address=(address, 0)), paths)
    return answers, time.monotonic() - start


# bob's server, written as a browser would and as the proxy also reads it
BOBS = ["/user/demo-bob/api/contents", "/user/%64emo-bob/api/contents",
        "/%2Fuser/demo-bob/api/contents", "/user/x\\..\\demo-bob/api/contents",
        "/hub/../user/demo-bob/api/contents"]


@pytest.mark.parametrize("limits", [True, False], ids=["with", "without"])
def test_a_flood_of_a_classmates_server_is_held_to_its_rate(installed, tmp_path, limits):
    with running(installed, tmp_path, limits, PER_SERVER) as (port, upstream, log):
        answers, took = statuses(port, ADA, [BOBS[i % len(BOBS)] for i in range(100)])
        bob, _ = statuses(port, BOB, ["/user/demo-bob/api/contents"] * 20)
        own, _ = statuses(port, ADA, ["/user/demo-ada/api/contents"] * 15)
        counts = reached(upstream)
        if not limits:
            assert answers == [200] * 100
            return
        ok = answers.count(200)
        assert answers.count(429) == 100 - ok, answers
        # the burst of 20, then 2 a second for as long as she took
        assert 20 <= ok <= 20 + 2 * took + 1, (ok, took)
        assert bob == [200] * 20 and own == [200] * 15
        # what was refused never reached the server (the proxy sends the path on as
        # it came, so the upstream counts each spelling)
        assert sum(counts.values()) == ok + 20 + 15, counts
        # her first refusal at once, the next ones a minute on (proxy_log.js)
        time.sleep(0.5)
        text = log.read_text()
        assert (f"answered 429 to 1 request of {ADA} to user servers (1 beyond the rate "
                "to one server)") in text, text


def test_a_websockets_upgrade_beyond_the_rate_is_refused(installed, tmp_path):
    with running(installed, tmp_path, True, NO_REFILL) as (port, upstream, _):
        answers, _ = statuses(port, ADA, ["/user/demo-bob/api/contents"] * 40)
        assert answers == [200] * 20 + [429] * 20, answers
        s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(ADA, 0))
        s.sendall(b"GET /user/demo-bob/api/kernels/1/channels HTTP/1.1\r\nHost: x\r\n"
                  b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        first = s.recv(4096).split(b"\r\n", 1)[0]
        s.close()
        assert first == b"HTTP/1.1 429 Too Many Requests", first
        assert "/user/demo-bob/api/kernels/1/channels" not in reached(upstream)


@pytest.mark.parametrize("limits", [True, False], ids=["with", "without"])
def test_a_flood_spread_over_many_servers_is_held_to_the_rate_for_all(
        installed, tmp_path, limits):
    with running(installed, tmp_path, limits, ALL) as (port, upstream, _):
        paths = [f"/user/s{i % 40}/api/status" for i in range(80)]
        answers, took = statuses(port, ADA, paths)
        bob, _ = statuses(port, BOB, ["/user/demo-bob/api/contents"] * 10)
        if not limits:
            assert answers == [200] * 80
            return
        ok = answers.count(200)
        assert 30 <= ok <= 30 + 2 * took + 1, (ok, took)
        assert answers.count(429) == 80 - ok
        assert bob == [200] * 10
        assert sum(reached(upstream).values()) == ok + 10


#: 50,000 requests of one client, each to a server name of her choosing, given to
#: the proxy's listener as rated by deploy/proxy_rates.js (the rates at their
#: defaults); prints what was refused and how many buckets are kept.
MADE_UP_NAMES = r"""
const rates = require(process.argv[1]);
const listener = rates.rated(function () {});
let refused = 0;
for (let i = 0; i < 50000; i++) {
  const res = { writeHead() {}, end() { refused++; } };
  listener.call(null, { url: `/user/x${i}/api/status`, socket: { remoteAddress: "127.0.0.21" } },
                res);
}
console.log(JSON.stringify({ refused, kept: rates.bucketsKept() }));
"""


def test_server_names_of_her_choosing_keep_no_more_buckets_than_the_rate_for_all_lets_through():
    """A name of her own on each request was a bucket of its own, kept for minutes:
    her server's 9,000 refused requests a second grew the proxy by 3 MB/s. A refused
    request keeps nothing: at most the 2000 at once the rate for all lets through."""
    done = subprocess.run(["node", "-e", MADE_UP_NAMES, str(RATES)], capture_output=True,
                          text=True, timeout=120, check=True)
    counts = json.loads(done.stdout.splitlines()[-1])
    assert counts["refused"] >= 47000, counts
    assert counts["kept"] <= 50000 - counts["refused"] + 1, counts
