"""The similarity report: every pair in a CSV, the flagged ones side by side on a page.

What a student wrote (code, words, even a name) reaches the instructor's
browser only through Jinja's autoescaping, and the page allows no script
(its Content-Security-Policy); each side of a pair is shown up to
``SimilarityCheck.page_chars`` characters and at most
``SimilarityCheck.page_pairs`` pairs are shown, so the page stays small
whatever was handed in. The CSV is written as every export is
(:func:`coursegrader.spreadsheet.writer`): a student id a spreadsheet would
run as a formula opens as text.
"""

from pathlib import Path

import jinja2

from .. import spreadsheet
from .text import marked_words

__all__ = ["write_report"]

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "similarity"


def _segments(code, slices):
    """``code`` cut into (text, part of a match) pieces."""
    out, at = [], 0
    if slices is not None and len(slices) and len(slices[0]):
        for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist())):
            start, end = max(int(start), at), int(end)
            if start > at:
                out.append((code[at:start], False))
            if end > start:
                out.append((code[start:end], True))
                at = end
    out.append((code[at:], False))
    return [s for s in out if s[0]]


def _capped(pieces, limit):
    """``pieces`` up to ``limit`` characters in all, and how many were left out."""
    out, used, total = [], 0, sum(len(t) for t, _ in pieces)
    for text, hit in pieces:
        if used >= limit:
            break
        out.append((text[:limit - used], hit))
        used += len(out[-1][0])
    return out, total - used


def _side(comparison, which, check):
    material = getattr(comparison, which)
    slices = getattr(comparison, "slices_" + which)
    code, code_cut = _capped(_segments(material.code, slices), check.page_chars)
    read = (material.readings[comparison.reading].words if material.readings
            else material.text)
    words, words_cut = _capped(marked_words(read, check.shingle_words,
                                            comparison.shared_runs, check.skipped_words),
                               check.page_chars)
    return dict(student=material.student, code=code, code_cut=code_cut, words=words,
                words_cut=words_cut, notes=material.notes)


def write_report(ps, materials, comparisons, folder, check, skipped, not_graded=()):
    """Write ``folder/<ps>-similarity.csv`` (every pair of ``comparisons``) and
    ``.html`` (the flagged ones, the pairs sharing a value of a variant, the
    submissions of ``materials`` flagged on their own, and what the bounds cut
    of each);
    ``skipped``: submissions that could not be read, one line each;
    ``not_graded``: [(student, why)] of the submissions compared as handed in,
    their latest hand-in having failed to grade."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = folder / f"{ps}-similarity.csv"
    with open(table, "w", newline="", encoding="utf-8") as f:
        w = spreadsheet.writer(f)
        w.writerow(["student_a", "student_b", "similarity", "flagged", "code", "written",
                    "variant_values"])
        for c in comparisons:
            w.writerow([c.a.student, c.b.student, f"{c.similarity:.4f}",
                        str(c.flagged).lower(), f"{c.code:.4f}", f"{c.written:.4f}",
                        "; ".join(c.variant_values)])
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    flagged = [c for c in comparisons if c.flagged]
    shown = [dict(a=_side(c, "a", check), b=_side(c, "b", check), code=c.code,
                  written=c.written, variant_values=c.variant_values)
             for c in flagged[:check.page_pairs]]
    by_value = [c for c in comparisons if c.variant_values]
    more_by_value = max(0, len(by_value) - check.page_pairs)
    by_value = by_value[:check.page_pairs]
    cut = [(m.student, m.notes) for m in materials if m.notes]
    alone = [(m.student, m.flags) for m in materials if m.flags]
    tables = [(m.student, m.tables) for m in materials if m.tables]
    mixed_scripts = [(m.student, m.mixed_scripts) for m in materials if m.mixed_scripts]
    styled = [(m.student, m.styled_markup) for m in materials if m.styled_markup]
    page = folder / f"{ps}-similarity.html"
    page.write_text(env.get_template("report.html.j2").render(
        ps=ps, shown=shown, n_flagged=len(flagged), n_pairs=len(comparisons),
        check=check, skipped=skipped, not_graded=list(not_graded), cut=cut, alone=alone,
        tables=tables, by_value=by_value, more_by_value=more_by_value,
        mixed_scripts=mixed_scripts, styled=styled),
        encoding="utf-8")
    return table, page
