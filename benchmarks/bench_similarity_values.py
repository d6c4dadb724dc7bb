"""Time the search for classmates' variant values, plain against padded, for classes of
several sizes.

For ps4 (one width per student), a class of ``n`` students is drawn as the
grader draws it.  Plain: each submission holds its own width and a few
honest numbers.  Padded: each holds ``SimilarityCheck.max_values`` numbers
(5000), every one a width of the range, the most any submission can make the
search look at.  Reported: the seconds to draw the variants and what they
imply (the public cases' answers), to read the numbers and to match them,
per submission, and padded against plain.  Target: the padded search costs
about what parsing the submission's code costs (the code comparison parses it
too), the matching growing no faster than the number of values found.

Usage (from the repository root)::

    python benchmarks/bench_similarity_values.py
    python benchmarks/bench_similarity_values.py --sizes 100 300 --seed 3

Last measured (2026-11-26 at 13:10 UTC, 2 cores with a load average of 5
to 10 from other work): the variants and what they imply (200 more for what
is common) drawn in 0.7 to 4.3 s; plain, the whole class in 0.00 to 0.11 s,
nothing found; padded, 30 students 31 s (27 reading, 4 matching, 3,065
found), 100 students 115 s (82, 34; 36,200 found), 300 students 475 s (367,
108; 322,805 found): 1.0 to 1.6 s a padded submission, most of it Python's
parser and tree walks on 5000 lines (the same file profiled alone: 0.9 s of
2.5 in ``ast.parse``).
"""

import argparse
import os
import time

import numpy as np

from pathlib import Path

from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.record import AnswerCode
from coursegrader.similarity.material import SimilarityCheck
from coursegrader.similarity.values import (common_values, evidence, implied_by, literals,
                                            variant_values)

COURSE = Path(__file__).resolve().parents[1] / "assignments"


def run(n, padded, seed, check):
    rng = np.random.default_rng(seed)
    students = [f"s{i:04d}" for i in range(n)]
    implied = implied_by(graded_parts(COURSE, "ps4"))
    start = time.perf_counter()
    drawn = {s: submission_variant(f"bench-{seed}", "ps4", s) for s in students}
    values = {s: variant_values(s, v.params, implied) for s, v in drawn.items()}
    common = common_values("ps4", check.common_draws, check.common_share, implied)
    drawing = time.perf_counter() - start
    start = time.perf_counter()
    held = {}
    for s in students:
        source = f"sigma = {drawn[s].params['sigma']!r}\ntol = 1e-10\nx = [0.37, 1.13]\n"
        if padded:
            widths = rng.uniform(0.5, 2.0, size=check.max_values).round(2)
            source += "\n".join(f"w{i} = {w!r}" for i, w in enumerate(widths))
        held[s] = literals([AnswerCode("part_answer", source)], limit=check.max_values)[0]
    read = time.perf_counter() - start
    found = evidence(held, values, common=common)
    matched = time.perf_counter() - start - read
    return read, matched, len(found), drawing


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    check = SimilarityCheck()
    print("load average at start (1, 5, 15 min): %.1f %.1f %.1f on %d cores"
          % (*os.getloadavg(), os.cpu_count()))
    for n in args.sizes:
        plain = run(n, False, args.seed, check)
        padded = run(n, True, args.seed, check)
        total_plain, total_padded = sum(plain[:2]), sum(padded[:2])
        print(f"{n} students: variants and what they imply drawn in {plain[3]:.2f} s; "
              f"plain {total_plain:.2f} s ({plain[2]} found), padded "
              f"{total_padded:.2f} s (read {padded[0]:.2f}, matched {padded[1]:.2f}; "
              f"{padded[2]} found), {1000 * total_padded / n:.0f} ms a submission, "
              f"{total_padded / total_plain:.0f}x plain", flush=True)
    print("load average at end: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
