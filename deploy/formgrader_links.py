"""Formgrader's links to the course's folders reach them on the hub.

A server extension of the instructor's environment (install.sh copies this file
into it and enables it).  On Manage Assignments, an assignment's name and its
Preview icon link to its source and release folders.  Inside JupyterLab's
Formgrader tab nbgrader opens them in JupyterLab; on a Formgrader page of its
own (a browser tab, a bookmark) nbgrader 0.9.6 points them at ``/tree/<path>``,
an address without the server's ``/user/<name>/`` prefix, which the hub
answers with "404 : None".  Here those pages get a few lines of script, after
nbgrader's own, that point the links at ``<base_url>/lab/tree/<path>``: the
folder, in this server's JupyterLab.
"""

from tornado.web import OutputTransform

from coursegrader.csp import add_inline_script

#: Run after nbgrader's utils.js has defined linkTo(type, path), before the
#: page's views call it; base_url is set by the page itself.
SCRIPT = b"""<script>
/* formgrader_links: a folder link outside JupyterLab opens in this server's JupyterLab */
(function () {
  if (typeof linkTo !== "function" || window !== window.top) { return; }
  linkTo = function (type, path) {
    var address = base_url + "/lab/tree/" + path.split("/").map(encodeURIComponent).join("/");
    return function (_, el) { return $(el).attr("href", address).attr("target", "_blank")[0]; };
  };
})();
</script>
"""


def links_transform(prefix):
    """A tornado output transform adding SCRIPT to the HTML pages under ``prefix``."""

    class FormgraderLinks(OutputTransform):
        def __init__(self, request):
            self.applies = request.path.startswith(prefix) and "/api/" not in request.path \
                and "/static/" not in request.path

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            html = headers.get("Content-Type", "").startswith("text/html")
            if self.applies and html and status_code == 200:
                # a policy of hashes set before this script was added
                # (formgrader_csp.py) lets it run too
                chunk = add_inline_script(chunk, headers, SCRIPT)
            return status_code, headers, chunk

    return FormgraderLinks


def _jupyter_server_extension_points():
    return [{"module": "formgrader_links"}]


def _load_jupyter_server_extension(serverapp):
    prefix = serverapp.base_url.rstrip("/") + "/formgrader"
    serverapp.web_app.add_transform(links_transform(prefix))
    serverapp.log.info("Formgrader's folder links open in this server's JupyterLab")
