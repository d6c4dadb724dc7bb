"""A student's server cannot flood the hub's pages and API (deploy/request_rates.py).

Her server reaches the hub's API port around every front, as it must. Before the
hub had a rate of its own, requests pipelined from it as fast as the hub answered
slowed a classmate's login from 0.25 s to as much as 2.6 s and wrote 326 KB of
the hub's log a second. Played on the shared folder hub (tests/hubs.py): ada's
server (her kernel, through the hub's join of her network namespace) pipelines
requests for API pages that do not exist on ten connections for 10 s. The hub
answers her at most its burst and its rate (500 at once, 50 a second), so its
log grows by at most that many lines of hers; her server's own token check goes
on at once meanwhile, counted apart; bob logs in through the public port as
usual, and through the proxy a flood of hers from her own address, to the hub or
to the book, is held the same way. Her made-up tokens sent to bob's server are logged as checks by his
server of tokens it was sent, not as his doing.
"""

from __future__ import annotations

import importlib.util
import json
import pwd
import threading
import time

import pytest
import requests

from attacks import PIPELINED
from hubs import DEPLOY, students_of
from kernels import Kernel
from logins import log_in

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: The hub's rate (deploy/jupyterhub_config.py's, request_rates.settings' defaults).
RATE, BURST = 50, 500
SECONDS = 10
#: What a machine as busy as CI's may add to the rate's count.
SLACK = 100


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "rates")


def joined(hub, who):
    spec = importlib.util.spec_from_file_location("clients", DEPLOY / "clients.py")
    clients = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clients)
    return clients.joined_from(pwd.getpwnam(hub["names"][who]).pw_uid)


def test_her_servers_flood_of_the_hubs_api_is_held_to_the_rate(hub):
    hers = joined(hub, "ada")
    ada = Kernel(hub, "ada")
    try:
        log = hub["state"] / "hub.log"
        before = log.stat().st_size
        paths = [f"/hub/api/rates-test-{i}" for i in range(600)]
        code = (PIPELINED + "\nimport json, os, threading, time, urllib.request\n"
                "check = {}\n"
                "def token_check():\n"
                "    time.sleep(4)   # her flood's burst is spent, its line long\n"
                "    started = time.monotonic()\n"
                "    asked = urllib.request.Request('http://127.0.0.1:%d/hub/api/user', "
                "headers={'Authorization': 'token ' + os.environ['JUPYTERHUB_API_TOKEN']})\n"
                "    with urllib.request.urlopen(asked, timeout=30) as answer:\n"
                "        check.update(status=answer.status, name=json.load(answer)['name'],\n"
                "                     seconds=time.monotonic() - started)\n"
                "checker = threading.Thread(target=token_check)\n"
                "checker.start()\n"
                "counts = pipelined(%d, %r, 10, %d)\n"
                "checker.join()\n"
                "print(json.dumps({'counts': counts, 'check': check}))\n"
                % (hub["settings"]["hub_port"], hub["settings"]["hub_port"], paths, SECONDS))
        result = {}
        # bob logs in through the public port while she floods
        flooder = threading.Thread(target=lambda: result.update(json.loads(ada.value(code))))
        flooder.start()
        time.sleep(SECONDS / 2)
        status, seconds, _ = log_in(hub["settings"]["port"], "127.0.0.3", hub["names"]["bob"],
                                    hub["passwords"][hub["names"]["bob"]])
        flooder.join()
        counts = {int(k): v for k, v in result["counts"].items()}
        answered = counts.get(404, 0)
        print(f"her server's 6000 pipelined requests in {SECONDS} s: {counts}; bob's "
              f"login {seconds:.2f} s; her token check {result['check']}")
        assert status == 302, status
        # at most the burst and the rate's (with the hub's rate removed: every one
        # of the 6000 answered within the 10 s)
        assert 0 < answered <= BURST + RATE * SECONDS + SLACK, counts
        assert set(counts) <= {404, 429}, counts
        # her server checks tokens at once meanwhile
        check = result["check"]
        assert check["status"] == 200 and check["name"] == hub["names"]["ada"], check
        assert check["seconds"] < 5, check
        # the hub's log: a line for each request it answered (those in her pipelines
        # when she stopped reading too, until it saw her connections close), naming
        # her server
        time.sleep(2)
        grown = log.read_bytes()[before:].decode(errors="replace")
        hers_lines = [line for line in grown.splitlines() if "/hub/api/rates-test-" in line]
        assert len(hers_lines) <= BURST + RATE * (SECONDS + 2) + SLACK, len(hers_lines)
        assert all(f"@{hers})" in line or f"from client {hers}" in line
                   for line in hers_lines), hers_lines[:3]
        refusals = [line for line in grown.splitlines() if "429 hub " in line]
        assert len(refusals) <= 1, refusals
    finally:
        ada.stop_server()


@pytest.mark.parametrize("prefix, source", [("/hub/api/rates-proxy-", "127.0.0.12"),
                                            ("/services/book/rates-proxy-", "127.0.0.14")])
def test_her_flood_through_the_proxy_is_held_and_bob_is_answered(hub, prefix, source):
    """The same through the proxy's public port, from her own address, to the hub and
    to the book service."""
    port = hub["settings"]["port"]
    code = {}
    exec(PIPELINED, code)
    # the proxy passes on one request of a connection at a time, and closes one with
    # more than 32 waiting (proxy_pipelining.js): 40 connections of 30
    paths = [f"{prefix}{i}" for i in range(30)]
    result = {}
    flooder = threading.Thread(target=lambda: result.update(
        code["pipelined"](port, paths, 40, SECONDS, source)))
    flooder.start()
    time.sleep(SECONDS / 2)
    status, seconds, _ = log_in(port, "127.0.0.13", hub["names"]["bob"],
                                hub["passwords"][hub["names"]["bob"]])
    flooder.join()
    print(f"her 1200 pipelined requests to {prefix} through the proxy in {SECONDS} s: "
          f"{result}; bob's login {seconds:.2f} s")
    assert status == 302
    assert 0 < result.get(404, 0) <= BURST + RATE * SECONDS + SLACK, result


def test_a_token_sent_to_bobs_server_is_not_logged_as_his_doing(hub):
    """Her requests to bob's server with made-up tokens make his server ask the hub
    about each: the hub's line of each check names his server's address, and says
    the token is one it was sent, by anyone."""
    bobs = joined(hub, "bob")
    bob = Kernel(hub, "bob")
    try:
        log = hub["state"] / "hub.log"
        before = log.stat().st_size
        for i in range(3):
            answer = requests.get(f"{hub['url']}/user/{hub['names']['bob']}/api/contents",
                                  headers={"Authorization": f"token made-up-{i}"}, timeout=60)
            assert answer.status_code in (401, 403), answer.status_code
        time.sleep(1)
        checks = [line for line in log.read_bytes()[before:].decode(errors="replace")
                  .splitlines() if "GET /hub/api/user " in line and f"@{bobs})" in line]
        assert len(checks) >= 3, checks
        assert all(line.endswith(": a token it was sent (by anyone) is not valid")
                   for line in checks), checks
    finally:
        bob.stop_server()
