"""The hub's proxy resets connections whose client takes nothing of what it has
for them (deploy/proxy_stalled_writes.js, loaded into configurable-http-proxy with
the proxy's other limits, deploy/proxy_limits.js, as the hub starts it).

configurable-http-proxy, as it ships, keeps what a client that reads nothing has
not taken of a large answer in the kernel's buffers for as long as it likes:
2 MB a connection here, up to 4 MiB (tcp_wmem's largest), and about 800 such
connections fill the machine's TCP memory, stalling every TCP connection on it.
Played on the installed proxy in front of a server that answers 2 MB (or streams
a websocket), with the limits' timings shortened by their environment variables
(60 s and 5 s in the hub, STALL and COUNTED here): 200 connections from one
address ask and read nothing; its connections are cut to 16 (the log names the
address, once), then to none, and what the proxy's sockets hold to it is bounded;
meanwhile clients from other addresses get their answers whole, one fast, one
reading 32 KiB every 0.5 s, which takes longer than STALL. A websocket whose
client reads nothing is reset, and the server's end of it closed; one read
slowly is kept. Many addresses together keep IN_ALL stalled at most, the oldest
cut first. Forty connections from one address that read 64 KiB every 3 s are
never stalled, yet each keeps most of its answer in the proxy's send buffer:
taking under 64 KiB/s with bytes waiting all along, they count, and are cut to
16, while a slow reader alone at another address gets its answer whole. Without
the script the 200 stay, holding more than 16 may, and so do the websocket and
the 40 slow readers.
"""

import http.client
import socket
import threading
import time

import pytest
import requests
from proxies import held, running_proxy

pytestmark = pytest.mark.slow

STALL, COUNTED = 10, 2
PER_ADDRESS = 16            # deploy/proxy_stalled_writes.js
ANSWER = 2 << 20
HELD_MOST = 4.5 * (1 << 20)  # one connection's buffers at most (tcp_wmem's largest is 4 MiB)
ENV = {"KERNEL_COURSE_PROXY_STALL_SECONDS": str(STALL),
       "KERNEL_COURSE_PROXY_STALL_COUNTED_SECONDS": str(COUNTED)}

UPSTREAM = r"""
import base64, hashlib, json, select, struct, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock, state = threading.Lock(), {"websockets": 0}
BIG = b"x" * (2 << 20)
FRAME = b"\x82\x7f" + struct.pack(">Q", 1 << 16) + b"w" * (1 << 16)
class Answer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        if self.path == "/state":
            with lock:
                body = json.dumps(state).encode()
        else:
            body = BIG
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def websocket(self):
        # binary frames of 64 KiB for as long as the other end takes them, until it
        # ends the connection (as a server's websocket does)
        key = self.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept",
                         base64.b64encode(hashlib.sha1(key.encode()).digest()).decode())
        self.end_headers()
        with lock:
            state["websockets"] += 1
        conn, out = self.connection, FRAME
        conn.setblocking(False)
        try:
            while True:
                readable, writable, _ = select.select([conn], [conn], [], 1)
                if readable and not conn.recv(1 << 16):
                    break
                if writable:
                    out = out[conn.send(out):] or FRAME
        except OSError:
            pass
        finally:
            with lock:
                state["websockets"] -= 1
            self.close_connection = True
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Answer).serve_forever()
"""


@pytest.fixture(params=["with", "without"])
def proxy(request, installed, tmp_path):
    """The installed proxy (with the script, as the hub starts it, or without) in
    front of UPSTREAM: (with or without, its port, the upstream's port, its log)."""
    with running_proxy(installed, tmp_path, UPSTREAM, limits=request.param == "with",
                       env=ENV) as (port, upstream, log):
        yield request.param, port, upstream, log


def connection(port, address):
    s = socket.socket()
    s.bind((address, 0))
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    return s


def ask_and_read_nothing(port, address, path, forwarded_for=None):
    s = connection(port, address)
    header = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{header}\r\n".encode())
    return s


def download(port, address, results, pause=0.0, chunk=1 << 16):
    """GET a 2 MB answer from ``address``, reading ``chunk`` bytes every ``pause``
    seconds; into ``results[address]``: (the bytes of its body, the seconds it took)."""
    start = time.monotonic()
    got = 0
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                          source_address=(address, 0))
        conn.request("GET", "/big")
        answer = conn.getresponse()
        while True:
            part = answer.read(chunk)
            if not part:
                break
            got += len(part)
            time.sleep(pause)
        conn.close()
    except OSError as e:
        results[address] = (got, repr(e))
        return
    results[address] = (got, time.monotonic() - start)


def wait_for(condition, seconds, what):
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"{what} (waited {seconds} s)")
        time.sleep(0.5)


def closed(s):
    """Whether the proxy has closed this client's connection (its RST, or its end
    once what was sent is read)."""
    s.settimeout(10)
    try:
        while s.recv(1 << 20):
            pass
    except ConnectionResetError:
        return True
    except (TimeoutError, socket.timeout):
        return False
    return True


def lines(log, *words):
    return [line for line in log.read_text().splitlines() if all(w in line for w in words)]


def test_connections_that_read_nothing_are_reset_and_readers_are_not(proxy):
    kind, port, _, log = proxy
    started = time.monotonic()
    stalled = [ask_and_read_nothing(port, "127.0.0.2", f"/big/{n}") for n in range(200)]
    try:
        results = {}
        readers = [threading.Thread(target=download, args=(port, "127.0.0.3", results)),
                   threading.Thread(target=download, args=(port, "127.0.0.4", results),
                                    kwargs={"pause": 0.5, "chunk": 32 << 10})]
        for reader in readers:
            reader.start()
        wait_for(lambda: held(port, "127.0.0.2")[0] == 200 or kind == "with", 30,
                 "the 200 connections did not reach the proxy")
        if kind == "without":        # the attack as measured: every connection kept, and its answer
            time.sleep(STALL + COUNTED + 5)
            count, size = held(port, "127.0.0.2")
            assert count == 200 and size > PER_ADDRESS * HELD_MOST, (count, size)
        else:
            wait_for(lambda: held(port, "127.0.0.2")[0] <= PER_ADDRESS, 60,
                     "the connections of one address that read nothing were not cut to 16")
            count, size = held(port, "127.0.0.2")
            assert count <= PER_ADDRESS and size <= PER_ADDRESS * HELD_MOST, (count, size)
            said = lines(log, "127.0.0.2", f"beyond the {PER_ADDRESS} one address may have")
            assert said, log.read_text()
            wait_for(lambda: held(port, "127.0.0.2")[0] == 0, 60,
                     f"connections that read nothing were kept past {STALL} s")
            # a line a minute at most, however many were reset
            assert len(lines(log, "127.0.0.2")) <= 1 + (time.monotonic() - started) // 60
        for reader in readers:
            reader.join(timeout=180)
        assert results["127.0.0.3"][0] == ANSWER, results
        got, took = results["127.0.0.4"]
        assert got == ANSWER and took > STALL, results
    finally:
        for s in stalled:
            s.close()


def websocket(port, address):
    """A websocket through the proxy, its answer's head read."""
    s = connection(port, address)
    s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def test_a_websocket_that_reads_nothing_is_reset_and_one_read_slowly_is_not(proxy):
    kind, port, upstream, log = proxy

    def websockets():
        return requests.get(f"http://127.0.0.1:{upstream}/state", timeout=10).json()["websockets"]

    stalled = websocket(port, "127.0.0.5")
    slow = websocket(port, "127.0.0.6")
    try:
        got, end = 0, time.monotonic() + STALL + COUNTED + 5
        while time.monotonic() < end:          # read slowly the while
            part = slow.recv(32 << 10)
            assert part, f"the slowly read websocket was closed after {got} bytes"
            got += len(part)
            time.sleep(0.5)
        assert held(port, "127.0.0.6")[0] == 1
        if kind == "without":
            count, size = held(port, "127.0.0.5")
            assert count == 1 and size > 1 << 20, (count, size)
            assert websockets() == 2
            return
        wait_for(lambda: held(port, "127.0.0.5")[0] == 0, 60,
                 "the websocket that read nothing was kept")
        assert lines(log, "127.0.0.5", f"stalled {STALL} s"), log.read_text()
        assert closed(stalled)
        wait_for(lambda: websockets() == 1, 30, "the server's end of the reset websocket stayed")
    finally:
        stalled.close()
        slow.close()


IN_ALL = 20


@pytest.fixture
def proxy_in_all(installed, tmp_path):
    env = dict(ENV, KERNEL_COURSE_PROXY_STALL_SECONDS="60",
               KERNEL_COURSE_PROXY_STALLED_IN_ALL=str(IN_ALL))
    with running_proxy(installed, tmp_path, UPSTREAM, env=env) as (port, _, log):
        yield port, log


def test_many_addresses_together_keep_a_bounded_number_stalled_the_oldest_cut(proxy_in_all):
    port, log = proxy_in_all
    addresses = [f"127.0.0.{n}" for n in range(7, 11)]
    stalled = []
    try:
        for address in addresses:           # ten from each, one address after another
            stalled += [ask_and_read_nothing(port, address, "/big") for _ in range(10)]
            time.sleep(1.5)
        wait_for(lambda: sum(held(port, a)[0] for a in addresses) <= IN_ALL, 60,
                 f"more than {IN_ALL} stalled connections were kept")
        kept = {a: held(port, a)[0] for a in addresses}
        assert kept == {"127.0.0.7": 0, "127.0.0.8": 0, "127.0.0.9": 10, "127.0.0.10": 10}, kept
        assert lines(log, "127.0.0.7", f"beyond the {IN_ALL} stalled or slow at once in all"), \
            log.read_text()
    finally:
        for s in stalled:
            s.close()


def test_an_ipv6_client_is_counted_by_its_64_block():
    """A host given an IPv6 /64 may connect from any address of it: the caps per
    address count the block (an IPv4 client the proxy sees as ::ffff:a.b.c.d as
    itself)."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "deploy" / "proxy_clients.js"
    addresses = ["198.51.100.4", "::ffff:198.51.100.4", "2001:db8:1:2::5",
                 "2001:db8:1:2:ffff:1:2:9", "2001:0db8:0001:0002:0:0:0:1", "2001:db8:1:3::5",
                 "fe80::1%eth0", "2001:db8::192.0.2.1"]
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing")
    code = (f"const {{ clientOf }} = require({json.dumps(str(script))});"
            f"console.log(JSON.stringify({json.dumps(addresses)}.map(clientOf)))")
    done = subprocess.run([node, "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "198.51.100.4", "198.51.100.4", "2001:db8:1:2::/64", "2001:db8:1:2::/64",
        "2001:db8:1:2::/64", "2001:db8:1:3::/64", "fe80:0:0:0::/64", "2001:db8:0:0::/64"]


TRICKLERS = 40
TRICKLE_COUNTED = 6     # over this window 64 KiB/s is 384 KiB; a trickler takes 192 at most


@pytest.fixture(params=["with", "without"])
def proxy_trickled(request, installed, tmp_path):
    # long enough a stall limit that a trickler, reading every 3 s, never reaches it
    env = dict(ENV, KERNEL_COURSE_PROXY_STALL_SECONDS="30",
               KERNEL_COURSE_PROXY_STALL_COUNTED_SECONDS=str(TRICKLE_COUNTED))
    with running_proxy(installed, tmp_path, UPSTREAM, limits=request.param == "with",
                       env=env) as (port, _, log):
        yield request.param, port, log


def trickle(socks, alive, stop):
    """Read 64 KiB from each of ``socks`` every 3 s; ``alive`` keeps the indices of
    those the proxy has not closed."""
    while not stop.wait(3):
        for i in sorted(alive):
            got = 0
            try:
                while got < 1 << 16:
                    part = socks[i].recv((1 << 16) - got)
                    if not part:
                        alive.discard(i)
                        break
                    got += len(part)
            except BlockingIOError:
                pass
            except OSError:
                alive.discard(i)


def test_connections_that_read_slowly_are_cut_to_16_per_address(proxy_trickled):
    """40 connections from one address each ask 2 MB and read 64 KiB every 3 s
    (receive buffer 32 KiB): never stalled, each keeps most of its answer in the
    proxy's send buffer; taking less than 64 KiB/s with bytes waiting all along,
    they count, and are cut to 16. A slow honest reader at another address, alone
    there, gets its answer whole."""
    kind, port, log = proxy_trickled
    socks = []
    for _ in range(TRICKLERS):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 10)
        s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        s.setblocking(False)
        socks.append(s)
    alive, stop = set(range(TRICKLERS)), threading.Event()
    trickler = threading.Thread(target=trickle, args=(socks, alive, stop))
    trickler.start()
    try:
        results = {}
        reader = threading.Thread(target=download, args=(port, "127.0.0.4", results),
                                  kwargs={"pause": 0.5, "chunk": 32 << 10})
        reader.start()
        if kind == "without":       # the attack as measured: all 40 kept, their answers held
            time.sleep(TRICKLE_COUNTED + 10)
            count, size = held(port, "127.0.0.2")
            assert count == TRICKLERS and size > PER_ADDRESS * ANSWER, (count, size)
        else:
            wait_for(lambda: held(port, "127.0.0.2")[0] <= PER_ADDRESS, 60,
                     "the slow connections of one address were not cut to 16")
            time.sleep(5)            # and they stay cut: no more, no fewer
            count, size = held(port, "127.0.0.2")
            assert count == PER_ADDRESS and size <= PER_ADDRESS * HELD_MOST, (count, size)
            assert len(alive) == PER_ADDRESS, sorted(alive)
            assert lines(log, "127.0.0.2", "less than 64 KiB/s",
                         f"beyond the {PER_ADDRESS} one address may have"), log.read_text()
        reader.join(timeout=180)
        got, took = results["127.0.0.4"]
        assert got == ANSWER, results
        if kind == "without":
            assert len(alive) == TRICKLERS, sorted(alive)
    finally:
        stop.set()
        trickler.join(timeout=60)
        for s in socks:
            s.close()


#: A trusted front proxy's address (deploy/proxy_clients.js: hub.py init --front-proxy).
FRONT = "127.0.0.30"
STALLED = 30
#: the student behind the front, and what her own X-Forwarded-For says before it
HER, FORGED = "198.51.100.7", "203.0.113.9"


def test_a_trusted_front_proxys_connections_count_for_the_client_each_names(
        installed, tmp_path):
    """The front carries the whole class: each of its connections counts for the
    client its request names last in X-Forwarded-For (what nginx appends), so one
    student's 30 that read nothing are cut to 16 (what she writes before it
    counts for nothing), while 20 classmates' one each and 10 naming no client
    are kept past the count; another address's 30 are cut to 16; and every one is
    reset once stalled for the stall's time. Without the naming, the front's 60
    were all kept (no cap of their own) and her flood took every place of the
    bound in all."""
    env = dict(ENV, KERNEL_COURSE_FRONT_PROXIES=FRONT)
    with running_proxy(installed, tmp_path, UPSTREAM, env=env) as (port, _, log):
        started = time.monotonic()
        hers = [ask_and_read_nothing(port, FRONT, f"/big/{n}", f"{FORGED}, {HER}")
                for n in range(STALLED)]
        classmates = [ask_and_read_nothing(port, FRONT, f"/big/c{n}", f"198.51.100.{20 + n}")
                      for n in range(20)]
        unnamed = [ask_and_read_nothing(port, FRONT, f"/big/u{n}") for n in range(10)]
        other = [ask_and_read_nothing(port, "127.0.0.2", f"/big/{n}") for n in range(STALLED)]
        try:
            wait_for(lambda: held(port, "127.0.0.2")[0] <= PER_ADDRESS, 60,
                     "another address's connections that read nothing were not cut to 16")
            wait_for(lambda: held(port, FRONT)[0] <= PER_ADDRESS + 30, 5,
                     "her connections through the front that read nothing were not cut to 16")
            assert time.monotonic() - started < STALL, "too slow a machine for this test"
            assert held(port, FRONT)[0] == PER_ADDRESS + 30
            wait_for(lambda: held(port, FRONT)[0] == 0, STALL + 60,
                     f"the front's connections that read nothing were kept past {STALL} s")
        finally:
            for s in hers + classmates + unnamed + other:
                s.close()
        assert lines(log, "127.0.0.2", f"beyond the {PER_ADDRESS} one address may have")
        assert lines(log, f"of {HER} ", f"beyond the {PER_ADDRESS} one address may have")
        assert not lines(log, FORGED), log.read_text()
        # none of the classmates', nor the front's unnamed, was cut for a cap
        assert not lines(log, "198.51.100.2", "beyond"), log.read_text()
        assert not lines(log, "198.51.100.3", "beyond"), log.read_text()
        assert not lines(log, "the front proxy", "beyond"), log.read_text()
        assert lines(log, f"the front proxy {FRONT}", f"stalled {STALL} s"), log.read_text()
        assert lines(log, f"the trusted front proxies' {FRONT} counted for the client each "
                          "request names")
