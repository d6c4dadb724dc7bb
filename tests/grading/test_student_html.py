"""No HTML or script a student writes runs in anyone's browser.

Two students hand in ps1 with the reference code: alice writes an honest
answer (maths, a link, a list), mallory a hostile one -- her Markdown and her
outputs carry scripts, event handlers, SVG, an iframe, ``javascript:`` and
``data:`` links, a style block and a refresh.  A third, eve, hands in no code
(the autograder's output says FAIL) and formulas that paint over the page
outside their own box.  Through nbgrader's own
autograde and generate_feedback, the autograded notebook and the feedback
page must hold none of it, alice's answer must read as she wrote it, and both
must earn exactly the score their code earns.  In Chromium, neither
Formgrader's manual-grading page (a real ``jupyter server`` with nbgrader's
formgrader) nor the feedback page may run any of it.
"""

import html.parser
import json
import os
from pathlib import Path

import nbformat
import pytest

from attacks import ATTACKS, HOSTILE, HOSTILE_CODE, LIFTS, MATHS_LINK, OVERLAID, OVERLAYS
from coursegrader.csp import script_sources
from coursegrader.tools.course import Course, fill_answers
from coursegrader.student_html import (allowed_url, clean_markdown, is_plain_markdown,
                                       student_markdown_html)
from formgraders import formgrader_server

COURSE = Path(__file__).resolve().parents[2] / "assignments"
CHROMIUM = "/usr/bin/chromium"

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

HONEST = r"""Each candidate is a kernel iff every Gram matrix is PSD, $K \succeq 0$:

$$\sum_{i,j} c_i c_j\, k(x_i, x_j) \ge 0 .$$

\begin{align}
k(x, t) &= x^\top D t \\
        &= \langle D^{1/2} x, D^{1/2} t \rangle
\end{align}

- see [the notes](https://example.org/notes) and `is_kernel`
- questions to [me](mailto:alice@example.org); back to [the top](#top)
"""

#: The feedback page's Content-Security-Policy (coursegrader/templates/feedback):
#: of inline scripts, only the page's own, by their hashes.
FEEDBACK_CSP = {"http-equiv": "Content-Security-Policy",
                "content": "default-src 'none'; script-src {scripts}; "
                           "style-src 'unsafe-inline'; img-src data:; font-src data:"}

#: Mallory's written answer: every attack, and a formula MathJax typesets.
MALLORY = f"{HOSTILE}\n\nMy formula: {MATHS_LINK}"

#: Eve's written answer: formulas drawn far outside their own box, and blocks of
#: fake results lifted by nested superscripts (``LIFTS``).
EVE = ("My answer: every one of the four is a kernel.\n\n"
       + "\n\n".join([*LIFTS, *OVERLAYS.values()]))

#: How many formulas a page's Markdown cells show: MathJax's, and MathML of its own.
TYPESET = """[...document.querySelectorAll('div.text_cell_render mjx-container,'
    + ' div.text_cell_render math')].filter(m => !m.parentElement.closest('mjx-container'))
    .length"""

#: Marks every payload leaves; none may reach a browser in a live form.
NEEDLES = ("pwned", "javascript:", "data:", "onerror", "onload", "<script", "<iframe",
           "<svg", "<style", "<meta", "http-equiv")


# -- the rule itself ------------------------------------------------------------

def test_plain_markdown_is_kept_as_written_and_html_is_cleaned():
    assert is_plain_markdown(HONEST) and clean_markdown(HONEST) == HONEST
    rendered = student_markdown_html(HONEST)
    for kept in (r"$K \succeq 0$", r"\begin{align}", 'href="https://example.org/notes"',
                 'href="mailto:alice@example.org"', 'href="#top"',
                 "<code>is_kernel</code>"):
        assert kept in rendered, kept
    for name, attack in ATTACKS.items():
        assert not is_plain_markdown(attack), name
        cleaned = clean_markdown(attack)
        assert not [n for n in NEEDLES if n in cleaned.lower()], (name, cleaned)
        again = student_markdown_html(cleaned)   # what a later viewer renders
        assert not [n for n in NEEDLES if n in again.lower()], (name, again)


def test_only_web_and_mail_urls_and_anchors_are_allowed():
    for url in ("https://example.org/a?b#c", "http://example.org", "mailto:a@b.c",
                "#top"):
        assert allowed_url(url), url
    for url in ("javascript:alert(1)", " JaVaScRiPt:x", "java\tscript:x", "data:,x",
                "vbscript:x", "file:///etc/passwd", "//evil.example/x",
                "../api/grade/1", "/formgrader/api/grade/1", "ftp://example.org"):
        assert not allowed_url(url), url


def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="source must be a str"):
        clean_markdown(None)


# -- through nbgrader -------------------------------------------------------------

@pytest.fixture(scope="module")
def graded(slow, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("student_html")
    course = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                            assignments=["ps1"], secret="student-html-secret")
    (course.root / "students.csv").write_text(
        "id,first_name,last_name,email\nalice,Alice,Honest,alice@example.org\n"
        "mallory,Mallory,Hostile,mallory@example.org\neve,Eve,Overlay,eve@example.org\n")
    course.nbgrader("db student import", "students.csv")
    course.nbgrader("db assignment add", "ps1")
    course.nbgrader("generate_assignment", "ps1")
    course.nbgrader("release_assignment", "ps1")
    for student, answer in (("alice", HONEST), ("mallory", MALLORY), ("eve", EVE)):
        course.student(student, "fetch_assignment", "ps1")
        path = course.student_notebook_path(student, "ps1")
        nb = nbformat.read(path, as_version=4)
        if student != "eve":
            nb = fill_answers(nb, course.source("ps1"))
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid == "validity_arguments":
                cell.source = answer
        if student == "mallory":
            nb.cells.insert(1, nbformat.v4.new_markdown_cell(HOSTILE))
            nb.cells.insert(2, nbformat.v4.new_code_cell(HOSTILE_CODE))
        nbformat.write(nb, path)
        course.student(student, "submit", "ps1")
    course.nbgrader("collect", "ps1")
    course.nbgrader("autograde", "ps1")
    course.nbgrader("generate_feedback", "ps1", "--RefuseHalfGraded.allow_ungraded=True")
    return course


def _shown(nb):
    """What a viewer renders of a notebook: Markdown, raw cells and rich outputs."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type in ("markdown", "raw"):
            parts.append(cell.source)
        for out in cell.get("outputs", []):
            parts.extend(v if isinstance(v, str) else json.dumps(v)
                         for k, v in out.get("data", {}).items() if k != "text/plain")
    return "\n".join(parts)


def test_every_attack_scores_exactly_what_the_code_earns(graded):
    scores = graded.code_scores("ps1")
    assert set(scores) == {"alice", "mallory", "eve"}
    assert scores["eve"][0] == 0    # her formulas earn nothing
    assert scores["mallory"] == scores["alice"]
    assert scores["alice"][0] == scores["alice"][1] > 0   # reference code: full marks
    cells = graded.cell_scores("ps1")
    assert {g: s for (st, g), s in cells.items() if st == "mallory"} == \
        {g: s for (st, g), s in cells.items() if st == "alice"}


def test_the_autograded_notebook_holds_no_attack(graded):
    mallory = graded.notebook("autograded", "mallory", "ps1", "ps1.ipynb")
    # TeX is text, kept as written; the pages that typeset it make it inert
    # (test_no_attack_runs_in_formgrader_or_the_feedback_page)
    assert MATHS_LINK in _shown(mallory)
    shown = _shown(mallory).replace(MATHS_LINK, "").lower()
    assert not [n for n in NEEDLES if n in shown]
    assert "my answer." in shown and "bold output" in shown    # the harmless text stays
    alice = graded.notebook("autograded", "alice", "ps1", "ps1.ipynb")
    answer = [c.source for c in alice.cells
              if c.metadata.get("nbgrader", {}).get("grade_id") == "validity_arguments"]
    assert answer == [HONEST]


class _Elements(html.parser.HTMLParser):
    def __init__(self, raw):
        super().__init__()
        self.found = []
        self.feed(raw)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def _feedback(course, student):
    return (course.root / "feedback" / student / "ps1" / "ps1.html").read_text()


def test_the_feedback_page_holds_no_attack_and_names_the_parts(graded):
    honest, hostile = (_Elements(_feedback(graded, s)).found
                       for s in ("alice", "mallory"))
    policy = dict(FEEDBACK_CSP, content=FEEDBACK_CSP["content"].format(
        scripts=script_sources(_feedback(graded, "mallory"))))
    assert "'sha256-" in policy["content"]
    kinds = {(tag, name) for tag, attrs in honest for name in attrs}
    extra = {(tag, name) for tag, attrs in hostile for name in attrs} - kinds
    assert extra == set()     # no kind of element or attribute the honest page lacks
    scripts = [[t for t, _ in page].count("script") for page in (honest, hostile)]
    assert scripts[0] == scripts[1]
    for tag, attrs in hostile:
        assert not [n for n in attrs if n.startswith("on")], (tag, attrs)
        for name in ("href", "src", "action", "formaction", "xlink:href"):
            value = (attrs.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "data:")), (tag, attrs)
        # nothing of the student's is fetched when the page opens: a remote image is a link
        assert not (tag == "img" and "tracker.example" in (attrs.get("src") or "")), attrs
        assert tag not in ("iframe", "svg", "object", "embed", "form", "base"), tag
        assert not (tag == "meta" and "http-equiv" in attrs) or attrs == policy, attrs
    # the page's own policy, which no student's content can loosen: nothing is loaded
    policies = [attrs for tag, attrs in hostile if tag == "meta" and "http-equiv" in attrs]
    assert policies == [policy]
    assert 'href="https://tracker.example/pixel.png"' in _feedback(graded, "mallory")
    raw = _feedback(graded, "alice")
    # the TeX is written out as MathML (coursegrader/mathml.py)
    start = raw.index("Each candidate is a kernel")
    answer = raw[start:raw.index("example.org/notes", start)]
    assert 'href="https://example.org/notes"' in raw and "<mi>K</mi><mi>⪰</mi>" in answer
    assert "\\" not in answer and "$" not in answer and "<mtable" in answer
    toc = raw[raw.index('<div id="toc">'):raw.index("</ol>")]
    assert ">Comment</a>" not in toc    # a grader's comment is named after its part
    assert "Test cell" not in toc and "Written response" not in toc
    assert "Part 1: the feature map" in toc and "Part 5 (written" in toc
    assert "its inner products equal" in toc    # what the part's checks ask


# -- in a browser -------------------------------------------------------------------

def _need_chromium():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Chromium not found at {CHROMIUM}; it is required in CI")
        pytest.skip(f"Chromium not found at {CHROMIUM}; browser test skipped")


@pytest.fixture(scope="module")
def formgrader(graded):
    """A jupyter server with nbgrader's formgrader, serving the course on loopback.

    Mallory's autograded notebook gets her hostile Markdown back, as a notebook
    autograded before autograde cleaned it would hold: Formgrader's own page
    must clean it.  The server runs the deployment's policy for Formgrader's
    pages (deploy/formgrader_csp.py), as the instructor's server does.
    """
    autograded = graded.root / "autograded" / "mallory" / "ps1" / "ps1.ipynb"
    original = autograded.read_text()
    nb = nbformat.reads(original, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and (
                not cell.metadata.get("nbgrader", {}).get("locked")):
            cell.source = MALLORY
    nbformat.write(nb, autograded)
    try:
        with formgrader_server(graded.root) as (url, token):
            yield url, token
    finally:
        autograded.write_text(original)


def _grades(course):
    """Every grade of the gradebook: (student, grade id) -> (auto, manual score)."""
    with course.gradebook() as gb:
        return {(sub.student.id, g.name): (g.auto_score, g.manual_score)
                for sub in gb.assignment_submissions("ps1") for nb in sub.notebooks
                for g in nb.grades}


def _visit(page, url):
    """Open ``url``, wait for its maths (MathJax's, and the feedback's MathML),
    click each formula MathJax typeset with a K at its end (mallory's), and say
    what the page's scripts did."""
    page.goto(url)
    page.wait_for_selector("mjx-container, math", state="attached", timeout=60_000)
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                           timeout=60_000)
    page.evaluate("MathJax.startup.promise")
    page.wait_for_timeout(500)    # an onerror or onload would have fired by now
    title = page.title()
    links = page.evaluate("""() => {
        const ks = [...document.querySelectorAll('mjx-container')].filter(c =>
            /K$/.test((c.querySelector('mjx-assistive-mml') || c).textContent.trim()));
        ks.forEach(c => c.setAttribute('data-ends-in-k', ''));
        return document.querySelectorAll('mjx-container a').length; }""")
    clicked = page.locator("[data-ends-in-k]").count()
    for formula in page.locator("[data-ends-in-k]").all():
        formula.click(force=True)
    page.wait_for_timeout(300)
    return page.evaluate("""(seen) => ({
        ...seen, title: document.title,
        pwned: window.pwned === undefined ? null : String(window.pwned),
        parentPwned: [...document.querySelectorAll('iframe')].length,
        maths: document.querySelectorAll('mjx-container').length
            + [...document.querySelectorAll('math')].filter(m => !m.closest('mjx-container')).length,
        formgraderReady: Boolean(window.MathJax && window.MathJax.loaded),
        shown: document.body.innerText,
        jsLinks: [...document.querySelectorAll('[href],[src]')]
            .map(e => e.getAttribute('href') || e.getAttribute('src'))
            .filter(v => /^\\s*(javascript|data):/i.test(v)),
    })""", {"titleBefore": title, "mathLinks": links, "clickedK": clicked})


def test_no_attack_runs_in_formgrader_or_the_feedback_page(graded, formgrader):
    _need_chromium()
    from playwright.sync_api import sync_playwright

    url, token = formgrader
    with graded.gradebook() as gb:
        submission = gb.find_submission_notebook("ps1", "ps1", "mallory").id
    before = _grades(graded)
    requests, dialogs, policies = [], [], {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append((r.method, r.url)))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("response", lambda r: policies.setdefault(
                r.url.split("?")[0], r.headers.get("content-security-policy")))
            # a first request with the token sets the login cookie
            page.goto(f"{url}/formgrader?token={token}")
            grading = _visit(page, f"{url}/formgrader/submissions/{submission}/")
            # again, from the browser's cache (the server answers 304 Not Modified)
            again = _visit(page, f"{url}/formgrader/submissions/{submission}/")
            feedback = _visit(page, (graded.root / "feedback" / "mallory" / "ps1"
                                     / "ps1.html").as_uri())
        finally:
            browser.close()
    for name, seen in (("Formgrader", grading), ("Formgrader again", again),
                       ("feedback", feedback)):
        assert seen["pwned"] is None, name
        assert seen["parentPwned"] == 0 and seen["jsLinks"] == [], name
        assert seen["maths"] > 0, name           # the page's own maths still typesets
        assert "My answer." in seen["shown"], name   # and the page is not blanked
        # mallory's formula is typeset, with no link, and a click on it runs nothing
        assert seen["clickedK"] >= 1 and seen["mathLinks"] == 0, (name, seen["mathLinks"])
        assert seen["title"] == seen["titleBefore"], name
    # Formgrader's page runs its own inline scripts, by their hashes, and no other
    policy = policies[f"{url}/formgrader/submissions/{submission}/"]
    scripts = next(d for d in policy.split(";") if d.strip().startswith("script-src "))
    assert "'sha256-" in scripts and "'unsafe-inline'" not in scripts, policy
    # nbgrader's formgrade.js waited for the offline MathJax and went on
    assert grading["formgraderReady"] is True and again["formgraderReady"] is True
    assert dialogs == []
    assert [(m, u) for m, u in requests if m != "GET"] == []
    assert not [u for m, u in requests if "pwned" in u or "/api/grade/" in u]
    assert _grades(graded) == before


def test_no_formula_paints_over_the_score_or_the_autograders_output(graded, formgrader):
    """Eve's formulas, drawn far outside their box by MathJax's base TeX
    (``OVERLAYS``), and her blocks of fake results lifted by nested
    superscripts (``LIFTS``), on her feedback page and on Formgrader's grading page,
    reached as the instructor reaches it, by clicks from Formgrader's start:
    the score heading and each line where the autograder says FAIL are what
    the browser finds at their place, and nothing of her formulas is drawn
    outside her answer's cell."""
    _need_chromium()
    from playwright.sync_api import sync_playwright

    url, token = formgrader
    with graded.gradebook() as gb:
        submission = gb.find_submission_notebook("ps1", "ps1", "eve").id
    answers = "div.text_cell_render"
    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/formgrader?token={token}")
            page.get_by_role("link", name="Manual Grading").first.click()
            page.locator('a[href$="/formgrader/gradebook/ps1"]').click()
            page.locator('a[href$="/formgrader/gradebook/ps1/ps1"]').click()
            page.locator(f'a[href$="/formgrader/submissions/{submission}"]').first.click()
            page.wait_for_url(f"**/formgrader/submissions/{submission}/**")
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("MathJax.startup.promise")
            seen["Formgrader"] = page.evaluate(OVERLAID, ["div.output_area pre", answers])
            seen["Formgrader", "typeset"] = page.evaluate(TYPESET)
            page.goto((graded.root / "feedback" / "eve" / "ps1" / "ps1.html").as_uri())
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("MathJax.startup.promise")
            seen["feedback"] = page.evaluate(
                OVERLAID, ["div.panel-heading h4, div.output_area pre", answers])
            seen["feedback", "typeset"] = page.evaluate(TYPESET)
        finally:
            browser.close()
    for name in ("Formgrader", "feedback"):
        # her formulas typeset (by MathJax: latex2mathml has no \raise; the
        # feedback writes the last out as MathML), and the FAIL lines (and the
        # score heading) checked
        assert seen[name, "typeset"] >= len(OVERLAYS), (name, seen[name, "typeset"])
        assert seen[name]["checked"] >= 4, (name, seen[name])
    overlaid = {name: {k: seen[name][k] for k in ("covered", "outsideCount", "hitCount")}
                for name in ("Formgrader", "feedback")}
    assert overlaid == {name: {"covered": [], "outsideCount": 0, "hitCount": 0}
                        for name in overlaid}, overlaid


def test_the_feedback_pages_meet_wcag_21_aa(graded):
    """A student's feedback page, an honest one and one full of attacks, has no
    serious or critical WCAG 2.1 AA violation on a laptop and on a phone, and
    is no wider than the screen."""
    from playwright.sync_api import sync_playwright

    from accessibility import LAPTOP, PHONE, axe_violations
    from conftest import CHROMIUM_ARGS, require_chromium

    failures, checked = [], 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(),
                                    args=CHROMIUM_ARGS)
        try:
            for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
                # a phone lays the page out at its own width only if the page asks
                context = browser.new_context(viewport=viewport,
                                              is_mobile=name == "phone")
                for student in ("alice", "mallory"):
                    page = context.new_page()
                    page.goto((graded.root / "feedback" / student / "ps1"
                               / "ps1.html").as_uri())
                    page.wait_for_selector("math", state="attached", timeout=60_000)
                    failures += [f"{name} {student}: {v}" for v in axe_violations(page)]
                    wide = page.evaluate("() => document.documentElement.scrollWidth")
                    if wide > viewport["width"]:
                        failures.append(f"{name} {student}: the page is {wide} px wide")
                    checked += 1
                    page.close()
                context.close()
        finally:
            browser.close()
    assert checked == 4
    assert not failures, "\n".join(failures)


def test_the_feedback_reads_its_maths_with_scripts_off(graded, tmp_path):
    """As JupyterLab's HTML viewer shows a page it does not trust, in a frame
    whose sandbox runs no script: every formula is drawn (MathML, no MathJax),
    and no TeX is left in the text a student reads."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, require_chromium

    feedback = graded.root / "feedback" / "alice" / "ps1" / "ps1.html"
    viewer = feedback.with_name("viewer.html")
    viewer.write_text('<!DOCTYPE html><iframe sandbox="allow-same-origin" src="ps1.html" '
                      'style="width: 1200px; height: 900px"></iframe>')
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(viewer.as_uri())
            frame = page.frame_locator("iframe")
            frame.locator("math").first.wait_for(state="attached")
            seen = frame.locator("body").evaluate(r"""body => {
                const maths = [...body.querySelectorAll('math')];
                const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
                const tex = [];
                for (let n = walker.nextNode(); n; n = walker.nextNode()) {
                    if (n.parentElement.closest('math, pre, code, script, style')) continue;
                    if (/\\(frac|begin|sum|langle|succeq|top)|\$\$/.test(n.textContent))
                        tex.push(n.textContent.trim().slice(0, 60));
                }
                return {maths: maths.length,
                        drawn: maths.filter(m => m.getBoundingClientRect().width > 0).length,
                        mathjax: body.querySelectorAll('mjx-container').length, tex};
            }""")
        finally:
            browser.close()
        viewer.unlink()
    assert seen["maths"] > 10 and seen["drawn"] == seen["maths"], seen
    assert seen["mathjax"] == 0 and seen["tex"] == [], seen


def _answer_cell_set_to(course, student, answer):
    """Set ``student``'s written answer in their autograded notebook (which
    Formgrader shows) to ``answer``; returns the notebook's text as it was."""
    autograded = course.root / "autograded" / student / "ps1" / "ps1.ipynb"
    original = autograded.read_text()
    nb = nbformat.reads(original, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "validity_arguments":
            cell.source = answer
    nbformat.write(nb, autograded)
    return original


def test_a_long_word_stays_inside_its_cell_on_formgraders_grading_page(graded, formgrader):
    """alice's written answer, one 400-letter word (in a paragraph, a list item
    and inline code), on Formgrader's grading page in a window 1366 px wide
    and one 390 px wide: the word breaks inside its cell, and the page is no
    wider than with her honest answer."""
    _need_chromium()
    from playwright.sync_api import sync_playwright

    from attacks import LONG_ANSWER, LONG_WORD, OVERFLOWED

    url, token = formgrader
    with graded.gradebook() as gb:
        submission = gb.find_submission_notebook("ps1", "ps1", "alice").id
    autograded = graded.root / "autograded" / "alice" / "ps1" / "ps1.ipynb"
    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            for width in (1366, 390):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(f"{url}/formgrader?token={token}")
                for answer in ("honest", "long"):
                    original = (_answer_cell_set_to(graded, "alice", LONG_ANSWER)
                                if answer == "long" else None)
                    try:
                        page.goto(f"{url}/formgrader/submissions/{submission}/")
                        page.wait_for_function(
                            "window.MathJax && MathJax.startup && MathJax.startup.promise")
                        page.evaluate("MathJax.startup.promise")
                        seen[width, answer] = page.evaluate(
                            OVERFLOWED, ["div.text_cell_render", LONG_WORD])
                    finally:
                        if original is not None:
                            autograded.write_text(original)
                page.close()
        finally:
            browser.close()
    for width in (1366, 390):
        long, honest = seen[width, "long"], seen[width, "honest"]
        assert long["past"] == [0, 0, 0], (width, long)
        assert long["wider"] <= honest["wider"], (width, long, honest)
        assert honest["past"] == [], honest
    assert seen[1366, "long"]["wider"] == 0


def test_show_all_names_and_the_add_links_work_under_the_policy(graded, formgrader):
    """As an instructor clicks them, under the deployment's policy for
    Formgrader's pages: "Show All Names" on the list of a notebook's
    submissions shows every student's name and then hides them again; "Add new
    assignment..." and "Add new student..." open their dialogs.  nbgrader
    wires each with an inline onclick=, which the policy never runs
    (deploy/formgrader_handlers.py binds them); no page of Formgrader's lists
    the instructor reaches keeps an inline handler, and the browser reports
    none refused."""
    _need_chromium()
    from playwright.sync_api import sync_playwright

    url, token = formgrader
    inline = """() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
        .filter(a => /^on/i.test(a.name) || /^\\s*javascript:/i.test(a.value))
        .map(a => e.localName + ' ' + a.name + '=' + a.value))"""
    names = ["Honest, Alice", "Hostile, Mallory", "Overlay, Eve"]
    refused, left = [], {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            # Chromium says of a refused handler "Executing inline event
            # handler violates the following Content Security Policy directive"
            page.on("console", lambda m: refused.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.goto(f"{url}/formgrader?token={token}")
            page.get_by_role("link", name="Manual Grading").first.click()
            page.locator('a[href$="/formgrader/gradebook/ps1"]').click()
            page.locator('a[href$="/formgrader/gradebook/ps1/ps1"]').click()
            shown = page.locator("td.name a.name-shown")
            shown.first.wait_for(state="attached")
            assert shown.count() == 3
            hidden_at_first = [shown.nth(i).is_visible() for i in range(3)]
            page.get_by_role("button", name="Show All Names").click()
            button = page.locator("button#toggle_names")
            after_show = sorted(shown.nth(i).inner_text() for i in range(3)
                                if shown.nth(i).is_visible())
            label = button.inner_text()
            page.get_by_role("button", name="Hide All Names").click()
            after_hide = [shown.nth(i).is_visible() for i in range(3)]
            left["submissions"] = page.evaluate(inline)

            page.get_by_role("link", name="Manage Assignments").first.click()
            page.get_by_role("link", name="Add new assignment...").click()
            page.locator("#add-assignment-modal").wait_for(state="visible")
            assignment_dialog = page.locator("#add-assignment-modal h4").inner_text()
            left["assignments"] = page.evaluate(inline)
            page.locator("#add-assignment-modal .modal-header button.close").click()
            page.locator("#add-assignment-modal").wait_for(state="detached")

            page.get_by_role("link", name="Manage Students").first.click()
            page.get_by_role("link", name="Add new student...").click()
            page.locator("#add-student-modal").wait_for(state="visible")
            student_dialog = page.locator("#add-student-modal h4").inner_text()
            left["students"] = page.evaluate(inline)
            for path in ("gradebook", "gradebook/ps1", "manage_students/alice",
                         "manage_students/alice/ps1", "manage_submissions/ps1"):
                page.goto(f"{url}/formgrader/{path}")
                page.wait_for_load_state("networkidle")
                left[path] = page.evaluate(inline)
        finally:
            browser.close()
    assert hidden_at_first == [False, False, False]
    assert after_show == sorted(names) and label == "Hide All Names", (after_show, label)
    assert after_hide == [False, False, False]
    assert assignment_dialog == "Add New Assignment"
    assert student_dialog == "Add New Student"
    assert left == {k: [] for k in left}, left
    assert refused == [], refused
