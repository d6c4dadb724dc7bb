"""A real nginx in front of a hub's public port, serving HTTPS as a course would
(deploy/nginx-course.conf, the example config itself), on free loopback ports with
a self-signed certificate made with ``openssl``, for the tests of the hub behind a
front proxy.
"""

import contextlib
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from conftest import free_port, in_ci, stop_process

CONF = Path(__file__).resolve().parents[1] / "deploy" / "nginx-course.conf"
#: nginx.conf's settings of its workers, as deploy/README.md ("Serving the course over
#: HTTPS") asks of the front's nginx.conf.
WORKERS = ("worker_processes auto;\nworker_rlimit_nofile 65536;\n"
           "events { worker_connections 16384; }")
#: The example's address for the hub's public port, and the front's own address.
HUB_PORT_IN_CONF = "127.0.0.1:8000"
BIND_IN_CONF = "proxy_bind 127.0.0.2;"


def require_nginx():
    """nginx's path; fails the test in CI, skips it elsewhere, when it is missing."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if not found:
        why = "nginx is missing (Debian package nginx-light or nginx)"
        if in_ci():
            pytest.fail(why + "; it is required in CI")
        pytest.skip(why)
    return found


def certificate(folder):
    """A self-signed certificate for 127.0.0.1 in ``folder``: (its file, its key's),
    and a client TLS context that trusts it."""
    cert, key = folder / "front.crt", folder / "front.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    context = ssl.create_default_context(cafile=str(cert))
    return cert, key, context


def site(upstream, bind, port, http_port, cert, key, drop=()):
    """deploy/nginx-course.conf for this machine: listening on ``port`` (HTTPS) and
    ``http_port`` of 127.0.0.1, forwarding to ``upstream`` from ``bind``, without the
    lines that contain any of ``drop``."""
    text = CONF.read_text()
    changes = [
        (r"\n\s*listen \[::\]:(80|443)[^;]*;", ""),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen 443 ssl", f"listen 127.0.0.1:{port} ssl"),
        (r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};"),
        (r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};"),
        (re.escape(HUB_PORT_IN_CONF), f"127.0.0.1:{upstream}"),
        (re.escape(BIND_IN_CONF), f"proxy_bind {bind};"),
        (r"access_log /var/log/nginx/\S+", f"access_log {Path(cert).parent / 'course.access.log'}"),
    ]
    for pattern, replacement in changes:
        text, n = re.subn(pattern, replacement, text)
        assert n, f"deploy/nginx-course.conf: no {pattern!r}"
    lines = [line for line in text.splitlines() if not any(word in line for word in drop)]
    return "\n".join(lines) + "\n"


def _answers(port, context):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1"):
                return True
    except OSError:
        return False


@contextlib.contextmanager
def running_front(folder, upstream, bind, drop=()):
    """nginx with deploy/nginx-course.conf in front of ``upstream`` (the hub's public
    port), connecting to it from ``bind``: yields (its HTTPS port, a TLS context
    that trusts its certificate, its folder). Stopped and its folder left to the
    caller's tmp afterwards."""
    nginx = require_nginx()
    folder.mkdir(parents=True, exist_ok=True)
    cert, key, context = certificate(folder)
    port, http_port = free_port(), free_port()
    (folder / "site.conf").write_text(site(upstream, bind, port, http_port, cert, key, drop))
    temp = {name: folder / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    (folder / "nginx.conf").write_text(
        f"user root;\ndaemon off;\n{WORKERS}\n"
        f"pid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
        "http {\n"
        f"    access_log {folder / 'access.log'};\n"
        + "".join(f"    {name}_temp_path {path};\n".replace("body_temp", "client_body_temp")
                  for name, path in temp.items())
        + f"    include {folder / 'site.conf'};\n}}\n")
    check = subprocess.run([nginx, "-t", "-p", str(folder), "-c", str(folder / "nginx.conf"),
                            "-e", str(folder / "error.log")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with open(folder / "nginx.out", "wb") as out:
        proc = subprocess.Popen([nginx, "-p", str(folder), "-c", str(folder / "nginx.conf"),
                                 "-e", str(folder / "error.log")],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 30
        while not _answers(port, context):
            assert proc.poll() is None, (folder / "nginx.out").read_text() + \
                (folder / "error.log").read_text()
            assert time.monotonic() < end, "nginx did not answer"
            time.sleep(0.2)
        yield port, context, folder
    finally:
        stop_process(proc)
