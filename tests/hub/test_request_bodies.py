"""What a Tornado server of the course holds of request bodies (deploy/request_bodies.py).

Played without a hub on a Tornado server as the course runs its own, with a
budget of 8 MiB: twenty connections each send all but the last byte of a
4 MiB body and hold it, as a student did against the hub's API (6 GB held by
the hub) and, through the public port, against a classmate's server (his
memory cap filled, his server killed). The server holds at most its budget,
cuts the rest with 413 and logs it, answers GETs meanwhile, and takes honest
bodies again once the flood is gone; a body larger than the budget is refused
before it is read. Without the budget the same flood holds 80 MiB.

Each client (deploy/clients.py: the proxy's last X-Forwarded-For entry on a
connection from 127.0.0.1, the connection's own address on any other) holds at
most a share of the budget: played with clients bound to their own 127.x
addresses, behind the proxy and joined as a student's server is, one client
sending and holding bodies holds her share and no more, while another
client's bodies are all taken; what a joined client writes in X-Forwarded-For
gains her nothing; without the share, the same flood refuses the other client.

The real hub plays the same attacks in tests/hub/test_hub_server_limits.py.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MiB = 1024**2
BUDGET = 8 * MiB

SERVER = """
import asyncio, json, resource, sys
sys.path.insert(0, sys.argv[1])
import request_bodies
from tornado import httpserver, netutil, web

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024

class Length(web.RequestHandler):
    def post(self):
        self.finish(str(len(self.request.body)))

class Slow(web.RequestHandler):
    async def post(self):
        await asyncio.sleep(3)      # as a login waiting for PAM: the body is held
        self.finish(str(len(self.request.body)))

class Held(web.RequestHandler):
    def get(self):
        self.finish(json.dumps({"held": budget.held if budget else None,
                                "held_by": budget.held_by if budget else None,
                                "cuts": budget.cuts if budget else None, "rss": rss()}))

async def main():
    global budget
    server = httpserver.HTTPServer(web.Application([("/length", Length), ("/slow", Slow), ("/held", Held)]))
    share = int(sys.argv[3]) if sys.argv[3] != "-" else None
    budget = (request_bodies.bound(server, int(sys.argv[2]), "test", share=share)
              if sys.argv[2] != "0" else None)
    sockets = netutil.bind_sockets(0, "127.0.0.1")
    server.add_sockets(sockets)
    print(sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.fixture
def server():
    """Start a server with a budget (0: none) and a client's share of it (None: the
    default; the whole budget: no share): (its port, its process)."""
    started = []

    def start(budget, share=None):
        proc = subprocess.Popen([sys.executable, "-c", SERVER, str(DEPLOY), str(budget),
                                 "-" if share is None else str(share)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(proc)
        return int(proc.stdout.readline()), proc
    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def get(port, path):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return _answer(s)


def post(port, body, path="/length", headers=""):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}"
                  f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        return _answer(s)


def _answer(s):
    data = b""
    try:
        while part := s.recv(1 << 16):
            data += part
    except ConnectionResetError:
        pass
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split()[1]) if head else None
    return status, body.decode(errors="replace")


def flood(port, connections=20, size=4 * MiB):
    """Connections each sending all but the last byte of a ``size`` body; those the
    server has not closed, and how many it closed."""
    held, closed = [], 0
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        try:
            s.sendall(f"POST /length HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n"
                      .encode())
            s.sendall(b" " * (size - 1))
            held.append(s)
        except (BrokenPipeError, ConnectionResetError):
            s.close()
            closed += 1
    return held, closed


def settled(port, seconds=10):
    """What the server says it holds, once it has read what was sent."""
    time.sleep(0.5)
    end, last = time.monotonic() + seconds, None
    while time.monotonic() < end:
        now = json.loads(get(port, "/held")[1])
        if last is not None and now["held"] == last["held"]:
            return now
        last = now
        time.sleep(0.3)
    return last


def test_a_flood_of_bodies_holds_at_most_the_budget_and_honest_ones_pass_after(server):
    port, proc = server(BUDGET, share=BUDGET)   # the budget alone: one client may fill it
    before = json.loads(get(port, "/held")[1])
    assert post(port, b"x" * MiB) == (200, str(MiB))
    held, closed = flood(port)
    try:
        seen = settled(port)
        assert seen["held"] <= BUDGET, seen
        assert seen["cuts"] >= 17, seen            # 20 x 4 MiB against 8 MiB
        assert seen["rss"] - before["rss"] < 40 * MiB, (before, seen)
        assert get(port, "/held")[0] == 200        # it answers meanwhile
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert json.loads(get(port, "/held")[1])["held"] == 0
    assert post(port, b"y" * (4 * MiB)) == (200, str(4 * MiB))
    # a body larger than the whole budget is refused before it is read
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST /length HTTP/1.1\r\nHost: x\r\nContent-Length: {BUDGET + 1}\r\n\r\n"
                  .encode())
        assert _answer(s)[0] == 400
    proc.kill()
    log = proc.communicate()[1]
    assert "test: cut POST '/length' from 127.0.0.1 after" in log, log
    # and names who holds the most of it
    assert f"would pass {BUDGET} bytes (held most by 127.0.0.1 " in log, log


def test_without_a_budget_the_same_flood_is_held_whole(server):
    """The attack as measured, on the same server unbounded: what the budget stops."""
    port, _ = server(0)
    before = json.loads(get(port, "/held")[1])
    held, closed = flood(port)
    try:
        seen = settled(port)
        assert closed == 0 and seen["rss"] - before["rss"] > 60 * MiB, (before, seen)
    finally:
        for s in held:
            s.close()


def test_a_user_servers_budget_is_a_share_of_its_memory_limit():
    sys.path.insert(0, str(DEPLOY))
    try:
        import request_bodies
    finally:
        sys.path.remove(str(DEPLOY))
    assert request_bodies.budget_of_user_server({"MEM_LIMIT": str(2 * 1024**3)}) == 256 * MiB
    assert request_bodies.budget_of_user_server({"MEM_LIMIT": str(12 * 1024**3)}) == 1536 * MiB
    assert request_bodies.budget_of_user_server({}) == 256 * MiB
    assert request_bodies.budget_of_user_server({"MEM_LIMIT": "lots"}) == 256 * MiB


def test_a_body_counts_until_its_handler_has_answered(server):
    """A handler holds the body it was given (a login waiting for PAM held four times
    its body): whole bodies whose handlers have not answered still count."""
    port, proc = server(BUDGET, share=BUDGET)
    sent = []
    for _ in range(4):                       # 4 x 3 MiB, each whole, each handler waiting
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(f"POST /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  f"Content-Length: {3 * MiB}\r\n\r\n".encode() + b"a" * (3 * MiB))
        sent.append(s)
        time.sleep(0.2)
    answers = [_answer(s)[0] for s in sent]
    for s in sent:
        s.close()
    assert answers[:2] == [200, 200] and answers[2:] == [413, 413], answers
    assert json.loads(get(port, "/held")[1])["held"] == 0


def test_the_log_names_the_connection_and_the_address_the_proxy_appended(server):
    port, proc = server(4 * MiB, share=4 * MiB)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as held:
        held.sendall(f"POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: {3 * MiB}\r\n\r\n"
                     .encode() + b"a" * (3 * MiB))
        time.sleep(0.3)
        assert post(port, b"b" * (2 * MiB),
                    headers="X-Forwarded-For: 10.9.9.9, 192.0.2.7\r\n")[0] in (413, None)
    proc.kill()
    log = proc.communicate()[1]
    assert "from '192.0.2.7' (X-Forwarded-For) over 127.0.0.1 after" in log, log
    assert "10.9.9.9" not in log, log


def test_bodies_answered_one_after_another_are_freed(server):
    """A body is freed once its request has been answered, not at some later
    collection of the garbage: sent one after another, 16 bodies of 6 MiB (a 404
    and answered ones) leave the server's memory where one left it."""
    port, _ = server(BUDGET, share=BUDGET)
    assert post(port, b"w" * (6 * MiB))[0] == 200
    first = json.loads(get(port, "/held")[1])["rss"]
    for n in range(16):
        assert post(port, b"w" * (6 * MiB), path="/nowhere" if n % 2 else "/length")[0] in (
            200, 404)
    after = json.loads(get(port, "/held")[1])
    assert after["held"] == 0 and after["rss"] - first < 30 * MiB, (first, after)


# -- a share per client ---------------------------------------------------------------
# Clients as the course's servers see them (deploy/clients.py): behind the proxy (a
# connection from 127.0.0.1, the client named by the last X-Forwarded-For entry the
# proxy appended), or a student's server through the hub's join (a connection from
# her own address in 127.128.0.0/9, whatever X-Forwarded-For she writes).
BODY = 700_000          # three of them pass a quarter (2 MiB) of BUDGET, two do not
WAYS = {
    "behind the proxy": {"attacker": ("127.0.0.1", "192.0.2.10"),
                         "classmate": ("127.0.0.1", "192.0.2.20")},
    "joined": {"attacker": ("127.128.0.10", None), "classmate": ("127.128.0.20", None)},
}


def send(port, body, source, forwarded=None, size=None, path="/length"):
    """A connection from ``source`` sending ``body`` as (the start of) a POST of
    ``size`` bytes (all of ``body`` by default), its X-Forwarded-For ``forwarded``:
    the socket, or None if the server closed it meanwhile."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
    if forwarded:
        head += f"X-Forwarded-For: {forwarded}\r\n"
    try:
        s.sendall(f"{head}Content-Length: {size or len(body)}\r\n\r\n".encode() + body)
    except (BrokenPipeError, ConnectionResetError):
        s.close()
        return None
    return s


def post_as(port, who, body=b"c" * BODY):
    """A whole body from client ``who`` (source, X-Forwarded-For): (status, answer);
    status None where the server cut the connection before the client read its 413."""
    s = send(port, body, *who)
    if s is None:
        return None, ""
    with s:
        return _answer(s)


def state(port):
    return json.loads(get(port, "/held")[1])


def hold(port, who, key, connections=20, size=BODY, forged=None):
    """Client ``who`` sends all but the last byte of a ``size`` body on each of
    ``connections``, one after another, each once the server has either held all of
    it for ``key`` or cut it (counted, not timed); ``forged(n)`` is what she writes
    in X-Forwarded-For on the n-th. Yields after each: (sockets held, cuts so far)."""
    held = []
    for n in range(connections):
        before = state(port)
        had = (before["held_by"] or {}).get(key, 0)
        s = send(port, b" " * (size - 1), who[0], forged(n) if forged else who[1], size=size)
        deadline = time.monotonic() + 60
        while True:
            now = state(port)
            if now["cuts"] > before["cuts"]:
                if s is not None:
                    s.close()
                break
            if (now["held_by"] or {}).get(key, 0) == had + size - 1:
                held.append(s)
                break
            assert time.monotonic() < deadline, f"connection {n} neither held nor cut: {now}"
            time.sleep(0.05)
        yield held, now["cuts"]


@pytest.mark.parametrize("way", WAYS)
def test_a_client_holding_its_share_is_cut_and_another_clients_bodies_go_on(server, way):
    """One client sends bodies and holds them (a student keeping a server's budget
    full): she holds at most her share (a quarter: two bodies of 700 kB), her
    next bodies are cut, and a classmate's bodies are taken the whole time."""
    attacker, classmate = WAYS[way]["attacker"], WAYS[way]["classmate"]
    key = attacker[1] or attacker[0]
    port, proc = server(BUDGET)                  # the default share: BUDGET // 4
    answers, sockets = [], []
    try:
        for sockets, cuts in hold(port, attacker, key):
            answers.append(post_as(port, classmate))
        seen = state(port)
        assert len(sockets) == 2 and seen["cuts"] == 18, seen
        assert seen["held_by"] == {key: 2 * (BODY - 1)}, seen
        # her next body is cut; her classmate's are taken
        assert post_as(port, attacker)[0] in (413, None)
        assert state(port)["cuts"] == 19
        answers.append(post_as(port, classmate))
        assert answers == [(200, str(BODY))] * 21, answers
    finally:
        for s in sockets:
            s.close()
    proc.kill()
    log = proc.communicate()[1]
    named = f"'{attacker[1]}' (X-Forwarded-For) over 127.0.0.1" if attacker[1] else attacker[0]
    assert f"test: cut POST '/length' from {named} after" in log, log
    assert f"its client's bodies held at once ({key}) would pass its share of {BUDGET // 4} bytes" \
        in log, log
    assert (classmate[1] or classmate[0]) not in log, log


def test_a_joined_client_forging_x_forwarded_for_gains_nothing(server):
    """A student's server connects from her own address (the hub's join): what she
    writes in X-Forwarded-For, a new address on each connection or her classmate's,
    is not who she is; she holds her one share, and her classmate's bodies go on."""
    attacker, classmate = WAYS["joined"]["attacker"], WAYS["joined"]["classmate"]
    addresses = ["192.0.2.%d" % n for n in range(1, 10)] + ["127.0.0.1", classmate[0]]

    def forged(n):
        return f"10.0.0.1, {addresses[n % len(addresses)]}"
    port, proc = server(BUDGET)
    answers, sockets = [], []
    try:
        for sockets, cuts in hold(port, attacker, attacker[0], forged=forged):
            answers.append(post_as(port, classmate))
        seen = state(port)
        assert len(sockets) == 2 and seen["cuts"] == 18, seen
        assert seen["held_by"] == {attacker[0]: 2 * (BODY - 1)}, seen
        assert answers == [(200, str(BODY))] * 20, answers
    finally:
        for s in sockets:
            s.close()
    proc.kill()
    log = proc.communicate()[1]
    assert "(X-Forwarded-For) over 127.128.0.10 after" in log, log
    assert f"would pass its share of {BUDGET // 4} bytes" in log, log


def test_without_a_share_the_same_flood_refuses_the_other_client(server):
    """The control: the budget alone, one pool for every client. The same flood
    from one client behind the proxy fills it, and her classmate's body is cut."""
    attacker, classmate = (WAYS["behind the proxy"][who] for who in ("attacker", "classmate"))
    port, proc = server(BUDGET, share=BUDGET)
    sockets = []
    try:
        for sockets, cuts in hold(port, attacker, attacker[1]):
            pass
        seen = state(port)
        assert len(sockets) == BUDGET // (BODY - 1), seen       # 11 held: 7.7 MB
        assert post_as(port, classmate)[0] in (413, None)
        assert state(port)["cuts"] == seen["cuts"] + 1
    finally:
        for s in sockets:
            s.close()
    proc.kill()
    log = proc.communicate()[1]
    assert "from '192.0.2.20' (X-Forwarded-For) over 127.0.0.1 after" in log, log


def test_a_share_is_of_the_budget_and_refuses_a_larger_body_before_it_is_read(server):
    """A body larger than a client's share could never be taken: Tornado refuses it
    from its Content-Length (400), before reading it."""
    port, proc = server(BUDGET)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST /length HTTP/1.1\r\nHost: x\r\nContent-Length: {BUDGET // 4 + 1}"
                  f"\r\n\r\n".encode())
        assert _answer(s)[0] == 400
    assert post(port, b"s" * (BUDGET // 4)) == (200, str(BUDGET // 4))
    sys.path.insert(0, str(DEPLOY))
    try:
        import request_bodies
    finally:
        sys.path.remove(str(DEPLOY))
    for share in (0, -1, BUDGET + 1):
        with pytest.raises(ValueError, match="share of test's budget"):
            request_bodies.Budget(web_application(), BUDGET, "test", share)


def web_application():
    from tornado import web
    return web.Application([])
