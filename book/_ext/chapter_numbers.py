"""The numbers the website gives each chapter's results, equations, exercises and figures.

The website numbers within each chapter of the numbered part of ``_toc.yml``:
the results that ``prf_realtyp_to_countertyp`` in ``_config.yml`` sends to one
counter (Definition 1.1, Proposition 1.2, ...), every other kind of result on a
counter of its own, proofs not at all; the exercises; the labelled display
equations, (1.7); and the figures, which are code cells with a caption.
:func:`book_numbering` reads the same sources Sphinx does and works the numbers
out in the same order, so that a chapter downloaded as a notebook can show
them (book/_ext/notebook_downloads.py); tests/book/test_book.py checks them against
the built pages.

:func:`number_markdown` numbers the blocks of one piece of MyST Markdown, in
order, with counters that the caller carries from one notebook cell to the next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import yaml

#: An opening line of a directive: indentation, fence, name, argument.
DIRECTIVE = re.compile(r"^([ \t]*)(`{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*)$")
OPTION = re.compile(r"^[ \t]*:([\w-]+):[ \t]*(.*)$")
#: The closing line of a labelled display equation, ``$$ (label)``.
LABELLED_DISPLAY_END = re.compile(r"^([ \t]*)\$\$[ \t]*\(([\w-]+)\)[ \t]*$")
TARGET = re.compile(r"^[ \t]*\(([\w-]+)\)=[ \t]*$")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*$")


@dataclass(frozen=True)
class Numbered:
    """One numbered (or titled) target of the book."""

    doc: str        # docname, e.g. "book/chapters/kernel_trick"
    kind: str       # "proposition", ..., "exercise", "equation", "figure", "section"
    number: str     # "1.4"; for a section its title

    def text(self) -> str:
        """How the website writes a reference to it."""
        if self.kind == "equation":
            return f"({self.number})"
        if self.kind == "figure":
            return f"Fig. {self.number}"
        if self.kind == "section":
            return self.number
        return f"{self.kind.capitalize()} {self.number}"


@dataclass
class Counters:
    """The counters of one chapter, carried from block to block in order."""

    chapter: int
    shared: frozenset[str]
    counts: dict[str, int] = field(default_factory=dict)

    def next(self, kind: str) -> str:
        key = "theorem" if kind in self.shared else kind
        self.counts[key] = self.counts.get(key, 0) + 1
        return f"{self.chapter}.{self.counts[key]}"


def _directive_blocks(lines):
    """(index of the opening line, indent, name, options) of each directive."""
    for i, line in enumerate(lines):
        match = DIRECTIVE.match(line)
        if not match:
            continue
        options = {}
        for option_line in lines[i + 1:]:
            opt = OPTION.match(option_line)
            if not opt:
                break
            options[opt.group(1)] = opt.group(2).strip()
        yield i, match.group(1), match.group(3), options


def number_markdown(text: str, counters: Counters):
    """Number the blocks of ``text`` in order: (line, kind, label, number) for
    each numbered result, exercise and labelled display equation, where line is
    the index of its opening line (of the closing ``$$ (label)`` for an
    equation)."""
    numbered = []
    lines = text.split("\n")
    events = []
    for i, _, name, options in _directive_blocks(lines):
        if name.startswith("prf:") and name != "prf:proof" and name != "prf:ref":
            events.append((i, name[4:], options))
        elif name == "exercise":
            events.append((i, "exercise", options))
    for i, line in enumerate(lines):
        match = LABELLED_DISPLAY_END.match(line)
        if match:
            events.append((i, "equation", {"label": match.group(2)}))
    for i, kind, options in sorted(events, key=lambda e: e[0]):
        if "nonumber" in options:
            continue
        numbered.append((i, kind, options.get("label"), counters.next(kind)))
    return numbered


def toc_chapters(root: Path) -> list[str]:
    """Docnames of the numbered part of ``_toc.yml``, in order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    return [re.sub(r"\.(md|ipynb)$", "", c["file"]) for part in toc["parts"]
            if part.get("numbered") for c in part["chapters"]]


def shared_kinds(root: Path) -> frozenset[str]:
    """The kinds of result numbered on the theorem counter (``_config.yml``)."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    mapping = config["sphinx"]["config"].get("prf_realtyp_to_countertyp", {})
    return frozenset(k for k, v in mapping.items() if v == "theorem") | {"theorem"}


def chapter_counters(root: Path, docname: str) -> Counters | None:
    """Fresh counters for ``docname``, or None if it is not a numbered chapter."""
    chapters = toc_chapters(root)
    if docname not in chapters:
        return None
    return Counters(chapter=chapters.index(docname) + 1, shared=shared_kinds(root))


def book_numbering(root: Path) -> tuple[dict[str, Numbered], dict[str, str]]:
    """(label -> Numbered, docname -> title) for every chapter of the book.

    Labels of sections are given their heading as "number"; figures are the
    code cells whose ``mystnb`` metadata has a figure with a caption.
    """
    targets: dict[str, Numbered] = {}
    titles: dict[str, str] = {}
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    docs = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    for doc in (re.sub(r"\.(md|ipynb)$", "", d) for d in docs):
        path = root / f"{doc}.md"
        text = path.read_text(encoding="utf-8")
        heading = re.search(r"^# (.+)$", text, flags=re.M)
        titles[doc] = heading.group(1).strip() if heading else doc
        lines = text.split("\n")
        for i, line in enumerate(lines):
            target = TARGET.match(line)
            if not target:
                continue
            following = next((x for x in lines[i + 1:] if not TARGET.match(x)), "")
            section = HEADING.match(following)
            if section:
                targets[target.group(1)] = Numbered(doc, "section", section.group(1))
        counters = chapter_counters(root, doc)
        if counters is None:
            continue
        notebook = jupytext.read(path, fmt="md:myst")
        figures = 0
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                for _, kind, label, number in number_markdown(cell.source, counters):
                    if label:
                        targets[label] = Numbered(doc, kind, number)
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            if cell.cell_type == "code" and figure.get("caption"):
                figures += 1
                if figure.get("name"):
                    targets[figure["name"]] = Numbered(doc, "figure",
                                                       f"{counters.chapter}.{figures}")
    return targets, titles
