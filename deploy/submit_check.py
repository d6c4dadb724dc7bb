"""Submitting a problem set is not silent: warn first, then say what went in.

Installed into the students' environment by install.sh; user_nbgrader_config.py
makes nbgrader's submit (the Assignments tab's Submit button and `nbgrader
submit`) a subclass of the exchange's own made by ``checked``.

Before anything goes in, every notebook of the problem set is checked the way
`nbgrader validate` checks it, and compared with the release. If one is
unchanged (no answer written) or has failing checks, nothing is submitted and
the student is told why (the Assignments tab shows it in its "Invalid
Submission" box, the command prints it); submitting the same notebooks again
hands them in as they are. After a submission the log names each notebook, its
size and its SHA-256, and the time: only once the exchange's submit returned,
which it does only when the exchange took the submission (the bases
user_nbgrader_config.py gives ``checked``, submit_outcome.py's, fail otherwise,
saying why, and that sentence is what the command and the tab show).

Also a server extension of the students' environment (install.sh enables it):
nbgrader's Assignments tab shows whatever its server answers when a submission
fails, and nbgrader 0.9.6 answers with the whole Python traceback, the reason
in its last lines.  Here the tab gets the reason alone (the message of the
exchange's error, such as the one above), and the traceback goes to the
server's log.
"""

import fnmatch
import hashlib
import json
import os
import traceback
from datetime import datetime, timezone
from pathlib import Path

import nbformat
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import compute_checksum, find_all_notebooks
from nbgrader.validator import Validator

WARNED = os.path.join(os.path.expanduser("~"), ".local", "share", "kernel-course",
                      "submit-warnings.json")


def unchanged(nb):
    """True when no answer cell of ``nb`` differs from the released one."""
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    return bool(answers) and all(
        c.metadata.nbgrader.get("checksum") == compute_checksum(c) for c in answers)


def submitted_notebooks(folder, config):
    """The notebooks of ``folder`` that nbgrader submits: not those its
    ``CourseDirectory.ignore`` leaves out (JupyterLab's .ipynb_checkpoints)."""
    ignore = CourseDirectory(config=config).ignore
    return sorted(name for name in find_all_notebooks(folder)
                  if not any(fnmatch.fnmatch(part, pattern)
                             for part in Path(name).parts for pattern in ignore))


def problems(folder, config):
    """What the student should hear about the notebooks in ``folder``, one line each."""
    lines = []
    for name in submitted_notebooks(folder, config):
        path = os.path.join(folder, name)
        if unchanged(nbformat.read(path, as_version=4)):
            lines.append(f"{name} is unchanged from the release: no answer is written in it.")
            continue
        results = Validator(config=config).validate(path)
        failed = results.get("failed", [])
        if results.get("changed") or results.get("type_changed"):
            lines.append(f"{name}: cells that must not change were changed.")
        if failed:
            lines.append(f"{name}: {len(failed)} check(s) fail; `nbgrader validate {name}` "
                         "shows which.")
    return lines


def digest(folder, config):
    h = hashlib.sha256()
    for name in submitted_notebooks(folder, config):
        with open(os.path.join(folder, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def _warned():
    try:
        with open(WARNED) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _remember(key, value):
    seen = _warned()
    seen[key] = value
    os.makedirs(os.path.dirname(WARNED), exist_ok=True)
    with open(WARNED, "w") as f:
        json.dump(seen, f)


def checked(base):
    """A subclass of the exchange's submit class ``base`` that warns first."""

    class CheckedSubmit(base):
        def init_src(self):
            super().init_src()
            lines = problems(self.src_path, self.config)
            key = f"{self.coursedir.course_id}/{self.coursedir.assignment_id}"
            now = digest(self.src_path, self.config)
            if lines and _warned().get(key) != now:
                _remember(key, now)
                self.fail("Not submitted yet:\n" + "\n".join(lines) + "\nTo submit "
                          "it as it is, submit again without changing it.")
            for line in lines:
                self.log.warning("submitted anyway: %s", line)

        def copy_files(self):
            # raises when the exchange did not take it: then no receipt
            super().copy_files()
            when = datetime.now(timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
            for name in submitted_notebooks(self.src_path, self.config):
                with open(os.path.join(self.src_path, name), "rb") as f:
                    data = f.read()
                self.log.info("Submitted %s at %s: %s (%d bytes, sha256 %s)",
                              self.coursedir.assignment_id, when, name, len(data),
                              hashlib.sha256(data).hexdigest()[:16])

    return CheckedSubmit


def submit_explained(manager, course_id, assignment_id):
    """nbgrader's AssignmentList.submit_assignment, answering a failure with its
    reason rather than its traceback."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError, ExchangeFactory

    with manager.get_assignment_dir_config():
        try:
            config = manager.load_config()
            config.CourseDirectory.course_id = course_id
            config.CourseDirectory.assignment_id = assignment_id
            coursedir = CourseDirectory(config=config)
            submit = ExchangeFactory(config=config).Submit(
                coursedir=coursedir, authenticator=Authenticator(config=config), config=config)
            submit.start()
        except ExchangeError as exc:
            manager.log.warning("submit of %s refused: %s", assignment_id, exc)
            return {"success": False, "value": str(exc)}
        except Exception as exc:
            manager.log.error(traceback.format_exc())
            return {"success": False, "value": (
                f"{assignment_id} could not be submitted ({type(exc).__name__}: {exc}). "
                "Try again in a minute; if it keeps failing, tell your instructor.")}
    return {"success": True}


def _jupyter_server_extension_points():
    return [{"module": "submit_check"}]


def _load_jupyter_server_extension(serverapp):
    from nbgrader.server_extensions.assignment_list.handlers import AssignmentList

    AssignmentList.submit_assignment = submit_explained
    serverapp.log.info("the Assignments tab says why a submission is refused, in a sentence")
