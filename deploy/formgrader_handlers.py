"""Formgrader's buttons and links that nbgrader wires with inline handlers work
under the page's policy.

A server extension of the instructor's environment (install.sh copies this file
into it and enables it).  nbgrader 0.9.6 wires three controls of Formgrader's
pages with an inline ``onclick=``, which the policy for those pages never runs
(``script-src-attr 'none'``, formgrader_csp.py), so each did nothing:

* "Show All Names" on a notebook's list of submissions (Manual Grading),
  ``toggleAllNames()``;
* "Add new assignment..." on Manage Assignments, ``createAssignmentModal()``;
* "Add new student..." on Manage Students, ``createStudentModal()``.

Here the server takes each of these attributes out of the page it sends
(Chromium reports an inline handler that the policy refuses as soon as the
page is read), leaving ``data-bound`` with the function's name, and adds a
few lines of script, after nbgrader's own, that bind the same function as an
ordinary handler.  The eye beside a student's name on the grading page is
bound by the course's template of that page
(``coursegrader/templates/formgrade/course.html.j2``): here its two inline
handlers are only taken out.
"""

from tornado.web import OutputTransform

from coursegrader.csp import add_inline_script

#: nbgrader's inline handlers, as its templates write them, and what replaces each.
INLINE = {
    b' onclick="toggleAllNames()"': b' data-bound="toggleAllNames"',
    b' onClick="createAssignmentModal();"': b' data-bound="createAssignmentModal"',
    b' onClick="createStudentModal();"': b' data-bound="createStudentModal"',
    # the grading page's eye, which the course's template binds itself
    b' onclick="toggle_name(true);"': b"",
    b' onclick="toggle_name(false);"': b"",
}

#: Run once the page is loaded, when nbgrader's scripts have defined the functions.
SCRIPT = b"""<script>
/* formgrader_handlers: nbgrader's inline onclick handlers, bound by a script of the page's own */
window.jQuery && jQuery(function ($) {
  var calls = {
    toggleAllNames: function () { toggleAllNames(); },
    createAssignmentModal: function () { createAssignmentModal(); },
    createStudentModal: function () { createStudentModal(); }
  };
  $("button[data-bound], a[data-bound]").each(function () {
    var call = calls[this.getAttribute("data-bound")];
    if (call) {
      $(this).on("click", function (event) { event.preventDefault(); call(); });
    }
  });
});
</script>
"""


def handlers_transform(prefix):
    """A tornado output transform adding SCRIPT to the HTML pages under ``prefix``."""

    class FormgraderHandlers(OutputTransform):
        def __init__(self, request):
            self.applies = request.path.startswith(prefix) and "/api/" not in request.path \
                and "/static/" not in request.path

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            html = headers.get("Content-Type", "").startswith("text/html")
            if self.applies and html and status_code == 200:
                for handler, bound in INLINE.items():
                    chunk = chunk.replace(handler, bound)
                # a policy of hashes set before this script was added
                # (formgrader_csp.py) lets it run too
                chunk = add_inline_script(chunk, headers, SCRIPT)
                if "Content-Length" in headers:
                    headers["Content-Length"] = str(len(chunk))
            return status_code, headers, chunk

    return FormgraderHandlers


def _jupyter_server_extension_points():
    return [{"module": "formgrader_handlers"}]


def _load_jupyter_server_extension(serverapp):
    prefix = serverapp.base_url.rstrip("/") + "/formgrader"
    serverapp.web_app.add_transform(handlers_transform(prefix))
    serverapp.log.info("Formgrader's buttons wired with inline handlers work under its policy")
