"""A written answer as its Markdown renders: markup that shows nothing set aside.

A written answer is shown rendered (in the notebook, on the feedback page), so
what changes how it is stored but not what it shows does not change what is
compared. :func:`as_rendered` removes, in the order a renderer reads them:

- HTML comments (``<!---->``, ``<!-- note -->``, and the short ``<!-->``;
  one never closed hides the rest, as in a browser);
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
"""

import html
import re

__all__ = ["as_rendered"]

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


def as_rendered(text):
    """``text`` (Markdown) as it shows: empty formulas removed, links their text,
    comments and tags removed (their text kept), emphasis inside words removed,
    character references decoded."""
    pieces = _AS_WRITTEN.split(_DEFINITION.sub("", _EMPTY_FORMULA.sub("", text)))
    for i in range(0, len(pieces), 2):          # the text between formulas and code
        piece = _LINK.sub(r"\1", pieces[i])
        piece = _COMMENT.sub("", piece)
        piece = _TAG.sub("", piece)
        piece = _INNER_EMPHASIS.sub(r"\2", piece)
        pieces[i] = html.unescape(piece)
    return "".join(pieces)
