"""Count the copied answer sheets of ps1's part 3 that the similarity check flags, and
the honest pairs it flags by chance, for several values of ``verdict_share``.

For ``--copies`` made-up pairs, a source hands in the right verdicts of his own
variant and a copier hands in his sheet on hers: as it is; with the four verdicts
that her part 4 shows set right; with, besides, her power of the linear kernel
set right (the chapter says it is a kernel); with, besides the four, one, two or
three other verdicts changed at random.  For an honest class of ``--class-size``
each student hands in their own right verdicts, each wrong on its own with a
probability of 0.1, 5/16 or 0.5.  Reported: how many of each are flagged
(``verdict_min`` 5), and the copier's mean number of right verdicts (of 16).

Usage (from the repository root)::

    python benchmarks/bench_verdict_copies.py --secret one
    python benchmarks/bench_verdict_copies.py --secret two --copies 300

Last measured (2026-11-26; secrets "1" and "2" with seeds 1 and 2, 150 copies,
classes of 150): copies flagged with share 1: 140 and 143 as they are, 120 and
116 with the four shown set right, 41 and 35 with the power too, 52 and 53, 26
and 20, 9 and 7 with one, two, three changes; with 0.8: 104 and 104 with the
power, 110 and 108, 73 and 79, 35 and 34.  The copies score 8.1 right of 16 as
they are and 9.8 to 10.4 changed.  Honest pairs flagged of 11,175 (share 1,
0.85, 0.8): wrong one time in ten, 0, 0 to 2, 1 to 6; with probability 5/16, 32
to 35, 121 to 125, 234 to 237; a half, 91 to 97, 333 to 343, 540 to 551.
"""

import argparse
import random
from pathlib import Path

from coursecheck.variants import bind
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from coursegrader.judging.verdicts import known_verdicts, right_verdicts
from coursegrader.similarity.verdicts import verdict_evidence

PART = "kernel_verdicts"
FLIP = {"yes": "no", "no": "yes"}
SHARES = (1.0, 0.85, 0.8)
SHEETS = ("as it is", "four shown", "and the power", "and 1 change", "and 2 changes",
          "and 3 changes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", default="1", help="the course secret the variants are drawn with")
    parser.add_argument("--copies", type=int, default=150)
    parser.add_argument("--class-size", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1, help="seed of the random changes and mistakes")
    args = parser.parse_args()
    part = graded_parts(Path("assignments"), "ps1")[PART]
    seen = {}

    def variant(student):
        if student not in seen:
            d = submission_variant(args.secret, "ps1", student)
            kinds = {c.label: spec["kind"] for c, spec in zip(bind(part, d.params).public(),
                                                               d.params["candidates"])}
            seen[student] = (right_verdicts(part, d.params), known_verdicts(part, d.params), kinds)
        return seen[student]

    def flagged(handed, share):
        students = sorted(handed)
        return verdict_evidence({s: {PART: handed[s]} for s in students},
                                {s: {PART: variant(s)[0]} for s in students},
                                least=5, share=share,
                                known={s: {PART: variant(s)[1]} for s in students})

    rng = random.Random(args.seed)
    counts = {share: dict.fromkeys(SHEETS, 0) for share in SHARES}
    right = dict.fromkeys(SHEETS, 0)
    for i in range(args.copies):
        source, copier = f"source{i}", f"copier{i}"
        his, _, _ = variant(source)
        hers, shown, kinds = variant(copier)
        sheets = {"as it is": dict(his)}
        sheets["four shown"] = {**his, **{label: "no" for label in shown}}
        power = next(label for label, kind in kinds.items() if kind == "(x.z)^p")
        sheets["and the power"] = {**sheets["four shown"], power: "yes"}
        others = [label for label in hers if label not in shown]
        for n in (1, 2, 3):
            sheet = dict(sheets["four shown"])
            for label in rng.sample(others, n):
                sheet[label] = FLIP[sheet[label]]
            sheets[f"and {n} change" + ("s" if n > 1 else "")] = sheet
        for name, sheet in sheets.items():
            right[name] += sum(sheet[label] == hers[label] for label in hers) / args.copies
            for share in SHARES:
                counts[share][name] += bool(flagged({source: his, copier: sheet}, share))
    print(f"copies flagged of {args.copies} (secret {args.secret!r})")
    for share in SHARES:
        print(f"  share {share}: " + ", ".join(f"{n} {counts[share][n]}" for n in SHEETS))
    print("  mean right of 16: " + ", ".join(f"{n} {right[n]:.1f}" for n in SHEETS))
    students = [f"student{i}" for i in range(args.class_size)]
    pairs = args.class_size * (args.class_size - 1) // 2
    for error in (0.1, 5 / 16, 0.5):
        handed = {s: {label: FLIP[v] if rng.random() < error else v
                      for label, v in variant(s)[0].items()} for s in students}
        print(f"honest class, wrong with probability {error:.2f}: pairs flagged of {pairs}: "
              + ", ".join(f"share {share} {len(flagged(handed, share))}" for share in SHARES))


if __name__ == "__main__":
    main()
