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

The notebook numbers as the website does (book/_ext/chapter_numbers.py):
JupyterLab's MyST renderer would number each kind of result on its own,
"Definition 1" and "Proposition 1", and every display equation. So each
numbered result and exercise carries the website's number as its
``:enumerator:``, each labelled equation becomes a ``math`` directive with its
number, proofs and unlabelled equations are not numbered, and a reference to
another chapter, a figure or a page is written out as the website shows it
("Lemma 1.5", "Fig. 2.3"). Margin notes become notes in the text, since
JupyterLab draws a margin note over the paragraph beside it.
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
from chapter_numbers import DIRECTIVE, LABELLED_DISPLAY_END, book_numbering, chapter_counters, \
    number_markdown
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


@functools.lru_cache(maxsize=2)
def _numbering_of(root: Path):
    return book_numbering(root)


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


#: Numbering for the notebook: none of JupyterLab's own for unlabelled equations.
FRONTMATTER = "---\nnumbering:\n  equation: false\n---\n"
_ROLE = re.compile(r"\{(prf:ref|eq|numref|ref|doc)\}`([^`]*)`")
_DEFINED = re.compile(r"^[ \t]*:label:[ \t]*([\w-]+)|^[ \t]*\(([\w-]+)\)=[ \t]*$|"
                      r"^[ \t]*\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M)
_SIDE_NOTE = re.compile(r"^([ \t]*(?:`{3,}|:{3,}))\{(?:margin|sidebar)\}", re.M)


def _written_reference(role, body, docname, numbering, local):
    """The website's text for a reference the notebook cannot resolve, or None."""
    targets, titles = numbering
    explicit = re.match(r"^(.*?)\s*<([^<>]+)>$", body, re.S)
    text, label = (explicit.group(1).strip(), explicit.group(2).strip()) if explicit \
        else (None, body.strip())
    if role == "doc":
        doc = posixpath.normpath(posixpath.join(posixpath.dirname(docname), label))
        if text:
            return text
        if doc not in titles:
            raise KeyError(f"{{doc}}`{body}` names no page of the book")
        return titles[doc]
    if label in local and role != "numref":
        return None
    if text:
        return text
    if label not in targets:
        raise KeyError(f"{{{role}}}`{body}` names no numbered target of the book")
    return targets[label].text()


#: The anchors the Errata page links to: of no use in a student's notebook.
_INSTRUCTOR_TARGET = re.compile(r"^[ \t]*\(errata-[\w-]+\)=[ \t]*$")


def _drop_shadowing_targets(source):
    """Remove the ``(target)=`` lines that would take another's place: the
    Errata page's anchors, and targets before a labelled directive (JupyterLab's
    MyST gives a block the name of the first target before it instead of its
    own label, and references to the label then go nowhere)."""
    lines = source.split("\n")
    keep = []
    for i, line in enumerate(lines):
        if _INSTRUCTOR_TARGET.match(line):
            continue
        if re.match(r"^[ \t]*\([\w-]+\)=[ \t]*$", line):
            rest = [x for x in lines[i + 1:] if x.strip()]
            nxt = next((x for x in rest if not re.match(r"^[ \t]*\([\w-]+\)=[ \t]*$", x)), "")
            after = rest[rest.index(nxt) + 1:] if nxt in rest else []
            if DIRECTIVE.match(nxt) and after and re.match(r"^[ \t]*:[\w-]+:", after[0]) and \
                    any(re.match(r"^[ \t]*:label:", x) for x in after[:4]):
                continue
        keep.append(line)
    return "\n".join(keep)


def _number_cell(source, counters, docname, numbering, local):
    """One markdown cell as JupyterLab should show it."""
    source = _drop_shadowing_targets(source)
    source = _ROLE.sub(lambda m: _written_reference(m.group(1), m.group(2), docname,
                                                     numbering, local) or m.group(0), source)
    source = _SIDE_NOTE.sub(r"\1{note}", source)
    lines = source.split("\n")
    inserts = {}
    for i, kind, label, number in number_markdown(source, counters):
        if kind == "equation":
            indent = LABELLED_DISPLAY_END.match(lines[i]).group(1)
            opening = next(j for j in range(i - 1, -1, -1) if lines[j].strip() == "$$")
            lines[opening] = (f"{indent}:::{{math}}\n{indent}:label: {label}\n"
                              f"{indent}:enumerator: {number}")
            lines[i] = f"{indent}:::"
        else:
            inserts[i] = f"{DIRECTIVE.match(lines[i]).group(1)}:enumerator: {number}"
    for i, line in enumerate(lines):
        match = DIRECTIVE.match(line)
        if match and match.group(3) == "prf:proof":
            inserts[i] = f"{match.group(1)}:nonumber:"
    for i in sorted(inserts, reverse=True):
        lines.insert(i + 1, inserts[i])
    return "\n".join(lines)


def write_notebook(source: Path, target: Path, citations=None, numbering=None,
                   root: Path | None = None) -> None:
    """Convert one MyST-markdown chapter into an ``.ipynb`` file at ``target``.

    ``citations`` (from :func:`load_citations`) writes out the citation roles;
    ``numbering`` (from :func:`chapter_numbers.book_numbering` of the book at
    ``root``) numbers the notebook as the website does.
    """
    notebook = jupytext.read(source, fmt="md:myst")
    if numbering is not None:
        docname = source.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
        counters = chapter_counters(root, docname)
        text = source.read_text(encoding="utf-8")
        figures = {label for label, t in numbering[0].items() if t.kind == "figure"}
        local = {x for groups in _DEFINED.findall(text) for x in groups if x} - figures
        first = True
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            if counters is not None:
                cell.source = _number_cell(cell.source, counters, docname, numbering, local)
            if first:
                cell.source = FRONTMATTER + cell.source
                first = False
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
        root = Path(app.srcdir)
        write_notebook(source, target, _citations_of(bibfiles), _numbering_of(root), root)
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
