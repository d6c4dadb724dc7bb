"""Who sent a request (deploy/clients.py), on a real Tornado server as the hub runs
it (``xheaders=True``): the proxy's last ``X-Forwarded-For`` entry on the proxy's
connections, the connection's own address on any other, whatever it writes; behind
a trusted front proxy, the entry the front appended, one hop and no more."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tornado import httpserver, web

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
_spec = importlib.util.spec_from_file_location("clients", DEPLOY / "clients.py")
clients = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clients)


class Who(web.RequestHandler):
    def get(self):
        connection, headers = self.request.connection, self.request.headers
        self.write(json.dumps([clients.client(connection, headers),
                               clients.key(connection, headers),
                               clients.describe(connection, headers)]))


def ask(port, source, forwarded=None):
    """GET / from ``source`` (an address of the machine's loopback), with
    ``X-Forwarded-For: forwarded`` when given: what the server made of it."""
    with socket.socket() as s:
        s.settimeout(30)
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        extra = f"X-Forwarded-For: {forwarded}\r\n" if forwarded is not None else ""
        s.sendall(f"GET / HTTP/1.1\r\nHost: x\r\n{extra}Connection: close\r\n\r\n".encode())
        answer = b""
        while part := s.recv(65536):
            answer += part
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])


def play(*asks):
    async def run():
        server = httpserver.HTTPServer(web.Application([("/", Who)]), xheaders=True)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.setblocking(False)
        server.add_sockets([listener])
        port = listener.getsockname()[1]
        try:
            return [await asyncio.to_thread(ask, port, *args) for args in asks]
        finally:
            server.stop()
    return asyncio.run(run())


def test_the_proxys_connection_names_its_client_by_the_last_entry_it_appended():
    ada = clients.joined_from(1001)
    (through_proxy, written_before, own) = play(
        ("127.0.0.1", "203.0.113.7"),
        ("127.0.0.1", "10.9.9.9, 203.0.113.7"),     # her words, then the proxy's
        ("127.0.0.1", None))                          # the hub's own, no proxy
    assert through_proxy[:2] == ["203.0.113.7", "203.0.113.7"]
    assert written_before[:2] == ["203.0.113.7", "203.0.113.7"]
    assert written_before[2] == "'203.0.113.7' (X-Forwarded-For) over 127.0.0.1"
    assert own[:2] == ["127.0.0.1", "127.0.0.1"]
    assert ada != "127.0.0.1"


def test_a_joined_connection_is_its_own_address_whatever_it_writes():
    ada = clients.joined_from(1001)
    forged, plain = play((ada, "203.0.113.7"), (ada, None))
    assert forged[:2] == [ada, ada]
    assert plain[:2] == [ada, ada]
    # the log still quotes what she wrote, over her own address
    assert forged[2] == f"'203.0.113.7' (X-Forwarded-For) over {ada}"


def test_an_ipv6_client_counts_by_its_64_block():
    first, second, mapped = play(("127.0.0.1", "2001:db8:1:2::5"),
                                 ("127.0.0.1", "2001:db8:1:2:ffff::9"),
                                 ("127.0.0.1", "::ffff:198.51.100.4"))
    assert first[0] == "2001:db8:1:2::5"
    assert first[1] == second[1] == "2001:db8:1:2::/64"
    assert mapped[1] == "198.51.100.4"


def test_every_user_has_an_address_of_her_own_outside_the_proxys():
    addresses = {clients.joined_from(uid) for uid in range(1000, 61000)}
    assert len(addresses) == 60000
    assert not addresses & clients.PROXY
    assert all(address.startswith("127.") for address in addresses)
    for wrong in (-1, "1001", 1.0, True):
        with pytest.raises(ValueError, match="uid must be a Unix user id"):
            clients.joined_from(wrong)


FRONT = "127.0.0.30"


@pytest.fixture
def front(monkeypatch):
    """The server trusts a front proxy at FRONT (and one at 2001:db8::f), as the hub
    tells its processes (hub.py init --front-proxy)."""
    monkeypatch.setenv(clients.FRONT_VARIABLE, ",".join(
        clients.front_proxies([FRONT, "2001:db8::f"])))


def test_behind_a_trusted_front_the_client_is_the_entry_the_front_appended(front):
    (plain, forged, ipv6, mapped, own) = play(
        ("127.0.0.1", f"203.0.113.7, {FRONT}"),
        # her own words first, then nginx's entry (her address), then the proxy's
        ("127.0.0.1", f"10.9.9.9, 198.51.100.1, 203.0.113.7, {FRONT}"),
        ("127.0.0.1", f"2001:db8:1:2::5, {FRONT}"),
        ("127.0.0.1", "::ffff:203.0.113.8, ::ffff:127.0.0.30"),
        ("127.0.0.1", "203.0.113.9, 2001:db8:0::f"))
    assert plain[:2] == ["203.0.113.7", "203.0.113.7"]
    assert plain[2] == (f"'203.0.113.7' (X-Forwarded-For, by the front proxy {FRONT}) "
                        "over 127.0.0.1")
    assert forged[:2] == ["203.0.113.7", "203.0.113.7"]     # one hop only
    assert ipv6[:2] == ["2001:db8:1:2::5", "2001:db8:1:2::/64"]
    assert mapped[:2] == ["203.0.113.8", "203.0.113.8"]
    assert own[:2] == ["203.0.113.9", "203.0.113.9"]


def test_a_front_with_no_address_before_it_is_one_client_itself(front):
    alone, junk, empty = play(("127.0.0.1", FRONT),
                              ("127.0.0.1", f"unknown, {FRONT}"),
                              ("127.0.0.1", f" , {FRONT}"))
    for answer in (alone, junk, empty):
        assert answer[:2] == [FRONT, FRONT], answer
        assert answer[2] == f"'{FRONT}' (X-Forwarded-For) over 127.0.0.1"


def test_an_untrusted_last_entry_is_the_client_whatever_comes_before(front):
    other, = play(("127.0.0.1", f"203.0.113.7, {FRONT}, 127.0.0.31"))
    assert other[:2] == ["127.0.0.31", "127.0.0.31"]
    assert other[2] == "'127.0.0.31' (X-Forwarded-For) over 127.0.0.1"


def test_only_the_proxys_connections_are_read_behind_a_front_too(front):
    """The front's own connection straight to a server, and a student's joined one
    writing the front's address last: each is its own address."""
    ada = clients.joined_from(1001)
    direct, joined = play((FRONT, f"203.0.113.7, {FRONT}"), (ada, f"203.0.113.7, {FRONT}"))
    assert direct[:2] == [FRONT, FRONT]
    assert joined[:2] == [ada, ada]


def test_without_a_front_the_proxys_entry_is_the_client(monkeypatch):
    monkeypatch.delenv(clients.FRONT_VARIABLE, raising=False)
    answer, = play(("127.0.0.1", f"203.0.113.7, {FRONT}"))
    assert answer[:2] == [FRONT, FRONT]
    assert clients.front_variables([]) == {} == clients.front_variables(None)


def test_a_front_proxy_address_is_checked():
    assert clients.front_proxies(["127.0.0.2", "::ffff:127.0.0.3", "2001:DB8::1", "127.0.0.2"]) \
        == ["127.0.0.2", "127.0.0.3", "2001:db8::1"]
    for wrong, why in (("nginx", "is not an IP address"), ("10.0.0.0/8", "not an IP address"),
                       ("127.0.0.1", "proxy_bind"), ("::1", "proxy_bind"),
                       ("0.0.0.0", "not the address of a host"),
                       (clients.joined_from(1001), "users' servers")):
        with pytest.raises(ValueError, match=why):
            clients.front_proxies([wrong])


def test_hub_py_init_names_the_argument_of_a_wrong_front_proxy(tmp_path):
    """hub.py init refuses a --front-proxy that is no address, or the proxy's own,
    before anything is made, naming the argument."""
    for wrong, why in (("nginx", "'nginx' is not an IP address"),
                       ("127.0.0.1", "proxy_bind 127.0.0.2")):
        done = subprocess.run(
            [sys.executable, str(DEPLOY / "hub.py"), "init", str(tmp_path / "state"),
             "--instructor", "t", "--students", "s", "--front-proxy", "127.0.0.2",
             "--front-proxy", wrong], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done
        assert "argument --front-proxy: " in done.stderr and why in done.stderr, done.stderr
        assert not (tmp_path / "state").exists()


def test_every_users_server_is_told_the_trusted_front_proxies(monkeypatch):
    """The spawner's variables of a server (roles.py) carry the hub's trusted fronts,
    for the server's own limits per client; none without one."""
    monkeypatch.syspath_prepend(str(DEPLOY))
    import roles

    settings = {"instructors": ["t"], "students": ["s"], "course_id": "c",
                "exchange": "folder", "exchange_root": "/x", "prefix": "/p", "port": 80,
                "book_port": 81, "course_dirs": {"t": "/nonexistent"},
                "front_proxies": [FRONT]}
    for name in ("s", "t"):
        assert roles.user_environment(settings, name)[clients.FRONT_VARIABLE] == FRONT
    del settings["front_proxies"]
    assert clients.FRONT_VARIABLE not in roles.user_environment(settings, "s")
