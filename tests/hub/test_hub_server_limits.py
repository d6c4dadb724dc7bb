"""One student's server cannot take the machine's memory, processes or CPU.

Played on the shared folder hub (tests/hubs.py) as a student would, through her
notebook's kernel (JupyterLab's own channel to it, the kernel's websocket):
ada's server runs in a memory cgroup and a pids cgroup of its own
(deploy/spawner.py, deploy/server_limits.py), 2G and 512 processes by the
course's default. She cannot write her groups' files nor move out of them. A
cell that allocates 3 GiB has her kernel killed (her server lives on); a flood
of processes (a fork bomb's) gets at most the processes her group allows. Meanwhile the hub answers,
and her classmate bob runs a cell in his own kernel. Then ada restarts her
kernel and runs a cell.

Her server also runs in a cpu cgroup of its own, of the same weight as every
server's and capped at one CPU: her spinning processes, each its own session,
use one CPU at most, and bob's computation gets about as much CPU as they do.

Memory she could keep past her cap once her server stops: a file in /dev/shm,
and a System V shared memory segment she makes in her kernel and never removes.
Her server runs in an IPC namespace of its own: her terminal sees the segment,
bob and the hub's root do not, and a pool of processes with NumPy and POSIX
shared memory works there; once her server stops, no segment of hers is left and
no process is in her namespace.

Ports she could take from the machine: her server runs in a network namespace
of its own, with a loopback only. Her kernel sees no other interface, reaches
the hub's API, the public port and the book service (the hub joins those
ports of her loopback to the machine's) and not the proxy's API. She binds
every port of her range for outgoing connections, while the hub answers through the proxy on fresh
connections and bob runs cells, in his kernel and in a new one.

Without the cgroups, her kernel is in the hub's groups, the 3 GiB are allocated
and the thousand processes are all born: each assertion below that names
the limit fails. Without the namespace, her segment is in the machine's, where
root sees it, hers, after her server stops.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import re
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest
import requests

from attacks import EPHEMERAL_PORT_TAKER, SYSV_SEGMENT
from hubs import students_of
from kernels import Kernel

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _deploy_module(name):
    spec = importlib.util.spec_from_file_location(
        name, Path(__file__).resolve().parents[2] / "deploy" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Who the course's servers say a request came from (deploy/clients.py).
clients = _deploy_module("clients")

MEMORY = 2 * 1024**3   # the course's default (deploy/jupyterhub_config.py)
PROCESSES = 512

#: What her kernel reads of its own cgroups: {controller: the group's folder}.
OWN_GROUPS = """
import json
own = {}
for line in open("/proc/self/cgroup"):
    _, ctrls, path = line.rstrip("\\n").split(":", 2)
    for ctrl in ctrls.split(",") if ctrls else ["v2"]:
        own[ctrl] = path
mounts, unified = {}, None
for line in open("/proc/self/mounts"):
    _, where, fstype, options, *_ = line.split()
    if fstype == "cgroup":
        for ctrl in ("memory", "pids"):
            if ctrl in options.split(","):
                mounts[ctrl] = where + own[ctrl]
    elif fstype == "cgroup2":
        unified = where + own["v2"]
if not mounts and unified:   # cgroup v2 alone: one group for both
    mounts["v2"] = unified
print(json.dumps(mounts))
"""

#: Her kernel tries to raise her limits and to leave her groups.
ESCAPE = """
import os, json
tried = {}
for ctrl, folder in %s.items():
    parent = os.path.dirname(folder)
    for path, value in ((os.path.join(folder, "memory.limit_in_bytes"), "-1"),
                        (os.path.join(folder, "memory.max"), "max"),
                        (os.path.join(folder, "pids.max"), "max"),
                        (os.path.join(parent, "cgroup.procs"), str(os.getpid()))):
        if not os.path.exists(path):
            continue
        try:
            with open(path, "w") as f:
                f.write(value)
            tried[path] = "written"
        except OSError as e:
            tried[path] = e.errno
print(json.dumps(tried))
"""

HOG = """
chunks = [b"\\1" * (256 << 20) for _ in range(12)]   # 3 GiB, every page touched
print("allocated", sum(map(len, chunks)) >> 20, "MiB")
"""

#: A flood of processes: a thousand, each waiting a minute, started as fast as the
#: kernel lets her (the processes of a fork bomb, without the copies of her
#: kernel's memory that a bomb of Python forks would also make); kept in
#: ``flood`` for the next cell.
BOMB = """
import subprocess
flood, refused = [], 0
for _ in range(1000):
    try:
        flood.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    except OSError:
        refused += 1
        if refused > 20:
            break
print("processes", len(flood), "refused", refused)
"""


def ending(processes):
    """Kernel code that kills and reaps the processes in the list named
    ``processes`` and prints how many there were."""
    return f"""
for p in {processes}:
    p.kill()
    p.wait()
print(len({processes}))
"""


END_BOMB = ending("flood")

#: The IPC namespace a kernel is in, and how many System V segments it sees there.
IPC_SEEN = """
import os
print(os.readlink("/proc/self/ns/ipc"), len(open("/proc/sysvipc/shm").read().splitlines()) - 1)
"""

#: NumPy and multiprocessing as a notebook uses them in her namespace: a pool of
#: processes (its locks are POSIX semaphores, files in /dev/shm) and a block of
#: POSIX shared memory.
POOL = """
import multiprocessing, numpy as np
from multiprocessing import shared_memory
with multiprocessing.Pool(2) as pool:
    total = sum(pool.map(int, np.arange(10)))
block = shared_memory.SharedMemory(create=True, size=1 << 20)
np.ndarray((4,), dtype=np.int64, buffer=block.buf)[:] = 7
total += int(np.ndarray((4,), dtype=np.int64, buffer=block.buf).sum())
block.close()
block.unlink()
print(total)
"""


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "server_limits")


def classmate_and_hub_work(hub, bob):
    assert requests.get(f"{hub['url']}/hub/api", timeout=60).status_code == 200
    assert bob.value("print(sum(range(10)))") == "45"


def test_a_students_memory_and_processes_are_capped_and_her_classmate_works(hub):
    ada, bob = Kernel(hub, "ada"), Kernel(hub, "bob")
    groups = json.loads(ada.value(OWN_GROUPS))
    # her kernel is in groups of her own server's, whose files are not hers
    assert groups and all(folder.endswith(f"/kernel-course-{ada.name}")
                          for folder in groups.values()), groups
    tried = json.loads(ada.value(ESCAPE % (groups,)))
    assert tried and all(outcome in (1, 13) for outcome in tried.values()), tried   # EPERM, EACCES
    assert json.loads(ada.value(OWN_GROUPS)) == groups

    before = ada.value("import os; print(os.getpid())")
    status, printed, ename = ada.run(HOG)
    assert "allocated" not in printed, (status, printed)
    assert status == "died" or ename == "MemoryError", (status, printed, ename)
    assert ada.server_up(), "her server went down with her kernel"
    classmate_and_hub_work(hub, bob)
    ada.restart()
    assert ada.value("import os; print(os.getpid())") != before
    assert ada.value("print(1 + 1)") == "2"

    counted = ada.value(BOMB).split()
    born, refused = int(counted[1]), int(counted[3])
    assert born < PROCESSES and refused > 0, counted
    classmate_and_hub_work(hub, bob)   # while the bomb's processes live
    assert ada.server_up()
    assert ada.value(END_BOMB) == str(born)
    ada.restart()
    assert ada.value("print(2 + 2)") == "4"

    # the hub's log says what caps her server
    log = (hub["state"] / "hub.log").read_text()
    assert f"Server of {ada.name} capped: memory {MEMORY} bytes" in log
    assert f"; {PROCESSES} processes (cgroup " in log
    said = [line for line in log.splitlines() if f"Server of {ada.name} capped: " in line]
    reached = ", ".join(str(hub["settings"][port]) for port in ("hub_port", "port", "book_port"))
    assert said and all(line.endswith("; an IPC namespace of its own; network private, reaching "
                                      f"the machine's 127.0.0.1 on ports {reached}")
                        for line in said), said
    # memory she keeps in a tmpfs, which outlives her server and its group
    kept = Path("/dev/shm") / f"kept-{ada.name}"
    assert ada.value(f"open({str(kept)!r}, 'wb').write(b'x' * 2**20); print('kept')") == "kept"
    assert kept.exists()
    # and a System V segment, which would outlive them too: in her namespace, which
    # her terminal shares, but neither bob's nor the machine's
    ada.value(SYSV_SEGMENT)
    namespace, seen = ada.value(IPC_SEEN).split()
    assert seen == "1", seen
    status, shown = ada.terminal("(exit $(ipcs -m | grep -c ' 25165824 '))")   # her 24 MiB
    assert status == 1, shown
    theirs = bob.value(IPC_SEEN).split()
    assert theirs[0] != namespace and theirs[1] == "0", (namespace, theirs)
    uid = pwd.getpwnam(ada.name).pw_uid
    assert not [s for s in root_segments() if s["uid"] == uid]
    # what her notebooks use still works in it
    assert ada.value(POOL) == str(45 + 28)
    status, shown = ada.terminal("nbgrader list")
    assert status == 0, shown
    # once her server stops, her groups are gone, and nothing of hers runs on
    # or stays in memory: no file, no segment, no process in her namespace
    ada.stop_server()
    assert not any(Path(folder).exists() for folder in groups.values()), groups
    assert not kept.exists()
    assert not [s for s in root_segments() if s["uid"] == uid]
    assert not in_namespace(namespace), namespace


#: What her kernel sees of the network: its interfaces, and what a connection to
#: each of the given ports of 127.0.0.1 gets ("connected" or the error's name).
NETWORK_SEEN = """
import errno, json, socket
seen = {"interfaces": sorted(line.split(":")[0].strip()
                             for line in open("/proc/net/dev").readlines()[2:])}
for port in %r:
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        seen[port] = "connected"
    except OSError as e:
        seen[port] = errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()
print(json.dumps(seen))
"""

#: Her kernel starts EPHEMERAL_PORT_TAKER in the folder %(folder)r, waits until its
#: processes have bound what they can, and prints the range's size and how many
#: were bound.
TAKE_EVERY_PORT = """
import json, os, subprocess, sys, time
os.makedirs(%(folder)r, exist_ok=True)
low, high = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
subprocess.Popen([sys.executable, "-c", %(code)r, %(folder)r], start_new_session=True)
def counts():
    return [int(open(os.path.join(%(folder)r, name)).read() or 0)
            for name in os.listdir(%(folder)r) if name.startswith("bound-")]
def processes():
    try:
        return int(open(os.path.join(%(folder)r, "processes")).read())
    except (OSError, ValueError):
        return None
end = time.time() + 150
while time.time() < end and len(counts()) != processes():
    time.sleep(0.5)
print(json.dumps({"range": high - low + 1, "bound": sum(counts())}))
"""


def test_a_student_who_binds_every_outgoing_port_stops_no_one_else(hub):
    """Her server has a network of its own: the machine's ports are not hers to take.

    Without it (every server in the machine's namespace), her kernel sees the
    machine's interfaces and the proxy's API port, and once she holds the range,
    the proxy answers 503 and bob's kernel is out of reach."""
    settings = hub["settings"]
    reached = [settings[port] for port in ("hub_port", "port", "book_port")]
    absent = [settings[port] for port in ("proxy_api_port", "ngshare_port")
              if settings.get(port)]
    ada, bob = Kernel(hub, "ada"), Kernel(hub, "bob")
    seen = json.loads(ada.value(NETWORK_SEEN % (reached + absent,)))
    assert seen.pop("interfaces") == ["lo"], seen
    assert all(seen[str(port)] == "connected" for port in reached), seen
    assert all(seen[str(port)] == "ECONNREFUSED" for port in absent), seen

    home = Path(pwd.getpwnam(ada.name).pw_dir)
    folder = home / f"ports-{secrets.token_hex(3)}"
    try:
        took = json.loads(ada.value(TAKE_EVERY_PORT % {
            "folder": str(folder), "code": EPHEMERAL_PORT_TAKER}))
        # every port of the range is hers, in her namespace, but for the few her
        # own connections hold (a new connection may share those)
        assert took["range"] - 256 <= took["bound"] and took["bound"] > 1000, took
        # the machine's are not: the proxy reaches the hub and bob's server on new
        # connections, and bob runs cells
        for _ in range(10):
            with requests.Session() as fresh:
                assert fresh.get(f"{hub['url']}/hub/api", timeout=60).status_code == 200
        classmate_and_hub_work(hub, bob)
        assert Kernel(hub, "bob").value("print(6 * 7)") == "42"
        with socket.create_connection(("127.0.0.1", settings["hub_port"]), timeout=10):
            pass
    finally:
        folder.mkdir(exist_ok=True)
        (folder / "stop").touch()
    # once her processes let go, her server reaches the hub again
    deadline = time.monotonic() + 60
    while json.loads(ada.value(NETWORK_SEEN % ([settings["hub_port"]],)))[
            str(settings["hub_port"])] != "connected":
        assert time.monotonic() < deadline, "her server did not reach the hub again"
        time.sleep(1)


#: Her kernel opens %(connections)d connections to 127.0.0.1:%(port)d, each sending
#: all but the last byte of a body of %(size)d bytes to %(path)r, holds them for
#: %(hold)s seconds, and prints how many the other side closed on her.
#: Her kernel fills a server's budget with bodies and holds them, as a student who
#: knows how it works would: a body of each size, halving, for as long as the
#: server takes them (one it answers or closes at once is cut), until it takes
#: nothing larger than ``smallest``. Then she says what she holds in ``mark``
#: (a file of her own) and holds it until the test removes that file.
FILL_AND_HOLD = """
import json, os, select, socket, time
held, cut, size = [], 0, %(largest)d
while size >= %(smallest)d and len(held) < 48:    # the hub joins 64 connections of hers
    s = socket.create_connection(("127.0.0.1", %(port)d), timeout=60)
    try:
        s.sendall(("POST %(path)s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: %%d"
                   "\\r\\n\\r\\n" %% size).encode())
        left, block = size - 1, b" " * (1 << 20)
        while left > 0:
            left -= s.send(block[:min(left, len(block))])
        refused = bool(select.select([s], [], [], 2)[0])
    except OSError:
        refused = True
    if refused:
        s.close()
        cut += 1
        size //= 2
    else:
        held.append((s, size - 1))
time.sleep(1)
kept = [(s, n) for s, n in held if not select.select([s], [], [], 0)[0]]
with open(%(mark)r, "w") as f:
    json.dump({"held": len(kept), "bytes": sum(n for _, n in kept), "cut": cut}, f)
deadline = time.monotonic() + 600
while os.path.exists(%(mark)r) and time.monotonic() < deadline:
    time.sleep(0.2)
for s, _ in held:
    s.close()
print(json.dumps({"held": len(kept), "bytes": sum(n for _, n in kept), "cut": cut}))
"""


class Holding:
    """Her kernel filling a server's budget and holding it (:data:`FILL_AND_HOLD`),
    in a thread of the test: ``with Holding(...) as held:`` is while she holds
    ``held`` (what she says she holds); leaving it lets go."""

    def __init__(self, kernel, **cell):
        home = Path(pwd.getpwnam(kernel.name).pw_dir)
        self.mark = home / f".holding-{secrets.token_hex(4)}"
        self.kernel, self.cell = kernel, {**cell, "mark": str(self.mark)}
        self.done = {}

    def _run(self):
        try:
            self.done["printed"] = self.kernel.value(FILL_AND_HOLD % self.cell)
        except BaseException as e:       # said in __exit__
            self.done["error"] = e

    def __enter__(self):
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        deadline = time.monotonic() + 600
        while not self.mark.exists() or not self.mark.read_text().endswith("}"):
            assert self.thread.is_alive(), self.done
            assert time.monotonic() < deadline, "her kernel did not fill the budget"
            time.sleep(0.2)
        return json.loads(self.mark.read_text())

    def __exit__(self, *exc):
        self.mark.unlink(missing_ok=True)
        self.thread.join(timeout=700)
        assert not self.thread.is_alive(), "her kernel did not let go"
        if exc[0] is None:
            assert "error" not in self.done, self.done


def browser_login(hub, who):
    """Log ``who`` in through the proxy as her browser does (the login form, its
    _xsrf, her password): her session, and the status of the form's POST; None if
    the hub cut the connection."""
    name = hub["names"][who]
    session = requests.Session()
    page = session.get(f"{hub['url']}/hub/login", timeout=60)
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text).group(1)
    try:
        done = session.post(f"{hub['url']}/hub/login",
                            data={"username": name, "password": hub["passwords"][name],
                                  "_xsrf": xsrf},
                            allow_redirects=False, timeout=120)
    except requests.ConnectionError:
        return session, None
    return session, done.status_code


def save(session, hub, who, path, text):
    """Save a notebook from ``who``'s browser session as JupyterLab does (a PUT of its
    JSON, with the server's _xsrf cookie as X-XSRFToken): the status; None if cut."""
    server = f"{hub['url']}/user/{hub['names'][who]}"
    xsrf = next(c.value for c in session.cookies
                if c.name == "_xsrf" and c.path.startswith(f"/user/{hub['names'][who]}"))
    notebook = {"type": "notebook", "format": "json", "content": {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "markdown", "id": "a1", "metadata": {}, "source": text}]}}
    try:
        return session.put(f"{server}/api/contents/{path}", json=notebook,
                           headers={"X-XSRFToken": xsrf}, timeout=120).status_code
    except requests.ConnectionError:
        return None


def rss(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def test_bodies_she_sends_and_holds_stop_neither_a_login_nor_a_classmates_saves(hub):
    """Tornado reads a body whole before any login is checked. Without a budget,
    60 connections of 99 MB to the hub's API made the hub hold 6 GB, and five of
    500 MB sent to bob's server through the public port, with no login, had his
    server killed at his memory cap. With a budget alone, a student who filled it
    and held it (bodies of halving sizes, as long as they were taken) had the hub
    refuse every other body, logins included, and bob's server his saves. Now she
    holds her share at most (the hub's 1 MiB; a quarter of bob's server's): bob
    logs in through the proxy while she holds the hub's, and saves a notebook from
    his browser session while she holds his server's; both cuts are logged naming
    her (the address her server's connections come from)."""
    settings = hub["settings"]
    ada, bob = Kernel(hub, "ada"), Kernel(hub, "bob")
    bobs = bob.value("import os; print(os.getpid())")
    joined = clients.joined_from(pwd.getpwnam(ada.name).pw_uid)   # her server's address
    hub_pid = int((hub["state"] / "hub-process.pid").read_text())
    before = rss(hub_pid)
    most, stop = [before], threading.Event()

    def watch():          # the hub's memory while she holds them
        while not stop.is_set():
            most[0] = max(most[0], rss(hub_pid))
            time.sleep(0.1)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with Holding(ada, port=settings["hub_port"], path="/hub/api/users",
                     largest=8 * 1024**2, smallest=64) as held:
            assert held["held"] >= 1, held
            session, login = browser_login(hub, "bob")
        assert login == 302, (login, held)
    finally:
        stop.set()
        watcher.join()
    # the hub held at most its budget (16 MiB) of them, and answers
    assert most[0] - before < 160 * 1024**2, (before, most)
    assert requests.get(f"{hub['url']}/hub/api", timeout=60).status_code == 200

    # his browser opens his server (the hub's OAuth: its cookie and his server's _xsrf)
    assert session.get(f"{hub['url']}/user/{bob.name}/lab", timeout=120).status_code == 200
    assert save(session, hub, "bob", "before.ipynb", "saved before") in (200, 201)
    with Holding(ada, port=settings["port"], path=f"/user/{bob.name}/api/contents/x.txt",
                 largest=128 * 1024**2, smallest=1024) as held:
        assert held["held"] >= 1, held
        saved = save(session, hub, "bob", "during.ipynb", "saved while she holds")
    assert saved in (200, 201), (saved, held)
    # bob's server and kernel live on: the same kernel process answers
    assert bob.server_up()
    assert bob.value("import os; print(os.getpid())") == bobs
    # the hub's cut in its log, bob's server's in that server's own
    log = (hub["state"] / "hub.log").read_text() + \
        (hub["state"] / "servers" / f"{bob.name}.log").read_text()
    share = f"its client's bodies held at once ({joined}) would pass its share of"
    cuts = [line for line in log.splitlines() if share in line]
    assert any(re.search(rf"hub: cut POST '/hub/api/users' from {re.escape(joined)} after "
                         rf"\d+ bytes of its body: .* {1024**2} bytes", line)
               for line in cuts), cuts
    assert any(re.search(rf"user server: cut POST '/user/{bob.name}/api/contents/x.txt' "
                         rf"from '(::ffff:)?{re.escape(joined)}' \(X-Forwarded-For\) over 127.0.0.1 "
                         rf"after \d+ bytes of its body: .* {64 * 1024**2} bytes", line)
               for line in cuts), cuts


#: Her kernel starts %(count)d processes spinning, each its own session (so each its
#: own autogroup where no cpu group holds them), kept in ``spinners``: their ids.
SPINNERS = """
import subprocess, sys
spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(%(count)d)]
print(" ".join(str(p.pid) for p in spinners))
"""
END_SPINNERS = ending("spinners")
#: His computation: a loop for %(seconds)s seconds of wall clock, and the CPU seconds
#: it got per second of it.
COMPUTES = """
import time
start, used = time.monotonic(), time.process_time()
while time.monotonic() < start + %(seconds)s:
    pass
print((time.process_time() - used) / (time.monotonic() - start))
"""


def cpu_seconds(pids):
    """The CPU seconds (user and system) the processes ``pids`` have used."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])   # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def cpu_group(pid):
    """The cpu cgroup of process ``pid``: its path in the hierarchy (v1's, or v2's)."""
    lines = [line.rstrip("\n").split(":", 2)
             for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines()]
    v1 = [path for _, ctrls, path in lines if "cpu" in ctrls.split(",")]
    return (v1 or [path for _, ctrls, path in lines if ctrls == ""])[0]


def test_a_students_spinning_processes_get_one_cpu_and_her_classmate_his_share(hub):
    """Her eight spinning processes, each its own session, as a student's script
    starts them from her terminal or kernel: her server's group uses at most one
    CPU, and bob's computation meanwhile gets about as much CPU as they do
    (a ratio: what the machine's other work takes from both does not change it).

    Without the cpu groups (every server in the hub's, each session an autogroup
    of equal weight) her eight took 1.77 CPU-seconds a second and bob's one 0.21,
    a ratio of 0.12; with them, 0.99 and 0.98."""
    ada, bob = Kernel(hub, "ada"), Kernel(hub, "bob")
    kernel = int(ada.value("import os; print(os.getpid())"))
    assert cpu_group(kernel).endswith(f"/kernel-course-{ada.name}"), cpu_group(kernel)
    spinners = [int(pid) for pid in ada.value(SPINNERS % {"count": 8}).split()]
    try:
        # born in her server's group, as everything it starts
        assert {cpu_group(pid) for pid in spinners} == {cpu_group(kernel)}
        his = {}
        computes = threading.Thread(target=lambda: his.setdefault(
            "cpu", float(bob.value(COMPUTES % {"seconds": 8}))))
        computes.start()
        time.sleep(2)                      # his cell runs from here on
        before, start = cpu_seconds(spinners), time.monotonic()
        time.sleep(5)
        hers = (cpu_seconds(spinners) - before) / (time.monotonic() - start)
        computes.join(timeout=300)
        assert hers <= 1.1, f"her server's processes: {hers:.2f} CPU-seconds a second"
        assert his.get("cpu", 0) >= 0.6 * hers, (
            f"his {his.get('cpu', 0):.2f}, hers {hers:.2f} CPU-seconds a second")
    finally:
        assert ada.value(END_SPINNERS) == "8"
    log = (hub["state"] / "hub.log").read_text()
    said = [line for line in log.splitlines() if f"Server of {ada.name} capped: " in line]
    assert said and all(re.search(r"; 1 CPU, an equal share of the CPU with every server "
                                  rf"\(cgroup [^)]*/kernel-course-{ada.name}\); ", line)
                        for line in said), said


def root_segments():
    """The System V shared memory segments root sees on the machine (``ipcs -m``):
    [{column of /proc/sysvipc/shm: value}]."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()
    return [dict(zip(lines[0].split(), map(int, line.split()))) for line in lines[1:]]


def in_namespace(namespace):
    """The processes of the machine in the IPC namespace ``namespace`` (ipc:[inode])."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/ns/ipc") == namespace:
                found.append(int(pid))
        except OSError:
            continue   # gone meanwhile
    return found
