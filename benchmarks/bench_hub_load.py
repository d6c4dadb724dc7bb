"""Time a class submitting at once through ngshare on the course hub.

A throw-away hub (deploy/hub.py, ngshare as the exchange) gets ``--students``
accounts (40 by default). In each round every student submits ps1 once within
a minute, a quarter of them twice, while the instructor runs ``nbgrader
collect --update`` in a loop (deploy/class_load.py); in the second round the
hub, with its proxy and ngshare, is stopped and started again 20 seconds in,
and the students whose submission is refused meanwhile try again every second.
Reported per round: the 50th and 95th percentile of the time one submission
takes (ngshare_exchange's submit, from the notebook on disk to ngshare's
answer; the process's start is not counted), of the time a student waited from
the first try to the submission's acceptance (retries included), and how many
submissions needed more than one try. The correctness of the same rounds is
tested in tests/hub/test_hub.py (``-k hub``).

Usage (as root, after ``bash deploy/install.sh``; from the repository root)::

    python benchmarks/bench_hub_load.py
    python benchmarks/bench_hub_load.py --students 20 --json
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
sys.path.insert(0, str(DEPLOY))

import class_load  # noqa: E402


def summary(records):
    ok = [r for r in records if r["timestamp"]]
    out = {"submissions": len(records), "accepted": len(ok),
           "retried": sum(1 for r in records if r["attempts"] > 1)}
    for key, field in (("submit", "seconds"), ("waited", "waited")):
        for q in (50, 95):
            value = class_load.percentile([r[field] for r in ok], q)
            out[f"{key}_p{q}_s"] = round(value, 2)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--prefix", default=os.environ.get("KERNEL_COURSE_PREFIX",
                                                           "/opt/kernel-course"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error(f"--students must be at least 1, not {args.students}")
    if os.geteuid() != 0:
        sys.exit("bench_hub_load.py must run as root (the hub creates Unix accounts)")
    tag = secrets.token_hex(2)
    students = [f"kb{tag}s{i:02d}" for i in range(args.students)]
    work = Path(tempfile.mkdtemp(prefix="bench-hub-load-", dir="/tmp"))
    os.chmod(work, 0o755)
    (work / "book").mkdir()
    (work / "book" / "index.html").write_text("<html><body>book</body></html>")
    state = work / "state"
    results = {"students": args.students, "cores": os.cpu_count()}
    try:
        class_load.hub_py(args.prefix, "init", state, "--prefix", args.prefix,
                          "--instructor", f"kb{tag}t", "--students", ",".join(students),
                          "--exchange", "ngshare", "--book", work / "book")
        try:
            class_load.hub_py(args.prefix, "start", state)
            settings = json.loads((state / "settings.json").read_text())
            twice = set(students[::4])
            for round_no, restart_at in ((1, None), (2, 20)):
                out = class_load.run_round(settings, state, work / "load",
                                           round_no=round_no, twice=twice,
                                           restart_at=restart_at)
                name = "plain" if restart_at is None else "hub restarted"
                failed = sum(1 for status in out["collects"] if status)
                results[name] = dict(summary(out["records"]), collects_failed=failed,
                                     collects=len(out["collects"]))
        finally:
            class_load.hub_py(args.prefix, "destroy", state)
    finally:
        for name in [f"kb{tag}t", *students]:   # in case init failed half-way
            subprocess.run(["userdel", "--remove", name], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"{args.students} students on {results['cores']} cores")
        for name in ("plain", "hub restarted"):
            r = results[name]
            print(f"{name:>14}: {r['accepted']}/{r['submissions']} submissions in, "
                  f"submit p50 {r['submit_p50_s']} s, p95 {r['submit_p95_s']} s; "
                  f"waited p50 {r['waited_p50_s']} s, p95 {r['waited_p95_s']} s; "
                  f"{r['retried']} retried; {r['collects']} collects, "
                  f"{r['collects_failed']} failed")
    ok = all(results[n]["accepted"] == results[n]["submissions"]
             for n in ("plain", "hub restarted"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
