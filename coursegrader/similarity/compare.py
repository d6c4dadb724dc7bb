"""Compare two submissions' graded material: the one comparison of the check."""

from dataclasses import dataclass

import numpy as np
from copydetect import compare_files

from .material import Material, SimilarityCheck

__all__ = ["Comparison", "compare"]


@dataclass(eq=False)
class Comparison:
    """How much of two submissions' code and written answers they share.

    ``code`` and ``written``: the larger of the two shares of one submission's
    material found in the other's (0 when too short to tell; a run of words is
    found in the other's written answers with up to ``skipped_words`` between
    its words there, and the written answers are compared with their formulas
    as written and with each formula one word, the larger share counting); ``flagged``: either
    reaches its threshold, or the pair shares a value of a variant. ``slices_a``/``slices_b`` (copydetect's, into the
    normal form) and ``shared_runs`` locate what is shared, for the page.
    ``variant_values``: why the pair holds the same value of a variant (one of
    them a classmate's, or both a third's; :func:`~.values.shared_evidence`),
    which flags it too.
    """

    a: Material
    b: Material
    code: float
    written: float
    flagged: bool
    slices_a: np.ndarray = None
    slices_b: np.ndarray = None
    shared_runs: frozenset = frozenset()
    variant_values: tuple = ()
    #: the reading of the written answers ``shared_runs`` are of (an index into
    #: :attr:`Material.readings`: formulas as written, or each one word where only
    #: that reading reaches the threshold); ``written`` is the larger share of the two
    reading: int = 0

    @property
    def similarity(self):
        return max(self.code, self.written)


def compare(a: Material, b: Material, check: SimilarityCheck, *,
            variant_values=()) -> Comparison:
    """Compare submissions ``a`` and ``b`` (their code, and their written answers);
    ``variant_values``: the values of a variant they share (see :class:`Comparison`)."""
    code, sl_a, sl_b = 0.0, None, None
    if min(a.code_chars, b.code_chars) >= check.min_code_chars:
        overlap, (sim_a, sim_b), (sl_a, sl_b) = compare_files(a.prints, b.prints)
        if overlap:
            code = round(float(max(sim_a, sim_b)), 4)
            sl_a, sl_b = a.prints.in_code(sl_a), b.prints.in_code(sl_b)
    written, reading, shared = 0.0, 0, frozenset()
    for r, (ra, rb) in enumerate(zip(a.readings, b.readings)):
        in_b, in_a = ra.found(rb), rb.found(ra)
        share = 0.0
        if min(len(ra.runs), len(rb.runs)) >= check.min_written_runs:
            share = round(max(len(in_b) / len(ra.runs), len(in_a) / len(rb.runs)), 4)
        # the page shows the answers as written unless only the other reading flags them
        shown = r == 0 or (share > written and written < check.written_threshold)
        if shown:
            reading, shared = r, frozenset(in_b | in_a)
        written = max(written, share)
    flagged = (code >= check.threshold or written >= check.written_threshold
               or bool(variant_values))
    return Comparison(a, b, code, written, flagged, sl_a, sl_b, shared,
                      tuple(variant_values), reading)
