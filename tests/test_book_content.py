"""The book's text keeps its promises: one home per result, every correction listed.

These read the MyST sources directly (no build): every departure from the
notes is a one-line margin note in its chapter, linked both ways with one
entry of the Errata page, whose links all point to targets that exist; all
numbered results share one counter; each of the four results the chapters
share is proved once; and the bibliography labels entries the way the text
cites them.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import yaml
from pybtex.database import Entry, Person

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted((BOOK / "chapters").glob("*.md"))

TARGET = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
BOX = re.compile(r"^(`{3,})\{admonition\}\s*(.*)$", re.M)
BLOCK = re.compile(r"^`{3,}\{prf:(\w+)\}\s*(.*)$", re.M)


def chapter_text():
    return {path.stem: path.read_text(encoding="utf-8") for path in CHAPTERS}


MARGIN = re.compile(r"^([ \t]*)\(errata-([\w-]+)\)=\n\1```\{margin\}\n\1(.*)\n\1```[ \t]*$",
                    re.M)
PLACE = re.compile(r"^[ \t]*\((errata-[\w-]+)\)=[ \t]*$", re.M)
ERRATUM = re.compile(r"^\((erratum-[\w-]+)\)=\n### (.+)$", re.M)
MAX_MARGIN_CHARACTERS = 160


def errata_entries():
    """Anchor -> text of each entry of the Errata page."""
    errata = (BOOK / "errata.md").read_text(encoding="utf-8")
    matches = list(ERRATUM.finditer(errata))
    ends = [m.start() for m in matches[1:]] + [len(errata)]
    return {m.group(1): errata[m.end():end].split("\n## ", 1)[0]
            for m, end in zip(matches, ends)}


def test_no_correction_box_interrupts_a_chapter():
    boxes = [f"{stem}: {m.group(2)}" for stem, text in chapter_text().items()
             for m in BOX.finditer(text)
             if "notes" in m.group(2).lower() or "which theorem" in m.group(2).lower()]
    assert not boxes, boxes


def test_every_correction_is_a_one_line_margin_note_linking_to_its_erratum():
    entries = errata_entries()
    for stem, text in chapter_text().items():
        places = set(PLACE.findall(text))
        notes = {f"errata-{label}": line for _, label, line in MARGIN.findall(text)}
        assert places == set(notes), f"{stem}: places without a margin note: " \
                                     f"{sorted(places - set(notes))}"
        for place, line in notes.items():
            erratum = place.replace("errata-", "erratum-", 1)
            assert line.rstrip().endswith(f"<{erratum}>`."), f"{stem}: {place} does not link " \
                                                            f"to {erratum}"
            assert len(line) <= MAX_MARGIN_CHARACTERS, f"{stem}: {place} is too long"
            assert erratum in entries, f"{stem}: {place} links to a missing erratum"


def test_each_erratum_has_an_anchor_and_links_back_to_its_place():
    places = {p for text in chapter_text().values() for p in PLACE.findall(text)}
    entries = errata_entries()
    assert len(entries) >= 40, "the Errata page lists too few corrections"
    for anchor, body in entries.items():
        back = re.findall(r"\{ref\}`[^`<]*<(errata-[\w-]+)>`", body)
        assert back == [anchor.replace("erratum-", "errata-", 1)], (anchor, back)
    assert {a.replace("erratum-", "errata-", 1) for a in entries} == places


def test_errata_links_point_to_existing_targets():
    errata = (BOOK / "errata.md").read_text(encoding="utf-8")
    targets = {t for text in chapter_text().values() for t in PLACE.findall(text)}
    pages = [BOOK / "intro.md", *CHAPTERS]
    targets |= {t for page in pages for t in TARGET.findall(page.read_text(encoding="utf-8"))}
    targets |= set(errata_entries())
    proofs = {m for text in chapter_text().values()
              for m in re.findall(r"^:label:\s*([\w-]+)", text, flags=re.M)}
    refs = re.findall(r"\{ref\}`[^`<]*<([\w-]+)>`", errata)
    refs += re.findall(r"\{ref\}`([\w-]+)`", errata)
    prf_refs = re.findall(r"\{prf:ref\}`([\w-]+)`", errata)
    assert not set(refs) - targets, sorted(set(refs) - targets)
    assert not set(prf_refs) - proofs, sorted(set(prf_refs) - proofs)


def test_all_numbered_results_share_one_counter():
    """Definition 1.1 is followed by Proposition 1.2, never by a second
    "1.1": every kind of result the chapters number counts on one counter."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    mapping = config["sphinx"]["config"].get("prf_realtyp_to_countertyp", {})
    kinds = {kind for text in chapter_text().values() for kind, _ in BLOCK.findall(text)}
    kinds -= {"proof"}
    counters = {mapping.get(kind, kind) for kind in kinds}
    assert len(counters) == 1, f"results numbered on several counters: {counters}"


EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[ \t]*(.*)$", re.M)
LEVELS = ("basic", "intermediate", "challenging")


def exercise_level(title):
    """The difficulty level that ends an exercise title ("basic" or "Topic, basic").

    Raises a ValueError naming the title when it carries no level or more than one.
    """
    words = re.findall(r"[a-z]+", title.lower())
    found = [level for level in LEVELS if level in words]
    if len(found) != 1:
        raise ValueError(f"exercise title {title!r} names {len(found)} of the levels "
                         f"{', '.join(LEVELS)}; it must name exactly one")
    level = found[0]
    if title != level and not title.endswith(f", {level}"):
        raise ValueError(f"exercise title {title!r} must be the level or end in ', {level}'")
    return level


@pytest.mark.parametrize("title, level", [
    ("basic", "basic"),
    ("Counting monomials, challenging", "challenging"),
])
def test_exercise_level_reads_the_end_of_the_title(title, level):
    assert exercise_level(title) == level


@pytest.mark.parametrize("title", [
    "", "Counting monomials", "basic, challenging", "intermediate proof, basic",
    "Basic", "basic counting",
])
def test_exercise_level_rejects_a_title_without_exactly_one_level(title):
    with pytest.raises(ValueError, match="exercise title"):
        exercise_level(title)


def test_every_exercise_carries_exactly_one_difficulty_level():
    counts = dict.fromkeys(LEVELS, 0)
    problems = []
    for stem, text in chapter_text().items():
        for match in EXERCISE.finditer(text):
            try:
                counts[exercise_level(match.group(2).strip())] += 1
            except ValueError as exc:
                problems.append(f"{stem}: {exc}")
    assert not problems, "\n".join(problems)
    # the levels are all in use, and the introduction says what each one means
    assert all(counts.values()), counts
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    assert all(f"*{level}*" in intro for level in LEVELS)


def test_errata_page_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part.get("chapters", [])]
    assert "book/errata" in files
    assert (BOOK / "errata.md").read_text(encoding="utf-8").startswith("# Errata\n")


@pytest.mark.parametrize("title", [
    "Characterisation of kernels", "Push-through identity", "Closure rules", "Representer theorem",
])
def test_each_shared_result_is_stated_as_a_result_once(title):
    homes = [(stem, kind) for stem, text in chapter_text().items()
             for kind, heading in BLOCK.findall(text) if heading.strip() == title]
    assert len(homes) == 1, f"{title!r} is stated as a result in {homes}"


PSD_WORDS = re.compile(r"positive (semi-)?definite|\bPSD\b", re.I)
DEFINITION = re.compile(r"^(`{3,})\{prf:definition\}[ \t]*(.*?)\n(.*?)^\1[ \t]*$", re.M | re.S)


def _defines_psd(title, body):
    """A definition block defines the notion when its title or a term it
    introduces (in italics) speaks of positive (semi-)definiteness."""
    terms = re.findall(r"(?<![*\w])\*([^*\n]+)\*(?![*\w])", body)
    return any(PSD_WORDS.search(s) for s in [title, *terms])


def test_the_psd_kernel_definition_has_one_home():
    """Positive semi-definite kernels are defined once, in the first chapter
    that needs them; every later chapter that speaks of them refers there."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    part = next(part for part in toc["parts"] if part["caption"] == "Chapters")
    order = [Path(c["file"]).name for c in part["chapters"]]
    texts = chapter_text()
    homes = [(stem, m.group(3)) for stem in order for m in DEFINITION.finditer(texts[stem])
             if _defines_psd(m.group(2), m.group(3))]
    assert len(homes) == 1, f"the PSD kernel is defined in {[stem for stem, _ in homes]}"
    home, body = homes[0]
    users = [stem for stem in order if PSD_WORDS.search(texts[stem])]
    assert users[0] == home, f"defined in {home}, but first needed in {users[0]}"
    label = re.match(r":label:\s*([\w-]+)", body).group(1)
    unreferenced = [stem for stem in users[1:] if f"{{prf:ref}}`{label}`" not in texts[stem]]
    assert not unreferenced, f"chapters that use PSD kernels without citing {label}: {unreferenced}"


def test_chapters_are_numbered_as_the_introduction_says():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    chapters = next(part for part in toc["parts"] if part["caption"] == "Chapters")
    assert chapters.get("numbered") is True
    assert "numbered within each chapter" in (BOOK / "intro.md").read_text(encoding="utf-8")


def _labels_module():
    spec = importlib.util.spec_from_file_location(
        "bibliography_labels", BOOK / "_ext" / "bibliography_labels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("authors, label", [
    (["Aronszajn, Nachman"], "Aronszajn, 1950"),
    (["Sch{\\\"o}lkopf, Bernhard", "Smola, Alexander J."], "Schölkopf and Smola, 1950"),
    (["Rahimi, Ali", "Recht, Benjamin", "Doe, Jane"], "Rahimi et al., 1950"),
])
def test_bibliography_labels_read_like_author_year_citations(authors, label):
    entry = Entry("article", fields={"year": "1950"},
                  persons={"author": [Person(a) for a in authors]})
    assert _labels_module().author_year_label(entry) == label


def test_bibliography_label_needs_an_author():
    entry = Entry("misc", fields={"year": "2000"})
    entry.key = "anonymous"
    with pytest.raises(ValueError, match="anonymous"):
        _labels_module().author_year_label(entry)
