"""Self-checks: short questions at the end of a section that answer at once.

A chapter writes them with the ``{selfcheck}`` directive
(:mod:`coursegrader.selfcheck` reads its body and says what it holds; the
README's "Writing a self-check" shows an example).

* On the website each is a form: a question, a group of radio buttons (one
  answer), of check boxes (select all that apply) or a text field (a
  number), a Check button and a live region that says whether the answer is
  right and why.  Every choice carries its own explanation, shown as soon as
  the reader checks.  ``static/selfcheck.js`` does this in the browser with
  nothing sent anywhere; the only thing kept is, in the reader's own
  ``localStorage``, which questions they have answered right.
* In the PDF (and any builder other than HTML) the question is printed with
  its choices lettered, and the answers with every explanation are collected
  at the end of the chapter (``latex.py``).
* In the chapter's notebook download, the same
  (:func:`coursegrader.selfcheck.write_out`, from ``notebook_downloads``).
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from . import latex, nodes_html
from .directive import SelfCheckDirective

STATIC = Path(__file__).parent / "static"


def _static_path(app: Sphinx, config) -> None:
    config.html_static_path.append(str(STATIC))


def _assets(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """The script and style sheet, on the pages that have a self-check only."""
    if doctree is not None and any(doctree.findall(nodes_html.selfcheck)):
        app.add_css_file("selfcheck.css")
        app.add_js_file("selfcheck.js", defer="defer")


def setup(app: Sphinx) -> dict:
    app.add_directive("selfcheck", SelfCheckDirective)
    nodes_html.register(app)
    app.add_post_transform(latex.SelfChecksAsText)
    app.connect("config-inited", _static_path)
    app.connect("html-page-context", _assets)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
