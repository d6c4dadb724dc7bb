"""The book's text keeps its promises: one home per result, every correction listed.

These read the MyST sources directly (no build): the Errata page must link to
every "Correction to the notes" box and only to targets that exist, each of
the four results the chapters share is proved once, and the bibliography
labels entries the way the text cites them.
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


def correction_boxes(text):
    """Labels placed right before each 'Correction to the notes' box (None if unlabelled)."""
    labels = []
    for match in BOX.finditer(text):
        title = match.group(2)
        if "notes" not in title.lower() and "which theorem" not in title.lower():
            continue
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        target = TARGET.match(before)
        labels.append(target.group(1) if target else None)
    return labels


def test_every_correction_box_is_labelled_and_listed_in_the_errata():
    errata = (BOOK / "errata.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\{ref\}`[^`<]*<([\w-]+)>`", errata))
    boxes = {stem: correction_boxes(text) for stem, text in chapter_text().items()}
    unlabelled = [stem for stem, labels in boxes.items() if None in labels]
    assert not unlabelled, f"correction boxes without a target label in {unlabelled}"
    missing = {label for labels in boxes.values() for label in labels} - linked
    assert not missing, f"correction boxes not listed on the Errata page: {sorted(missing)}"


MAX_BOX_LINES = 8


def test_correction_boxes_stay_short():
    """A box says what the notes got wrong in a few lines; the explanation
    belongs to the text around it."""
    long_boxes = []
    for stem, text in chapter_text().items():
        for match in BOX.finditer(text):
            title = match.group(2).lower()
            if "notes" not in title and "which theorem" not in title:
                continue
            fence = match.group(1)
            body = text[match.end():].split(f"\n{fence}\n", 1)[0].splitlines()
            lines = [line for line in body if line.strip() and not line.startswith(":class:")]
            if len(lines) > MAX_BOX_LINES:
                long_boxes.append(f"{stem}: {match.group(2)!r} has {len(lines)} lines "
                                  f"({' '.join(lines[:1])[:50]}...)")
    assert not long_boxes, "\n".join(long_boxes)


def test_errata_links_point_to_existing_targets():
    errata = (BOOK / "errata.md").read_text(encoding="utf-8")
    targets = {t for text in chapter_text().values() for t in TARGET.findall(text)}
    proofs = {m for text in chapter_text().values()
              for m in re.findall(r"^:label:\s*([\w-]+)", text, flags=re.M)}
    refs = re.findall(r"\{ref\}`[^`<]*<([\w-]+)>`", errata)
    prf_refs = re.findall(r"\{prf:ref\}`([\w-]+)`", errata)
    assert len(refs) >= 30, "the Errata page lists too few corrections"
    assert not set(refs) - targets, sorted(set(refs) - targets)
    assert not set(prf_refs) - proofs, sorted(set(prf_refs) - proofs)


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
