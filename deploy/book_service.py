"""Serve the built book (a folder of HTML) as a JupyterHub service.

Usage (started by the hub, see jupyterhub_config.py): book_service.py FOLDER.
The hub's proxy forwards /services/book/... here with the prefix kept, so the
files are served under $JUPYTERHUB_SERVICE_PREFIX, on the host and port of
$JUPYTERHUB_SERVICE_URL. The book is public: no login needed to read it.

One address is answered here rather than from the folder: the book's
``_static/course_hub_config.js``, which tells its pages that they are on this
hub, so that "Open in the course hub" shows (book/_ext/course_hub.py); users'
servers fetch chapters' notebooks from this service (deploy/course_open.py).
"""

import json
import os
import sys
from urllib.parse import urlparse

from tornado import ioloop, web

import request_bodies  # deploy/request_bodies.py, next to this file


class HubLinks(web.RequestHandler):
    """The book's _static/course_hub_config.js, as this hub answers it: where
    "Open in the course hub" leads (book/_ext/course_hub.py)."""

    def initialize(self, hub_prefix):
        self.hub_prefix = hub_prefix

    def get(self):
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        target = json.dumps({"open": self.hub_prefix + "hub/user-redirect/course-open/"})
        self.finish(f"window.kernelCourseHub = {target};\n")


def make_app(folder, prefix, hub_prefix="/"):
    if not os.path.isfile(os.path.join(folder, "index.html")):
        raise SystemExit(f"book folder {folder!r} has no index.html: build the book first "
                         "(jupyter-book build .)")
    return web.Application([
        (prefix.rstrip("/"), web.RedirectHandler, {"url": prefix}),
        (prefix + "_static/course_hub_config.js", HubLinks, {"hub_prefix": hub_prefix}),
        (prefix + "(.*)", web.StaticFileHandler, {"path": folder, "default_filename": "index.html"}),
    ])


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: book_service.py FOLDER")
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app = make_app(os.path.abspath(argv[0]), os.environ["JUPYTERHUB_SERVICE_PREFIX"],
                   os.environ.get("JUPYTERHUB_BASE_URL", "/"))
    # it takes no request bodies: a flood of them holds at most 1 MiB, a quarter of
    # it from any one client (request_bodies.py)
    request_bodies.bound(app.listen(url.port, url.hostname), 1024**2, "book")
    ioloop.IOLoop.current().start()


if __name__ == "__main__":
    main(sys.argv[1:])
