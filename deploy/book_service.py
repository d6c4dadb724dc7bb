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
import logging
import os
import sys
from urllib.parse import urlparse

from tornado import ioloop, web

import request_bodies  # deploy/request_bodies.py, next to this file
import request_log  # deploy/request_log.py, next to this file
import request_rates  # deploy/request_rates.py, next to this file


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
    # one short line per request, naming the client as clients.py does (every
    # request comes from the proxy's address), and a traceback at most once a
    # minute per place in the code (request_log.py)
    request_log.install()
    return web.Application([
        (prefix.rstrip("/"), web.RedirectHandler, {"url": prefix}),
        (prefix + "_static/course_hub_config.js", HubLinks, {"hub_prefix": hub_prefix}),
        (prefix + "(.*)", web.StaticFileHandler, {"path": folder, "default_filename": "index.html"}),
    ], log_function=request_log.log_request)


def log_to_stderr():
    """The service's lines (requests answered 4xx or 5xx, tracebacks, bodies cut) to
    stderr, which the hub keeps in its log; a page served well is not logged."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[%(levelname)1.1s %(asctime)s book] %(message)s"))
    for name in ("tornado.access", "tornado.application", "tornado.general"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.WARNING)
        logger.addHandler(handler)
        logger.propagate = False


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: book_service.py FOLDER")
    log_to_stderr()
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app = make_app(os.path.abspath(argv[0]), os.environ["JUPYTERHUB_SERVICE_PREFIX"],
                   os.environ.get("JUPYTERHUB_BASE_URL", "/"))
    # it takes no request bodies: a flood of them holds at most 1 MiB, a quarter of
    # it from any one client (request_bodies.py)
    server = app.listen(url.port, url.hostname)
    request_bodies.bound(server, 1024**2, "book")
    # and at most 50 requests a second from one client, 500 at once and 500 more
    # waiting, as the hub (request_rates.py)
    request_rates.rate(server, request_rates.RATE, request_rates.BURST,
                       name="book")
    ioloop.IOLoop.current().start()


if __name__ == "__main__":
    main(sys.argv[1:])
