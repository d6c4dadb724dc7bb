"""The problem sets follow the chapters.

The Assignments page (``book/assignments.md``) has a table naming, for each
problem set, the chapters it needs; ``_toc.yml`` gives the chapters' order.
Read together they must agree: problem set k never needs a chapter that comes
after every chapter problem set k+1 needs, so that a student who reads the
book in order can do the sets in order. Sets that end on the same chapter are
ordered by the first chapter they need. The table, the sources in
``assignments/source/`` and the notebooks' own headings name each set alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "assignments.md"
SOURCES = ROOT / "assignments" / "source"
# The columns of the table, in any order (the page puts the download first,
# where a phone shows it without scrolling).
HEADER = {"set", "topic", "chapters", "download"}
DOC_ROLE = re.compile(r"\{doc\}`([^`<>]+)`")
DOWNLOAD = re.compile(r"\{download\}`[^`<]*<([^`>]+)>`")


@dataclass(frozen=True)
class Row:
    number: int
    chapters: tuple[str, ...]   # docnames from the book's top, e.g. book/chapters/rkhs
    downloads: tuple[str, ...]  # file names of the download links


def chapter_order(toc_text: str) -> list[str]:
    """Docnames of the numbered chapters, in the order of the table of contents."""
    toc = yaml.safe_load(toc_text)
    found = [entry["file"] for part in toc.get("parts", []) if part.get("numbered")
             for entry in part.get("chapters", [])]
    assert found, "_toc.yml: no numbered part with chapters"
    return found


def table_rows(page_text: str, page_dir: str = "book") -> list[Row]:
    """The rows of the table whose columns are set, topic, chapters and download."""
    tokens = MarkdownIt("commonmark").enable("table").parse(page_text)
    tables, cells, row, header = [], None, None, None
    for tok in tokens:
        if tok.type == "table_open":
            cells, header = [], None
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append(tok.content.strip())
        elif tok.type == "tr_close":
            if header is None:
                header = [c.lower() for c in row]
            else:
                cells.append(row)
            row = None
        elif tok.type == "table_close":
            tables.append((header, cells))
    matching = [(header, cells) for header, cells in tables
                if len(header) == len(HEADER) and set(header) == HEADER]
    assert len(matching) == 1, f"{PAGE.name}: expected one table with columns {sorted(HEADER)}"
    header, table = matching[0]
    rows = []
    for cells in table:
        cell = dict(zip(header, cells))
        assert cell["set"].isdigit(), f"{PAGE.name}: set {cell['set']!r} is not a number"
        chapters = tuple(f"{page_dir}/{doc}" for doc in DOC_ROLE.findall(cell["chapters"]))
        assert chapters, f"{PAGE.name}: set {cell['set']} names no chapter"
        downloads = tuple(Path(target).name for target in DOWNLOAD.findall(cell["download"]))
        rows.append(Row(int(cell["set"]), chapters, downloads))
    return rows


def order_violations(rows: list[Row], order: list[str]) -> list[str]:
    """Why the sets, taken in their numbers' order, do not follow the chapters."""
    position = {doc: k + 1 for k, doc in enumerate(order)}
    problems = [f"set {r.number} needs {doc}, which is not a numbered chapter"
                for r in rows for doc in r.chapters if doc not in position]
    if problems:
        return problems
    for r in rows:
        listed = [position[doc] for doc in r.chapters]
        if listed != sorted(listed):
            problems.append(f"set {r.number} lists its chapters out of order")

    def span(row):  # (last chapter, first chapter) the set needs
        places = [position[doc] for doc in row.chapters]
        return max(places), min(places)

    ranked = sorted(rows, key=lambda r: r.number)
    for a, b in zip(ranked, ranked[1:]):
        (last_a, first_a), (last_b, first_b) = span(a), span(b)
        if last_a > last_b:
            doc = max(a.chapters, key=position.get)
            problems.append(f"set {a.number} needs {doc} (chapter {last_a}), which "
                            f"comes after every chapter set {b.number} needs")
        elif last_a == last_b and first_a > first_b:
            problems.append(f"sets {a.number} and {b.number} end on the same chapter, "
                            f"but set {a.number} starts later (chapter {first_a} "
                            f"against {first_b})")
    return problems


def test_the_problem_sets_follow_the_chapters():
    rows = table_rows(PAGE.read_text(encoding="utf-8"))
    order = chapter_order((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    assert order_violations(rows, order) == []


def test_the_table_the_sources_and_the_headings_number_the_sets_alike():
    rows = table_rows(PAGE.read_text(encoding="utf-8"))
    assert [r.number for r in rows] == list(range(1, len(rows) + 1))
    assert sorted(p.name for p in SOURCES.iterdir() if p.is_dir()) == \
        sorted(f"ps{r.number}" for r in rows)
    for r in rows:
        name = f"ps{r.number}"
        assert r.downloads == (f"{name}.ipynb", f"{name}.zip"), r
        text = (SOURCES / name / f"{name}.md").read_text(encoding="utf-8")
        headings = re.findall(r"^# (.+)$", text, re.M)
        assert headings and headings[0].startswith(f"Problem set {r.number}: "), \
            (name, headings[:1])
        assert re.findall(r"\bps[0-9]+\b", text) and \
            set(re.findall(r"\bps[0-9]+\b", text)) == {name}, name


TWO_SETS = """
| set | topic | chapters | download |
| --- | --- | --- | --- |
| 1 | margins | {doc}`chapters/svm` | {download}`ps1.ipynb <g/ps1.ipynb>` |
| 2 | ridge | {doc}`chapters/regularisation` | {download}`ps2.ipynb <g/ps2.ipynb>` |
"""
CHAPTERS = ["book/chapters/regularisation", "book/chapters/rkhs", "book/chapters/svm"]


def test_a_set_needing_a_later_chapter_than_the_next_set_is_found():
    rows = table_rows(TWO_SETS)
    assert rows[0] == Row(1, ("book/chapters/svm",), ("ps1.ipynb",))
    assert order_violations(rows, CHAPTERS) == [
        "set 1 needs book/chapters/svm (chapter 3), which comes after every chapter "
        "set 2 needs"]
    # the same two sets are in order once the book puts the SVM first
    assert order_violations(rows, CHAPTERS[::-1]) == []


def test_sets_ending_on_one_chapter_are_ordered_by_their_first():
    both = TWO_SETS.replace("{doc}`chapters/regularisation`",
                            "{doc}`chapters/rkhs`, {doc}`chapters/svm`")
    assert order_violations(table_rows(both), CHAPTERS) == [
        "sets 1 and 2 end on the same chapter, but set 1 starts later "
        "(chapter 3 against 2)"]
    assert order_violations(table_rows(both), CHAPTERS[::-1]) == [
        "set 2 lists its chapters out of order"]
    unknown = TWO_SETS.replace("chapters/svm", "chapters/nowhere")
    assert order_violations(table_rows(unknown), CHAPTERS) == [
        "set 1 needs book/chapters/nowhere, which is not a numbered chapter"]
