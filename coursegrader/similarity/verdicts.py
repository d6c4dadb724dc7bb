"""Verdicts two students of different variants hand in alike where their variants differ.

A part declared ``Part(verdict=True)`` asks for a verdict on each case (a yes
or no, a kernel's name); the judge keeps the student's verdict on each public
case in the record (:func:`coursegrader.judging.verdicts.verdict_of`).  In a
problem set with variants the right verdicts depend on the variant, case by
case (the label of a case, ``K3``, names the same question in every variant).
Two students whose variants' right verdicts differ on some cases and who hand
in the same verdict on (nearly) every one of those cases have handed in one
answer sheet, evidence for a person: honest work, right or wrong, goes with
its own variant there.  Cases where the two variants agree, or two variants
whose right verdicts coincide, are never evidence: honest students agree there.
A case where one of them hands in the right verdict of their own variant that
their own public checks show (``known``: ps1's candidates that part 4 samples
as never kernels), while the other's sheet is the other's right one wherever
their variants differ, does not count against the sheet being one: a copier
sets those right at no cost.
"""

import itertools
from dataclasses import dataclass

__all__ = ["VerdictEvidence", "handed_in", "verdict_evidence"]


@dataclass(frozen=True)
class VerdictEvidence:
    """``a`` and ``b`` hand in the same verdicts of ``part`` on the cases ``same``, of
    the ``differing`` cases where their variants' right verdicts differ; ``whose``:
    the student whose right verdicts those are (None when neither's)."""

    a: str
    b: str
    part: str
    same: tuple
    differing: int
    whose: object = None

    def describe(self):
        shown = ", ".join(self.same[:10]) + (f" and {len(self.same) - 10} more"
                                             if len(self.same) > 10 else "")
        line = (f"{self.a} and {self.b} hand in the same verdicts of {self.part} on "
                f"{len(self.same)} of the {self.differing} cases where their variants' "
                f"right verdicts differ ({shown})")
        return line + (f": {self.whose}'s right ones" if self.whose else "")


def handed_in(parts):
    """{part: {case label: verdict}} of a record's parts
    (:class:`~coursegrader.record.PartResult` s): each public case's verdict kept."""
    out = {}
    for p in parts:
        found = {c.label: c.verdict for c in p.cases if not c.hidden and c.verdict is not None}
        if found:
            out[p.part] = found
    return out


def verdict_evidence(handed, rights, *, least=5, share=1.0, known=None):
    """Every :class:`VerdictEvidence` among a class.

    ``handed``: {student: {part: {label: verdict}}} (:func:`handed_in`);
    ``rights``: {student: {part: {label: right verdict}}} of each student's own
    variant; ``known``: {student: {part: labels}} whose right verdict the
    student's own public checks show.  A pair is evidence on a part when their
    right verdicts differ on some cases and they hand in the same verdict on at
    least ``least`` of those cases and at least ``share`` of them, leaving out
    the cases where they differ because one of them hands in the right verdict
    they were shown while the other's sheet is right wherever they differ.
    """
    known = known or {}
    out = []
    students = sorted(s for s in handed if s in rights)
    for a, b in itertools.combinations(students, 2):
        for part in sorted(handed[a].keys() & handed[b].keys()
                           & rights[a].keys() & rights[b].keys()):
            ra, rb = rights[a][part], rights[b][part]
            va, vb = handed[a][part], handed[b][part]
            differing = [label for label in ra if label in rb and ra[label] is not None
                         and rb[label] is not None and ra[label] != rb[label]]
            same = tuple(label for label in differing
                         if va.get(label) is not None and va.get(label) == vb.get(label))
            # a copier's own shown verdicts, set right on a sheet that is the
            # other's right one wherever their variants differ
            shown = [label for label in differing if label not in same and any(
                label in known.get(s, {}).get(part, ()) and v.get(label) == r[label]
                and all(w.get(x) == q[x] for x in differing)
                for s, v, r, w, q in ((a, va, ra, vb, rb), (b, vb, rb, va, ra)))]
            if not same or len(same) < least or len(same) < share * (len(differing)
                                                                      - len(shown)):
                continue
            whose = next((s for s, r in ((a, ra), (b, rb))
                          if all(va[label] == r[label] for label in same)), None)
            out.append(VerdictEvidence(a, b, part, same, len(differing), whose))
    return out
