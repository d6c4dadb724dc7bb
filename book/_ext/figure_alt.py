"""Give every figure image an alternative text that says what it shows.

Chapter figures are drawn by code cells, and the images MyST-NB makes of their
outputs carry no description of their own (the alt attribute is empty or the
image's file name).  The figure caption already says what the figure shows, so
this extension copies the caption's text into the ``alt`` of each image of a
captioned figure that has no alternative text of its own.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx


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


def setup(app: Sphinx):
    app.connect("doctree-resolved", caption_as_alt)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
