"""A clean class, run the way the instructor runs it: quiet, and feedback that reads offline.

The class is the shared ps1 class (``ps1_class``, tests/graded_classes.py):
alice (the reference solution), bob (the blank release, with a written answer
whose maths tries to make a link that runs a script) and carol (two parts
answered) go through nbgrader's exchange; the instructor then runs ``make
collect autograde feedback report`` in the course folder (and ``make feedback``
again without the book's address). The output of the first and the grading
log must hold nothing alarming, and the feedback page must typeset its maths
in Chromium with every request to the network refused, show no cell prompts,
and give counts that add up.
"""

import html
import re

import pytest

from conftest import CHROMIUM, require_chromium


pytestmark = [pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

#: What an instructor must not see after a clean run.
ALARMING = [
    "checksum has changed",        # nbgrader on locked cells it restored itself
    "SAWarning", "autoflush",      # SQLAlchemy session warnings from the gradebook
    "not recognized by",           # traitlets: "Config option ... not recognized by ..."
    "no nbgrader_config.py",       # nbgrader run outside a course folder
    "Traceback", "ERROR", "WARNING",
]


@pytest.fixture(scope="module")
def class_run(ps1_class):
    c = ps1_class
    return c.course, c.setup, c.grading, c.logs


def test_a_clean_run_prints_nothing_alarming(class_run):
    course, setup, grading, logs = class_run
    assert "graded 3 submission(s), 0 failed" in grading  # it did grade
    for name, text in (("make db generate release", setup),
                       ("make collect autograde feedback report", grading),
                       ("gradelog/", logs)):
        found = [line for line in text.splitlines() if any(a in line for a in ALARMING)]
        assert not found, f"{name} printed:\n" + "\n".join(found[:20])


def _visible_text(raw):
    body = raw[raw.index("<body"):]
    body = re.sub(r"<script\b.*?</script>", "", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_feedback_has_no_prompts_and_counts_that_add_up(class_run):
    course = class_run[0]
    for student, all_passed in (("alice", True), ("bob", False)):
        raw = (course.root / "feedback" / student / "ps1" / "ps1.html").read_text()
        text = _visible_text(raw)
        assert not re.search(r"\b(In|Out)\s*\[", text), student
        heads = list(re.finditer(r"\[(\w+)\]: (\d+) of (\d+) checks passed\n", text))
        assert len(heads) == 4, (student, len(heads))  # one per auto-graded part
        for head, after in zip(heads, heads[1:] + [None]):
            part, passed, total = head[1], int(head[2]), int(head[3])
            listed = text[head.end():after.start() if after else len(text)]
            # a part with hidden cases sums them up (ps1's verdicts have none)
            summary = re.search(r"(\d+) of (\d+) hidden checks passed", listed)
            hidden_passed, hidden = (int(summary[1]), int(summary[2])) if summary else (0, 0)
            ok = len(re.findall(r"^\s*ok\s+case '", listed, flags=re.M))
            failed = len(re.findall(r"^\s*FAIL\s+case '", listed, flags=re.M))
            assert total == ok + failed + hidden, (student, part)
            assert passed == ok + hidden_passed, (student, part)
            assert (passed == total) is all_passed, (student, part)


def test_each_submission_has_its_record_beside_it_and_never_in_the_feedback(class_run):
    """The judge's record (which names the hidden cases) is written once, beside
    the autograded notebook; the feedback folder, which students are sent,
    holds none, and the feedback's titles came from it."""
    from coursegrader import record
    course = class_run[0]
    for student, top in (("alice", True), ("bob", False)):
        result = record.load(course.root / "autograded" / student / "ps1", "ps1")
        assert (result.student, result.assignment, result.notebook) == (student, "ps1", "ps1")
        assert len(result.parts) == 4 and (result.score == result.points) is top
        assert {c.hidden for p in result.parts for c in p.cases} == {True, False}
        assert course.cell_scores("ps1")[(student, "quadratic_map")] == \
            result.part("quadratic_map").score
        assert result.part("quadratic_map").description in _visible_text(
            (course.root / "feedback" / student / "ps1" / "ps1.html").read_text())
    assert list((course.root / "feedback").rglob("*.html"))
    assert not list((course.root / "feedback").rglob("*" + record.SUFFIX))


def test_feedback_typesets_its_maths_offline_in_chromium(class_run):
    require_chromium()
    from playwright.sync_api import sync_playwright

    page_path = class_run[0].root / "feedback" / "bob" / "ps1" / "ps1.html"
    raw = page_path.read_text()
    assert not re.search(r"<script[^>]*\bsrc=", raw)  # every script is in the page
    refused = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox",
                                                                    "--disable-gpu"])
        try:
            page = browser.new_page()

            def only_the_file(route):
                if route.request.url.startswith("file:"):
                    route.continue_()
                else:
                    refused.append(route.request.url)
                    route.abort()

            page.route("**/*", only_the_file)
            page.goto(page_path.as_uri())
            page.wait_for_selector("mjx-container svg", timeout=60_000)
            seen = page.evaluate("""() => ({
                links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')
                                                                 || a.getAttribute('xlink:href')),
                // formulas typeset as MathML by the feedback's writer, and the
                // rest by MathJax (whose own assistive MathML is not counted twice)
                maths: document.querySelectorAll('mjx-container').length
                       + [...document.querySelectorAll('math')]
                           .filter(m => !m.closest('mjx-container')).length,
                probe: [...document.querySelectorAll('.text_cell_render')]
                         .map(e => e.textContent).filter(t => t.includes('Not sure')).join(''),
                text: [...document.querySelectorAll('.text_cell_render')]
                        .map(e => e.innerText).join('\\n'),
            })""")
        finally:
            browser.close()
    assert refused == []
    # the student's \\href keeps its text only: no link, and no address shown
    assert "Notsure:D⪰0and12." in seen["probe"].replace(" ", "")
    assert "PWNED" not in seen["probe"]
    assert not [h for h in seen["links"] if h and "javascript" in h.lower()]
    assert seen["maths"] >= 10
    assert "\\langle" not in seen["text"] and "$" not in seen["text"]
