"""Open a chapter or a problem set of the course in the user's own JupyterLab.

A server extension of both user environments (install.sh copies this file
into them and enables it).  The book, served by the hub at /services/book/,
links every chapter page and every problem set to
``<hub>/hub/user-redirect/course-open/<kind>/<name>``: the hub logs the user in
if needed, starts their server if needed, and sends them here, to
``/user/<them>/course-open/<kind>/<name>``, where

* ``chapter/NAME`` copies the chapter's notebook, as the book offers it for
  download, from the book service to ``~/kernel-methods-book/NAME.ipynb``;
* ``ps/NAME`` fetches problem set NAME from the course's exchange (ngshare or
  the shared folder) exactly as ``nbgrader fetch_assignment`` does, into
  ``~/NAME/``;

and JupyterLab opens the notebook.

Never overwriting (as nbgitpuller): a file the user already has is left as it
is; a later click opens their copy.  What was delivered is recorded in
``~/.local/share/kernel-course/course-open.json``.  When the book or the
release has changed since then, a file the user has not touched is brought up
to date, and a file they have changed is kept while the new version is saved
beside it, under ``~/course-updates/NAME-<version>/``, and a page offers both.

What the user controls is the kind and the name in the address: the kind is
one of two words and the name must match :data:`NAME`, so it can never be a
path; it only ever names a file of the book service or an assignment of the
exchange, which answer for what exists.  Everything is written as the user
(their own server), inside their home.  Only a top-level navigation that the
user made acts at once: an address they typed (``Sec-Fetch-Site: none``), or a
link on a page of the course: the book (``<base>/services/book/``) or their own
JupyterLab (``<base>/user/<them>/``), by ``Sec-Fetch-Site: same-origin`` and the
``Referer``.  Anything else changes nothing and gets a page with a button, a
form posted with the server's XSRF token: a request from another site (an
image, a frame, a link), a request the hub passes on (its page for a server
that is starting reloads itself by script and then sends on whoever reached
it, from whatever site, so such a request arrives as ``same-origin`` with the
hub's page as its ``Referer``), and one from another user's pages, which are
on the same origin.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import stat
import tempfile
import traceback
import urllib.error
import urllib.request
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_escape, url_path_join
from tornado import web

#: A chapter's or a problem set's name: never a path.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
#: Where chapters go, and updated versions that would replace the user's work.
BOOK_FOLDER = "kernel-methods-book"
UPDATES_FOLDER = "course-updates"
#: Where the book keeps each chapter's notebook (book/_ext/notebook_downloads.py).
CHAPTER_SOURCE = "_sources/book/chapters/{name}.ipynb"
RECORD = Path(".local", "share", "kernel-course", "course-open.json")
#: The book, served by the hub: its links are the course's.
BOOK_PAGES = url_path_join(os.environ.get("JUPYTERHUB_BASE_URL", "/"), "services/book/")
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_RECORD_BYTES = 2**20


class NotFound(Exception):
    """The book or the exchange has nothing by that name."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes) -> None:
    """Write a whole file at once (a partial file is never seen)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".course-open-",
                                     delete=False) as tmp:
        try:
            tmp.write(data)
            tmp.close()
            os.replace(tmp.name, path)
        except BaseException:
            os.unlink(tmp.name)
            raise


def read_record(home: Path) -> dict:
    """What was delivered to ``home``, or {} if the record is missing or not a
    small regular file of JSON (a link to /dev/zero is not read)."""
    try:
        fd = os.open(home / RECORD, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RECORD_BYTES:
            return {}
        with os.fdopen(fd, "rb", closefd=False) as f:
            record = json.loads(f.read(MAX_RECORD_BYTES + 1))
    except (OSError, ValueError):
        return {}
    finally:
        os.close(fd)
    return record if isinstance(record, dict) else {}


def write_record(home: Path, record: dict) -> None:
    _write(home / RECORD, json.dumps(record, indent=1, sort_keys=True).encode())


def beside(name: str, data: bytes, rel: str) -> str:
    """Where a new version of ``rel`` goes when the user's copy has changed."""
    return f"{UPDATES_FOLDER}/{name}-{_sha(data)[:8]}/{rel}"


def deliver(files: dict[str, bytes], home: Path, folder: str, name: str, key: str,
            record: dict) -> dict[str, str]:
    """Put the released ``files`` (relative path -> content) into ``home/folder``
    without ever replacing the user's work; what happened to each file.

    ``record[key]`` holds, per file, the version last delivered ("given") and
    the newest one offered beside the user's copy ("offered").
    """
    seen = record.setdefault(key, {"given": {}, "offered": {}})
    given, offered = seen["given"], seen["offered"]
    outcome = {}
    for rel, data in sorted(files.items()):
        parts = Path(rel).parts
        if not parts or Path(rel).is_absolute() or ".." in parts:
            raise ValueError(f"refused a file name from the release: {rel!r}")
        target = home / folder / rel
        new = _sha(data)
        if not target.exists():
            _write(target, data)
            given[rel], outcome[rel] = new, "new"
            continue
        current = _sha(target.read_bytes())
        before = given.get(rel)
        if current == new:
            given[rel], outcome[rel] = new, "same"
        elif before is None or before == new:
            # theirs, from this version (or from before any record): kept
            given[rel], outcome[rel] = before or new, "kept"
        elif current == before:
            _write(target, data)          # untouched since given: brought up to date
            given[rel], outcome[rel] = new, "updated"
        else:
            copy = home / beside(name, data, rel)
            if not copy.exists():
                _write(copy, data)
            outcome[rel] = "kept, new version offered" if offered.get(rel) != new else "kept"
            offered[rel] = new
    return outcome


# -- where the files come from ---------------------------------------------------------

def chapter_files(name: str) -> dict[str, bytes]:
    """The chapter's notebook from the book service ($KERNEL_COURSE_BOOK_URL)."""
    url = os.environ["KERNEL_COURSE_BOOK_URL"].rstrip("/") + "/" + CHAPTER_SOURCE.format(name=name)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read(MAX_NOTEBOOK_BYTES + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise NotFound(f"The book has no chapter called {name!r}.") from None
        raise
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"the notebook of {name} is larger than {MAX_NOTEBOOK_BYTES} bytes")
    nbformat.validate(nbformat.reads(data.decode("utf-8"), as_version=4))
    return {f"{name}.ipynb": data}


def problem_set_files(name: str, root_dir: str) -> dict[str, bytes]:
    """Problem set ``name`` as ``nbgrader fetch_assignment`` fetches it from the
    exchange this server is configured with, read from a private folder."""
    from nbgrader.apps import NbGrader
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError, ExchangeFactory
    from jupyter_core.paths import jupyter_config_path

    with tempfile.TemporaryDirectory(prefix="course-open-") as work:
        app = NbGrader()
        app.config_file_paths.append([root_dir] + jupyter_config_path())
        app.load_config_file()
        config = app.config
        config.CourseDirectory.assignment_id = name
        config.Exchange.assignment_dir = work
        coursedir = CourseDirectory(config=config)
        fetch = ExchangeFactory(config=config).FetchAssignment(
            coursedir=coursedir, authenticator=Authenticator(config=config), config=config)
        try:
            fetch.start()
        except ExchangeError as exc:
            raise NotFound(f"Problem set {name!r} is not released: {exc}") from None
        folder = Path(work, name)
        if not folder.is_dir():
            raise NotFound(f"Problem set {name!r} is not released.")
        return {str(p.relative_to(folder)): p.read_bytes()
                for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


# -- the handler ----------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto;
padding: 0 1rem; line-height: 1.5 }} a, button {{ font-size: 1rem }}</style>
</head><body><main><h1>{title}</h1>{body}</main></body></html>"""


def user_meant_it(headers, course_pages: tuple[str, ...]) -> bool:
    """Whether a request with ``headers`` is a top-level navigation the user typed,
    or made from a page of the course: one whose path starts with one of
    ``course_pages`` (the book's, the user's own server's). Not one another site
    sent, nor one the hub's own pages passed on, nor one from another user's
    server, which shares the hub's origin."""
    if headers.get("Sec-Fetch-Dest") != "document":
        return False
    site = headers.get("Sec-Fetch-Site")
    if site == "none":
        return True
    # same-origin: the browser vouches that the Referer is of this site
    path = urlsplit(headers.get("Referer", "")).path
    return site == "same-origin" and path.startswith(course_pages)


class CourseOpenHandler(JupyterHandler):
    """GET/POST <base>/course-open/(chapter|ps)/NAME."""

    _lock = asyncio.Lock()

    def _page(self, status: int, title: str, body: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(PAGE.format(title=escape(title), body=body))

    def _lab(self, path: str) -> str:
        return url_path_join(self.base_url, "lab", "tree", url_escape(path))

    @web.authenticated
    async def get(self, kind: str, name: str) -> None:
        if not NAME.match(name):
            raise web.HTTPError(404)
        if not user_meant_it(self.request.headers, (self.base_url, BOOK_PAGES)):
            what = "chapter" if kind == "chapter" else "problem set"
            self._page(200, f"Open the {what} {name}?", (
                f"<p>A page asked to open the {what} <code>{escape(name)}</code> in your "
                "JupyterLab.</p>"
                f'<form method="post"><input type="hidden" name="_xsrf" '
                f'value="{escape(self.xsrf_token.decode())}">'
                f'<button type="submit">Open {escape(name)}</button></form>'))
            return
        await self._open(kind, name)

    @web.authenticated
    async def post(self, kind: str, name: str) -> None:
        if not NAME.match(name):
            raise web.HTTPError(404)
        await self._open(kind, name)

    async def _open(self, kind: str, name: str) -> None:
        home = Path(self.settings["server_root_dir"]).expanduser()
        try:
            if kind == "chapter":
                files = await asyncio.to_thread(chapter_files, name)
                folder = BOOK_FOLDER
            else:
                files = await asyncio.to_thread(problem_set_files, name, str(home))
                folder = name
        except NotFound as exc:
            self._page(404, "Not found", f"<p>{escape(str(exc))}</p>")
            return
        except Exception:
            self.log.error("course-open %s/%s failed:\n%s", kind, name, traceback.format_exc())
            self._page(502, "Could not open it", "<p>The course's server could not get it "
                       "just now. Try again in a minute; if it keeps failing, tell your "
                       "instructor.</p>")
            return
        notebooks = sorted(rel for rel in files if rel.endswith(".ipynb"))
        if not notebooks:
            self._page(404, "Not found", f"<p>{escape(name)} holds no notebook.</p>")
            return
        async with self._lock:
            record = read_record(home)
            outcome = deliver(files, home, folder, name, f"{kind}/{name}", record)
            write_record(home, record)
        self.log.info("course-open %s/%s: %s", kind, name, outcome)
        first = f"{folder}/{notebooks[0]}"
        offered = [rel for rel, what in outcome.items() if what == "kept, new version offered"]
        if not offered:
            self.redirect(self._lab(first))
            return
        items = "".join(
            f'<li><a href="{escape(self._lab(f"{folder}/{rel}"))}">your copy, '
            f"<code>{escape(folder)}/{escape(rel)}</code></a>, kept as you left it; and "
            f'<a href="{escape(self._lab(beside(name, files[rel], rel)))}">the new version, '
            f"<code>{escape(beside(name, files[rel], rel))}</code></a></li>" for rel in offered)
        self._page(200, f"{name}: a newer version", (
            "<p>A newer version was published after you got your copy, and you have changed "
            "your copy since. Nothing of yours was replaced: the new version is saved beside "
            f"it.</p><ul>{items}</ul>"))


def _jupyter_server_extension_points():
    return [{"module": "course_open"}]


def _load_jupyter_server_extension(serverapp):
    route = url_path_join(serverapp.base_url, r"course-open/(chapter|ps)/([^/]+)")
    serverapp.web_app.add_handlers(".*$", [(route, CourseOpenHandler)])
    serverapp.log.info("course-open: chapters from %s, problem sets from the exchange",
                       os.environ.get("KERNEL_COURSE_BOOK_URL", "(no book)"))

