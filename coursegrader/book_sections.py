"""The sections of the book that the problem sets' parts exercise: where each is, how it is named.

A part names the sections it exercises by their labels
(:attr:`coursecheck.parts.Part.sections`): the MyST targets ``(label)=``
written just above a heading of a chapter (``book/chapters/*.md``), which
Sphinx makes the anchor of that section on the chapter's page.  This module
reads the book's table of contents (``_toc.yml``) and its chapters, once, and
gives for each such label a :class:`Section`: the page it is on, the chapter's
number and title, the section's own title.  The feedback on a failed part
links to ``<book_url>/<page>.html#<label>`` (:func:`link`), where ``book_url``
is the published site (:attr:`coursegrader.settings.CourseSettings.book_url`);
with none set it names the section in words (:func:`Section.describe`).

The book is the repository's, next to this package (the grader runs from the
course's repository, as the course folder ``assignments/`` does).
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import quote

__all__ = ["Section", "BOOK_ROOT", "book_sections", "section", "link", "unresolved"]

#: The repository: ``_toc.yml`` and the book's sources.
BOOK_ROOT = Path(__file__).resolve().parents[1]

_TARGET = re.compile(r"^\(([^()\s]+)\)=\s*$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})")


@dataclass(frozen=True)
class Section:
    """A labelled section of the book.

    ``page``: the chapter's document name (``book/chapters/svm``), whose HTML
    page is ``page + ".html"``; ``chapter``: its number in the book, or None
    for an unnumbered page; ``chapter_title`` and ``title``: the headings.
    """

    label: str
    page: str
    chapter: Optional[int]
    chapter_title: str
    title: str

    def describe(self):
        """The section in words, as a student finds it in the book or its PDF."""
        where = (f"Chapter {self.chapter}, {self.chapter_title}" if self.chapter
                 else self.chapter_title)
        return where if self.title == self.chapter_title else f"{where}: {self.title}"


def _toc_pages(root):
    """``(docname, chapter number or None)`` of every page of ``root/_toc.yml``, in order."""
    import yaml
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    pages = [(toc["root"], None)]
    for part in toc.get("parts", []):
        numbered = bool(part.get("numbered"))
        for i, chapter in enumerate(part.get("chapters", []), start=1):
            pages.append((chapter["file"], i if numbered else None))
    return pages


def _sections_of(text, page, chapter):
    """The labelled sections of one page's MyST source (code and directives skipped)."""
    found, fence, pending, chapter_title = [], None, [], ""
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line[len(opened.group(1)):].strip():
                fence = None
            continue
        if opened:
            fence, pending = opened.group(1), []
            continue
        target, heading = _TARGET.match(line), _HEADING.match(line)
        if target:
            pending.append(target.group(1))
        elif heading:
            title = heading.group(2)
            if len(heading.group(1)) == 1 and not chapter_title:
                chapter_title = title
            found += [(label, title) for label in pending]
            pending = []
        elif line.strip():
            pending = []   # a label above a paragraph marks no section
    return [Section(label, page, chapter, chapter_title or title, title)
            for label, title in found]


def book_sections(root=BOOK_ROOT):
    """``{label: Section}`` for every labelled section of the book under ``root``
    (read once per process)."""
    return dict(_read(Path(root).resolve()))


@functools.cache
def _read(root):
    if not (root / "_toc.yml").is_file():
        raise ValueError(f"book: no _toc.yml in {root} (the grader reads the book's "
                         "sections from the course's repository)")
    sections = {}
    for page, chapter in _toc_pages(root):
        source = root / f"{page}.md"
        if source.is_file():
            for s in _sections_of(source.read_text(encoding="utf-8"), page, chapter):
                sections.setdefault(s.label, s)
    return sections


def section(label, root=BOOK_ROOT):
    """The :class:`Section` labelled ``label``; ValueError when the book has none."""
    sections = book_sections(root)
    if label not in sections:
        raise ValueError(f"section {label!r}: no section of the book is labelled so "
                         f"(write '({label})=' above its heading in book/chapters)")
    return sections[label]


def link(sec, book_url):
    """The address of section ``sec`` on the site published at ``book_url``, or None
    when no address is set."""
    if not book_url:
        return None
    return f"{book_url.rstrip('/')}/{quote(sec.page)}.html#{quote(sec.label)}"


def unresolved(parts, root=BOOK_ROOT):
    """``[(part id, label)]`` of the sections the parts ``parts`` ({id: Part}) name
    that the book does not have."""
    sections = book_sections(root)
    return [(pid, label) for pid, part in parts.items() for label in part.sections
            if label not in sections]
