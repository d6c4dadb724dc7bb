"""Compare two submissions' graded material: the one comparison of the check."""

from dataclasses import dataclass

import numpy as np
from copydetect import compare_files

from .material import Material, SimilarityCheck
from .text import found_in

__all__ = ["Comparison", "compare"]


@dataclass(eq=False)
class Comparison:
    """How much of two submissions' code and written answers they share.

    ``code`` and ``written``: the larger of the two shares of one submission's
    material found in the other's (0 when too short to tell; a run of words is
    found in the other's written answers with up to ``skipped_words`` between
    its words there); ``flagged``: either
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
    in_b, in_a = found_in(a.runs, b.skipping), found_in(b.runs, a.skipping)
    shared = frozenset(in_b | in_a)
    written = 0.0
    if min(len(a.runs), len(b.runs)) >= check.min_written_runs:
        written = round(max(len(in_b) / len(a.runs), len(in_a) / len(b.runs)), 4)
    flagged = (code >= check.threshold or written >= check.written_threshold
               or bool(variant_values))
    return Comparison(a, b, code, written, flagged, sl_a, sl_b, shared,
                      tuple(variant_values))
