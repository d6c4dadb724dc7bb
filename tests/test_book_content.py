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
