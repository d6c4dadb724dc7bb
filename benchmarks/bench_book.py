"""Time a full build of the course book from scratch.

The repository is copied to a temporary folder without any build products
(``_build``, execution caches, generated assignment releases), and the book is
built there exactly as documented (``jupyter-book build -W -n --keep-going``),
so every chapter is executed and every problem set released anew.  The wall-clock time is reported next
to the 5-minute target, together with the execution time of each chapter as
logged by myst-nb.  The PDF of the whole book is then built from the same
copy, as scripts/build.sh does (``--builder pdflatex``, notebooks from the
cache the first build filled), and its time is reported separately.

Usage (from the repository root)::

    python benchmarks/bench_book.py            # build once
    python benchmarks/bench_book.py --keep     # keep the output folder
    python benchmarks/bench_book.py --json     # machine-readable result

Exit status is 0 when the build succeeded within the target, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 300.0
EXECUTED = re.compile(r"(\S+\.(?:md|ipynb)): Executed notebook in ([0-9.]+) seconds")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


#: Build products and caches left out of the fresh copy.
SKIP = shutil.ignore_patterns(".git", "_build", "_generated", ".jupyter_cache", "__pycache__",
                              ".pytest_cache", ".ipynb_checkpoints", "*.egg-info")


def build(work: Path) -> tuple[float, int, str]:
    """Copy the repository into ``work`` and build it there; return (seconds, code, log)."""
    source = work / "repo"
    shutil.copytree(ROOT, source, ignore=SKIP)
    cmd = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
        "build", "-W", "-n", "--keep-going", str(source),
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=source, capture_output=True, text=True,
                          env=dict(os.environ))
    seconds = time.perf_counter() - start
    return seconds, proc.returncode, ANSI.sub("", proc.stdout + proc.stderr)


def build_pdf(work: Path) -> tuple[float, int]:
    """Build the PDF in the copy that ``build`` made; return (seconds, code)."""
    source = work / "repo"
    cmd = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
        "build", "-W", "-n", "--keep-going", "--builder", "pdflatex", str(source),
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=source, capture_output=True, text=True,
                          env=dict(os.environ))
    return time.perf_counter() - start, proc.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the output folder")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    out = Path(tempfile.mkdtemp(prefix="bench-book-"))
    try:
        seconds, code, log = build(out)
        pdf_seconds, pdf_code = build_pdf(out) if code == 0 else (0.0, None)
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    prefix = str(out / "repo") + os.sep
    chapters = {path.removeprefix(prefix): float(t) for path, t in EXECUTED.findall(log)}
    ok = code == 0 and pdf_code == 0 and seconds <= TARGET_SECONDS
    result = {
        "build_seconds": round(seconds, 1),
        "target_seconds": TARGET_SECONDS,
        "cpu_count": os.cpu_count(),
        "succeeded": code == 0,
        "within_target": seconds <= TARGET_SECONDS,
        "execution_seconds": chapters,
        "pdf_seconds": round(pdf_seconds, 1),
        "pdf_succeeded": pdf_code == 0,
        "output": str(out) if args.keep else None,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        status = "succeeded" if code == 0 else f"FAILED (exit code {code})"
        print(f"full book build from scratch: {seconds:6.1f} s "
              f"(target {TARGET_SECONDS:.0f} s, {os.cpu_count()} cores) -- {status}, "
              f"{'within' if seconds <= TARGET_SECONDS else 'OVER'} target")
        if pdf_code is not None:
            pdf_status = "succeeded" if pdf_code == 0 else f"FAILED (exit code {pdf_code})"
            print(f"PDF of the book (LaTeX builder):  {pdf_seconds:6.1f} s -- {pdf_status}")
        for path, t in sorted(chapters.items(), key=lambda kv: -kv[1]):
            print(f"  executed {path:45s} {t:6.1f} s")
        if code != 0:
            print("\n".join(log.splitlines()[-30:]))
        if args.keep:
            print(f"output kept in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
