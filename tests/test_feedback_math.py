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
