"""Unix accounts for the tests that play students on the folder exchange.

``temporary_accounts`` makes one account per role, named with a random tag so
that runs never clash, and removes them afterwards, also when a test fails;
``give_to`` leaves a folder as the student's own ``nbgrader submit`` would.
"""

import contextlib
import os
import pwd
import secrets
import subprocess

import pytest


@contextlib.contextmanager
def temporary_accounts(prefix, roles):
    """``{role: account name}`` for accounts that exist inside the ``with`` block."""
    if os.geteuid() != 0:
        pytest.skip("creates Unix accounts: run as root")
    tag = secrets.token_hex(2)
    names = {role: f"{prefix}{tag}{role}" for role in roles}
    made = []
    try:
        for name in names.values():
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin",
                            name], check=True, capture_output=True)
            made.append(name)
        yield names
    finally:
        for name in made:
            subprocess.run(["userdel", name], capture_output=True)


def give_to(path, user):
    """Make ``user`` own ``path`` and everything in it, as their own submit leaves it."""
    info = pwd.getpwnam(user)
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(top, name), info.pw_uid, info.pw_gid, follow_symlinks=False)
    os.chown(path, info.pw_uid, info.pw_gid)
