"""What the grading sandbox costs: autograde one class three ways, in one run.

The same class (problem set 1; half the students hand in the reference
answers, half the blank release) is graded by a real ``nbgrader autograde``
in a throw-away copy of the course:

* ``before``   -- the grader as it was before the sandbox (the commit before
  ``coursegrader/confine.py`` appeared, or ``--baseline REV``), from a
  ``git archive`` of that commit;
* ``unconfined`` -- today's grader with ``CONFINEMENT = "unconfined"``;
* ``bubblewrap`` -- today's grader as configured (every run of student code
  in the bubblewrap sandbox).

Printed: seconds per submission for each, and the extra seconds per
submission of ``bubblewrap`` over ``before`` and over ``unconfined`` (the
target is at most 1 s over ``before``), with the ratios.

Usage (from the repository root)::

    python benchmarks/bench_grading.py                 # 6 students
    python benchmarks/bench_grading.py --students 10 --json

Exit status is 0 when the sandbox costs at most 1 s per submission over
``before``, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_EXTRA_SECONDS = 1.0

# Run inside a fresh interpreter with PYTHONPATH pointing at one tree.
DRIVER = r"""
import json, sys, time
from pathlib import Path
import nbformat
try:                      # the grader of this tree, or of an older one
    from coursegrader.tools.course import Course, fill_answers
except ModuleNotFoundError:
    from coursegrader.course import Course, fill_answers

tree, work, students, mode = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
course = Course.copy_of(tree / "assignments", work / "course", exchange=work / "exchange",
                        assignments=["ps1"], secret="bench")
if mode == "unconfined":
    with open(course.root / "nbgrader_config.py", "a") as f:
        f.write('c.JudgeSubmission.confinement = "unconfined"\n')
if mode == "before":
    # that grader starts `python -I -m coursegrader.sandbox`, which would import
    # whatever coursegrader is installed: make it import the one of this tree
    wrapper = work / "python-before"
    boot = (f"import sys, runpy; sys.path[:0] = [{str(tree)!r}, {str(tree / 'assignments')!r}]; "
            "runpy.run_module('coursegrader.sandbox', run_name='__main__')")
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -s -c {boot!r}\n")
    wrapper.chmod(0o755)
    with open(course.root / "nbgrader_config.py", "a") as f:
        f.write(f"c.JudgeTests.python = {str(wrapper)!r}\n")
course.nbgrader("db assignment add", "ps1")
course.nbgrader("generate_assignment", "ps1")
released, source = course.released("ps1"), course.source("ps1")
for i in range(students):
    nb = fill_answers(released, source) if i % 2 == 0 else released
    folder = course.root / "submitted" / f"s{i}" / "ps1"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "ps1.ipynb")
    (folder / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")
start = time.perf_counter()
course.nbgrader("autograde", "ps1")
seconds = time.perf_counter() - start
scores = course.code_scores("ps1")
print(json.dumps({"seconds": seconds, "scores": sorted(v[0] for v in scores.values())}))
"""


def baseline_commit() -> str:
    """The commit before the one that added coursegrader/confine.py."""
    added = subprocess.run(
        ["git", "log", "--format=%H", "--diff-filter=A", "--",
         "assignments/coursegrader/confine.py"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not added:
        raise SystemExit("no commit adds assignments/coursegrader/confine.py: pass --baseline")
    return added[-1] + "^"


def export_tree(rev: str, dest: Path) -> Path:
    """Write the files of ``rev`` into ``dest`` (git archive) and return it."""
    archive = dest.with_suffix(".tar")
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), rev],
                   cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest


def grade(tree: Path, work: Path, students: int, mode: str) -> dict:
    env = dict(os.environ, PYTHONPATH=f"{tree}:{tree / 'assignments'}")
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(tree), str(work), str(students),
                           mode], env=env, capture_output=True, text=True, cwd=work)
    if proc.returncode != 0:
        raise SystemExit(f"grading with {mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=6, help="submissions in the class")
    parser.add_argument("--baseline", help="git revision of the grader before the sandbox")
    parser.add_argument("--json", action="store_true", help="machine-readable result")
    args = parser.parse_args(argv)
    if args.students < 2:
        parser.error(f"--students must be at least 2, got {args.students}")

    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        tmp = Path(tmp)
        before = export_tree(args.baseline or baseline_commit(), tmp / "before-tree")
        for name, tree, mode in (("before", before, "before"),
                                 ("unconfined", ROOT, "unconfined"),
                                 ("bubblewrap", ROOT, "default")):
            work = tmp / name
            work.mkdir()
            start = time.perf_counter()
            results[name] = grade(tree, work, args.students, mode)
            results[name]["wall"] = time.perf_counter() - start
    per = {name: r["seconds"] / args.students for name, r in results.items()}
    extra = per["bubblewrap"] - per["before"]
    summary = {
        "students": args.students,
        "seconds_per_submission": per,
        "extra_over_before": extra,
        "extra_over_unconfined": per["bubblewrap"] - per["unconfined"],
        "ratio_over_before": per["bubblewrap"] / per["before"],
        "ratio_over_unconfined": per["bubblewrap"] / per["unconfined"],
        "same_scores": len({tuple(r["scores"]) for r in results.values()}) == 1,
        "scores": results["bubblewrap"]["scores"],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for name, seconds in per.items():
            print(f"{name:>11}: {seconds:6.2f} s per submission")
        print(f"bubblewrap costs {extra:+.2f} s per submission over before "
              f"(ratio {summary['ratio_over_before']:.2f}; target at most "
              f"+{TARGET_EXTRA_SECONDS:g} s) and {summary['extra_over_unconfined']:+.2f} s over "
              f"unconfined (ratio {summary['ratio_over_unconfined']:.2f})")
        print(f"scores identical in the three runs: {summary['same_scores']}")
    return 0 if extra <= TARGET_EXTRA_SECONDS and summary["same_scores"] else 1


if __name__ == "__main__":
    sys.exit(main())
