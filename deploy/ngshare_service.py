"""Run ngshare as a JupyterHub service, listening only where the hub expects it.

ngshare's own entry point listens on every interface (0.0.0.0) at the port of
$JUPYTERHUB_SERVICE_URL, as a Kubernetes pod must. On one server the service
is reached through the hub's proxy on loopback, so this starts ngshare with
the same arguments but binds the host named in $JUPYTERHUB_SERVICE_URL.
"""

import os
import sys
from urllib.parse import urlparse

from tornado.httpserver import HTTPServer

from ngshare import ngshare

HOST = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"]).hostname
_listen = HTTPServer.listen


def listen_on_service_host(self, port, address="", **kwargs):
    return _listen(self, port, HOST, **kwargs)


HTTPServer.listen = listen_on_service_host

if __name__ == "__main__":
    ngshare.main(sys.argv[1:])
