"""The fail2ban filter the deploy README gives (deploy/fail2ban-course.conf) bans the
client the hub's own login lines name, and no address a student writes into her
user name: played with Debian's fail2ban-regex on lines written as the hub writes
them (deploy/login_limits.py's messages, JupyterHub's log format)."""

import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import in_ci

FILTER = Path(__file__).resolve().parents[2] / "deploy" / "fail2ban-course.conf"

pytestmark = pytest.mark.skipif(shutil.which("fail2ban-regex") is None and not in_ci(),
                                reason="Debian's fail2ban is not installed")

#: (the name she typed, the client the hub saw): each line must ban that client alone
TRIED = [
    ("ada", "203.0.113.7"),
    ("zz' from client 10.66.66.66 '", "203.0.113.8"),
    ("x from client 10.66.66.67", "203.0.113.9"),
    ("bob\nFailed login for 'bob' from client 10.66.66.68", "203.0.113.10"),
    ("cy", "2001:db8::1"),
]


def hub_line(message, *args):
    """A warning of login_limits.py as JupyterHub writes it to its log (its format)."""
    formatter = logging.Formatter(
        "[%(levelname)1.1s %(asctime)s.%(msecs).03d %(name)s %(module)s:%(lineno)d] "
        "%(message)s", datefmt="%Y-%m-%d %H:%M:%S")
    return formatter.format(logging.makeLogRecord({
        "name": "JupyterHub", "levelname": "WARNING", "levelno": logging.WARNING,
        "module": "login_limits", "lineno": 98, "msg": message, "args": args}))


def test_the_filter_bans_the_client_the_hub_named_and_never_one_in_a_name(tmp_path):
    lines = [hub_line("Failed login for %r from client %s", name, client)
             for name, client in TRIED]
    assert not any("\n" in line for line in lines), lines     # a name spans no line
    path = tmp_path / "hub.log"
    path.write_text("\n".join(lines) + "\n")
    done = subprocess.run(["fail2ban-regex", "--out", "ip", str(path), str(FILTER)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    banned = done.stdout.split()
    assert banned == [client for _, client in TRIED], done.stdout
