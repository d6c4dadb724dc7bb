"""The hub's spawner (deploy/spawner.py) binds for each server a port below 1024
that is free and named by no service, and holds it for that server alone; when
none is left it says so.  Run with the hub's own Python (JupyterHub is installed there
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

def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True

held = socket.socket()               # a port something else listens on
held.bind(("127.0.0.1", next(p for p in range(low, high) if p not in named and bindable(p))))
held.listen()
free = [p for p in range(low, high) if p not in named and bindable(p)]
given, kept, error = [], [], None
for n in range(high - low + 1):
    try:
        listener = spawner.CourseSpawner(port_range=(low, high)).listen()
    except RuntimeError as e:
        error = str(e)
        break
    kept.append(listener)            # a running server holds its socket
    given.append(listener.getsockname()[1])
try:
    spawner.CourseSpawner(port_range=(1000, 1030)).listen()
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

