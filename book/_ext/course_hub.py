""""Open in the course hub": a chapter or a problem set, one click into JupyterLab.

Each chapter page (next to its notebook download) and each problem set (the
``{course-hub}`ps1``` role, on the Assignments page) gets a link that is
hidden on an ordinary copy of the site.  The site loads
``_static/course_hub_config.js``, which here says there is no hub; the hub's
book service (deploy/book_service.py) answers that address itself with the
hub's link, ``<hub>/hub/user-redirect/course-open/``, and ``course_hub.js``
then shows each link, pointing at ``course-open/chapter/NAME`` or
``course-open/ps/NAME``.  The user's own server does the rest
(deploy/course_open.py).  Nothing shows in the PDF.
"""

from __future__ import annotations

import re
from html import escape

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

logger = logging.getLogger(__name__)

#: The names deploy/course_open.py accepts (its NAME): never a path.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
CLASS = "course-hub"


def link_html(kind: str, name: str, *, block: bool) -> str:
    """The hidden link to open ``kind`` ("chapter" or "ps") ``name`` in the hub."""
    if kind not in ("chapter", "ps") or not NAME.match(name):
        raise ValueError(f"no course-hub link for {kind}/{name!r}")
    tag = "p" if block else "span"
    what = "this chapter" if kind == "chapter" else name
    return (f'<{tag} class="{CLASS}" data-open="{kind}/{escape(name)}" hidden>'
            f'<a class="{CLASS}-open" href="#">Open {escape(what)} in the course hub</a>'
            + ("<span> (your own copy, in your JupyterLab on the course's server)</span>"
               if block else "") + f"</{tag}>")


class course_hub_link(nodes.Inline, nodes.Element):
    """A problem set's link; attribute name."""


def visit_link_html(self, node: course_hub_link) -> None:
    self.body.append(link_html("ps", node["name"], block=False))
    raise nodes.SkipNode


def skip(self, node: course_hub_link) -> None:
    raise nodes.SkipNode


class CourseHubRole(SphinxRole):
    """``{course-hub}`ps1```: open problem set ps1 in the course hub."""

    def run(self):
        name = self.text.strip()
        if not NAME.match(name):
            logger.warning("course-hub: %r is not a problem set's name", name,
                           location=self.get_location())
            return [], []
        return [course_hub_link(name=name)], []


def add_assets(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """The scripts, on the pages that have a link (after notebook_downloads)."""
    if f'class="{CLASS}"' in context.get("body", ""):
        app.add_js_file("course_hub_config.js", priority=450)
        app.add_js_file("course_hub.js", priority=460)


def setup(app: Sphinx) -> dict:
    app.add_role("course-hub", CourseHubRole())
    app.add_node(course_hub_link, html=(visit_link_html, None),
                 latex=(skip, None), text=(skip, None))
    app.connect("html-page-context", add_assets, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
