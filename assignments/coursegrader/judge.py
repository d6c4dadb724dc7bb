"""Grade one part of a notebook outside the student's Python process.

:func:`run_sandbox` runs the student's code cells and function in the
sandbox of :mod:`coursegrader.confine` (the runner is
:mod:`coursegrader.sandbox`), hands it one case at a time under a time limit
and returns what the function gave for each; :func:`grade_part` draws the
cases (hidden ones from the course secret, the student and the part),
compares with kernlab and returns the score and the report shown to the
student.  What comes back is parsed as data with bounded size and depth; an
answer that cannot be parsed fails its case only.
"""

import json
import os
import selectors
import signal
import time
from dataclasses import dataclass

from coursecheck.check import format_report, judge_received
from coursecheck.serial import UnsupportedValue, decode, encode, loads_bounded

from . import confine
from .spec import hidden_rng, part_score

__all__ = ["SandboxResult", "run_sandbox", "grade_part", "PartGrade"]


@dataclass
class SandboxResult:
    values: list      # per case: (True, value) or (False, error message)
    note: str         # why the process stopped early, or ""


class _Stopped(Exception):
    """The sandbox stopped answering (the message says why)."""


class _Channel:
    """Line-by-line exchange with a sandbox, bounded in time and in bytes read."""

    def __init__(self, proc, deadline, max_bytes):
        self.proc, self.deadline, self.left = proc, deadline, max_bytes
        self.buffer = b""
        for pipe in (proc.stdin, proc.stdout):
            os.set_blocking(pipe.fileno(), False)
        self.sel = selectors.DefaultSelector()

    def _wait(self, fileobj, event):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _Stopped("timeout")
        self.sel.register(fileobj, event)
        try:
            return bool(self.sel.select(remaining))
        finally:
            self.sel.unregister(fileobj)

    def send(self, record):
        data = (json.dumps(record, allow_nan=False) + "\n").encode()
        fd = self.proc.stdin.fileno()
        while data:
            if not self._wait(fd, selectors.EVENT_WRITE):
                continue
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise _Stopped("exit") from None

    def receive(self):
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            if not self._wait(fd, selectors.EVENT_READ):
                continue
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise _Stopped("exit")
            self.left -= len(chunk)
            if self.left < 0:
                raise _Stopped("output")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def close(self):
        self.sel.close()


def _answer(line, i, max_bytes):
    """(ok, value or message) for the answer ``line`` to case ``i``; never raises."""
    try:
        record = loads_bounded(line, max_bytes)
        if type(record) is not dict or record.get("case") != i:
            return False, "no answer (the process sent something else)"
        if "error" in record:
            return False, str(record["error"])[:500]
        return True, decode(record["value"])
    except RecursionError:
        return False, "returned an unsupported type: the value is nested too deeply"
    except UnsupportedValue as exc:
        return False, f"returned an unsupported type: {exc}"
    except Exception as exc:  # any malformed record fails this case only
        return False, f"no answer (unreadable: {type(exc).__name__})"


def run_sandbox(cells, func, args_list, *, timeout=20.0, files_from=None, mode="bubblewrap",
                forbidden=(), allowed=(), policy=None):
    """Run ``cells`` then ``func(*args)`` for each args tuple, in one sandbox.

    ``files_from`` is the submission's folder: its regular files are copied
    into the sandbox's scratch folder, where the code runs.  ``forbidden`` and
    ``allowed`` only matter in the ``"unconfined"`` mode (paths the in-process
    guard refuses).
    """
    policy = policy or confine.JUDGE
    values = [None] * len(args_list)
    run = confine.start(policy, "sandbox", mode=mode, files_from=files_from)
    channel = _Channel(run.proc, time.monotonic() + timeout, policy.output_bytes)
    note = ""
    try:
        header = {"cells": list(cells), "func": func}
        if mode != "bubblewrap":
            header.update(forbidden=[str(p) for p in forbidden],
                          allowed=[str(p) for p in allowed])
        channel.send(header)
        for i, args in enumerate(args_list):
            channel.send({"case": i, "args": encode(tuple(args))})
            values[i] = _answer(channel.receive(), i, policy.output_bytes)
    except _Stopped as why:
        note = _describe_stop(str(why), run.proc, timeout, policy)
    finally:
        channel.close()
        confine.stop(run)
    stop = note or "the process stopped before answering"
    values = [v if v is not None else (False, f"no answer ({stop})") for v in values]
    return SandboxResult(values=values, note=note)


def _describe_stop(why, proc, timeout, policy):
    if why == "timeout":
        return f"your code timed out after {timeout:g} s"
    if why == "output":
        return f"your code sent back more than {policy.output_bytes // 1024**2} MB"
    try:
        code = proc.wait(timeout=5)
    except Exception:
        return "the process running your code stopped answering"
    if code > 128:      # bwrap reports a signal as 128 + its number
        code = -(code - 128)
    if code == -signal.SIGXFSZ:
        return (f"the process running your code was stopped for writing a file of more than "
                f"{policy.file_bytes // 1024**2} MB")
    if code == -signal.SIGXCPU:
        return f"the process running your code used more than {policy.cpu_seconds} s of CPU"
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
               files_from=None, mode="bubblewrap", forbidden=(), allowed=()):
    """Grade ``part`` of ``assignment`` for ``student`` from the notebook's code ``cells``."""
    cases = [(c, False) for c in part.public()]
    if part.hidden is not None:
        rng = hidden_rng(secret, student, assignment, part_id)
        cases += [(c, True) for c in part.hidden(rng)]
    result = run_sandbox(cells, part.func, [c.args for c, _ in cases],
                         timeout=timeout or part.timeout, files_from=files_from, mode=mode,
                         forbidden=forbidden, allowed=allowed)
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
