"""WCAG 2.1 AA as axe-core checks it, shared by the tests of every page a
person reads: the book's pages, a student's feedback page and the
instructor's ``make report`` page.

axe-playwright-python bundles axe-core; the rules are those tagged for levels
A and AA of WCAG 2.0 and 2.1, plus "label in name"
(label-content-name-mismatch), which axe marks experimental.
"""

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "rules": {"label-content-name-mismatch": {"enabled": True}},
    "resultTypes": ["violations"],
}


def axe_violations(page, impacts=("serious", "critical")):
    """The axe-core violations of the given impacts on an open page, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [f"{v['id']} ({v['impact']}): {len(v['nodes'])} x {v['nodes'][0]['target']}"
            for v in found if v["impact"] in impacts]
