"""LTI 1.3 end to end: a launch from the LMS logs in to the hub, scores go back.

The test runs a small LTI 1.3 platform on 127.0.0.1 (:class:`Platform`): its
RSA key and public keyset (JWKS), an OpenID Connect authentication endpoint
that signs the id_token of a launch, an OAuth2 token endpoint that grants
access tokens for a client_credentials request whose JWT assertion it checks
against the tool's public keyset (printed by ``make lti_key``, as an LMS is
given it), the course's members (Names and Role Provisioning) and line items
and scores (Assignment and Grade Services) that record what they receive.

- A real JupyterHub from ``deploy/requirements-hub.txt`` (the course server's,
  installed once per run by deploy/install.sh, with configurable-http-proxy
  from npm; run as root, as the other hub tests), started
  with ``deploy/jupyterhub_config.py`` and the settings ``"auth": "lti"``:
  a student and the instructor launch from the LMS; the test checks the
  hub user, their group in the hub's database, and what is refused.
- ``make lti_scores PS=ps1`` in a course folder whose gradebook is nbgrader's:
  the platform receives the line item and the scores after the late policy,
  for the LMS's user ids; students on one side only are listed.
"""

import datetime as dt
import html
import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from nbgrader.api import Gradebook

from conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COURSE = ROOT / "assignments"
CLIENT_ID = "kernel-course-tool"
DEPLOYMENT = "deployment-1"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER, INSTRUCTOR = f"{MEMBERSHIP}#Learner", f"{MEMBERSHIP}#Instructor"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
SCOPE_LINEITEM, SCOPE_SCORE = AGS + "lineitem", AGS + "score"
SCOPES_NRPS = ("https://purl.imsglobal.org/spec/lti-nrps/scope/"
               "contextmembership.readonly")
SCOPES = {SCOPE_LINEITEM, AGS + "lineitem.readonly", SCOPE_SCORE, SCOPES_NRPS}
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

# the LMS course: login hint -> (sub, sis id, name, role)
PEOPLE = {
    "hint-ada": ("a1f0c3d2-ada", "ada", "Ada Example", LEARNER),
    "hint-bob": ("b2e1d4c3-bob", "bob", "Bob Example", LEARNER),
    "hint-dan": ("d4c3b2a1-dan", "dan", "Dan Example", LEARNER),  # not in the gradebook
    "hint-tea": ("t9e8a7c6-tea", "teacher", "Tea Cher", INSTRUCTOR),
}
# learners of the LMS course who try to be someone else (not in its roster lists)
IMPOSTORS = {
    "hint-eve": ("e5f6a7b8-eve", "bob", "Eve Example", LEARNER),   # bob's SIS id
    "hint-upper": ("c7d8e9f0-upper", "ADA", "Ada Upper", LEARNER),  # ada's, in capitals
    "hint-nosis": ("ada", None, "No Sis", LEARNER),                # no SIS id; sub "ada"
    "hint-renamed": ("a1f0c3d2-ada", "bob", "Ada Example", LEARNER),  # ada, SIS id changed
}


# -- the platform ----------------------------------------------------------------
class Platform:
    """An LTI 1.3 platform (the LMS side) on a free loopback port."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "platform-" + secrets.token_hex(4)
        self.redirect_uris = set()
        self.tool_jwks = None           # what the tool's registration gave
        self.tokens = {}                # access token -> granted scopes
        self.refused_tokens = []
        self.lineitems = []
        self.scores = []                # (line item id, score as received)
        self.launch_roles = {}          # login hint -> roles claim of the next launch
        self.launch_deployment = DEPLOYMENT
        self.lock = threading.Lock()

    def jwks(self):
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [dict(jwk, kid=self.kid, alg="RS256", use="sig")]}

    def id_token(self, hint, nonce, target):
        sub, sis_id, name, role = {**PEOPLE, **IMPOSTORS}[hint]
        now = int(time.time())
        claims = {
            "iss": self.url, "aud": CLIENT_ID, "sub": sub, "iat": now, "exp": now + 300,
            "nonce": nonce, "name": name, "email": f"{sis_id}@uni.example",
            CLAIM + "version": "1.3.0",
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "deployment_id": self.launch_deployment,
            CLAIM + "target_link_uri": target,
            CLAIM + "resource_link": {"id": "link-1"},
            CLAIM + "roles": self.launch_roles.get(hint, [role]),
            CLAIM + "context": {"id": "course-7", "label": "KM",
                                "title": "Kernel methods"},
            **({CLAIM + "lis": {"person_sourcedid": sis_id},
                CLAIM + "custom": {"sis_id": sis_id}} if sis_id is not None else {}),
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": sorted(SCOPES - {SCOPES_NRPS}),
                "lineitems": self.url + "/lineitems"},
        }
        return jwt.encode(claims, self.key, algorithm="RS256",
                          headers={"kid": self.kid})

    def members(self):
        return [{"user_id": sub, "lis_person_sourcedid": sis_id, "name": name,
                 "email": f"{sis_id}@uni.example", "roles": [role], "status": "Active"}
                for sub, sis_id, name, role in PEOPLE.values()]

    def grant(self, form):
        """An access token for a client_credentials request, or None."""
        if (form.get("grant_type") != "client_credentials" or form.get(
                "client_assertion_type")
                != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"):
            return None
        assertion = form.get("client_assertion", "")
        try:
            kid = jwt.get_unverified_header(assertion).get("kid")
            jwk = next(k for k in (self.tool_jwks or {"keys": []})["keys"]
                       if k.get("kid") == kid)
            claims = jwt.decode(assertion, jwt.PyJWK(jwk).key, algorithms=["RS256"],
                                audience=self.url + "/token", issuer=CLIENT_ID)
        except (StopIteration, jwt.PyJWTError):
            self.refused_tokens.append(assertion)
            return None
        if claims.get("sub") != CLIENT_ID:
            return None
        token = secrets.token_hex(16)
        self.tokens[token] = set(form.get("scope", "").split()) & SCOPES
        return token


def handler_for(platform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body=None, ctype="application/json"):
            data = b"" if body is None else (
                body.encode() if isinstance(body, str) else json.dumps(body).encode())
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def scoped(self, *needed):
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            granted = platform.tokens.get(token, set())
            return any(s in granted for s in needed)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            q = dict(urllib.parse.parse_qsl(url.query))
            if url.path == "/jwks":
                return self.reply(200, platform.jwks())
            if url.path == "/auth":
                ok = (q.get("client_id") == CLIENT_ID and q.get("scope") == "openid"
                      and q.get("response_type") == "id_token"
                      and q.get("response_mode") == "form_post"
                      and q.get("redirect_uri") in platform.redirect_uris
                      and q.get("login_hint") in {**PEOPLE, **IMPOSTORS}
                      and q.get("nonce"))
                if not ok:
                    return self.reply(400, "bad authentication request", "text/plain")
                token = platform.id_token(q["login_hint"], q["nonce"],
                                          q.get("target_link_uri", ""))
                form = "".join(
                    f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                    for k, v in (("id_token", token), ("state", q["state"])))
                action = html.escape(q["redirect_uri"])
                page = f'<form method="post" action="{action}">{form}</form>'
                return self.reply(200, page, "text/html")
            if url.path == "/memberships":
                if not self.scoped(SCOPES_NRPS):
                    return self.reply(401, {"error": "invalid_token"})
                return self.reply(
                    200, {"id": platform.url + "/memberships",
                          "context": {"id": "course-7"}, "members": platform.members()},
                    "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
            if url.path == "/lineitems":
                if not self.scoped(*[s for s in SCOPES if "lineitem" in s]):
                    return self.reply(401, {"error": "invalid_token"})
                return self.reply(200, platform.lineitems,
                                  "application/vnd.ims.lis.v2.lineitemcontainer+json")
            return self.reply(404, "not found", "text/plain")

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            if url.path == "/token":
                token = platform.grant(dict(urllib.parse.parse_qsl(body)))
                if token is None:
                    return self.reply(401, {"error": "invalid_client"})
                granted = " ".join(sorted(platform.tokens[token]))
                return self.reply(200, {"access_token": token, "token_type": "Bearer",
                                        "expires_in": 3600, "scope": granted})
            if url.path == "/lineitems":
                if not self.scoped(SCOPE_LINEITEM):
                    return self.reply(401, {"error": "invalid_token"})
                with platform.lock:
                    number = len(platform.lineitems) + 1
                    item = dict(json.loads(body),
                                id=f"{platform.url}/lineitems/{number}")
                    platform.lineitems.append(item)
                return self.reply(201, item, "application/vnd.ims.lis.v2.lineitem+json")
            found = re.fullmatch(r"/lineitems/(\d+)/scores", url.path)
            if found:
                if (not self.scoped(SCOPE_SCORE)
                        or self.headers.get("Content-Type")
                        != "application/vnd.ims.lis.v1.score+json"):
                    return self.reply(401, {"error": "invalid_token"})
                with platform.lock:
                    platform.scores.append((f"{platform.url}/lineitems/{found[1]}",
                                            json.loads(body)))
                return self.reply(204)
            return self.reply(404, "not found", "text/plain")

    return Handler


@pytest.fixture(scope="module")
def platform():
    p = Platform()
    server = ThreadingHTTPServer(("127.0.0.1", p.port), handler_for(p))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield p
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# -- the hub ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def hub_prefix(installed):
    """The hub's environment and the proxy: those of the course server, installed
    once per run by deploy/install.sh (conftest's ``installed``) for every hub the
    tests start."""
    return installed


def write_settings(path, platform_url):
    path.write_text(json.dumps({
        "issuer": platform_url, "client_id": CLIENT_ID, "deployment_id": DEPLOYMENT,
        "authorize_url": platform_url + "/auth", "jwks_url": platform_url + "/jwks"}))


@pytest.fixture(scope="module")
def lti_login():
    """deploy/lti_login.py (next to roles.py, which it imports)."""
    sys.path.insert(0, str(DEPLOY))
    try:
        import lti_login
        yield lti_login
    finally:
        sys.path.remove(str(DEPLOY))


@pytest.fixture(scope="module")
def hub(hub_prefix, platform, lti_login):
    work = Path(tempfile.mkdtemp(prefix="lti-hub-"))
    proc = None
    try:
        state, book = work / "state", work / "book"
        state.mkdir()
        book.mkdir()
        (book / "index.html").write_text("<p>book</p>")
        (state / "setup_token").write_text(secrets.token_hex(32))
        write_settings(work / "lti.json", platform.url)
        settings = {
            "state_dir": str(state), "prefix": str(hub_prefix),
            "course_id": "kernel-methods", "instructors": ["teacher"],
            "students": ["ada", "bob"], "exchange": "folder",
            "exchange_root": str(work / "exchange"), "db_url": None,
            "gradebook_url": None,
            "book_dir": str(book), "port": free_port(), "hub_port": free_port(),
            "proxy_api_port": free_port(), "ngshare_port": free_port(),
            "book_port": free_port(), "course_dirs": {}, "student_names": {},
            "auth": "lti", "lti": lti_login.load_lti_settings(work / "lti.json")}
        (state / "settings.json").write_text(json.dumps(settings))
        url = f"http://127.0.0.1:{settings['port']}"
        platform.redirect_uris.add(url + "/hub/lti13/oauth_callback")
        log = open(state / "hub.log", "wb")
        env = {"PATH": f"{hub_prefix}/hub/bin:/usr/local/bin:/usr/bin:/bin",
               "LANG": "C.UTF-8",
               "KERNEL_COURSE_SETTINGS": str(state / "settings.json")}
        proc = subprocess.Popen(
            [str(hub_prefix / "hub" / "bin" / "jupyterhub"),
             "-f", str(DEPLOY / "jupyterhub_config.py")],
            cwd=state, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        for _ in range(240):
            assert proc.poll() is None, (state / "hub.log").read_text()[-4000:]
            try:
                if requests.get(url + "/hub/health", timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("JupyterHub did not answer:\n"
                        + (state / "hub.log").read_text())
        yield {"url": url, "state": state}
    finally:
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            except ProcessLookupError:
                pass
            # the proxy, started by the hub in the same session
            subprocess.run(["pkill", "-s", str(proc.pid)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def launch(hub, platform, hint, *, captured=None):
    """The LMS's launch of the tool by ``hint``'s user: (session, last reply).

    ``captured``, a dict, receives what an eavesdropper of the launch would
    hold: the form posted to the hub and the browser's cookies at that moment.
    """
    browser = requests.Session()
    start = browser.get(hub["url"] + "/hub/lti13/oauth_login", allow_redirects=False,
                        params={"iss": platform.url, "login_hint": hint,
                                "target_link_uri": hub["url"] + "/hub",
                                "client_id": CLIENT_ID,
                                "lti_deployment_id": DEPLOYMENT})
    assert start.status_code == 302, start.text
    assert start.headers["Location"].startswith(platform.url + "/auth?")
    page = browser.get(start.headers["Location"])
    assert page.status_code == 200, page.text
    action = html.unescape(re.search(r'action="([^"]+)"', page.text)[1])
    fields = {k: html.unescape(v) for k, v in
              re.findall(r'name="([^"]+)" value="([^"]*)"', page.text)}
    if captured is not None:
        captured.update(action=action, fields=dict(fields),
                        cookies=requests.utils.dict_from_cookiejar(browser.cookies))
    return browser, browser.post(action, data=fields, allow_redirects=False)


def refusals(hub):
    """The reasons the hub's log gives for the launches it refused, in order."""
    log = (hub["state"] / "hub.log").read_text(errors="replace")
    return re.findall(r"LTI launch refused: (.*)", log)


def hub_groups(hub):
    with sqlite3.connect(hub["state"] / "hub.sqlite") as db:
        rows = db.execute("SELECT users.name, groups.name FROM users "
                          "LEFT JOIN user_group_map "
                          "ON user_group_map.user_id = users.id "
                          "LEFT JOIN groups ON groups.id = user_group_map.group_id")
        found = {}
        for user, group in rows:
            found.setdefault(user, set()).update([group] if group else [])
        return found


def test_student_and_instructor_log_in_from_the_lms(hub, platform):
    for hint, user, group in (("hint-ada", "ada", "kernel-methods-students"),
                              ("hint-tea", "teacher", "kernel-methods-instructors")):
        browser, done = launch(hub, platform, hint)
        assert done.status_code == 302, done.text
        home = browser.get(hub["url"] + "/hub/home", allow_redirects=False)
        assert home.status_code == 200, home.status_code
        assert re.search(rf"\b{user}\b", home.text)
        api = browser.get(hub["url"] + "/hub/api/user")
        assert api.status_code == 200 and api.json()["name"] == user
        assert hub_groups(hub)[user] == {group}
    # the username is the roster's id (the sis_id claim), not the opaque sub
    assert not {sub for sub, *_ in PEOPLE.values()} & set(hub_groups(hub))


def test_launches_the_course_does_not_accept_are_refused(hub, platform):
    # the instructor's account, launched with a learner's role only
    platform.launch_roles["hint-tea"] = [LEARNER]
    try:
        browser, done = launch(hub, platform, "hint-tea")
        assert done.status_code == 403
        assert browser.get(hub["url"] + "/hub/api/user").status_code == 403
    finally:
        del platform.launch_roles["hint-tea"]
    # an instructor of the institution, a learner in the course: a student
    platform.launch_roles["hint-bob"] = [
        "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor", LEARNER]
    try:
        assert launch(hub, platform, "hint-bob")[1].status_code == 302
        assert hub_groups(hub)["bob"] == {"kernel-methods-students"}
    finally:
        del platform.launch_roles["hint-bob"]
    # a member of the LMS course who is not on the server's roster
    assert launch(hub, platform, "hint-dan")[1].status_code == 403
    # a launch from another deployment of the tool
    platform.launch_deployment = "deployment-elsewhere"
    try:
        assert launch(hub, platform, "hint-ada")[1].status_code == 403
    finally:
        platform.launch_deployment = DEPLOYMENT
    assert "dan" not in hub_groups(hub)


def test_an_account_is_bound_to_the_platform_user_of_its_first_launch(hub, platform):
    """Who logs in comes from the platform's sub, not from an id the user may edit."""
    for hint in ("hint-ada", "hint-bob"):          # both accounts launched once
        assert launch(hub, platform, hint)[1].status_code == 302
    # each first launch, which binds the account, is in the log for the instructor
    log = (hub["state"] / "hub.log").read_text(errors="replace")
    assert re.search(r"LTI first launch of 'bob': the account is now bound to the "
                     r"platform user 'b2e1d4c3-bob'", log), log[-2000:]
    before = hub_groups(hub)
    cases = [
        # another learner whose SIS id field holds bob's id
        ("hint-eve", "account 'bob' belongs to the platform user 'b2e1d4c3-bob'"),
        # a learner whose SIS id is ada's in capitals (the hub lower-cases names)
        ("hint-upper", "sent custom_sis_id 'ADA', which is not exactly a roster id"),
        # a learner with no SIS id at all, whose opaque sub happens to be a roster id
        ("hint-nosis", "sent no 'custom_sis_id'"),
        # ada herself, after her SIS id was changed to bob's
        ("hint-renamed", "the platform user 'a1f0c3d2-ada' is account 'ada', and now "
                         "claims 'bob'"),
    ]
    for hint, reason in cases:
        browser, done = launch(hub, platform, hint)
        assert done.status_code == 403, (hint, done.status_code)
        assert browser.get(hub["url"] + "/hub/api/user").status_code == 403
        assert reason in refusals(hub)[-1], (hint, refusals(hub)[-1])
    assert hub_groups(hub) == before
    # the real owners still log in
    for hint, user in (("hint-ada", "ada"), ("hint-bob", "bob")):
        browser, done = launch(hub, platform, hint)
        assert done.status_code == 302
        assert browser.get(hub["url"] + "/hub/api/user").json()["name"] == user


def test_a_captured_launch_is_not_accepted_twice(hub, platform):
    captured = {}
    _, done = launch(hub, platform, "hint-ada", captured=captured)
    assert done.status_code == 302
    replay = requests.Session()
    for name, value in captured["cookies"].items():
        replay.cookies.set(name, value)
    again = replay.post(captured["action"], data=captured["fields"],
                        allow_redirects=False)
    assert again.status_code == 403, again.status_code
    assert replay.get(hub["url"] + "/hub/api/user").status_code == 403
    assert "nonce was already used" in refusals(hub)[-1]


def test_launch_record_binds_each_side_once_and_remembers_nonces(lti_login, tmp_path):
    record = lti_login.LaunchRecord(tmp_path / "launches.sqlite")
    assert oct((tmp_path / "launches.sqlite").stat().st_mode & 0o777) == "0o600"
    assert record.bind("ada", "https://lms", "d1", "sub-a") is True       # first launch
    assert record.bind("ada", "https://lms", "d1", "sub-a") is False      # the same user again
    with pytest.raises(ValueError, match="belongs to the platform user 'sub-a'"):
        record.bind("ada", "https://lms", "d1", "sub-x")
    with pytest.raises(ValueError, match="belongs to the platform user"):
        record.bind("ada", "https://lms", "d2", "sub-a")      # another deployment
    with pytest.raises(ValueError, match="is account 'ada', and now claims 'bob'"):
        record.bind("bob", "https://lms", "d1", "sub-a")
    record.bind("bob", "https://lms", "d1", "sub-b")
    record.use_nonce("https://lms", "n-1", time.time() + 60)
    record.use_nonce("https://other-lms", "n-1", time.time() + 60)   # per platform
    with pytest.raises(ValueError, match="already used"):
        record.use_nonce("https://lms", "n-1", time.time() + 60)
    record.close()
    reopened = lti_login.LaunchRecord(tmp_path / "launches.sqlite")   # a hub restart
    with pytest.raises(ValueError, match="already used"):
        reopened.use_nonce("https://lms", "n-1", time.time() + 60)
    with pytest.raises(ValueError, match="belongs to"):
        reopened.bind("bob", "https://lms", "d1", "sub-c")


def test_course_role_from_membership_roles_only(lti_login):
    role = lti_login.course_role
    ta = f"{MEMBERSHIP}/Instructor#TeachingAssistant"
    faculty = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"
    assert role({CLAIM + "roles": [ta]}) == "instructor"
    assert role({CLAIM + "roles": [LEARNER, INSTRUCTOR]}) == "instructor"
    assert role({CLAIM + "roles": [faculty, LEARNER]}) == "student"
    assert role({CLAIM + "roles": [faculty]}) is None
    assert role({}) is None


@pytest.mark.parametrize("change, message", [
    ({"client_id": ""}, "field 'client_id' missing or empty"),
    ({"jwks_url": "platform/jwks"}, "field 'jwks_url' is not an http(s) URL"),
    ({"deploymentid": "1"}, "unknown field(s) deploymentid"),
])
def test_bad_hub_lti_settings_name_the_file_and_field(lti_login, tmp_path, change,
                                                      message):
    path = tmp_path / "lti-hub.json"
    write_settings(path, "https://lms.example.edu")
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(ValueError) as err:
        lti_login.load_lti_settings(path)
    assert f"{path}: {message}" in str(err.value)


# -- the scores --------------------------------------------------------------------
# gradebook id -> ({ps1: (points of 10, handed in)}); ps1 due 2026-10-05 23:59 UTC
GRADED = {"ada": (8, "2026-10-05 12:00"), "bob": (10, "2026-10-06 10:00"),
          "carol": (7, "2026-10-05 13:00")}   # carol: not in the LMS course


@pytest.fixture(scope="module")
def graded_course(platform):
    """A course folder with nbgrader's gradebook, ps1 graded, and lti.json."""
    root = Path(tempfile.mkdtemp(prefix="lti-course-"))
    try:
        shutil.copy(COURSE / "nbgrader_config.py", root)
        shutil.copy(COURSE / "Makefile", root)
        db = f"sqlite:///{root / 'gradebook.db'}"
        with Gradebook(db, course_id="kernel-methods") as gb:
            gb.add_assignment("ps1", duedate=dt.datetime(2026, 10, 5, 23, 59))
            gb.add_notebook("ps1", "ps1")
            gb.add_grade_cell("answer", "ps1", "ps1", max_score=10,
                              cell_type="markdown")
            for sid, (points, when) in GRADED.items():
                gb.add_student(sid, first_name=sid.title(), last_name="Example",
                               email=f"{sid}@uni.example")
                gb.add_submission("ps1", sid, timestamp=dt.datetime.fromisoformat(when))
                grade = gb.find_grade("answer", "ps1", "ps1", sid)
                grade.manual_score = points
                grade.needs_manual_grade = False    # graded, as Formgrader records it
                gb.db.commit()
        (root / "lti.json").write_text(json.dumps({
            "issuer": platform.url, "client_id": CLIENT_ID,
            "token_url": platform.url + "/token",
            "lineitems_url": platform.url + "/lineitems",
            "memberships_url": platform.url + "/memberships",
            "private_key": "lti-key.pem"}))
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def course(slow, graded_course):
    """A fresh copy of ``graded_course`` for one test."""
    work = Path(tempfile.mkdtemp(prefix="lti-course-"))
    try:
        shutil.copytree(graded_course, work / "course")
        yield work / "course"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def make(root, *args):
    return subprocess.run(["make", *args, f"PYTHON={sys.executable}"], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_scores_after_the_late_policy_reach_the_lms(course, platform):
    keys = make(course, "lti_key")
    assert keys.returncode == 0, keys.stderr
    assert oct((course / "lti-key.pem").stat().st_mode & 0o777) == "0o600"
    platform.tool_jwks = json.loads(keys.stdout[keys.stdout.index("{"):])
    platform.lineitems.clear()
    platform.scores.clear()

    done = make(course, "lti_scores", "PS=ps1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(i["tag"], i["label"], i["scoreMaximum"]) for i in platform.lineitems] == [
        ("ps1", "ps1", 10)]
    item = platform.lineitems[0]["id"]
    got = {s["userId"]: s for line, s in platform.scores if line == item}
    assert len(platform.scores) == 2
    # ada on time: 8; bob a day late: 10 less 10 % of the points
    assert {u: (s["scoreGiven"], s["scoreMaximum"]) for u, s in got.items()} == {
        "a1f0c3d2-ada": (8, 10), "b2e1d4c3-bob": (9, 10)}
    assert all(s["gradingProgress"] == "FullyGraded" for s in got.values())
    assert "late penalty 1 points" in got["b2e1d4c3-bob"]["comment"]
    assert "comment" not in got["a1f0c3d2-ada"]
    # on one side only: listed, not dropped
    unmatched = (course / "lti-ps1-unmatched.txt").read_text()
    assert "carol" in done.stderr and "carol" in unmatched
    assert "Dan Example" in unmatched and "Tea Cher" not in unmatched

    # again: the line item is found by its tag, the scores are sent again
    assert make(course, "lti_scores", "PS=ps1").returncode == 0
    assert len(platform.lineitems) == 1 and len(platform.scores) == 4


def send(course, *argv, monkeypatch):
    """``python -m coursegrader.tools.lti_scores`` in the course folder, in this process."""
    from coursegrader.tools import lti_scores
    monkeypatch.chdir(course)
    return lti_scores.main(list(argv))


def test_scores_need_a_key_the_lms_knows(course, platform, monkeypatch, capsys):
    assert send(course, "keygen", monkeypatch=monkeypatch) == 0
    platform.tool_jwks = {"keys": []}        # the LMS was given another key
    refused = len(platform.refused_tokens)
    assert send(course, "send", "ps1", monkeypatch=monkeypatch) == 3
    err = capsys.readouterr().err
    assert "the LMS refused a request" in err and "/token]: 401" in err
    assert len(platform.refused_tokens) == refused + 1


@pytest.mark.parametrize("change, message", [
    ({"token_url": None}, "field 'token_url' missing or empty"),
    ({"match": "login"}, "field 'match' is 'login'"),
    ({"lineitems_url": "ftp://x"}, "field 'lineitems_url' is not an http(s) URL"),
    ({"private_key": "missing.pem"}, "missing.pem: no such file (field 'private_key'"),
])
def test_bad_settings_name_the_file_and_field(course, platform, change, message,
                                              monkeypatch, capsys):
    settings = json.loads((course / "lti.json").read_text())
    settings.update(change)
    (course / "lti.json").write_text(json.dumps(
        {k: v for k, v in settings.items() if v is not None}))
    sent = len(platform.scores)
    assert send(course, "send", "ps1", monkeypatch=monkeypatch) == 2
    assert message in capsys.readouterr().err
    assert len(platform.scores) == sent


def test_unknown_problem_set_is_named(course, platform, monkeypatch, capsys):
    assert send(course, "keygen", monkeypatch=monkeypatch) == 0
    assert send(course, "send", "ps9", monkeypatch=monkeypatch) == 2
    assert ("PS: no problem set 'ps9' in the gradebook (it has ps1)"
            in capsys.readouterr().err)
