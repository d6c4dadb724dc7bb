"""The hub's spawner (deploy/spawner.py) gives each server a port below 1024 that is
free, named by no service and given to no other running server; when none is
left it says so.  Run with the hub's own Python (JupyterHub is installed there
only), as root, as the hub runs; no hub starts here."""

import json
import os
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the hub runs as root")

CHOOSE = """
import json, socket, sys
sys.path.insert(0, sys.argv[1])
import spawner

low, high = 600, 640
named = [p for p in range(low, high) if spawner._named_service(p)]
held = socket.socket()               # a port something else listens on
for port in range(low, high):
    if port not in named and spawner._bindable("127.0.0.1", port):
        held.bind(("127.0.0.1", port))
        held.listen()
        break
free = [p for p in range(low, high) if p not in named and spawner._bindable("127.0.0.1", p)]
given, kept, error = [], [], None
for n in range(high - low + 1):
    server = spawner.CourseSpawner(port_range=(low, high))
    try:
        server.port = server.choose_port()
    except RuntimeError as e:
        error = str(e)
        break
    server.pid = 1000 + n            # started: its port is taken until it stops
    given.append(server.port)
    kept.append(server)              # a running server's spawner stays alive
try:
    spawner.CourseSpawner(port_range=(1000, 1030)).choose_port()
except ValueError as e:
    wrong = str(e)
print(json.dumps({"named": named, "held": held.getsockname()[1], "free": free,
                  "given": given, "error": error, "wrong": wrong}))
"""


def test_each_server_gets_its_own_free_unnamed_port_below_1024(installed):
    done = subprocess.run([str(installed / "hub" / "bin" / "python"), "-c", CHOOSE, str(DEPLOY)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["free"], seen
    # every free port once, none twice, none named, not the one in use
    assert sorted(seen["given"]) == sorted(seen["free"]), seen
    assert seen["held"] not in seen["given"] and not set(seen["named"]) & set(seen["given"])
    assert "no free port in CourseSpawner.port_range (600, 640)" in seen["error"], seen["error"]
    assert "port_range must lie within [1, 1024)" in seen["wrong"], seen["wrong"]

