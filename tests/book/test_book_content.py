"""The book's text keeps its promises: one home per result, every correction listed.

These read the MyST sources directly (no build): every departure from the
notes is a one-line margin note in its chapter, linked both ways with one
entry of the Errata page, whose links all point to targets that exist; all
numbered results share one counter; each of the four results the chapters
share is proved once; no two exercises work out the same feature map; and the
bibliography labels entries the way the text cites them.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import yaml
from pybtex.database import Entry, Person

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CHAPTERS = sorted((BOOK / "chapters").glob("*.md"))

TARGET = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
BOX = re.compile(r"^(`{3,})\{admonition\}\s*(.*)$", re.M)
BLOCK = re.compile(r"^`{3,}\{prf:(\w+)\}\s*(.*)$", re.M)


def chapter_text():
    return {path.stem: path.read_text(encoding="utf-8") for path in CHAPTERS}


PLACE = re.compile(r"^[ \t]*\((errata-[\w-]+)\)=[ \t]*$", re.M)
ERRATUM = re.compile(r"^\((erratum-[\w-]+)\)=\n### (.+)$", re.M)
GUIDE_LINE = re.compile(r"^- \{ref\}`[^`<]+<(errata-[\w-]+)>`: (.+)\n  \{ref\}`Erratum <(erratum-[\w-]+)>`\.$",
                        re.M)
MAX_GUIDE_SUMMARY = 160
# A chapter speaks to its reader, who does not have the lecture notes.
NOTES = re.compile(r"\bthe notes\b|\bnotes'|\blecture notes\b|\{margin\}", re.I)


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


def test_chapters_speak_to_the_student_alone():
    """No chapter mentions the lecture notes or carries a margin note: the
    departures from the notes are the instructor's business (the guide and the
    Errata page), and the chapters state the correct version."""
    found = [f"{stem}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for stem, text in chapter_text().items() for m in NOTES.finditer(text)]
    assert not found, found


def test_the_guide_lists_every_departure_once_with_its_place_and_erratum():
    """Each erratum has an anchor in a chapter, and the instructor's guide has
    exactly one line for it: a link to that place, a one-line summary and a
    link to the erratum."""
    entries = errata_entries()
    guide = (BOOK / "instructors.md").read_text(encoding="utf-8")
    lines = GUIDE_LINE.findall(guide)
    places = [place for place, _, _ in lines]
    assert len(places) == len(set(places)), "a departure is listed twice in the guide"
    for place, summary, erratum in lines:
        assert erratum == place.replace("errata-", "erratum-", 1), (place, erratum)
        assert erratum in entries, f"the guide links to a missing erratum {erratum}"
        assert len(summary) <= MAX_GUIDE_SUMMARY, f"{place}: the summary is not one line"
    assert {e.replace("erratum-", "errata-", 1) for e in entries} == set(places)
    chapter_places = {p for text in chapter_text().values() for p in PLACE.findall(text)}
    assert chapter_places == set(places)


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
    pages = [BOOK / "intro.md", BOOK / "notation.md", *CHAPTERS]
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


# ---------------------------------------------------------------------------
# The order of the chapters: results before their use, each derived once.

CODE_CELL = re.compile(r"^(`{3,}|:{3,})\{code-cell\}.*?^\1[ \t]*$", re.M | re.S)
DISPLAY = re.compile(r"^\$\$[ \t]*\n(.*?)^\$\$", re.M | re.S)
REFERENCE = re.compile(r"\{(prf:ref|ref|eq|numref|doc)\}`([^`]+)`")
LABEL_PATTERNS = (
    re.compile(r"^[ \t]*\(([\w-]+)\)=[ \t]*$", re.M),       # section and place targets
    re.compile(r"^[ \t]*:label:[ \t]*([\w-]+)", re.M),        # results, exercises
    re.compile(r"^\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M),     # numbered equations
    re.compile(r"^[ \t]*name:[ \t]*([\w-]+)[ \t]*$", re.M),   # figures
)


def chapter_order():
    """Chapter stems in the order of the table of contents."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    part = next(part for part in toc["parts"] if part["caption"] == "Chapters")
    return [Path(c["file"]).name for c in part["chapters"]]


def prose(text):
    """The Markdown of a chapter without its code cells."""
    return CODE_CELL.sub("", text)


def paragraphs(text):
    return [p for p in re.split(r"\n[ \t]*\n", prose(text)) if p.strip()]


def label_homes():
    """Label -> chapter stem that defines it."""
    homes = {}
    for stem, text in chapter_text().items():
        for pattern in LABEL_PATTERNS:
            for label in pattern.findall(text):
                homes[label] = stem
    return homes


def references(text):
    """(role, target) of every cross-reference, with {ref}`text <target>` resolved."""
    found = []
    for role, body in REFERENCE.findall(text):
        target = re.sub(r"^.*<([^>]+)>$", r"\1", body, flags=re.S).strip()
        if role == "doc":
            target = Path(target).name
        found.append((role, target))
    return found


def referenced_chapters(text, homes):
    """Chapters a piece of text refers to, by a label defined there or by {doc}."""
    chapters = set()
    for role, target in references(text):
        if role == "doc":
            chapters.add(target)
        elif target in homes:
            chapters.add(homes[target])
    return chapters


def reading_guide_rows():
    """(source chapter, targets named in the row) for each row of the tables in
    the introduction's reading guide, "Results used before they are proved"."""
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    start = intro.index("(intro-reading-guide)=")
    end = intro.index("\n## ", start)
    rows = []
    for line in intro[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2:
            continue
        sources = [Path(t).name for role, t in references(cells[0]) if role == "doc"]
        targets = {t for role, t in references(" ".join(cells[1:]))}
        targets |= {t for role, t in references(" ".join(cells[1:])) if role == "doc"}
        rows.extend((source, targets) for source in sources)
    return rows


def forward_references():
    """(source chapter, target, target chapter) for every reference from a chapter
    to a label or page of a chapter that comes later in the table of contents."""
    order = chapter_order()
    homes = label_homes()
    texts = chapter_text()
    found = set()
    for stem in order:
        for role, target in references(prose(texts[stem])):
            home = target if role == "doc" else homes.get(target)
            if home in order and order.index(home) > order.index(stem):
                found.add((stem, target, home))
    return found


def test_reading_order_helpers_find_labels_and_forward_references():
    text = "(sec-a)=\n## A\n\n$$\nx\n$$ (eq-a)\n\n```{prf:theorem} T\n:label: thm-a\n```\n"
    assert {p.findall(text)[0] for p in LABEL_PATTERNS[:3]} == {"sec-a", "thm-a", "eq-a"}
    assert references("see {ref}`the proof <sec-a>` and {doc}`../notation`") == [
        ("ref", "sec-a"), ("doc", "notation")]
    assert prose("a\n```{code-cell} ipython3\n{ref}`x`\n```\nb") == "a\n\nb"


def test_no_chapter_refers_ahead_except_where_the_reading_guide_says_so():
    """A reference to a later chapter is allowed only when the introduction's
    reading guide lists it (its chapter and what it points to), and every row
    of the guide is such a reference, so that the guide cannot go stale."""
    rows = reading_guide_rows()
    assert rows, "the reading guide has no table"
    forward = forward_references()
    unlisted = sorted(f"{stem} -> {target} (in {home})" for stem, target, home in forward
                      if not any(stem == source and target in targets
                                 for source, targets in rows))
    assert not unlisted, "forward references missing from the reading guide: " \
                         f"{unlisted}"
    stale = sorted(f"{source}: {sorted(targets)}" for source, targets in rows
                   if not any(stem == source and target in targets
                              for stem, target, _ in forward))
    assert not stale, f"reading guide rows that no chapter needs: {stale}"


def test_chapter_numbers_in_the_text_match_the_table_of_contents():
    """Where a chapter says "chapter N" next to a cross-reference, chapter N is
    the chapter the reference leads to (the numbers follow _toc.yml)."""
    order = chapter_order()
    homes = label_homes()
    texts = chapter_text()
    wrong = []
    mention = re.compile(r"(?<!`, )\b[Cc]hapter (\d)\b(?!\d)")
    for stem in order:
        for paragraph in paragraphs(texts[stem]):
            # chapters of cited books ("its chapter 9") are not this book's
            numbers = {int(n) for n in mention.findall(paragraph)
                       if int(n) <= len(order)}
            if not numbers:
                continue
            allowed = {order.index(c) + 1 for c in referenced_chapters(paragraph, homes)
                       if c in order}
            allowed.add(order.index(stem) + 1)
            for number in sorted(numbers - allowed):
                wrong.append(f"{stem}: 'chapter {number}' in: {paragraph[:90]!r}")
    assert not wrong, "\n".join(wrong)


def test_each_forward_reference_says_where_the_result_is_proved():
    """A result used ahead of its chapter is announced as such where it is used:
    the paragraph names the chapter that proves it."""
    order = chapter_order()
    homes = label_homes()
    texts = chapter_text()
    silent = []
    for stem in order:
        for paragraph in paragraphs(texts[stem]):
            for role, target in references(paragraph):
                home = homes.get(target)
                if role == "doc" or home not in order:
                    continue
                number = order.index(home) + 1
                if number > order.index(stem) + 1 and \
                        not re.search(rf"\b[Cc]hapter {number}\b", paragraph):
                    silent.append(f"{stem} -> {target}: no 'chapter {number}' nearby")
    assert not silent, silent


# Each result shared by several chapters: the chapter that derives it, and what
# a derivation of it looks like in a displayed equation or in the prose. Any
# other chapter may show the result only right after a paragraph that refers to
# the home chapter, and every chapter listed as a user refers to the home label.
GAUSSIAN_FACTORS = (re.compile(r"\\\|x\\\|\^2|\\lVert x\s*\\rVert\^2|x\^\\top x(?!')"),
                    re.compile(r"x\^\\top\s*(?:x'|y|z)"))
SHARED_RESULTS = {
    "multinomial feature map": dict(
        home="kernel_trick", label="kt-prop-multinomial",
        display=re.compile(r"j_1!\s*\\cdots\s*j_d!|\\binom\{[mpr]\}\{\\mathbf j\}"),
        words=re.compile(r"multinomial theorem", re.I),
        users=["bases_and_kernels", "regularisation", "rkhs", "svm"]),
    "Gaussian kernel as a series of polynomial kernels": dict(
        home="kernel_trick", label="kt-gaussian-series",
        display=None, words=None,
        users=["regularisation", "rkhs", "svm"]),
    "kernel ridge regression": dict(
        home="kernel_trick", label="kt-ridge-dual",
        display=re.compile(r"\+\s*n?\\lambda\s*I_\{?n\}?\s*(?:\\[Bb]ig[rg]?)?\)\^\{-1\}"),
        words=None,
        users=["bases_and_kernels", "regularisation", "rkhs", "svm"]),
    "Mercer's expansion of a kernel": dict(
        home="rkhs", label="rkhs-thm-mercer",
        display=re.compile(r"\\mu_j\s*(?:\\,)?\s*e_j\(x\)"),
        words=None,
        users=["svm"]),
    "XOR problem": dict(
        home="regularisation", label="reg-xor",
        display=None, words=re.compile(r"\bXOR\b|chessboard", re.I),
        users=["rkhs"]),
}


def _gaussian_factorisation(block):
    return all(p.search(block) for p in GAUSSIAN_FACTORS)


def _shows(result, block):
    if result["display"] is None:
        return result["label"] == "kt-gaussian-series" and _gaussian_factorisation(block)
    return bool(result["display"].search(block))


@pytest.mark.parametrize("name", sorted(SHARED_RESULTS))
def test_each_shared_result_is_derived_once_and_recalled_elsewhere(name):
    result = SHARED_RESULTS[name]
    order = chapter_order()
    homes = label_homes()
    texts = chapter_text()
    home = result["home"]
    assert homes.get(result["label"]) == home, f"{result['label']} is not in {home}"
    problems = []
    for stem in order:
        pieces = paragraphs(texts[stem])
        for i, piece in enumerate(pieces):
            shown = [b for b in DISPLAY.findall(piece + "\n") if _shows(result, b)]
            named = result["words"] is not None and result["words"].search(piece)
            if stem == home or not (shown or named):
                continue
            context = " ".join(pieces[max(i - 1, 0):i + 1])
            if home not in referenced_chapters(context, homes):
                problems.append(f"{stem} derives it again: {piece.strip()[:80]!r}")
    # the home chapter really derives it, before any chapter that uses it
    home_text = prose(texts[home])
    derived = result["words"].search(home_text) if result["words"] else False
    derived = derived or any(_shows(result, b) for b in DISPLAY.findall(home_text))
    assert derived, f"{home} does not derive the {name}"
    for user in result["users"]:
        assert order.index(user) > order.index(home), f"{user} comes before {home}"
        if f"`{result['label']}`" not in texts[user]:
            problems.append(f"{user} does not refer to {result['label']}")
    assert not problems, "\n".join(problems)


def test_the_derivation_checks_would_notice_a_second_derivation():
    """The signatures recognise the forms in which these results were derived."""
    factorised = (r"e^{-\beta\|x - x'\|^2} = e^{-\beta\|x\|^2}\; e^{2\beta\, x^\top x'}"
                  r"\; e^{-\beta\|x'\|^2}")
    assert _gaussian_factorisation(factorised)
    assert not _gaussian_factorisation(r"K(x, z) = \exp(-\|x - z\|^2 / 2\sigma^2)")
    multinomial = SHARED_RESULTS["multinomial feature map"]["display"]
    assert multinomial.search(r"\phi_{\mathbf j}(x) = \binom{m}{\mathbf j}^{1/2} x^{\mathbf j}")
    ridge = SHARED_RESULTS["kernel ridge regression"]["display"]
    assert ridge.search(r"\hat\alpha = (\mathbf K + n\lambda I_n)^{-1}y")
    assert ridge.search(r"X^\top\big(XX^\top + \lambda I_n\big)^{-1}y")
    assert not ridge.search(r"\hat w = (A^\top A + \lambda G)^{-1} A^\top y")


def test_the_exercise_that_l2_is_not_an_rkhs_is_set_once():
    exercises = re.compile(r"^(`{3,}|:{3,})\{exercise\}.*?\n(.*?)^\1[ \t]*$", re.M | re.S)
    found = [stem for stem, text in chapter_text().items()
             for _, body in exercises.findall(text)
             if re.search(r"L_2\[a,\s*b\]", body) and re.search(r"not an RKHS", body)]
    assert len(found) == 1, f"'L2 is not an RKHS' is set as an exercise in {found}"


# An exercise that expands a kernel ends by reading off its feature map as an
# explicit tuple, "\phi(x) = (1, \sqrt2\,x_1, ...)". Two exercises that write out
# the same tuple (in any order, under any name) set the same expansion twice.
EXERCISE_BLOCK = re.compile(r"^(`{3,}|:{3,})\{exercise\}.*?\n(.*?)^\1[ \t]*$",
                            re.M | re.S)
SOLUTION_BLOCK = re.compile(r"^(`{3,}|:{3,})\{solution\}[ \t]*([\w-]+).*?\n"
                            r"(.*?)^\1[ \t]*$", re.M | re.S)
GATED_SOLUTION = re.compile(r"^`{3,}\{solution-start\}[ \t]*([\w-]+).*?\n(.*?)"
                            r"^`{3,}\{solution-end\}", re.M | re.S)
EXERCISE_LABEL = re.compile(r"^[ \t]*:label:[ \t]*([\w-]+)", re.M)
FEATURE_TUPLE = re.compile(r"\(x\)\s*=\s*(?:\\[bB]igg?l?|\\left)?\(([^()]*)\)")
TEX_SPACING = re.compile(r"\\[,;!: ]|\\[bB]igg?[lr]?|\\right|\\top|\s+")


def exercise_texts():
    """Exercise label -> the prose of the exercise and of its solution."""
    found = {}
    for stem, text in chapter_text().items():
        for _, body in EXERCISE_BLOCK.findall(text):
            label = EXERCISE_LABEL.search(body)
            assert label, f"{stem}: an exercise has no :label:"
            found[label.group(1)] = prose(body)
        solutions = [(label, body) for _, label, body in SOLUTION_BLOCK.findall(text)]
        for label, body in solutions + GATED_SOLUTION.findall(text):
            assert label in found, f"{stem}: solution to unknown exercise {label}"
            found[label] += "\n" + prose(body)
    return found


def explicit_feature_maps(text):
    """Each explicit finite feature map in text, as the set of its coordinates."""
    maps = set()
    for inside in FEATURE_TUPLE.findall(text):
        inside = TEX_SPACING.sub("", inside).replace(r"\sqrt{2}", r"\sqrt2")
        coordinates = frozenset(c for c in inside.split(",") if c)
        if len(coordinates) > 1 and not any(r"\dots" in c for c in coordinates):
            maps.add(coordinates)
    return maps


def test_the_feature_map_signature_recognises_one_expansion_in_two_forms():
    chapter_2 = (r"$\Psi(x) = (1, \sqrt2\,x_1, \sqrt2\,x_2, x_1^2, x_2^2," "\n"
                 r"\sqrt2\,x_1x_2)$")
    chapter_3 = ("$$\n" r"\phi(x) = \big(1,\ \sqrt2\,x_1,\ \sqrt2\,x_2,\ x_1^2,\ x_2^2,"
                 r"\ \sqrt{2}\,x_1x_2\big)." "\n$$")
    assert explicit_feature_maps(chapter_2) == explicit_feature_maps(chapter_3) != set()
    unweighted = r"$\psi(x) = (1, x_1, x_2, x_1^2, x_2^2, x_1x_2)$"
    assert explicit_feature_maps(unweighted) != explicit_feature_maps(chapter_2)
    assert explicit_feature_maps(r"$\phi(x) = (x_1^q/\sqrt{q!})_{q\ge 0}$") == set()


def test_no_two_exercises_expand_the_same_kernel():
    exercises = exercise_texts()
    assert {"ex-bk-poly-p2", "ex-reg-feature-scale"} <= set(exercises)
    assert explicit_feature_maps(exercises["ex-bk-poly-p2"]), \
        "the signature no longer sees the feature maps of ex-bk-poly-p2"
    setters = {}
    for label, text in exercises.items():
        for coordinates in explicit_feature_maps(text):
            setters.setdefault(coordinates, []).append(label)
    repeated = {", ".join(sorted(c)): labels
                for c, labels in setters.items() if len(labels) > 1}
    assert not repeated, f"one feature map is set in several exercises: {repeated}"


# ---------------------------------------------------------------------------
# One voice: every object has one home, every symbol one meaning.
#
# book/notation.md is the single table. Its "Where each object is defined"
# table maps the names of each object (or result) to the label of its one
# definition; its symbol table says what each symbol means and what it is never
# used for. The checks below read the MyST sources of the chapters and of the
# problem sets (not the built site); each takes the root of a source tree, so
# that the tests can plant a mistake in a copy and see it reported.

SOURCES = ("book/chapters/*.md", "assignments/source/ps*/ps*.md")
HOMES_HEADING = "## Where each object is defined"
HOME_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*\{(prf:ref|eq|ref)\}`([\w-]+)`\s*\|\s*$", re.M)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+(?:\n[^$\n]+)*?\$", re.S)
ITALIC = re.compile(r"(?<![*\w])\*([^*\n]+)\*(?![*\w])")
RESULT_BLOCK = re.compile(r"^(`{3,})\{prf:(theorem|lemma|proposition|corollary)\}[ \t]*(.*?)\n"
                          r"(.*?)^\1[ \t]*$", re.M | re.S)
LABEL_LINE = re.compile(r"^:label:\s*([\w-]+)", re.M)
# An SVM Lagrangian: the derivation of the dual, which has one home.
SVM_LAGRANGIAN = re.compile(r"\\mathcal\s*L\s*(?:\([^)]*\))?\s*=.*\\alpha.*\\xi", re.S)
SVM_DUAL_HOME = "svm"

# What each symbol of the notation table is never used for, as patterns on the
# maths of a chapter or problem set (the key is the symbol as the table's first
# column writes it).
MISUSES = {
    r"\lambda": [
        (r"\\lambda_\{?[a-z0-9]", "an indexed lambda (eigenvalues are mu_j, multipliers alpha_i, eta_i)"),
        (r"(?<![\w\\])n\s*\\lambda", "a weight rescaled by n (one scaling of lambda)"),
        (r"=\s*\\lambda\s*v\b", "an eigenvalue"),
    ],
    r"\mu_j": [
        (r"\\mu(?![_\w])", "a bare mu (the measure is nu)"),
        (r"\\mu_\{?i\}?(?![\w])", "a multiplier (eta_i)"),
    ],
    r"\nu": [
        (r"\\nu_", "an indexed nu (the multipliers of xi_i >= 0 are eta_i)"),
        (r"\^\s*\{?\s*\\nu", "an exponent"),
    ],
    r"\eta_i": [(r"\\eta(?![_\w])", "a bare eta")],
    "C": [
        (r"(?<![\w\\])C\s*v\b", "an operator"),
        (r"(?<![\w\\{])C\s*\\\|", "a generic constant"),
    ],
    "p": [
        (r"I_\{?p\}?(?![\w])", "the size of an identity matrix"),
        (r"(?<![\w\\])p\s*\\times\s*p(?![\w])", "a matrix size"),
        (r"\\times\s*p(?![\w])", "a number of columns"),
    ],
    "D": [
        (r"(?<![\w\\])D\s*=\s*\\(?:operatorname|mathrm)\s*\{\s*diag", "a diagonal matrix"),
        (r"(?<![\w\\])D\s*\^\s*\{?\s*-", "an inverted matrix"),
        (r"(?<![\w\\])D_\{?[a-z0-9]", "an indexed D"),
    ],
    r"\Phi": [(r"\\Phi\s*(?:\(|\\colon|:)", "a feature map")],
    r"\ell(y, t)": [
        (r"\\ell\s*(?:\\[bB]ig[lr]?|\\left)?\s*\(\s*f\s*\(", "a loss with the prediction first"),
        (r"(?<![\w\\])V\s*(?:\\[bB]ig[lr]?)?\s*\(\s*y", "a loss named V"),
        (r"\\partial_2\s*V", "a loss named V"),
        (r"(?<![\w\\])L\s*(?:\\[bB]ig[lr]?)?\s*\(\s*f\s*\(", "a loss named L"),
        (r"E_\{\\mathrm\{sv\}\}", "a hinge loss named E"),
    ],
    "w": [
        (r"\\(?:theta|beta)_0", "an intercept other than b"),
        (r"\\theta\s*\^\s*\\top", "weights named theta"),
    ],
    r"\theta": [(r"\\theta_\{?[0-9a-z]", "an indexed theta (weights are w)")],
    r"\sigma": [(r"(?:\\exp\s*\(|e\^\{)\s*-\s*\\beta\s*\\(?:\||lVert)",
                 "beta for the width of the Gaussian kernel")],
    r"y_i \in \{-1, +1\}": [
        (r"(?<![\w\\])t_i\s*\\in\s*\\\{\s*-\s*1", "labels t_i"),
        (r"(?<![\w\\])(?<!\\hat )(?<!\\hat)(?:y|u)\s*\(\s*x\s*\)",
         "a decision function named y(x) or u(x)"),
    ],
    "n": [
        (r"(?<![\w\\])[xzt](?:\s*,\s*[xzt]'?)*\s*\\in\s*\\mathbb\s*\{?R\}?\s*\^\s*\{?n\}?(?![\w])",
         "the dimension of the inputs"),
        (r"i\s*=\s*1,\s*\\dots,\s*M(?![\w])", "a number of points named M"),
    ],
    "d": [(r"(?<![\w\\])k_d\s*\(", "a degree")],
}
# Names a problem set's visible code may not give its parameters: they name a
# symbol of the table in another role (labels t, widths ell, Mercer mu, ...).
FORBIDDEN_PARAMETERS = {"t": "labels are y", "ell": "the width is sigma",
                        "theta": "weights are w", "mu": "Mercer eigenvalues are mu_j; the measure is nu",
                        "nu": "nu is a measure", "N": "the number of features is D",
                        "M": "the number of points is n"}
PARAMETERS = re.compile(r"^def \w+\(([^)]*)\)", re.M)


def _normalise(name):
    """A name as the homes table and the text write it, reduced for comparison."""
    name = re.sub(r"\([^)]*\)", "", name.lower().replace("’", "'"))
    name = re.sub(r"'s\b|\btheorem\b|\bthe\b|[^a-z0-9 -]", " ", name)
    words = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
             for w in name.replace("-", " ").split()]
    return " ".join(words)


def homes(root=ROOT):
    """Normalised name -> label of the object's one definition, from notation.md."""
    text = (root / "book" / "notation.md").read_text(encoding="utf-8")
    table = text[text.index(HOMES_HEADING):]
    found = {}
    for names, _, label in HOME_ROW.findall(table):
        for name in names.split(","):
            found[_normalise(name)] = label
    return found


def source_texts(root=ROOT):
    """Relative path -> MyST source of every chapter and problem set."""
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8")
            for pattern in SOURCES for p in sorted(root.glob(pattern))}


def _blocks(text, pattern):
    """(title, label, body) of each directive block that ``pattern`` matches."""
    for match in pattern.finditer(text):
        title, body = match.group(match.re.groups - 1), match.group(match.re.groups)
        label = LABEL_LINE.search(body)
        yield title, label.group(1) if label else None, body


def _title_names(title):
    return [_normalise(part) for part in re.split(r",|\band\b", title) if part.strip()]


def redefinitions(root=ROOT):
    """Places where a chapter or problem set defines an object that has its home
    elsewhere: a definition block (by its title or an italic term), a result
    block (by its title), or an italic term in the prose, which is how the
    sources introduce a new term."""
    home_of = homes(root)
    texts = source_texts(root)
    home_files = {}
    for path, text in texts.items():
        for label in re.findall(r"^:label:\s*([\w-]+)|^\(([\w-]+)\)=|\$\$ \(([\w-]+)\)", text, re.M):
            for part in label:
                if part:
                    home_files[part] = path
        for part in re.findall(r"^\$\$[ \t]*\(([\w-]+)\)", text, re.M):
            home_files[part] = path
    problems = []
    for path, text in texts.items():
        prose_text = MATH.sub(" ", prose(text))
        for title, label, body in _blocks(prose_text, DEFINITION):
            names = _title_names(title) + [_normalise(t) for t in ITALIC.findall(body)]
            for name in names:
                if name in home_of and home_of[name] != label:
                    problems.append(f"{path}: defines {name!r} again (its home is "
                                    f"{home_of[name]})")
        for title, label, body in _blocks(prose_text, RESULT_BLOCK):
            for name in _title_names(title):
                if name in home_of and home_of[name] != label:
                    problems.append(f"{path}: states {name!r} again (its home is "
                                    f"{home_of[name]})")
        outside = DEFINITION.sub(" ", prose_text)
        for term in ITALIC.findall(outside):
            if term.rstrip().endswith((".", ":")):
                continue            # a run-in heading, "*Inner product.* ...", not a term
            name = _normalise(term)
            if name in home_of and home_files.get(home_of[name]) != path:
                problems.append(f"{path}: introduces *{term}*, whose home is {home_of[name]}")
    return problems


def _table_symbols(root=ROOT):
    """The maths of the first column of notation.md's symbol table, token by token."""
    text = (root / "book" / "notation.md").read_text(encoding="utf-8")
    table = text[:text.index(HOMES_HEADING)]
    return {token.strip("$").strip() for line in table.splitlines() if line.startswith("| $")
            for token in re.findall(r"\$[^$]+\$", line.split("|")[1])}


def misused_symbols(root=ROOT):
    """Places where the maths of a chapter or problem set uses a symbol of the
    notation table for something the table says it is never used for, and
    problem-set parameters named after a symbol in another role."""
    problems = []
    for path, text in source_texts(root).items():
        maths = MATH.findall(prose(text))
        for symbol, patterns in MISUSES.items():
            for pattern, role in patterns:
                for formula in maths:
                    if re.search(pattern, formula):
                        problems.append(f"{path}: {symbol} used for {role}: {formula[:70]!r}")
        if path.startswith("assignments"):
            code = "\n".join(m.group(0) for m in CODE_CELL.finditer(text))
            for params in PARAMETERS.findall(code):
                for name in re.findall(r"\w+", params.split("=")[0] if "=" not in params
                                       else params):
                    if name in FORBIDDEN_PARAMETERS:
                        problems.append(f"{path}: a parameter named {name!r} "
                                        f"({FORBIDDEN_PARAMETERS[name]})")
    return problems


def svm_dual_derivations(root=ROOT):
    """The sources whose displayed maths holds an SVM Lagrangian."""
    return sorted(Path(path).stem for path, text in source_texts(root).items()
                  for block in DISPLAY.findall(prose(text)) if SVM_LAGRANGIAN.search(block))


def test_the_homes_table_points_at_definitions_that_exist():
    """Every row of notation.md's homes table names a label that a chapter defines."""
    found = homes()
    assert len(set(found.values())) >= 20, "the homes table is (nearly) empty"
    labels = label_homes()
    missing = sorted({label for label in found.values() if label not in labels})
    assert not missing, f"homes that no chapter defines: {missing}"


def test_no_chapter_or_problem_set_redefines_an_object_that_has_a_home():
    problems = redefinitions()
    assert not problems, "\n".join(problems)


def test_symbols_keep_the_one_meaning_the_table_gives_them():
    assert set(MISUSES) <= _table_symbols(), \
        f"symbols checked but not in the table: {sorted(set(MISUSES) - _table_symbols())}"
    problems = misused_symbols()
    assert not problems, "\n".join(problems)


def test_the_svm_dual_is_derived_once():
    assert svm_dual_derivations() == [SVM_DUAL_HOME]


def _copy_sources(tmp_path):
    """A copy of the sources the checks read, to plant mistakes in."""
    for pattern in ("book/notation.md", *SOURCES):
        for path in ROOT.glob(pattern):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def _plant(root, relative, text):
    path = root / relative
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")


@pytest.mark.parametrize("planted, where", [
    ("```{prf:definition} Hilbert space\n:label: svm-def-hilbert-again\n\n"
     "A complete inner product space.\n```\n", "book/chapters/svm.md"),
    ("```{prf:definition} Kernel of a feature map\n:label: reg-def-kernel-again\n\n"
     "The *kernel* of $\\phi$ is $k(x, z) = \\langle\\phi(x), \\phi(z)\\rangle$.\n```\n",
     "book/chapters/regularisation.md"),
    ("```{prf:theorem} Mercer\n:label: svm-thm-mercer-again\n\nAn expansion.\n```\n",
     "book/chapters/svm.md"),
    ("A *reproducing kernel Hilbert space* is a Hilbert space of functions.\n",
     "assignments/source/ps4/ps4.md"),
])
def test_a_second_definition_is_reported(tmp_path, planted, where):
    root = _copy_sources(tmp_path)
    assert redefinitions(root) == []
    _plant(root, where, planted)
    problems = redefinitions(root)
    assert len(problems) == 1 and problems[0].startswith(where), problems


@pytest.mark.parametrize("planted, where, role", [
    ("The multipliers $\\nu_i \\ge 0$ of $\\xi_i \\ge 0$.", "book/chapters/svm.md", "indexed nu"),
    ("Truncated powers $(1 - r)_+^{\\nu}$.", "book/chapters/bases_and_kernels.md", "exponent"),
    ("The covariance operator $C v = \\lambda v$.", "book/chapters/rkhs.md", "operator"),
    ("Scale by $D = \\operatorname{diag}(1, \\sqrt2)$.", "book/chapters/regularisation.md",
     "diagonal"),
    ("The $n \\times p$ matrix $X$.", "book/chapters/svm.md", "columns"),
    ("$\\hat\\alpha = (K + n\\lambda I_n)^{-1} y$.", "book/chapters/rkhs.md", "rescaled"),
    ("A loss $L(f(x_i), y_i)$.", "book/chapters/svm.md", "named L"),
    ("Labels $t_i \\in \\{-1, 1\\}$.", "assignments/source/ps5/ps5.md", "labels t_i"),
    ("```{code-cell}\ndef width(x, ell):\n    return ell\n```\n",
     "assignments/source/ps4/ps4.md", "'ell'"),
])
def test_a_symbol_in_another_role_is_reported(tmp_path, planted, where, role):
    root = _copy_sources(tmp_path)
    assert misused_symbols(root) == []
    _plant(root, where, planted + "\n")
    problems = misused_symbols(root)
    assert problems and all(p.startswith(where) for p in problems), problems
    assert any(role in p for p in problems), problems


def test_a_second_derivation_of_the_svm_dual_is_reported(tmp_path):
    root = _copy_sources(tmp_path)
    _plant(root, "book/chapters/rkhs.md",
           "$$\n\\mathcal L = \\tfrac12\\|w\\|^2 + C\\sum_i\\xi_i - \\sum_i\\alpha_i"
           "\\big(y_if(x_i) - 1 + \\xi_i\\big)\n$$\n")
    assert svm_dual_derivations(root) == ["rkhs", SVM_DUAL_HOME]
