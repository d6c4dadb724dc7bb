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
"""

import re

from tornado import web

__all__ = ["CHALLENGE", "METHODS", "check_pkce", "install"]

#: A PKCE code challenge (RFC 7636, section 4.2).
CHALLENGE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
#: The methods of deriving it.
METHODS = ("plain", "S256")


def check_pkce(challenge, method):
    """Raise a 400 naming the parameter unless ``challenge`` and ``method`` (each
    None when absent) are as RFC 7636 allows."""
    if challenge is not None and not CHALLENGE.fullmatch(challenge):
        raise web.HTTPError(400, "code_challenge must be 43 to 128 characters of "
                                 "A-Z a-z 0-9 - . _ ~ (RFC 7636)")
    if method is not None and method not in METHODS:
        raise web.HTTPError(400, "code_challenge_method must be plain or S256")


def install():
    """Check the PKCE values of every request to JupyterHub's authorisation
    endpoint (from its query or its form) once JupyterHub has prepared it (who is
    asking), before its handler reads them."""
    from jupyterhub.apihandlers.auth import OAuthAuthorizeHandler

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
