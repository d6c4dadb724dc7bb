"""A Content-Security-Policy of its own on the instructor's Formgrader pages.

A server extension of the instructor's environment (install.sh copies this file
into it and enables it). Student work is cleaned before Formgrader shows it;
this is the second layer: on every page under <base_url>formgrader the browser
runs no inline event handler (``onerror=``, ``onload=``...), loads scripts,
styles, images and connections from this server only, and nothing is sent to
or framed by another origin. Formgrader's own inline ``<script>`` blocks still
run (they carry the page's settings); its MathJax, loaded from a CDN, does not.
"""

from tornado.web import OutputTransform

POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
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


def policy_transform(prefix):
    """A tornado output transform setting POLICY on the pages under ``prefix``."""

    class FormgraderPolicy(OutputTransform):
        def __init__(self, request):
            self.applies = request.path.startswith(prefix)

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            if self.applies:
                headers["Content-Security-Policy"] = POLICY
            return status_code, headers, chunk

    return FormgraderPolicy


def _jupyter_server_extension_points():
    return [{"module": "formgrader_csp"}]


def _load_jupyter_server_extension(serverapp):
    prefix = serverapp.base_url.rstrip("/") + "/formgrader"
    serverapp.web_app.add_transform(policy_transform(prefix))
    serverapp.log.info("Formgrader pages get their own Content-Security-Policy")
