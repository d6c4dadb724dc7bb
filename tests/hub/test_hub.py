"""The course on a real JupyterHub (deploy/), end to end, as its users see it.

Run as root (the hub creates Unix accounts and starts servers as them):
``pytest -k hub``. The module installs the server environments with
deploy/install.sh under $KERNEL_COURSE_PREFIX (default /opt/kernel-course;
repeated runs reuse them; once per run, conftest's ``installed``), then uses
three throw-away hubs on free loopback ports (tests/hubs.py), each with its own
accounts (names start with "kh" and a random tag), state folder and exchange:

- a hub whose exchange is the ngshare service and whose own database and the
  instructor's gradebook are on a private PostgreSQL server (tests/conftest.py):
  the browser test runs on it
  (Chromium driven by Playwright: students fetch, write, validate and submit;
  a classmate, cora, hands in ada's notebook worked out on ada's variant, from
  her own JupyterLab terminal; the instructor collects, autogrades, grades a
  written answer by hand and releases feedback; a student reads it; cora is
  graded on her own variant, loses what ada's answers do not earn on it, and
  her record and the feedback she fetches name her variant; a hostile
  student's attacks on the instructor's browser run nowhere and change no
  grade), then a student tries to read another student's work through ngshare;
- the hub whose exchange is a shared folder, ``folder_hub``, started once per
  run and shared with test_hub_course_open.py (which has students of its own
  there): students (real Unix users, nbgrader on the command line) try to read
  each other's work and the course folder, to write into released material,
  and to submit in another student's name;
- a hub with ngshare and 40 students, who submit at once while the instructor
  collects, then again while the hub is restarted (deploy/class_load.py).

Outside CI a missing requirement (root, npm, Chromium, PostgreSQL) skips; in
CI it fails.
"""

import base64
import html
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
import requests
from coursegrader import plain_paths, record
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.tools.course import fill_answers

from conftest import CHROMIUM, CHROMIUM_ARGS
from hubs import BOOK_MARKER, COURSE, DEPLOY, FULL_NAMES, SHOTS, course_hub, hubpy
from attacks import (HONEST_FILE_NAMES, HOSTILE, HOSTILE_CODE, MARKUP_FILE_NAME,
                     REFUSED_FILE_NAMES)
from ps1_by_hand import answer_function, by_hand, earned, with_answers


ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(3600)


# -- the hubs -------------------------------------------------------------------
# folder_hub is shared with every module (tests/hubs.py); these two are this
# module's own

#: the ngshare hub's class: FULL_NAMES, and cora, who hands in ada's notebook
NGSHARE_CLASS = {**FULL_NAMES, "cora": ("Cora", "Sandel")}


@pytest.fixture(scope="module")
def ngshare_hub(slow, installed):
    students = {who: (who[0], *full) for who, full in NGSHARE_CLASS.items()}
    with course_hub("ngshare", db=True, students=students) as hub:
        yield hub


LOAD_CLASS = 40   # students submitting at once


@pytest.fixture(scope="module")
def load_hub(installed):
    students = {f"s{i:02d}": (f"s{i:02d}", "Student", f"{i:02d}")
                for i in range(LOAD_CLASS)}
    with course_hub("ngshare", students=students) as hub:
        yield hub


def run_as(hub, name, *argv, token=False):
    """Run a command as a course user, with their server's environment."""
    if token:
        tok = hubpy("token", hub["state"], name).stdout.strip()
        argv = ("env", f"JUPYTERHUB_API_TOKEN={tok}", *argv)
    return hubpy("run-as", hub["state"], name, "--", *argv, check=False)


def source_notebook(hub):
    """ps1 with its solutions, as the instructor's course folder on the hub holds it."""
    root = Path(hub["settings"]["course_dirs"][hub["names"]["teacher"]])
    return nbformat.read(root / "source" / "ps1" / "ps1.ipynb", as_version=4)


def python_as(hub, name, code):
    env_python = os.path.join(hub["settings"]["prefix"], "student"
                              if name != hub["names"]["teacher"] else "instructor", "bin", "python")
    return run_as(hub, name, env_python, "-c", code)


# -- what each role has ---------------------------------------------------------
def test_hub_roles_get_their_environment(folder_hub):
    hub, n = folder_hub, folder_hub["names"]
    for name in n.values():
        assert pwd.getpwnam(name).pw_dir
        assert os.stat(pwd.getpwnam(name).pw_dir).st_mode & 0o777 == 0o700
    probe = ("import importlib.util as u; print(*(u.find_spec(m) is not None for m in "
             "('kernlab', 'coursecheck', 'coursegrader')))")
    # students: the library and the public checks, never the grader (hidden checks)
    assert python_as(hub, n["ada"], probe).stdout.split() == ["True", "True", "False"]
    assert python_as(hub, n["teacher"], probe).stdout.split() == ["True", "True", "True"]
    # nbgrader's server extensions by role
    for name, formgrader in ((n["ada"], "disabled"), (n["teacher"], "enabled")):
        out = run_as(hub, name, "jupyter", "server", "extension", "list")
        text = out.stdout + out.stderr
        line = [ln for ln in text.splitlines() if "nbgrader.server_extensions.formgrader" in ln]
        assert line and formgrader in line[0], text


def test_a_student_makes_no_hub_tokens_an_instructor_may(folder_hub):
    """A student's tokens stored a note of 500 KB each (61 MB of the hub's database
    in 3 s) and listing them took the hub 2 GB: she may make, list or read none,
    by her password (the API's own login) or by a token of hers (as her browser's
    session is), while her own model and server stay hers; an instructor makes his."""
    hub, n = folder_hub, folder_hub["names"]
    url, ada = hub["url"], n["ada"]
    big = {"note": "n" * 500_000, "expires_in": 600}
    by_password = requests.post(f"{url}/hub/api/users/{ada}/tokens", timeout=60, json={
        **big, "auth": {"username": ada, "password": hub["passwords"][ada]}})
    assert by_password.status_code == 403, by_password.text[:300]
    hers = {"Authorization": "token " + hubpy("token", hub["state"], ada).stdout.strip()}
    made = requests.post(f"{url}/hub/api/users/{ada}/tokens", headers=hers, json=big, timeout=60)
    assert made.status_code == 403, made.text[:300]
    listed = requests.get(f"{url}/hub/api/users/{ada}/tokens", headers=hers, timeout=60)
    assert listed.status_code == 403, listed.text[:300]
    me = requests.get(f"{url}/hub/api/user", headers=hers, timeout=60)
    assert me.status_code == 200 and me.json()["name"] == ada, me.text[:300]
    assert requests.get(f"{url}/hub/api/users/{ada}", headers=hers, timeout=60).ok
    teacher = n["teacher"]
    his = {"Authorization": "token " + hubpy("token", hub["state"], teacher).stdout.strip()}
    made = requests.post(f"{url}/hub/api/users/{teacher}/tokens", headers=his, timeout=60,
                         json={"note": "grading script", "expires_in": 600})
    assert made.status_code == 201 and made.json()["token"], made.text[:300]
    # the Token page says so to her, and offers him JupyterHub's form
    for who, shown, hidden in ((ada, "have no JupyterHub API tokens", "Request new API token"),
                               (teacher, "Request new API token", "have no JupyterHub API")):
        session, _ = hub_session(hub, who)
        page = session.get(f"{url}/hub/token", timeout=60)
        assert page.status_code == 200 and shown in page.text and hidden not in page.text, \
            page.text[:2000]


def hub_session(hub, who):
    """A requests session logged in to the hub as ``who``, and its ``_xsrf``."""
    session = requests.Session()
    login = session.get(f"{hub['url']}/hub/login", timeout=60)
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', login.text).group(1)
    session.post(f"{hub['url']}/hub/login?next=/hub/home", timeout=60, data={
        "_xsrf": xsrf, "username": who, "password": hub["passwords"][who]})
    return session, session.cookies.get("_xsrf", xsrf)


def test_oauth_takes_only_the_pkce_values_the_standard_allows(folder_hub):
    """A logged-in student's own authorisation with a code challenge of 500 KB was
    stored whole (122 MB of the hub's database in 8 s): a challenge or method RFC
    7636 does not allow is answered 400 before anything is stored, from the form or
    the query; a challenge it allows makes her code (302), as a login does."""
    hub, ada = folder_hub, folder_hub["names"]["ada"]
    session, xsrf = hub_session(hub, ada)
    database = hub["state"] / "hub.sqlite"
    # the book service's client (a user's server has one only while it runs)
    form = {"client_id": "service-book", "response_type": "code",
            "redirect_uri": "/services/book/oauth_callback", "_xsrf": xsrf}
    authorize = f"{hub['url']}/hub/api/oauth2/authorize"

    def post(**values):
        return session.post(authorize, data={**form, **values}, allow_redirects=False,
                            headers={"X-XSRFToken": xsrf}, timeout=60)

    before = database.stat().st_size if database.exists() else None
    for values in ({"code_challenge": "A" * 500_000, "code_challenge_method": "plain"},
                   {"code_challenge": "A" * 129, "code_challenge_method": "plain"},
                   {"code_challenge": "A" * 42 + "\n", "code_challenge_method": "plain"},
                   {"code_challenge": "A" * 64, "code_challenge_method": "x" * 10_000}):
        refused = post(**values)
        assert refused.status_code == 400, (refused.status_code, refused.text[:300])
    assert "code_challenge" in refused.text or "code_challenge" in post(
        code_challenge="A" * 200).text
    by_query = session.get(authorize, params={**form, "code_challenge": "A" * 4000},
                           allow_redirects=False, timeout=60)
    assert by_query.status_code == 400, by_query.text[:300]
    if before is not None:
        assert database.stat().st_size - before < 1 << 20
    allowed = post(code_challenge="A" * 64, code_challenge_method="plain")
    assert allowed.status_code == 302 and "code=" in allowed.headers["Location"], \
        (allowed.status_code, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", allowed.text))[-600:])


def test_oauth_stores_only_a_session_id_the_hub_made(folder_hub):
    """The session cookie, which is not signed, was stored whole with each OAuth code
    and token (65 KB codes at 38 a second from her server): one the hub did not make
    is taken for none, and she is given a fresh one."""
    hub, ada = folder_hub, folder_hub["names"]["ada"]
    session, _ = hub_session(hub, ada)
    session.cookies.set("jupyterhub-session-id", "a" * 4000, path="/")
    answer = session.get(f"{hub['url']}/hub/api/oauth2/authorize", allow_redirects=False,
                         timeout=60, params={"client_id": "service-book",
                                             "response_type": "code",
                                             "redirect_uri": "/services/book/oauth_callback"})
    assert answer.status_code == 302 and "code=" in answer.headers["Location"], answer.text[:300]
    fresh = re.search(r"jupyterhub-session-id=([^;]*)", answer.headers.get("Set-Cookie", ""))
    assert fresh and re.fullmatch(r"[0-9a-f]{32}", fresh.group(1)), answer.headers
    with sqlite3.connect(hub["state"] / "hub.sqlite") as db:
        longest = db.execute("select max(length(session_id)) from oauth_codes").fetchone()[0]
    assert longest is not None and longest <= 32, longest


def test_what_jupyterhub_quotes_of_her_request_is_bounded_in_its_log(folder_hub):
    """JupyterHub's warning about an OAuth ``redirect_uri`` that is not the client's
    quotes it whole: 60,000 characters of hers wrote 60 KB lines, 1.1 MB of log a
    second from her server (through the proxy, under its 16 KiB of headers, 15 KB
    lines). Every message is cut to request_log.MESSAGE_CHARS and says how much
    was cut."""
    hub, ada = folder_hub, folder_hub["names"]["ada"]
    session, _ = hub_session(hub, ada)
    log = hub["state"] / "hub.log"
    before, n, long = log.stat().st_size, 20, "/x" + "y" * 12_000
    for _ in range(n):
        answer = session.get(f"{hub['url']}/hub/api/oauth2/authorize", allow_redirects=False,
                             timeout=60, params={"client_id": "service-book",
                                                 "response_type": "code",
                                                 "redirect_uri": long})
        assert answer.status_code == 400, answer.status_code
    deadline = time.monotonic() + 20
    while True:   # the log is written through a pipe
        grown = log.read_bytes()[before:].decode(errors="replace")
        cut = [line for line in grown.splitlines() if "more characters, not logged" in line]
        if len(cut) >= n or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert len(cut) >= n and "yyyy" in cut[0], grown[-2000:]
    assert len(grown.encode()) <= n * 2_000, len(grown.encode())


def test_a_students_server_takes_no_start_options(folder_hub):
    """JupyterHub stored the options she started her server with (1 MB of them) and
    returned them with every check of her token: the server API refuses options
    (400) by each of its bodies, and the spawn page's query and form start her
    server with none."""
    hub, ada = folder_hub, folder_hub["names"]["ada"]
    url = hub["url"]
    api = f"{url}/hub/api/users/{ada}"
    hers = {"Authorization": "token " + hubpy("token", hub["state"], ada).stdout.strip()}

    def started_with():
        deadline = time.monotonic() + 120
        while True:
            model = requests.get(api, headers=hers, timeout=60).json()
            server = model["servers"].get("")
            if server and server["ready"] or time.monotonic() > deadline:
                return server
            time.sleep(0.5)

    def stop():
        requests.delete(api + "/server", headers=hers, timeout=60)
        deadline = time.monotonic() + 60
        while requests.get(api, headers=hers, timeout=60).json()["servers"]:
            assert time.monotonic() < deadline, "her server did not stop"
            time.sleep(0.5)

    stop()   # (another test may have left it running)
    big = "a" * 500_000
    for method, body in (("POST", {"user_options": {"x": big}}), ("POST", {"x": big}),
                         ("POST", {"display_name": "x" * 200}),
                         ("PATCH", {"user_options": {"x": big}})):
        refused = requests.request(method, api + "/server", headers=hers, json=body,
                                   timeout=60)
        assert refused.status_code == 400, (method, refused.status_code, refused.text[:300])
    # none of them started her server
    assert requests.get(api, headers=hers, timeout=60).json()["servers"] == {}

    session, xsrf = hub_session(hub, ada)
    try:
        # the spawn page's query, then its form
        session.get(f"{url}/hub/spawn/{ada}", params={"opt-x": "a" * 4000, "y": "b" * 4000},
                    allow_redirects=False, timeout=60)
        server = started_with()
        assert server and server["user_options"] == {}, server and server["user_options"]
        stop()
        session.post(f"{url}/hub/spawn/{ada}", data={"x": big[:200_000], "_xsrf": xsrf},
                     allow_redirects=False, timeout=60)
        server = started_with()
        assert server and server["user_options"] == {}, server and server["user_options"]
        # and a start with no options (as the hub's pages send) is not refused
        stop()
        started = requests.post(api + "/server", headers=hers, json={}, timeout=60)
        assert started.status_code in (201, 202), started.text[:300]
        assert started_with()["user_options"] == {}
    finally:
        stop()


def test_hub_serves_the_book(folder_hub):
    r = requests.get(folder_hub["url"] + "/services/book/", timeout=60)
    assert r.status_code == 200 and BOOK_MARKER in r.text
    # through the proxy the hub started with its limits (deploy/proxy_limits.js),
    # at their defaults
    log = (folder_hub["state"] / "hub.log").read_text()
    assert ("proxy limits: a connection whose client takes nothing of its answer for 60 s "
            "is reset; at most 16 stalled over 5 s, or taking less than 64 KiB/s over it, "
            "per address") in log, log[-3000:]
    assert "proxy limits: at most 1000 connections open at once per address" in log, log[-3000:]
    assert ("proxy limits: requests per client to each user server at most 50/s (300 at "
            "once), to all at most 200/s (2000 at once); beyond them answered 429") in log, \
        log[-3000:]
    # its open files raised before it started (deploy/open_files.py), or why not said
    assert "open files (RLIMIT_NOFILE) of the hub and its proxy: " in log, log[-3000:]


# -- the shared-folder exchange, attacked by a student ----------------------------
ATTACKS = r"""
import glob, json, os, sys
exchange, course_dir, victim_home, victim = sys.argv[1:5]
inbound = os.path.join(exchange, "kernel-methods", "inbound")
outbound = os.path.join(exchange, "kernel-methods", "outbound", "ps1")
feedback = os.path.join(exchange, "kernel-methods", "feedback")
out = {}
def attempt(name, f):
    try:
        f()
        out[name] = "allowed"
    except PermissionError:
        out[name] = "denied"
    except FileNotFoundError:
        out[name] = "not found"
attempt("list inbound", lambda: os.listdir(inbound))
out["glob victim submissions"] = len(glob.glob(os.path.join(inbound, victim + "+*")))
attempt("list feedback", lambda: os.listdir(feedback))
attempt("list course folder", lambda: os.listdir(course_dir))
attempt("read grading secret", lambda: open(os.path.join(course_dir, ".grader_secret")).read())
attempt("read source", lambda: open(os.path.join(course_dir, "source", "ps1", "ps1.ipynb")).read())
attempt("read gradebook", lambda: open(os.path.join(course_dir, "gradebook.db"), "rb").read())
attempt("list victim home", lambda: os.listdir(victim_home))
attempt("read victim notebook", lambda: open(os.path.join(victim_home, "ps1", "ps1.ipynb")).read())
attempt("overwrite released notebook", lambda: open(os.path.join(outbound, "ps1.ipynb"), "a").write("x"))
attempt("add file to release", lambda: open(os.path.join(outbound, "extra.py"), "w").write("x"))
attempt("read released notebook", lambda: open(os.path.join(outbound, "ps1.ipynb")).read())
print(json.dumps(out))
"""


def test_hub_folder_exchange_keeps_students_apart(folder_hub):
    hub, n, s = folder_hub, folder_hub["names"], folder_hub["settings"]
    course_dir = s["course_dirs"][n["teacher"]]
    ada_home = pwd.getpwnam(n["ada"]).pw_dir
    for student in (n["ada"], n["bob"]):
        done = run_as(hub, student, "nbgrader", "fetch_assignment", "ps1")
        assert done.returncode == 0, done.stdout + done.stderr
    # ada answers part 1, then submits
    source = source_notebook(hub)
    released = nbformat.read(Path(ada_home) / "ps1" / "ps1.ipynb", as_version=4)
    mine = fill_answers(released, source, ids=["quadratic_map_answer"])
    nbformat.write(mine, Path(ada_home) / "ps1" / "ps1.ipynb")
    # only part 1 is answered: the first submit warns and hands in nothing, the
    # second hands the same notebook in
    done = run_as(hub, n["ada"], "nbgrader", "submit", "ps1")
    assert done.returncode != 0 and "check(s) fail" in done.stdout + done.stderr, \
        done.stdout + done.stderr
    assert not os.listdir(os.path.join(s["exchange_root"], COURSE, "inbound"))
    done = run_as(hub, n["ada"], "nbgrader", "submit", "ps1")
    assert done.returncode == 0, done.stdout + done.stderr

    # bob tries, as a student would, to get at ada's work and the course
    script = Path(s["state_dir"]).parent / "attacks.py"   # the state folder is root's alone
    script.write_text(ATTACKS)
    os.chmod(script, 0o644)
    done = run_as(hub, n["bob"], os.path.join(s["prefix"], "student", "bin", "python"), script,
                  s["exchange_root"], course_dir, ada_home, n["ada"])
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "list inbound": "denied", "glob victim submissions": 0, "list feedback": "not found",
        "list course folder": "denied", "read grading secret": "denied", "read source": "denied",
        "read gradebook": "denied", "list victim home": "denied",
        "read victim notebook": "denied", "overwrite released notebook": "denied",
        "add file to release": "denied", "read released notebook": "allowed"}, seen

    # bob forges a submission in ada's name (a later timestamp, so it would win)
    forged = ("import os, shutil, sys; from datetime import datetime, timezone, timedelta\n"
              "inbound, victim, home = sys.argv[1:4]\n"
              "ts = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime('%Y-%m-%d %H:%M:%S.%f %Z')\n"
              "dest = os.path.join(inbound, f'{victim}+ps1+{ts}+forged')\n"
              "shutil.copytree(os.path.join(home, 'ps1'), dest)\n"
              "open(os.path.join(dest, 'timestamp.txt'), 'w').write(ts)\n")
    script2 = Path(s["state_dir"]).parent / "forge.py"
    script2.write_text(forged)
    os.chmod(script2, 0o644)
    done = run_as(hub, n["bob"], os.path.join(s["prefix"], "student", "bin", "python"), script2,
                  os.path.join(s["exchange_root"], COURSE, "inbound"), n["ada"],
                  pwd.getpwnam(n["bob"]).pw_dir)
    assert done.returncode == 0, done.stderr     # the folder lets bob write it...
    done = run_as(hub, n["teacher"], "nbgrader", "collect", "ps1")
    # refused, and said so: the collect fails naming the forgery, after ada's
    assert done.returncode != 0, done.stdout + done.stderr
    assert f"named after {n['ada']} but owned by {n['bob']}" in done.stdout + done.stderr
    # ...but the instructor collects ada's own submission, not bob's forgery
    collected = nbformat.read(Path(course_dir) / "submitted" / n["ada"] / "ps1" / "ps1.ipynb",
                              as_version=4)
    answers = {c.metadata.nbgrader["grade_id"]: c.source for c in collected.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    assert "raise NotImplementedError" not in answers["quadratic_map_answer"]
    assert not os.path.exists(Path(course_dir) / "submitted" / n["bob"])


# -- the browser test on the ngshare hub -------------------------------------------
LONG = 300_000   # ms: servers start, notebooks validate and autograde on a busy machine


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    os.chmod(SHOTS, 0o700)   # screenshots and logs of the class: root's only
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def log_in(browser, hub, who):
    name = hub["names"][who]
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(LONG)
    page = context.new_page()
    page.goto(hub["url"] + "/hub/login")
    page.fill("#username_input", name)
    page.fill("#password_input", hub["passwords"][name])
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{name}/lab**", timeout=LONG)
    page.wait_for_selector("#jp-main-dock-panel", timeout=LONG)
    page.wait_for_selector(".jp-FileBrowser", timeout=LONG)
    return page


def open_nbgrader_menu(page, command=None):
    """Click the menu bar's Nbgrader; again if its menu (with ``command``) does not
    show, as a person would when a click goes to a menu bar still busy closing."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    shown = "#jp-mainmenu-nbgrader"
    if command:
        shown += f' li[data-command="{command}"]'
    for _ in range(5):
        page.click('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Nbgrader")')
        try:
            page.wait_for_selector(shown, state="visible", timeout=20_000)
            return shown
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"the Nbgrader menu did not show {shown}")


def nbgrader_menu_items(page):
    open_nbgrader_menu(page)
    # nbgrader's menu lists every command; those whose extension is disabled are hidden
    items = page.eval_on_selector_all("#jp-mainmenu-nbgrader li[data-command]:not(.lm-mod-hidden)",
                                      "els => els.map(e => e.dataset.command)")
    page.keyboard.press("Escape")
    return set(items)


def open_assignments(page):
    page.click(open_nbgrader_menu(page, "nbgrader:open-assignment-list"))
    page.wait_for_selector("#released_assignments_list")


def refresh_assignments(page):
    # the tab may not have survived opening the notebook by its URL (a page load)
    open_assignments(page)
    page.click("#refresh_assignments_list")


def assignment_row(page, section, name="ps1"):
    """The row of problem set ``name`` in one section of the Assignments tab."""
    return page.locator(f"#{section}_assignments_list > .list_item").filter(
        has=page.locator(".item_name", has_text=re.compile(rf"^\s*{name}\s*$")))


def fetch_ps1(page):
    open_assignments(page)
    assignment_row(page, "released").locator('.item_status button:text("Fetch")').click()
    assignment_row(page, "fetched").wait_for()


def submit_ps1(page):
    refresh_assignments(page)
    assignment_row(page, "fetched").locator('.item_status button:text("Submit")').first.click()
    assignment_row(page, "submitted").wait_for()


def lab_settings(page, hub, who, plugin, values=None):
    """Read (or first write) this user's JupyterLab settings of ``plugin``, as the
    Settings editor does; the settings in force come back."""
    base = f"{hub['url']}/user/{hub['names'][who]}/lab/api/settings/{plugin}"
    return page.evaluate("""async ([url, raw]) => {
        const xsrf = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
        const headers = {'X-XSRFToken': xsrf ? decodeURIComponent(xsrf.slice(6)) : ''};
        if (raw !== null) {
            const r = await fetch(url, {method: 'PUT', headers, body: JSON.stringify({raw})});
            if (r.status !== 204) throw new Error('settings: ' + r.status);
        }
        const body = await (await fetch(url, {headers})).json();
        // in force: the user's own settings over the defaults (with the overrides)
        const defaults = Object.fromEntries(Object.entries(body.schema.properties || {})
            .map(([key, prop]) => [key, prop.default]));
        return Object.assign(defaults, body.settings || {}); }""",
        [base, None if values is None else json.dumps(values)])


def render_every_cell(page, hub, who):
    """Turn off JupyterLab's windowed notebooks for this user (Settings > Notebook >
    Windowing mode: none), so that every cell of a notebook is in the page; and turn
    on the terminal's screen reader mode, which keeps the screen's text in the page."""
    lab_settings(page, hub, who, "@jupyterlab/notebook-extension:tracker",
                 {"windowingMode": "none"})
    lab_settings(page, hub, who, "@jupyterlab/terminal-extension:plugin",
                 {"screenReaderMode": True})
    page.reload()   # JupyterLab reads the changed settings when it loads
    page.wait_for_selector("#jp-main-dock-panel", timeout=LONG)
    page.wait_for_selector(".jp-FileBrowser", timeout=LONG)


def open_terminal(page):
    """File > New > Terminal; the new terminal, ready for typing."""
    page.click('#jp-menu-panel div.lm-MenuBar-itemLabel:text("File")')
    page.hover('#jp-mainmenu-file li.lm-Menu-item:has-text("New")')
    page.click('li[data-command="terminal:create-new"]:visible')
    terminal = page.locator(".jp-Terminal:visible").last
    screen = terminal.locator(".xterm-accessibility-tree")
    screen.wait_for(state="attached")
    deadline = time.monotonic() + LONG / 1000
    while not screen.inner_text().rstrip().endswith("$"):   # the shell's prompt
        assert time.monotonic() < deadline, screen.inner_text()
        time.sleep(0.5)
    return terminal


def run_in_terminal(page, terminal, command):
    """Type ``command`` into the terminal as a person would; wait for it to end and
    return (exit status, what the screen shows from the command line on)."""
    mark = secrets.token_hex(3)
    terminal.click()
    # the typed line shows "@mark$?@"; only the finished command prints a number
    page.keyboard.type(f"clear; {command}; echo @{mark}$?@\n")
    pattern = re.compile(rf"@{mark}(\d+)@")
    deadline = time.monotonic() + LONG / 1000
    while True:
        screen = terminal.locator(".xterm-accessibility-tree").inner_text()
        found = pattern.search(screen)
        if found:
            return int(found.group(1)), screen
        assert time.monotonic() < deadline, f"{command!r} did not finish:\n{screen}"
        time.sleep(1)


def open_formgrader(page):
    """Nbgrader > Formgrader: Formgrader in its JupyterLab tab (a frame)."""
    page.click(open_nbgrader_menu(page, "nbgrader:open-formgrader"))
    return formgrader_frame(page)


def formgrader_frame(page):
    """The frame of Formgrader's JupyterLab tab, once its page has loaded."""
    frame = page.locator("#formgrader-iframe iframe").element_handle().content_frame()
    frame.locator('a:text("Manage Assignments")').wait_for()
    return frame


def write_answers(page, filled):
    """Type each answer into its cell of the open notebook, as a student would."""
    cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
    # JupyterLab draws the cells one after another once the notebook has opened
    deadline = time.monotonic() + 120
    while cells.count() < len(filled.cells) and time.monotonic() < deadline:
        page.wait_for_timeout(500)
    assert cells.count() == len(filled.cells)
    for i, cell in enumerate(filled.cells):
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        target = cells.nth(i)
        target.scroll_into_view_if_needed()
        if cell.cell_type == "markdown":
            target.dblclick()
        else:
            target.locator(".cm-content").click()
        editor = target.locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(cell.source)
        if cell.cell_type == "markdown":
            page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-mod-dirty", state="detached")


def gradebook(hub):
    """The instructor's gradebook: on PostgreSQL when the hub was given one."""
    from nbgrader.api import Gradebook
    root = hub["settings"]["course_dirs"][hub["names"]["teacher"]]
    return Gradebook(hub["gradebook_url"] or f"sqlite:///{root}/gradebook.db", course_id=COURSE)


def formgrader_click(frame, selector):
    """Click an action in Formgrader (``frame``: its frame or page); the text of the
    success box it opens."""
    frame.locator(selector).click()
    modal = frame.locator("#success-modal, #error-modal")
    modal.wait_for(state="visible", timeout=LONG)
    text = modal.inner_text()
    assert frame.locator("#success-modal").count() == 1, text
    frame.locator("#success-modal button.close.btn").click()
    modal.wait_for(state="detached")
    return text


def formgrader_refused(frame, selector):
    """Click an action in Formgrader that must fail; the text of the error box it opens
    (its message and nbgrader's log)."""
    frame.locator(selector).click()
    modal = frame.locator("#success-modal, #error-modal")
    modal.wait_for(state="visible", timeout=LONG)
    text = modal.inner_text()
    assert frame.locator("#error-modal").count() == 1, text
    frame.locator("#error-modal button.close.btn").click()
    modal.wait_for(state="detached")
    return text


HOSTILE_HANDLER = """() => new Promise(resolve => {
    // a student's <img onerror=...> as it would reach the page: either its handler
    // runs (it is called before any listener added later) or the policy refuses it
    document.addEventListener('securitypolicyviolation', e => resolve(
        {ran: window.hostileRan === true, refused_by: e.violatedDirective}));
    const box = document.createElement('div');
    box.innerHTML = '<img src="no-such-image" onerror="window.hostileRan = true">';
    box.firstChild.addEventListener('error', () => {
        if (window.hostileRan === true) resolve({ran: true, refused_by: null});
    });
    document.body.appendChild(box);
})"""


def submit_hostile(hub, source):
    """eve fetches ps1 and submits the reference code with hostile written answers
    (scripts, event handlers, javascript: links, a style block, a call of the grade
    API) and a code answer whose outputs carry the same, its outputs included."""
    n = hub["names"]
    done = run_as(hub, n["eve"], "nbgrader", "fetch_assignment", "ps1", token=True)
    assert done.returncode == 0, done.stdout + done.stderr
    home = Path(pwd.getpwnam(n["eve"]).pw_dir)
    released = nbformat.read(home / "ps1" / "ps1.ipynb", as_version=4)
    nb = fill_answers(released, source)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    for cell in answers:
        if cell.cell_type == "markdown":
            cell.source = HOSTILE
    code = next(c for c in answers if c.cell_type == "code")
    code.source += "\n" + HOSTILE_CODE
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": HOSTILE, "text/markdown": HOSTILE})]
    nbformat.write(nb, home / "ps1" / "ps1.ipynb")
    user = pwd.getpwnam(n["eve"])
    os.chown(home / "ps1" / "ps1.ipynb", user.pw_uid, user.pw_gid)
    done = run_as(hub, n["eve"], "nbgrader", "submit", "ps1", token=True)
    assert done.returncode == 0 and "Submitted ps1 at" in done.stdout + done.stderr, \
        done.stdout + done.stderr


def copied_across_variants(hub, secret):
    """ada's saved ps1 as cora copies it: the parts that vary as ada worked them out
    by hand on her own variant (her notebook's answers read ``V``, which is right on
    every variant), and the variant cell's output as ada's server prints it.

    Returns the notebook, the answer cells of the parts that vary and that output."""
    n = hub["names"]
    home = Path(pwd.getpwnam(n["ada"]).pw_dir)
    adas = nbformat.read(home / "ps1" / "ps1.ipynb", as_version=4)
    cells, _ = by_hand(source_notebook(hub), submission_variant(secret, "ps1", n["ada"]).params)
    nb = with_answers(adas, cells)
    shown = python_as(hub, n["ada"], 'from coursecheck import variant; variant("ps1")')
    assert shown.returncode == 0, shown.stdout + shown.stderr
    cell, = (c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "variant")
    cell.execution_count = 2
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=shown.stdout)]
    return nb, cells, shown.stdout


def open_submission(fg, name, submission_id):
    """Open a student's ps1 from Formgrader's gradebook (Manual Grading) the way
    an instructor clicks to it, names shown, and wait for its grading page."""
    fg.locator('td a:text-is("ps1")').click()
    fg.wait_for_url("**/formgrader/gradebook/ps1")
    fg.locator('td a:text-is("ps1")').click()
    fg.wait_for_url("**/formgrader/gradebook/ps1/ps1")
    row = fg.locator("tr").filter(has=fg.locator("a.name-shown", has_text=name))
    row.locator(".glyphicon-eye-open").click()
    row.locator("a.name-shown").click()
    # Formgrader adds a slash and the submission's index to the address
    fg.wait_for_url(re.compile(rf"/formgrader/submissions/{submission_id}/?(\?.*)?$"))
    fg.locator("input.score#validity_arguments").wait_for()
    fg.wait_for_load_state("networkidle")


def all_grades(hub):
    """Every grade in the gradebook: (student, grade id) -> (auto, manual score)."""
    with gradebook(hub) as gb:
        return {(sub.student.id, g.name): (g.auto_score, g.manual_score)
                for sub in gb.assignment_submissions("ps1") for nb in sub.notebooks
                for g in nb.grades}


def watch_for_attacks(page):
    """What the attacks would show from outside a page: dialogs it opens, and
    requests it sends that name the payload or write a grade."""
    seen = {"dialogs": [], "pwned": []}
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("request", lambda r: seen["pwned"].append((r.method, r.url)) if (
        "pwned" in r.url or (r.method != "GET" and "/api/grade" in r.url)) else None)
    return seen


def attacks_seen(frame):
    """What the attacks would leave inside a page (``frame``): the global they set,
    in it and in its top window, and every element still carrying one of them: an
    event handler of the payload's, a javascript: or data: address, or a script,
    style, frame or SVG of the student's (each payload names "pwned"; the page's
    own elements do not)."""
    return frame.evaluate("""() => {
        const marked = e => /pwned/.test(e.outerHTML);
        const address = e => ['href', 'src', 'action', 'formaction', 'xlink:href']
            .some(name => /^\\s*(javascript|data):/i.test(e.getAttribute(name) || ''));
        const live = [...document.querySelectorAll('*')].filter(e => address(e)
            || [...e.attributes].some(a => /^on/i.test(a.name) && /pwned/.test(a.value))
            || (['SCRIPT', 'STYLE', 'IFRAME', 'META', 'SVG']
                .includes(e.tagName.toUpperCase()) && marked(e)))
            .map(e => e.outerHTML.slice(0, 200));
        return {pwned: window.pwned === undefined ? null : String(window.pwned),
                topPwned: window.top.pwned === undefined ? null
                    : String(window.top.pwned),
                live, shown: document.body.innerText};
    }""")


def test_hub_end_to_end_in_chromium(ngshare_hub):
    from playwright.sync_api import sync_playwright

    hub, n = ngshare_hub, ngshare_hub["names"]
    prefix = hub["settings"]["prefix"]
    source = source_notebook(hub)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pages = {}
        try:
            # -- ada: fetch, write the answers, validate, submit ----------------------
            ada = pages["ada"] = log_in(browser, hub, "ada")
            # no news pop-up: the environment's settings turn the news off
            notes = lab_settings(ada, hub, "ada", "@jupyterlab/apputils-extension:notification")
            assert notes["fetchNews"] == "false" and notes["checkForUpdates"] is False, notes
            menu = nbgrader_menu_items(ada)
            assert "nbgrader:open-assignment-list" in menu
            assert "nbgrader:open-formgrader" not in menu and "nbgrader:open-course-list" not in menu
            fetch_ps1(ada)
            render_every_cell(ada, hub, "ada")
            home = Path(pwd.getpwnam(n["ada"]).pw_dir)
            released = nbformat.read(home / "ps1" / "ps1.ipynb", as_version=4)
            filled = fill_answers(released, source)
            ada.goto(f"{hub['url']}/user/{n['ada']}/lab/tree/ps1/ps1.ipynb")
            ada.wait_for_selector(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
            shot(ada, "ada-notebook")
            write_answers(ada, filled)
            def answers(nb):
                return {c.metadata.nbgrader["grade_id"]: c.source.strip() for c in nb.cells
                        if c.metadata.get("nbgrader", {}).get("solution")}

            def saved_answers():
                try:   # JupyterLab may be halfway through writing the file
                    return answers(nbformat.read(home / "ps1" / "ps1.ipynb", as_version=4))
                except nbformat.reader.NotJSONError:
                    return None
            deadline = time.monotonic() + 60   # the save reaches the disk
            while saved_answers() != answers(filled):
                assert time.monotonic() < deadline, "the typed answers were not saved"
                time.sleep(1)
            ada.click(".jp-NotebookPanel:visible jp-button.validate-button")
            ada.wait_for_selector(".nbgrader-SuccessDialog, .nbgrader-ErrorDialog", timeout=LONG)
            shot(ada, "ada-validated")
            assert ada.locator(".nbgrader-SuccessDialog").count() == 1
            assert "passes all the tests" in ada.locator(".nbgrader-SuccessDialog").inner_text()
            ada.click(".nbgrader-SuccessDialog button.jp-Dialog-button")
            # the README's command in a JupyterLab terminal: the course's nbgrader
            terminal = open_terminal(ada)
            status, screen = run_in_terminal(ada, terminal, "command -v nbgrader python")
            assert status == 0 and f"{prefix}/student/bin/nbgrader" in screen, screen
            # her own variant from the first fetch: the hub's start wrote the codes
            status, screen = run_in_terminal(ada, terminal, "python -m coursecheck.variants")
            assert status == 0 and f"Variants shown for {n['ada']}" in screen, screen
            status, screen = run_in_terminal(ada, terminal, "cd ~/ps1 && nbgrader validate ps1.ipynb")
            shot(ada, "ada-terminal")
            assert status == 0 and "passes all the tests" in screen, screen
            submit_ps1(ada)
            shot(ada, "ada-submitted")

            # -- bob: fetch and submit the blank notebook, in a terminal ---------------
            bob = pages["bob"] = log_in(browser, hub, "bob")
            render_every_cell(bob, hub, "bob")
            terminal = open_terminal(bob)
            submit = "nbgrader submit ps1 --course kernel-methods"
            status, screen = run_in_terminal(
                bob, terminal, "nbgrader fetch_assignment ps1 --course kernel-methods")
            assert status == 0, screen
            # the blank notebook: he is warned and nothing goes in...
            status, screen = run_in_terminal(bob, terminal, submit)
            shot(bob, "bob-warned")
            assert status != 0 and "Not submitted yet" in screen, screen
            assert "ps1.ipynb is unchanged from the release" in screen, screen
            ngshare_token = hubpy("token", hub["state"], n["teacher"]).stdout.strip()
            listed = requests.get(
                f"{hub['url']}/services/ngshare/submissions/{COURSE}/ps1",
                headers={"Authorization": f"token {ngshare_token}"}, timeout=60).json()
            assert [x["student_id"] for x in listed["submissions"]] == [n["ada"]], listed
            # ...until he submits it again as it is; then he is told what went in
            status, screen = run_in_terminal(bob, terminal, submit)
            shot(bob, "bob-terminal")
            assert status == 0 and "Submitted ps1 at" in screen, screen
            assert "ps1.ipynb (" in screen and "sha256" in screen, screen
            assert bob.goto(f"{hub['url']}/user/{n['bob']}/formgrader").status == 404

            # -- eve: her written answers and her outputs attack the grader's browser --
            submit_hostile(hub, source)

            # -- cora: ada's notebook, worked out on ada's variant, copied into her
            #    folder and handed in through ngshare from her own server's terminal ----
            course_dir = Path(hub["settings"]["course_dirs"][n["teacher"]])
            secret = (course_dir / ".grader_secret").read_text().strip()
            variant = {who: submission_variant(secret, "ps1", n[who]) for who in ("ada", "cora")}
            assert variant["ada"].label != variant["cora"].label
            cora = pages["cora"] = log_in(browser, hub, "cora")
            render_every_cell(cora, hub, "cora")
            terminal = open_terminal(cora)
            status, screen = run_in_terminal(
                cora, terminal, "nbgrader fetch_assignment ps1 --course kernel-methods")
            assert status == 0, screen
            copied, worked, shown = copied_across_variants(hub, secret)
            # the copy says it is ada's variant, as the hub showed it to her
            assert f"Variant for {n['ada']} ({variant['ada'].label})" in shown, shown
            cora_home = Path(pwd.getpwnam(n["cora"]).pw_dir)
            nbformat.write(copied, cora_home / "ps1" / "ps1.ipynb")
            user = pwd.getpwnam(n["cora"])
            os.chown(cora_home / "ps1" / "ps1.ipynb", user.pw_uid, user.pw_gid)
            # her own variant's public checks fail on the copy: she is warned and
            # nothing goes in, until she submits it again as it is
            status, screen = run_in_terminal(cora, terminal, submit)
            assert status != 0 and "Not submitted yet" in screen, screen
            assert "check(s) fail" in screen, screen
            status, screen = run_in_terminal(cora, terminal, submit)
            shot(cora, "cora-terminal")
            assert status == 0 and "Submitted ps1 at" in screen, screen

            # -- the instructor, in Formgrader opened from the menu: collect, autograde,
            #    grade by hand, release feedback ----------------------------------------
            teacher = pages["teacher"] = log_in(browser, hub, "teacher")
            render_every_cell(teacher, hub, "teacher")
            assert "nbgrader:open-formgrader" in nbgrader_menu_items(teacher)
            fg = open_formgrader(teacher)
            row = 'tr:has(td.name:has-text("ps1"))'
            fg.locator(row).wait_for()
            formgrader_click(fg, f"{row} td.collect a")
            # the list again, reloaded: a click on the old one, while it unloads, is lost
            with fg.expect_navigation():
                fg.locator('a:text("Manage Assignments")').click()
            fg.locator(f"{row} td.num-submissions a").wait_for()
            assert fg.locator(f"{row} td.num-submissions").inner_text().strip() == "4"
            fg.locator(f"{row} td.num-submissions a").click()
            fg.wait_for_url("**/formgrader/manage_submissions/ps1")
            ada_row = f'tr:has(td.student-id:text-is("{n["ada"]}"))'
            fg.locator(ada_row).wait_for()
            # the students by their names (from the course's students.csv)
            assert "Lovelace, Ada" in fg.locator(ada_row).inner_text()
            box = formgrader_click(fg, f"{ada_row} td.autograde a")
            # the box says what happened, in nbgrader's own lines, with no debug dump
            assert f"Successfully autograded 'ps1' for student '{n['ada']}'" in box, box
            assert "[INFO] Autograding" in box and "[DEBUG]" not in box, box
            shot(teacher, "teacher-autograded")
            # the rest of the class in one action: `make autograde` in a terminal
            terminal = open_terminal(teacher)
            status, screen = run_in_terminal(teacher, terminal, "command -v nbgrader")
            assert status == 0 and f"{prefix}/instructor/bin/nbgrader" in screen, screen
            status, screen = run_in_terminal(
                teacher, terminal, "cd ~/kernel-methods && make autograde PS=ps1")
            shot(teacher, "teacher-make-autograde")
            assert status == 0, screen
            with gradebook(hub) as gb:
                sub = gb.find_submission_notebook("ps1", "ps1", n["ada"])
                sub_id, max_code, max_written = sub.id, sub.max_code_score, sub.max_written_score
                # the reference answers earn every autograded point, the blank none
                assert max_code > 0 and sub.code_score == max_code, (sub.code_score, max_code)
                assert gb.find_submission_notebook("ps1", "ps1", n["bob"]).code_score == 0
                # eve's code is the reference's: her attacks cost or earn nothing
                eve = gb.find_submission_notebook("ps1", "ps1", n["eve"])
                assert eve.code_score == max_code, eve.code_score
                cora_code = gb.find_submission_notebook("ps1", "ps1", n["cora"]).code_score
                auto = {who: {g.name: g.auto_score for g in gb.find_submission_notebook(
                    "ps1", "ps1", n[who]).grades} for who in ("ada", "cora")}
            # ada's own: every part's points. cora's copy, judged on her own variant:
            # the parts that do not vary keep their points, each part that varies
            # scores what ada's answers earn on cora's variant, so she loses the
            # points of the parts that vary (of part 3, the verdicts of ada's that are
            # wrong for cora's candidates of the same name)
            parts = graded_parts(course_dir, "ps1")
            varying = {pid for pid, p in parts.items() if p.varies}
            assert varying
            assert {pid: auto["ada"][pid] for pid in parts} == {
                pid: pytest.approx(p.points) for pid, p in parts.items()}
            kept = {pid: earned(course_dir, secret, "ps1", n["cora"], pid,
                                answer_function(worked[pid], parts[pid].func))
                    for pid in varying}
            assert {pid: auto["cora"][pid] for pid in parts} == {
                pid: pytest.approx(kept.get(pid, p.points), abs=0.01)
                for pid, p in parts.items()}
            lost = sum(parts[pid].points - kept[pid] for pid in varying)
            assert lost > 0 and cora_code == pytest.approx(max_code - lost, abs=0.05)
            # her record names the variant expected of her, never ada's
            saved = record.load(course_dir / "autograded" / n["cora"] / "ps1", "ps1")
            assert saved.variant == variant["cora"].label
            assert {p.part: p.variant for p in saved.parts if p.part in varying} == {
                pid: variant["cora"].label for pid in varying}
            assert max_written == 6   # part 5 (4 points) and part 6 (2 points), graded by hand
            total = max_code + max_written
            # Manual Grading > ps1 > ps1 > Ada's submission (names shown one by one);
            # nbgrader's sidebar calls the gradebook "Manual Grading"
            teacher.click('.lm-DockPanel-tabBar .lm-TabBar-tab:has-text("Formgrader")')
            fg = formgrader_frame(teacher)
            fg.locator('.nav a:text-is("Manual Grading")').click()
            fg.wait_for_url("**/formgrader/gradebook")
            open_submission(fg, "Lovelace, Ada", sub_id)
            # the second layer: the page refuses inline event handlers
            hostile = fg.evaluate(HOSTILE_HANDLER)
            assert hostile == {"ran": False, "refused_by": "script-src-attr"}, hostile

            def enter_scores():
                # Formgrader saves a score when its field changes; a field drawn
                # again while the page finishes loading loses what was typed
                # before, so the scores are typed again until they are saved.
                for field, score in (("validity_arguments", "3"), ("closure_proofs", "2")):
                    fg.locator(f"input.score#{field}").fill("")
                    fg.locator(f"input.score#{field}").fill(score)
                    teacher.keyboard.press("Tab")

            enter_scores()
            deadline, typed = time.monotonic() + 60, time.monotonic()
            while True:
                with gradebook(hub) as gb:
                    sub = gb.find_submission_notebook("ps1", "ps1", n["ada"])
                    manual = {g.name: g.manual_score for g in sub.grades if g.cell.cell_type == "markdown"}
                if manual == {"validity_arguments": 3, "closure_proofs": 2}:
                    break
                assert time.monotonic() < deadline, manual
                if time.monotonic() - typed > 10:
                    enter_scores()
                    typed = time.monotonic()
                time.sleep(1)
            shot(teacher, "teacher-graded")
            # the grading page's way out is its "Manual Grading" breadcrumb
            fg.locator('a:text-is("Manual Grading")').first.click()
            fg.wait_for_url("**/formgrader/gradebook")

            # -- eve's submission, opened the same way: none of her attacks runs -------
            before = all_grades(hub)
            watch = watch_for_attacks(teacher)
            with gradebook(hub) as gb:
                eve_id = gb.find_submission_notebook("ps1", "ps1", n["eve"]).id
            open_submission(fg, "Mallory, Eve", eve_id)
            teacher.wait_for_timeout(1000)   # a handler would have run by now
            shot(teacher, "teacher-hostile-submission")
            seen = attacks_seen(fg)
            # her answers are on the page as text, the page is not blanked
            assert "My answer." in seen["shown"], seen
            assert "bold output" in seen["shown"], seen
            assert fg.locator("input.score#validity_arguments").is_visible()
            assert seen["pwned"] is None and seen["topPwned"] is None, seen
            assert seen["live"] == [], seen
            assert watch["dialogs"] == [] and watch["pwned"] == [], watch
            assert all_grades(hub) == before
            fg.locator('a:text-is("Manual Grading")').first.click()
            fg.wait_for_url("**/formgrader/gradebook")
            fg.locator('a:text("Manage Assignments")').click()
            fg.locator(f"{row} td.generate-feedback a").wait_for()
            # nothing half-graded leaves: eve's written answers still wait for a
            # grader (bob's blank ones nbgrader scored 0 itself), so "Generate
            # Feedback" refuses hers and names the parts
            refusal = formgrader_refused(fg, f"{row} td.generate-feedback a")
            assert f"no feedback for {n['eve']} on ps1" in refusal, refusal
            assert f"{n['eve']}, ps1, validity_arguments" in refusal, refusal
            for name in ("ada", "bob"):
                assert f"no feedback for {n[name]}" not in refusal, refusal
            # her written parts graded, 0 points each, as Formgrader's grade API
            # records a score typed in (ada's were typed in the page above)
            with gradebook(hub) as gb:
                for name in ("eve", "cora"):
                    for grade in gb.find_submission_notebook("ps1", "ps1", n[name]).grades:
                        if grade.needs_manual_grade:
                            grade.manual_score, grade.needs_manual_grade = 0, False
                gb.db.commit()
            formgrader_click(fg, f"{row} td.generate-feedback a")
            formgrader_click(fg, f"{row} td.release-feedback a")
            with gradebook(hub) as gb:
                scores = {s.student.id: (s.score, s.max_score) for s in gb.assignment_submissions("ps1")}
                names = {s.id: (s.first_name, s.last_name) for s in gb.students}
            # ada keeps what she was given, eve has what her code earns
            assert scores == {n["ada"]: (max_code + 5, total), n["bob"]: (0, total),
                              n["eve"]: (max_code, total),
                              n["cora"]: (pytest.approx(cora_code), total)}, scores
            # eve's feedback, as anyone's browser shows it: none of her attacks runs
            viewer = teacher.context.new_page()
            watch = watch_for_attacks(viewer)
            viewer.goto((course_dir / "feedback" / n["eve"] / "ps1" / "ps1.html")
                        .as_uri())
            viewer.wait_for_load_state("load")
            viewer.wait_for_timeout(1000)
            seen = attacks_seen(viewer.main_frame)
            viewer.close()
            assert "My answer." in seen["shown"], seen
            assert "bold output" in seen["shown"], seen
            assert seen["pwned"] is None and seen["live"] == [], seen
            assert watch["dialogs"] == [] and watch["pwned"] == [], watch
            assert names == {n[who]: full for who, full in NGSHARE_CLASS.items()}, names

            # -- cora fetches her feedback through ngshare: it names her own variant ----
            done = run_as(hub, n["cora"], "nbgrader", "fetch_feedback", "ps1",
                          "--course", COURSE, token=True)
            assert done.returncode == 0, done.stdout + done.stderr
            fetched = list((cora_home / "ps1" / "feedback").glob("*/ps1.html"))
            assert len(fetched) == 1, fetched
            hers = html.unescape(fetched[0].read_text())
            expected = f"{n['cora']} ({variant['cora'].label})"
            assert f"Variant for {expected}, as the grader drew it." in hers
            assert f"Graded on the variant of {expected}." in hers
            assert variant["ada"].label not in hers

            # -- ada reads her feedback in the Assignments tab -------------------------
            refresh_assignments(ada)
            assignment_row(ada, "submitted").locator('button:text("Fetch Feedback")').click()
            ada.wait_for_selector('#submitted_assignments_list a:text("view feedback")')
            ada.click('#submitted_assignments_list a:text("view feedback")')
            ada.wait_for_selector('.jp-DirListing-item:has-text("ps1.html")')
            ada.dblclick('.jp-DirListing-item:has-text("ps1.html")')
            frame = ada.frame_locator(".jp-HTMLViewer iframe, .jp-RenderedHTML iframe").first
            # the viewer's frame has a body before the page is written into it
            frame.locator("#toc").wait_for()
            feedback = frame.locator("body").inner_text()
            shot(ada, "ada-feedback")
            assert f"{max_code + 5:.1f} / {total:.1f}" in feedback, feedback[:2000]
            # its maths reads as it is, without "Trust HTML" (MathML, no script), and
            # its contents list names a grader's comment after its part
            assert frame.locator("math").count() > 0, "no MathML in the feedback"
            assert not re.search(r"\\(frac|langle|mathbb)|\$\$", feedback), feedback[:2000]
            contents = frame.locator("#toc").inner_text()
            assert not re.search(r"^\s*Comment\s*$", contents, flags=re.M), contents

            # -- the book, from the hub's Services menu ----------------------------------
            ada.goto(hub["url"] + "/hub/home")
            ada.click('a.dropdown-toggle:has-text("Services")')
            ada.click('a.dropdown-item:has-text("book")')
            ada.wait_for_selector(f'h1:text("{BOOK_MARKER}")')
        except Exception:
            for who, page in pages.items():
                try:
                    shot(page, f"failed-{who}")
                except Exception:
                    pass
            raise
        finally:
            browser.close()


def test_hub_ngshare_keeps_students_apart(ngshare_hub):
    """After the class above: bob, with his own hub token, tries ngshare's API for
    ada's submission and feedback, the student list, releasing and collecting, and
    tries to read the course folder and ada's home as his Unix user."""
    hub, n, s = ngshare_hub, ngshare_hub["names"], ngshare_hub["settings"]
    token = hubpy("token", hub["state"], n["bob"]).stdout.strip()
    api = hub["url"] + "/services/ngshare"

    def call(method, path, token=token, params=None, **data):
        r = requests.request(method, f"{api}/{path}", headers={"Authorization": f"token {token}"},
                             params=params, data=data, timeout=60)
        return r.json()

    def stamp(student, token=token):
        return call("GET", f"submissions/{COURSE}/ps1/{student}", token)["submissions"][0]["timestamp"]

    # bob's own material comes through, so each refusal below is about whose it is
    assert call("GET", f"assignments/{COURSE}")["success"]
    assert [f["path"] for f in call("GET", f"assignment/{COURSE}/ps1")["files"]] == ["ps1.ipynb"]
    mine = call("GET", f"feedback/{COURSE}/ps1/{n['bob']}", params={"timestamp": stamp(n["bob"])})
    assert mine["success"] and [f["path"] for f in mine["files"]] == ["ps1.html"], mine
    # the instructor sees both submissions; bob is even given ada's exact timestamp
    teacher = hubpy("token", hub["state"], n["teacher"]).stdout.strip()
    listed = call("GET", f"submissions/{COURSE}/ps1", teacher)["submissions"]
    assert sorted(sub["student_id"] for sub in listed) == sorted(
        [n["ada"], n["bob"], n["eve"], n["cora"]]), listed
    ada_stamp = stamp(n["ada"], teacher)
    refused = {}
    for method, path, params, data in (
            ("GET", f"submissions/{COURSE}/ps1", None, {}),
            ("GET", f"submissions/{COURSE}/ps1/{n['ada']}", None, {}),
            ("GET", f"submission/{COURSE}/ps1/{n['ada']}", None, {}),
            ("GET", f"feedback/{COURSE}/ps1/{n['ada']}", {"timestamp": ada_stamp}, {}),
            ("GET", f"students/{COURSE}", None, {}),
            ("POST", f"assignment/{COURSE}/ps9", None, {"files": json.dumps([])}),
            ("DELETE", f"assignment/{COURSE}/ps1", None, {}),
            ("POST", f"feedback/{COURSE}/ps1/{n['ada']}", None,
             {"timestamp": ada_stamp, "files": json.dumps([])})):
        answer = call(method, path, params=params, **data)
        refused[f"{method} {path}"] = answer["success"] is False
    assert all(refused.values()), refused
    # and nothing of ada's changed: her feedback is still there for her
    ada = hubpy("token", hub["state"], n["ada"]).stdout.strip()
    hers = call("GET", f"feedback/{COURSE}/ps1/{n['ada']}", ada, params={"timestamp": ada_stamp})
    assert [f["path"] for f in hers["files"]] == ["ps1.html"], hers

    # as Unix user bob: the course folder and ada's home are closed to him
    course_dir = s["course_dirs"][n["teacher"]]
    ada_home = pwd.getpwnam(n["ada"]).pw_dir
    for path in (f"{course_dir}/gradebook.db", f"{course_dir}/.grader_secret",
                 f"{course_dir}/source/ps1/ps1.ipynb", f"{ada_home}/ps1/ps1.ipynb"):
        done = subprocess.run(["runuser", "-u", n["bob"], "--", "cat", path],
                              capture_output=True, text=True)
        assert done.returncode == 1 and "Permission denied" in done.stderr, (path, done.stderr)
    done = subprocess.run(["runuser", "-u", n["bob"], "--", "ls", ada_home],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "Permission denied" in done.stderr, done.stderr


NGSHARE_HEADERS = {"content-type": "application/json; charset=utf-8",
                   "x-content-type-options": "nosniff",
                   "content-security-policy": "default-src 'none'; frame-ancestors 'none'"}


def test_hub_ngshare_answers_data_no_browser_runs(ngshare_hub):
    """ada submits, with her own token, files named as markup, with a quote, a
    backslash, a control character, hidden or under timestamp.txt: refused, each
    named with its character and a name to rename it to; files named as people name
    them (an apostrophe, spaces, accents) go in whole. Every answer of ngshare the instructor's browser can get
    (a listing, an error, a 404, its former login) is JSON with nosniff and a CSP
    that runs nothing; in Chromium, the instructor logged in to the hub opens them
    with the attack's script in the hash, and nothing runs and no ngshare cookie is
    set; a browser sending the instructor's token opens a listing that does hold
    the markup name, and sees it as text."""
    from playwright.sync_api import sync_playwright

    hub, n = ngshare_hub, ngshare_hub["names"]
    api = hub["url"] + "/services/ngshare"
    tokens = {who: hubpy("token", hub["state"], n[who]).stdout.strip()
              for who in ("ada", "teacher")}

    def call(method, path, who, **data):
        return requests.request(method, f"{api}/{path}", data=data, timeout=60,
                                headers={"Authorization": f"token {tokens[who]}"})

    def encoded(text):
        import base64
        return base64.b64encode(text.encode()).decode()

    notebook = {"path": "psn.ipynb", "content": encoded("{}")}
    released = call("POST", f"assignment/{COURSE}/psn", "teacher", files=json.dumps([notebook]))
    assert released.json()["success"], released.text
    try:
        for name, character in REFUSED_FILE_NAMES.items():
            r = call("POST", f"submission/{COURSE}/psn", "ada",
                     files=json.dumps([notebook, {"path": name, "content": encoded("x")}]))
            assert r.status_code == 400 and r.json()["success"] is False, (name, r.text)
            # the student is told the file, the character and what to rename it to
            assert r.json()["message"] == plain_paths.refusal(name), r.text
            assert character in r.json()["message"], r.text
        # an honest submission with a data file in a folder and names as people
        # write them goes in, and is listed (JupyterLab's checkpoint, which
        # nbgrader's submit sends, left out)
        honest = ["data/points.csv", *HONEST_FILE_NAMES]
        r = call("POST", f"submission/{COURSE}/psn", "ada",
                 files=json.dumps([notebook, *({"path": name, "content": encoded(name)}
                                               for name in honest),
                                   {"path": ".ipynb_checkpoints/psn-checkpoint.ipynb",
                                    "content": encoded("{}")}]))
        assert r.json()["success"], r.text
        listing_path = f"submission/{COURSE}/psn/{n['ada']}?list_only=true"
        listed = call("GET", listing_path, "teacher")
        assert sorted(f["path"] for f in listed.json()["files"]) == sorted(honest + ["psn.ipynb"])
        got = call("GET", f"submission/{COURSE}/psn/{n['ada']}", "teacher").json()["files"]
        assert {f["path"]: base64.b64decode(f["content"]).decode() for f in got
                if f["path"] in honest} == {name: name for name in honest}
        # every answer: the listing, refusals, a 404, with a token and without
        answers = {"listing": listed,
                   "listing, no token": requests.get(f"{api}/{listing_path}", timeout=60),
                   "refused": call("GET", f"submission/{COURSE}/psn/{n['teacher']}", "ada"),
                   "404": call("GET", MARKUP_FILE_NAME, "teacher"),
                   "405": call("PUT", "courses", "teacher"),
                   "home": requests.get(f"{api}/", timeout=60, allow_redirects=False),
                   "login": requests.get(f"{api}/oauth_callback?code=x", timeout=60,
                                         allow_redirects=False)}
        for what, r in answers.items():
            got = {k: r.headers.get(k) for k in NGSHARE_HEADERS}
            assert got == NGSHARE_HEADERS, (what, r.status_code, got)
            assert "set-cookie" not in r.headers, (what, r.headers)
            assert r.json()["success"] is (what == "listing"), (what, r.text)
        assert answers["login"].status_code == 404

        # the instructor's browser, logged in to the hub, opens each with a script
        script = "document.title='PWNED';window.pwned=1"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = log_in(browser, hub, "teacher")
                dialogs = []
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                for path in (listing_path, f"submissions/{COURSE}/psn", MARKUP_FILE_NAME,
                             "oauth_callback", ""):
                    page.goto(f"{api}/{path}#{script}")
                    page.wait_for_load_state("load")
                    seen = page.evaluate("() => [document.contentType, document.title, "
                                         "String(window.pwned), document.cookie]")
                    assert seen[0] == "application/json" and seen[1] != "PWNED" \
                        and seen[2] == "undefined", (path, seen)
                    assert "ngshare" not in seen[3], (path, seen)
                assert dialogs == []
                cookies = page.context.cookies()
                assert not [c for c in cookies if c["name"].startswith("ngshare")], cookies
                # a listing that does hold her markup as a name (a release: the wrapper
                # checks submissions only), read by a browser that sends the token
                planted = call("POST", f"assignment/{COURSE}/psm", "teacher", files=json.dumps(
                    [notebook, {"path": MARKUP_FILE_NAME, "content": encoded("x")}]))
                assert planted.json()["success"], planted.text
                context = browser.new_context(extra_http_headers={
                    "Authorization": f"token {tokens['teacher']}"})
                reader = context.new_page()
                reader.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                reader.goto(f"{api}/assignment/{COURSE}/psm?list_only=true#{script}")
                reader.wait_for_load_state("load")
                seen = reader.evaluate("() => [document.contentType, document.title, "
                                       "String(window.pwned), document.body.innerText]")
                assert MARKUP_FILE_NAME in seen[3], seen   # shown, as text
                assert seen[:3] == ["application/json", "", "undefined"] and dialogs == [], seen
            finally:
                browser.close()
    finally:
        for problem_set in ("psn", "psm"):
            call("DELETE", f"assignment/{COURSE}/{problem_set}", "teacher")


def test_hub_database_on_postgresql(ngshare_hub):
    """The hub keeps its users, and the instructor's nbgrader its gradebook, in the
    PostgreSQL databases the settings name, not in SQLite."""
    import psycopg

    hub, n = ngshare_hub, ngshare_hub["names"]
    assert hub["db_url"].startswith("postgresql+psycopg://")
    assert not (Path(hub["state"]) / "hub.sqlite").exists()
    with psycopg.connect(hub["db_url"].replace("postgresql+psycopg://", "postgresql://")) as conn:
        users = {row[0] for row in conn.execute("SELECT name FROM users")}
        services = {row[0] for row in conn.execute("SELECT name FROM services")}
    assert set(hub["names"].values()) <= users, users
    assert {"ngshare", "book"} <= services, services
    # the course set-up registered ps1 and the students in the PostgreSQL gradebook
    course_dir = Path(hub["settings"]["course_dirs"][n["teacher"]])
    assert not (course_dir / "gradebook.db").exists()
    with gradebook(hub) as gb:
        assert {s.id for s in gb.students} == {n["ada"], n["bob"], n["eve"], n["cora"]}
        assert [a.name for a in gb.assignments] == ["ps1"]


def test_hub_state_is_root_only(ngshare_hub, folder_hub):
    """A student who finds the hub's folder (its paths are on ngshare's command line,
    which ps shows) cannot list it or read the database URLs, tokens or ngshare's files."""
    for hub in (ngshare_hub, folder_hub):
        state, student = hub["state"], hub["names"]["ada"]
        for argv in (["ls", state], ["cat", f"{state}/settings.json"],
                     ["cat", f"{state}/setup_token"], ["ls", f"{state}/ngshare-files"]):
            done = subprocess.run(["runuser", "-u", student, "--", *map(str, argv)],
                                  capture_output=True, text=True)
            assert done.returncode != 0 and "Permission denied" in done.stderr, (argv, done.stderr)


# -- Formgrader grading a slow submission -----------------------------------------
#: ada's extra cells, each sleeping this many seconds: together past the course's
#: budget for the notebook's run (c.JudgeSubmission.budget in
#: assignments/nbgrader_config.py), as the slow cells a tester handed in
SLOW_CELLS, SLOW_SECONDS = 3, 25


def teacher_server(hub):
    """A requests session logged in to the instructor's own server, its URL and its
    ``_xsrf``, as his browser has them once Formgrader is open."""
    n = hub["names"]
    token = hubpy("token", hub["state"], n["teacher"]).stdout.strip()
    users = f"{hub['url']}/hub/api/users/{n['teacher']}"
    auth = {"Authorization": f"token {token}"}
    requests.post(f"{users}/server", headers=auth, timeout=60)   # started, if it was not
    deadline = time.monotonic() + 300
    while True:
        model = requests.get(users, headers=auth, timeout=60).json()
        if model.get("server") and not model.get("pending"):
            break
        assert time.monotonic() < deadline, f"his server did not start: {model}"
        time.sleep(0.5)
    session, _ = hub_session(hub, n["teacher"])
    server = f"{hub['url']}/user/{n['teacher']}"
    while True:     # his browser's session reaches his server (the hub's OAuth)
        page = session.get(f"{server}/formgrader/manage_assignments", timeout=60)
        if page.status_code == 200 and page.url.startswith(server) and \
                "formgrader" in page.url:
            break
        assert time.monotonic() < deadline, (page.status_code, page.url)
        time.sleep(2)
    xsrf = [c.value for c in session.cookies
            if c.name == "_xsrf" and c.path.startswith(f"/user/{n['teacher']}")]
    assert xsrf, list(session.cookies)
    return session, server, xsrf[0]


def test_formgrader_autograde_leaves_the_instructors_server_answering(ngshare_hub):
    """ada hands in, straight to ngshare with her token, her answers and three cells
    of 25 s each; the instructor collects and autogrades her through Formgrader's
    API, as its buttons do (his session cookie and _xsrf). While the autograde runs
    his server lists his files within 5 s every time; the autograde's box says the
    notebook's run was stopped by its budget, her autograded notebook says so at
    the cell where it stopped, and her scores are the reference answers' (all)."""
    hub, n = ngshare_hub, ngshare_hub["names"]
    root = Path(hub["settings"]["course_dirs"][n["teacher"]])
    released = nbformat.read(root / "release" / "ps1" / "ps1.ipynb", as_version=4)
    mine = fill_answers(released, source_notebook(hub))
    first_slow = len(mine.cells)
    for k in range(SLOW_CELLS):
        mine.cells.append(nbformat.v4.new_code_cell(
            f"import time\nfor _ in range({SLOW_SECONDS}):\n    time.sleep(1)\n"
            "print('done thinking')", id=f"slow{k}"))
    token = hubpy("token", hub["state"], n["ada"]).stdout.strip()
    files = [{"path": "ps1.ipynb",
              "content": base64.b64encode(nbformat.writes(mine).encode()).decode()}]
    sent = requests.post(f"{hub['url']}/services/ngshare/submission/{COURSE}/ps1",
                         data={"files": json.dumps(files)}, timeout=120,
                         headers={"Authorization": f"token {token}"})
    assert sent.json()["success"], sent.text

    session, server, xsrf = teacher_server(hub)
    api = f"{server}/formgrader/api"
    collected = session.post(f"{api}/assignment/ps1/collect", timeout=300,
                             headers={"X-XSRFToken": xsrf})
    assert collected.status_code == 200 and collected.json()["success"], collected.text

    graded = {}

    def autograde():
        start = time.monotonic()
        graded["answer"] = session.post(f"{api}/submission/ps1/{n['ada']}/autograde",
                                        timeout=900, headers={"X-XSRFToken": xsrf})
        graded["seconds"] = time.monotonic() - start

    lister = requests.Session()
    lister.cookies.update(session.cookies)
    import threading
    grader = threading.Thread(target=autograde)
    grader.start()
    listings = []
    while grader.is_alive():
        start = time.monotonic()
        try:
            listed = lister.get(f"{server}/api/contents", timeout=30)
            listings.append((round(time.monotonic() - start, 2), listed.status_code))
        except requests.RequestException as exc:
            listings.append((round(time.monotonic() - start, 2), repr(exc)))
        time.sleep(0.5)
    grader.join()

    answer = graded["answer"]
    print(f"autograde: {graded['seconds']:.1f} s; file listings meanwhile (s, status): "
          f"{listings}")
    assert answer.status_code == 200, answer.text[:2000]
    result = answer.json()
    assert result["success"], result
    # the grading did take the notebook's budget: long enough to matter
    assert graded["seconds"] > 25, graded
    assert "took more than 30 s in all" in result["log"], result["log"]
    # his server answered all along
    assert len(listings) >= 10, listings
    assert all(status == 200 and seconds < 5 for seconds, status in listings), listings
    # her scores, the reference answers' whole
    with gradebook(hub) as gb:
        sub = gb.find_submission_notebook("ps1", "ps1", n["ada"])
        assert sub.max_code_score > 0 and sub.code_score == sub.max_code_score, \
            (sub.code_score, sub.max_code_score)
    # the notebook says where the run stopped and why
    autograded = nbformat.read(root / "autograded" / n["ada"] / "ps1" / "ps1.ipynb",
                               as_version=4)
    stops = [(i, o.get("evalue", "")) for i, c in enumerate(autograded.cells)
             if c.cell_type == "code" for o in c.outputs
             if o.get("ename") == "KernelStopped"]
    assert len(stops) == 1 and stops[0][0] >= first_slow, stops
    assert "took more than 30 s in all" in stops[0][1], stops


# -- a student looking for the instructor's secrets on the server -----------------
SNOOP = r"""
import json, os, re, subprocess, sys
prefix, secret = sys.argv[1:3]
me = os.getuid()
out = {}
def sh(command):
    return subprocess.run(command, shell=True, capture_output=True, text=True)
# every Python on the server, found as a student would find them, and the known ones
found = sh("find / \\( -path /proc -o -path /sys -o -path /dev -o -path /run \\) -prune "
           "-o \\( -type f -o -type l \\) -name 'python*' -print 2>/dev/null").stdout.split()
pythons = sorted({p for p in found if re.search(r"/python3?(\.\d+)?$", p) and os.access(p, os.X_OK)}
                 | {f"{prefix}/{env}/bin/python" for env in ("hub", "ngshare", "student", "instructor")}
                 | {"/usr/bin/python3", sh("bash -lc 'command -v python'").stdout.strip()})
out["pythons"] = pythons
def imports_coursegrader(python):
    try:
        run = subprocess.run([python, "-c", "import coursegrader"], capture_output=True)
    except OSError:   # a Python this user may not even start
        return False
    return run.returncode == 0
out["imports coursegrader"] = [p for p in pythons if imports_coursegrader(p)]
# files by name: the grader, the course secret, the gradebook, the problem sets' sources
out["found by name"] = sh(
    "find / \\( -path /proc -o -path /sys -o -path /dev -o -path /run \\) -prune -o "
    "\\( -name coursegrader -o -name .grader_secret -o -name 'gradebook*.db' "
    "-o -name 'ps[0-9].md' \\) -print 2>/dev/null").stdout.split()
# files by content: the course secret itself, the hidden tests of the sources
# (they import coursegrader), ps1's answer key; written in two pieces here, so that
# this script does not find itself
hidden, key = "from course" + "grader import", "VERDICTS" + " = {"
out["found by content"] = sh(
    f"grep -rlsIF -e {secret} -e '{hidden}' -e '{key}' "
    "/home /srv /opt /tmp /var /etc 2>/dev/null").stdout.split()
# other users' processes (hidepid)
pids = [d for d in os.listdir("/proc") if d.isdigit()]
def owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:   # the process has ended
        return me
out["processes of others"] = sum(1 for d in pids if owner(d) != me)
out["login PATH"] = sh("bash -lc 'command -v nbgrader python'").stdout.split()
print(json.dumps(out))
"""


def other_checkouts(paths):
    """The paths inside clones of this repository other than the one the server is
    installed from (a developer's test machine has them; a server and CI do not)."""
    def clone_of(path):
        for parent in Path(path).parents:
            if (parent / ".git").exists() and (parent / "kernlab").is_dir():
                return parent
        return None
    return [p for p in paths if clone_of(p) not in (None, ROOT)]


def test_hub_student_finds_no_secrets(ngshare_hub):
    """After the class: bob, logged in as himself, tries to import coursegrader from
    every Python on the server and searches the whole filesystem for the grader,
    the solutions, the hidden cases, the gradebook and the course secret."""
    n, s = ngshare_hub["names"], ngshare_hub["settings"]
    script = Path(s["state_dir"]).parent / "snoop.py"
    script.write_text(SNOOP)
    os.chmod(script, 0o644)
    course_dir = Path(s["course_dirs"][n["teacher"]])
    secret = (course_dir / ".grader_secret").read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    done = subprocess.run(["runuser", "-u", n["bob"], "--", "bash", "-lc",
                           f"cd && python {script} {s['prefix']} {secret}"],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # his login shell has the students' environment, which is one of those tried
    assert seen["login PATH"] == [f"{s['prefix']}/student/bin/nbgrader",
                                  f"{s['prefix']}/student/bin/python"], seen["login PATH"]
    assert f"{s['prefix']}/instructor/bin/python" in seen["pythons"]
    assert "/usr/bin/python3" in seen["pythons"]
    assert seen["imports coursegrader"] == [], seen["imports coursegrader"]
    # nbgrader's own package carries a gradebook of its tests; not the course's
    for key in ("found by name", "found by content"):
        found = [p for p in seen[key] if p not in other_checkouts(seen[key])
                 and "/site-packages/nbgrader/tests/" not in p]
        assert found == [], (key, found)
    if "hidepid=" in Path("/proc/mounts").read_text():   # where the server allows it
        assert seen["processes of others"] == 0, seen["processes of others"]


def _hub_leftovers(hub, uids):
    """Live processes of ``hub``: its own, its proxy's (its port), its services' (its
    state folder) and those of the users ``uids``."""
    # the port as a whole word: it may have one or two digits (hub.py init)
    marks = (str(hub["state"]), f"--port {hub['settings']['port']} ")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if state != "Z" and (entry.stat().st_uid in uids or any(m in cmd for m in marks)):
                found.append((int(entry.name), cmd[:150]))
        except (OSError, IndexError):
            continue
    return found


def test_hub_killed_then_stopped_leaves_nothing_running(ngshare_hub):
    """A hub killed with SIGKILL (the OOM killer, a careless kill -9) leaves its proxy,
    ngshare and its users' servers running; ``hub.py stop`` then stops every one of
    them, and ``hub.py start`` brings the course back."""
    state, n = ngshare_hub["state"], ngshare_hub["names"]
    pid = int((state / "hub-process.pid").read_text())
    uids = {pwd.getpwnam(name).pw_uid for name in n.values()}
    os.kill(pid, signal.SIGKILL)
    time.sleep(1)
    left = _hub_leftovers(ngshare_hub, uids)
    assert pid not in [p for p, _ in left]
    assert any("configurable-http-proxy" in cmd for _, cmd in left), left
    assert any("ngshare" in cmd for _, cmd in left), left
    hubpy("stop", state)
    deadline = time.monotonic() + 30
    while _hub_leftovers(ngshare_hub, uids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _hub_leftovers(ngshare_hub, uids) == []
    hubpy("start", state)
    assert requests.get(ngshare_hub["url"] + "/hub/health", timeout=10).ok


# -- a whole class submitting at once, and the hub restarted meanwhile ------------
def load_round(hub, round_no, restart_at=None):
    """A round of deploy/class_load.py on ``hub``: every student submits within a
    minute (a quarter of them twice) while the instructor collects; what was
    submitted, what ngshare lists, what the course folder holds."""
    sys.path.insert(0, str(DEPLOY))
    import class_load

    s = hub["settings"]
    twice = set(s["students"][::4])
    out = class_load.run_round(s, hub["state"], Path(hub["state"]).parent / "load",
                               round_no=round_no, twice=twice, restart_at=restart_at)
    return (out, twice, class_load.latest_in_ngshare(s, out["teacher_token"]),
            class_load.collected(s))


def check_round(hub, round_no, out, twice, listed, held):
    students = hub["settings"]["students"]
    records = out["records"]
    # every submission went in, each student's versions in order
    assert all(r["timestamp"] for r in records), [
        r for r in records if not r["timestamp"]]
    assert sorted((r["student"], r["version"]) for r in records) == sorted(
        [(name, 1) for name in students] + [(name, 2) for name in twice])
    mine = {name: max((r for r in records if r["student"] == name),
                      key=lambda r: r["version"]) for name in students}
    # ngshare has every student's, the latest being the last one each made
    assert set(listed) == set(students), set(students) ^ set(listed)
    for name in students:
        assert listed[name][1] == mine[name]["timestamp"], (name, listed[name],
                                                            mine[name])
    # the instructor holds each student's latest, once, in the student's own folder
    assert set(held) == set(students), set(students) ^ set(held)
    for name in students:
        version = 2 if name in twice else 1
        marker, stamp, files = held[name]
        assert marker == f"{name} round {round_no} version {version}", (name, marker)
        assert stamp == mine[name]["timestamp"], (name, stamp, mine[name]["timestamp"])
        assert files == ["ps1.ipynb", "submission_time.json", "timestamp.txt"], (name, files)


def test_hub_class_submits_at_once(load_hub):
    """40 students submit ps1 through ngshare within a minute, ten of them twice,
    while the instructor collects with --update every few seconds: each student's
    latest submission is collected, into their own folder, once."""
    out, twice, listed, held = load_round(load_hub, 1)
    check_round(load_hub, 1, out, twice, listed, held)
    collects = out["collects"]
    assert collects and all(status == 0 for status in collects), collects


def test_hub_class_submits_through_a_restart(load_hub):
    """The same class submits again while the hub (with its proxy and ngshare) is
    stopped and started in the middle: the submissions refused meanwhile are tried
    again and go in, and the latest of each student is collected."""
    pid = Path(load_hub["state"], "hub-process.pid").read_text()
    out, twice, listed, held = load_round(load_hub, 2, restart_at=20)
    # the hub was restarted (a new process) while the class submitted
    assert Path(load_hub["state"], "hub-process.pid").read_text() != pid
    check_round(load_hub, 2, out, twice, listed, held)
    # nothing went in twice by mistake or got lost: ngshare holds at least this
    # round's submissions of each student
    assert all(listed[name][0] >= 1 + (name in twice) for name in listed), listed
