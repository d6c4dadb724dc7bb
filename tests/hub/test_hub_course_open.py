""""Open in the course hub" on a real JupyterHub, in Chromium, as a student meets it.

Run as root, under the hub lock, like test_hub.py (whose browser helpers this
module uses): ``flock LOCKFILE pytest tests/hub/test_hub_course_open.py``.
The hub is the run's shared ``folder_hub`` (tests/hubs.py), whose exchange is a
shared folder and which serves a copy of the small book of tests/book/small_book,
built with the book's own extensions, at /services/book/; this module's ada and
bob are students of their own there, whom no other module's tests touch.

- A student who is not logged in clicks "Open this chapter in the course hub"
  on a chapter page, logs in, confirms once while her server starts (the hub
  passes the link on, as it would another site's), and lands in her
  JupyterLab with the chapter's notebook open, copied into her home; she types a note into it and saves; a
  second click opens her copy with the note; when the book changes, a third
  click keeps her copy and offers the new version beside it.
- "Open ps1 in the course hub" on the Assignments page fetches ps1 as
  ``nbgrader fetch_assignment`` would and opens it; the Assignments tab lists
  it as fetched.  Submitting it unchanged from the tab shows one sentence in
  the "Invalid Submission" box, not a traceback.
- The students' ``nbgrader validate``, typed into a JupyterLab terminal, prints
  no warning of ipykernel's.
- Formgrader, on a page of its own, links an assignment's name and its Preview
  to the folders in the instructor's JupyterLab, not to the hub's "404 : None".
- The attacks a student could try with the address: paths instead of names,
  another student's server, and a page of another site that opens the link
  (an image, a frame, a link followed): nothing is written anywhere. And a
  page of another site that sends a logged-in student whose server is stopped
  to the problem set's link, by script or by a link she clicks: her server
  starts, she is asked, and nothing is fetched until she presses the button.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import pwd
import shutil
import threading
import time
from pathlib import Path

import nbformat
import pytest
import requests

from conftest import CHROMIUM, CHROMIUM_ARGS, free_port
from hubs import students_of
from test_hub import (LONG, assignment_row, hubpy, open_assignments, open_terminal,
                      render_every_cell, run_in_terminal, shot)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

CHAPTER = "book/chapters/first_steps"


@pytest.fixture(scope="module")
def hub(folder_hub):
    """The shared folder hub (tests/hubs.py), with this module's own ada and bob."""
    return students_of(folder_hub, "course_open")


@pytest.fixture(scope="module")
def small_book(hub):
    """The hub's copy of the small book, which it serves (the book service runs as
    root; the folder is the hub's, like _build/html)."""
    return hub["book"]


def home_of(hub, who):
    return Path(pwd.getpwnam(hub["names"][who]).pw_dir)


def log_in_form(page, hub, who):
    """Fill the hub's login form that the page shows."""
    name = hub["names"][who]
    page.wait_for_selector("#username_input")
    page.fill("#username_input", name)
    page.fill("#password_input", hub["passwords"][name])
    page.click("#login_submit")


def open_from_book(page, hub, path, link_text):
    """Open a page of the book on the hub and click its course-hub link."""
    page.goto(f"{hub['url']}/services/book/{path}")
    link = page.get_by_role("link", name=link_text)
    link.wait_for(state="visible")
    link.click()


def wait_for_notebook(page, hub, who, path):
    page.wait_for_url(f"**/user/{hub['names'][who]}/lab/tree/{path}", timeout=LONG)
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    tab.filter(has_text=Path(path).name).wait_for(timeout=LONG)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.wait_for(timeout=LONG)


def owned_by(path, hub, who):
    return path.stat().st_uid == pwd.getpwnam(hub["names"][who]).pw_uid


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def hub_page(hub, who=None):
    """A page of Chromium at 1366 px, logged in to the hub as ``who`` (None: not
    logged in); a screenshot is taken if the test fails in it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        context.set_default_timeout(LONG)
        page = context.new_page()
        try:
            if who:
                page.goto(f"{hub['url']}/hub/login")
                log_in_form(page, hub, who)
                page.wait_for_url("**/user/*/lab**")
            yield page
        except Exception:
            shot(page, "course-open-failed")
            raise
        finally:
            browser.close()


@contextlib.contextmanager
def another_site(folder, pages):
    """Serve ``pages`` ({file name: HTML}) from ``folder`` on another origin (a free
    port of 127.0.0.1); yield its base URL."""
    folder.mkdir()
    for name, html in pages.items():
        (folder / name).write_text(html)
    port = free_port()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()


def test_hub_chapter_from_the_book_to_jupyterlab_keeping_the_students_edits(hub, small_book):
    ada = home_of(hub, "ada")
    copy = ada / "kernel-methods-book" / "first_steps.ipynb"
    book_notebook = small_book / "_sources" / f"{CHAPTER}.ipynb"
    with hub_page(hub) as page:
        # -- not logged in: the link leads to the login, then on to the notebook
        open_from_book(page, hub, f"{CHAPTER}.html", "Open this chapter in the course hub")
        page.wait_for_url("**/hub/login**")
        shot(page, "course-open-login")
        log_in_form(page, hub, "ada")
        # her server starts, and the hub passes the link on: she is asked once
        page.get_by_role("button", name="Open first_steps").click()
        wait_for_notebook(page, hub, "ada", "kernel-methods-book/first_steps.ipynb")
        shot(page, "course-open-chapter")
        assert copy.read_bytes() == book_notebook.read_bytes()
        assert owned_by(copy, hub, "ada")
        # the self-checks are readable text there, with their answers at the end
        text = page.locator(".jp-NotebookPanel:visible").inner_text()
        assert "{selfcheck}" not in text

        # -- she writes a note in the first code cell and saves
        cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell .cm-content").first
        cell.click()
        page.keyboard.press("Control+Home")
        page.keyboard.type("# my own note\n")
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 60
        while "# my own note" not in copy.read_text():
            assert time.monotonic() < deadline, "the edit was not saved"
            time.sleep(0.5)
        edited = copy.read_bytes()

        # -- a second click opens her copy, with the note
        open_from_book(page, hub, f"{CHAPTER}.html", "Open this chapter in the course hub")
        wait_for_notebook(page, hub, "ada", "kernel-methods-book/first_steps.ipynb")
        page.locator(".jp-NotebookPanel:visible .jp-CodeCell").filter(
            has_text="# my own note").first.wait_for()
        assert copy.read_bytes() == edited

        # -- the book is rebuilt with a changed chapter: hers is kept, the new
        #    version is offered beside it
        nb = nbformat.read(book_notebook, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell("A second edition."))
        nbformat.write(nb, book_notebook)
        open_from_book(page, hub, f"{CHAPTER}.html", "Open this chapter in the course hub")
        page.get_by_role("heading", name="first_steps: a newer version").wait_for()
        shot(page, "course-open-newer")
        assert copy.read_bytes() == edited
        page.get_by_role("link", name="the new version").click()
        page.wait_for_url("**/lab/tree/course-updates/first_steps-*/first_steps.ipynb")
        page.locator(".jp-NotebookPanel:visible .jp-RenderedMarkdown").filter(
            has_text="A second edition.").first.wait_for()
        (updated,) = (ada / "course-updates").glob("first_steps-*/first_steps.ipynb")
        assert updated.read_bytes() == book_notebook.read_bytes()
        assert copy.read_bytes() == edited


def test_hub_problem_set_link_fetches_like_nbgrader_and_submit_explains_in_a_sentence(hub):
    bob = home_of(hub, "bob")
    released = Path(hub["settings"]["exchange_root"], "kernel-methods", "outbound", "ps1",
                    "ps1.ipynb")
    with hub_page(hub, "bob") as page:
        open_from_book(page, hub, "book/assignments.html", "Open ps1 in the course hub")
        wait_for_notebook(page, hub, "bob", "ps1/ps1.ipynb")
        shot(page, "course-open-ps1")
        assert (bob / "ps1" / "ps1.ipynb").read_bytes() == released.read_bytes()
        assert owned_by(bob / "ps1" / "ps1.ipynb", hub, "bob")
        # nbgrader sees it as fetched: the Assignments tab lists it under "Downloaded"
        open_assignments(page)
        assignment_row(page, "fetched").wait_for()
        # submitted unchanged from the tab: one sentence, no traceback
        assignment_row(page, "fetched").locator('.item_status button:text("Submit")').click()
        dialog = page.locator(".jp-Dialog")
        dialog.wait_for()
        shot(page, "course-open-invalid-submission")
        said = dialog.inner_text()
        assert "Invalid Submission" in said
        assert "ps1.ipynb is unchanged from the release" in said
        assert "Traceback" not in said and "File \"" not in said and "Error:" not in said
        body = dialog.locator(".jp-Dialog-body").inner_text().strip().splitlines()
        assert len([line for line in body if line.strip()]) <= 4, body
        dialog.locator("button").last.click()

        # nbgrader validate in a terminal: the checks' report, no kernel's warning
        render_every_cell(page, hub, "bob")
        terminal = open_terminal(page)
        status, screen = run_in_terminal(page, terminal, "cd ~/ps1 && nbgrader validate ps1.ipynb")
        shot(page, "course-open-validate")
        assert "Validating" in screen or "failed" in screen.lower(), screen
        assert "without encryption" not in screen and "WARNING" not in screen, screen


def test_hub_course_open_refuses_paths_other_students_and_other_sites(hub, tmp_path):
    """ada, logged in, tries the address with paths for names and bob's server;
    a page of another site tries to make her browser open a problem set."""
    n, url = hub["names"], hub["url"]
    ada, bob = home_of(hub, "ada"), home_of(hub, "bob")

    def files(home):
        return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())

    # another site: a page on another port with an image, a frame and a link
    ps1 = f"{url}/user/{n['ada']}/course-open/ps/ps1"
    index = (f'<img src="{ps1}"><iframe src="{ps1}"></iframe>'
             f'<a id="go" href="{ps1}">win a prize</a>')
    with another_site(tmp_path / "site", {"index.html": index}) as site, \
            hub_page(hub, "ada") as page:
        shutil.rmtree(ada / "ps1", ignore_errors=True)
        before_ada, before_bob = files(ada), files(bob)
        statuses = {}
        for path in ("chapter/..%2F..%2Fetc%2Fpasswd", "chapter/..", "chapter/%2Fetc%2Fpasswd",
                     "ps/..%2F" + n["bob"], "ps/ps1%00", "chapter/FIRST_STEPS",
                     "chapter/no_such_chapter", "ps/ps9", "notebook/first_steps"):
            response = page.goto(f"{url}/user/{n['ada']}/course-open/{path}")
            statuses[path] = response.status
        assert statuses == {
            "chapter/..%2F..%2Fetc%2Fpasswd": 404, "chapter/..": 404,
            "chapter/%2Fetc%2Fpasswd": 404, "ps/..%2F" + n["bob"]: 404, "ps/ps1%00": 404,
            "chapter/FIRST_STEPS": 404, "chapter/no_such_chapter": 404, "ps/ps9": 404,
            "notebook/first_steps": 404}, statuses
        # bob's server answers bob alone
        response = page.goto(f"{url}/user/{n['bob']}/course-open/chapter/first_steps")
        assert response.status in (403, 404) or "/hub/" in page.url, (response.status, page.url)
        # the other site's image, frame and link
        page.goto(f"{site}/index.html")
        page.wait_for_load_state("networkidle")
        page.click("#go")
        page.get_by_role("button", name="Open ps1").wait_for()
        shot(page, "course-open-other-site")
        assert files(ada) == before_ada and files(bob) == before_bob
        # a person who means it presses the button: then it opens
        page.get_by_role("button", name="Open ps1").click()
        wait_for_notebook(page, hub, "ada", "ps1/ps1.ipynb")
        assert (ada / "ps1" / "ps1.ipynb").exists()


def stop_server(hub, who):
    """Stop ``who``'s server with their own hub token, and wait until it is stopped."""
    name = hub["names"][who]
    token = hubpy("token", hub["state"], name).stdout.strip()
    api = f"{hub['url']}/hub/api/users/{name}"
    auth = {"Authorization": f"token {token}"}
    stopping = requests.delete(api + "/server", headers=auth, timeout=60)
    assert stopping.status_code in (202, 204), (stopping.status_code, stopping.text)
    deadline = time.monotonic() + 120
    while True:
        model = requests.get(api, headers=auth, timeout=60).json()
        if not (model.get("pending") or model.get("server") or model.get("servers")):
            return
        assert time.monotonic() < deadline, f"{name}'s server did not stop: {model}"
        time.sleep(0.5)


def test_hub_another_site_cannot_open_a_problem_set_while_the_server_starts(hub, tmp_path):
    """The hub starts a stopped server on a link from anywhere, and its page for a
    starting server reloads itself by script and then sends the student on: the
    request that reaches course-open says same-origin whatever site began it."""
    url, ada = hub["url"], home_of(hub, "ada")
    target = f"{url}/hub/user-redirect/course-open/ps/ps1"
    pages = {"script.html": f"<script>location.href = {json.dumps(target)}</script>",
             "link.html": f'<a id="go" href="{target}">win a prize</a>'}
    with another_site(tmp_path / "site", pages) as site, hub_page(hub, "ada") as page:
        for how in ("script", "link"):
            stop_server(hub, "ada")
            shutil.rmtree(ada / "ps1", ignore_errors=True)
            page.goto(f"{site}/{how}.html")
            if how == "link":
                page.click("#go")
            page.get_by_role("button", name="Open ps1").wait_for(timeout=LONG)
            shot(page, f"course-open-other-site-{how}-server-started")
            assert "/course-open/ps/ps1" in page.url
            assert not (ada / "ps1").exists(), how
        # she means it: the button fetches ps1 and opens it
        page.get_by_role("button", name="Open ps1").click()
        wait_for_notebook(page, hub, "ada", "ps1/ps1.ipynb")
        assert (ada / "ps1" / "ps1.ipynb").exists()


def test_hub_formgrader_links_reach_the_folders_on_a_page_of_its_own(hub):
    """The instructor opens Formgrader in a browser tab of its own (not the
    JupyterLab tab): the assignment's name and its Preview open the source and
    release folders in the instructor's JupyterLab."""
    teacher = hub["names"]["teacher"]
    with hub_page(hub, "teacher") as page:
        page.goto(f"{hub['url']}/user/{teacher}/formgrader/manage_assignments")
        row = page.locator('tr:has(td.name:has-text("ps1"))')
        row.wait_for()
        for cell, folder in (("td.name a", "source/ps1"), ("td.preview a", "release/ps1")):
            link = row.locator(cell)
            assert link.get_attribute("href") == \
                f"/user/{teacher}/lab/tree/kernel-methods/{folder}", link.get_attribute("href")
            with page.context.expect_page() as opened:
                link.click()
            lab = opened.value
            lab.wait_for_url(f"**/user/{teacher}/lab/tree/kernel-methods/{folder}")
            lab.locator(".jp-DirListing-item:has-text('ps1.ipynb')").wait_for()
            assert "404" not in lab.title()
            shot(lab, f"formgrader-link-{folder.replace('/', '-')}")
            lab.close()
