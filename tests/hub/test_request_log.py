"""What a client can make the course's servers write in their logs
(deploy/request_log.py, deploy/request_bodies.py, deploy/log_writer.py).

Played without a hub. The book service (deploy/book_service.py, run as the hub
runs it) answered ``GET /services/book/index.html%00.js`` with a 500 and a
traceback, 1,288 bytes of log a request, each line naming 127.0.0.1 (the
proxy), so no line named the sender. Here a student sends it N times with 15
headers of 1000 bytes, through the proxy (from 127.0.0.1, her address appended
to ``X-Forwarded-For``) and from her own server (from a joined address of her
own), with a classmate's address in ``X-Real-IP``: each is answered 400, the
log grows by at most N x :data:`PER_REQUEST` bytes, one line a request, naming
her and never the classmate. An exception of ours on a well-formed request
logs its traceback once, not once a request. And the writer the hub's log goes
through keeps it to its files of its size, however much comes.

The hub plays the same attacks in tests/hub/test_hub_request_log.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attacks import RAW_GET

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
sys.path.insert(0, str(DEPLOY))
import log_writer  # noqa: E402

#: The most bytes of log one request may leave (the line and the logger's prefix).
PER_REQUEST = 300
#: The classmate's address the student writes in X-Real-IP, and hers (the proxy's entry).
CLASSMATE = "198.51.100.23"
HERS = "203.0.113.7"
#: An address of the block the hub's joins connect from (deploy/clients.py JOINED).
JOINED = "127.128.3.4"
BIG_HEADERS = "".join(f"X-Filler-{i}: {'a' * 1000}\r\n" for i in range(15))
PREFIX = "/services/book/"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_raw_get = {}
exec(RAW_GET, _raw_get)


def send(port, path, headers="", source="127.0.0.1"):
    """One GET of ``path`` from ``source``, with big headers: the answer's status."""
    return _raw_get["send"](port, path, headers + BIG_HEADERS, source)


def _wait_for(predicate, seconds=10):
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return predicate()


@pytest.fixture
def book(tmp_path):
    """The book service on a folder with an index.html, its stderr in a file: (its
    port, its log's path)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body>the book</body></html>")
    port = _free_port()
    log = tmp_path / "book.log"
    env = {**os.environ, "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
           "JUPYTERHUB_SERVICE_PREFIX": PREFIX, "JUPYTERHUB_BASE_URL": "/"}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, str(DEPLOY / "book_service.py"), str(site)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if send(port, PREFIX) == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield port, log
    finally:
        proc.kill()
        proc.wait()


def _attack(port, log, headers, source, n=200):
    before = log.stat().st_size
    statuses = [send(port, PREFIX + "index.html%00.js", headers, source) for _ in range(n)]
    _wait_for(lambda: log.read_bytes()[before:].count(b"\n") >= n)
    time.sleep(0.2)
    grown = log.read_bytes()[before:]
    return statuses, grown


def test_a_nul_in_the_books_path_through_the_proxy_is_one_short_line_naming_her(book):
    port, log = book
    n = 200
    statuses, grown = _attack(port, log, f"X-Real-IP: {CLASSMATE}\r\n"
                              f"X-Forwarded-For: {HERS}\r\n", "127.0.0.1", n)
    print(f"book, through the proxy: {n} requests, log +{len(grown)} bytes "
          f"({len(grown) / n:.0f} a request)")
    assert set(statuses) == {400}, statuses
    assert len(grown) <= n * PER_REQUEST, len(grown)
    lines = grown.decode().splitlines()
    assert len(lines) == n, lines[:5]
    assert all(f"'{HERS}' (X-Forwarded-For) over 127.0.0.1" in line for line in lines), lines[0]
    assert CLASSMATE not in grown.decode()
    assert b"Traceback" not in grown and b"X-Filler" not in grown


def test_a_nul_in_the_books_path_from_her_server_names_her_servers_address(book):
    port, log = book
    n = 200
    statuses, grown = _attack(port, log, f"X-Real-IP: {CLASSMATE}\r\n", JOINED, n)
    print(f"book, from her server: {n} requests, log +{len(grown)} bytes")
    assert set(statuses) == {400}, statuses
    assert len(grown) <= n * PER_REQUEST, len(grown)
    lines = grown.decode().splitlines()
    assert len(lines) == n and all(f"@{JOINED})" in line for line in lines), lines[:3]
    assert CLASSMATE not in grown.decode()


def test_the_books_well_formed_requests_are_answered_as_before(book):
    port, log = book
    assert send(port, PREFIX) == 200
    assert send(port, PREFIX + "index.html") == 200
    assert send(port, PREFIX + "_static/course_hub_config.js") == 200
    assert send(port, PREFIX + "no-such-page.html") == 404
    # a percent-encoded character that is no control character is a path like any other
    assert send(port, PREFIX + "index%2Ehtml") == 200


SERVER = """
import logging, sys
sys.path.insert(0, sys.argv[1])
import request_bodies, request_log
from tornado import httpserver, ioloop, netutil, web

class Fault(web.RequestHandler):
    def get(self):
        raise ValueError("a fault of ours " + "x" * 20000)

class Refused(web.RequestHandler):
    def get(self):
        raise web.HTTPError(403, "not yours: " + "y" * 20000)

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
request_log.install()
app = web.Application([("/fault", Fault), ("/refused", Refused)],
                      log_function=request_log.log_request)
server = httpserver.HTTPServer(app, xheaders=True)
request_bodies.bound(server, 1024**2, "test")
sockets = netutil.bind_sockets(0, "127.0.0.1")
server.add_sockets(sockets)
print(sockets[0].getsockname()[1], flush=True)
ioloop.IOLoop.current().start()
"""


@pytest.fixture
def faulty(tmp_path):
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", SERVER, str(DEPLOY)],
                                stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        yield int(proc.stdout.readline()), log
    finally:
        proc.kill()
        proc.wait()


def test_an_exception_of_ours_logs_its_traceback_once_not_once_a_request(faulty):
    port, log = faulty
    n = 100
    headers = f"X-Real-IP: {CLASSMATE}\r\nX-Forwarded-For: {HERS}\r\n"
    statuses = [send(port, "/fault", headers) for _ in range(n)]
    assert set(statuses) == {500}
    _wait_for(lambda: log.read_text().count("/fault") >= n)
    text = log.read_text()
    print(f"{n} requests to a faulty handler: log {len(text)} bytes")
    assert text.count("Traceback") == 1, text[:2000]
    # the traceback bounded, each request one line, the sender's words in none
    assert len(text) <= n * PER_REQUEST + 9000
    assert CLASSMATE not in text and "X-Filler" not in text
    assert text.count(f"'{HERS}' (X-Forwarded-For) over 127.0.0.1") >= n


def test_a_refusal_with_a_long_message_is_one_short_line(faulty):
    port, log = faulty
    n = 50
    statuses = [send(port, "/refused", f"X-Real-IP: {CLASSMATE}\r\n") for _ in range(n)]
    assert set(statuses) == {403}
    _wait_for(lambda: log.read_text().count("/refused") >= n)
    text = log.read_text()
    assert len(text) <= n * PER_REQUEST, len(text)
    assert len(text.splitlines()) == n
    assert CLASSMATE not in text


def test_the_writer_keeps_the_log_to_its_files_of_its_size(tmp_path):
    path = tmp_path / "hub.log"
    path.write_bytes(b"from before\n" * 10)
    writer = log_writer.RotatingWriter(path, max_bytes=1000, files=3)
    lines = [f"line {i} {'z' * (i % 50)}\n".encode() for i in range(2000)]
    for line in lines:
        writer.write(line)
    writer.write(b"q" * 5000)     # no newline, larger than a file
    writer.write(b"\nthe last line\n")
    writer.close()
    files = sorted(tmp_path.glob("hub.log*"))
    assert [f.name for f in files] == ["hub.log", "hub.log.1", "hub.log.2"]
    assert all(f.stat().st_size <= 1000 for f in files), [f.stat().st_size for f in files]
    assert path.read_bytes().endswith(b"the last line\n")


def test_the_writer_program_takes_a_pipe_and_ends_with_it(tmp_path):
    path = tmp_path / "hub.log"
    proc = subprocess.Popen([sys.executable, str(DEPLOY / "log_writer.py"), str(path),
                             "--max-bytes", "10000", "--files", "4"], stdin=subprocess.PIPE)
    sent = 0
    for i in range(20000):
        line = f"{i:08d} a line of the hub's log\n".encode()
        proc.stdin.write(line)
        sent += len(line)
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    files = sorted(tmp_path.glob("hub.log*"))
    total = sum(f.stat().st_size for f in files)
    print(f"{sent} bytes sent, {total} kept in {len(files)} files")
    assert len(files) == 4 and total <= 4 * 10000
    # whole lines, the newest kept
    assert path.read_bytes().endswith(b"00019999 a line of the hub's log\n")
    assert all(f.read_bytes().endswith(b"\n") for f in files)
