"""Serve the built book (a folder of HTML) as a JupyterHub service.

Usage (started by the hub, see jupyterhub_config.py): book_service.py FOLDER.
The hub's proxy forwards /services/book/... here with the prefix kept, so the
files are served under $JUPYTERHUB_SERVICE_PREFIX, on the host and port of
$JUPYTERHUB_SERVICE_URL. The book is public: no login needed to read it.
"""

import os
import sys
from urllib.parse import urlparse

from tornado import ioloop, web


def make_app(folder, prefix):
    if not os.path.isfile(os.path.join(folder, "index.html")):
        raise SystemExit(f"book folder {folder!r} has no index.html: build the book first "
                         "(jupyter-book build .)")
    return web.Application([
        (prefix.rstrip("/"), web.RedirectHandler, {"url": prefix}),
        (prefix + "(.*)", web.StaticFileHandler, {"path": folder, "default_filename": "index.html"}),
    ])


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: book_service.py FOLDER")
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app = make_app(os.path.abspath(argv[0]), os.environ["JUPYTERHUB_SERVICE_PREFIX"])
    app.listen(url.port, url.hostname)
    ioloop.IOLoop.current().start()


if __name__ == "__main__":
    main(sys.argv[1:])
