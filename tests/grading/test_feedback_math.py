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
        assert tag == "p" or tag in TAGS, (tag, out)
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
