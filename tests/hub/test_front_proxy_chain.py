"""The chain a request takes behind a front proxy, without a hub: a real nginx
with the course's example config (deploy/nginx-course.conf, tests/fronts.py) over
HTTPS, the installed proxy with its limits (tests/proxies.py), and a Tornado
server as the hub runs one (``xheaders=True``) that says who deploy/clients.py
takes the client for and which scheme Tornado sees.

Through an nginx bound to the trusted front's address the client is the address
that connected to nginx, whatever it wrote in its own X-Forwarded-For; through
one bound to another address, the front; and nginx's X-Scheme makes the request
https to Tornado (without that line, the proxy's ",http" appended to
X-Forwarded-Proto makes it http).
"""

import http.client
import json
import os

import pytest
from fronts import running_front
from proxies import running_proxy

pytestmark = pytest.mark.slow

FRONT, UNTRUSTED = "127.0.0.30", "127.0.0.31"
DEPLOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy")

UPSTREAM = r"""
import asyncio, json, sys
sys.path.insert(0, %r)
import clients
from tornado import httpserver, web

class Who(web.RequestHandler):
    def get(self):
        c, h = self.request.connection, self.request.headers
        self.write(json.dumps({"client": clients.client(c, h), "key": clients.key(c, h),
                               "describe": clients.describe(c, h),
                               "protocol": self.request.protocol,
                               "forwarded": h.get("X-Forwarded-For", "")}))

async def main():
    server = httpserver.HTTPServer(web.Application([(r"/.*", Who)]), xheaders=True)
    server.listen(int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()

asyncio.run(main())
""" % DEPLOY


@pytest.fixture(scope="module")
def chain(installed, tmp_path_factory):
    """nginx ``trusted`` (from FRONT), ``untrusted`` (from UNTRUSTED) and
    ``no_scheme`` (from FRONT, without X-Scheme) in front of the proxy in front of
    UPSTREAM, the proxy and the server told FRONT is trusted: each (port, TLS
    context)."""
    folder = tmp_path_factory.mktemp("chain")
    saved = os.environ.get("KERNEL_COURSE_FRONT_PROXIES")
    os.environ["KERNEL_COURSE_FRONT_PROXIES"] = FRONT     # the server's and the proxy's
    try:
        with running_proxy(installed, folder, UPSTREAM) as (port, _, _), \
                running_front(folder / "trusted", port, FRONT) as trusted, \
                running_front(folder / "untrusted", port, UNTRUSTED) as untrusted, \
                running_front(folder / "no-scheme", port, FRONT, drop=("X-Scheme",)) as bare:
            yield {"trusted": trusted[:2], "untrusted": untrusted[:2], "no_scheme": bare[:2]}
    finally:
        if saved is None:
            os.environ.pop("KERNEL_COURSE_FRONT_PROXIES", None)
        else:
            os.environ["KERNEL_COURSE_FRONT_PROXIES"] = saved


def who(front, source, forged=None):
    port, tls = front
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=30,
                                       source_address=(source, 0))
    try:
        conn.request("GET", "/who", headers={"X-Forwarded-For": forged} if forged else {})
        answer = conn.getresponse()
        assert answer.status == 200, answer.status
        return json.loads(answer.read())
    finally:
        conn.close()


def test_through_the_trusted_front_the_client_is_who_connected_to_it(chain):
    ada, bob = who(chain["trusted"], "127.0.0.21"), who(chain["trusted"], "127.0.0.22")
    assert ada["forwarded"] == f"127.0.0.21,{FRONT}", ada     # nginx's, then the proxy's
    assert (ada["client"], ada["key"]) == ("127.0.0.21", "127.0.0.21")
    assert ada["describe"] == f"'127.0.0.21' (X-Forwarded-For, by the front proxy {FRONT}) " \
                              "over 127.0.0.1"
    assert bob["client"] == "127.0.0.22"


def test_what_she_writes_in_x_forwarded_for_to_the_front_is_ignored(chain):
    for forged in ("198.51.100.7", "127.0.0.22", f"198.51.100.7, {FRONT}", "not an address"):
        seen = who(chain["trusted"], "127.0.0.21", forged)
        assert seen["forwarded"] == f"{forged}, 127.0.0.21,{FRONT}", seen
        assert seen["client"] == "127.0.0.21", seen


def test_through_a_front_not_trusted_the_client_is_the_front(chain):
    """As every front is to a hub without --front-proxy: the whole class one client."""
    for source in ("127.0.0.21", "127.0.0.22"):
        seen = who(chain["untrusted"], source, "198.51.100.7")
        assert (seen["client"], seen["key"]) == (UNTRUSTED, UNTRUSTED), seen


def test_the_front_makes_the_request_https_by_x_scheme(chain):
    assert who(chain["trusted"], "127.0.0.21")["protocol"] == "https"
    # without nginx's X-Scheme, X-Forwarded-Proto "https,http" (the proxy's entry
    # last) is read as http
    bare = who(chain["no_scheme"], "127.0.0.21")
    assert bare["protocol"] == "http", bare
