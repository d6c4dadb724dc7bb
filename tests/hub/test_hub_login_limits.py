"""Wrong passwords from one client do not queue ahead of everyone's logins.

JupyterHub checks passwords with PAM on a pool of threads, and Debian's ``login``
service holds a thread 3 s after a wrong one (``pam_faildelay``). With the pool
as JupyterHub ships it (4 threads, first come first served), 20 wrong logins at
once from one client kept every thread asleep, and bob's login waited 30 s
behind them (alone: 0.06 s), while 34 of her wrong passwords were checked. The course's authenticator (deploy/login_limits.py) checks one password of
a client at a time, lets 8 more of it wait, and refuses the rest at once (429).

Played on the shared folder hub (tests/hubs.py) through the proxy's public port,
each client from an address of the machine's loopback of its own, as students
behind different addresses; and from eve's own server, through the hub's join of
her network namespace, on the hub's API port with a forged ``X-Forwarded-For``
on each connection. Counted, not timed where it can be helped: how many of her
wrong passwords were checked while bob waited, and in all, which on a busy
machine can only fall.
"""

from __future__ import annotations

import importlib.util
import json
import pwd
import threading
import time
from pathlib import Path

import pytest

import logins
from hubs import DEPLOY, students_of
from kernels import Kernel
from logins import during_a_flood, log_in

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

#: How long Debian's pam_faildelay holds a wrong password (s), and the least of it:
#: Linux-PAM draws each delay within 25% of it. The line of one client
#: (deploy/login_limits.py: one checked, 8 waiting).
FAILDELAY = 3.0
LEAST_DELAY = 0.75 * FAILDELAY
LINE = 1 + 8
#: The refusal's words (deploy/login_limits.py's REFUSAL).
REFUSED = "Too many logins from this address at once"
#: The hub's log line about a client's refused logins.
LOGGED = "Too many logins at once from client "


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "login_limits")


def log_lines(hub, needle):
    return [line for line in (hub["state"] / "hub.log").read_text().splitlines()
            if LOGGED in line and needle in line]


def bobs_login(hub, source="127.0.0.3"):
    status, seconds, _ = log_in(hub["settings"]["port"], source, hub["names"]["bob"],
                                hub["passwords"][hub["names"]["bob"]])
    assert status == 302, f"bob's login answered {status}"
    return seconds


def test_wrong_logins_from_one_client_wait_behind_each_other_not_ahead_of_bob(hub):
    port, ada = hub["settings"]["port"], hub["names"]["ada"]
    alone = bobs_login(hub)
    seconds = 20
    # bob comes once her 20 wrong logins are in the hub's hands
    result = during_a_flood(port, "127.0.0.2", ada, seconds, lambda: bobs_login(hub))
    during, (start, done) = result["then"], result["waited"]
    answers = result["answers"]
    checked = [when for when, status in answers if status == 403]
    refused = [when for when, status in answers if status == 429]
    checked_while_bob_waited = [when for when in checked if start <= when <= done]
    print(f"bob alone {alone:.2f} s, during her flood {during:.2f} s; her wrong "
          f"passwords checked while he waited: {len(checked_while_bob_waited)}; in "
          f"{seconds} s: {sum(when <= result['end'] for when in checked)} checked, "
          f"{len(refused)} refused")
    # Bob did not wait behind her: as JupyterHub ships, 34 of hers were checked
    # while he waited 30.4 s (alone: 0.06 s); here none, and 0.06 s. Her checks
    # go one at a time: at most one ends per least delay of his wait.
    assert len(checked_while_bob_waited) <= 1 + during / LEAST_DELAY, checked_while_bob_waited
    assert during <= FAILDELAY + 3 * alone, (alone, during)
    # one client, one check at a time: in 20 s at most 20 / 2.25 + 1 of hers
    # were checked (as shipped: 20; here 6), those beyond her line refused
    assert sum(when <= result["end"] for when in checked) <= seconds / LEAST_DELAY + 1
    assert refused, "none of her 20 logins at once was refused"
    assert {status for _, status in answers} <= {403, 429}
    assert REFUSED in result["refusal"]
    # the hub's log names her once (the flood lasted less than a minute)
    named = log_lines(hub, "'127.0.0.2' (X-Forwarded-For) over 127.0.0.1")
    assert len(named) == 1, named
    assert "refused 1 login(s)" in named[0]
    # the classmate whose name she used is not locked out
    status, _, _ = log_in(port, "127.0.0.3", ada, hub["passwords"][ada])
    assert status == 302


def test_a_class_behind_one_address_logs_in_at_once_none_refused(hub):
    """30 correct logins from one address, as many at once as one client's line
    holds (one checked, 8 waiting): all in, none refused, no log line."""
    port = hub["settings"]["port"]
    names = [hub["names"][who] for who in ("ada", "bob", "eve")]
    results, lock = [], threading.Lock()

    def student(i):
        for turn in range(i, 30, LINE):
            name = names[turn % len(names)]
            status, seconds, _ = log_in(port, "127.0.0.4", name, hub["passwords"][name])
            with lock:
                results.append((status, seconds))

    browsers = [threading.Thread(target=student, args=(i,)) for i in range(LINE)]
    for browser in browsers:
        browser.start()
    for browser in browsers:
        browser.join()
    print(f"30 logins from one address, {LINE} at a time: slowest "
          f"{max(s for _, s in results):.2f} s, mean {sum(s for _, s in results) / 30:.2f} s")
    assert [status for status, _ in results] == [302] * 30
    assert not log_lines(hub, "'127.0.0.4'")


def test_a_students_server_floods_the_hubs_api_port_as_one_client(hub):
    """eve's server posts wrong passwords for ada's name to the hub's API port from
    20 connections, each writing an X-Forwarded-For of its own: the hub counts them
    all as her address (the join's), one check at a time."""
    eve = Kernel(hub, "eve")
    try:
        joined = _joined_from(pwd.getpwnam(eve.name).pw_uid)
        alone = bobs_login(hub)
        seconds = 20
        result = {}
        # the same flood, run in her kernel: from her server's network namespace
        code = (Path(logins.__file__).read_text()
                + "\nimport json\nprint(json.dumps(flood(%d, None, %r, 20, %d, forge=True)))"
                % (hub["settings"]["hub_port"], hub["names"]["ada"], seconds))
        flooder = threading.Thread(target=lambda: result.update(json.loads(eve.value(code))))
        flooder.start()
        try:
            # her line is full once the hub logs its first refusal of hers (with
            # no limit there is none: bob comes 10 s into her flood)
            deadline = time.monotonic() + 10
            while (not log_lines(hub, f"over {joined}") and flooder.is_alive()
                   and time.monotonic() < deadline):
                time.sleep(0.2)
            during = bobs_login(hub)
        finally:
            flooder.join()
        answers = result["answers"]
        checked = [when for when, status in answers if status == 403 and when <= result["end"]]
        refused = [when for when, status in answers if status == 429]
        print(f"bob alone {alone:.2f} s, during her server's flood {during:.2f} s; "
              f"in {seconds} s: {len(checked)} checked, {len(refused)} refused")
        assert during <= FAILDELAY + 3 * alone, (alone, during)
        # 20 forged addresses, one client, one check at a time (as JupyterHub
        # ships: 24 checked in 20 s, and bob waited 23.8 s; here 6, and 0.06 s)
        assert len(checked) <= seconds / LEAST_DELAY + 1, len(checked)
        assert refused
        assert {status for _, status in answers} <= {403, 429}
        assert REFUSED in result["refusal"]
        named = log_lines(hub, f"over {joined}")
        assert len(named) == 1, named
        # no forged address was taken for a client of its own
        assert not [line for line in log_lines(hub, "198.51.100.")
                    if f"over {joined}" not in line], log_lines(hub, "198.51.100.")
        # each wrong password is logged with her true address, whatever she wrote
        # (JupyterHub's own line names what she wrote in X-Forwarded-For)
        failed = [line for line in (hub["state"] / "hub.log").read_text().splitlines()
                  if f"Failed login for {hub['names']['ada']!r} from client " in line]
        assert [line for line in failed if line.endswith(f"from client {joined}")], failed
        assert not [line for line in failed if "from client 198.51.100." in line], failed
    finally:
        eve.stop_server()


def _joined_from(uid):
    """deploy/clients.py's joined_from: the address her server's joins come from."""
    spec = importlib.util.spec_from_file_location("clients", DEPLOY / "clients.py")
    clients = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clients)
    return clients.joined_from(uid)
