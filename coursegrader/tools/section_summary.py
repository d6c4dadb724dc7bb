"""How the class did on each section of the book: the class report's table of sections.

Every auto-graded part names the sections of the book it exercises
(:attr:`coursecheck.parts.Part.sections`).  For a section, the parts that
exercise it are pooled per student: a student's share is the points they
scored on those parts over the points the parts are worth, and a student lost
points on the section when that share is below one.  :func:`by_section`
gives, for each section, its parts, the mean share over the students graded
and how many of them lost points, worst section first, so that the report
(:mod:`coursegrader.tools.report`) shows an instructor what to revisit.
Only the records' scores are read (:mod:`coursegrader.record`).
"""

from dataclasses import dataclass

from .. import book_sections

__all__ = ["SectionSummary", "by_section"]


@dataclass(frozen=True)
class SectionSummary:
    """The class on one section: ``mean_share`` of the points, ``lost`` of ``students``."""

    label: str
    section: object            # the book's Section, or None when the book has none
    parts: tuple
    mean_share: float
    lost: int
    students: int


def _parts(assignment):
    from coursecheck.parts import get_parts
    try:
        return get_parts(assignment)
    except ValueError:
        return {}


def by_section(results, assignment):
    """A :class:`SectionSummary` per section the parts of ``assignment`` exercise.

    ``results``: ``{student: [SubmissionResult, ...]}`` of the graded
    submissions.  Sorted by mean share (lowest first), then by the order the
    parts name the sections.
    """
    parts = _parts(assignment) if assignment else {}
    order = {}
    for pid, part in parts.items():
        for label in part.sections:
            order.setdefault(label, []).append(pid)
    try:
        known = book_sections.book_sections() if order else {}
    except ValueError:   # no book beside the grader: the sections go by their labels
        known = {}
    rows = []
    for label, pids in order.items():
        shares = []
        for notebooks in results.values():
            graded = [p for nb in notebooks for p in nb.parts if p.part in pids]
            worth = sum(p.points for p in graded)
            if worth > 0:
                shares.append(sum(p.score for p in graded) / worth)
        if not shares:
            continue
        rows.append(SectionSummary(
            label=label, section=known.get(label), parts=tuple(pids),
            mean_share=sum(shares) / len(shares),
            lost=sum(share < 1 - 1e-9 for share in shares), students=len(shares)))
    position = {label: i for i, label in enumerate(order)}
    return sorted(rows, key=lambda r: (r.mean_share, position[r.label]))
