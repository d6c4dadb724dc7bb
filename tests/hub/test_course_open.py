""""Open in the course hub" without a hub: what a user's server does with the
files it is given (deploy/course_open.py), and the link on the book's pages,
hidden on a copy of the site and shown by the hub's book service
(deploy/book_service.py).  The whole path on a real hub is in
test_hub_course_open.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, require_chromium

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import course_hub  # noqa: E402
from course_open import (NAME, RECORD, beside, deliver, read_record,  # noqa: E402
                         user_meant_it, write_record)


def test_a_copy_is_never_replaced_once_the_user_has_changed_it(tmp_path):
    home, record = tmp_path, {}

    def give(data, name="ps1.ipynb"):
        outcome = deliver({name: data}, home, "ps1", "ps1", "ps/ps1", record)[name]
        return outcome, (home / "ps1" / name).read_bytes()

    assert give(b"release 1") == ("new", b"release 1")
    assert give(b"release 1") == ("same", b"release 1")
    # the user writes an answer: the same release again keeps it
    (home / "ps1" / "ps1.ipynb").write_bytes(b"my answer")
    assert give(b"release 1") == ("kept", b"my answer")
    # a new release: theirs is kept, the new one is saved beside, and offered once
    assert give(b"release 2") == ("kept, new version offered", b"my answer")
    assert (home / beside("ps1", b"release 2", "ps1.ipynb")).read_bytes() == b"release 2"
    assert give(b"release 2") == ("kept", b"my answer")
    # they edit the copy beside; a third click leaves it alone too
    (home / beside("ps1", b"release 2", "ps1.ipynb")).write_bytes(b"merged by hand")
    assert give(b"release 2") == ("kept", b"my answer")
    assert (home / beside("ps1", b"release 2", "ps1.ipynb")).read_bytes() == b"merged by hand"
    # a file they never touched is brought up to date; a file they deleted comes back
    assert give(b"data 1", "data.csv") == ("new", b"data 1")
    assert give(b"data 2", "data.csv") == ("updated", b"data 2")
    (home / "ps1" / "data.csv").unlink()
    assert give(b"data 2", "data.csv") == ("new", b"data 2")
    # a copy made some other way (the Assignments tab) is taken as theirs
    other = {}
    (home / "ps2").mkdir()
    (home / "ps2" / "ps2.ipynb").write_bytes(b"fetched from the tab, then edited")
    assert deliver({"ps2.ipynb": b"release"}, home, "ps2", "ps2", "ps/ps2", other) == {
        "ps2.ipynb": "kept"}
    assert (home / "ps2" / "ps2.ipynb").read_bytes() == b"fetched from the tab, then edited"
    # the record survives a restart of the server
    write_record(home, record)
    assert read_record(home) == record and (home / RECORD).is_file()


@pytest.mark.parametrize("planted", ["link to /dev/zero", "fifo", "huge", "a list",
                                     "link to a good record"])
def test_the_record_is_read_only_from_a_small_regular_file(tmp_path, planted):
    """A student who plants something odd where the record lives (their own home)
    gets an empty record at once: the server never reads a device, waits on a
    pipe, loads megabytes or follows a link."""
    home = tmp_path / "home"
    where = home / RECORD
    where.parent.mkdir(parents=True)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"chapter/first_steps": {"x.ipynb": "0" * 64}}))
    if planted == "link to /dev/zero":
        where.symlink_to("/dev/zero")
    elif planted == "fifo":
        os.mkfifo(where)
    elif planted == "huge":
        where.write_text(json.dumps({"k": "x" * (2 * 2**20)}))
    elif planted == "a list":
        where.write_text("[1, 2]")
    else:
        where.symlink_to(good)
    assert read_record(home) == {}


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    home = tmp_path / "home"
    with pytest.raises(ValueError):
        deliver({"ps1.ipynb": b"x", "bad\0name.ipynb": b"y"}, home, "ps1", "ps1", "ps/ps1", {})
    assert not [p for p in home.rglob(".course-open-*")]


@pytest.mark.parametrize("rel", ["../escape.ipynb", "/etc/passwd", "a/../../b", ""])
def test_a_release_cannot_write_outside_its_folder(tmp_path, rel):
    with pytest.raises(ValueError, match="refused a file name"):
        deliver({rel: b"x"}, tmp_path / "home", "ps1", "ps1", "ps/ps1", {})
    assert not (tmp_path / "escape.ipynb").exists()


def navigation(site, referer=None, dest="document"):
    headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Dest": dest}
    if referer:
        headers["Referer"] = "https://hub.example" + referer
    return headers


def test_only_a_navigation_the_user_made_on_a_course_page_opens_at_once():
    ours = ("/user/ada/", "/services/book/")          # ada's server, the book
    meant = [navigation("none"),                                     # typed
             navigation("same-origin", "/services/book/chapters/kernels.html"),
             navigation("same-origin", "/user/ada/lab/tree/notes.ipynb")]
    asked = [navigation("cross-site", "https://evil.example/"),     # another site's link
             navigation("same-site", "/"),
             navigation("same-origin", "/services/book/x.html", dest="image"),
             navigation("same-origin", "/services/book/x.html", dest="iframe"),
             # the hub's page for a starting server reloads itself, then sends on
             # whoever reached it: the request says same-origin, from the hub's page
             navigation("same-origin", "/hub/spawn-pending/ada?next=%2Fuser%2Fada"),
             navigation("same-origin", "/hub/login?next=%2Fhub%2Fuser-redirect"),
             # another student's server shares the origin: her pages are not ada's
             navigation("same-origin", "/user/mallory/pwn/open"),
             navigation("same-origin", "/user/adam/lab"),
             navigation("same-origin", "/services/other/x.html"),
             navigation("same-origin"),                              # no Referer
             navigation(None), {}]
    assert [user_meant_it(h, ours) for h in meant] == [True] * len(meant)
    assert [user_meant_it(h, ours) for h in asked] == [False] * len(asked)


@pytest.mark.parametrize("name", ["..", "../ps1", "ps1/..", "PS1", "ps1%2f..", ".hidden",
                                  "a" * 65, "ps 1", "ps1\n", "é"])
def test_names_that_could_be_paths_are_refused_on_both_sides(name):
    assert not NAME.match(name)
    assert not course_hub.NAME.match(name)
    with pytest.raises(ValueError, match="no course-hub link"):
        course_hub.link_html("ps", name, block=False)
    assert course_hub.NAME.pattern == NAME.pattern   # the book links only what the server opens


# -- the link on the book's pages --------------------------------------------------------

@pytest.fixture(scope="module")
def small_site(small_book_site):
    return small_book_site


def _serve(app):
    """Run a tornado application on a free port in a thread; its port and a stopper."""
    from tornado.httpserver import HTTPServer
    from tornado.ioloop import IOLoop
    from tornado.netutil import bind_sockets

    sockets = bind_sockets(0, "127.0.0.1")
    ready, box = threading.Event(), {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = HTTPServer(app)
        server.add_sockets(sockets)
        box["loop"] = IOLoop.current()
        ready.set()
        box["loop"].start()

    threading.Thread(target=run, daemon=True).start()
    ready.wait(10)
    return sockets[0].getsockname()[1], lambda: box["loop"].add_callback(box["loop"].stop)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_link_shows_only_where_the_hub_serves_the_book(small_site):
    """From a plain copy of the site (file://) the chapter page and the
    Assignments page show no hub link; from the book service they show
    "Open ... in the course hub", pointing at the hub's user-redirect."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    import book_service

    app = book_service.make_app(str(small_site), "/services/book/", "/")
    port, stop = _serve(app)
    base = f"http://127.0.0.1:{port}/services/book/"
    try:
        config = urllib.request.urlopen(base + "_static/course_hub_config.js").read().decode()
        assert config == ('window.kernelCourseHub = '
                          '{"open": "/hub/user-redirect/course-open/"};\n')
        built = (small_site / "_static" / "course_hub_config.js").read_text()
        assert "window.kernelCourseHub = null;" in built
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            for where, shown in (((small_site / "book").as_uri() + "/", False), (base + "book/", True)):
                page.goto(where + "chapters/first_steps.html")
                link = page.locator("a.course-hub-open")
                assert link.count() == 1
                assert link.is_visible() == shown, where
                if shown:
                    assert link.inner_text() == "Open this chapter in the course hub"
                    assert link.get_attribute("href") == \
                        "/hub/user-redirect/course-open/chapter/first_steps"
                page.goto(where + "assignments.html")
                link = page.locator("a.course-hub-open")
                assert link.is_visible() == shown, where
                if shown:
                    assert link.inner_text() == "Open ps1 in the course hub"
                    assert link.get_attribute("href") == "/hub/user-redirect/course-open/ps/ps1"
            browser.close()
    finally:
        stop()
