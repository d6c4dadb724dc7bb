"""The instructor's collect through ngshare, when ngshare holds a submission with a
folder named ``timestamp.txt``: that student is refused and named, the classmates
on either side of her are collected (bob's files named as people name them, with
an apostrophe, spaces and accents, each under its name), and the command fails.

ngshare itself (from the hub's ngshare environment, without the course's wrapper,
which refuses such a name at submit) stores what a student sends; the collect is
the real ``nbgrader collect`` of the hub's instructor environment with the
course's :class:`~coursegrader.tools.ngshare_collect.DatedNgshareCollect` (this
checkout's, ahead of the installed one). What ngshare asks of the hub
(``/hub/api/user``, by token) is answered by a small server standing for it.
"""

import base64
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from attacks import HONEST_FILE_NAMES
from conftest import stop_process

ROOT = Path(__file__).resolve().parents[2]
COURSE = "kernel-methods"
USERS = {"tok-teach": "teach", "tok-ada": "ada", "tok-bob": "bob", "tok-cy": "cy"}

HUB_API = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
users = json.loads(sys.argv[2])
class Hub(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def do_GET(self):
        token = self.headers.get("Authorization", "").partition(" ")[2]
        found = self.path.startswith("/hub/api/user") and token in users
        body = json.dumps({"kind": "user", "name": users[token]} if found else {}).encode()
        self.send_response(200 if found else 403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
HTTPServer(("127.0.0.1", int(sys.argv[1])), Hub).serve_forever()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, deadline=120):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            requests.get(url, timeout=5)
            return
        except requests.ConnectionError:
            time.sleep(0.5)
    raise AssertionError(f"nothing answers at {url}")


def encoded(data):
    return base64.b64encode(data.encode()).decode()


@contextlib.contextmanager
def serving(tmp_path, program):
    """ngshare run by ``program`` (its argv up to ngshare's own arguments) on a free
    loopback port, its hub answered by HUB_API, its database and storage in
    ``tmp_path``: yields (its URL, its storage folder)."""
    hub_port, port = free_port(), free_port()
    (tmp_path / "hub_api.py").write_text(HUB_API)
    env = dict(os.environ, JUPYTERHUB_API_URL=f"http://127.0.0.1:{hub_port}/hub/api",
               JUPYTERHUB_API_TOKEN="tok-service", JUPYTERHUB_CLIENT_ID="service-ngshare",
               JUPYTERHUB_SERVICE_PREFIX="/services/ngshare/",
               JUPYTERHUB_SERVICE_URL=f"http://127.0.0.1:{port}")
    storage = tmp_path / "ngshare-files"
    procs = [subprocess.Popen([sys.executable, tmp_path / "hub_api.py", str(hub_port),
                               json.dumps(USERS)])]
    try:
        log = open(tmp_path / "ngshare.log", "w")
        procs.append(subprocess.Popen(
            [*program, "--admins", "teach", "--database", f"sqlite:///{tmp_path}/ngshare.sqlite",
             "--storage", str(storage)], env=env, stdout=log, stderr=subprocess.STDOUT))
        url = f"http://127.0.0.1:{port}/services/ngshare"
        wait_for(f"{url}/healthz")
        yield url, storage
    finally:
        for proc in procs:
            stop_process(proc)


@pytest.fixture
def ngshare(installed, tmp_path):
    """ngshare as it ships, its hub answered by HUB_API: its URL."""
    with serving(tmp_path, [
            installed / "ngshare" / "bin" / "python", "-c",
            "import sys; from tornado.httpserver import HTTPServer; from ngshare import ngshare; "
            "listen = HTTPServer.listen; HTTPServer.listen = lambda s, p, a='', **k: "
            "listen(s, p, '127.0.0.1', **k); ngshare.main(sys.argv[1:])"]) as (url, _):
        yield url


def call(url, token, method, path, **data):
    r = requests.request(method, f"{url}/{path}", headers={"Authorization": f"token {token}"},
                         data=data, timeout=60)
    assert r.json()["success"], (path, r.text)
    return r.json()


def set_up_course(url):
    """The course on ngshare at ``url``, as its instructor makes it: ada, bob and cy
    its students, ps1 released."""
    call(url, "tok-teach", "POST", f"course/{COURSE}", instructors=json.dumps(["teach"]))
    for student in ("ada", "bob", "cy"):
        call(url, "tok-teach", "POST", f"student/{COURSE}/{student}",
             first_name=student, last_name="L", email="")
    call(url, "tok-teach", "POST", f"assignment/{COURSE}/ps1",
         files=json.dumps([{"path": "ps1.ipynb", "content": encoded("{}")}]))


def test_a_timestamp_folder_fails_her_submission_alone(ngshare, installed, tmp_path):
    set_up_course(ngshare)
    # bob, then ada with a folder named timestamp.txt, then cy
    submissions = {
        "bob": [{"path": "ps1.ipynb", "content": encoded('{"by": "bob"}')},
                {"path": ".ipynb_checkpoints/ps1-checkpoint.ipynb", "content": encoded("{}")},
                *({"path": name, "content": encoded(name)} for name in HONEST_FILE_NAMES)],
        "ada": [{"path": "ps1.ipynb", "content": encoded('{"by": "ada"}')},
                {"path": "timestamp.txt/x", "content": encoded("x")}],
        "cy": [{"path": "ps1.ipynb", "content": encoded('{"by": "cy"}')}],
    }
    for student, files in submissions.items():
        call(ngshare, f"tok-{student}", "POST", f"submission/{COURSE}/ps1",
             files=json.dumps(files))
        time.sleep(0.05)

    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE!r}\n"
        f"c.Exchange._ngshare_url = {ngshare!r}\n"
        "c.ExchangeFactory.collect = "
        "'coursegrader.tools.ngshare_collect.DatedNgshareCollect'\n")
    env = dict(os.environ, JUPYTERHUB_API_TOKEN="tok-teach", USER="teach",
               PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    env.pop("JUPYTERHUB_USER", None)

    def collect():
        return subprocess.run([installed / "instructor" / "bin" / "python", "-m", "nbgrader",
                               "collect", "ps1", "--update"],
                              cwd=course, env=env, capture_output=True, text=True, timeout=600)

    for attempt in (1, 2):   # and again: she stops nobody on a second collect either
        done = collect()
        said = done.stdout + done.stderr
        assert done.returncode != 0, said
        assert "'ada': not collected" in said and "timestamp.txt/x" in said, said
        submitted = course / "submitted"
        assert sorted(os.listdir(submitted)) == ["bob", "cy"], (attempt, said)
        for student in ("bob", "cy"):
            folder = submitted / student / "ps1"
            assert json.loads((folder / "ps1.ipynb").read_text()) == {"by": student}
            assert (folder / "timestamp.txt").is_file()   # ngshare's time
            assert not (folder / ".ipynb_checkpoints").exists()
        # bob's files named as people name them are collected, each under its name
        for name in HONEST_FILE_NAMES:
            assert (submitted / "bob" / "ps1" / name).read_text() == name, (name, said)
        # nothing half-written of hers is left beside them
        assert not [p for p in os.listdir(submitted) if p.startswith(".")], os.listdir(submitted)
