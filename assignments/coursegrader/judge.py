"""Grade one part of a notebook outside the student's Python process.

:func:`run_sandbox` runs the student's code cells and function in
``python -I -m coursegrader.sandbox`` under a time limit and returns what the
function gave for each case; :func:`grade_part` draws the cases (hidden ones
from the course secret, the student and the part), compares with kernlab and
returns the score and the report shown to the student.
"""

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from coursecheck.check import format_report, judge_received
from coursecheck.serial import UnsupportedValue, decode, encode

from .spec import hidden_rng, part_score

__all__ = ["SandboxResult", "run_sandbox", "grade_part", "PartGrade", "private_root"]

MEMORY_LIMIT = 4 * 1024**3  # bytes of address space for the sandbox
OUTPUT_LIMIT = 50 * 1024**2  # bytes the sandbox may write (results included)
FILES_LIMIT = 200 * 1024**2  # bytes of the submission's files copied for the sandbox
_KEPT_ENV = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME"})


@dataclass
class SandboxResult:
    values: list      # per case: (True, value) or (False, error message)
    note: str         # why the process stopped early, or ""


def private_root():
    """Folder holding the private temporary folders of sandboxes and kernels.

    Confined processes may not read it, except their own folder inside it, so
    no two of them can pass files to each other through it.
    """
    root = os.path.join(tempfile.gettempdir(), f"coursegrader-{os.getuid()}")
    os.makedirs(root, mode=0o700, exist_ok=True)
    return root


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _copy_files(src, dst, limit=FILES_LIMIT):
    """Copy the regular files of folder ``src`` (not links, not subfolders) into ``dst``."""
    total = 0
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        if entry.is_file(follow_symlinks=False):
            total += entry.stat(follow_symlinks=False).st_size
            if total > limit:
                break
            shutil.copyfile(entry.path, os.path.join(dst, entry.name), follow_symlinks=False)


def run_sandbox(cells, func, args_list, *, timeout=20.0, cwd=None, files_from=None,
                forbidden=(), allowed=(), python=None):
    """Run ``cells`` then ``func(*args)`` for each args tuple in a sandbox process.

    The code runs in ``cwd`` if given, else in a fresh private folder holding a
    copy of the files of ``files_from`` (the submission's folder), so nothing
    it writes lands where the grader or nbgrader will look.
    """
    with tempfile.TemporaryDirectory(prefix="run-", dir=private_root()) as private:
        if cwd is None:
            cwd = os.path.join(private, "work")
            os.mkdir(cwd)
            if files_from is not None:
                _copy_files(files_from, cwd)
        return _run(cells, func, args_list, timeout, cwd, private, forbidden, allowed, python)


def _run(cells, func, args_list, timeout, cwd, private, forbidden, allowed, python):
    request = json.dumps({
        "cells": list(cells), "func": func,
        "cases": [encode(tuple(a)) for a in args_list],
        "forbidden": [str(p) for p in forbidden] + [private_root()],
        "allowed": [str(p) for p in allowed],
    })
    # The code gets its own temporary folder (not the shared /tmp) and only
    # the environment variables it needs: no course secret, no tokens.
    tmpdir = os.path.join(private, "tmp")
    os.mkdir(tmpdir)
    env = {k: v for k, v in os.environ.items() if k in _KEPT_ENV or k.startswith("LC_")}
    env.update(TMPDIR=tmpdir, MPLCONFIGDIR=tmpdir, MPLBACKEND="Agg", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # Results go to a file, so RLIMIT_FSIZE caps how much the code can send back.
    with open(os.path.join(private, "results"), "w+b") as results:
        proc = subprocess.Popen(
            [python or sys.executable, "-I", "-m", "coursegrader.sandbox"],
            stdin=subprocess.PIPE, stdout=results, stderr=subprocess.DEVNULL,
            cwd=cwd, env=env, start_new_session=True, preexec_fn=_limits,
        )
        note = ""
        try:
            proc.communicate(request.encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            note = f"your code timed out after {timeout:g} s"
        else:
            if proc.returncode != 0:
                note = _describe_exit(proc.returncode)
        finally:
            _kill(proc)
        results.seek(0)
        out = results.read(OUTPUT_LIMIT + 1)

    values = [None] * len(args_list)
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
            i = record["case"]
            if not (isinstance(i, int) and 0 <= i < len(values)) or values[i] is not None:
                continue
            if "error" in record:
                values[i] = (False, str(record["error"]))
            else:
                values[i] = (True, decode(record["value"]))
        except (ValueError, KeyError, TypeError, UnsupportedValue):
            continue  # a garbled line counts as no answer
    stop = note or "the process stopped before answering"
    values = [v if v is not None else (False, f"no answer ({stop})") for v in values]
    return SandboxResult(values=values, note=note)


def _kill(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait()


def _describe_exit(code):
    if code == -signal.SIGXFSZ:
        return (f"the process running your code was stopped for writing more than "
                f"{OUTPUT_LIMIT // 1024**2} MB")
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the process running your code was killed ({name})"
    return f"the process running your code exited with code {code}"


@dataclass
class PartGrade:
    score: float
    points: float
    report: str
    outcomes: list   # [(case, is_hidden, message or None)]


def grade_part(assignment, part_id, part, cells, *, student, secret, timeout=None,
               cwd=None, files_from=None, forbidden=(), allowed=(), python=None):
    """Grade ``part`` of ``assignment`` for ``student`` from the notebook's code ``cells``."""
    cases = [(c, False) for c in part.public()]
    if part.hidden is not None:
        rng = hidden_rng(secret, student, assignment, part_id)
        cases += [(c, True) for c in part.hidden(rng)]
    result = run_sandbox(cells, part.func, [c.args for c, _ in cases],
                         timeout=timeout or part.timeout, cwd=cwd, files_from=files_from,
                         forbidden=forbidden, allowed=allowed, python=python)
    outcomes = []
    for (case, is_hidden), (ok, got) in zip(cases, result.values):
        msg = judge_received(part, case, got) if ok else got
        outcomes.append((case, is_hidden, msg))
    passed = sum(m is None for _, _, m in outcomes)
    score = part_score(part, passed, len(outcomes))
    report = format_report(part_id, part, outcomes, show_hidden=False)
    if result.note:
        report += f"\n  note: {result.note}; the cases without an answer count as failed"
    report += f"\nScore: {score:g} of {part.points:g} points"
    return PartGrade(score=score, points=float(part.points), report=report, outcomes=outcomes)
