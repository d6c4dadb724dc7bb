"""TeX in a page's HTML written out as MathML, so it reads without a script.

A student opens their feedback in JupyterLab, whose HTML viewer shows a file
it does not trust with its scripts turned off: MathJax never runs and the
mathematics stays TeX until they press "Trust HTML".  The feedback template
passes every Markdown cell, once cleaned, through :func:`html_with_mathml`
(the ``tex_to_mathml`` Jinja filter): each ``$...$``, ``$$...$$``, ``\\(...\\)``,
``\\[...\\]`` and ``\\begin{align}`` (``equation``, ``gather``) outside code
becomes MathML (``latex2mathml``), which every
browser draws by itself and screen readers read.  What cannot be converted
stays TeX, for MathJax when the page's script does run, in a ``<span
class="tex">`` that the page's style sheet keeps from breaking where a long
word in the text around it would break (``coursegrader/apps/math_clip.css``).

The TeX is the student's.  latex2mathml copies some of it through as markup
(``\\text{<b>}``, ``\\href{...}``), so its output is only used when it parses
as XML and holds nothing but the MathML elements and attributes of
:data:`TAGS` and :data:`ATTRIBUTES` (none of which takes an address); it is
then written out again from the parsed tree, every text escaped.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

from latex2mathml.converter import convert

__all__ = ["tex_to_mathml", "html_with_mathml"]

MATHML = "http://www.w3.org/1998/Math/MathML"
TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "ms", "msup", "msub", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "mmultiscripts", "mprescripts", "none",
})
ATTRIBUTES = frozenset({
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace",
    "accent", "accentunder", "movablelimits", "minsize", "maxsize", "symmetric", "largeop",
    "form", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines",
    "rowlines", "frame", "displaystyle", "scriptlevel", "width", "height", "depth",
    "linethickness", "notation",
})
#: An inline formula that may be wider than this, in em (:func:`estimated_em`),
#: may be wider than a phone's line (some 16 em; less in a list), and no
#: browser breaks a line inside a formula: it is set in a box of its own that
#: scrolls and that the keyboard can reach (the page's style sheet:
#: ``.math-wide``), in which a formula that is one text alone
#: (``\\text{...}``) wraps it.  Narrower ones stay as they are (the style
#: sheet clips one that is wider than its line after all, rather than let the
#: page scroll sideways).
WIDE_INLINE_EM = 14
#: What one ``mspace`` unit is in em (a 10 pt font's, as TeX sets it).
_EM_PER_UNIT = {"em": 1, "ex": 0.5, "mu": 1 / 18, "pt": 0.1, "px": 1 / 16}
#: Elements whose text is never mathematics.
_SKIP = frozenset({"code", "pre", "script", "style", "textarea", "kbd", "samp", "math"})
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)")
_MATH = re.compile(
    r"\$\$(?P<d1>.+?)\$\$|\\\[(?P<d2>.+?)\\\]|\\\((?P<i1>.+?)\\\)"
    r"|(?P<d3>\\begin\{(?P<env>align|equation|gather)\*?\}.+?\\end\{(?P=env)\*?\})"
    r"|(?<![\\$])\$(?![\s$])(?P<i2>[^$]+?)(?<![\s\\])\$(?!\d)", re.S)


def _write(element: ET.Element) -> str:
    tag = element.tag.removeprefix(f"{{{MATHML}}}")
    if tag not in TAGS or (element.tag.startswith("{") and not element.tag.startswith(f"{{{MATHML}}}")):
        raise ValueError(f"not allowed: {tag}")
    attrs = ""
    for name, value in element.attrib.items():
        if name not in ATTRIBUTES:
            raise ValueError(f"attribute not allowed: {name}")
        attrs += f' {name}="{html.escape(value, quote=True)}"'
    if tag == "math":
        attrs = f' xmlns="{MATHML}"' + attrs
    inner = html.escape(element.text or "", quote=False)
    for child in element:
        inner += _write(child) + html.escape(child.tail or "", quote=False)
    return f"<{tag}{attrs}>{inner}</{tag}>"


def estimated_em(mathml: str) -> float:
    """How wide ``mathml`` may be drawn, in em, generously: 0.6 em a character
    of its text, 0.5 em more around an operator, and its spaces' widths."""
    width = 0.0
    for element in ET.fromstring(mathml).iter():
        tag = element.tag.removeprefix(f"{{{MATHML}}}")
        width += 0.6 * len((element.text or "").strip()) + 0.5 * (tag == "mo")
        found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]+)\s*",
                             element.get("width") or "")
        if tag == "mspace" and found and found.group(2) in _EM_PER_UNIT:
            width += float(found.group(1)) * _EM_PER_UNIT[found.group(2)]
    return width


def tex_to_mathml(tex: str, display: bool = False) -> str | None:
    """``tex`` as MathML made only of allowed elements, or None."""
    try:
        produced = convert(tex, display="block" if display else "inline")
        return _write(ET.fromstring(produced))
    except Exception:  # latex2mathml's own errors, XML that does not parse, a refusal
        return None


def _convert_text(text: str) -> str:
    """One run of text (HTML-escaped) with its TeX written out as MathML."""
    plain = html.unescape(text)
    out, at = [], 0
    for match in _MATH.finditer(plain):
        display = any(match.group(g) is not None for g in ("d1", "d2", "d3"))
        tex = next(g for g in match.group("d1", "d2", "d3", "i1", "i2") if g is not None)
        mathml = tex_to_mathml(tex, display)
        out.append(html.escape(plain[at:match.start()], quote=False))
        if mathml is None:
            # left for MathJax, and read as it is without it: one run that the
            # page's style sheet never breaks, as a long word is (.tex)
            out.append(f'<span class="tex">{html.escape(match.group(0), quote=False)}</span>')
        else:
            # a display wider than a phone scrolls in its own box, which the
            # keyboard can reach (the page's style sheet: .math-display); so
            # does an inline formula that may be (.math-wide)
            if display:
                out.append(f'<span class="math-display" tabindex="0">{mathml}</span>')
            elif estimated_em(mathml) > WIDE_INLINE_EM:
                out.append(f'<span class="math-wide" tabindex="0">{mathml}</span>')
            else:
                out.append(mathml)
        at = match.end()
    if not out:
        return text
    out.append(html.escape(plain[at:], quote=False))
    return "".join(out)


def html_with_mathml(page: str) -> str:
    """Clean HTML with the TeX of its text (outside code) written out as MathML.

    MathML is drawn at its natural width, wider than MathJax's scaled SVG: a
    display, a long inline formula (:data:`WIDE_INLINE_EM`) and a table
    that are wider than a phone scroll inside a box of their own, which the
    keyboard can reach (the page's style sheet styles ``.math-display``,
    ``.math-wide`` and ``.table-scroll``).
    """
    parts, skipping = _TAG.split(page), []
    for i, part in enumerate(parts):
        if i % 2:                     # a tag
            found = _TAG_NAME.match(part)
            if found and found.group(2).lower() == "table" and not skipping:
                parts[i] = ('</table></div>' if found.group(1)
                            else '<div class="table-scroll" tabindex="0">' + part)
            if found and found.group(2).lower() in _SKIP and not part.endswith("/>"):
                name = found.group(2).lower()
                if found.group(1):
                    if name in skipping:
                        skipping.remove(name)
                else:
                    skipping.append(name)
        elif part and not skipping:
            parts[i] = _convert_text(part)
    return "".join(parts)
