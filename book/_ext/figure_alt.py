"""Give every figure image an alternative text that says what it shows.

Chapter figures are drawn by code cells, and the images MyST-NB makes of their
outputs carry no description of their own (the alt attribute is empty or the
image's file name).  The figure caption already says what the figure shows, so
this extension copies the caption's text into the ``alt`` of each image of a
captioned figure that has no alternative text of its own: image nodes, and
the ``<img alt="">`` of a figure drawn for two screen widths, which a cell
shows as HTML (see ``book/_ext/phone_figures.py``); both drawings of such a
figure share that one ``alt``.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from sphinx.application import Sphinx


# An <img> the kernel drew with an empty alt, for the caption to fill in.
EMPTY_ALT = re.compile(r'(<img src="data:image/png;base64,[A-Za-z0-9+/=]*" alt=)""')


def _needs_alt(image: nodes.image) -> bool:
    alt = (image.get("alt") or "").strip()
    return not alt or alt == image.get("uri") or bool(re.search(r"\.(png|jpe?g|svg)$", alt))


def caption_as_alt(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = " ".join(captions[0].astext().split())
        for image in figure.findall(nodes.image):
            if _needs_alt(image):
                image["alt"] = text
        for raw in list(figure.findall(nodes.raw)):
            source = raw.astext()
            if "html" in raw.get("format", "").split() and EMPTY_ALT.search(source):
                alt = html.escape(text)
                filled = EMPTY_ALT.sub(lambda m: f'{m.group(1)}"{alt}"', source)
                raw.replace_self(nodes.raw("", filled, format=raw["format"]))


def setup(app: Sphinx):
    app.connect("doctree-resolved", caption_as_alt)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
