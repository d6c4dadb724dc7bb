r"""A written answer as its Markdown renders: markup that shows nothing set aside.

A written answer is shown rendered (in the notebook, on the feedback page), so
what changes how it is stored but not what it shows does not change what is
compared. :func:`as_rendered` removes, in the order a renderer reads them:

- HTML comments (``<!---->``, ``<!-- note -->``, and the short ``<!-->``;
  one never closed hides the rest, as in a browser), and the other raw HTML a
  browser shows nothing of: processing instructions (``<?zq?>``), declarations
  (``<!DOCTYPE zq>``) and CDATA sections;
- what an element may hide, with the element: the text of every element
  that is not one of those that show their text as text (:data:`SHOWS_TEXT`:
  ``<b>``, ``<span>``, ``<p>``, ``<sub>``, tables, lists and the like; not
  ``<audio>``, ``<canvas>``, ``<noscript>``, ``<svg>``, ``<math>``,
  ``<style>`` or one the list does not know), of one whose ``style`` hides it
  (``display: none``, ``visibility: hidden``, ``font-size: 0``, ``opacity: 0``,
  ``color: transparent``) and of one with the ``hidden`` attribute
  (``ker<span style="display:none">zq</span>nel`` and ``ker<audio>zq</audio>nel``
  are ``kernel``);
- HTML tags, keeping the text between them (``<b></b>`` inside a word joins
  it, ``<em>kernel</em>`` is ``kernel``); only what reads as a tag (``<`` then a
  letter or ``/``), so ``a < b`` and ``x<y`` in a formula stay;
- Markdown links, keeping the text they show (``fi[rs](#)t`` and ``fi[rs][r]t``
  show "first", part of it as a link; ``fi[](#)rst`` shows nothing between);
  an image's ``![alt](src)`` is its alternative text, as the pages show it, and
  a reference's definition (``[r]: #``) shows nothing;
- a formula with nothing to show (``${}$``, ``$ $``, ``$\vphantom{zq}$``,
  ``$\!$``: empty groups, phantoms and spacing), and a phantom in any formula
  (``\phantom``, ``\vphantom``, ``\hphantom``: space the size of what it
  holds, which does not show);
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

CSS, HTML and TeX can hide or reorder text in more ways than any list holds
(a class the page styles, white on white, a box of no width, right-to-left
override), so :func:`styled_markup` names every tag that may: an element not
in :data:`SHOWS_TEXT`, a ``style``, ``class``, ``hidden``, ``color``,
``bgcolor`` or ``dir`` attribute, a formula's phantom or colour or CSS
command, and a character that overrides the direction of the text: honest
written answers need none, and a submission that has them is flagged on its
own, for the instructor to read as it shows.
"""

import html
import re

__all__ = ["as_rendered", "styled_markup", "without_comments", "SHOWS_TEXT", "FORMULA"]

#: what the notebook shows as written: formulas (an inline one may go on to the next
#: line of its paragraph), code blocks and code spans
_AS_WRITTEN = re.compile(r"(```[\s\S]*?```|`[^`\n]+`|\$\$[\s\S]*?\$\$"
                         r"|\$(?:[^$\n]|\n(?![ \t]*\n))+\$)")
#: a phantom: space the size of what it holds (braces nested twice at most)
_PHANTOM = r"\\[hv]?phantom\s*\{(?:[^{}$]|\{(?:[^{}$]|\{[^{}$]*\})*\})*\}"
#: what a formula may hold and show nothing: spaces, empty groups, phantoms, spacing
_SPACE = (r"(?:\s|" + _PHANTOM + r"|\\math(?:ord|op|rel|bin|punct|inner|open|close)\s*"
          r"\{\s*\}|\\[,;:! ]|\\q?quad\b|\\(?:m?kern|"
          r"hspace\*?|mspace|hskip|mskip)\s*\{?\s*[-+]?[\d.]*\s*(?:em|ex|mu|pt|px)?\s*\}?)")
_NOTHING = r"(?:" + _SPACE + r"|\{" + _SPACE + r"*\})"
#: a formula with nothing to show
_EMPTY_FORMULA = re.compile(r"\$\$" + _NOTHING + r"*\$\$|\$" + _NOTHING + r"+\$")
_PHANTOMS = re.compile(_PHANTOM)
_LETTER_END = re.compile(r"[^\W\d_]$")
_LETTER_START = re.compile(r"[^\W\d_]")
#: a TeX comment, to the end of its line (``\%`` is a per cent sign)
_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
#: formulas between two letters at most, before they flag: honest writing has one
#: now and then (``a$b$c``); a copy padded word by word has one in every word
FORMULAS_INSIDE_WORDS = 2
#: what in a formula of nothing shows as a space: spacing that is not negative
_WIDE = re.compile(r"\\[,;: ]|\\q?quad\b|\\h?phantom|\\(?:m?kern|hspace\*?|mspace|hskip|"
                   r"mskip)\s*\{?\s*\+?[\d.]*[1-9]")
#: formula commands that may hide text or style it
_HIDING_COMMAND = re.compile(
    r"\\(?:[hv]?phantom|color|textcolor|colorbox|fcolorbox|style|class|cssId|mmlToken|"
    r"require|href|mathchoice|def|gdef|edef|let|newcommand|renewcommand|DeclareMathOperator|"
    r"strut|mathstrut|smash|[lrc]lap|math[lrc]lap|raise|lower|raisebox|tiny|scriptsize|"
    r"scriptscriptstyle|unicode|mmlToken|vcenter|moveleft|moveright|texttip|mathtip|"
    r"toggle|endtoggle|statusline)(?![A-Za-z])")
#: characters that override the direction of the text that follows (U+202D,
#: U+202E) or embed or isolate a direction (U+202A, U+202B, U+2066-U+2068)
_DIRECTION = re.compile("[\u202a\u202b\u202d\u202e\u2066\u2067\u2068]")
#: a link reference definition (``[r]: #``), which shows nothing
_DEFINITION = re.compile(r"^ {0,3}\[[^\[\]\n]+\]:[^\n]*$", re.MULTILINE)
#: a Markdown link or image: its text, then a destination or a reference
_LINK = re.compile(r"\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
#: a Markdown image, which shows a picture, not its text
_IMAGE = re.compile(r"!\[[^\[\]\n]*\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
#: an image, held by the answer (a ``data:`` address, an attachment) or fetched
#: (Formgrader shows it, or a link to it): a picture of text, which reads as
#: nothing here
_ANY_IMAGE = re.compile(_IMAGE.pattern + r"|<img\b[^<>]*>", re.I)
#: an image or a tag between two letters (``ca![zq](x)ndidate``, ``ca<img>ndidate``)
_INSIDE_A_WORD = re.compile(r"(?<=[^\W\d_])(?:" + _IMAGE.pattern + r"|<img\b[^<>]*>)(?=[^\W\d_])")
_COMMENT = re.compile(r"<!--(?:-?>|[\s\S]*?(?:--!?>|$))")
#: what CommonMark passes as raw HTML and a browser shows nothing of: a processing
#: instruction (``<?zq?>``), a declaration (``<!DOCTYPE zq>``), a CDATA section
_NOT_SHOWN = re.compile(r"<\?[\s\S]*?\?>|<![A-Za-z][^>]*>|<!\[CDATA\[[\s\S]*?\]\]>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
#: a pair of emphasis markers inside a word (``ke**rn**el``)
#: a decimal character reference's leading zeros, and one of more digits than any
#: character has (Python's int() refuses more than 4,300: html.unescape raised)
_LEADING_ZEROS = re.compile(r"(?<=&#)0+(?=[0-9])")
_TOO_LONG = re.compile(r"&#[0-9]{8,}")
_INNER_EMPHASIS = re.compile(r"(?<=[^\W_])(\*{1,3}|~~)([^\W_]+)\1(?=[^\W_])")
_TAG_PARTS = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s[^<>]*)?)>")
#: Elements that show their text as text, inline or as a block (what an answer
#: in Markdown writes as HTML); any other (``audio``, ``canvas``, ``noscript``,
#: ``svg``, ``math``, ``details``, ``style``, one the list does not know) may
#: show nothing of it.
SHOWS_TEXT = frozenset({
    "a", "abbr", "address", "article", "aside", "b", "bdi", "big", "blockquote", "br",
    "caption", "center", "cite", "code", "col", "colgroup", "data", "dd", "del", "dfn",
    "div", "dl", "dt", "em", "figcaption", "figure", "font", "footer", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hr", "i", "img", "ins", "kbd", "label", "li", "main",
    "mark", "nav", "ol", "p", "pre", "q", "rb", "rt", "ruby", "s", "samp", "section",
    "small", "span", "strike", "strong", "sub", "sup", "table", "tbody", "td", "tfoot",
    "th", "thead", "time", "tr", "tt", "u", "ul", "var", "wbr"})
#: elements that make their text smaller, and how many of them, one inside the
#: other, make it too small to read (``<small>`` thirty deep showed nothing)
_SHRINKING = frozenset({"small", "sub", "sup"})
_SHRUNK_TO_NOTHING = 3
#: elements with no end tag
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                   "meta", "source", "track", "wbr"})
_HIDING_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?![.\d]*[1-9])"
    r"|opacity\s*:\s*0(?![.\d]*[1-9])|color\s*:\s*transparent", re.IGNORECASE)
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)hidden(?=\s|=|/|$)", re.IGNORECASE)
_STYLING_ATTRIBUTE = re.compile(r"(?:^|\s)(?:style|class|hidden|color|bgcolor|dir)(?=\s|=|/|$)",
                                re.IGNORECASE)


def _unescaped(text):
    """:func:`html.unescape` of ``text``; a decimal reference too long for any
    character is the replacement character, as a browser shows it."""
    return html.unescape(_TOO_LONG.sub("&#65533", _LEADING_ZEROS.sub("", text)))


def _hides(name, attributes):
    return (name not in SHOWS_TEXT or bool(_HIDDEN_ATTRIBUTE.search(attributes))
            or bool(_HIDING_STYLE.search(_unescaped(attributes))))


def _elements(piece):
    """Each tag of ``piece`` (HTML outside formulas and code) as it opens or closes an
    element: (the tag's match, its name, the open elements around it, innermost
    last, each (name, whether it hides its text), after the tag)."""
    open_ = []
    for tag in _TAG_PARTS.finditer(piece):
        closing, name, attributes = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            names = [n for n, _ in open_]
            if name in names:
                del open_[len(names) - 1 - names[::-1].index(name):]
        elif name not in _VOID and not attributes.rstrip().endswith("/"):
            shrunk = sum(n in _SHRINKING for n, _ in open_) + (name in _SHRINKING)
            open_.append((name, (open_ and open_[-1][1]) or _hides(name, attributes)
                          or shrunk >= _SHRUNK_TO_NOTHING))
        yield tag, name, open_


def _without_hidden(piece):
    """``piece`` without the text of the elements that hide it (tags kept)."""
    out, at, hidden = [], 0, False
    for tag, _, open_ in _elements(piece):
        if not hidden:
            out.append(piece[at:tag.start()])
        at = tag.end()
        hidden = bool(open_ and open_[-1][1])
        out.append(tag.group(0))
    if not hidden:
        out.append(piece[at:])
    return "".join(out)


def _pieces(text):
    """``text`` cut where formulas and code begin and end (:func:`re.split`: every
    other piece, from the second, is a formula or code), a reference's definition
    removed."""
    return _AS_WRITTEN.split(_DEFINITION.sub("", text))


def without_comments(text):
    """``text`` (Markdown) without its HTML comments outside formulas and code,
    which show nothing (what the bound on written answers counts is then what
    may show: 110 kB of comment in front of a copy pushed the copy past it)."""
    pieces = _pieces(text)
    for i in range(0, len(pieces), 2):
        pieces[i] = _COMMENT.sub("", pieces[i])
    return "".join(pieces)


def styled_markup(text, limit=5):
    """The first ``limit`` distinct things in ``text`` (Markdown) that may hide,
    style or reorder what it shows, each as written (cut at 80 characters): a tag
    (outside formulas and code, comments aside) of an element not in
    :data:`SHOWS_TEXT` or with a ``style``, ``class``, ``hidden``, ``color``,
    ``bgcolor`` or ``dir`` attribute; a formula's phantom, colour or CSS command
    (``\\vphantom``); a character that overrides the text's direction (named
    by its code point, ``U+202E``)."""
    found = []

    def add(thing):
        if thing not in found and len(found) < limit:
            found.append(thing)

    pieces = _pieces(text)
    empty = [p for p in pieces[1::2] if _EMPTY_FORMULA.fullmatch(_TEX_COMMENT.sub("", p))]
    if len(empty) > FORMULAS_INSIDE_WORDS:
        add(f"{len(empty)} formulas that show nothing: {empty[0][:40]}")
    inside = [i for i in range(1, len(pieces) - 1, 2) if pieces[i].startswith("$")
              and _LETTER_END.search(pieces[i - 1]) and _LETTER_START.match(pieces[i + 1])]
    if len(inside) > FORMULAS_INSIDE_WORDS:
        i = inside[0]
        add(f"{len(inside)} formulas inside words: {pieces[i - 1][-3:]}{pieces[i][:40]}"
            f"{pieces[i + 1][:3]}")
    for i, piece in enumerate(pieces):
        if i % 2:
            if piece.startswith("$"):
                for command in _HIDING_COMMAND.finditer(piece):
                    add(command.group(0))
                if _TEX_COMMENT.search(piece):
                    add("a TeX comment in a formula: " + piece[:40])
            continue
        piece = _COMMENT.sub("", piece)
        for tag, name, open_ in _elements(piece):
            if tag.group(1):
                continue
            shrunk = sum(n in _SHRINKING for n, _ in open_)
            if (name not in SHOWS_TEXT or _STYLING_ATTRIBUTE.search(tag.group(3))
                    or (name in _SHRINKING and shrunk >= _SHRUNK_TO_NOTHING)):
                add(tag.group(0)[:80] + (f" ({shrunk} deep)" if name in _SHRINKING else ""))
        for inside in _INSIDE_A_WORD.finditer(piece):
            add("an image inside a word: " + inside.group(0)[:60])
        for image in _ANY_IMAGE.finditer(piece):
            add("an image, which reads as nothing here (a picture of text is compared "
                "as no words): " + image.group(0)[:40])
        for unshown in _NOT_SHOWN.finditer(piece):
            add(unshown.group(0)[:80])
    for character in sorted(set(_DIRECTION.findall(text))):
        add(f"U+{ord(character):04X}")
    return found


#: what a formula reads as where formulas are set aside (:func:`as_rendered`)
FORMULA = "zzformulazz"


def as_rendered(text, formulas=True):
    """``text`` (Markdown) as it shows: empty formulas removed, links their text,
    comments removed, hidden elements removed with their text, other tags
    removed (their text kept), emphasis inside words removed,
    character references decoded; without ``formulas``, each formula that shows
    something is the one word :data:`FORMULA` (its symbols are the writer's)."""
    pieces = _pieces(text)
    for i in range(1, len(pieces), 2):          # formulas: nothing, or without phantoms
        if pieces[i].startswith("$"):
            pieces[i] = _TEX_COMMENT.sub("", pieces[i])
        if _EMPTY_FORMULA.fullmatch(pieces[i]):
            # a space where it shows one (``$\ $``, ``$\,$``, ``\quad``, ``\phantom``),
            # nothing where it shows none (``${}$``, ``$\!$``, ``\vphantom``)
            pieces[i] = " " if _WIDE.search(pieces[i]) else ""
        elif pieces[i].startswith("$"):
            pieces[i] = (_PHANTOMS.sub("", pieces[i]) if formulas
                         else f" {FORMULA} ")
    for i in range(0, len(pieces), 2):          # the text between formulas and code
        piece = _LINK.sub(r"\1", _IMAGE.sub("", pieces[i]))
        piece = _NOT_SHOWN.sub("", _COMMENT.sub("", piece))
        piece = _TAG.sub("", _without_hidden(piece))
        piece = _INNER_EMPHASIS.sub(r"\2", piece)
        pieces[i] = _unescaped(piece)
    return "".join(pieces)
