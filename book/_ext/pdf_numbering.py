"""The PDF numbers chapters and results as the website does.

On the website only the pages of the numbered "Chapters" part carry numbers:
"The kernel trick" is chapter 1 and its first proposition is Proposition 1.1.
Two things make the LaTeX build differ.  LaTeX numbers every chapter of the
book, so the Notation and Errata pages before the chapters become chapters 1
and 2 and "The kernel trick" chapter 3.  And sphinx-jupyterbook-latex, when
the table of contents has parts, numbers figures, equations and theorems by
section (Proposition 1.2.1).  For the LaTeX builder only, this extension

* sets ``numfig_secnum_depth`` back to the value of the book's configuration,
  so results are numbered within each chapter, as on the website;
* makes every page outside the numbered part an unnumbered chapter (LaTeX's
  ``secnumdepth`` is -1 while it is typeset), so the chapters of the numbered
  part are numbered 1, 2, ... as on the website.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.latex import LaTeXBuilder
from sphinx.transforms.post_transforms import SphinxPostTransform

# Remember LaTeX's section-numbering depth the first time it is changed.
_SAVE_DEPTH = r"\ifdefined\booksecnumdepth\else\edef\booksecnumdepth{\the\value{secnumdepth}}\fi"
UNNUMBERED = _SAVE_DEPTH + r"\setcounter{secnumdepth}{-1}" + "\n"
NUMBERED = _SAVE_DEPTH + r"\setcounter{secnumdepth}{\booksecnumdepth}" + "\n"


class NumberOnlyTheNumberedPart(SphinxPostTransform):
    """Switch LaTeX's chapter numbering off and on around each page."""

    default_priority = 30
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        numbered = {doc for doc, numbers in self.env.toc_secnumbers.items() if numbers}
        for start in self.document.findall(addnodes.start_of_file):
            text = NUMBERED if start["docname"] in numbered else UNNUMBERED
            start.insert(0, nodes.raw("", text, format="latex"))


def setup(app: Sphinx) -> dict:
    chosen = {}

    def remember_depth(app: Sphinx, config) -> None:
        chosen["depth"] = config.numfig_secnum_depth

    def restore_depth(app: Sphinx) -> None:
        if isinstance(app.builder, LaTeXBuilder):
            app.config.numfig_secnum_depth = chosen["depth"]

    app.connect("config-inited", remember_depth)
    # After sphinx-jupyterbook-latex has set its own depth (default priority 500).
    app.connect("builder-inited", restore_depth, priority=900)
    app.add_post_transform(NumberOnlyTheNumberedPart)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
