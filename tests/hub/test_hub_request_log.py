"""A student cannot fill the hub's disk through its log, nor put a classmate's
address in it (deploy/request_log.py, deploy/request_bodies.py, hub.py start's
deploy/log_writer.py).

As JupyterHub ships, ``GET /hub/static/%00`` is a 500, logged with a traceback
and every request header (JupyterHub's ``log_request`` dumps them as JSON for a
5xx): with 15 headers of 1000 bytes through the proxy, 17,150 bytes of hub.log a
request; from her own server, straight to the hub's port with 60 KB of
headers, 60,777 bytes a request, 84 MB in 8 s. Every such line, and JupyterHub's
access line of every request, named the address in ``X-Real-IP``, which she
writes. The book service's 500 on ``/services/book/index.html%00.js`` named the
proxy.

Played on the shared folder hub (tests/hubs.py): through the proxy's public
port from an address of her own, and from ada's server (her kernel, through
the hub's join of her network namespace) on the hub's API port, with bob's
server's address in ``X-Real-IP``: each request is answered 400, the hub's log
grows by at most N x :data:`PER_REQUEST` bytes, and its lines name her (her
address through the proxy, her server's joined address), never bob's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import re
import time
from pathlib import Path

import pytest

import logins
from hubs import DEPLOY, students_of
from attacks import RAW_GET as SEND
from kernels import Kernel

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

#: The most bytes of the hub's log one request may leave.
PER_REQUEST = 300
#: The address she connects to the public port from (a student behind her own address).
HERS = "127.0.0.2"

_sender = {}
exec(SEND, _sender)


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "request_log")


def _clients():
    spec = importlib.util.spec_from_file_location("clients", DEPLOY / "clients.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def joined(hub, who):
    return _clients().joined_from(pwd.getpwnam(hub["names"][who]).pw_uid)


def _log(hub):
    return hub["state"] / "hub.log"


def grown_by(hub, before, needle, count, seconds=20):
    """What the hub's log gained past ``before`` bytes, once ``count`` lines with
    ``needle`` are in it (the log is written through a pipe)."""
    deadline = time.monotonic() + seconds
    while True:
        grown = _log(hub).read_bytes()[before:].decode(errors="replace")
        if grown.count(needle) >= count or time.monotonic() > deadline:
            return grown
        time.sleep(0.2)


def test_a_nul_through_the_proxy_is_a_400_in_one_short_line_naming_her(hub):
    bobs = joined(hub, "bob")
    port, n = hub["settings"]["port"], 300
    for path in ("/hub/static/%00", "/services/book/index.html%00.js"):
        before = _log(hub).stat().st_size
        statuses = _sender["flood"](port, path, n, bobs, 15, HERS)
        grown = grown_by(hub, before, path, n)
        print(f"{path} through the proxy, {n} times with 15 headers of 1000 bytes: "
              f"hub.log +{len(grown.encode())} bytes ({len(grown.encode()) / n:.0f} a request)")
        assert set(statuses) == {400}, sorted(set(statuses))
        assert len(grown.encode()) <= n * PER_REQUEST, len(grown.encode())
        lines = [line for line in grown.splitlines() if path in line]
        assert len(lines) == n, lines[:3]
        assert all(f"'{HERS}' (X-Forwarded-For) over 127.0.0.1" in line for line in lines), \
            lines[0]
        assert bobs not in grown, [line for line in grown.splitlines() if bobs in line][:3]
        assert "Traceback" not in grown and "X-Filler" not in grown


def test_the_hubs_access_line_names_her_not_the_x_real_ip_she_wrote(hub):
    bobs = joined(hub, "bob")
    before = _log(hub).stat().st_size
    status = _sender["send"](hub["settings"]["port"], "/hub/login?from=request-log",
                             f"X-Real-IP: {bobs}\r\n", HERS)
    assert status == 200
    grown = grown_by(hub, before, "GET /hub/login ", 1)   # (its line has no query)
    lines = [line for line in grown.splitlines() if "/hub/login" in line]
    assert lines and all(f"'{HERS}' (X-Forwarded-For) over 127.0.0.1" in line
                         for line in lines), lines
    assert bobs not in grown
    # one line: not JupyterHub's second, for the xsrf cookie it sets anyone
    assert "xsrf" not in grown, grown


def test_jupyterhubs_own_lines_name_her_not_the_x_real_ip_she_wrote(hub):
    """JupyterHub's own lines name the request's remote_ip, which Tornado took from
    X-Real-IP: it is now the client as clients.py names it (request_bodies.py)."""
    bobs = joined(hub, "bob")
    before = _log(hub).stat().st_size
    conn, headers, xsrf = logins._connect(hub["settings"]["port"], HERS, None)
    try:
        headers["X-Real-IP"] = bobs
        status, _ = logins._post(conn, headers, xsrf, hub["names"]["ada"], "not her password")
    finally:
        conn.close()
    assert status == 403
    grown = grown_by(hub, before, "PAM Authentication failed", 1)
    failed = [line for line in grown.splitlines() if "PAM Authentication failed" in line]
    assert failed and all(f"@{HERS})" in line for line in failed), failed
    assert bobs not in grown


def test_a_nul_from_her_server_to_the_hubs_port_is_a_400_naming_her_server(hub):
    """ada's server sends the request to the hub's API port with 60 headers of 1000
    bytes and bob's server's address in X-Real-IP: her server's joined address is
    in each line, bob's in none."""
    hers, bobs = joined(hub, "ada"), joined(hub, "bob")
    ada = Kernel(hub, "ada")
    try:
        n = 300
        before = _log(hub).stat().st_size
        started = time.monotonic()
        statuses = json.loads(ada.value(
            SEND + "\nprint(json.dumps(flood(%d, '/hub/static/%%00', %d, %r, 60)))"
            % (hub["settings"]["hub_port"], n, bobs)))
        seconds = time.monotonic() - started
        grown = grown_by(hub, before, "/hub/static/%00", n)
        print(f"from her server, {n} requests with 60 KB of headers in {seconds:.1f} s: "
              f"hub.log +{len(grown.encode())} bytes ({len(grown.encode()) / n:.0f} a request)")
        assert set(statuses) == {400}, sorted(set(statuses))
        assert len(grown.encode()) <= n * PER_REQUEST, len(grown.encode())
        lines = [line for line in grown.splitlines() if "/hub/static/%00" in line]
        assert len(lines) == n and all(f"@{hers})" in line for line in lines), lines[:3]
        assert bobs not in grown
        assert "Traceback" not in grown and "X-Filler" not in grown
    finally:
        ada.stop_server()


def test_the_hubs_log_is_written_through_its_size_capped_writer(hub):
    """hub.py start has the hub write its log through log_writer.py, capped."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"log_writer.py") for a in argv) and \
                str(_log(hub)).encode() in argv:
            found.append(argv)
    assert len(found) == 1, found
    assert b"--max-bytes" in found[0] and b"--files" in found[0]
    # it is the hub's stdout
    pid = int((hub["state"] / "hub-process.pid").read_text())
    target = os.readlink(f"/proc/{pid}/fd/1")
    assert target.startswith("pipe:"), target


def _writes_blocking(pid):
    """Whether each of the process's stdout and stderr is an open file without
    O_NONBLOCK: {fd: bool}."""
    found = {}
    for fd in (1, 2):
        flags = next(line for line in Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines()
                     if line.startswith("flags:"))
        found[fd] = not int(flags.split()[1], 8) & os.O_NONBLOCK
    return found


def test_the_hub_and_its_services_write_to_its_log_pipe_blocking_the_proxy_apart(hub):
    """node makes its stdout and stderr non-blocking: the proxy shared the one open
    file of hub.log's pipe with the hub and its services, so under a flood their
    lines were lost (BlockingIOError) or spliced. The proxy has open files of the
    pipe of its own; everyone else's stays blocking."""
    pid = int((hub["state"] / "hub-process.pid").read_text())
    children = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()
                and f"PPid:\t{pid}\n" in _status(entry)]
    proxy = [child for child in children
             if b"configurable-http-proxy" in Path(f"/proc/{child}/cmdline").read_bytes()]
    assert len(proxy) == 1, children
    pipe = os.readlink(f"/proc/{pid}/fd/1")
    assert pipe.startswith("pipe:") and os.readlink(f"/proc/{proxy[0]}/fd/1") == pipe
    assert _writes_blocking(proxy[0]) == {1: False, 2: False}     # node's own
    checked = 0
    for process in [pid] + [child for child in children if child not in proxy]:
        try:            # a child may have ended meanwhile (the hub runs short commands)
            if os.readlink(f"/proc/{process}/fd/1") != pipe:
                continue
            blocking = _writes_blocking(process)
        except FileNotFoundError:
            continue
        assert blocking == {1: True, 2: True}, Path(f"/proc/{process}/cmdline").read_bytes()
        checked += 1
    assert checked >= 2, checked        # the hub and the book service at least


def _status(entry):
    try:
        return (entry / "status").read_text()
    except OSError:
        return ""


def test_what_her_server_writes_goes_to_its_own_log_not_the_hubs(hub):
    """ada's kernel writes, on the stdout and stderr of every process of hers it can
    open (her server's among them, which as JupyterHub ships is the hub's log), a
    line made to look like the hub's failed login naming bob's address, for a
    fail2ban on hub.log to ban: it lands in her server's log
    (STATE/servers/<name>.log), never in the hub's."""
    forged = ("[W 2026-11-27 09:00:00.000 JupyterHub login_limits:98] Failed login for "
              "'bob' from client 203.0.113.99")
    ada = Kernel(hub, "ada")
    try:
        before = _log(hub).stat().st_size
        # as she would: every output of every process of hers she may open, and
        # every pipe her kernel holds to write to (ipykernel keeps a copy of the
        # stdout it was started with, her server's)
        written = ada.value(
            "import os\n"
            "line, n = (%r + '\\n').encode(), 0\n"
            "for pid in os.listdir('/proc'):\n"
            "    if not pid.isdigit() or int(pid) == os.getpid():\n"
            "        continue\n"
            "    for fd in (1, 2):\n"
            "        try:\n"
            "            out = os.open('/proc/%%s/fd/%%d' %% (pid, fd), os.O_WRONLY)\n"
            "        except OSError:\n"
            "            continue\n"
            "        os.write(out, line); os.close(out); n += 1\n"
            "import fcntl\n"
            "for fd in map(int, os.listdir('/proc/self/fd')):\n"
            "    try:\n"
            "        if fd > 2 and os.readlink('/proc/self/fd/%%d' %% fd).startswith('pipe:') \\\n"
            "                and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:\n"
            "            os.write(fd, line); n += 1\n"
            "    except OSError:\n"
            "        pass\n"
            "print('\\nwritten to', n, 'outputs')" % forged)
        # (what went to the kernel's own output comes back in the cell's, and may run
        # into the count's line: it is found by its words)
        counted = [int(n) for n in re.findall(r"written to (\d+) outputs", written)]
        assert counted and counted[0] >= 1, written
        own = hub["state"] / "servers" / f"{hub['names']['ada']}.log"
        deadline = time.monotonic() + 30
        while forged not in (own.read_text() if own.exists() else ""):
            assert time.monotonic() < deadline, "her line is not in her server's log"
            time.sleep(0.2)
        assert forged not in _log(hub).read_bytes()[before:].decode(errors="replace")
        assert own.parent.stat().st_mode & 0o077 == 0       # root's alone
    finally:
        ada.stop_server()
