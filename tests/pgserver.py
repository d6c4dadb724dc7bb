"""A throw-away PostgreSQL server for the tests (Debian's binaries, loopback, a free port).

PostgreSQL refuses to run as root, so when the tests run as root the server
runs as the ``postgres`` user (created by Debian's package) through
``runuser``; its folder is a fresh temporary one that user owns. The server
listens on 127.0.0.1 only, asks for a random password, and is stopped and
deleted afterwards.
"""

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

__all__ = ["postgres_bindir", "postgres_server"]


def postgres_bindir():
    """Folder of initdb/postgres: $POSTGRES_BINDIR, Debian's newest, or the PATH's."""
    if os.environ.get("POSTGRES_BINDIR"):
        return Path(os.environ["POSTGRES_BINDIR"])
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                    key=lambda p: int(Path(p).parts[-3]))
    if debian:
        return Path(debian[-1]).parent
    found = shutil.which("postgres") or shutil.which("initdb")
    return Path(found).resolve().parent if found else None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def postgres_server(database="gradebook"):
    """Start a server; yield the SQLAlchemy URL (psycopg 3) of a new empty database."""
    bindir = postgres_bindir()
    if bindir is None or not (bindir / "initdb").exists():
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is missing: scripts/test.sh installs Debian's postgresql")
        pytest.skip("PostgreSQL binaries not found (apt-get install postgresql)")
    as_user = []
    top = Path(tempfile.mkdtemp(prefix="pgtest-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chmod(top, 0o700)
        os.chown(top, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    password = secrets.token_hex(16)
    pwfile = top / "pw"
    pwfile.write_text(password + "\n")
    if as_user:
        os.chown(pwfile, user.pw_uid, user.pw_gid)
    data = top / "data"
    subprocess.run(as_user + [str(bindir / "initdb"), "-D", str(data), "-U", "grader",
                              "--pwfile", str(pwfile), "--auth", "scram-sha-256",
                              "--encoding", "UTF8", "--locale", "C"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port = _free_port()
    log = open(top / "server.log", "wb")
    proc = subprocess.Popen(
        as_user + [str(bindir / "postgres"), "-D", str(data), "-h", "127.0.0.1",
                   "-p", str(port), "-k", str(top), "-c", "fsync=off",
                   "-c", "max_connections=100"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        import psycopg
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = psycopg.connect(host="127.0.0.1", port=port, user="grader",
                                       password=password, dbname="postgres", autocommit=True)
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("PostgreSQL did not start: "
                                       + (top / "server.log").read_text()[-2000:])
                time.sleep(0.2)
        with conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        yield f"postgresql+psycopg://grader:{password}@127.0.0.1:{port}/{database}"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(top, ignore_errors=True)
