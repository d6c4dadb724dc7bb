"""The feedback's mathematics as MathML (coursegrader/mathml.py): drawn with
scripts off, as JupyterLab shows a page it does not trust, and never a way in
for a student's markup.  The page itself, through nbgrader, is tested in
test_student_html.py."""

from __future__ import annotations

import html.parser

import pytest

from coursegrader.mathml import ATTRIBUTES, TAGS, html_with_mathml, tex_to_mathml


class _Tags(html.parser.HTMLParser):
    def __init__(self, raw):
        super().__init__()
        self.found = []
        self.feed(raw)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def test_each_kind_of_delimiter_becomes_mathml_and_code_stays_as_it_is():
    page = ("<p>Inline $a&lt;b$, \\(x^\\top y\\), a display $$\\frac{1}{2}\\|y\\|^2$$, "
            "\\[K + \\lambda I\\] and</p>\n<p>\\begin{align}\nk(x, t) &amp;= x t \\\\\n"
            "&amp;= 1\n\\end{align}</p>\n<pre><code>$x$ stays</code></pre> <code>$y$</code>")
    out = html_with_mathml(page)
    tags = _Tags(out).found
    maths = [attrs.get("display") for tag, attrs in tags if tag == "math"]
    assert maths == ["inline", "inline", "block", "block", "block"], out
    assert "<mo>&lt;</mo>" in out                       # a < b, escaped again
    assert "<pre><code>$x$ stays</code></pre> <code>$y$</code>" in out
    assert "\\frac" not in out and "\\begin" not in out and "$a" not in out


@pytest.mark.parametrize("text", [
    "It costs $5 and $6 to print.",          # money, not mathematics
    "A lone $ sign",
    "Escaped \\$x\\$ dollars",
])
def test_text_that_is_not_mathematics_is_left_alone(text):
    assert html_with_mathml(f"<p>{text}</p>") == f"<p>{text}</p>"


def test_only_an_inline_formula_that_may_be_wider_than_a_phone_is_boxed():
    short, long = "$k(x, y) = \\langle x, y \\rangle$", "$\\text{" + "kernel" * 5 + "}$"
    out = html_with_mathml(f"<p>{short} and {long}, and $${long[1:-1]}$$</p>")
    assert [(tag, attrs) for tag, attrs in _Tags(out).found if tag == "span"] == [
        ("span", {"class": "math-wide", "tabindex": "0"}),
        ("span", {"class": "math-display", "tabindex": "0"})], out
    assert out.index("<math") < out.index("math-wide"), out   # the short one, unboxed
    # space counts as width; a width that is no number counts as none
    assert "math-wide" in html_with_mathml("<p>$a\\hspace{40em}b$</p>")
    assert "math-wide" not in html_with_mathml("<p>$a\\hspace{1.2.3em}b$</p>")


HOSTILE_TEX = [
    "\\text{<script>alert('pwned')</script>}",
    "\\text{<img src=x onerror=alert('pwned')>}",
    "\\href{javascript:alert('pwned')}{x}",
    "\\href{https://example.org}{x}",
    "\\style{background:url(javascript:alert(1))}{x}",
    "\\class{pwned}{x}",
    "\\unicode{<script>}",
    "\\mathrm{</math><script>alert(1)</script>}",
    "\\text{]]><script>alert(1)</script>}",
    "x^{<svg onload=alert(1)>}",
]


@pytest.mark.parametrize("tex", HOSTILE_TEX)
def test_a_students_tex_never_brings_in_markup(tex):
    mathml = tex_to_mathml(tex)
    if mathml is not None:
        for tag, attrs in _Tags(mathml).found:
            assert tag in TAGS, (tag, mathml)
            assert set(attrs) <= ATTRIBUTES | {"xmlns"}, (attrs, mathml)
        assert "<script" not in mathml and "href" not in mathml and "onerror" not in mathml
    # in a page, the TeX (escaped, as the cleaner leaves it) stays text or becomes clean MathML
    escaped = tex.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = html_with_mathml(f"<p>${escaped}$</p>")
    for tag, attrs in _Tags(out).found:
        # TeX not written out stays text, in a span of the page's own; a long
        # formula is in a box of the page's own
        assert tag == "p" or tag in TAGS or (tag, attrs) in (
            ("span", {"class": "tex"}),
            ("span", {"class": "math-wide", "tabindex": "0"})), (tag, out)
        assert not [a for a in attrs if a.startswith("on") or a in ("href", "src", "style")], out


def _feedback_page(nb, resources):
    """The course's feedback template, configured as assignments/nbgrader_config.py
    and nbgrader's generate_feedback configure it, on one notebook."""
    import os

    import nbgrader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    from coursegrader.apps import feedback_page

    c = Config()
    c.HTMLExporter.template_name = "feedback"
    c.HTMLExporter.extra_template_basedirs = feedback_page.template_basedirs()
    c.HTMLExporter.template_file = feedback_page.TEMPLATE_FILE
    c.HTMLExporter.extra_template_paths = [os.path.join(
        os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "static",
        "node_modules", "bootstrap", "dist", "css")]
    c.HTMLExporter.filters = {
        "offline_mathjax": "coursegrader.apps.feedback_page.offline_mathjax",
        "script_sources": "coursegrader.csp.script_sources",
        "clean_student_html": "coursegrader.student_html.clean_html",
        "tex_to_mathml": "coursegrader.mathml.html_with_mathml"}
    return HTMLExporter(config=c).from_notebook_node(nb, resources=resources)[0]


def test_the_contents_name_each_comment_after_its_part_and_every_formula_is_mathml():
    import re

    import nbformat

    def graded(gid, comment):
        return {"nbgrader": {"grade": True, "solution": True, "grade_id": gid, "points": 2,
                             "score": 1, "comment": comment, "locked": False,
                             "schema_version": 3, "task": False}}

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## Part 1: why $K \\succeq 0$"),
        nbformat.v4.new_markdown_cell("Every $z^\\top K z \\ge 0$.", metadata=graded(
            "proof", "Say why $\\sum_{i,j} c_i c_j k(x_i, x_j) \\ge 0$.")),
        nbformat.v4.new_markdown_cell("A second answer.", metadata=graded("other", None)),
    ]
    page = _feedback_page(nb, {
        "nbgrader": {"notebook": "ps1", "score": 1, "max_score": 4, "late_penalty": 0},
        "part_titles": {"proof": "Part 1: why $K \\succeq 0$", "other": "Part 2"}})
    contents = page[page.index('<div id="toc">'):page.index("</ol>")]
    entries = re.findall(r"<li>(.*?)</li>", contents, flags=re.S)
    assert len(entries) == 2, entries
    assert ">Comment</a>" not in contents
    assert '<a href="#comment-proof">the grader\'s comment</a>' in entries[0]
    assert "<math" in entries[0] and "comment" not in entries[1]
    text = re.sub(r"<script.*?</script>|<style.*?</style>|<math.*?</math>|<[^>]+>", " ",
                  page, flags=re.S)
    assert not re.search(r"\$|\\\\(succeq|top|sum|ge)\b", text), re.findall(r".{30}\$.{30}", text)
    # title, contents, answer and comment (MathJax's inlined source says "<math" too)
    assert len(re.findall(r'<math (?:display|xmlns)="', page)) == 4


# -- in a browser: the TeX latex2mathml leaves to MathJax ----------------------------

#: Honest formulas MathJax typesets (latex2mathml leaves some of them to it).
HONEST_FOR_MATHJAX = [
    r"\sum_{i,j} c_i c_j\, k(x_i, x_j) \ge 0",
    r"\langle f, k(\cdot, x) \rangle_{\mathcal{H}} = f(x)",
    r"\begin{aligned} K &= \Phi \Phi^\top \\ \hat\alpha &= (K + \lambda I)^{-1} y \end{aligned}",
    r"\boxed{\mathbf{K} \succeq 0} \quad \operatorname{tr}(K) \overset{!}{=} \textstyle\sum_i k(x_i, x_i)",
    r"{\Large\kappa}\;\color{red}{x}",
]

#: What a page says of its typeset maths: links, addresses, and the attributes a
#: student may not set, in the output and in its hidden MathML.
_TYPESET = r"""() => [...document.querySelectorAll('mjx-container')].map(c => {
    const mml = c.querySelector('mjx-assistive-mml');
    return {
        svg: c.querySelector('svg').outerHTML,
        text: mml ? mml.textContent : '',
        links: c.querySelectorAll('a').length,
        addresses: [...c.querySelectorAll('*')].flatMap(e => [...e.attributes])
            .filter(a => a.localName === 'href' && !(a.ownerElement.localName === 'use'
                                                      && a.value.startsWith('#')))
            .map(a => a.value),
        set: mml ? [...mml.querySelectorAll('[href],[style],[class],[id],[mathsize]')]
            .map(e => e.outerHTML) : ['no MathML'],
    };
})"""


def _in_chromium(path, *, click=None):
    """Open ``path``, wait for MathJax, report its maths (:data:`_TYPESET`); then
    click the element ``click`` selects and the middle of the window, and say
    whether a script of the page's content ran."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, require_chromium

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(path.as_uri())
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("MathJax.startup.promise")
            title = page.title()
            maths = page.evaluate(_TYPESET)
            if click:
                page.locator(click).first.click(force=True)
            page.mouse.click(600, 450)
            # a link that got past MathJax: the page's policy runs no javascript: address
            page.evaluate("""() => { const a = document.createElement('a');
                a.href = "javascript:window.pwned='slipped';void 0"; a.id = 'slipped';
                a.textContent = 'slipped'; document.body.prepend(a); }""")
            page.locator("#slipped").click()
            page.wait_for_timeout(300)
            ran = {"title": page.title(), "was": title,
                   "pwned": page.evaluate("String(window.pwned)")}
        finally:
            browser.close()
    return maths, ran


def _mathjax_page(path, formulas):
    """A page of ``formulas`` with the feedback's MathJax and its policy."""
    from coursegrader.apps.feedback_page import offline_mathjax
    from coursegrader.csp import script_sources

    scripts = offline_mathjax("tex-svg.js")
    body = "".join(f"<p>Formula {i}: ${f}$</p>" for i, f in enumerate(formulas))
    path.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>maths</title>'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"script-src {script_sources(scripts)}; style-src 'unsafe-inline'\">"
        f"{scripts}</head><body>{body}</body></html>")
    return path


@pytest.mark.slow
def test_a_formula_with_a_link_shows_its_text_and_runs_nothing_in_the_feedback(tmp_path):
    """The attack as a student writes it, through the course's feedback template:
    the K is typeset, with no link, no style, class or id of the student's; a
    click on it or anywhere runs nothing; the page's own scripts run by their
    hashes only."""
    import nbformat

    from attacks import MATHS_LINK
    from coursegrader.csp import inline_script_hashes

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"My argument: {MATHS_LINK} is the kernel, and ${HONEST_FOR_MATHJAX[0]}$.",
        metadata={"nbgrader": {"grade": True, "solution": True, "grade_id": "proof",
                               "points": 2, "score": 1, "comment": None, "locked": False,
                               "schema_version": 3, "task": False}})]
    raw = _feedback_page(nb, {"nbgrader": {"notebook": "ps1", "score": 1, "max_score": 2,
                                           "late_penalty": 0}})
    policy = _Tags(raw).found
    policy = [a["content"] for t, a in policy if t == "meta" and "http-equiv" in a]
    assert len(policy) == 1 and "'unsafe-inline'" not in policy[0].split("style-src")[0]
    hashes = inline_script_hashes(raw)
    assert len(hashes) == 2 and f"script-src {' '.join(hashes)};" in policy[0], policy
    page = tmp_path / "ps1.html"
    page.write_text(raw)
    maths, ran = _in_chromium(page, click="mjx-container")
    student = [m for m in maths if m["text"].endswith("K")]
    assert len(student) == 1, [m["text"] for m in maths]    # the K is typeset, by MathJax
    for m in maths:
        assert m["links"] == 0 and m["addresses"] == [] and m["set"] == [], m
    assert ran == {"title": ran["was"], "was": "ps1", "pwned": "undefined"}, ran


@pytest.mark.slow
@pytest.mark.parametrize("layer", ["the macros", "the guard", "the render action"])
def test_each_layer_alone_makes_the_link_inert_and_honest_maths_is_unchanged(
        layer, tmp_path, monkeypatch):
    """With only the configuration's macros, only the guard script, or only its
    render action, the student's \\mmlToken makes no link (and with the first
    two, no style, class or id); honest formulas typeset exactly as MathJax
    typesets them unguarded."""
    from attacks import MATHS_LINK
    from coursegrader.apps import feedback_page

    formulas = [MATHS_LINK.strip("$"), *HONEST_FOR_MATHJAX]
    guarded = _in_chromium(_mathjax_page(tmp_path / "all.html", formulas))[0]

    empty = tmp_path / "empty.js"
    empty.write_text("")
    macros = feedback_page.MATHJAX_CONFIG["tex"]["macros"]
    if layer == "the macros":
        monkeypatch.setattr(feedback_page, "MATHJAX_GUARD", empty)
    else:
        monkeypatch.delitem(feedback_page.MATHJAX_CONFIG["tex"], "macros")
    if layer == "the render action":
        unfiltered = tmp_path / "unfiltered.js"
        guard = feedback_page.MATHJAX_GUARD.read_text()
        unfiltered.write_text(guard.replace("jax.postFilters.add(stripAttributes);", ""))
        assert unfiltered.read_text() != guard
        monkeypatch.setattr(feedback_page, "MATHJAX_GUARD", unfiltered)
    # (the page's policy would stop the click's script in any case: the
    # layers are judged by what they leave in the page)
    one_layer, ran = _in_chromium(_mathjax_page(tmp_path / "one.html", formulas),
                                  click="mjx-container")
    assert ran["pwned"] == "undefined" and ran["title"] == "maths", ran
    attack = one_layer[0]
    assert attack["text"].endswith("K") and attack["links"] == 0, attack
    assert attack["addresses"] == [], attack
    if layer != "the render action":
        assert not [s for s in attack["set"] if "href" in s or "style" in s
                    or "class=" in s or "id=" in s], attack

    monkeypatch.setattr(feedback_page, "MATHJAX_GUARD", empty)
    monkeypatch.setitem(feedback_page.MATHJAX_CONFIG["tex"], "macros", {})
    plain = _in_chromium(_mathjax_page(tmp_path / "plain.html", formulas))[0]
    # unguarded, the attack is a link (what the layers are for)
    assert plain[0]["links"] == 1 and plain[0]["addresses"][0].startswith("javascript:")
    assert [m["svg"] for m in guarded[1:]] == [m["svg"] for m in plain[1:]]
    assert [m["svg"] for m in one_layer[1:]] == [m["svg"] for m in plain[1:]]
    assert macros    # the course's configuration is back as it was


# -- a formula draws only inside its own box ------------------------------------------

#: A page of the feedback's kind: a score heading, the autograder's FAIL lines
#: above and below, and between them the student's answer in a cell of its own.
_OVERLAY_BODY = """<h4 class="score">ps1 (Score: 0.0 / 16.0)</h4>
<div class="output"><pre>FAIL feature_map [public 1]: expected 3.0, got 0.0
FAIL feature_map [public 2]: expected 2.0, got 0.0</pre></div>
<div style="height: 7000px"></div>
<div class="cell"><p>My answer: every one of the four is a kernel.</p><p>{answer}</p></div>
<div style="height: 3000px"></div>
<div class="output"><pre>FAIL kernel_verdicts [public 1]: expected True, got None</pre></div>
<div style="height: 600px"></div>"""


def _honest_formulas():
    """Every formula of the problem sets and of the book's first chapter, as written."""
    from pathlib import Path

    from coursegrader.mathml import _MATH

    root = Path(__file__).resolve().parents[2]
    texts = [*sorted((root / "assignments" / "source").glob("ps*/ps*.md")),
             root / "book" / "chapters" / "kernel_trick.md"]
    found = []
    for path in texts:
        for match in _MATH.finditer(path.read_text()):
            found.append(match.group(0))
    return found


#: Honest formulas that are tall, wide or deep: fractions, matrices, displays.
HONEST_SHAPES = [
    r"$\dfrac{\displaystyle\sum_{i=1}^n \alpha_i y_i k(x_i, x)}{\sqrt{\frac{1}{n}\sum_j k(x_j, x_j)}}$",
    r"$$K = \begin{pmatrix} k(x_1, x_1) & \cdots & k(x_1, x_n) \\ \vdots & \ddots & \vdots"
    r" \\ k(x_n, x_1) & \cdots & k(x_n, x_n) \end{pmatrix} \succeq 0$$",
    r"$$\min_{g \in \mathcal{H}_k} \; \sum_{j=1}^{m}"
    r" \frac{\bigl(t_j - g(z_j)\bigr)^2}{m} + \mu \lVert g \rVert_{\mathcal{H}_k}^{2} \tag{1}$$",
    r"$\left(\int_{\mathcal{X}} \Bigl\lvert \hat f(\omega) \Bigr\rvert^2 e^{\|\omega\|^2/2}"
    r"\, d\omega\right)^{1/2} \overset{!}{<} \infty$",
    r"$f\,$, $\rule{0pt}{2.5ex}\raise{0.3ex}{x}\kern{-0.1em}y\mkern{-3mu}z\hspace{-0.5em}w$",
]


def _page_of(path, body, *, mathml=False):
    """A page of ``body`` (Markdown-free HTML with TeX) with the feedback's
    MathJax and style sheet under its policy; with ``mathml``, the TeX written
    out as MathML first, as the feedback does (what cannot be stays TeX)."""
    from coursegrader.apps.feedback_page import offline_mathjax
    from coursegrader.csp import script_sources
    from coursegrader.mathml import html_with_mathml

    scripts = offline_mathjax("tex-svg.js")
    if mathml:
        body = html_with_mathml(body)
    path.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>maths</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"script-src {script_sources(scripts)}; style-src 'unsafe-inline'\">"
        f"{scripts}</head><body>{body}</body></html>")
    return path


def _without(monkeypatch, tmp_path, layer):
    """The feedback's MathJax without ``layer``: "the clip" (its style sheet) or
    "the bounds" (the guard's bounds on moves, rules and negative space)."""
    from coursegrader.apps import feedback_page

    if layer == "the clip":
        empty = tmp_path / "empty.css"
        empty.write_text("")
        monkeypatch.setattr(feedback_page, "MATH_CLIP", empty)
    else:
        unbounded = tmp_path / "unbounded.js"
        guard = feedback_page.MATHJAX_GUARD.read_text()
        unbounded.write_text(guard.replace("      boundMacros();\n", ""))
        assert unbounded.read_text() != guard
        monkeypatch.setattr(feedback_page, "MATHJAX_GUARD", unbounded)


def _open(browser, path, width, *, scripts=True):
    page = browser.new_page(viewport={"width": width, "height": 900},
                            java_script_enabled=scripts)
    page.goto(path.as_uri())
    if scripts:
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
    return page


@pytest.mark.slow
@pytest.mark.parametrize("removed", [None, "the clip", "the bounds", "both"])
@pytest.mark.parametrize("attack", ["raise", "lower", "display", "mathml"])
def test_a_students_formula_draws_only_inside_its_own_box(attack, removed, tmp_path,
                                                          monkeypatch):
    """The formulas that painted over the feedback's score, as the feedback
    shows them (MathML where latex2mathml converts them, read with scripts
    off, else MathJax): with the page's style sheet and the guard's bounds,
    and with either one alone, the score heading and every FAIL line are what
    the browser finds at their place, and nothing of the formula is drawn
    outside its cell; with neither, the attack wins (what the two layers are
    for).  The MathML has only the style sheet."""
    from playwright.sync_api import sync_playwright

    from attacks import OVERLAID, OVERLAYS
    from conftest import CHROMIUM_ARGS, require_chromium

    for layer in ("the clip", "the bounds"):
        if removed in (layer, "both"):
            _without(monkeypatch, tmp_path, layer)
    mathml = attack == "mathml"
    page_file = _page_of(tmp_path / "overlay.html",
                         _OVERLAY_BODY.format(answer=OVERLAYS[attack]), mathml=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            page = _open(browser, page_file, 1280, scripts=not mathml)
            seen = page.evaluate(OVERLAID, ["h4.score, div.output pre", "div.cell"])
            typeset = page.evaluate("""[...document.querySelectorAll(
                '.cell mjx-container, .cell math')]
                .filter(m => !m.parentElement.closest('mjx-container')).length""")
        finally:
            browser.close()
    assert typeset == 1 and seen["checked"] == 4, (typeset, seen)
    if removed == "both" or (mathml and removed == "the clip"):
        assert seen["outsideCount"] > 0 and seen["hitCount"] > 0, seen
        if attack in ("lower", "display"):    # the others aim near, or at another page
            assert seen["covered"], seen
    else:
        assert seen["covered"] == [] and seen["outsideCount"] == 0, seen
        assert seen["hitCount"] == 0, seen


#: TeX past the guard's bounds, shown as its text: (formula, the text shown).
FAR = [
    (r"\raise{5020px}{x}", r"\raise{5020px}"),
    (r"\lower 4em {x}", r"\lower4em"),       # as MathJax reads it, without spaces
    (r"\moveleft{-31pt}{x}", r"\moveleft{-31pt}"),
    (r"\moveright{2in}{x}", r"\moveright{2in}"),
    (r"\rule{186px}{30px}", r"\rule{186px}{30px}"),
    (r"\rule[-40em]{1em}{1em}", r"\rule[-40em]{1em}{1em}"),
    (r"\Rule{1em}{50em}{0em}", r"\Rule{1em}{50em}{0em}"),
    (r"a\kern{-43em}b", r"\kern{-43em}"),
    (r"a\mkern-60mu b", r"\mkern-60mu"),
    (r"a\hspace{-4em}b", r"\hspace{-4em}"),
    (r"a\hskip-2cm b", r"\hskip-2cm"),
    (r"\let\up\raise \up{9em}{x}", r"\raise{9em}"),  # under another name
]

#: The same commands within the bounds: typeset as MathJax typesets them.
NEAR = [r"\raise{0.3ex}{x}", r"\lower{2em}{x}", r"\moveleft{1em}{x}", r"\rule{2cm}{0.4pt}",
        r"\rule[-1ex]{0pt}{3ex}", r"a\kern{-0.2em}b", r"a\mkern-3mu b", r"a\hspace{-1em}b",
        r"a\hskip 40em b"]


@pytest.mark.slow
def test_the_bounds_show_a_far_move_as_its_tex_and_keep_a_near_one(tmp_path, monkeypatch):
    """Past a few em, \\raise, \\lower, \\moveleft, \\moveright, a \\rule and a
    negative \\kern, \\mkern, \\hspace or \\hskip (under any name) are shown as
    their TeX in red, and the formula goes on; within them they make the
    MathML MathJax makes without the bounds."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, require_chromium

    to_mml = "texts => texts.map(t => MathJax.tex2mml(t))"
    bounded = _page_of(tmp_path / "bounded.html", "<p>$x$</p>")
    _without(monkeypatch, tmp_path, "the bounds")
    unbounded = _page_of(tmp_path / "unbounded.html", "<p>$x$</p>")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            page = _open(browser, bounded, 800)
            far, near = (page.evaluate(to_mml, [t for t, _ in FAR]),
                         page.evaluate(to_mml, NEAR))
            page = _open(browser, unbounded, 800)
            near_as_before = page.evaluate(to_mml, NEAR)
            far_unbounded = page.evaluate(to_mml, [t for t, _ in FAR])
        finally:
            browser.close()
    for (tex, shown), mml, before in zip(FAR, far, far_unbounded):
        assert f'<mtext mathcolor="red">{shown}</mtext>' in mml, (tex, mml)
        assert "voffset" not in mml and "mathbackground" not in mml, (tex, mml)
        assert 'mathcolor="red"' not in before, (tex, before)
    assert near == near_as_before
    assert not [m for m in near if 'mathcolor="red"' in m], near


def _screen(browser, path, width, *, scripts):
    """The whole page as Chromium paints it, ``width`` px wide, as RGB values,
    and how many formulas it holds (MathJax's and MathML)."""
    import io

    import numpy as np
    from PIL import Image

    page = _open(browser, path, width, scripts=scripts)
    picture = np.asarray(Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB"))
    counted = page.evaluate("""document.querySelectorAll('mjx-container').length
        + [...document.querySelectorAll('math')].filter(m => !m.closest('mjx-container')).length""")
    page.close()
    return picture, counted


def _honest_notebook():
    import nbformat

    nb = nbformat.v4.new_notebook()
    formulas = _honest_formulas() + HONEST_SHAPES
    nb.cells = [nbformat.v4.new_markdown_cell("\n\n".join(
        f"Formula {i + j}: {f}" for j, f in enumerate(formulas[i:i + 40])))
        for i in range(0, len(formulas), 40)]
    return nb


@pytest.mark.slow
@pytest.mark.parametrize("width", [1366, 390])
def test_honest_maths_looks_as_before_on_the_feedback_page(width, tmp_path, monkeypatch):
    """The problem sets' formulas, the first chapter's, and tall, wide and deep
    ones, on the feedback page (its MathML, and MathJax for the rest), with
    scripts on and off, and every one of them typeset by MathJax at a laptop's
    width: each page is painted as without the clip, at a laptop's width and a
    phone's, to within a shade of antialiasing (8 levels of 255) at a
    formula's edge, and no wider or taller where anything is drawn."""
    import numpy as np
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, require_chromium

    resources = {"nbgrader": {"notebook": "ps1", "score": 1, "max_score": 2,
                              "late_penalty": 0}}
    nb = _honest_notebook()
    body = "".join(f"<p>Formula {i}: {f}</p>\n"
                   for i, f in enumerate(_honest_formulas() + HONEST_SHAPES))

    def pages(name):
        feedback = tmp_path / f"feedback-{name}.html"
        feedback.write_text(_feedback_page(nb, resources))
        return [(feedback, True), (feedback, False)] + (
            [(_page_of(tmp_path / f"mathjax-{name}.html", body), True)] if width > 1000 else [])

    clipped = pages("after")
    _without(monkeypatch, tmp_path, "the clip")
    unclipped = pages("before")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            for (after, scripts), (before, _) in zip(clipped, unclipped):
                # a page some 30,000 px tall may be painted before a formula has
                # settled: a clip cuts the same pixels every time, so a difference
                # must persist when both pages are painted again
                for attempt in range(3):
                    a, counted = _screen(browser, after, width, scripts=scripts)
                    b, _ = _screen(browser, before, width, scripts=scripts)
                    assert counted > 300, (after.name, counted)
                    # the page may end sooner (what a clip hides, an invisible
                    # reader's copy of the MathML, no longer reaches past it), never
                    # where anything was drawn
                    rows, cols = min(len(a), len(b)), min(a.shape[1], b.shape[1])
                    assert (b[rows:] == 255).all() and (b[:, cols:] == 255).all(), after.name
                    assert (a[rows:] == 255).all() and (a[:, cols:] == 255).all(), after.name
                    shade = np.abs(a[:rows, :cols].astype(int) - b[:rows, :cols].astype(int))
                    differ = np.argwhere(shade.max(axis=2) > 8)
                    if len(differ) == 0:
                        break
                assert len(differ) == 0, (after.name, scripts, len(differ), differ[:5].tolist())
        finally:
            browser.close()


def _laptop_and_phone(page_file, script, arg):
    """``script`` evaluated with ``arg`` on the page ``page_file`` once its MathJax
    has typeset, at a laptop's width and a phone's: {width: what it returns}."""
    return _at_both_widths(page_file, lambda page: page.evaluate(script, arg))


def _at_both_widths(page_file, look):
    """``look(page)`` on the page ``page_file`` once its MathJax has typeset, at a
    laptop's width and a phone's: {width: what it returns}."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS, require_chromium

    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            for width in (1366, 390):
                # a phone lays the page out at its own width only if the page asks
                context = browser.new_context(viewport={"width": width, "height": 900},
                                              is_mobile=width < 500)
                page = context.new_page()
                page.goto(page_file.as_uri())
                page.wait_for_function(
                    "window.MathJax && MathJax.startup && MathJax.startup.promise")
                page.evaluate("MathJax.startup.promise")
                seen[width] = look(page)
                context.close()
        finally:
            browser.close()
    return seen


# -- a long word stays inside its cell ------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("removed", [None, "the clip"])
def test_a_long_word_stays_inside_its_cell_on_a_laptop_and_a_phone(removed, tmp_path,
                                                                   monkeypatch):
    """A written answer of one 400-letter word (in a paragraph, a list item and
    inline code), on the feedback page at a laptop's width and a phone's: the
    word breaks inside its cell and the page does not scroll sideways; without
    the page's style sheet it runs past the cell (what the rule is for).
    Formgrader's grading page: test_student_html.py."""
    import nbformat

    from attacks import LONG_ANSWER, LONG_WORD, OVERFLOWED

    if removed:
        _without(monkeypatch, tmp_path, removed)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(LONG_ANSWER, metadata={"nbgrader": {
        "grade": True, "solution": True, "grade_id": "proof", "points": 2, "score": 1,
        "comment": None, "locked": False, "schema_version": 3, "task": False}})]
    page_file = tmp_path / "ps1.html"
    page_file.write_text(_feedback_page(nb, {"nbgrader": {
        "notebook": "ps1", "score": 1, "max_score": 2, "late_penalty": 0}}))
    seen = _laptop_and_phone(page_file, OVERFLOWED, ["div.text_cell_render", LONG_WORD])
    for width, found in seen.items():
        assert len(found["past"]) == 3, (width, found)
        if removed:
            assert min(found["past"]) > 1000 and found["wider"] > 1000, (width, found)
        else:
            assert found == {"past": [0, 0, 0], "wider": 0, "window": width}, (width, found)


@pytest.mark.slow
@pytest.mark.parametrize("removed", [None, "the box"])
def test_a_long_word_in_a_formulas_text_wraps_in_a_box_the_keyboard_reaches(
        removed, tmp_path, monkeypatch):
    """A written answer with a 400-letter word in $\\text{...}$ (a formula of
    that text alone, in a paragraph and in a list item, and ``x = ... + 1``),
    on the feedback page at a laptop's width and a phone's: each formula is in
    a box of its own inside its cell, which the keyboard can reach and which
    scrolls to all of the formula; a formula of the text alone wraps it onto
    several lines; the page does not scroll sideways and axe finds no serious
    violation (a box that scrolls and that the keyboard cannot reach is one).
    A formula the page's estimate takes for narrow, 23 W's wide, is clipped at
    its line on a phone.  Without the box, the page does not scroll sideways
    either, but each formula is cut at its line, the rest of the word out of
    reach."""
    import nbformat

    from accessibility import axe_violations
    from attacks import BOXED, LONG_TEXT_ANSWER, LONG_WORD
    from coursegrader import mathml

    if removed:
        monkeypatch.setattr(mathml, "WIDE_INLINE_EM", float("inf"))
    wide = "W" * 23
    assert mathml.estimated_em(mathml.tex_to_mathml(f"\\text{{{wide}}}")) <= mathml.WIDE_INLINE_EM
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"{LONG_TEXT_ANSWER}\n\nAnd $\\text{{{wide}}}$.", metadata={"nbgrader": {
            "grade": True, "solution": True, "grade_id": "proof", "points": 2, "score": 1,
            "comment": None, "locked": False, "schema_version": 3, "task": False}})]
    page_file = tmp_path / "ps1.html"
    page_file.write_text(_feedback_page(nb, {"nbgrader": {
        "notebook": "ps1", "score": 1, "max_score": 2, "late_penalty": 0}}))
    looked = _at_both_widths(page_file, lambda page: (
        page.evaluate(BOXED, ["div.text_cell_render", LONG_WORD]),
        page.evaluate(BOXED, ["div.text_cell_render", wide]), axe_violations(page)))
    seen = {width: found[0] for width, found in looked.items()}
    narrow = {width: found[1] for width, found in looked.items()}
    violations = {width: found[2] for width, found in looked.items()}
    for width, page in seen.items():
        assert len(page["found"]) == 3, (width, page)
        assert page["wider"] == 0 and page["window"] == width, (width, page)
        for formula in page["found"]:
            assert formula["past"] == 0, (width, formula)
            if removed:
                assert not formula["boxed"] and formula["unreachable"] > 0, (width, formula)
            else:
                assert formula["boxed"] and formula["keyboard"], (width, formula)
                assert formula["unreachable"] == 0, (width, formula)
        if not removed:
            # the text alone wraps; with x = ... + 1 around it, the box scrolls to it
            assert [f["lines"] >= 3 for f in page["found"]] == [True, False, True], page
        assert violations[width] == [], (width, violations[width])
    w, = narrow[390]["found"]
    assert not w["boxed"] and w["past"] == 0 and w["unreachable"] > 0, narrow
    assert narrow[1366]["found"][0]["unreachable"] == 0, narrow   # on a laptop, all of it


# -- nested superscripts lift nothing out of their line ----------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("removed", [None, "the clip"])
def test_nested_superscripts_lift_nothing_over_the_fail_lines(removed, tmp_path, monkeypatch):
    """Written answers of <sup><h3> nested 20 and 46 deep around a block of fake
    "checks passed", right after a check that failed, on the feedback page at
    a laptop's width and a phone's: the browser finds each FAIL line of the
    check at its place; without the page's style sheet the fake block covers
    them (what its rule for <sup> and <sub> is for).  Formgrader's grading
    page has the same style sheet (test_student_html.py)."""
    import nbformat

    from attacks import LIFTS, OVERLAID

    if removed:
        _without(monkeypatch, tmp_path, removed)
    graded = {"grade": True, "score": 0, "comment": None, "schema_version": 3, "task": False}
    check = nbformat.v4.new_code_cell("check_witness()", metadata={"nbgrader": {
        **graded, "solution": False, "locked": True, "grade_id": "witness", "points": 3}})
    check.outputs = [nbformat.v4.new_output("stream", name="stdout", text="".join(
        f"FAIL witness [public {i}]: expected a witness, got None\n" for i in range(1, 5)))]
    nb = nbformat.v4.new_notebook()
    nb.cells = [check] + [nbformat.v4.new_markdown_cell(lift, metadata={"nbgrader": {
        **graded, "solution": True, "locked": False, "grade_id": f"why{n}", "points": 2}})
        for n, lift in enumerate(LIFTS)]
    page_file = tmp_path / "ps1.html"
    page_file.write_text(_feedback_page(nb, {"nbgrader": {
        "notebook": "ps1", "score": 0, "max_score": 7, "late_penalty": 0}}))
    seen = _laptop_and_phone(page_file, OVERLAID, ["div.output_area pre",
                                                   "div.text_cell_render"])
    for width, found in seen.items():
        assert found["checked"] == 4, (width, found)
        if removed:
            assert found["covered"], (width, found)
        else:
            assert found["covered"] == [], (width, found)
