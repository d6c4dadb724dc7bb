"""The course's servers start with no options a student chooses.

JupyterHub stores whatever options a user starts her server with (the JSON body
of ``POST /hub/api/users/<name>/server``, the form posted to ``/hub/spawn``,
the query of ``GET /hub/spawn``) in its database, to start the next one with,
and returns them in her model, in every answer to ``GET /hub/api/user`` too
(the check each request to her server makes of its token). The course's
spawner uses none, and offers no form. A student who started her server with
1 MB of options had the hub send that megabyte with every check of her token:
130 such answers a second from her server slowed a classmate's login from
0.24 s to 0.6 s. A server's display name is stored and returned the same way.

So here:

- the options of the spawn page's form and query are none
  (:func:`no_options`, the spawner's ``options_from_form``, which
  ``options_from_query`` calls too);
- a request of the server API (``POST``, ``PUT``, ``PATCH``) with options that
  are not empty, or a display name, is answered 400 once JupyterHub has
  prepared it (who is asking), before its handler reads the body
  (:func:`install`). An empty body, ``{}`` or ``{"user_options": {}}`` (what the
  hub's own pages send) starts a server as before. (JupyterHub checks a display
  name itself; the course has no named servers, so none is taken.)
"""

from tornado import web

__all__ = ["check_server_body", "install", "no_options"]


def no_options(form_data):
    """The options of a server started from the spawn page: none, whatever the form
    or the query held (the spawner's ``options_from_form``)."""
    return {}


def check_server_body(method, model):
    """Raise a 400 unless ``model``, the JSON body of a server API request by
    ``method`` as JupyterHub reads it (None when empty), asks for no options and no
    display name."""
    if not isinstance(model, dict) or not model:
        return   # nothing asked; JupyterHub answers a list itself
    if model.get("display_name") or model.get("name"):
        raise web.HTTPError(400, "the course's servers have no names of their own")
    if "user_options" in model:
        options = model["user_options"]
    elif method == "PATCH" or "display_name" in model:
        options = None
    else:   # JupyterHub takes a body with neither as the options themselves
        options = model
    if options:
        raise web.HTTPError(400, "the course's servers take no start options")


def install():
    """Check the body of every request to JupyterHub's server API
    (``UserServerAPIHandler``) once JupyterHub has prepared it, before its
    handler reads it."""
    from jupyterhub.apihandlers.users import UserServerAPIHandler

    prepare = UserServerAPIHandler.prepare
    if getattr(prepare, "checks_options", False):
        return

    async def checked_prepare(self):
        await prepare(self)
        if self.request.method in ("POST", "PUT", "PATCH"):
            # read as JupyterHub's handler reads it (a body that is not JSON: its 400)
            check_server_body(self.request.method, self.get_json_body())

    checked_prepare.checks_options = True
    UserServerAPIHandler.prepare = checked_prepare
