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
- an account can be bound before its first launch, from the LMS's roster
  (:func:`prebind`, ``hub.py lti-bind``), so that nobody takes it by launching
  first with its id;
- every claim the login reads must have the JSON type LTI 1.3 gives it
  (:func:`check_claims`, :func:`check_token_shape`), and the claimed id must be
  plain ASCII without whitespace or control characters (:func:`id_problem`);
- each launch's nonce is accepted once (the authenticator checks it against a
  cookie, which a captured launch replays along with it);
- the hub user joins the group of that role (``<course>-instructors`` or
  ``<course>-students``), and the spawner starts the role's environment.

A launch that fails any check is refused (HTTP 403, a page that says why) and
the hub's log says why ("LTI launch refused: ...").
"""

import contextlib
import csv
import io
import json
import os
import sqlite3
import time
import unicodedata
from pathlib import Path

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
LIS_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/lis"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
# claims the authenticator's own validation reads, with the JSON type each must have
TOKEN_SHAPE = {"iat": "number", "exp": "number", "aud": "string or list",
               CLAIM + "version": "string", CLAIM + "message_type": "string",
               CLAIM + "context": "object", CLAIM + "resource_link": "object"}
NAME_CLAIMS = ("name", "given_name", "family_name", "middle_name", "email")
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


class LaunchRefused(ValueError):
    """A launch the hub refuses: ``str()`` is the reason for the hub's log,
    ``page`` what the page tells the person who launched."""

    def __init__(self, reason, page=None):
        super().__init__(reason)
        self.page = page or ("The hub cannot log you in from this launch; the course's "
                             "instructor can read why in the hub's log.")


def _kind(value):
    """What a JSON value is, in words (for a refusal)."""
    if value is None:
        return "null"
    for types, word in ((bool, "a boolean"), ((int, float), "a number"),
                        (str, "a string"), (list, "a list"), (dict, "an object")):
        if isinstance(value, types):
            return word
    return type(value).__name__


def _shown(value, limit=80):
    """``value`` for a log line: its repr (control characters escaped), cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...(cut)"


def _refuse_claim(what, problem):
    reason = f"the claim {what} {problem}"
    raise LaunchRefused(reason, page=f"The launch from the LMS was refused: {reason}.")


def _string(claims, key, what=None, *, optional=False):
    """The claim ``key`` of ``claims`` if it is a non-empty string; else LaunchRefused."""
    what = what or repr(key)
    if key not in claims:
        if optional:
            return None
        _refuse_claim(what, "is missing")
    value = claims[key]
    if not isinstance(value, str):
        _refuse_claim(what, f"is {_kind(value)}, not a string")
    if not value and not optional:
        _refuse_claim(what, "is empty")
    return value


def id_problem(value):
    """Why the id ``value`` cannot be a roster id as it is, or None.

    Roster ids are Unix account names (plain ASCII): stray whitespace, a control
    character or a character outside ASCII (a look-alike letter, a full-width
    digit) is named rather than trimmed or folded into another account's id.
    """
    if value != value.strip():
        return "has whitespace at its start or end"
    for ch in value:
        code = f"U+{ord(ch):04X}"
        if ch.isspace():
            return f"has whitespace inside it ({code})"
        if unicodedata.category(ch).startswith("C"):
            return f"has a control or invisible character ({code})"
        if not ch.isascii():
            name = unicodedata.name(ch, "unnamed")
            return (f"has a character outside ASCII ({code} {name}): a look-alike of "
                    "a roster id is never taken for it")
    return None


def _short(key):
    return key.rsplit("/", 1)[1] if key.startswith("https://") else repr(key)


def check_token_shape(claims):
    """Refuse (LaunchRefused) an id_token whose claims that the authenticator's own
    validation reads (times, audience, version, message type, context, resource
    link) are of another JSON type than LTI 1.3 gives them."""
    for key, expected in TOKEN_SHAPE.items():
        if key not in claims:
            continue        # a missing claim is the validation's to name
        value = claims[key]
        ok = {"number": isinstance(value, (int, float)) and not isinstance(value, bool),
              "string": isinstance(value, str),
              "object": isinstance(value, dict),
              "string or list": isinstance(value, str) or (
                  isinstance(value, list) and all(isinstance(v, str) for v in value)),
              }[expected]
        if not ok:
            _refuse_claim(_short(key), f"is {_kind(value)}, not a {expected}"
                          if expected != "object" else f"is {_kind(value)}, not an object")


def check_claims(claims, username_claim):
    """Refuse (LaunchRefused, naming the claim) a launch whose claims the login
    reads are not of the type LTI 1.3 gives them; the claimed id, checked.

    A platform may send anything in a signed token (a number, a list, an object,
    null): each is refused with the claim named, never taken as another type.
    """
    for key in ("iss", "sub", "nonce"):
        _string(claims, key)
    if len(claims["sub"]) > 255:
        _refuse_claim("'sub'", "is longer than 255 characters (OpenID Connect)")
    _string(claims, DEPLOYMENT_CLAIM, "deployment_id")
    if ROLES_CLAIM not in claims:
        _refuse_claim("roles", "is missing")
    roles = claims[ROLES_CLAIM]
    if not isinstance(roles, list):
        _refuse_claim("roles", f"is {_kind(roles)}, not a list")
    for i, uri in enumerate(roles):
        if not isinstance(uri, str):
            _refuse_claim("roles", f"has {_kind(uri)} at position {i}, not a string")
    for key in NAME_CLAIMS:
        _string(claims, key, optional=True)
    for key in (CUSTOM_CLAIM, LIS_CLAIM):
        if key in claims and not isinstance(claims[key], dict):
            _refuse_claim(_short(key), f"is {_kind(claims[key])}, not an object")
    data, field = claims, username_claim
    if field.startswith("custom_"):
        data, field = claims.get(CUSTOM_CLAIM) or {}, field[len("custom_"):]
    if field not in data or data[field] == "":
        raise LaunchRefused(f"the platform user {claims['sub']!r} sent no "
                            f"{username_claim!r}; an account is never chosen without it",
                            page="The launch from the LMS was refused: it carries no "
                                 "student id (SIS id) to choose your hub account with.")
    value = data[field]
    if not isinstance(value, str):
        _refuse_claim(username_claim, f"is {_kind(value)}, not a string")
    problem = id_problem(value)
    if problem:
        reason = (f"the platform user {claims['sub']!r} sent {username_claim} "
                  f"{_shown(value)}, which {problem}")
        raise LaunchRefused(reason, page="The launch from the LMS was refused: your "
                            f"student id (claim {username_claim}) {problem}.")
    return value


def course_role(claims):
    """'instructor', 'student' or None, from the launch's membership roles."""
    return role_of_uris(claims.get(ROLES_CLAIM))


def role_of_uris(uris):
    """'instructor', 'student' or None, from LTI membership role URIs (a launch's
    roles claim, or a member's roles in the LMS's roster)."""
    found = set()
    for uri in uris if isinstance(uris, list) else []:
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


def read_roster(path):
    """The LMS course's people of the roster file ``path``: ([(SIS id, sub, status,
    roles)], issuer), ``roles`` a list of role URIs or None when the file has none.

    Either the Names and Role Provisioning Service's membership container as the
    LMS gives it (JSON with ``members``, each with ``user_id``, the platform's
    ``sub``, ``lis_person_sourcedid`` and ``roles``; ``make lti_roster`` in the
    course folder saves it), or a CSV file exported from the LMS with the
    columns ``user_id`` and ``sis_id`` (or ``lis_person_sourcedid``), and
    optionally ``roles`` (role URIs separated by spaces). ValueError names the
    file and what is wrong with it.
    """
    text = Path(path).read_text(encoding="utf-8-sig")
    if path.endswith(".json") or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from None
        members = data.get("members") if isinstance(data, dict) else None
        if not isinstance(members, list):
            raise ValueError(f"{path}: expected the LMS's membership container, a JSON "
                             "object with a list 'members'")
        return [(m.get("lis_person_sourcedid"), m.get("user_id"),
                 m.get("status", "Active"), m.get("roles"))
                if isinstance(m, dict) else (None, None, None, None)
                for m in members], data.get("issuer")
    rows = list(csv.DictReader(io.StringIO(text)))
    columns = set(rows[0]) if rows else set()
    sis = "sis_id" if "sis_id" in columns else "lis_person_sourcedid"
    if not rows or "user_id" not in columns or sis not in columns:
        raise ValueError(f"{path}: expected a CSV file with the columns user_id (the "
                         "LMS's user id) and sis_id (the student id)")
    return [(r[sis], r["user_id"], r.get("status") or "Active",
             r["roles"].split() if r.get("roles") is not None else None)
            for r in rows], None


def prebind(settings, path, record, deployment=None):
    """Bind the hub accounts to the platform users of the roster ``path``, before
    their first launch: ``(bound now, bound already, not on this server, problems)``.

    Active members only. A member whose SIS id names no account of this server
    is listed in the third list. These are listed in ``problems`` and skipped:
    a member without a user id or SIS id, or whose SIS id is not exactly a
    roster id (whitespace, a look-alike letter); every member of an SIS id
    that several members hold (one of them may have typed a classmate's id:
    the roster cannot tell which is the classmate, so none is bound); a member
    whose role in the LMS course is not the account's role here (where the
    roster gives roles). An account or a platform user already bound to
    someone else is listed there too, and left as it is.
    """
    lti = settings["lti"]
    if deployment is None:
        if len(lti["deployment_id"]) != 1:
            raise ValueError(f"the hub has the deployments {lti['deployment_id']}: "
                             "name the one the roster is from (--deployment)")
        deployment = lti["deployment_id"][0]
    elif deployment not in lti["deployment_id"]:
        raise ValueError(f"deployment {deployment!r} is not one of the hub's "
                         f"{lti['deployment_id']}")
    members, issuer = read_roster(str(path))
    if issuer is not None and issuer != lti["issuer"]:
        raise ValueError(f"{path}: the roster is from the platform {issuer!r}, the hub's "
                         f"is {lti['issuer']!r}")
    bound, already, absent, problems = [], [], [], []
    holders = {}
    for sis_id, sub, status, _ in members:
        if status == "Active" and isinstance(sis_id, str) and sis_id \
                and isinstance(sub, str) and sub:
            holders.setdefault(sis_id, []).append(sub)
    for sis_id, subs in holders.items():
        if len(subs) > 1:
            problems.append(f"{path}: SIS id {_shown(sis_id)} is held by {len(subs)} "
                            f"platform users ({', '.join(_shown(s) for s in subs)}): "
                            "none bound (each is bound at its first launch, and only "
                            "one can have the account)")
    for i, (sis_id, sub, status, member_roles) in enumerate(members, start=1):
        where = f"{path}, member {i}"
        if status != "Active" or len(holders.get(sis_id, ())) > 1:
            continue
        if not isinstance(sub, str) or not sub or len(sub) > 255:
            problems.append(f"{where}: user_id {_shown(sub)} is not the platform's "
                            "user id (a string)")
            continue
        if not isinstance(sis_id, str) or not sis_id:
            problems.append(f"{where}: the platform user {sub!r} has no SIS id")
            continue
        problem = id_problem(sis_id)
        if not problem:
            try:
                roles.role_of(settings, sis_id)
            except ValueError:
                absent.append(f"{sis_id} (the platform user {sub!r})")
                continue
        if problem:
            problems.append(f"{where}: SIS id {_shown(sis_id)} of the platform user "
                            f"{sub!r} {problem}; not bound")
            continue
        if member_roles is not None:
            role, here = role_of_uris(member_roles), roles.role_of(settings, sis_id)
            if role != here:
                what = {"instructor": "an instructor", "student": "a student"}
                problems.append(f"{where}: the platform user {sub!r} is "
                                f"{what.get(role, 'neither instructor nor learner')} in "
                                f"the LMS course, and account {sis_id!r} is {what[here]} "
                                "here; not bound")
                continue
        try:
            (bound if record.bind(sis_id, lti["issuer"], deployment, sub)
             else already).append(sis_id)
        except ValueError as exc:
            problems.append(f"{where}: {exc}; left as it is")
    return bound, already, absent, problems


def check_launch(settings, claims, record, log=None):
    """The hub account and group of a launch: ``(name, group)``; LaunchRefused says
    why it is refused.

    An account's first launch, which binds it, is logged (``log``, a logger) with
    the platform user it now belongs to, for the instructor to review.

    ``claims`` are the id_token's (its signature, issuer, audience and age already
    checked by the authenticator); ``record`` is the :class:`LaunchRecord` of the hub.
    """
    key = settings["lti"]["username_claim"]
    try:
        name = check_claims(claims, key)
    except LaunchRefused:
        if isinstance(claims.get("nonce"), str) and claims["nonce"]:
            _use_nonce(record, claims)   # a refused launch's nonce is used too
        raise
    issuer, sub = claims["iss"], claims["sub"]
    _use_nonce(record, claims)
    deployment = claims[DEPLOYMENT_CLAIM]
    if deployment not in settings["lti"]["deployment_id"]:
        raise LaunchRefused(f"launch from deployment {deployment!r}, not a registered one")
    role = course_role(claims)
    if role is None:
        raise LaunchRefused(f"user {name!r}: no Instructor or Learner role in the course "
                            f"(roles {_shown(claims.get(ROLES_CLAIM), 200)})")
    try:
        on_server = roles.role_of(settings, name)
    except ValueError:
        raise LaunchRefused(f"the platform user {sub!r} sent {key} {name!r}, which is "
                            f"not exactly a roster id") from None
    if role != on_server:
        raise LaunchRefused(f"user {name!r} launches as {role} from the LMS but is a "
                            f"{on_server} on this server")
    try:
        first = record.bind(name, issuer, deployment, sub)
    except ValueError as exc:
        raise LaunchRefused(str(exc)) from None
    if first and log is not None:
        log.warning("LTI first launch of %r: the account is now bound to the platform "
                    "user %r (deployment %r); if that is not them, remove the row from %s",
                    name, sub, deployment, RECORD_FILE)
    return name, group_of(settings, role)


def _use_nonce(record, claims):
    expires = claims.get("exp")
    expires = expires if isinstance(expires, (int, float)) and not isinstance(
        expires, bool) else 0
    try:
        record.use_nonce(claims["iss"] if isinstance(claims.get("iss"), str) else "",
                         claims["nonce"], float(expires))
    except ValueError as exc:
        raise LaunchRefused(str(exc)) from None


def configure(c, settings):
    """Make ``c`` (the hub's config) log users in with LTI 1.3 from ``settings``."""
    from ltiauthenticator.lti13.auth import LTI13Authenticator
    from ltiauthenticator.lti13.error import ValidationError
    from ltiauthenticator.lti13.handlers import LTI13CallbackHandler
    from ltiauthenticator.lti13.validator import LTI13LaunchValidator
    from ltiauthenticator.utils import convert_request_to_dict
    from tornado.web import HTTPError

    lti = settings["lti"]
    record = LaunchRecord(os.path.join(settings["state_dir"], RECORD_FILE))

    def refuse(log, reason, page=None):
        log.warning("LTI launch refused: %s", reason)
        raise HTTPError(403, "%s", page or f"The launch from the LMS was refused: "
                        f"{reason}.") from None

    class CourseCallbackHandler(LTI13CallbackHandler):
        """The launch's callback: any launch the authenticator's validation refuses
        (or that its validation cannot read) is refused as the course's checks are,
        a 403 page and a log line that say why."""

        def decode_and_validate_launch_request(self):
            # jupyterhub-ltiauthenticator 1.6's own steps, with the claims' types
            # checked before its validation reads them
            try:
                validator = LTI13LaunchValidator(parent=self.app)
                args = convert_request_to_dict(self.request.arguments)
                validator.validate_auth_response(args)
                self.check_state()
                id_token = validator.verify_and_decode_jwt(
                    encoded_jwt=args.get("id_token"), issuer=self.authenticator.issuer,
                    audience=self.authenticator.client_id,
                    jwks_endpoint=self.authenticator.jwks_endpoint,
                    jwks_algorithms=self.authenticator.jwks_algorithms)
                check_token_shape(id_token)
                validator.validate_id_token(id_token)
                validator.validate_azp_claim(id_token, self.authenticator.client_id)
                self.check_nonce(id_token)
                return id_token
            except LaunchRefused as exc:
                refuse(self.log, str(exc), exc.page)
            except (ValidationError, HTTPError) as exc:
                text = exc.log_message if isinstance(exc, HTTPError) else str(exc)
                refuse(self.log, f"the id_token did not pass validation ({text})")

    class CourseLTI13Authenticator(LTI13Authenticator):
        """LTI 1.3 login whose account, group and binding come from
        :func:`check_launch`, before JupyterHub reads any claim."""

        callback_handler = CourseCallbackHandler

        async def authenticate(self, handler, data=None):
            claims = data if isinstance(data, dict) else {}
            try:
                name, group = check_launch(settings, claims, record, log=self.log)
            except LaunchRefused as exc:
                refuse(self.log, str(exc), exc.page)
            return {"name": name, "auth_state": claims, "groups": [group]}

    c.JupyterHub.authenticator_class = CourseLTI13Authenticator
    c.LTI13Authenticator.issuer = lti["issuer"]
    c.LTI13Authenticator.client_id = {lti["client_id"]}
    c.LTI13Authenticator.authorize_url = lti["authorize_url"]
    c.LTI13Authenticator.jwks_endpoint = lti["jwks_url"]
    c.LTI13Authenticator.username_key = lti["username_claim"]
    c.Authenticator.manage_groups = True
