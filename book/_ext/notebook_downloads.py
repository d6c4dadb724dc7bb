"""Offer every chapter of the book as a runnable Jupyter notebook.

Each chapter is a MyST-markdown notebook (a ``.md`` file with a jupytext
header).  For every such page this extension

* converts the source with jupytext into ``<outdir>/_sources/<docname>.ipynb``
  (a notebook without outputs, ready to run in JupyterLab);
* registers it with sphinx-book-theme, which then lists ``.ipynb`` in the
  page's download menu;
* puts a visible download link under the chapter title, and the link that
  opens it in the course hub when the site is served by one (``course_hub``).

Pages that are plain markdown (no ``kernelspec`` in their header) are left
alone.

Self-checks (``{selfcheck}``, see the ``selfcheck`` extension) are written
out as text, with their answers in a last cell (``coursegrader.selfcheck``).

Citations are written out in the notebook as the website shows them,
"(Schölkopf and Smola, 2002)" for ``{cite}``/``{cite:p}`` and "Schölkopf and
Smola (2002)" for ``{cite:t}``: JupyterLab has no bibliography to resolve a
citation role against, and would show the bare key.
"""

from __future__ import annotations

import functools
import html
import posixpath
import re
from pathlib import Path

import course_hub
import jupytext
import nbformat
from bibliography_labels import author_year_label
from pybtex.database import parse_file
from coursegrader.selfcheck import write_out as write_out_selfchecks
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: CSS class of the download banner inserted at the top of each chapter.
BANNER_CLASS = "notebook-download"
#: The chapters the course hub opens by name (deploy/course_open.py's CHAPTER_SOURCE).
HUB_CHAPTERS = "book/chapters/"


def _is_notebook_source(path: Path) -> bool:
    """True when ``path`` is a MyST-markdown file with a jupytext kernelspec."""
    if path.suffix != ".md" or not path.is_file():
        return False
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    header = text.split("---", 2)[1] if text.count("---") >= 2 else ""
    return "jupytext:" in header and "kernelspec:" in header


_CITE = re.compile(r"\{cite(?::(p|t))?\}`([^`]*)`")


def load_citations(bibfiles) -> dict[str, tuple[str, str]]:
    """Citation key -> (authors, year) for every entry of the BibTeX files."""
    labels = {}
    for path in bibfiles:
        for key, entry in parse_file(str(path)).entries.items():
            who, year = author_year_label(entry).rsplit(", ", 1)
            labels[key] = (who, year)
    return labels


@functools.lru_cache(maxsize=4)
def _citations_of(bibfiles: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    return load_citations(bibfiles)


def write_citations(text: str, citations: dict[str, tuple[str, str]]) -> str:
    """Replace the citation roles of ``text`` by author-year text."""
    def written(match):
        keys = [k.strip() for k in match.group(2).split(",") if k.strip()]
        missing = [k for k in keys if k not in citations]
        if missing:
            raise KeyError(f"citation keys not in the bibliography: {', '.join(missing)}")
        if match.group(1) == "t":
            return ", ".join(f"{citations[k][0]} ({citations[k][1]})" for k in keys)
        return "(" + "; ".join(", ".join(citations[k]) for k in keys) + ")"
    return _CITE.sub(written, text)


def write_notebook(source: Path, target: Path, citations=None) -> None:
    """Convert one MyST-markdown chapter into an ``.ipynb`` file at ``target``.

    ``citations`` (from :func:`load_citations`) writes out the citation roles.
    """
    notebook = jupytext.read(source, fmt="md:myst")
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and citations is not None:
            cell.source = write_citations(cell.source, citations)
    write_out_selfchecks(notebook)
    # The pairing metadata only makes sense next to the .md source.
    notebook.metadata.get("jupytext", {}).pop("text_representation", None)
    if not notebook.metadata.get("jupytext"):
        notebook.metadata.pop("jupytext", None)
    nbformat.validate(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(target))


def add_notebook_download(app: Sphinx, pagename, templatename, context, doctree):
    """Write the page's notebook and advertise it in the header and the body."""
    if doctree is None or app.builder.format != "html":
        return
    source = Path(app.env.doc2path(pagename))
    if not _is_notebook_source(source):
        return
    relative = f"{pagename}.ipynb"
    target = Path(app.outdir, "_sources", *relative.split("/"))
    try:
        bibfiles = tuple(str(Path(app.srcdir, f)) for f in app.config.bibtex_bibfiles)
        write_notebook(source, target, _citations_of(bibfiles))
    except Exception as exc:  # a broken notebook must fail a -W build
        logger.warning(
            "could not convert %s to a notebook: %s", source, exc, location=pagename
        )
        return
    # sphinx-book-theme turns this into a ".ipynb" entry of its download menu.
    context["ipynb_source"] = relative
    url = posixpath.join(context["pathto"]("_sources", 1), relative)
    name = html.escape(posixpath.basename(relative))
    banner = (
        f'<div class="{BANNER_CLASS}">'
        f'<a class="reference download" href="{html.escape(url)}" download="{name}">'
        f"Download this chapter as a notebook (<code>{name}</code>)</a>"
        "<span> and run it in JupyterLab.</span>"
    )
    # on the course's hub, also "Open this chapter in the course hub"
    if pagename.startswith(HUB_CHAPTERS):
        banner += course_hub.link_html("chapter", pagename[len(HUB_CHAPTERS):], block=True)
    banner += "</div>"
    body = context.get("body", "")
    # Right under the chapter title when there is one, otherwise on top.
    end_of_title = body.find("</h1>")
    if end_of_title >= 0:
        end_of_title += len("</h1>")
        context["body"] = body[:end_of_title] + banner + body[end_of_title:]
    else:
        context["body"] = banner + body


def setup(app: Sphinx):
    # Run before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", add_notebook_download, priority=400)
    app.add_css_file("notebook_downloads.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
