"""Time the part runner's watch of compiled code against no watch, on the course's work.

Each run is a fresh Python process that does what a part's process does
before it answers: numpy already imported, then every code cell of a problem
set's source notebook (the reference solutions; the checks' cells left out)
and the imports they make (scipy, CVXPY and the rest, from their cached
``.pyc`` files, each one an event the watch judges), with or without
:func:`coursegrader.runners.code_origin.watch` installed on those cells.
Runs alternate (without, with) so that the machine's load falls on both.
Reported: the median seconds of each, their ratio, and whether the watch
reported anything (it must not: these are honest solutions).

Usage (from the repository root)::

    python benchmarks/bench_code_origin.py [--rounds 5] [ps1 ps3 ...]

Target: no slow-down beyond the machine's noise, and nothing reported.
Last measured (2026-11-26 at 13:09 UTC, 5 rounds, 2 cores with a load
average of 6 from other work; medians without and with the watch): ps1
0.001 and 0.001 s (its cells import nothing), ps2 0.413 and 0.404 s, ps3
0.839 and 0.804 s, ps4 0.625 and 0.682 s, ps5 2.055 and 2.142 s (ratios 0.88
to 1.09, both ways: within the noise of the machine); nothing reported. ps5's cells
raise about 650 compile and 840 ``.pyc`` load events.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time
import numpy
cells, watch, here = json.loads(sys.stdin.read())
reported = []
if watch:
    from coursegrader.runners import code_origin
    code_origin.watch(cells, own_dirs=[here], report=reported.append)
namespace = {"__name__": "__main__"}
out, sys.stdout = sys.stdout, open(os.devnull, "w")
started = time.perf_counter()
for i, source in enumerate(cells):
    exec(compile(source, f"<cell {i + 1}>", "exec"), namespace)
seconds = time.perf_counter() - started
sys.stdout = out
print(json.dumps([seconds, reported]))
"""


def _cells(ps):
    from coursegrader.judging.cells import is_test_cell
    from coursegrader.tools.author import build_notebook, source_path
    nb = build_notebook(source_path(ROOT / "assignments", ps), ps)
    return [c.source for c in nb.cells if c.cell_type == "code" and not is_test_cell(c)
            and not c.source.lstrip().startswith(("%", "!"))]


def _run(cells, watch, here):
    # the course's packages on the import path, as in the sandbox (where they
    # are read-only: outside it, as root, an editable install is writable)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps([cells, watch, here]),
                          capture_output=True, text=True, cwd=here, check=True, env=env)
    return json.loads(done.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="*", default=["ps1", "ps2", "ps3", "ps4", "ps5"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as here:
        for ps in args.assignments:
            cells = _cells(ps)
            times = {False: [], True: []}
            reported = []
            for _ in range(args.rounds):
                for watch in (False, True):
                    seconds, said = _run(cells, watch, here)
                    times[watch].append(seconds)
                    reported += said
            off, on = statistics.median(times[False]), statistics.median(times[True])
            said = sorted(set(reported)) or "nothing"
            print(f"{ps}: {len(cells)} cells, without the watch {off:.3f} s, with it "
                  f"{on:.3f} s (ratio {on / off:.3f}); reported: {said}")


if __name__ == "__main__":
    main()
