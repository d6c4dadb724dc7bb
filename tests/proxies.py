"""The installed configurable-http-proxy run alone in front of a small server, as
the hub starts it (with deploy/proxy_limits.js loaded) or as it ships, for the
tests that play attacks on the proxy without a whole hub; and what the kernel
holds in the proxy's sockets, read from ``ss``.
"""

import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import requests

from conftest import free_port, stop_process

LIMITS = Path(__file__).resolve().parents[1] / "deploy" / "proxy_limits.js"

#: A server that answers every GET and POST with "answered", once it has read the
#: request's body (a half login holds its thread and connection there), and
#: ``/state`` with how many requests of each path it has answered.
ANSWERING = r"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock, reached = threading.Lock(), {}
class Answer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        with lock:
            if self.path == "/state":
                body = json.dumps(reached).encode()
            else:
                reached[self.path] = reached.get(self.path, 0) + 1
                body = b"answered"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Answer).serve_forever()
"""


@contextlib.contextmanager
def running_proxy(installed, folder, upstream_code, limits=True, env=None):
    """The installed proxy, with the course's limits or without, in front of a
    Python server (``upstream_code``, given its port as its argument) that answers
    ``/state``; yields (the proxy's port, the server's port, the proxy's log file)."""
    upstream, port, api = free_port(), free_port(), free_port()
    chp = installed / "proxy" / "node_modules" / "configurable-http-proxy" / "bin" / \
        "configurable-http-proxy"
    preload = ["--require", str(LIMITS)] if limits else []
    (folder / "upstream.py").write_text(upstream_code)
    log = folder / "proxy.log"
    with open(log, "wb") as out:
        procs = [subprocess.Popen([sys.executable, folder / "upstream.py", str(upstream)]),
                 subprocess.Popen(["node", *preload, str(chp), "--ip", "127.0.0.1",
                                   "--port", str(port), "--api-ip", "127.0.0.1",
                                   "--api-port", str(api),
                                   "--default-target", f"http://127.0.0.1:{upstream}"],
                                  env=dict(os.environ, CONFIGPROXY_AUTH_TOKEN="t", **(env or {})),
                                  stdout=out, stderr=subprocess.STDOUT)]
    try:
        end = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/state", timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < end, "the proxy did not answer"
            time.sleep(0.3)
        yield port, upstream, log
    finally:
        for proc in procs:
            stop_process(proc)


def held(port, peer):
    """The proxy's connections on ``port`` to the address ``peer`` that hold
    buffers, in any state (an orphan the proxy has closed still holds them; the
    kernel's leftovers of a connection whose data is all acknowledged, FIN-WAIT-2
    and TIME-WAIT, hold none and are not counted): (how many, the bytes of the
    machine's TCP memory they hold, ``skmem``'s queued for sending and received)."""
    out = subprocess.run(["ss", "-tmnH", "state", "all", f"( sport = :{port} )"],
                         capture_output=True, text=True, check=True).stdout
    count = size = 0
    for line, mem in re.findall(r"^(\S.*)\n\s+skmem:\(([^)]*)\)", out, re.M):
        fields = line.split()
        if fields[0] == "LISTEN" or fields[-1].rsplit(":", 1)[0].strip("[]") != peer:
            continue
        values = dict(re.fullmatch(r"([a-z_]+)(\d+)", part).groups() for part in mem.split(","))
        count += 1
        size += int(values["w"]) + int(values["r"])
    return count, size


def kept_alive_statuses(connect, paths):
    """The status of each of ``paths`` asked in turn on one kept-alive connection
    (``connect()`` opens one, and a new one after the server closes it)."""
    statuses, conn = [], None
    for path in paths:
        if conn is None:
            conn = connect()
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        statuses.append(answer.status)
        if answer.will_close:
            conn.close()
            conn = None
    if conn is not None:
        conn.close()
    return statuses
