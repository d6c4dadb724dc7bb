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
``http``, ``https`` and ``mailto`` or as a ``#anchor`` in the page.  Cleaning
the Markdown source instead would miss links that only the renderer makes
(``[x](javascript:...)`` is plain text to an HTML cleaner).  Maths stays text
(``$...$``, ``$$...$$``, ``\\begin{align}``), so MathJax still typesets it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import nh3
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from pygments.token import STANDARD_TYPES

__all__ = ["TAGS", "DROPPED_WITH_CONTENT", "ATTRIBUTES", "ALLOWED_CLASSES", "URL_SCHEMES",
           "allowed_url", "clean_html", "markdown_to_html", "student_markdown_html",
           "is_plain_markdown", "clean_markdown"]

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

_INPUT_VALUES = {"type": {"checkbox"}}


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


def clean_html(html: str) -> str:
    """``html`` written (or rendered) from a student, with only the allowlist kept."""
    if not isinstance(html, str):
        raise TypeError(f"clean_html: html must be a str, got {type(html).__name__}")
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
        if kind in ("link", "image") and not (isinstance(url, str)
                                              and allowed_url(url)):
            return False
        if not _tokens_are_plain(token.get("children") or []):
            return False
    return True


def is_plain_markdown(source: str) -> bool:
    """Whether ``source`` holds no raw HTML and no link or image but allowed ones.

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
    if is_plain_markdown(source):
        return source
    html = student_markdown_html(source).strip()
    # A blank line would end the HTML block; inside <pre> a line holding one
    # space looks the same.
    html = re.sub(r"\n[ \t]*(?=\n)", "\n&#32;", html)
    return f"<div>\n{html}\n</div>"
