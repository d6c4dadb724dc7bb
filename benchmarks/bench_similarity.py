"""Time the similarity check on padded submissions against plain ones, and the page's size.

Three submissions of ps1 (the reference, an independent answer, a copy) are
compared as ``make similarity`` compares them (the records' cells, the
bounds of ``SimilarityCheck``): once plain, once with a cell of dead code in
front of each, of 1, 8 and 32 MB (repeated functions of a few shapes, so
that the measurement does not hang on one). The record keeps what the judge
keeps (``record.ANSWER_BYTES``); ``--past-the-record`` hands the check every
byte instead, to time its own bounds. Reported: the seconds of each run, and
against the plain run, and the page's size. Targets: the time does not grow
with the padding (32 MB within 1.5 times 1 MB: what is compared is bounded,
not what is handed in), under a second per padded submission, and a page under
200 kB.

Usage (from the repository root)::

    python benchmarks/bench_similarity.py
    python benchmarks/bench_similarity.py --past-the-record --sizes 8

Last measured (2026-11-28 at 01:39 UTC, 2 cores with a load average of 0.3): plain
0.12 s; 1, 8 and 32 MB of dead code each 2.45, 2.03 and 2.18 s (the 32 MB run
within 1.5 times the 1 MB one; 0.7 to 0.8 s a padded submission, against 0.35
to 0.6 s before the round trips and the flags for wrapping at scale), pages of
12 kB. The copy is found at 1.00 in every run, the independent pair at 0.07
to 0.09.
"""

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from nbformat.v4 import new_code_cell  # noqa: E402

from coursegrader import record  # noqa: E402
from coursegrader.judging.cells import student_cells  # noqa: E402
from coursegrader.similarity.compare import compare  # noqa: E402
from coursegrader.similarity.material import (Scaffold, SimilarityCheck,  # noqa: E402
                                              boilerplate, material_of)
from coursegrader.similarity.page import write_report  # noqa: E402
from coursegrader.tools.course import Course, fill_answers, with_answers  # noqa: E402
from grading.ps1_honest import HONEST  # noqa: E402

SHAPES = (
    "def unused_{i}(a, b):\n    c = a * {i} + b\n    return c - {i}\n\n",
    "def unused_{i}(xs):\n    out = []\n    for x in xs:\n        out.append(x + {i})\n"
    "    return out\n\n",
    "class Unused{i}:\n    def go(self, n):\n        k = 0\n        while k < n:\n"
    "            k += {i}\n        return k\n\n",
)


def padding(megabytes):
    parts, size, i = [], 0, 0
    while size < megabytes * 1_000_000:
        text = SHAPES[i % len(SHAPES)].format(i=i)
        parts.append(text)
        size += len(text)
        i += 1
    return "".join(parts)


def run(released, answers, pad, keep, folder):
    """Seconds to build and compare the three materials and write the page; its size."""
    check = SimilarityCheck()
    notebooks = {}
    for student, filled in answers.items():
        nb = with_answers(released, filled)
        if pad:
            nb.cells.insert(2, new_code_cell(pad))
        notebooks[student] = student_cells(nb, keep)
    start = time.perf_counter()
    scaffold = Scaffold.of(released.cells)
    boiler = boilerplate(scaffold, check)
    materials = [material_of(s, cells, scaffold, check, boiler,
                             omitted=sum(a.omitted for a in cells))
                 for s, cells in notebooks.items()]
    pairs = [compare(a, b, check) for a, b in itertools.combinations(materials, 2)]
    _, page = write_report("ps1", materials, pairs, folder, check, [])
    seconds = time.perf_counter() - start
    return seconds, page.stat().st_size, [(p.a.student, p.b.student, p.code) for p in pairs]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 8, 32])
    parser.add_argument("--past-the-record", action="store_true")
    args = parser.parse_args(argv)
    print("load average at start (1, 5, 15 min): %.1f %.1f %.1f on %d cores"
          % (*os.getloadavg(), os.cpu_count()))
    keep = 10**12 if args.past_the_record else record.ANSWER_BYTES
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        c = Course.copy_of(ROOT / "assignments", tmp / "course", exchange=tmp / "exchange",
                           assignments=["ps1"])
        c.nbgrader("db assignment add", "ps1")
        c.nbgrader("generate_assignment", "ps1")
        released = c.released("ps1")
        reference = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell.source
                     for cell in fill_answers(released, c.source("ps1")).cells}
        answers = {"alice": reference, "bob": HONEST["bob"], "copier": reference}
        plain, size, pairs = run(released, answers, "", keep, tmp / "plain")
        print(f"plain: {plain:.3f} s, page {size / 1000:.0f} kB, {pairs}")
        for mb in args.sizes:
            seconds, size, pairs = run(released, answers, padding(mb), keep, tmp / f"{mb}")
            print(f"{mb:g} MB of dead code each: {seconds:.3f} s ({seconds / plain:.1f}x "
                  f"plain), page {size / 1000:.0f} kB, {pairs}", flush=True)
    print("load average at end: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
