"""The hub's proxy caps the connections one client address has open at once
(deploy/proxy_connections.js, loaded with the proxy's other limits,
deploy/proxy_limits.js, as the hub starts it).

configurable-http-proxy, as it ships, accepts every connection and keeps it:
from one address, 10,000 to 20,000 connections that send nothing, or half a
login (``POST /hub/login`` with ``Content-Length: 100000`` and one byte, which
the proxy passes on at once on a connection of its own to the hub), reopened as
they are closed, took the proxy to its open-file limit, and then every other
client's connection was refused. Played on the installed proxy in front of a
small server, with the cap lowered to CAP by its environment variable (1000 in
the hub): from 127.0.0.2, 3 × CAP connections, every other one half a login; the
first CAP are kept, the rest reset as they are accepted, before any of them
reaches the server; the proxy's descriptors grow by about CAP, not 3 × CAP; a
client at 127.0.0.3 gets its answer meanwhile; the log names the address once;
and once they are closed, the address is served again. Without the script all
3 × CAP are kept, and each half login holds a connection to the server.
"""

import http.client
import os
import re
import selectors
import socket
import subprocess
import time

import pytest
from proxies import ANSWERING, running_proxy

pytestmark = pytest.mark.slow

CAP = 50
FLOOD = 3 * CAP
ENV = {"KERNEL_COURSE_PROXY_CONNECTIONS_PER_ADDRESS": str(CAP)}
HALF_LOGIN = (b"POST /hub/login HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/x-www-form-urlencoded\r\n"
              b"Content-Length: 100000\r\n\r\nu")


@pytest.fixture(params=["with", "without"])
def proxy(request, installed, tmp_path):
    with running_proxy(installed, tmp_path, ANSWERING, limits=request.param == "with",
                       env=ENV) as (port, upstream, log):
        yield request.param, port, upstream, log


def listener_pid(port):
    out = subprocess.run(["ss", "-tlnpH", f"( sport = :{port} )"], capture_output=True,
                         text=True, check=True).stdout
    return int(re.search(r"pid=(\d+)", out).group(1))


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def established_to(port):
    """Connections established to ``port`` (the server's, from the proxy)."""
    out = subprocess.run(["ss", "-tnH", "state", "established", f"( dport = :{port} )"],
                         capture_output=True, text=True, check=True).stdout
    return len(out.splitlines())


def get(port, address):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    try:
        conn.request("GET", "/hub/")
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def flood(port, address, n):
    """``n`` connections from ``address``, one after another, every other one
    sending half a login, the rest nothing; those the proxy resets at once may
    refuse what is sent."""
    socks = []
    for i in range(n):
        s = socket.socket()
        s.bind((address, 0))
        s.settimeout(30)
        s.connect(("127.0.0.1", port))
        if i % 2:
            try:
                s.sendall(HALF_LOGIN)
            except OSError:
                pass
        socks.append(s)
    return socks


def closed_by_the_proxy(socks, expected, seconds, settle=2):
    """The indices of ``socks`` the proxy has closed (reset, or ended): waiting for
    ``expected`` of them (``seconds`` at most), then until none more closes for
    ``settle`` seconds."""
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
    closed = set()
    end = time.monotonic() + seconds
    while True:
        waiting = len(closed) < expected and time.monotonic() < end
        ready = sel.select(timeout=1 if waiting else settle)
        if not ready and not waiting:
            return closed
        for key, _ in ready:
            try:
                if key.fileobj.recv(1 << 16):
                    continue           # an answer (none expected): not closed yet
            except ConnectionResetError:
                pass
            except BlockingIOError:
                continue
            closed.add(key.data)
            sel.unregister(key.fileobj)


def lines(log, *words):
    return [line for line in log.read_text().splitlines() if all(w in line for w in words)]


def test_one_address_holds_at_most_its_cap_of_connections_and_others_are_served(proxy):
    kind, port, upstream, log = proxy
    pid = listener_pid(port)
    fds_before, upstream_before = open_fds(pid), established_to(upstream)
    started = time.monotonic()
    socks = flood(port, "127.0.0.2", FLOOD)
    try:
        # another address is answered while the flood is open
        assert get(port, "127.0.0.3") == (200, b"answered")
        closed = closed_by_the_proxy(socks, FLOOD - CAP, 60 if kind == "with" else 5)
        fds = open_fds(pid) - fds_before
        to_server = established_to(upstream) - upstream_before
        if kind == "without":       # the attack as played: every connection kept
            assert closed == set(), sorted(closed)
            assert fds >= FLOOD, fds
            assert to_server >= FLOOD // 2, to_server     # each half login's own
            return
        # the first CAP kept, every later one reset as it was accepted
        assert closed == set(range(CAP, FLOOD)), sorted(closed)
        # the proxy's descriptors: the CAP kept and the half logins' to the server
        # among them (CAP / 2), a few of its own; not one per connection refused
        assert fds <= CAP + CAP // 2 + 10, fds
        assert to_server <= CAP // 2, to_server
        said = lines(log, "refused", "of 127.0.0.2")
        assert said and f"it had {CAP} open at once" in said[0], log.read_text()
        assert len(said) <= 1 + (time.monotonic() - started) // 60, said
    finally:
        for s in socks:
            s.close()
    # once its connections are closed, the address is served again
    end = time.monotonic() + 60
    while True:
        try:
            if get(port, "127.0.0.2") == (200, b"answered"):
                break
        except OSError:
            pass
        assert time.monotonic() < end, "127.0.0.2 was refused after closing its connections"
        time.sleep(0.5)


#: A trusted front proxy's address (deploy/proxy_clients.js: hub.py init --front-proxy).
FRONT = "127.0.0.30"


def test_a_trusted_front_proxys_connections_are_not_capped_and_others_still_are(
        installed, tmp_path):
    """The front carries the whole class: its 3 × CAP connections (every other one
    half a login) are all kept, while another address's beyond CAP are still reset
    as they are accepted. Without the front named (the variable unset), the front's
    own would be cut to CAP like any address's (the test above)."""
    env = dict(ENV, KERNEL_COURSE_FRONT_PROXIES=f"{FRONT},2001:db8::f")
    with running_proxy(installed, tmp_path, ANSWERING, env=env) as (port, upstream, log):
        front = flood(port, FRONT, FLOOD)
        other = []
        try:
            other = flood(port, "127.0.0.2", FLOOD)
            assert get(port, "127.0.0.3") == (200, b"answered")
            assert closed_by_the_proxy(other, FLOOD - CAP, 60) == set(range(CAP, FLOOD))
            assert closed_by_the_proxy(front, 1, 3) == set()
            # the front's next connection is answered, with its 3 × CAP open
            assert get(port, FRONT) == (200, b"answered")
        finally:
            for s in front + other:
                s.close()
        assert lines(log, "refused", "of 127.0.0.2")
        assert not lines(log, "refused", f"of {FRONT}"), log.read_text()
        assert lines(log, "not capped", FRONT), log.read_text()
