"""Each student sees their own variant on the course hub, in Chromium, as they meet it.

Run as root, under the hub lock, like test_hub.py: ``flock LOCKFILE pytest
tests/hub/test_hub_variants.py``.  The hub is the run's shared ``folder_hub``
(tests/hubs.py), with this module's own ada and bob.  The instructor releases
ps4, whose Gaussian width varies, and runs ``make variant_codes``; each
student logs in through the hub's login page, fetches ps4 from the
Assignments tab, opens it from there and runs it (Run > Run All Cells): the
variant cell says "Variant for <their hub user>", and the first public check
of a part that varies names the same variant.  ada's and bob's variants
differ, and each is the one the grader draws for them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from hubs import hubpy, students_of
from test_hub import (LONG, assignment_row, open_assignments, render_every_cell, run_as,
                      shot)
from test_hub_course_open import hub_page, stop_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

PS = "ps4"


@pytest.fixture(scope="module")
def hub(folder_hub):
    """The shared folder hub, with ps4 released and this module's students' codes
    written where the hub's spawner reads them."""
    hub = students_of(folder_hub, "variants")
    teacher = hub["names"]["teacher"]
    course = Path(hub["settings"]["course_dirs"][teacher])
    done = run_as(hub, teacher, "bash", "-c",
                  f"cd {course} && make db PS={PS} && make generate PS={PS} "
                  f"&& make release PS={PS} && make variant_codes")
    assert done.returncode == 0, done.stdout + done.stderr
    # a server already running reads its code when it next starts
    for who in ("ada", "bob"):
        if server_running(hub, who):
            stop_server(hub, who)
    return hub


def server_running(hub, who):
    name = hub["names"][who]
    token = hubpy("token", hub["state"], name).stdout.strip()
    model = requests.get(f"{hub['url']}/hub/api/users/{name}", timeout=60,
                         headers={"Authorization": f"token {token}"}).json()
    return bool(model.get("pending") or model.get("server") or model.get("servers"))


def grader_labels(hub):
    """{who: the label of the variant the grader draws for them}, from the course
    folder's secret, as autograde would."""
    teacher = hub["names"]["teacher"]
    course = Path(hub["settings"]["course_dirs"][teacher])
    from coursegrader.judging.variants import submission_variant
    secret = (course / ".grader_secret").read_text().strip()
    return {who: submission_variant(secret, PS, hub["names"][who]).label
            for who in ("ada", "bob")}


def open_from_assignments_tab(page):
    """Fetch ps4 from the Assignments tab and open its notebook from the tab."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_assignments(page)
    assignment_row(page, "released", PS).locator('.item_status button:text("Fetch")').click()
    fetched = assignment_row(page, "fetched", PS)
    fetched.wait_for()
    fetched.locator(".assignment-notebooks-link").click()      # the notebooks it holds
    fetched.locator(".collapse a", has_text=PS).first.click()
    page.wait_for_url(f"**/lab/tree/{PS}/{PS}.ipynb", timeout=LONG)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.wait_for(timeout=LONG)
    # JupyterLab asks which kernel to start for a notebook it has not run yet
    choose = page.locator(".jp-Dialog").filter(has_text="Select Kernel")
    try:
        choose.wait_for(timeout=30_000)
    except PlaywrightTimeout:
        return
    choose.get_by_role("button", name="Select", exact=True).click()
    choose.wait_for(state="detached")


def run_all_cells(page):
    """Run > Run All Cells, as a student starts a notebook."""
    page.click('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Run")')
    page.click('li[data-command="runmenu:run-all"]:visible')


def output_of(page, pattern):
    """The text of the first output of the open notebook that matches ``pattern``,
    scrolled into view."""
    outputs = page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output")
    found = outputs.filter(has_text=re.compile(pattern)).first
    found.wait_for(timeout=LONG)
    found.scroll_into_view_if_needed()
    return found.inner_text()


def test_each_student_sees_their_own_variant_in_the_notebook_and_its_checks(hub):
    labels = grader_labels(hub)
    assert labels["ada"] != labels["bob"]
    seen = {}
    for who in ("ada", "bob"):
        user = hub["names"][who]
        with hub_page(hub, who) as page:     # the hub's login page, then JupyterLab
            render_every_cell(page, hub, who)    # every output in the page, to be read
            open_from_assignments_tab(page)
            run_all_cells(page)
            said = output_of(page, r"Variant for ")
            checked = output_of(page, r"On the variant of ")
            shot(page, f"variants-{who}")
            seen[who] = (said, checked)
        assert re.search(rf"Variant for {user} \((ps4-[0-9a-f]{{8}})\), as set in "
                         r"this server's settings\.", said), said
        assert "example variant" not in said and "nobody's" not in said, said
        # the check of a part that varies runs on the same variant, the grader's
        assert f"On the variant of {user} ({labels[who]})." in checked, checked
        assert f"({labels[who]})" in said, (said, labels)
    # each sees their own, and not the other's
    assert labels["bob"] not in " ".join(seen["ada"])
    assert labels["ada"] not in " ".join(seen["bob"])
