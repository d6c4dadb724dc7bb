"""A Formgrader as the instructor's server runs it, for the browser tests.

:func:`formgrader_server` starts a ``jupyter server`` with nbgrader's
formgrader on loopback, serving a graded course, under the deployment's
policy for Formgrader's pages (``deploy/formgrader_csp.py``) and with
Formgrader's buttons bound under it (``deploy/formgrader_handlers.py``), as the
instructor's server does.
"""

import contextlib
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import free_port, stop_process

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


@contextlib.contextmanager
def formgrader_server(root, *, pythonpath=""):
    """``with formgrader_server(course_root) as (url, token):`` a Formgrader serving
    the course in ``root`` (its settings and state beside it); ``pythonpath`` goes
    on the server's path after ``deploy/``."""
    root = Path(root)
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(root.parent / "jupyter_config"),
               JUPYTER_RUNTIME_DIR=str(root.parent / "jupyter_runtime"),
               PYTHONPATH=os.pathsep.join(p for p in (
                   str(DEPLOY), pythonpath, os.environ.get("PYTHONPATH", "")) if p))
    logfile = root.parent / "jupyter_server.log"
    with open(logfile, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
             f"--ServerApp.root_dir={root}", "--allow-root",
             "--ServerApp.jpserver_extensions="
             "{'nbgrader.server_extensions.formgrader': True, 'formgrader_csp': True,"
             " 'formgrader_handlers': True}"],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                    break
                except OSError:
                    assert proc.poll() is None, logfile.read_text()
                    time.sleep(0.1)
            else:
                pytest.fail("jupyter server did not start")
            yield url, token
        finally:
            stop_process(proc)
