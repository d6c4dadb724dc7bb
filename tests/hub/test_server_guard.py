"""A user's server holds the capability to bind a port below 1024 until it has
bound its own, then none (deploy/server_guard.py, as deploy/spawner.py starts
it): what it starts afterwards, a kernel or a terminal, holds none, and cannot
bind such a port.  No hub runs here: a process changes to the user ``nobody``
as the spawner's does, and runs the server's steps; on a real hub, played as a
student would: tests/hub/test_hub_user_servers.py."""

import errno
import json
import os
import pwd
import socket
import subprocess
import sys
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
sys.path.insert(0, str(DEPLOY))

import server_guard  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="changing to another user needs root")

#: Python of the system: a user such as ``nobody`` may run it (not a virtual
#: environment under root's home); server_guard.py comes as its text, for the
#: same reason.
PYTHON = "/usr/bin/python3"
SERVER = """
import errno, json, socket, subprocess, sys, types
server_guard = types.ModuleType("server_guard")
exec(sys.argv[1], server_guard.__dict__)
port, other = int(sys.argv[2]), int(sys.argv[3])

def child_capabilities():
    status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True).stdout
    return {k: int(v, 16) for k, v in (line.split(":\\t") for line in status.splitlines())
            if k in server_guard.HELD}

def bind(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as e:
            return errno.errorcode[e.errno]
        return "bound"

listener = socket.socket()
listener.bind(("127.0.0.1", port))
listener.listen()
started = child_capabilities()
server_guard.drop_capabilities()
print(json.dumps({"started": started, "after": child_capabilities(),
                  "held": server_guard.capabilities_held(), "other": bind(other)}))
"""


def free_low_ports(count):
    """``count`` ports below 1024 that nothing uses now and /etc/services does not name."""
    found = []
    for port in range(990, 100, -1):
        try:
            socket.getservbyport(port, "tcp")
            continue
        except OSError:
            pass
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    pytest.skip("no free port below 1024")


def test_the_server_binds_its_low_port_then_holds_and_passes_on_no_capability():
    nobody = pwd.getpwnam("nobody")

    def as_the_spawner_starts_it():
        server_guard.keep_capabilities_through_setuid()
        os.setgroups([])
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
        server_guard.keep_bind_capability()

    port, other = free_low_ports(2)
    guard = (DEPLOY / "server_guard.py").read_text()
    done = subprocess.run([PYTHON, "-c", SERVER, guard, str(port), str(other)],
                          preexec_fn=as_the_spawner_starts_it, capture_output=True, text=True,
                          cwd="/", timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    bind = 1 << server_guard.CAP_NET_BIND_SERVICE
    # before the drop, a program the server started would have held the capability
    assert seen["started"] == {"CapInh": bind, "CapPrm": bind, "CapEff": bind, "CapAmb": bind}
    # after it, nothing, in no thread of the server, and no low port can be bound
    assert seen["after"] == {"CapInh": 0, "CapPrm": 0, "CapEff": 0, "CapAmb": 0}
    assert seen["held"] == {}
    assert seen["other"] == errno.errorcode[errno.EACCES]


def test_without_the_capability_the_user_cannot_bind_a_low_port():
    """What a student's own process meets: the port of her server, once free."""
    nobody = pwd.getpwnam("nobody")
    port, = free_low_ports(1)
    done = subprocess.run(
        [PYTHON, "-c", "import socket, sys; socket.socket().bind(('127.0.0.1', int(sys.argv[1])))",
         str(port)], preexec_fn=lambda: (os.setgroups([]), os.setgid(nobody.pw_gid),
                                         os.setuid(nobody.pw_uid)),
        capture_output=True, text=True, cwd="/", timeout=60)
    assert done.returncode != 0 and "Permission denied" in done.stderr, done.stderr
