"""A student's server in a network namespace of its own (deploy/server_network.py).

Played without a hub, as root, as the hub runs: a process entered into a
:class:`Loopback` (as the spawner enters a student's server, between fork and
exec) sees a loopback of its own, reaches the machine's loopback on the ports
the hub joins and on no other, and binding every port of its range for
outgoing connections takes none of the machine's. The hub's side caps the
connections one server may hold, carries data whole both ways, and ends them
all when the server stops. The real hub plays the same attack in
tests/hub/test_hub_server_limits.py.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, DEPLOY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


server_network = _load("server_network")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the hub runs as root")

#: Run as root inside the namespace: what it sees and reaches, then every port of a
#: range for outgoing connections taken (its namespace's range narrowed to
#: RANGE, so that one process's open files hold it), and what a new connection
#: then gets. Holds the ports until its input ends.
RANGE = (29000, 29999)   # outside the machine's own range: none of its connections
INSIDE = f"""
import errno, json, socket, sys
joined, other = int(sys.argv[1]), int(sys.argv[2])
def outcome(port):
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"ping")
        return s.recv(100).decode()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()
seen = {{"interfaces": sorted(line.split(":")[0].strip()
                             for line in open("/proc/net/dev").readlines()[2:]),
        "joined": outcome(joined), "other": outcome(other)}}
import os
if os.readlink("/proc/self/ns/net") == sys.argv[3]:
    sys.exit("still in the machine's network namespace: its range is not narrowed")
with open("/proc/sys/net/ipv4/ip_local_port_range", "w") as f:
    f.write("{RANGE[0]} {RANGE[1]}")
held = []
for port in range({RANGE[0]}, {RANGE[1]} + 1):
    s = socket.socket()
    s.bind(("0.0.0.0", port))
    held.append(s)
seen["held"] = len(held)
seen["other_after"] = outcome(other)
print(json.dumps(seen), flush=True)
sys.stdin.read()
"""


async def echo_server():
    """A listener on the machine's loopback that answers "machine:" and what it got."""
    async def answer(reader, writer):
        while data := await reader.read(1 << 16):
            writer.write(b"machine:" + data)
            await writer.drain()
        writer.close()
    return await asyncio.start_server(answer, "127.0.0.1", 0)


def port_of(server):
    return server.sockets[0].getsockname()[1]


def namespace_of(path):
    return os.readlink(path)


def test_inside_only_the_joined_ports_of_the_machine_and_its_ports_stay_free():
    hubs_own = namespace_of("/proc/thread-self/ns/net")

    # the machine's ports of that range, held here: its binds take none of them
    machines = []
    for port in range(RANGE[0], RANGE[1] + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            s.close()        # someone else's on this machine
            continue
        machines.append(s)
    assert len(machines) > 900

    async def play():
        joined, other = await echo_server(), await echo_server()
        loopback = server_network.Loopback.make([port_of(joined)])
        # making it left no thread of the hub's in the new namespace
        assert namespace_of("/proc/thread-self/ns/net") == hubs_own
        assert not [t for t in threading.enumerate() if t.name == "server-network"]
        await loopback.serve()
        inside = await asyncio.create_subprocess_exec(
            sys.executable, "-c", INSIDE, str(port_of(joined)), str(port_of(other)), hubs_own,
            preexec_fn=loopback.enter, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            seen = json.loads(await asyncio.wait_for(inside.stdout.readline(), 120))
            assert namespace_of(f"/proc/{inside.pid}/ns/net") != hubs_own
            # while it holds its whole range, the machine's connections are made
            for _ in range(20):
                reader, writer = await asyncio.open_connection("127.0.0.1", port_of(other))
                writer.write(b"x")
                assert await reader.read(100) == b"machine:x"
                writer.close()
        finally:
            inside.stdin.close()
            await inside.wait()
            await loopback.close()
            joined.close()
            other.close()
        return seen

    try:
        seen = asyncio.run(play())
    finally:
        for s in machines:
            s.close()
    assert seen["interfaces"] == ["lo"], seen
    assert seen["joined"] == "machine:ping", seen
    assert seen["other"] == "ECONNREFUSED", seen
    # its own range taken, a new connection finds no port for its end
    assert seen["held"] == RANGE[1] - RANGE[0] + 1, seen
    assert seen["other_after"] == "EADDRNOTAVAIL", seen


def test_data_crosses_whole_both_ways_and_each_end_is_passed_on():
    block = os.urandom(3 << 20)

    async def play():
        async def swap(reader, writer):
            got = await reader.read()            # until the client's end
            writer.write(got[::-1])
            await writer.drain()
            writer.close()
        machine = await asyncio.start_server(swap, "127.0.0.1", 0)
        loopback = server_network.Loopback.make([port_of(machine)])
        await loopback.serve()
        code = ("import socket, sys\n"
                f"s = socket.create_connection(('127.0.0.1', {port_of(machine)}))\n"
                "data = sys.stdin.buffer.read()\n"
                "s.sendall(data)\n"
                "s.shutdown(socket.SHUT_WR)\n"
                "back = b''\n"
                "while part := s.recv(1 << 16):\n"
                "    back += part\n"
                "sys.stdout.buffer.write(back)\n")
        inside = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, preexec_fn=loopback.enter,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        back, said = await asyncio.wait_for(inside.communicate(block), 120)
        await loopback.close()
        machine.close()
        return back, said.decode()

    back, said = asyncio.run(play())
    assert back == block[::-1], (len(back), said)


def test_one_server_holds_at_most_its_share_of_connections_and_stopping_ends_them():
    cap = server_network.CONNECTIONS
    code = f"""
import socket, sys
held, refused = [], 0
for _ in range({cap} + 8):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    try:
        s.sendall(b"hello")
        answer = s.recv(100)
    except ConnectionResetError:
        answer = b""
    if answer == b"machine:hello":
        held.append(s)
    else:
        refused += 1
print(len(held), refused, flush=True)
sys.stdin.readline()
print(sum(s.recv(100) == b"" for s in held), flush=True)   # ended by the hub
"""

    said = []
    log = logging.getLogger("test_server_network")
    log.addHandler(type("Keep", (logging.Handler,), {"emit": lambda self, r: said.append(
        r.getMessage())})())

    async def play():
        machine = await echo_server()
        loopback = server_network.Loopback.make([port_of(machine)], log, "ada")
        await loopback.serve()
        inside = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, str(port_of(machine)), preexec_fn=loopback.enter,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        counted = (await asyncio.wait_for(inside.stdout.readline(), 120)).split()
        await loopback.close()           # her server stops
        inside.stdin.write(b"go\n")
        ended = (await asyncio.wait_for(inside.stdout.readline(), 120)).strip()
        await inside.wait()
        machine.close()
        return [int(n) for n in counted], int(ended)

    (held, refused), ended = asyncio.run(play())
    assert (held, refused) == (cap, 8)
    assert ended == cap
    # the refusals are said once a minute at most, naming whose server
    assert len(said) == 1 and re.fullmatch(
        rf"Refused 1 connection\(s\) of ada's server to port \d+ \(and others\) of the "
        rf"hub: {cap} already open", said[0]), said


def test_a_port_the_hub_cannot_listen_on_refuses_the_namespace_by_name():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    # the same port twice: the second bind in the new namespace fails
    with pytest.raises(OSError) as refused:
        server_network.Loopback.make([port, port])
    assert f"listening on 127.0.0.1:{port} in the server's namespace: Address already " \
           "in use" in str(refused.value)


def test_her_joined_connections_come_from_her_own_address_and_no_one_elses():
    """The hub and the proxy tell a student's connections from everyone else's by the
    address the joins connect from (``clients.joined_from``), whatever she writes."""
    clients = _load("clients")
    ada, bob = clients.joined_from(1001), clients.joined_from(1002)
    assert len({ada, bob, "127.0.0.1"}) == 3

    async def play():
        seen = []

        async def who(reader, writer):
            seen.append(writer.get_extra_info("peername")[0])
            writer.write(b"ok")
            await writer.drain()
            writer.close()
        machine = await asyncio.start_server(who, "127.0.0.1", 0)
        for source in (ada, bob):
            loopback = server_network.Loopback.make([port_of(machine)], source=source)
            await loopback.serve()
            code = ("import socket, sys\n"
                    f"s = socket.create_connection(('127.0.0.1', {port_of(machine)}))\n"
                    "print(s.recv(10).decode(), flush=True)\n")
            inside = await asyncio.create_subprocess_exec(
                sys.executable, "-c", code, preexec_fn=loopback.enter,
                stdout=subprocess.PIPE)
            assert (await asyncio.wait_for(inside.stdout.read(), 120)).strip() == b"ok"
            await inside.wait()
            await loopback.close()
        machine.close()
        return seen

    assert asyncio.run(play()) == [ada, bob]


def _held(ss_args, namespace_of=None):
    """Bytes the kernel holds for the sockets ``ss -tmn`` lists with ``ss_args`` (in
    the network namespace of process ``namespace_of``): the receive and send memory
    of each (skmem r and t)."""
    enter = ["nsenter", f"--net=/proc/{namespace_of}/ns/net"] if namespace_of else []
    out = subprocess.run([*enter, "ss", "-tmn", *ss_args], capture_output=True, text=True,
                         check=True).stdout
    return sum(int(r) + int(t) for r, t in re.findall(r"skmem:\(r(\d+),rb\d+,t(\d+)", out))


def test_a_large_answer_she_never_reads_holds_little_in_the_hubs_sockets():
    """Her server asks the machine for 64 MB and reads nothing: what waits is held in
    the sender's buffers, not in the hub's two sockets of the join, outside her
    memory cap (about 9 MB a connection on a real hub when their buffers grew as
    they liked: 590 MB for her 64 connections)."""
    source = "127.128.0.77"
    answer = b"z" * (64 << 20)

    async def play():
        async def send(reader, writer):
            writer.write(answer)
            try:
                await writer.drain()
            except OSError:
                pass
            writer.close()
        machine = await asyncio.start_server(send, "127.0.0.1", 0)
        port = port_of(machine)
        loopback = server_network.Loopback.make([port], source=source)
        await loopback.serve()
        code = ("import socket, sys, time\n"
                f"s = socket.create_connection(('127.0.0.1', {port}))\n"
                "print('connected', flush=True)\n"
                "sys.stdin.readline()\n")
        inside = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, preexec_fn=loopback.enter,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            await asyncio.wait_for(inside.stdout.readline(), 120)
            # until what is sent stops moving: the buffers on the way are full
            seen = []
            for _ in range(40):
                await asyncio.sleep(0.25)
                outside = await asyncio.to_thread(_held, ["src", source])
                within = await asyncio.to_thread(
                    _held, ["sport", "=", f":{port}"], inside.pid)
                seen.append(outside + within)
            return max(seen)
        finally:
            inside.stdin.write(b"go\n")
            await inside.wait()
            await loopback.close()
            machine.close()

    held = asyncio.run(play())
    # what waits: the machine's side's receive buffer and her side's send buffer, each
    # at most twice BUFFER (measured: 0.52 MB; 1.86 MB with the kernel's own sizes
    # here, and about 9 MB a connection behind the proxy on a real hub)
    assert 0 < held <= 4 * server_network.BUFFER + (1 << 18), held
