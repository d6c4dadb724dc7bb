"""A user's server runs the course's code only, and its user's other processes
cannot change it.

Every user server answers on the hub's one origin: code of a student's own,
running in her server, would answer there to whoever opens her link, with
their login (a page that makes their browser create an API token for them).
Played on the shared folder hub (tests/hubs.py) as a student would: ada plants
a server extension in ``~/.jupyter/jupyter_server_config.py``, a page of
scripts among JupyterLab's extensions in ``~/.local/share/jupyter``, a
``usercustomize.py`` in her user site-packages and a ``jupyterhub.py`` in her
home, and restarts her server. None of it runs in the server, and a process
of hers cannot attach to the server to change it.
"""

from __future__ import annotations

import subprocess
import time

import pytest
import requests

from hubs import hubpy, students_of
from test_hub import python_as, run_as

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

MARK = "ran-in-" + "the-server"
EXTENSION = f'''
from tornado import web
class Pwn(web.RequestHandler):
    def get(self):
        self.finish("{MARK}")
def _load_jupyter_server_extension(app):
    app.web_app.add_handlers(".*", [(app.base_url + "pwn", Pwn)])
'''
CONFIG = ("import sys, os\n"
          "sys.path.insert(0, os.path.expanduser('~/.pwn'))\n"
          "c.ServerApp.jpserver_extensions = {'pwn': True}\n"
          f"open(os.path.expanduser('~/config-{MARK}'), 'w').write('x')\n")
CUSTOM = f"import os\nopen(os.path.expanduser('~/usercustomize-{MARK}-%d' % os.getpid()), 'w')\n"
PLANT = f"""
import os, site, pathlib
home = pathlib.Path.home()
(home / ".pwn").mkdir(exist_ok=True)
(home / ".pwn" / "pwn.py").write_text({EXTENSION!r})
(home / ".jupyter").mkdir(exist_ok=True)
(home / ".jupyter" / "jupyter_server_config.py").write_text({CONFIG!r})
page = home / ".local/share/jupyter/labextensions/evil/static"
page.mkdir(parents=True, exist_ok=True)
(page / "x.html").write_text("<script>document.title = '{MARK}'</script>")
user_site = pathlib.Path(site.getusersitepackages())
user_site.mkdir(parents=True, exist_ok=True)
(user_site / "usercustomize.py").write_text({CUSTOM!r})
(home / "jupyterhub.py").write_text({CUSTOM!r})
print(user_site)
"""


@pytest.fixture(scope="module")
def hub(folder_hub):
    return students_of(folder_hub, "user_servers")


def restart(hub, who):
    """Stop and start ``who``'s server with their own token; return the token."""
    name = hub["names"][who]
    token = hubpy("token", hub["state"], name).stdout.strip()
    api, auth = f"{hub['url']}/hub/api/users/{name}", {"Authorization": f"token {token}"}
    requests.delete(api + "/server", headers=auth, timeout=60)
    deadline = time.monotonic() + 180
    while requests.get(api, headers=auth, timeout=60).json().get("server"):
        assert time.monotonic() < deadline, "the server did not stop"
        time.sleep(0.5)
    started = requests.post(api + "/server", headers=auth, timeout=60)
    assert started.status_code in (201, 202), (started.status_code, started.text)
    while True:
        model = requests.get(api, headers=auth, timeout=60).json()
        if model.get("server") and not model.get("pending"):
            return token
        assert time.monotonic() < deadline, f"the server did not start: {model}"
        time.sleep(0.5)


def server_pid(name):
    """The process id of ``name``'s server, found as root: a process that is not
    dumpable belongs to root in /proc, which hides it from its own user where
    /proc is mounted with hidepid."""
    found = subprocess.run(["pgrep", "-u", name, "-f", "jupyterhub-singleuser"],
                           capture_output=True, text=True).stdout.split()
    assert len(found) == 1, found
    return found[0]


def test_a_students_own_code_never_runs_in_her_server(hub):
    name = hub["names"]["ada"]
    planted = python_as(hub, name, PLANT)
    assert planted.returncode == 0, planted.stderr
    token = restart(hub, "ada")
    server = f"{hub['url']}/user/{name}"
    auth = {"Authorization": f"token {token}"}
    # her extension is not loaded: nobody gets its page, not even she
    for headers in ({}, auth):
        got = requests.get(f"{server}/pwn", headers=headers, timeout=60,
                           allow_redirects=False)
        assert MARK not in got.text and got.status_code in (302, 403, 404), got.status_code
    # JupyterLab's extensions are the environment's, not her data folder's
    got = requests.get(f"{server}/lab/extensions/evil/static/x.html", headers=auth,
                       timeout=60, allow_redirects=False)
    assert got.status_code == 404 and MARK not in got.text, got.status_code
    # her server is up and hers: it answers her
    assert requests.get(f"{server}/api/status", headers=auth, timeout=60).status_code == 200
    # her configuration, her usercustomize and her jupyterhub.py never ran in it
    pid = server_pid(name)
    marks = run_as(hub, name, "bash", "-c", f"ls -a ~ | grep {MARK} || true").stdout.split()
    assert [m for m in marks if m.startswith("config-") or m.endswith(f"-{pid}")] == [], marks


def test_a_students_processes_cannot_attach_to_her_server(hub):
    name = hub["names"]["ada"]
    pid = server_pid(name)
    attach = python_as(hub, name, (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        f"r = libc.ptrace(16, {pid}, 0, 0)\n"          # PTRACE_ATTACH
        "print(r, ctypes.get_errno())\n"
        f"print(os.access('/proc/{pid}/mem', os.W_OK))\n"))
    result, errno, writable = attach.stdout.split()
    # EPERM, or ESRCH where hidepid hides the server from her
    assert result == "-1" and int(errno) in (1, 3), attach.stdout
    assert writable == "False"
