"""Whether the exchange took a submission, decided from what the exchange answered.

ngshare_exchange 0.5.3's submit, when ngshare did not take a submission (400
with its reason, 413 when a request-body budget cut the upload and closed the
connection, a connection dropped), logged "Failed to submit." and returned as
if it had gone in: `nbgrader submit` printed the course's receipt and exited
0, and the Assignments tab answered success, while ngshare held nothing.
nbgrader's folder exchange raised whatever error its copy met, after leaving
what it had written in inbound/, where the instructor's collect would find it.

Here the submit of either exchange fails with nbgrader's ``ExchangeError`` and
one sentence (:func:`not_submitted`): the problem set was NOT submitted, and
why (the exchange's HTTP status and its message, or what could not be
written). `nbgrader submit` then exits 1, the Assignments tab shows success
false with the sentence (submit_check.py's ``submit_explained``), and no
receipt is printed: submit_check.py's ``checked`` prints it only after the
submit returned. Success is what the exchange itself answered (ngshare: 200,
``success`` true and the time it dated the submission; the folder: every file
written), never what is in the student's folder.

Installed into the students' environment by install.sh, beside submit_check.py;
user_nbgrader_config.py makes these the bases of the checked submit.
"""

import os
import shutil
from http import HTTPStatus

import requests
from nbgrader.exchange.default.submit import ExchangeSubmit as _DefaultFolderSubmit
from ngshare_exchange.submit import ExchangeSubmit as _DefaultNgshareSubmit

__all__ = ["FolderSubmit", "NgshareSubmit", "not_submitted"]

#: Seconds to connect to ngshare (and for any one stall while sending), and to
#: wait for its answer once the submission is sent: a hung exchange is a failure
#: said, not a command that never ends.
TIMEOUT = (60, 600)


def not_submitted(assignment_id, why):
    """The one sentence a student reads when her submission did not go in."""
    return (f"{assignment_id} was NOT submitted: {why}. Your files are unchanged; "
            "submit again (in a minute if the exchange was busy), and if it keeps "
            "failing, tell your instructor before the deadline.")


def _sent(body):
    """How large the submission was as sent (ngshare_exchange's form of base64 JSON)."""
    size = sum(len(v) for v in body.values())
    shown = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"
    return f"the submission was {shown} as sent"


def _status(code):
    try:
        return f"HTTP {code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


class NgshareSubmit(_DefaultNgshareSubmit):
    """ngshare_exchange's submit, whose sending fails unless ngshare took it."""

    def post_submission(self, src_path):
        """Send the submission; the time ngshare dated it, or fail saying why not.

        ngshare_exchange's own sending answers None for every failure, its
        reason only in its log; its caller then returns as if submitted."""
        assignment = self.coursedir.assignment_id
        body = self.encode_dir(src_path, ignore=self.ignore_patterns())
        url = self.ngshare_url + self.encode_url(
            f"/submission/{self.coursedir.course_id}/{assignment}")
        # the server's token, as ngshare_exchange's own requests send it
        token = os.environ.get("JUPYTERHUB_API_TOKEN")
        headers = {"Authorization": f"token {token}"} if token else None
        try:
            response = requests.post(url, data=body, headers=headers, timeout=TIMEOUT)
        except requests.RequestException as exc:
            self.fail(not_submitted(assignment, (
                "the connection to the course's exchange failed before it answered "
                f"({type(exc).__name__}; {_sent(body)}, and the exchange cuts a "
                "submission too large for what it takes at once this way)")))
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            answer = {}
        if response.status_code == 200 and answer.get("success") is True \
                and answer.get("timestamp"):
            return answer["timestamp"]
        # ngshare's own refusals say why; a body cut by a size limit (413, or
        # Tornado's 400 for a length over its maximum) comes with no reason
        message = answer.get("message") or (
            f"no reason given; {_sent(body)}: if the folder holds large data files, "
            "leave them out of it")
        self.fail(not_submitted(assignment, (
            f"the course's exchange answered {_status(response.status_code)}: {message}")))


class FolderSubmit(_DefaultFolderSubmit):
    """nbgrader's submit into a shared folder, which fails saying what could not
    be written, and takes back what it wrote of the submission."""

    def copy_files(self):
        try:
            super().copy_files()
        except OSError as exc:
            # what was written of it would be collected as her submission, and
            # listed in the Assignments tab (from the cache) as handed in
            self._withdraw()
            self.fail(not_submitted(self.coursedir.assignment_id, (
                f"the course's exchange folder could not take it: {_unwritten(exc)}")))

    def _withdraw(self):
        name = self.assignment_filename
        cached = name.rsplit("+", 1)[0] if self.add_random_string else name
        for path in (os.path.join(self.inbound_path, name),
                     os.path.join(self.cache_path, cached)):
            shutil.rmtree(path, ignore_errors=True)
            if os.path.lexists(path):
                self.log.error("a partial submission is left at %s: it could not be "
                               "removed", path)


def _unwritten(exc):
    """What could not be copied, and why: shutil.copytree's Error lists every file."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        return "; ".join(f"{os.path.basename(str(src))}: {why}"
                         for src, _, why in exc.args[0])
    return f"{type(exc).__name__}: {exc}"
