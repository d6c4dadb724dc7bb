"""The hub's OAuth authorisation takes only the PKCE values the standard allows.

JupyterHub's authorisation endpoint (``/hub/api/oauth2/authorize``, which every
login to a user's server or to the book passes through) stores the request's
``code_challenge`` and ``code_challenge_method`` with the code it makes, whole:
its database column says 255 characters, which SQLite does not enforce. A
logged-in student posting her own authorisation with a challenge of 500 KB
stored 122 MB in 8 s (the codes wait in the database until they expire). RFC
7636 (section 4.2) allows a challenge of 43 to 128 characters of
``[A-Za-z0-9-._~]``, and two methods, ``plain`` and ``S256``; anything else is
answered 400 before JupyterHub's handler reads it.

It stores with each code and token the browser's session id, too: the
``jupyterhub-session-id`` cookie, which is not signed, whole. A student who sent
hers 65 KB long from her server made 38 codes a second of it (2.5 MB of the
database a second, kept until the hourly purge), and had it returned with every
check of her token. JupyterHub makes a session id of 32 hexadecimal digits
(``uuid4().hex``); a cookie that is not one is taken for none
(:func:`session_id`), so JupyterHub sets her a fresh one where it needs one.
"""

import re

from tornado import web

__all__ = ["CHALLENGE", "METHODS", "SESSION_ID", "check_pkce", "install", "session_id"]

#: A PKCE code challenge (RFC 7636, section 4.2).
CHALLENGE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
#: The methods of deriving it.
METHODS = ("plain", "S256")
#: A session id as JupyterHub makes it.
SESSION_ID = re.compile(r"[0-9a-f]{32}")


def check_pkce(challenge, method):
    """Raise a 400 naming the parameter unless ``challenge`` and ``method`` (each
    None when absent) are as RFC 7636 allows."""
    if challenge is not None and not CHALLENGE.fullmatch(challenge):
        raise web.HTTPError(400, "code_challenge must be 43 to 128 characters of "
                                 "A-Z a-z 0-9 - . _ ~ (RFC 7636)")
    if method is not None and method not in METHODS:
        raise web.HTTPError(400, "code_challenge_method must be plain or S256")


def session_id(cookie):
    """The session id a ``jupyterhub-session-id`` cookie's value gives: itself if it
    is one JupyterHub makes, else None."""
    return cookie if cookie is not None and SESSION_ID.fullmatch(cookie) else None


def install():
    """Check the PKCE values of every request to JupyterHub's authorisation
    endpoint (from its query or its form) once JupyterHub has prepared it (who is
    asking), before its handler reads them; and take a session cookie JupyterHub
    did not make for none, wherever the hub reads it."""
    from jupyterhub.apihandlers.auth import OAuthAuthorizeHandler
    from jupyterhub.handlers.base import BaseHandler

    read_session = BaseHandler.get_session_cookie
    if not getattr(read_session, "checks_session", False):
        def checked_session(self):
            return session_id(read_session(self))
        checked_session.checks_session = True
        BaseHandler.get_session_cookie = checked_session

    prepare = OAuthAuthorizeHandler.prepare
    if getattr(prepare, "checks_pkce", False):
        return

    async def checked_prepare(self):
        # JupyterHub's own first (who is asking, the xsrf check): a refusal before it
        # would be drawn for no one, and its page would set her an anonymous xsrf
        # cookie in place of her own, failing her next form
        await prepare(self)
        for name in ("code_challenge", "code_challenge_method"):
            if len(self.get_arguments(name, strip=False)) > 1:
                raise web.HTTPError(400, f"{name} given more than once")
        check_pkce(self.get_argument("code_challenge", None, strip=False),
                   self.get_argument("code_challenge_method", None, strip=False))

    checked_prepare.checks_pkce = True
    OAuthAuthorizeHandler.prepare = checked_prepare
