"""deploy/submit_check.py without a hub: which notebooks it checks, and that a
submission the exchange did not take gets no receipt (the real `nbgrader submit`
of the students' environment against the course's ngshare service run alone,
and against a shared folder).  The hub tests play the Assignments tab and the
terminal (test_hub.py, test_hub_course_open.py)."""

import contextlib
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

from test_hub_ngshare_collect import COURSE, call, serving, set_up_course

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
sys.path.insert(0, str(DEPLOY))

from submit_check import digest, submitted_notebooks  # noqa: E402


def test_jupyterlabs_checkpoints_are_neither_checked_nor_named(tmp_path):
    """JupyterLab keeps a copy of each notebook in .ipynb_checkpoints, which
    nbgrader does not submit: the check reads the notebooks nbgrader submits."""
    nb = nbformat.v4.new_notebook()
    for name in ("ps1.ipynb", "extra/notes.ipynb", ".ipynb_checkpoints/ps1-checkpoint.ipynb",
                 "extra/.ipynb_checkpoints/notes-checkpoint.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, tmp_path / name)
    assert submitted_notebooks(str(tmp_path), Config()) == ["extra/notes.ipynb", "ps1.ipynb"]
    before = digest(str(tmp_path), Config())
    (tmp_path / ".ipynb_checkpoints" / "ps1-checkpoint.ipynb").write_text("{}")
    assert digest(str(tmp_path), Config()) == before   # an autosave is no change


# -- a submission the exchange did not take is reported as not submitted ----------
# The real `nbgrader submit` of the students' environment (its nbgrader_config.py,
# submit_check.py and the course's submit as install.sh installs them), as a
# student's server runs it, against the course's ngshare service run alone
# (test_ngshare_service.py) and against a shared folder.

MB = 1000**2
NOT_SUBMITTED = "ps1 was NOT submitted"


def student_home(tmp_path, extra=None):
    """ada's home with her ps1 folder (a notebook, and ``extra``: {name: bytes})."""
    home = tmp_path / "ada"
    (home / "ps1").mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.write(nb, home / "ps1" / "ps1.ipynb")
    for name, data in (extra or {}).items():
        (home / "ps1" / name).write_bytes(data)
    return home


def student_env(installed, home, **settings):
    """The variables ada's server has (server_settings.py's), ``settings`` added."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "NBGRADER", "KERNEL_COURSE", "PYTHON"))}
    env.update(HOME=str(home), USER="ada", JUPYTERHUB_USER="ada",
               PATH=f"{installed / 'student' / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}",
               KERNEL_COURSE_ROLE="student", NBGRADER_COURSE_ID=COURSE, **settings)
    return env


def nbgrader_submit(installed, home, env):
    done = subprocess.run([installed / "student" / "bin" / "nbgrader", "submit", "ps1"],
                          cwd=home, env=env, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


TAB_SUBMIT = """
import json, logging, sys
from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
import submit_check
manager = AssignmentList(log=logging.getLogger("tab"))
manager.root_dir = sys.argv[1]
print(json.dumps(submit_check.submit_explained(manager, sys.argv[2], "ps1")))
"""


def tab_submit(installed, home, env):
    """What the Assignments tab's Submit answers (the handler's function, as
    submit_check's server extension installs it): its JSON."""
    done = subprocess.run([installed / "student" / "bin" / "python", "-c", TAB_SUBMIT,
                           str(home), COURSE], cwd=home, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def adas_submissions(url):
    answer = call(url, "tok-teach", "GET", f"submissions/{COURSE}/ps1")
    return [s for s in answer["submissions"] if s["student_id"] == "ada"]


@pytest.fixture
def ngshare_service(installed, tmp_path):
    """The course's ngshare service as the hub runs it, the course set up: its URL."""
    (tmp_path / "ngshare").mkdir()
    with serving(tmp_path / "ngshare", [installed / "ngshare" / "bin" / "python",
                                        DEPLOY / "ngshare_service.py"]) as (url, _):
        set_up_course(url)
        yield url


@pytest.mark.slow
def test_a_submission_ngshare_refuses_gets_no_receipt(installed, ngshare_service, tmp_path):
    """ada's folder holds a data file: 21 MB is refused by ngshare with its reason
    (400), 40 MB is cut by its size limit for a body, without a reason: the
    student is told how large it was as sent.
    Each time the command prints no receipt, says her ps1 was NOT submitted and
    why, and exits non-zero; the Assignments tab answers success false with the
    same; ngshare holds nothing of hers. Once the file is gone, her submission
    goes in with its receipt."""
    url = ngshare_service
    home = student_home(tmp_path, {"data.bin": os.urandom(21 * MB)})
    env = student_env(installed, home, KERNEL_COURSE_EXCHANGE="ngshare",
                      KERNEL_COURSE_NGSHARE_URL=url, JUPYTERHUB_API_TOKEN="tok-ada")

    status, said = nbgrader_submit(installed, home, env)
    assert status != 0, said
    assert "Submitted ps1 at" not in said, said
    assert NOT_SUBMITTED in said and "400" in said and "more than the 20.0 MB" in said, said
    answer = tab_submit(installed, home, env)
    assert answer["success"] is False and NOT_SUBMITTED in answer["value"], answer
    assert "more than the 20.0 MB" in answer["value"], answer

    (home / "ps1" / "data.bin").write_bytes(os.urandom(40 * MB))
    status, said = nbgrader_submit(installed, home, env)
    assert status != 0, said
    assert "Submitted ps1 at" not in said, said
    assert NOT_SUBMITTED in said and "MB as sent" in said, said
    answer = tab_submit(installed, home, env)
    assert answer["success"] is False and NOT_SUBMITTED in answer["value"], answer
    assert adas_submissions(url) == []

    (home / "ps1" / "data.bin").unlink()
    status, said = nbgrader_submit(installed, home, env)
    assert status == 0 and "Submitted ps1 at" in said and NOT_SUBMITTED not in said, said
    assert len(adas_submissions(url)) == 1
    assert tab_submit(installed, home, env) == {"success": True}
    assert len(adas_submissions(url)) == 2


@pytest.mark.slow
def test_a_submission_the_folder_cannot_take_gets_no_receipt(installed, tmp_path):
    """In a shared folder, ada's submission that cannot be written (a link in her
    folder to a data file she has since deleted) prints no receipt, says it was
    NOT submitted and why, exits non-zero, and leaves nothing half-written in
    inbound/ for the instructor's collect; without the link it goes in."""
    exchange = tmp_path / "exchange"
    (exchange / COURSE / "inbound").mkdir(parents=True)
    (exchange / COURSE / "outbound" / "ps1").mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), exchange / COURSE / "outbound" / "ps1" / "ps1.ipynb")
    os.chmod(exchange / COURSE / "inbound", 0o2733)
    home = student_home(tmp_path)
    (home / "ps1" / "data.csv").symlink_to(tmp_path / "deleted.csv")
    env = student_env(installed, home, KERNEL_COURSE_EXCHANGE="folder",
                      NBGRADER_EXCHANGE=str(exchange))

    status, said = nbgrader_submit(installed, home, env)
    assert status != 0, said
    assert "Submitted ps1 at" not in said, said
    assert NOT_SUBMITTED in said and "data.csv" in said, said
    assert os.listdir(exchange / COURSE / "inbound") == []
    answer = tab_submit(installed, home, env)
    assert answer["success"] is False and NOT_SUBMITTED in answer["value"], answer
    assert os.listdir(exchange / COURSE / "inbound") == []

    (home / "ps1" / "data.csv").unlink()
    status, said = nbgrader_submit(installed, home, env)
    assert status == 0 and "Submitted ps1 at" in said, said
    assert len(os.listdir(exchange / COURSE / "inbound")) == 1


#: What a request-body budget of the course answers when it cuts a body (the hub,
#: ngshare, a user's server: deploy/request_bodies.py), and then closes.
CUT = b"HTTP/1.1 413 Content Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


@contextlib.contextmanager
def exchange_that_refuses(how):
    """A stand-in for ngshare on a free loopback port: it lists ps1's notebook, and
    answers each submission ``how``: "413" (the whole body read, then CUT) or
    "drop" (the connection closed without an answer). Yields (URL, submissions seen)."""
    seen = []

    class Refusing(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = json.dumps({"success": True, "files": [{"path": "ps1.ipynb"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            seen.append(self.path)
            if how == "413":
                self.rfile.read(int(self.headers["Content-Length"]))
                self.wfile.write(CUT)
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/services/ngshare", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["413", "drop"])
def test_a_submission_cut_by_a_body_limit_or_a_dropped_connection_gets_no_receipt(
        installed, tmp_path, how):
    """The answer of a request-body budget that cut the submission (413, no reason,
    the connection closed), or a connection closed with no answer at all: no
    receipt, the command says ps1 was NOT submitted and why and exits non-zero, and
    the Assignments tab answers success false with the same."""
    home = student_home(tmp_path)
    with exchange_that_refuses(how) as (url, seen):
        env = student_env(installed, home, KERNEL_COURSE_EXCHANGE="ngshare",
                          KERNEL_COURSE_NGSHARE_URL=url, JUPYTERHUB_API_TOKEN="tok-ada")
        status, said = nbgrader_submit(installed, home, env)
        answer = tab_submit(installed, home, env)
    assert seen == [f"/services/ngshare/submission/{COURSE}/ps1"] * 2, seen
    assert status != 0 and "Submitted ps1 at" not in said, said
    reason = ("the course's exchange answered HTTP 413" if how == "413"
              else "the connection to the course's exchange failed before it answered")
    assert f"{NOT_SUBMITTED}: {reason}" in said and "kB as sent" in said, said
    assert answer["success"] is False, answer
    assert answer["value"].startswith(f"{NOT_SUBMITTED}: {reason}"), answer
