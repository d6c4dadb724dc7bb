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

Nor can she put a server of her own in its place: in a JupyterLab terminal she
starts a listener for her server's port and kills the server (the terminal's
parent). The port is below 1024 and nothing of hers may bind it, so the
instructor who opens her link meanwhile gets the hub's page, never hers, and
no token is made for her.

Nor can she take the port of the hub or of one of its services while its
process is down: the book service is killed (standing for a crash) while a
process of hers tries to bind every port the hub and its services listen on,
until the hub has started the book service again. Each is below 1024 and
every bind is refused; the book and the hub answer again afterwards.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import pwd
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from attacks import PORT_SQUATTER, SERVICE_PORT_TAKER, SQUAT_LINE
from conftest import CHROMIUM, CHROMIUM_ARGS
from hubs import BOOK_MARKER, DEPLOY, HUBPY, hubpy, students_of
from test_hub import log_in, open_terminal, python_as, render_every_cell, run_as

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


def server_port(pid):
    """The port the hub gave the server of process ``pid`` (read as root)."""
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    url = next(v for v in environ if v.startswith(b"JUPYTERHUB_SERVICE_URL="))
    return int(url.decode().rsplit(":", 1)[1].split("/")[0])


def alive(pid):
    """Whether process ``pid`` runs (a killed server stays a zombie until the hub,
    its parent, polls it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until(condition, what, seconds=120):
    """Wait for ``condition``; fail saying ``what`` (a string, or a function giving one)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what() if callable(what) else what
        time.sleep(0.2)


def text_of(path):
    return path.read_text() if path.exists() else ""


def test_a_student_who_kills_her_server_cannot_answer_on_its_port(hub):
    from playwright.sync_api import sync_playwright

    name, teacher = hub["names"]["ada"], hub["names"]["teacher"]
    home = Path(pwd.getpwnam(name).pw_dir)
    for left in ("squat.log", "loot.txt", "squat.port", "squat.caps", "page.html"):
        (home / left).unlink(missing_ok=True)
    teacher_auth = {"Authorization": "token " + hubpy("token", hub["state"], teacher).stdout.strip()}
    user_api = f"{hub['url']}/hub/api/users/{name}"
    ada_auth = {"Authorization": "token " + hubpy("token", hub["state"], name).stdout.strip()}
    line = SQUAT_LINE.format(squatter=base64.b64encode(gzip.compress(PORT_SQUATTER.encode())).decode())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            instructor = log_in(browser, hub, "teacher")
            student = log_in(browser, hub, "ada")
            render_every_cell(student, hub, "ada")   # the terminal's text in the page
            # a page of hers, served by her running server, is not the instructor's
            # to open: her server answers her alone
            written = python_as(hub, name, "import pathlib; (pathlib.Path.home() / 'page.html')"
                                           ".write_text('<script>document.title = \"hers\"</script>')")
            assert written.returncode == 0, written.stderr
            instructor.goto(f"{hub['url']}/user/{name}/files/page.html")
            assert instructor.title() != "hers"
            pid = server_pid(name)
            port = server_port(pid)
            terminal = open_terminal(student)
            terminal.click()
            student.keyboard.type(line + "\n")   # typed: xterm reads keys, not pasted text, here
            screen = terminal.locator(".xterm-accessibility-tree")
            wait_until(lambda: "started" in text_of(home / "squat.log"),
                       lambda: f"the listener did not start; her terminal shows:\n{screen.inner_text()}")
            wait_until(lambda: not alive(pid), "her server was not killed")
            killed = time.monotonic()
            # the instructor opens her link at once, while the proxy still routes it
            instructor.goto(f"{hub['url']}/user/{name}/notes")
            instructor.wait_for_timeout(5000)
            seen = instructor.locator("body").inner_text()
            # the hub notices the server is gone at its next poll
            wait_until(lambda: not requests.get(user_api, headers=ada_auth, timeout=60).json()["server"],
                       "the hub did not notice her server had died", seconds=60)
            noticed = time.monotonic() - killed
        finally:
            browser.close()
            for squatter in subprocess.run(["pgrep", "-u", name, "-f", "squat.py"], capture_output=True,
                                           text=True).stdout.split():
                subprocess.run(["kill", squatter])
    log = text_of(home / "squat.log")
    assert "loading notes" not in seen and "squatted" not in seen, seen
    assert not (home / "loot.txt").exists(), text_of(home / "loot.txt")
    tokens = requests.get(f"{hub['url']}/hub/api/users/{teacher}/tokens", headers=teacher_auth,
                          timeout=60).json()["api_tokens"]
    assert [t for t in tokens if t.get("note") == "squatted"] == []
    # her listener was refused the port the whole time: below 1024, and her
    # terminal (a child of the server) holds no capability at all
    assert "refused EACCES" in log and "bound" not in log, log
    assert port < 1024 and int(text_of(home / "squat.port")) == port
    caps = dict(line.split(":") for line in text_of(home / "squat.caps").splitlines())
    assert {k: int(v, 16) for k, v in caps.items() if k != "CapBnd"} == {
        "CapInh": 0, "CapPrm": 0, "CapEff": 0, "CapAmb": 0}, caps
    assert noticed < 25, noticed
    # her server starts again, on a port below 1024
    restart(hub, "ada")
    assert server_port(server_pid(name)) < 1024


#: The settings naming the ports of the hub, its proxy and its services
#: (deploy/low_ports.py's SETTINGS).
SERVICE_PORTS = ("port", "hub_port", "proxy_api_port", "ngshare_port", "book_port")


def book_service_pid(hub):
    """The process id of ``hub``'s book service, found as root by its command and
    the hub's settings path in its environment."""
    marker = f"KERNEL_COURSE_SETTINGS={Path(hub['state']) / 'settings.json'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and b"book_service.py" in (entry / "cmdline").read_bytes()
                    and marker in (entry / "environ").read_bytes().split(b"\0")
                    and alive(int(entry.name))):
                found.append(int(entry.name))
        except OSError:
            continue
    assert len(found) == 1, found
    return found[0]


def test_a_student_cannot_take_a_port_of_the_hub_or_its_services_while_one_is_down(hub):
    name, settings = hub["names"]["ada"], hub["settings"]
    ports = {setting: settings[setting] for setting in SERVICE_PORTS}
    home = Path(pwd.getpwnam(name).pw_dir)
    (home / "take.ready").unlink(missing_ok=True)
    book = book_service_pid(hub)
    python = os.path.join(settings["prefix"], "student", "bin", "python")
    # her process, as `hub.py run-as` starts it with her server's environment
    taker = subprocess.Popen(
        [str(HUBPY), str(DEPLOY / "hub.py"), "run-as", str(hub["state"]), name, "--", python,
         "-c", SERVICE_PORT_TAKER, str(ports["book_port"]), *map(str, ports.values())],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             "LANG": "C.UTF-8"})
    try:
        wait_until(lambda: (home / "take.ready").exists() or taker.poll() is not None,
                   "her process did not start")
        os.kill(book, signal.SIGKILL)   # the book service crashes; the hub restarts it
        out, err = taker.communicate(timeout=180)
    finally:
        if taker.poll() is None:
            taker.kill()
            for left in subprocess.run(["pgrep", "-u", name, "-f", "take.ready"],
                                       capture_output=True, text=True).stdout.split():
                subprocess.run(["kill", left])
    assert taker.returncode == 0, err
    seen = json.loads(out)
    # she tried while nothing held the book's port, until the hub had it back
    assert seen["rounds_free"] > 0 and seen["back"], seen
    # every bind refused for want of the capability: every port is below 1024
    refused = {setting: seen["outcomes"][str(port)] for setting, port in ports.items()}
    assert all(set(outcomes) == {"EACCES"} for outcomes in refused.values()), (refused, ports)
    assert all(0 < port < 1024 for port in ports.values()), ports
    # the hub restarted the book service, which answers through the proxy again
    assert book_service_pid(hub) != book
    wait_until(lambda: BOOK_MARKER in requests.get(f"{hub['url']}/services/book/",
                                                   timeout=60).text,
               "the book did not answer again", seconds=60)
    assert requests.get(f"{hub['url']}/hub/health", timeout=60).ok
