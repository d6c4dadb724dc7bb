"""The hub's spawner (deploy/spawner.py) binds for each server a port below 1024
that is free, named by no service and not the hub's, and holds it for that server
alone; when none is left it says so.  ``hub.py init`` chooses the ports of the hub
and its services by the same rule (deploy/low_ports.py), below 1024 and apart from
the servers' range.  Run with the hub's own Python (JupyterHub is installed there
only), as root, as the hub runs; no hub starts here."""

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the hub runs as root")

CHOOSE = """
import json, socket, sys
sys.path.insert(0, sys.argv[1])
import low_ports, spawner

low, high = 600, 640
named = [p for p in range(low, high) if low_ports.named_service(p)]

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
reserved = free.pop()                # the hub's own, free while its service restarts
given, kept, error = [], [], None
for n in range(high - low + 1):
    try:
        listener = spawner.CourseSpawner(port_range=(low, high), reserved_ports=[reserved]).listen()
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
                  "reserved": reserved, "given": given, "error": error, "wrong": wrong}))
"""


def test_each_server_gets_its_own_free_unnamed_port_below_1024(installed):
    done = subprocess.run([str(installed / "hub" / "bin" / "python"), "-c", CHOOSE, str(DEPLOY)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["free"], seen
    # every free port once, none twice, none named, not the one in use, not the hub's
    assert sorted(seen["given"]) == sorted(seen["free"]), seen
    assert seen["held"] not in seen["given"] and not set(seen["named"]) & set(seen["given"])
    assert seen["reserved"] not in seen["given"]
    assert "no free port in CourseSpawner.port_range (600, 640)" in seen["error"], seen["error"]
    assert "port_range must lie within [1, 1024)" in seen["wrong"], seen["wrong"]



#: Run in a network namespace of its own (``unshare -n``, its loopback brought up), so
#: that the ports other hubs of the machine hold change nothing it asserts.
HUB_PORTS = """
import json, socket, subprocess, sys
sys.path.insert(0, sys.argv[1])
import hub, low_ports, spawner
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

def unnamed(low, high):
    return [p for p in range(low, high) if not low_ports.named_service(p)]

chosen = [hub.hub_ports() for _ in range(5)]
kept = hub.hub_ports(8000)
# in a small range: one port held by something else, the rest taken exactly
low, high = 40, 50
held = low_ports.listen_on_free_port("127.0.0.1", low, high)
small = hub.hub_ports(within=(low, high))
try:
    hub.hub_ports(within=(40, 43))
except RuntimeError as e:
    error = str(e)
print(json.dumps({"chosen": chosen, "kept": kept, "small": small, "error": error,
                  "held": held.getsockname()[1], "unnamed": unnamed(low, high),
                  "servers": list(spawner.CourseSpawner().port_range)}))
"""


#: The Fetch Standard's "bad ports" below 100: a browser never opens them.
BROWSER_REFUSED = {1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77,
                   79, 87, 95}


def named(port):
    """Whether /etc/services names a TCP service on ``port``."""
    try:
        socket.getservbyport(port, "tcp")
    except OSError:
        return False
    return True


def test_the_hubs_ports_are_below_1024_free_unnamed_and_never_a_servers(installed):
    done = subprocess.run(["unshare", "-n", str(installed / "hub" / "bin" / "python"), "-c",
                           HUB_PORTS, str(DEPLOY)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    settings = {"port", "hub_port", "proxy_api_port", "ngshare_port", "book_port"}
    low, high = seen["servers"]
    for ports in seen["chosen"]:
        assert set(ports) == settings, ports
        assert len(set(ports.values())) == len(settings), ports    # no two alike
        for port in ports.values():
            # below 1024, so only root binds it; never one a user's server may get
            assert 0 < port < 1024 and not low <= port < high, ports
            assert not named(port) and port not in BROWSER_REFUSED, ports
    # the instructor's public port is kept, the others chosen as before
    assert seen["kept"]["port"] == 8000 and all(
        0 < p < low for name, p in seen["kept"].items() if name != "port"), seen["kept"]
    # free when chosen: never the port something listens on; unnamed only
    assert seen["held"] not in seen["small"].values(), seen
    assert set(seen["small"].values()) <= set(seen["unnamed"]) - BROWSER_REFUSED, seen
    assert "the hub needs 5" in seen["error"], seen["error"]


#: As root in a mount namespace of its own, whose /dev/shm is a fresh tmpfs: the
#: tester's chain of 1,500 folders of nobody's there, then the spawner's clean-up
#: for a classmate (daemon) and for her, as start, stop and a dead server's poll
#: run it; then the same with a clean-up that fails outright.
DEEP_SHARED_MEMORY = """
import asyncio, json, logging, os, pwd, subprocess, sys, types
sys.path.insert(0, sys.argv[1])
import server_limits, spawner
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=1777", "tmpfs", "/dev/shm"],
               check=True)
nobody = pwd.getpwnam("nobody")
def become_nobody():
    os.setgid(nobody.pw_gid); os.setgroups([]); os.setuid(nobody.pw_uid)
subprocess.run([sys.executable, "-c", '''
import os
fd = os.open("/dev/shm", os.O_RDONLY)
for i in range(1500):
    os.mkdir("d", dir_fd=fd); fd = os.open("d", os.O_RDONLY, dir_fd=fd)
'''], preexec_fn=become_nobody, check=True)
logged = []
class Keep(logging.Handler):
    def emit(self, record):
        logged.append(record.getMessage())
spawner.CourseSpawner().log.addHandler(Keep())
def clean_up(name):
    one = spawner.CourseSpawner(user=types.SimpleNamespace(name=name, id=1, url="/"))
    try:
        asyncio.run(one.remove_limits())
        return "went on"
    except BaseException as e:
        return type(e).__name__
seen = {"classmate": clean_up("daemon"), "chain_after_classmate": os.path.isdir("/dev/shm/d"),
        "her": clean_up("nobody"), "chain_after_her": os.path.isdir("/dev/shm/d")}
def broken(user, roots=None):
    raise RuntimeError("walk failed")
server_limits.remove_shared_memory = broken
seen["broken"] = clean_up("daemon")
seen["logged"] = logged
print(json.dumps(seen))
"""


def test_a_students_deep_folders_in_shared_memory_stop_no_ones_server(installed):
    """The tester's chain made every server's start and stop raise RecursionError in
    the spawner's clean-up, and stayed.  A classmate's clean-up goes on past it,
    hers removes it, and a clean-up that fails is logged, not raised."""
    done = subprocess.run(["unshare", "-m", "--propagation", "private",
                           str(installed / "hub" / "bin" / "python"), "-c",
                           DEEP_SHARED_MEMORY, str(DEPLOY)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["classmate"] == "went on" and seen["chain_after_classmate"], seen
    assert seen["her"] == "went on" and not seen["chain_after_her"], seen
    assert seen["broken"] == "went on", seen
    assert any("Could not remove the cgroups or shared memory of daemon" in line
               for line in seen["logged"]), seen["logged"]
