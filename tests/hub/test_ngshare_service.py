"""What the course's ngshare keeps of submissions (deploy/ngshare_service.py).

ngshare keeps every submission as root's files on the hub's disk, where no
student's disk quota counts them: a student submitting 70 MB again and again
with her server's own token would fill the disk under the hub's database. Played
on the course's ngshare service as the hub runs it (the wrapper, from the hub's
ngshare environment), its hub answered by a small server standing for it: a
submission over 20 MB is refused, and so is one that would take ada's kept
submissions past 200 MB, each with a message saying what to do; bob's goes in
meanwhile, and ngshare's storage holds only what was accepted.
"""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from test_hub_ngshare_collect import COURSE, HUB_API, USERS, call, encoded, free_port, wait_for

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MB = 1000**2

pytestmark = pytest.mark.slow


@pytest.fixture
def service(installed, tmp_path):
    """The course's ngshare service on a free loopback port: (its URL, its storage)."""
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
            [installed / "ngshare" / "bin" / "python", DEPLOY / "ngshare_service.py",
             "--admins", "teach", "--database", f"sqlite:///{tmp_path}/ngshare.sqlite",
             "--storage", str(storage)], env=env, stdout=log, stderr=subprocess.STDOUT))
        url = f"http://127.0.0.1:{port}/services/ngshare"
        wait_for(f"{url}/healthz")
        yield url, storage
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


def submit(url, token, size):
    """A submission of a notebook of ``size`` bytes: (status, ngshare's answer)."""
    files = [{"path": "ps1.ipynb", "content": base64.b64encode(os.urandom(size)).decode()}]
    r = requests.post(f"{url}/submission/{COURSE}/ps1", data={"files": json.dumps(files)},
                      headers={"Authorization": f"token {token}"}, timeout=300)
    return r.status_code, r.json()


def stored(storage):
    return sum(f.stat().st_size for f in storage.iterdir()) if storage.exists() else 0


def test_a_submission_and_what_one_student_keeps_are_bounded(service):
    url, storage = service
    call(url, "tok-teach", "POST", f"course/{COURSE}", instructors=json.dumps(["teach"]))
    for student in ("ada", "bob"):
        call(url, "tok-teach", "POST", f"student/{COURSE}/{student}",
             first_name=student, last_name="L", email="")
    call(url, "tok-teach", "POST", f"assignment/{COURSE}/ps1",
         files=json.dumps([{"path": "ps1.ipynb", "content": encoded("{}")}]))
    released = stored(storage)

    status, said = submit(url, "tok-ada", 21 * MB)
    assert status == 400 and not said["success"], said
    assert said["message"] == (
        "submission refused: its files take 21.0 MB, more than the 20.0 MB one submission "
        "may take; leave large data files out of your problem set's folder, then submit "
        "again"), said
    assert stored(storage) == released

    for _ in range(10):                      # 190 MB kept: each one under the cap
        assert submit(url, "tok-ada", 19 * MB)[0] == 200
    status, said = submit(url, "tok-ada", 19 * MB)
    assert status == 400, said
    assert said["message"] == (
        "submission refused: your submissions kept by the course's exchange take 190.0 MB, "
        "and this one 19.0 MB more would pass the 200.0 MB each person may keep; ask your "
        "instructor"), said
    assert submit(url, "tok-ada", 9 * MB)[0] == 200     # what still fits goes in
    # her classmate submits meanwhile, and only what was accepted is stored
    assert submit(url, "tok-bob", 1 * MB)[0] == 200
    assert stored(storage) == released + 190 * MB + 9 * MB + 1 * MB
