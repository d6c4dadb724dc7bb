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
- the hub user joins the group of that role (``<course>-instructors`` or
  ``<course>-students``), and the spawner starts the role's environment.

The username is the claim named by ``username_claim`` (default
``custom_sis_id``: the custom parameter ``sis_id=$Person.sourcedId`` set in the
LMS, the student id of the course's roster). A launch that fails any check is
refused (HTTP 403) and the hub's log says why.
"""

import json

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


def check_launch(settings, name, claims):
    """The hub group of a launch by user ``name``; ValueError says why it is refused."""
    deployment = claims.get(DEPLOYMENT_CLAIM)
    if deployment not in settings["lti"]["deployment_id"]:
        raise ValueError(f"launch from deployment {deployment!r}, not a registered one")
    role = course_role(claims)
    if role is None:
        raise ValueError(f"user {name!r}: no Instructor or Learner role in the course "
                         f"(roles {claims.get(ROLES_CLAIM)!r})")
    on_server = roles.role_of(settings, name)   # ValueError if not in the roster
    if role != on_server:
        raise ValueError(f"user {name!r} launches as {role} from the LMS but is a "
                         f"{on_server} on this server")
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

    def post_auth_hook(authenticator, handler, auth_model):
        try:
            group = check_launch(settings, auth_model["name"],
                                 auth_model.get("auth_state") or {})
        except ValueError as exc:
            authenticator.log.warning("LTI launch refused: %s", exc)
            return None
        auth_model["groups"] = [group]
        return auth_model

    c.Authenticator.post_auth_hook = post_auth_hook
