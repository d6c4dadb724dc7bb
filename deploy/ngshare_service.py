"""Run ngshare as a JupyterHub service: on the service's host only, answering
data a browser never runs, with no browser login, taking only plain file names.

ngshare is a service on the hub's one origin (/services/ngshare/). As it ships:

* it listens on every interface (0.0.0.0) at the port of
  $JUPYTERHUB_SERVICE_URL, as a Kubernetes pod must. On one server the service
  is reached through the hub's proxy on loopback, so it binds the host named in
  $JUPYTERHUB_SERVICE_URL instead;
* it answers its JSON API with Tornado's default ``Content-Type: text/html``,
  nothing escaped, and stores any file name without ``/``: a submitted file
  named ``<svg onload=...>`` made the instructor's listing of that submission an
  HTML page of the hub's origin running the student's script. Every answer
  here (errors, redirects and 404s too) is ``application/json`` with
  ``X-Content-Type-Options: nosniff`` and a Content-Security-Policy that lets
  nothing load, run or frame it; errors and unknown paths answer a JSON
  ``{"success": false, "message": ...}``;
* it has a browser login (``oauth_callback``) that keeps the user's hub token
  in a cookie scripts can read. nbgrader's exchange calls ngshare with the API
  token of the user's server, in the Authorization header, so the login is
  gone, a cookie is never taken for a user, and a call without a valid token
  is refused (403), not sent to a login;
* a submission's file paths must be plain (``coursegrader/plain_paths.py``): no control
  character, none of ``<>"\\``, no part that starts with ``.`` or is named
  ``timestamp.txt`` (the instructor's collect writes the service's time
  there); spaces, apostrophes and accented letters are a name's own.
  JupyterLab's checkpoints (``.ipynb_checkpoints/``), which ngshare_exchange's
  submit sends, are left out; anything else is refused at submit with a JSON
  error naming the file, the character and a name to rename it to;
* a submission may take at most 20 MB and hold 200 files, and one person's kept
  submissions 200 MB and 2,000 files together, each file counted as the whole
  disk blocks it takes and its name (:data:`MAX_SUBMISSION_BYTES`,
  :data:`MAX_KEPT_BYTES`, :data:`MAX_FILES`, :data:`MAX_KEPT_FILES`): ngshare keeps
  every submission, each file a root's file on the hub's disk, so a student
  submitting 70 MB again and again, or 20,000 empty files at a time, would fill
  it, and no student's quota counts them. A submission holding more than 200
  files' worth of JSON structure (outside its strings) is refused before it is
  parsed; one with no file is refused, and one person keeps 500 submissions
  at most;
* Tornado's line for a request holds its whole URI, the query included (7 KB
  of log a request, from anyone): its line here is the hub's one short line
  (``request_log.py``).
"""

import importlib.util
import json
import logging
import os
import re
import sys
from urllib.parse import urlparse

import sqlalchemy
from tornado.httpserver import HTTPServer
from tornado.web import Application, Finish, RequestHandler

from ngshare import ngshare

import request_bodies  # deploy/request_bodies.py, next to this file
import request_log  # deploy/request_log.py, next to this file
import request_rates  # deploy/request_rates.py, next to this file

HOST = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"]).hostname
HEADERS = {
    "Content-Type": "application/json; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
_listen = HTTPServer.listen
#: A JSON string literal.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: What one submission's files may take, and what one person's kept submissions may
#: take together: ngshare keeps every submission, as files of its own (root's) on
#: the hub's disk, where no student's disk quota counts them.
MAX_SUBMISSION_BYTES = 20 * 1000**2
MAX_KEPT_BYTES = 200 * 1000**2
#: Files one submission may hold, and one person's kept submissions together: each
#: is a file of ngshare's own (an inode) and a row of its database.
MAX_FILES = 200
MAX_KEPT_FILES = 2000
#: Submissions one person's kept submissions may number (an empty one is refused).
MAX_KEPT_SUBMISSIONS = 500
#: The request bodies ngshare holds at once, and those of any one client
#: (request_bodies.py).
BODY_BUDGET = 256 * 1024**2
BODY_SHARE = 32 * 1024**2
#: A file takes whole blocks of the disk: each counts at least one.
BLOCK = 4096


def _load_plain_paths():
    """coursegrader/plain_paths.py of this checkout (standard library only): the
    course's one policy on submitted file names, without the grader's package."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, os.pardir, "coursegrader", "plain_paths.py")
    spec = importlib.util.spec_from_file_location("plain_paths", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plain_paths = _load_plain_paths()


def listen_on_service_host(self, port, address="", **kwargs):
    # submissions arrive whole as JSON, at most 20 MB of files (about 28 MB as
    # base64 in a form): a flood of bodies holds at most 256 MiB at once
    # (request_bodies.py), and one client (a student's server, by its joined
    # address, or her laptop) at most 32 MiB, which admits one whole submission
    # of hers (20 MB of files are a body of 28.3 MB, 27 MiB, as ngshare_exchange
    # sends them). Every student has two addresses (her server's and her own):
    # filling the budget takes eight
    request_bodies.bound(self, BODY_BUDGET, "ngshare", share=BODY_SHARE)
    log_requests()
    listened = _listen(self, port, HOST, **kwargs)
    # at most 50 requests a second from one client, 500 at once and 500 more
    # waiting, as the hub (request_rates.py)
    request_rates.rate(self, request_rates.RATE, request_rates.BURST,
                       name="ngshare")
    return listened


def log_requests():
    """Log Tornado's warnings (the bodies cut by the budget) and its requests to
    stderr, which the hub keeps in its log. ngshare sets up no logging, and its
    database migration, just before it listens, sets up alembic's and disables
    every logger already made: such cuts left no line anywhere."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        "[%(levelname)1.1s %(asctime)s ngshare] %(message)s"))
    for name, level in (("tornado.general", logging.WARNING),
                        ("tornado.application", logging.WARNING),
                        ("tornado.access", logging.INFO)):
        logger = logging.getLogger(name)
        logger.disabled = False
        logger.setLevel(level)
        if not any(getattr(h, "course_ngshare", False) for h in logger.handlers):
            handler.course_ngshare = True
            logger.addHandler(handler)
        logger.propagate = False


def json_headers(self):
    for name, value in HEADERS.items():
        self.set_header(name, value)


def json_error_page(self, status_code, **kwargs):
    self.finish(json.dumps({"success": False, "message": self._reason}))


def not_found(self, *args, **kwargs):
    self.set_status(404)
    self.finish(json.dumps({"success": False, "message": "Not found"}))


def no_browser_login(self, *args, **kwargs):
    not_found(self)


def token_from_header_only(self):
    """The caller's hub token, from the Authorization header; never from a cookie."""
    header = self.request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() in ("token", "bearer") and token.strip():
        return token.strip()
    return None


_prepare = ngshare.MyRequestHandler.prepare


def prepare_token_callers_only(self):
    """ngshare's prepare; a caller without a valid token is refused here (403), never
    sent to a login."""
    _prepare(self)
    if self.user is None:
        self.json_error(403, "ngshare is called with a hub API token "
                             "(Authorization: token ...); no token, or not a valid one")


_unpack = ngshare.MyHelpers.json_files_unpack


def unpack_plain_paths(self, json_str, target):
    """ngshare's unpacking of a submission's files, after checking their shape, every
    path and what the submission and the submitter's kept submissions take."""
    if isinstance(json_str, str) and structure(json_str) > 8 * MAX_FILES + 64:
        # before it is parsed: millions of tiny entries took 13 times their body
        refuse(self, f"submission refused: more than {MAX_FILES} files")
    try:
        files = json.loads(json_str) if json_str is not None else None
    except ValueError:
        files = None
    refusal = shape_refusal(files)
    if refusal:
        refuse(self, refusal)
    files = [entry for entry in files if not plain_paths.left_out(entry["path"])]
    for entry in files:
        refusal = plain_paths.refusal(entry["path"])
        if refusal:
            refuse(self, refusal)
    refusal = too_much(files, kept_by(self.db, self.user))
    if refusal:
        refuse(self, refusal)
    try:
        return _unpack(self, json.dumps(files), target)
    except Finish:   # ngshare's own refusal (a file that is not base64): nothing kept
        self.db.rollback()
        raise


def shape_refusal(files):
    """Why ``files``, a submission's parsed JSON, is not a list of files, each an
    object whose ``path`` and ``content`` (base64) are strings; or None."""
    if not isinstance(files, list):
        return ("submission refused: its files must be a JSON list of objects, each with "
                "a path and a content")
    for number, entry in enumerate(files, 1):
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("content"), str)):
            return (f"submission refused: its file number {number} is not an object with a "
                    f"path and a content, both strings")
        if not (_is_text(entry["path"]) and _is_text(entry["content"])):
            # JSON's \udcff: ngshare wrote the files, then failed (500) to record them,
            # leaving them on disk where no one's share counted them
            return (f"submission refused: its file number {number} has a path or a content "
                    f"that is not valid text (an unpaired surrogate)")
    return None


def _is_text(string):
    """Whether ``string`` encodes as UTF-8 (it holds no unpaired surrogate)."""
    try:
        string.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuse(handler, message):
    """Answer a submission 400 with ``message``, leaving nothing of it in ngshare's
    database: ngshare adds the submission to its session before unpacking its
    files, and the next request's commit would keep it, empty."""
    handler.db.rollback()
    handler.json_error(400, message)


def structure(json_str):
    """The commas, colons, braces and brackets of a JSON text outside its strings (a
    file's name may hold any of them): about five per submitted file."""
    return sum(map(_STRING.sub('""', json_str).count, "{[,:"))


def _mb(size):
    return f"{size / 1e6:.1f} MB"


def on_disk(size, path):
    """What a file of ``size`` bytes named ``path`` takes: whole disk blocks, and its
    name in ngshare's database."""
    return -(-max(size, 1) // BLOCK) * BLOCK + len(path or "")


def too_much(files, kept):
    """Why a submission of ``files`` (objects with a string ``path`` and a base64
    ``content``: :func:`shape_refusal`) is refused for its size or its number of
    files, its submitter keeping ``kept`` (bytes on disk, files) in submissions
    already; or None."""
    if len(files) > MAX_FILES:
        return (f"submission refused: it holds {len(files)} files, more than the "
                f"{MAX_FILES} one submission may hold; leave the others out of your "
                f"problem set's folder, then submit again")
    if not files:
        return "submission refused: it holds no file"
    kept_bytes, kept_files, kept_submissions = kept
    if kept_submissions >= MAX_KEPT_SUBMISSIONS:
        return (f"submission refused: the course's exchange keeps {kept_submissions} "
                f"submissions of yours, the most each person may keep; ask your instructor")
    if kept_files + len(files) > MAX_KEPT_FILES:
        return (f"submission refused: your submissions kept by the course's exchange hold "
                f"{kept_files} files, and this one {len(files)} more would pass the "
                f"{MAX_KEPT_FILES} each person may keep; ask your instructor")
    size = sum(on_disk(len(entry["content"]) * 3 // 4, entry["path"]) for entry in files)
    if size > MAX_SUBMISSION_BYTES:
        return (f"submission refused: its files take {_mb(size)}, more than the "
                f"{_mb(MAX_SUBMISSION_BYTES)} one submission may take; leave large data "
                f"files out of your problem set's folder, then submit again")
    if kept_bytes + size > MAX_KEPT_BYTES:
        return (f"submission refused: your submissions kept by the course's exchange take "
                f"{_mb(kept_bytes)}, and this one {_mb(size)} more would pass the "
                f"{_mb(MAX_KEPT_BYTES)} each person may keep; ask your instructor")
    return None


def kept_by(db, user):
    """(bytes on disk, files, submissions) of every submission ``user`` has made, in
    every course: two queries, whatever she has kept."""
    submission, file = ngshare.Submission, ngshare.File
    with db.no_autoflush:   # not the one being made, which ngshare has already added
        files = (db.query(file.size, file.filename)
                 .join(submission.files.property.secondary,
                       submission.files.property.secondaryjoin)
                 .join(submission, submission.files.property.primaryjoin)
                 .filter(submission.student_id == user.id).all())
        submissions = (db.query(sqlalchemy.func.count(submission._id))
                       .filter(submission.student_id == user.id).scalar())
    return (sum(on_disk(size or 0, name) for size, name in files), len(files),
            submissions)


def log_request(self, handler):
    """One short line per request (request_log.py), as the hub's and the book's: not
    Tornado's, which writes the whole URI, its query included."""
    request_log.log_request(handler)


def install():
    """Change ngshare's handlers as this module's docstring says."""
    HTTPServer.listen = listen_on_service_host
    Application.log_request = log_request
    request_log.install()
    RequestHandler.set_default_headers = json_headers
    RequestHandler.write_error = json_error_page
    ngshare.NotFoundHandler.get = not_found
    for method in ("get", "post", "put", "delete", "patch"):
        setattr(ngshare.NotFoundHandler, method, not_found)
        setattr(ngshare.JupyterHubLoginHandler, method, no_browser_login)
    ngshare.MyRequestHandler.get_current_token = token_from_header_only
    ngshare.MyRequestHandler.prepare = prepare_token_callers_only
    ngshare.SubmitAssignment.json_files_unpack = unpack_plain_paths


if __name__ == "__main__":
    install()
    ngshare.main(sys.argv[1:])
