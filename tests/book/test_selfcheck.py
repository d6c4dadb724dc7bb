"""Self-checks (coursegrader/selfcheck.py, book/_ext/selfcheck): read from their
text, answered in a browser, written out in the notebook download and in the PDF.

The browser and PDF tests build a small book of their own
(``tests/book/small_book``: one chapter with a question of each kind) with the
book's extensions, in seconds rather than the minutes of the whole book; the
whole book's pages go through the same accessibility test in test_book.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from accessibility import LAPTOP, PHONE, axe_violations
from conftest import CHROMIUM, CHROMIUM_ARGS, SMALL_BOOK, build_small_book, require_chromium

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from coursegrader.selfcheck import (SelfCheckError, find_blocks, judge_number,  # noqa: E402
                                    parse, split_options, write_out)

CHAPTER = SMALL_BOOK / "book" / "chapters" / "first_steps.md"


def read(text):
    options, body, _ = split_options(text.strip("\n").split("\n"))
    return parse(body, options)


CHOICE = """
What is 2 + 2?

- [ ] 3

  One short.
- [x] 4

  Two and two.
"""


def test_a_question_of_each_kind_is_read_with_its_explanations():
    check = read(CHOICE)
    assert check.kind == "choice" and check.question == "What is 2 + 2?"
    assert [(c.label, c.correct, c.explanation) for c in check.choices] == [
        ("3", False, "One short."), ("4", True, "Two and two.")]
    assert check.answer.label == "4"

    check = read(""":kind: select
Which are even?

- [x] 2

  Divisible by 2.

  A second paragraph, $x$ and all.
- [ ] 3

  Odd.
- [x] 4

  Also divisible.
""")
    assert check.kind == "select" and [c.correct for c in check.choices] == [True, False, True]
    assert check.choices[0].explanation == "Divisible by 2.\n\nA second paragraph, $x$ and all."
    wrapped = read("Q?\n\n- [x] a choice\n  that wraps\n\n  why\n- [ ] b\n\n  why")
    assert wrapped.choices[0].label == "a choice that wraps"
    assert check.answer is None

    check = read(""":kind: number
:tolerance: 0.05
What is 1/3 to two places?

- [x] 0.33

  Right.
- [ ] 3

  That is its inverse.
- [ ] other

  Divide.
""")
    assert check.kind == "number" and check.tolerance == 0.05
    assert [c.value for c in check.choices] == [0.33, 3.0, None]


@pytest.mark.parametrize("text, message", [
    ("- [x] a\n\n  why\n- [ ] b\n\n  why", "the question is missing"),
    ("Q?\n\n- [x] a\n\n  why", "at least two choices"),
    ("Q?\n\n- [x] a\n- [ ] b\n\n  why", "choice 'a' has no explanation"),
    ("Q?\n\n- [x] a\n  why\n- [ ] b\n\n  why", "choice 'a why' has no explanation"),
    ("Q?\n\n- [x] a\n\n  why\n- [x] b\n\n  why", "exactly one '- \\[x\\]' choice, not 2"),
    ("Q?\n\n- [ ] a\n\n  why\n- [ ] b\n\n  why", "exactly one '- \\[x\\]' choice, not 0"),
    (":kind: quiz\nQ?\n\n- [x] a\n\n  why\n- [ ] b\n\n  why", ":kind: must be one of"),
    (":tolerance: 1\nQ?\n\n- [x] a\n\n  why\n- [ ] b\n\n  why", "belongs to a question of :kind: number"),
    (":kind: number\n:tolerance: -1\nQ?\n\n- [x] 1\n\n  why\n- [ ] other\n\n  why", ">= 0"),
    (":label: x\nQ?\n\n- [x] a\n\n  why\n- [ ] b\n\n  why", "unknown option"),
    (":kind: number\nQ?\n\n- [x] 1\n\n  why\n- [ ] 2\n\n  why", "exactly one '- \\[ \\] other'"),
    (":kind: number\nQ?\n\n- [x] one\n\n  why\n- [ ] other\n\n  why", "a number or 'other'"),
    (":kind: number\n:tolerance: 0.5\nQ?\n\n- [x] 1\n\n  why\n- [ ] 1.2\n\n  why\n- [ ] other\n\n  w",
     "within the tolerance of the answer"),
    ("Q?\n\n- [x] a\n\n  why\n- [ ] b\n\n  why\nstray text", "indented by two spaces"),
])
def test_a_malformed_self_check_is_refused_with_what_to_fix(text, message):
    with pytest.raises(SelfCheckError, match=message):
        read(text)


def test_a_typed_number_gets_the_explanation_that_applies():
    check = read(""":kind: number
:tolerance: 0.01
Q?

- [x] 0.5

  right
- [ ] 2

  inverse
- [ ] other

  other
""")
    said = {typed: (judge_number(check, typed) or None) for typed in
            ("0.5", "1/2", "0.509", " .5 ", "2", "4/2", "\u22122", "3", "1e-1", "half", "", "1/0")}
    assert {k: v.explanation if v else None for k, v in said.items()} == {
        "0.5": "right", "1/2": "right", "0.509": "right", " .5 ": "right", "2": "inverse",
        "4/2": "inverse", "\u22122": "other", "3": "other", "1e-1": "other",
        "half": None, "": None, "1/0": None}


def test_blocks_are_found_in_markdown_and_an_error_names_its_line():
    text = "# T\n\ntext\n\n:::{selfcheck}\n" + CHOICE.strip() + "\n:::\n\nmore\n"
    (block,) = find_blocks(text)
    lines = text.split("\n")
    assert lines[block.start] == ":::{selfcheck}" and lines[block.end - 1] == ":::"
    broken = "intro\n\n```{selfcheck}\nQ?\n\n- [x] a\n\n  why\n- [ ] b\n```\n"
    with pytest.raises(SelfCheckError) as raised:
        find_blocks(broken)
    assert broken.split("\n")[raised.value.line] == "- [ ] b"
    with pytest.raises(SelfCheckError, match="never closed"):
        find_blocks(":::{selfcheck}\nQ?\n")


def test_the_notebook_download_reads_as_text_with_answers_at_the_end():
    """No directive or choice marker is left; each question is numbered as on
    the website, its choices lettered; the last cell has every answer and
    every explanation."""
    notebook = write_out(jupytext.read(CHAPTER, fmt="md:myst"))
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    text = "\n".join(markdown)
    assert "{selfcheck}" not in text and "- [x]" not in text and "- [ ]" not in text
    assert ":kind:" not in text and ":tolerance:" not in text
    body, answers = "\n".join(markdown[:-1]), markdown[-1]
    assert answers.startswith("## Answers to the self-checks")
    assert re.findall(r"\*\*Self-check (\d)\.\*\*", body) == ["1", "2", "3"]
    assert "- (a) $11$\n- (b) $10$\n- (c) $(3, 8)$" in body
    assert re.findall(r"\*\*Self-check (\d)\*\* \(section \"([^\"]+)\"\)", answers) == [
        ("1", "Inner products"), ("2", "Kernels"), ("3", "Kernels")]
    assert "The answer is (a): $11$." in answers
    assert "Select (a) and (c), and no other." in answers
    assert "- (b) $k(x, t) = x - t$, does not apply: Not symmetric" in answers
    assert "The answer is 6 (an answer within 0.01 of it counts)." in answers
    assert "- 5: You left out the constant monomial $1$." in answers
    # every explanation of the source is in the answers
    for block in find_blocks((CHAPTER).read_text()):
        for choice in block.check.choices:
            assert choice.explanation in answers


# -- the small book, built with the book's extensions --------------------------------

@pytest.fixture(scope="module")
def small_site(small_book_site):
    return small_book_site


def _answer_live(page, box):
    """What the live region of ``box`` says once it has said something."""
    region = page.locator(f"#{box} .selfcheck-result")
    page.wait_for_function("r => r.textContent.trim() !== ''", arg=region.element_handle())
    # what is seen: the verdict (the explanations are seen under the choices);
    # what is announced: the region's whole text, explanations included
    seen = region.evaluate("""r => [...r.children].filter(
        c => c.getBoundingClientRect().width > 1).map(c => c.innerText).join(' ')""")
    return " ".join(seen.split()), " ".join(region.text_content().split())


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("screen", [LAPTOP, PHONE], ids=["1366px", "390px"])
def test_answering_wrongly_then_rightly_by_keyboard_and_by_click(small_site, screen):
    """Opened from disk (no server, no network): each kind answered wrongly,
    then rightly, by keyboard and by click; what is shown and what the live
    region says, the explanation of each choice, accessibility, the page's
    width, and the progress kept in this browser alone."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    url = (small_site / "book" / "chapters" / "first_steps.html").as_uri()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=screen)
        page = context.new_page()
        requests, errors = [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.goto(url)
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        assert page.locator(".selfcheck").count() == 3

        # -- one answer, by keyboard: Tab into the group, arrows, Enter --------------
        # The group is a fieldset named by its question and legend.
        name = page.locator("#selfcheck-1 fieldset").evaluate(
            "f => f.getAttribute('aria-labelledby').split(' ').map("
            "id => document.getElementById(id).textContent.trim()).join(' ')")
        assert name.startswith("What is") and name.endswith("Choose one answer.")
        assert page.locator("#selfcheck-1 input[type=radio]").count() == 3
        assert page.locator("#selfcheck-1 .selfcheck-why:visible").count() == 0
        page.locator("#selfcheck-1-a").focus()
        page.keyboard.press("ArrowDown")            # (b): 10, the sum of all four numbers
        assert page.locator("#selfcheck-1-b").is_checked()
        page.keyboard.press("Enter")
        shown, said = _answer_live(page, "selfcheck-1")
        assert shown == "Not right: (b) is not the answer. Try another choice."
        assert said == shown + " That is the sum of all four numbers, not of the products."
        why = page.locator("#selfcheck-1-why-b")
        assert why.is_visible() and why.inner_text().startswith("Not the answer.")
        assert page.locator("#selfcheck-1-b").get_attribute("aria-describedby") == why.get_attribute("id")
        assert page.locator("#selfcheck-1-why-a").is_hidden()      # the answer stays hidden
        page.keyboard.press("ArrowUp")              # (a): 11
        # the formulas in the choices are read with their labels, not tab stops of
        # their own: one Tab leaves the group for the Check button
        in_labels = page.evaluate(
            "() => [...document.querySelectorAll('.selfcheck label mjx-container')]"
            ".map(m => m.tabIndex)")
        assert len(in_labels) >= 5 and max(in_labels) < 0, in_labels
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent") == "Check"
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelector('#selfcheck-1 .selfcheck-result').textContent"
            ".startsWith('Right')")
        shown, said = _answer_live(page, "selfcheck-1")
        assert shown == "Right: (a) is the answer."
        assert said.startswith(shown + " Multiply coordinate by coordinate and add, as in (1.1)")
        # the explanation links to the equation it refers to
        assert page.locator("#selfcheck-1-why-a a[href='#equation-sc-eq-inner']").is_visible()

        # -- select all that apply, by click ------------------------------------------
        page.click("label[for=selfcheck-2-b]")      # x - t: not symmetric
        page.click("#selfcheck-2 .selfcheck-check")
        shown, said = _answer_live(page, "selfcheck-2")
        assert shown == ("Not yet: (a), (b) and (c) are not right. "
                         "Change them and check again.")
        assert "(b) Not symmetric" in said and "(c) The constant feature" in said
        assert page.locator("#selfcheck-2-why-b").inner_text().startswith(
            "This one does not apply.")
        page.click("label[for=selfcheck-2-b]")
        page.click("label[for=selfcheck-2-a]")
        page.click("label[for=selfcheck-2-c]")
        page.click("#selfcheck-2 .selfcheck-check")
        page.wait_for_function(
            "() => document.querySelector('#selfcheck-2 .selfcheck-result').textContent"
            ".startsWith('Right')")
        shown, _ = _answer_live(page, "selfcheck-2")
        assert shown == "Right: (a) and (c) apply, and no other. Each choice's explanation is under it."
        assert page.locator("#selfcheck-2 .selfcheck-why:visible").count() == 3

        # -- a number: typed, Enter, then a fraction by click --------------------------
        field = page.locator("#selfcheck-3-answer")
        assert page.locator("label[for=selfcheck-3-answer]").inner_text() == "Your answer"
        field.fill("seven")
        field.press("Enter")
        shown, _ = _answer_live(page, "selfcheck-3")
        assert shown == "Enter a number, such as 0.5, -2 or 3/4."
        field.fill("5")
        field.press("Enter")
        page.wait_for_function(
            "() => document.querySelector('#selfcheck-3 .selfcheck-result').textContent"
            ".startsWith('Not right')")
        shown, said = _answer_live(page, "selfcheck-3")
        assert shown == "Not right: 5 is not the answer. Try again."
        assert said.endswith("You left out the constant monomial 1.")
        field.fill("12/2")
        page.click("#selfcheck-3 .selfcheck-check")
        page.wait_for_function(
            "() => document.querySelector('#selfcheck-3 .selfcheck-result').textContent"
            ".startsWith('Right')")
        shown, _ = _answer_live(page, "selfcheck-3")
        assert shown == "Right: 12/2 is the answer."
        assert page.locator("#selfcheck-3 .selfcheck-choice:visible").count() == 1

        # -- readable at this width, and accessible -----------------------------------
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= screen["width"], f"the page is {width} px wide"
        seen_errors = list(errors)   # axe-core itself reads style sheets, refused on file://
        assert axe_violations(page) == []
        page.screenshot(path=str(small_site / f"selfcheck-{screen['width']}.png"), full_page=True)

        # -- "Show the answer" from the keyboard shows every explanation --------------
        page.reload()
        page.locator("#selfcheck-2 summary").focus()
        page.keyboard.press("Enter")
        assert page.locator("#selfcheck-2 details").evaluate("d => d.open")
        assert "Select (a) and (c), and no other." in page.locator("#selfcheck-2 details").inner_text()
        assert page.locator("#selfcheck-2 .selfcheck-why:visible").count() == 3

        # -- progress: remembered by this browser, nothing sent ------------------------
        notes = page.locator(".selfcheck-progress")
        assert notes.count() == 3 and "remembered by this browser only" in notes.first.inner_text()
        stored = page.evaluate("() => Object.keys(localStorage).filter("
                               "k => k.startsWith('kernel-methods:'))")
        assert sorted(stored) == [f"kernel-methods:selfcheck:book/chapters/first_steps#selfcheck-{i}"
                                  for i in (1, 2, 3)]
        assert all(u.startswith("file://") for u in requests), [
            u for u in requests if not u.startswith("file://")]
        assert seen_errors == []
        browser.close()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_pdf_prints_the_questions_and_their_answers_at_the_end_of_the_chapter(
        tmp_path):
    if not (shutil.which("latexmk") and shutil.which("xelatex") and shutil.which("pdftotext")):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("TeX Live and poppler-utils are required in CI")
        pytest.skip("TeX Live or poppler-utils missing")
    latex = build_small_book(tmp_path, builder="pdflatex") / "latex"
    (pdf,) = latex.glob("*.pdf")
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                   text=True, check=True).stdout.split())
    # the questions where they stand, their choices lettered, no script's text
    first = text.index("Self-check 1. Choose one answer.")
    assert re.search(r"\(a\) 11 \(b\) 10 \(c\) \(3, 8\)", text[first:]), text[first:first + 300]
    assert "Self-check 2. Select all that apply." in text
    assert "Self-check 3. Answer with a number." in text
    assert "Show the answer" not in text and "Check" not in text.split("Self-check 1.")[1][:200]
    # the answers after the last section's last question, every explanation there
    answers = text.index("Answers to the self-checks Self-check 1. The answer")
    assert answers > text.index("Self-check 3. Answer with a number.")
    tail = text[answers:]
    assert "Self-check 1. The answer is (a): 11." in tail
    assert "(b) 10, wrong: That is the sum of all four numbers, not of the products." in tail
    assert "Self-check 2. Select (a) and (c), and no other." in tail
    assert re.search(r"\(b\) .{5,30}, does not apply: Not symmetric", tail), tail
    assert "Self-check 3. The answer is 6 (an answer within 0.01 of it counts)." in tail
    assert "5: You left out the constant monomial 1." in tail
    assert "Any other value: Count them by degree" in tail


def test_a_problem_sets_quick_question_reads_as_text_in_its_notebook(tmp_path):
    """A self-check in a problem set's source (before a part) is text in the
    notebook nbgrader releases, its answer in a last read-only cell; a broken
    one stops the author's tool with the file named."""
    from coursegrader.tools.author import SELFCHECK_ANSWERS, build_notebook

    source = ROOT / "assignments" / "source" / "ps1" / "ps1.md"
    assert find_blocks(source.read_text()), "ps1 has no quick question to test"
    nb = build_notebook(source, "ps1")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "{selfcheck}" not in text and "- [x]" not in text
    last = nb.cells[-1]
    assert last.metadata["nbgrader"]["grade_id"] == SELFCHECK_ANSWERS
    assert last.metadata["nbgrader"]["locked"] and not last.metadata["nbgrader"]["grade"]
    assert last.source.startswith("## Answers to the self-checks")
    assert "(section \"Part 2: the general multinomial map (" in last.source
    assert "{{points" not in last.source
    broken = tmp_path / "ps1.md"
    broken.write_text(source.read_text().replace("- [x] 10", "- [x] ten", 1))
    with pytest.raises(ValueError, match=r"ps1.md: a self-check cannot be read: .*'ten'"):
        build_notebook(broken, "ps1")
