"""Time the search for classmates' variant values, plain against padded, for classes of
several sizes.

For ps4 (one width per student), a class of ``n`` students is drawn as the
grader draws it.  Plain: each submission holds its own width and a few
honest numbers.  Padded: each holds ``SimilarityCheck.max_values`` numbers
(5000), every one a width of the range, the most any submission can make the
search look at.  Reported: the seconds to read the numbers and to match them,
per submission, and padded against plain.  Target: the padded search costs
about what parsing the submission's code costs (the code comparison parses it
too), the matching growing no faster than the number of values found.

Usage (from the repository root)::

    python benchmarks/bench_similarity_values.py
    python benchmarks/bench_similarity_values.py --sizes 100 300 --seed 3

Last measured (2026-11-26 at 13:00 UTC, 2 cores with a load average of 9
from other work): plain, the whole class in 0.06 to 0.10 s, nothing found;
padded, 30 students 57 s (53 reading, 4 matching, 862 found), 100 students
140 s (132, 8; 9,816 found), 300 students 210 s (162, 48; 87,176 found): 0.7
to 1.9 s a padded submission, most of it Python's parser on 5000 lines (the
same file profiled alone: 0.9 s of 2.5 in ``ast.parse``, under that load).
"""

import argparse
import os
import time

import numpy as np

from coursegrader.judging.variants import submission_variant
from coursegrader.record import AnswerCode
from coursegrader.similarity.material import SimilarityCheck
from coursegrader.similarity.values import common_values, evidence, literals, variant_values


def run(n, padded, seed, check):
    rng = np.random.default_rng(seed)
    students = [f"s{i:04d}" for i in range(n)]
    drawn = {s: submission_variant(f"bench-{seed}", "ps4", s) for s in students}
    values = {s: variant_values(s, v.params) for s, v in drawn.items()}
    start = time.perf_counter()
    held = {}
    for s in students:
        source = f"sigma = {drawn[s].params['sigma']!r}\ntol = 1e-10\nx = [0.37, 1.13]\n"
        if padded:
            widths = rng.uniform(0.5, 2.0, size=check.max_values).round(2)
            source += "\n".join(f"w{i} = {w!r}" for i, w in enumerate(widths))
        held[s] = literals([AnswerCode("part_answer", source)], limit=check.max_values)[0]
    read = time.perf_counter() - start
    found = evidence(held, values, common=common_values("ps4", check.common_draws,
                                                         check.common_share))
    matched = time.perf_counter() - start - read
    return read, matched, len(found)


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
        print(f"{n} students: plain {total_plain:.2f} s ({plain[2]} found), padded "
              f"{total_padded:.2f} s (read {padded[0]:.2f}, matched {padded[1]:.2f}; "
              f"{padded[2]} found), {1000 * total_padded / n:.0f} ms a submission, "
              f"{total_padded / total_plain:.0f}x plain", flush=True)
    print("load average at end: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
