"""Feedback sends a student back to the book, and the report adds up the class per section.

Every auto-graded part names the sections of the book it exercises
(``Part.sections``); each must be a section the book labels (``(label)=``
above a heading), whose anchor the built page carries
(``tests/book/test_book.py::test_every_section_a_part_names_is_an_anchor_of_its_built_page``).
Through the real pipeline (``make collect autograde feedback report``, on the
shared ps1 class of tests/graded_classes.py), a
student who fails a part finds its sections under it in the feedback, as
links to the published book when ``CourseSettings.book_url`` is set and as
the chapter and title in words when it is not; the report's table of sections
has the class's numbers.
"""

import html
import json
import re
import subprocess
import sys

import pytest
from traitlets.config import Config

from coursecheck.parts import Part, get_parts
from coursegrader import book_sections
from coursegrader.record import CaseResult, PartResult, SubmissionResult
from coursegrader.settings import CourseSettings
from coursegrader.tools.section_summary import by_section
from conftest import COURSE
from graded_classes import ANSWERED, BOOK_URL

PROBLEM_SETS = sorted(p.stem for p in (COURSE / "problems").glob("ps*.py"))


# ---------------------------------------------------------------- the parts name real sections

@pytest.mark.parametrize("ps", PROBLEM_SETS)
def test_every_part_names_sections_the_book_has(ps):
    parts = get_parts(ps)
    assert all(part.sections for part in parts.values()), \
        [pid for pid, part in parts.items() if not part.sections]
    assert book_sections.unresolved(parts) == []


def test_a_label_marks_a_section_only_above_a_heading(tmp_path):
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Chapters\n    numbered: true\n"
        "    chapters:\n      - file: one\n      - file: two\n")
    (tmp_path / "intro.md").write_text("(intro-top)=\n# Welcome\n")
    (tmp_path / "one.md").write_text("# First\n")
    (tmp_path / "two.md").write_text(
        "---\njupytext: {}\n---\n\n(two-chapter)=\n# Second chapter\n\n"
        "(two-ridge)=\n\n## Ridge $\\lambda$\n\n"
        "(two-paragraph)=\nSome text.\n\n## Unlabelled\n\n"
        "```{code-cell} ipython3\n(two-in-code)=\n# a comment\n```\n\n"
        "````markdown\n```\n(two-nested)=\n## nested\n```\n````\n\n"
        ":::{note}\n(two-in-note)=\n### inside a note\n:::\n")
    found = book_sections.book_sections(tmp_path)
    assert sorted(found) == ["intro-top", "two-chapter", "two-ridge"]
    ridge = found["two-ridge"]
    assert (ridge.page, ridge.chapter, ridge.chapter_title, ridge.title) == \
        ("two", 2, "Second chapter", "Ridge $\\lambda$")
    assert ridge.describe() == "Chapter 2, Second chapter: Ridge $\\lambda$"
    assert found["two-chapter"].describe() == "Chapter 2, Second chapter"
    assert found["intro-top"].describe() == "Welcome"   # an unnumbered page
    with pytest.raises(ValueError, match="'two-paragraph'.*above its heading"):
        book_sections.section("two-paragraph", tmp_path)
    parts = {"p": Part(func="f", points=1, public=list, verify=lambda g, c: None,
                       sections=("two-ridge", "two-in-code"))}
    assert book_sections.unresolved(parts, tmp_path) == [("p", "two-in-code")]


def test_the_link_is_the_built_pages_anchor_or_nothing_without_an_address():
    sec = book_sections.section("svm-dual")
    assert (sec.page, sec.chapter, sec.title) == ("book/chapters/svm", 5, "The dual problem")
    expected = "https://course.example.org/kernel-methods/book/chapters/svm.html#svm-dual"
    assert book_sections.link(sec, BOOK_URL) == expected
    assert book_sections.link(sec, BOOK_URL.rstrip("/")) == expected
    assert book_sections.link(sec, "") is None
    assert sec.describe() == ("Chapter 5, Support vector machines and the representer "
                              "theorem: The dual problem")


@pytest.mark.parametrize("sections", ["kt-when-kernel", ("Which functions?",), ("",), (3,),
                                      ("kt-when-kernel\n",)])
def test_a_part_refuses_sections_that_are_not_labels(sections):
    with pytest.raises(ValueError, match="Part.sections"):
        Part(func="f", points=1, public=list, verify=lambda g, c: None, sections=sections)


@pytest.mark.parametrize("url", ["javascript:alert(1)//", "ftp://example.org/", "example.org/book",
                                 'https://example.org/"><script>', "https://example.org/a b",
                                 "https://example.org/?q=1", "https:///nohost"])
def test_the_book_address_must_be_an_http_site(url, monkeypatch):
    with pytest.raises(Exception, match="CourseSettings.book_url: expected the http"):
        CourseSettings(config=Config({"CourseSettings": {"book_url": url}}))
    monkeypatch.setenv("COURSEGRADER_BOOK_URL", url)
    with pytest.raises(ValueError, match=r"\$COURSEGRADER_BOOK_URL: expected the http"):
        CourseSettings().book_url


@pytest.mark.slow
def test_the_book_address_has_one_home_and_is_documented(monkeypatch):
    monkeypatch.delenv("COURSEGRADER_BOOK_URL", raising=False)
    assert CourseSettings().book_url == ""
    monkeypatch.setenv("COURSEGRADER_BOOK_URL", BOOK_URL)
    assert CourseSettings().book_url == BOOK_URL
    config = Config({"CourseSettings": {"book_url": "https://other.example.org/"}})
    assert CourseSettings(config=config).book_url == "https://other.example.org/"
    helped = subprocess.run([sys.executable, "-m", "coursegrader", "--help-all"],
                            capture_output=True, text=True, check=True).stdout
    assert "--CourseSettings.book_url=<Unicode>" in helped
    assert "COURSEGRADER_BOOK_URL" in helped


# ---------------------------------------------------------------- the report's numbers

def _result(student, scores):
    parts = get_parts("ps1")
    return SubmissionResult(assignment="ps1", student=student, notebook="ps1", parts=tuple(
        PartResult(part=pid, function=parts[pid].func, description="", points=parts[pid].points,
                   score=score, cases=(CaseResult(label="c", hidden=False,
                                                  passed=score == parts[pid].points),))
        for pid, score in scores.items()))


def test_each_section_pools_its_parts_per_student():
    # ps1: quadratic_map 2, multinomial_map 3, kernel_verdicts 2, counterexample 3 points
    results = {
        "ada": [_result("ada", {"quadratic_map": 2, "multinomial_map": 3,
                                "kernel_verdicts": 2, "counterexample": 3})],
        "bo": [_result("bo", {"quadratic_map": 1, "multinomial_map": 0,
                              "kernel_verdicts": 2, "counterexample": 1.5})],
        # a record without two of the parts: those sections count ada and bo only
        "cy": [_result("cy", {"quadratic_map": 0, "kernel_verdicts": 0})],
    }
    rows = {r.label: r for r in by_section(results, "ps1")}
    assert rows["kt-polynomial-features"].parts == ("quadratic_map",)
    assert rows["kt-polynomial-features"].mean_share == pytest.approx((1 + 0.5 + 0) / 3)
    assert (rows["kt-polynomial-features"].lost, rows["kt-polynomial-features"].students) == (2, 3)
    # quadratic_map and multinomial_map pooled: bo 1 of 5, cy 0 of 2
    assert rows["kt-polynomial"].parts == ("quadratic_map", "multinomial_map")
    assert rows["kt-polynomial"].mean_share == pytest.approx((1 + 1 / 5 + 0) / 3)
    assert rows["bk-polynomials"].mean_share == pytest.approx((1 + 0) / 2)
    assert (rows["bk-polynomials"].lost, rows["bk-polynomials"].students) == (1, 2)
    # kernel_verdicts and counterexample: bo 3.5 of 5, cy 0 of 2
    assert rows["kt-when-kernel"].mean_share == pytest.approx((1 + 3.5 / 5 + 0) / 3)
    assert rows["reg-closure"].mean_share == pytest.approx((1 + 1 + 0) / 3)
    assert (rows["reg-closure"].lost, rows["reg-closure"].students) == (1, 3)
    shares = [r.mean_share for r in by_section(results, "ps1")]
    assert shares == sorted(shares)   # the section to revisit first comes first
    assert by_section(results, "ps99") == []


# ---------------------------------------------------------------- through the real pipeline

# The shared ps1 class (tests/graded_classes.py): alice answers all of ps1's
# auto-graded parts, bob none, carol the quadratic map and the verdicts only.
@pytest.fixture(scope="module")
def graded_class(ps1_class):
    c = ps1_class
    return c.course, c.linked, c.plain, c.report


def _read_again(page):
    """{part: [(href or None, text)]} of the read-again box under each part's cell."""
    found = {}
    for gid, box in re.findall(r'<a name="(\w+)"></a>(?:(?!<a name=").)*?'
                               r'<div class="read-again">(.*?)</div>', page, flags=re.S):
        links = re.findall(r'<a href="([^"]*)">(.*?)</a>', box, flags=re.S)
        if links:
            found[gid] = [(html.unescape(h), html.unescape(t)) for h, t in links]
        else:
            text = html.unescape(re.sub(r"<[^>]+>", "", box)).split(":", 1)[1]
            found[gid] = [(None, t.strip()) for t in text.split(";")]
    return found


def _expected(parts, book_url):
    out = {}
    for pid in parts:
        out[pid] = []
        for label in get_parts("ps1")[pid].sections:
            sec = book_sections.section(label)
            out[pid].append((book_sections.link(sec, book_url), sec.describe()))
    return out


def test_a_failed_part_links_to_the_sections_that_teach_it(graded_class):
    course, linked, plain, report = graded_class
    failed = {"alice": [], "bob": list(get_parts("ps1")),
              "carol": ["multinomial_map", "counterexample"]}
    for student, parts in failed.items():
        assert _read_again(linked[student]) == _expected(parts, BOOK_URL), student
        # each link also beside the part in the contents at the top of the page
        contents = linked[student][linked[student].index('<div id="toc">'):]
        contents = contents[:contents.index("</div>")]
        for part in parts:
            for href, _ in _expected([part], BOOK_URL)[part]:
                assert f'href="{html.escape(href)}"' in contents, (student, part)
    assert "class=\"read-again\"" not in linked["alice"]
    href = _read_again(linked["carol"])["counterexample"][0][0]
    assert href == f"{BOOK_URL}book/chapters/kernel_trick.html#kt-when-kernel"


def test_without_the_books_address_the_feedback_names_the_section_in_words(graded_class):
    course, linked, plain, report = graded_class
    carol = _read_again(plain["carol"])
    assert carol == _expected(["multinomial_map", "counterexample"], "")
    assert carol["counterexample"] == [
        (None, "Chapter 1, The kernel trick: Which functions are kernels?")]
    for student in ANSWERED:
        assert BOOK_URL not in plain[student]
        assert ".html#" not in re.sub(r'href="#', "", plain[student])


def _section_table(report):
    body = report[report.index("<h2>The book's sections</h2>"):]
    body = body[:body.index("</table>")]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        link = re.search(r'href="([^"]*)"', cells[0])
        rows.append((link and html.unescape(link.group(1)),
                     *(html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells)))
    return rows


def test_the_report_says_how_the_class_did_on_each_section(graded_class):
    course, linked, plain, report = graded_class
    from coursegrader import record
    # the judge's scores: alice everything, bob nothing, carol her two parts
    scores = {s: {p.part: (p.score, p.points) for p in
                  record.load(course.root / "autograded" / s / "ps1", "ps1").parts}
              for s in ANSWERED}
    assert all(score == points for score, points in scores["alice"].values())
    assert all(score == 0 for score, _ in scores["bob"].values())
    assert {p for p, (score, points) in scores["carol"].items() if score == points} == \
        {"quadratic_map", "kernel_verdicts"}

    def row(label, parts, mean, lost):
        sec = book_sections.section(label)
        return (book_sections.link(sec, BOOK_URL), sec.describe(), ", ".join(parts),
                mean, f"{lost} of 3")

    # shares per student (alice, bob, carol); the lowest mean first, ties in the
    # order the parts name the sections
    assert _section_table(report) == [
        row("bk-polynomials", ["multinomial_map"], "33%", 2),                  # 1, 0, 0
        row("kt-polynomial", ["quadratic_map", "multinomial_map"], "47%", 2),  # 1, 0, 2/5
        row("kt-when-kernel", ["kernel_verdicts", "counterexample"], "47%", 2),  # 1, 0, 2/5
        row("kt-polynomial-features", ["quadratic_map"], "67%", 1),            # 1, 0, 1
        row("reg-closure", ["kernel_verdicts"], "67%", 1),                     # 1, 0, 1
    ]
    log = [json.loads(line) for line in
           (course.root / "gradelog" / "ps1.jsonl").read_text().splitlines()]
    assert sorted(e["student"] for e in log if e["status"] == "graded") == sorted(ANSWERED)


def test_the_reports_sections_link_to_the_book_and_student_text_stays_text():
    from coursegrader.tools.report import render, summarise
    entry = {"assignment": "ps1", "student": "<b>x</b>", "status": "graded", "seconds": 1.0,
             "records": [_result("<b>x</b>", {"kernel_verdicts": 0}).to_json()]}
    page = render(summarise([entry], "ps1"), BOOK_URL)
    assert "<b>x</b>" not in page
    assert (f'<a href="{BOOK_URL}book/chapters/kernel_trick.html#kt-when-kernel">'
            "Chapter 1, The kernel trick: Which functions are kernels?</a>") in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page


def test_the_feedback_with_its_sections_meets_wcag_21_aa(graded_class, tmp_path):
    """Pages with the sections under every part, linked and in words, have no
    serious or critical WCAG 2.1 AA violation and fit a laptop and a phone."""
    from playwright.sync_api import sync_playwright

    from accessibility import LAPTOP, PHONE, axe_violations
    from conftest import CHROMIUM_ARGS, require_chromium

    course, linked, plain, report = graded_class
    pages = {"bob linked": linked["bob"], "carol in words": plain["carol"]}
    for name, text in pages.items():
        (tmp_path / f"{name}.html").write_text(text, encoding="utf-8")
    failures, checked = [], 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            for device, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
                context = browser.new_context(viewport=viewport, is_mobile=device == "phone")
                for name in pages:
                    page = context.new_page()
                    page.goto((tmp_path / f"{name}.html").as_uri())
                    page.wait_for_selector("math", state="attached", timeout=60_000)
                    assert page.locator("div.read-again").count() > 0, name
                    failures += [f"{device} {name}: {v}" for v in axe_violations(page)]
                    wide = page.evaluate("() => document.documentElement.scrollWidth")
                    if wide > viewport["width"]:
                        failures.append(f"{device} {name}: the page is {wide} px wide")
                    checked += 1
                    page.close()
                context.close()
        finally:
            browser.close()
    assert checked == 4
    assert not failures, "\n".join(failures)
