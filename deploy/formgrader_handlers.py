"""Formgrader's buttons and links that nbgrader wires with inline handlers work
under the page's policy, and the buttons that run nbgrader leave the server answering.

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

Formgrader's buttons that run nbgrader (generate, release and unrelease an
assignment, collect, autograde, generate and release feedback) are answered
here rather than by nbgrader's own handlers of the same addresses, which run
nbgrader in the server's only thread: while a submission was autograded (its
notebook run for as long as its budget allows) the instructor's whole server,
its files, terminals and Formgrader itself, answered nothing.  Here each of
these requests runs nbgrader in a worker thread of the server's own, one
request at a time in the order they came (two clicks never grade the same
gradebook at once), and the server answers everything else meanwhile.  The
request's answer is nbgrader's, unchanged: the box under the button shows what
nbgrader logged during that run, and only that.  Autograde is graded as
``make autograde`` grades each submission (``coursegrader.tools.batch.grade_one``):
its line goes to ``gradelog/``, and a submission that fails to grade keeps no
earlier grade (the export gives 0, "not graded", with the reason) rather than
the grade of the hand-in it replaced.
"""

import copy
import json
from concurrent.futures import ThreadPoolExecutor

from nbgrader.apps.api import NbGraderAPI
from nbgrader.server_extensions.formgrader.base import (
    BaseApiHandler, check_notebook_dir, check_xsrf)
from tornado import web
from tornado.ioloop import IOLoop

from coursegrader.csp import page_script_transform
from coursegrader.tools.batch import grade_one

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
    """A tornado output transform taking INLINE out of the HTML pages under
    ``prefix`` and adding SCRIPT to them."""
    return page_script_transform(prefix, SCRIPT, INLINE)


#: The one thread that runs nbgrader for Formgrader's buttons, a request at a time.
WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="formgrader-nbgrader")


def _run_api(coursedir, authenticator, log, level, method, args):
    """``NbGraderAPI.<method>(*args)``, in the worker thread.

    nbgrader's API sets the course directory's assignment and student for the
    run (and restores them), and captures its run's log by adding a handler to
    its logger: here it gets a copy of the course directory, and a logger of
    its own (a child of the server's, so the server's log still shows each
    line), so the server's other requests neither see the run's assignment nor
    land in its box.
    """
    coursedir.parent.load_config_file()
    api = NbGraderAPI(coursedir, authenticator, parent=coursedir.parent, log=log)
    api.log_level = level
    return getattr(api, method)(*args)


def _autograde(coursedir, assignment, student):
    """Formgrader's autograde of one submission, as ``make autograde`` grades it
    (:func:`coursegrader.tools.batch.grade_one`, in the worker thread): its line in
    ``gradelog/``, and a failed submission keeping no earlier grade, which the
    export then gives as 0, "not graded".  Answered as nbgrader's API answers."""
    try:
        entry, log = grade_one(coursedir.root, assignment, student, coursedir.db_url)
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    if entry["status"] == "graded":
        return {"success": True, "log": log}
    # first, and in short lines: nbgrader's box shows it in a <pre> that does not wrap
    return {"success": False, "log": log,
            "error": "Not graded: the gradebook keeps no earlier\n"
                     "grade of this submission, and the export\n"
                     "gives it 0, \"not graded\", with the reason\n"
                     "below, until a submission of the student's\n"
                     f"grades.\n\n{entry['error']}"}


class WorkerApiHandler(BaseApiHandler):
    """A Formgrader API request whose nbgrader run goes to :data:`WORKER`."""

    #: The NbGraderAPI method the request runs.
    method = None

    async def run_api(self, *args):
        formgrader = self.settings["nbgrader_formgrader"]
        log = formgrader.log.getChild("formgrader")
        coursedir = copy.copy(self.coursedir)
        coursedir.log = log
        if self.method == "autograde":
            call = (_autograde, coursedir, *args)
        else:
            call = (_run_api, coursedir, self.authenticator, log, self.log.level,
                    self.method, args)
        result = await IOLoop.current().run_in_executor(WORKER, *call)
        self.write(json.dumps(result))

    @web.authenticated
    @check_xsrf
    @check_notebook_dir
    async def post(self, *args):
        await self.run_api(*args)


def _worker_handler(method):
    return type(f"Worker_{method}", (WorkerApiHandler,), {"method": method})


#: nbgrader's addresses (apihandlers.default_handlers) whose requests run nbgrader.
WORKER_HANDLERS = [
    (r"/formgrader/api/assignment/([^/]+)/assign", _worker_handler("generate_assignment")),
    (r"/formgrader/api/assignment/([^/]+)/unrelease", _worker_handler("unrelease")),
    (r"/formgrader/api/assignment/([^/]+)/release", _worker_handler("release_assignment")),
    (r"/formgrader/api/assignment/([^/]+)/collect", _worker_handler("collect")),
    (r"/formgrader/api/assignment/([^/]+)/generate_feedback",
     _worker_handler("generate_feedback")),
    (r"/formgrader/api/assignment/([^/]+)/release_feedback",
     _worker_handler("release_feedback")),
    (r"/formgrader/api/assignment/([^/]+)/([^/]+)/generate_feedback",
     _worker_handler("generate_feedback")),
    (r"/formgrader/api/assignment/([^/]+)/([^/]+)/release_feedback",
     _worker_handler("release_feedback")),
    (r"/formgrader/api/submission/([^/]+)/([^/]+)/autograde", _worker_handler("autograde")),
]


def _jupyter_server_extension_points():
    return [{"module": "formgrader_handlers"}]


def _load_jupyter_server_extension(serverapp):
    prefix = serverapp.base_url.rstrip("/") + "/formgrader"
    serverapp.web_app.add_transform(handlers_transform(prefix))
    # Extensions load in the order of their names, this one before nbgrader's
    # formgrader; of two handlers of one address tornado takes the first added.
    base = serverapp.base_url.rstrip("/")
    serverapp.web_app.add_handlers(".*$", [(base + pattern, handler)
                                           for pattern, handler in WORKER_HANDLERS])
    serverapp.log.info("Formgrader's collect, autograde and feedback run in a worker thread")
    serverapp.log.info("Formgrader's buttons wired with inline handlers work under its policy")
