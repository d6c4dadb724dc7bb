"""A Content-Security-Policy of its own on the instructor's Formgrader pages.

A server extension of the instructor's environment (install.sh copies this file
into it and enables it). Student work is cleaned before Formgrader shows it;
this is the second layer: on every page under <base_url>formgrader the browser
runs no inline event handler (``onerror=``, ``onload=``...), loads scripts,
styles, images and connections from this server only, and nothing is sent to
or framed by another origin. Of inline scripts only the page's own run:
Formgrader's ``<script>`` blocks (they carry the page's settings) and the
course's offline MathJax, each allowed by its hash, computed from the page as
the server sends it (``coursegrader.csp``), so no ``javascript:`` address in a
student's work runs, even one that got past the cleaning.
"""

from tornado.web import OutputTransform

from coursegrader.csp import inline_script_hashes

#: The policy, ``{scripts}`` standing for 'self' and the hashes of the page's inline scripts.
POLICY = "; ".join([
    "default-src 'self'",
    "script-src {scripts}",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
])


def policy_for(page: bytes) -> str:
    """POLICY for one page: the inline scripts it holds run, no other inline code.

    ``page`` is what the server sends first; a script in a later part of a
    page sent in pieces is refused (Formgrader writes each page at once).
    """
    scripts = inline_script_hashes(page.decode("utf-8", errors="replace"))
    return POLICY.format(scripts=" ".join(["'self'", *scripts]))


def policy_transform(prefix):
    """A tornado output transform setting :func:`policy_for` on the pages under ``prefix``."""

    class FormgraderPolicy(OutputTransform):
        def __init__(self, request):
            self.applies = request.path.startswith(prefix)

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            # a 304 (Not Modified) has no body to hash, and its headers would
            # replace those the browser keeps with the page: the page's policy
            # (its scripts' hashes, frames from this server) stands, and the
            # server's default one is not sent in its place
            if self.applies and status_code == 304:
                headers.pop("Content-Security-Policy", None)
            elif self.applies:
                # only a page has scripts of its own to allow
                is_page = headers.get("Content-Type", "").startswith("text/html")
                headers["Content-Security-Policy"] = policy_for(chunk if is_page else b"")
            return status_code, headers, chunk

    return FormgraderPolicy


def _jupyter_server_extension_points():
    return [{"module": "formgrader_csp"}]


def _load_jupyter_server_extension(serverapp):
    prefix = serverapp.base_url.rstrip("/") + "/formgrader"
    serverapp.web_app.add_transform(policy_transform(prefix))
    serverapp.log.info("Formgrader pages get their own Content-Security-Policy")
