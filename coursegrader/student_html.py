"""What a student's HTML may contain when a page of the course shows it.

The single home of the rule, used by the autograde preprocessor
(:mod:`coursegrader.preprocessors.clean_student_html`), the feedback preprocessors and the
Formgrader and feedback templates (the ``clean_student_html`` Jinja filter,
``nbgrader_config.py``).

A student's Markdown is rendered exactly as nbconvert renders it for
Formgrader and for the feedback page (mistune with nbconvert's maths rules),
and the *rendered* HTML is cleaned with ``nh3`` against an allowlist:
formatting tags only, no ``style``, ``id`` or event handler, no script,
iframe, object, SVG, form, meta, link or base, and URLs only with the schemes
``http``, ``https`` and ``mailto`` or as a ``#anchor`` in the page.  No
image is shown: one with a web address becomes a link to it, so that opening
a student's work fetches nothing from anywhere (a remote image would tell its
owner when, where and by whom the work was read, and could show the grader
something else than it shows anyone else); another becomes its alternative
text.  Cleaning
the Markdown source instead would miss links that only the renderer makes
(``[x](javascript:...)`` is plain text to an HTML cleaner).  Maths stays text
(``$...$``, ``$$...$$``, ``\\begin{align}``), so MathJax still typesets it.

Rendering Markdown with maths costs time quadratic, or worse, in the length of
some texts (an unclosed ``\\begin{...}`` or ``\\\\[`` repeated), so Markdown longer
than :data:`MAX_MARKDOWN` characters, or holding more than
:data:`MAX_MATH_MARKS` maths delimiters, is not rendered: it is shown as plain
text, with a note saying so (:func:`clean_markdown`); :class:`MarkdownBudget`
bounds the sum over a notebook.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import nh3
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from pygments.token import STANDARD_TYPES

__all__ = ["TAGS", "DROPPED_WITH_CONTENT", "ATTRIBUTES", "ALLOWED_CLASSES", "URL_SCHEMES",
           "MAX_MARKDOWN", "allowed_url", "clean_html", "markdown_to_html",
           "student_markdown_html", "is_plain_markdown", "clean_markdown", "plain_text_block",
           "is_plain_text_block", "MarkdownBudget", "MAX_MATH_MARKS"]

#: Tags a student's HTML may keep (their content is kept either way, except
#: for the tags of :data:`DROPPED_WITH_CONTENT`).
TAGS = frozenset("""
    a abbr b blockquote br caption cite code dd del details dfn div dl dt em
    figcaption figure h1 h2 h3 h4 h5 h6 hr i img input ins kbd li mark ol p pre q
    s samp small span strike strong sub summary sup table tbody td tfoot th thead
    tr u ul var
""".split())

#: Tags removed together with everything inside them.
DROPPED_WITH_CONTENT = frozenset("""
    script style iframe object embed svg math form textarea select button template
    noscript meta link base title frame frameset applet
""".split())

#: Attributes a kept tag may carry (no ``style``, ``id``, ``class`` except below,
#: and no ``on...`` handler).
ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "input": {"type", "checked", "disabled"},   # task lists: - [x] done
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
}

#: Classes kept: nbconvert's heading anchors and Pygments' highlighted code.
ALLOWED_CLASSES = {
    "a": {"anchor-link"},
    "div": {"highlight"},
    "span": {name for name in STANDARD_TYPES.values() if name},
}

#: The only URL schemes kept.
URL_SCHEMES = frozenset({"http", "https", "mailto"})

#: The longest Markdown (in characters) rendered as Markdown; a longer text is
#: shown as plain text.  Four times the longest Markdown cell of the course's
#: problem sets (their text and the solutions' written answers), and rendered in
#: well under a second at worst.
MAX_MARKDOWN = 8_000

#: The most maths delimiters and line breaks (``\\[``, ``\\(``, ``\\begin{``,
#: ``\\\\``) rendered in one text: each unclosed one makes the maths rules scan to
#: the end of the text again, so many cost time that grows faster than their number.
#: Several times what a whole chapter of the book uses (29).
MAX_MATH_MARKS = 200
_MATH_MARKS = re.compile(r"\\(?:\[|\(|begin\{|\\)")

_INPUT_VALUES = {"type": {"checkbox"}}
_IMG = re.compile(r"<img\b[^>]*>")
_ATTR = re.compile(r'([\w:-]+)="([^"]*)"')


def allowed_url(url: str) -> bool:
    """Whether ``url`` may be a link or image source: http(s), mailto, ``#anchor``."""
    url = url.strip()
    if url.startswith("#"):
        return True
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return False
    return scheme in URL_SCHEMES and ":" in url and not url.startswith("//")


def _keep_attribute(tag, name, value):
    if name in ("href", "src"):
        return value if allowed_url(value) else None
    if tag == "input" and name in _INPUT_VALUES:
        return value if value.lower() in _INPUT_VALUES[name] else None
    return value


def _image_as_link(match) -> str:
    """An image of nh3's cleaned output (attributes quoted and escaped) as a link to its
    address, or as its alternative text."""
    attrs = dict(_ATTR.findall(match.group(0)))
    alt = attrs.get("alt") or attrs.get("title") or "image"
    src = attrs.get("src", "")
    if src and allowed_url(src) and not src.startswith("#"):
        return f'<a href="{src}" rel="noopener noreferrer nofollow">[image: {alt}]</a>'
    return f"[image: {alt}]"


def clean_html(html: str) -> str:
    """``html`` written (or rendered) from a student, with only the allowlist kept."""
    if not isinstance(html, str):
        raise TypeError(f"clean_html: html must be a str, got {type(html).__name__}")
    return _IMG.sub(_image_as_link, _nh3_clean(html))


def _nh3_clean(html: str) -> str:
    return nh3.clean(
        html, tags=set(TAGS), clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_keep_attribute, strip_comments=True,
        link_rel="noopener noreferrer nofollow", url_schemes=set(URL_SCHEMES),
        allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
        url_relative=lambda url: url if url.startswith("#") else None)


def _markdown():
    return MarkdownWithMath(renderer=IPythonRenderer(escape=False))


def markdown_to_html(source: str) -> str:
    """``source`` rendered as nbconvert's HTML exporter renders a Markdown cell.

    The result is NOT clean; pass it to :func:`clean_html`.
    """
    if not isinstance(source, str):
        raise TypeError("markdown_to_html: source must be a str, "
                        f"got {type(source).__name__}")
    return _markdown().render(source)


def student_markdown_html(source: str) -> str:
    """A student's Markdown rendered by nbconvert, then cleaned: safe in any page."""
    return clean_html(markdown_to_html(source))


def _tokens_are_plain(tokens) -> bool:
    for token in tokens:
        kind = token.get("type")
        if kind in ("block_html", "inline_html"):
            return False
        url = token.get("attrs", {}).get("url")
        if kind == "image" or (kind == "link" and not (isinstance(url, str)
                                                      and allowed_url(url))):
            return False
        if not _tokens_are_plain(token.get("children") or []):
            return False
    return True


def is_plain_markdown(source: str) -> bool:
    """Whether ``source`` holds no raw HTML, no image and no link but allowed ones.

    Such Markdown renders to the renderer's own tags and escaped text only, so
    it may be kept as the student wrote it.
    """
    if not isinstance(source, str):
        raise TypeError("is_plain_markdown: source must be a str, "
                        f"got {type(source).__name__}")
    tokens, _ = MarkdownWithMath(renderer=None).parse(source)   # the syntax tree
    return _tokens_are_plain(tokens)


def clean_markdown(source: str) -> str:
    """A Markdown cell's source that renders safely and looks as the student's did.

    Plain Markdown (:func:`is_plain_markdown`) is returned unchanged.  Other
    source is replaced by its cleaned rendering, written as one raw HTML block
    (a ``<div>`` with no blank line, which Markdown renderers pass through
    whole), so a later rendering shows exactly the cleaned HTML; maths in it
    is still text for MathJax.
    """
    if not isinstance(source, str):
        raise TypeError("clean_markdown: source must be a str, "
                        f"got {type(source).__name__}")
    if is_plain_text_block(source):      # cleaned before: already safe
        return source
    if len(source) > MAX_MARKDOWN:
        return plain_text_block(source, f"longer than {MAX_MARKDOWN:,} characters")
    if len(_MATH_MARKS.findall(source)) > MAX_MATH_MARKS:
        return plain_text_block(source, f"more than {MAX_MATH_MARKS} maths delimiters "
                                "and line breaks")
    if is_plain_markdown(source):
        return source
    return _html_block(student_markdown_html(source).strip())


def _html_block(html: str) -> str:
    # A blank line would end the HTML block; inside <pre> a line holding one
    # space looks the same.
    html = re.sub(r"\n[ \t]*(?=\n)", "\n&#32;", html)
    return f"<div>\n{html}\n</div>"


def plain_text_block(source: str, why: str) -> str:
    """``source`` as a Markdown cell that shows it as plain text, not rendered, with a
    note saying ``why``.

    Every character that means something to HTML, to Markdown's maths or to
    MathJax (``<>&`` and backslash, dollar, backtick) is written as a character
    reference, so no later rendering parses it (and MathJax leaves ``<pre>`` alone).
    """
    text = "".join(f"&#{ord(c)};" if c in _REFERENCED else c for c in source)
    why = "".join(c for c in why if c not in _REFERENCED)
    return _html_block(f"<p><em>Shown as plain text: {why}.</em></p>\n<pre>{text}</pre>")


_REFERENCED = frozenset('<>&\\$`*_[]"')
_PLAIN_TEXT_BLOCK = re.compile(
    r'<div>\n<p><em>Shown as plain text: [^<>&\\$`*_\[\]"]*\.</em></p>\n'
    r'<pre>(?:[^<>&\\$`*_\[\]"]|&#[0-9]{1,7};)*</pre>\n</div>')


def is_plain_text_block(source: str) -> bool:
    """Whether ``source`` is exactly what :func:`plain_text_block` writes: no markup, every
    special character a character reference (so it is kept as it is when cleaned again)."""
    return isinstance(source, str) and _PLAIN_TEXT_BLOCK.fullmatch(source) is not None


class MarkdownBudget:
    """The Markdown of one notebook (its cells and the Markdown its outputs display),
    rendered up to ``characters`` in all; past that each text is shown as plain text.

    :func:`clean_markdown` bounds one text; this bounds their sum, since a notebook
    may hold any number of them.  Text cleaned before is kept and not counted.
    """

    def __init__(self, characters: int):
        self.characters = characters
        self.left = characters

    def clean(self, source: str) -> str:
        """``source`` cleaned as :func:`clean_markdown` does, or as plain text once the
        notebook's budget is spent."""
        if is_plain_text_block(source):
            return source
        if len(source) > self.left:
            return plain_text_block(source, "the notebook's Markdown is longer than "
                                    f"{self.characters:,} characters")
        self.left -= len(source)
        return clean_markdown(source)
