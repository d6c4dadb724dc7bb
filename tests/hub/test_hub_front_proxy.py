"""The hub behind a front proxy that serves it over HTTPS: a real nginx with the
course's example config (deploy/nginx-course.conf, tests/fronts.py), in front of
the shared hub's public port.

Every request then reaches the hub's proxy from nginx's address. The shared hub
trusts a front at hubs.FRONT (``hub.py init --front-proxy``): through an nginx
bound to it, the hub's limits per client count the address nginx names in
X-Forwarded-For, each student her own; through an nginx bound to another address
(as a hub without ``--front-proxy`` sees every front), the whole class is one
client, and one student's wrong passwords in a loop keep a classmate out. Each
client is an address of the machine's loopback of its own (127.0.0.21, ...), as
students on different networks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fronts import running_front
from hubs import FRONT, students_of
from logins import during_a_flood, log_in

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

#: An address the hub does not trust: an nginx bound to it is a front the hub was
#: not told of.
UNTRUSTED = "127.0.0.31"
#: Debian's pam_faildelay (s), the least of it (Linux-PAM draws within 25%), and one
#: client's line of logins (deploy/login_limits.py: one checked, 8 waiting).
FAILDELAY = 3.0
LEAST_DELAY = 0.75 * FAILDELAY
LOGGED = "Too many logins at once from client "


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "front_proxy")


@pytest.fixture(scope="module")
def fronts(hub, tmp_path_factory):
    """nginx in front of the hub: ``trusted`` (from FRONT), ``untrusted`` (from
    UNTRUSTED) and ``no_scheme`` (from FRONT, without its X-Scheme line): each
    (its HTTPS port, a TLS context that trusts it)."""
    folder = tmp_path_factory.mktemp("fronts")
    port = hub["settings"]["port"]
    with running_front(folder / "trusted", port, FRONT) as trusted, \
            running_front(folder / "untrusted", port, UNTRUSTED) as untrusted, \
            running_front(folder / "no-scheme", port, FRONT, drop=("X-Scheme",)) as no_scheme:
        yield {"trusted": trusted[:2], "untrusted": untrusted[:2], "no_scheme": no_scheme[:2]}


def log_lines(hub, *words):
    return [line for line in (hub["state"] / "hub.log").read_text().splitlines()
            if all(word in line for word in words)]


def login(hub, front, source, who, cookies=None):
    """``who``'s login from ``source`` through ``front`` (port, TLS context):
    (status, seconds)."""
    port, tls = front
    name = hub["names"][who]
    status, seconds, _ = log_in(port, source, name, hub["passwords"][name], tls=tls,
                                cookies=cookies)
    return status, seconds


def bob_during_adas_flood(hub, front, ada_from, bob_from, seconds=20, forge=False):
    """ada floods wrong passwords (for her own name) from ``ada_from`` through
    ``front`` on 20 connections for ``seconds``; once her 20 are in the hub's hands,
    bob logs in from ``bob_from`` through the same front. Her flood's result
    (logins.flood) with bob's (status, seconds) and the time bob waited (start,
    end)."""
    port, tls = front
    result = during_a_flood(port, ada_from, hub["names"]["ada"], seconds,
                            lambda: login(hub, front, bob_from, "bob"), forge=forge, tls=tls)
    result["bob"] = result["then"]
    answers = result["answers"]
    result["checked"] = [when for when, status in answers
                         if status == 403 and when <= result["end"]]
    result["refused"] = [when for when, status in answers if status == 429]
    assert {status for _, status in answers} <= {403, 429}, answers
    return result


def test_through_the_front_a_flood_of_wrong_logins_leaves_bob_in_at_once(hub, fronts):
    """Through the trusted front, ada's wrong passwords from 127.0.0.21 wait in her
    own line; bob, from 127.0.0.22, is in as fast as alone. (Through a front the hub
    does not trust, the same flood keeps him out: the next test.)"""
    front = fronts["trusted"]
    status, alone = login(hub, front, "127.0.0.22", "bob")
    assert status == 302, status
    seconds = 20
    result = bob_during_adas_flood(hub, front, "127.0.0.21", "127.0.0.22", seconds)
    status, during = result["bob"]
    print(f"through the trusted front: bob alone {alone:.2f} s, during her flood "
          f"{during:.2f} s ({status}); in {seconds} s {len(result['checked'])} of hers "
          f"checked, {len(result['refused'])} refused")
    assert status == 302, f"bob's login through the front answered {status}"
    assert during <= FAILDELAY + 3 * alone, (alone, during)
    # hers, one at a time, her line full: she is one client of her own
    assert len(result["checked"]) <= seconds / LEAST_DELAY + 1, result["checked"]
    assert result["refused"], "none of her 20 logins at once was refused"
    named = log_lines(hub, LOGGED, f"'127.0.0.21' (X-Forwarded-For, by the front proxy "
                                   f"{FRONT}) over 127.0.0.1")
    assert len(named) == 1, log_lines(hub, LOGGED)
    # every wrong password is logged with her address, not the front's
    failed = log_lines(hub, f"Failed login for {hub['names']['ada']!r} from client ")
    assert [line for line in failed if line.endswith(" from client 127.0.0.21")], failed
    assert not [line for line in failed if line.endswith(f" from client {FRONT}")], failed


def test_through_a_front_the_hub_does_not_trust_the_class_is_one_client(hub, fronts):
    """The control: the same flood through an nginx the hub was not told of (as
    every front is to a hub without --front-proxy): ada and bob are one client,
    the front, and bob is refused (429) or waits behind her wrong passwords."""
    front = fronts["untrusted"]
    result = bob_during_adas_flood(hub, front, "127.0.0.24", "127.0.0.22")
    status, during = result["bob"]
    print(f"through the untrusted front: bob's login during her flood answered {status} "
          f"after {during:.2f} s")
    assert status == 429 or during >= LEAST_DELAY, (status, during)
    assert log_lines(hub, LOGGED, f"'{UNTRUSTED}' (X-Forwarded-For) over 127.0.0.1")
    failed = log_lines(hub, f"Failed login for {hub['names']['ada']!r} from client ")
    assert [line for line in failed if line.endswith(f" from client {UNTRUSTED}")], failed
    assert not [line for line in failed if line.endswith(" from client 127.0.0.24")], failed


def test_her_own_x_forwarded_for_to_the_front_is_ignored(hub, fronts):
    """ada writes an X-Forwarded-For of her own on each of 20 connections to nginx
    (198.51.100.1 to .20): nginx appends her true address, the hub takes that one
    and ignores hers, so the 20 are one client, one check at a time, her line full,
    and every wrong password is logged with her address."""
    seconds = 12
    result = bob_during_adas_flood(hub, fronts["trusted"], "127.0.0.23", "127.0.0.22",
                                   seconds, forge=True)
    status, during = result["bob"]
    print(f"her forged flood through the front: {len(result['checked'])} checked in "
          f"{seconds} s, {len(result['refused'])} refused; bob {during:.2f} s ({status})")
    assert status == 302, status
    assert len(result["checked"]) <= seconds / LEAST_DELAY + 1, result["checked"]
    assert result["refused"], "none of her 20 logins at once was refused"
    assert log_lines(hub, LOGGED, f"'127.0.0.23' (X-Forwarded-For, by the front proxy "
                                  f"{FRONT}) over 127.0.0.1")
    assert not log_lines(hub, LOGGED, "198.51.100."), log_lines(hub, LOGGED, "198.51.100.")
    failed = log_lines(hub, f"Failed login for {hub['names']['ada']!r} from client ")
    assert [line for line in failed if line.endswith(" from client 127.0.0.23")], failed
    assert not [line for line in failed if " from client 198.51.100." in line], failed


def test_the_hub_sees_https_through_the_front(hub, fronts):
    """bob's login through nginx sets the hub's login cookie Secure (JupyterHub does
    when the request's scheme is https), as nginx's X-Scheme says; straight to the
    public port in plain HTTP it is not, and neither through an nginx without the
    X-Scheme line (the proxy appends ",http" to X-Forwarded-Proto, and Tornado
    takes the last entry)."""
    def login_cookie(front):
        cookies = []
        if front is None:
            status, _, _ = log_in(hub["settings"]["port"], "127.0.0.22", hub["names"]["bob"],
                                  hub["passwords"][hub["names"]["bob"]], cookies=cookies)
        else:
            status, _ = login(hub, front, "127.0.0.22", "bob", cookies=cookies)
        assert status == 302, status
        found = [c for c in cookies if c.split("=")[0].endswith("jupyterhub-hub-login")]
        assert found, cookies
        return found[0]

    def secure(cookie):
        return "secure" in [part.strip().lower() for part in cookie.split(";")]

    assert secure(login_cookie(fronts["trusted"]))
    assert not secure(login_cookie(None))
    assert not secure(login_cookie(fronts["no_scheme"]))


def test_every_process_that_names_clients_is_told_the_front(hub):
    """The hub's proxy and its services run with the trusted front in their
    environment (clients.py, proxy_clients.js read it), and the proxy says its caps
    per address leave the front alone."""
    marker = f"KERNEL_COURSE_SETTINGS={hub['state'] / 'settings.json'}".encode()
    told, untold = [], []
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in environ:
            (told if f"KERNEL_COURSE_FRONT_PROXIES={FRONT}".encode() in environ
             else untold).append(command)
    # (the hub's own is set by jupyterhub_config.py as it starts, which
    # /proc/PID/environ does not show; its log lines above name the clients so told)
    for service in ("configurable-http-proxy", "book_service.py"):
        assert any(service in c for c in told), (told, untold)
        assert not any(service in c for c in untold), (told, untold)
    assert log_lines(hub, "proxy limits: at most 1000 connections open at once per address",
                     f"not capped: the trusted front proxies' ({FRONT})")
