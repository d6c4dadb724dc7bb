"""Logging in to the hub from the LMS with LTI 1.3 (jupyterhub-ltiauthenticator).

The LMS (the platform) signs an OpenID Connect id_token for each launch; the
authenticator checks its signature against the platform's JWKS, its issuer,
audience (our client id), nonce and age. This module adds what the course
needs on top of that (``configure``, called by jupyterhub_config.py when the
settings say ``"auth": "lti"``):

- the launch must come from the registered deployment (``deployment_id``);
- the user's role in the LMS course (the LTI ``roles`` claim, membership roles
  only: an instructor elsewhere in the institution is not one here) must be
  the user's role on this server: ``Instructor`` (and its sub-roles, such as
  teaching assistant) for the instructors, ``Learner`` for the students;
- who the user is comes from the platform, not from a field the user may
  edit: the claim named by ``username_claim`` (default ``custom_sis_id``: the
  custom parameter ``sis_id=$Person.sourcedId`` set in the LMS, the student
  id of the course's roster) picks the hub account only when it is exactly a
  roster id (never lower-cased, never replaced by ``sub`` when it is missing),
  and the account is bound, at its first launch, to the platform's issuer,
  deployment and ``sub`` (:class:`LaunchRecord`). A later launch of that
  account with another ``sub``, or a ``sub`` already bound to another account
  (a changed SIS id), is refused;
- each launch's nonce is accepted once (the authenticator checks it against a
  cookie, which a captured launch replays along with it);
- the hub user joins the group of that role (``<course>-instructors`` or
  ``<course>-students``), and the spawner starts the role's environment.

A launch that fails any check is refused (HTTP 403) and the hub's log says why.
"""

import contextlib
import json
import os
import sqlite3
import time

import roles

LTI_SETTINGS = {   # field: what it is (all strings; deployment_id may be a list)
    "issuer": "the platform's issuer (iss), e.g. https://canvas.instructure.com",
    "client_id": "the client id the LMS gave the tool",
    "deployment_id": "the deployment id(s) of the tool in the LMS",
    "authorize_url": "the platform's OIDC authentication URL",
    "jwks_url": "the platform's public keyset (JWKS) URL",
}
DEFAULT_USERNAME_CLAIM = "custom_sis_id"
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
RECORD_FILE = "lti-launches.sqlite"   # in the hub's state folder
NONCE_GRACE = 600   # seconds a nonce is remembered after its token expires
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
COURSE_ROLES = {"Instructor": "instructor", "Learner": "student"}


def load_lti_settings(path):
    """The platform's settings from the JSON file ``path`` (see deploy/README.md)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file (the LTI settings)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with the fields "
                         f"{', '.join(LTI_SETTINGS)}")
    problems = []
    for field, meaning in LTI_SETTINGS.items():
        value = data.get(field)
        ids = value if isinstance(value, list) else [value]
        if not value or not all(isinstance(v, str) and v.strip() for v in ids):
            problems.append(f"{path}: field {field!r} missing or empty ({meaning})")
    for field in ("authorize_url", "jwks_url"):
        value = data.get(field)
        if isinstance(value, str) and not value.startswith(("https://", "http://")):
            problems.append(f"{path}: field {field!r} is not an http(s) URL: {value!r}")
    unknown = sorted(set(data) - set(LTI_SETTINGS) - {"username_claim"})
    if unknown:
        problems.append(f"{path}: unknown field(s) {', '.join(unknown)} (known: "
                        f"{', '.join(list(LTI_SETTINGS) + ['username_claim'])})")
    if problems:
        raise ValueError("\n".join(problems))
    if isinstance(data["deployment_id"], str):
        data["deployment_id"] = [data["deployment_id"]]
    data.setdefault("username_claim", DEFAULT_USERNAME_CLAIM)
    return data


def course_role(claims):
    """'instructor', 'student' or None, from the launch's membership roles."""
    found = set()
    for uri in claims.get(ROLES_CLAIM) or []:
        if not isinstance(uri, str) or not uri.startswith(MEMBERSHIP):
            continue
        rest = uri[len(MEMBERSHIP):]
        # membership#Instructor, or a sub-role: membership/Instructor#TeachingAssistant
        principal = rest[1:] if rest.startswith("#") else rest[1:].split("#")[0]
        if principal in COURSE_ROLES:
            found.add(COURSE_ROLES[principal])
    if "instructor" in found:
        return "instructor"
    return "student" if "student" in found else None


def group_of(settings, role):
    return f"{settings['course_id']}-{role}s"


def claimed_id(claims, username_claim):
    """The value of the claim ``username_claim`` exactly as the platform sent it, or None.

    ``custom_<name>`` names the parameter ``<name>`` of the LTI custom claim,
    as jupyterhub-ltiauthenticator reads it.
    """
    data, key = claims, username_claim
    if key.startswith("custom_"):
        data, key = claims.get(CUSTOM_CLAIM), key[len("custom_"):]
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


class LaunchRecord:
    """Which platform user each hub account is, and the nonces already used.

    A SQLite file in the hub's state folder, readable by root alone. An
    account is bound to the platform's issuer, deployment and ``sub`` at its
    first accepted launch; each of the two sides of a binding is unique.
    """

    def __init__(self, path):
        self.path = str(path)
        fresh = not os.path.exists(self.path)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        if fresh:
            os.chmod(self.path, 0o600)
        self.db.executescript("""
            CREATE TABLE IF NOT EXISTS accounts (
                name TEXT PRIMARY KEY, issuer TEXT NOT NULL, deployment TEXT NOT NULL,
                sub TEXT NOT NULL, bound REAL NOT NULL, UNIQUE (issuer, deployment, sub));
            CREATE TABLE IF NOT EXISTS nonces (
                issuer TEXT NOT NULL, nonce TEXT NOT NULL, forget REAL NOT NULL,
                PRIMARY KEY (issuer, nonce));
        """)

    def use_nonce(self, issuer, nonce, expires):
        """Record ``nonce``; ValueError if the platform's launch with it was seen before."""
        now = time.time()
        with self._transaction():
            self.db.execute("DELETE FROM nonces WHERE forget < ?", (now,))
            try:
                self.db.execute("INSERT INTO nonces VALUES (?, ?, ?)",
                                (issuer, nonce, max(expires, now) + NONCE_GRACE))
            except sqlite3.IntegrityError:
                raise ValueError("a launch whose nonce was already used (a replay)") from None

    def bind(self, name, issuer, deployment, sub):
        """Bind account ``name`` to the platform user, or check it is bound to them;
        True when this launch made the binding (the account's first launch)."""
        platform_user = (issuer, deployment, sub)
        with self._transaction():
            other = self.db.execute("SELECT name FROM accounts WHERE issuer = ? AND "
                                    "deployment = ? AND sub = ?", platform_user).fetchone()
            if other is not None and other[0] != name:
                raise ValueError(f"the platform user {sub!r} is account {other[0]!r}, "
                                 f"and now claims {name!r} (a changed id never selects "
                                 "another account)")
            row = self.db.execute("SELECT issuer, deployment, sub FROM accounts "
                                  "WHERE name = ?", (name,)).fetchone()
            if row is not None:
                if tuple(row) != platform_user:
                    raise ValueError(
                        f"account {name!r} belongs to the platform user {row[2]!r} "
                        f"(deployment {row[1]!r}), not to {sub!r} (deployment "
                        f"{deployment!r})")
                return False
            self.db.execute("INSERT INTO accounts VALUES (?, ?, ?, ?, ?)",
                            (name, issuer, deployment, sub, time.time()))
            return True

    @contextlib.contextmanager
    def _transaction(self):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self):
        self.db.close()


def check_launch(settings, name, claims, record, log=None):
    """The hub group of a launch by user ``name``; ValueError says why it is refused.

    An account's first launch, which binds it, is logged (``log``, a logger) with
    the platform user it now belongs to, for the instructor to review.

    ``claims`` are the id_token's (already checked by the authenticator);
    ``record`` is the :class:`LaunchRecord` of the hub.
    """
    issuer, sub, nonce = claims.get("iss"), claims.get("sub"), claims.get("nonce")
    if not (isinstance(nonce, str) and nonce):
        raise ValueError("a launch without a nonce")
    expires = claims.get("exp") if isinstance(claims.get("exp"), (int, float)) else 0
    record.use_nonce(str(issuer), nonce, float(expires))
    deployment = claims.get(DEPLOYMENT_CLAIM)
    if deployment not in settings["lti"]["deployment_id"]:
        raise ValueError(f"launch from deployment {deployment!r}, not a registered one")
    if not (isinstance(issuer, str) and issuer and isinstance(sub, str) and sub):
        raise ValueError("a launch without the platform's issuer or user (sub)")
    key = settings["lti"]["username_claim"]
    claimed = claimed_id(claims, key)
    if claimed is None or claimed == "":
        raise ValueError(f"the platform user {sub!r} sent no {key!r}; an account is "
                         "never chosen without it")
    if claimed != name:
        raise ValueError(f"the platform user {sub!r} sent {key} {claimed!r}, which is "
                         f"not exactly a roster id (taken as {name!r})")
    role = course_role(claims)
    if role is None:
        raise ValueError(f"user {name!r}: no Instructor or Learner role in the course "
                         f"(roles {claims.get(ROLES_CLAIM)!r})")
    on_server = roles.role_of(settings, name)   # ValueError if not in the roster
    if role != on_server:
        raise ValueError(f"user {name!r} launches as {role} from the LMS but is a "
                         f"{on_server} on this server")
    if record.bind(name, issuer, deployment, sub) and log is not None:
        log.warning("LTI first launch of %r: the account is now bound to the platform "
                    "user %r (deployment %r); if that is not them, remove the row from %s",
                    name, sub, deployment, RECORD_FILE)
    return group_of(settings, role)


def configure(c, settings):
    """Make ``c`` (the hub's config) log users in with LTI 1.3 from ``settings``."""
    lti = settings["lti"]
    c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
    c.LTI13Authenticator.issuer = lti["issuer"]
    c.LTI13Authenticator.client_id = {lti["client_id"]}
    c.LTI13Authenticator.authorize_url = lti["authorize_url"]
    c.LTI13Authenticator.jwks_endpoint = lti["jwks_url"]
    c.LTI13Authenticator.username_key = lti["username_claim"]
    c.Authenticator.manage_groups = True
    record = LaunchRecord(os.path.join(settings["state_dir"], RECORD_FILE))

    def post_auth_hook(authenticator, handler, auth_model):
        try:
            group = check_launch(settings, auth_model["name"],
                                 auth_model.get("auth_state") or {}, record,
                                 log=authenticator.log)
        except ValueError as exc:
            authenticator.log.warning("LTI launch refused: %s", exc)
            return None
        auth_model["groups"] = [group]
        return auth_model

    c.Authenticator.post_auth_hook = post_auth_hook
