"""A written answer as its Markdown renders: markup that shows nothing set aside.

A written answer is shown rendered (in the notebook, on the feedback page), so
what changes how it is stored but not what it shows does not change what is
compared. :func:`as_rendered` removes, in the order a renderer reads them:

- HTML comments (``<!---->``, ``<!-- note -->``, and the short ``<!-->``;
  one never closed hides the rest, as in a browser);
- what an element hides, with the element: the text of one whose ``style``
  hides it (``display: none``, ``visibility: hidden``, ``font-size: 0``,
  ``opacity: 0``, ``color: transparent``), of one with the ``hidden`` attribute,
  and of ``<style>``, ``<script>``, ``<template>`` and ``<title>``, which show no
  text (``ker<span style="display:none">zq</span>nel`` is ``kernel``);
- HTML tags, keeping the text between them (``<b></b>`` inside a word joins
  it, ``<em>kernel</em>`` is ``kernel``); only what reads as a tag (``<`` then a
  letter or ``/``), so ``a < b`` and ``x<y`` in a formula stay;
- Markdown links, keeping the text they show (``fi[rs](#)t`` and ``fi[rs][r]t``
  show "first", part of it as a link; ``fi[](#)rst`` shows nothing between);
  an image's ``![alt](src)`` is its alternative text, as the pages show it, and
  a reference's definition (``[r]: #``) shows nothing;
- a formula with nothing in it (``${}$``, ``$ $``), which shows nothing;
- Markdown emphasis inside a word, a pair of markers (``a**b**c``, ``a*b*c``,
  ``a~~b~~c``), which renders as one word; a marker alone (``x**2``) shows
  as typed, and ``_`` inside a word is no emphasis in Markdown (``B_diag``
  reads as two words, as before);
- HTML character references, decoded (``&#101;``, ``&#x6f;``, ``&nbsp;``,
  ``&shy;``: :func:`html.unescape`), last, so that ``&lt;b&gt;`` is the text
  ``<b>``, as it shows.

Math (``$...$``, ``$$...$$``) and code (```` ``` ```` blocks, `` `spans` ``)
are left as written: the notebook shows them without reading HTML or
Markdown in them (``$x<y>z$`` is a formula, not a tag; `` `&#101;` `` shows
as typed). What is left is read letter by letter by :mod:`.letters` (a no-break space is
a space, a soft hyphen shows nothing). The page shows these words, escaped.

CSS can hide text in more ways than any list holds (a class the page
styles, white on white, a box of no width), so :func:`styled_markup` names
every element that carries a ``style``, ``class`` or ``hidden`` attribute or
is one of those that show no text: honest written answers need none, and a
submission that has them is flagged on its own, for the instructor to read
as it shows.
"""

import html
import re

__all__ = ["as_rendered", "styled_markup"]

#: what the notebook shows as written: formulas, code blocks and code spans
_AS_WRITTEN = re.compile(r"(```[\s\S]*?```|`[^`\n]+`|\$\$[\s\S]*?\$\$|\$[^$\n]+\$)")
#: a formula with nothing to show (only spaces and empty groups)
_EMPTY_FORMULA = re.compile(r"\$\$(?:\s|\{\s*\})*\$\$|\$(?:\s|\{\s*\})+\$")
#: a link reference definition (``[r]: #``), which shows nothing
_DEFINITION = re.compile(r"^ {0,3}\[[^\[\]\n]+\]:[^\n]*$", re.MULTILINE)
#: a Markdown link or image: its text, then a destination or a reference
_LINK = re.compile(r"!?\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
_COMMENT = re.compile(r"<!--(?:-?>|[\s\S]*?(?:--!?>|$))")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
#: a pair of emphasis markers inside a word (``ke**rn**el``)
_INNER_EMPHASIS = re.compile(r"(?<=[^\W_])(\*{1,3}|~~)([^\W_]+)\1(?=[^\W_])")
_TAG_PARTS = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s[^<>]*)?)>")
#: elements whose text never shows
_NO_TEXT = frozenset({"style", "script", "template", "title"})
#: elements with no end tag
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                   "meta", "source", "track", "wbr"})
_HIDING_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?![.\d]*[1-9])"
    r"|opacity\s*:\s*0(?![.\d]*[1-9])|color\s*:\s*transparent", re.IGNORECASE)
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)hidden(?=\s|=|/|$)", re.IGNORECASE)
_STYLING_ATTRIBUTE = re.compile(r"(?:^|\s)(?:style|class|hidden)(?=\s|=|/|$)", re.IGNORECASE)


def _hides(name, attributes):
    return (name in _NO_TEXT or bool(_HIDDEN_ATTRIBUTE.search(attributes))
            or bool(_HIDING_STYLE.search(html.unescape(attributes))))


def _without_hidden(piece):
    """``piece`` without the text of the elements that hide it (tags kept)."""
    out, open_, at = [], [], 0             # open_: [(name, hidden)] innermost last
    for tag in _TAG_PARTS.finditer(piece):
        if not (open_ and open_[-1][1]):
            out.append(piece[at:tag.start()])
        at = tag.end()
        closing, name, attributes = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            names = [n for n, _ in open_]
            if name in names:
                del open_[len(names) - 1 - names[::-1].index(name):]
        elif name not in _VOID and not attributes.rstrip().endswith("/"):
            open_.append((name, (open_ and open_[-1][1]) or _hides(name, attributes)))
        out.append(tag.group(0))
    if not (open_ and open_[-1][1]):
        out.append(piece[at:])
    return "".join(out)


def _between_code(text):
    """The pieces of ``text`` that are neither formula nor code (every other one
    of the list :func:`re.split` gives; a reference's definition and an empty
    formula already removed)."""
    return _AS_WRITTEN.split(_DEFINITION.sub("", _EMPTY_FORMULA.sub("", text)))


def styled_markup(text, limit=5):
    """The first ``limit`` distinct tags of ``text`` (Markdown, outside formulas and
    code, comments aside) that carry a ``style``, ``class`` or ``hidden``
    attribute or open an element that shows no text, each as written (cut at
    80 characters)."""
    found = []
    pieces = _between_code(text)
    for piece in pieces[::2]:
        for tag in _TAG_PARTS.finditer(_COMMENT.sub("", piece)):
            if tag.group(1):
                continue
            if tag.group(2).lower() in _NO_TEXT or _STYLING_ATTRIBUTE.search(tag.group(3)):
                written = tag.group(0)[:80]
                if written not in found:
                    found.append(written)
                    if len(found) == limit:
                        return found
    return found


def as_rendered(text):
    """``text`` (Markdown) as it shows: empty formulas removed, links their text,
    comments removed, hidden elements removed with their text, other tags
    removed (their text kept), emphasis inside words removed,
    character references decoded."""
    pieces = _between_code(text)
    for i in range(0, len(pieces), 2):          # the text between formulas and code
        piece = _LINK.sub(r"\1", pieces[i])
        piece = _COMMENT.sub("", piece)
        piece = _TAG.sub("", _without_hidden(piece))
        piece = _INNER_EMPHASIS.sub(r"\2", piece)
        pieces[i] = html.unescape(piece)
    return "".join(pieces)
