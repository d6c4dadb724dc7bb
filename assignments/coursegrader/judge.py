"""Grade one part of a notebook outside the student's Python process.

:class:`SandboxSession` runs the student's code cells and function in the
sandbox of :mod:`coursegrader.confine` (the runner is
:mod:`coursegrader.sandbox`; one sandbox per submission, a fresh process per
part), hands it one case at a time under a time limit and returns what the
function gave for each (:func:`run_sandbox` does the same for one part); :func:`grade_part` draws the
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

__all__ = ["SandboxResult", "SandboxSession", "run_sandbox", "grade_part", "PartGrade"]


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


class SandboxSession:
    """One sandbox for a submission's parts, each graded by a fresh process of its own.

    The sandbox starts at the first :meth:`run` and serves every part after it
    (see :mod:`coursegrader.sandbox`: a part runs in a child forked before any
    student code, so it never sees another part's cases or leftovers).  A part
    that times out or floods its output ends the whole sandbox; the next part
    starts a new one.  ``files_from`` is the submission's folder: its regular
    files are copied into each part's folder, where the code runs.
    ``forbidden`` and ``allowed`` only matter in the ``"unconfined"`` mode
    (paths the in-process guard refuses).  Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, *, files_from=None, mode="bubblewrap", forbidden=(), allowed=(),
                 policy=None):
        self.files_from, self.mode, self.policy = files_from, mode, policy or confine.JUDGE
        self.header = {"sweep": True} if mode == "bubblewrap" else {
            "forbidden": [str(p) for p in forbidden], "allowed": [str(p) for p in allowed]}
        self._run = self._channel = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._run is not None:
            self._channel.close()
            confine.stop(self._run)
            self._run = self._channel = None

    def run(self, cells, func, args_list, *, timeout=20.0):
        """Run ``cells`` then ``func(*args)`` for each args tuple; a :class:`SandboxResult`."""
        values = [None] * len(args_list)
        if self._run is None:
            self._run = confine.start(self.policy, "sandbox", mode=self.mode,
                                      files_from=self.files_from)
            self._channel = _Channel(self._run.proc, 0, 0)
        channel = self._channel
        channel.deadline = time.monotonic() + timeout
        channel.left = self.policy.output_bytes
        note, ended = "", False
        try:
            channel.send({**self.header, "cells": list(cells), "func": func})
            for i, args in enumerate(args_list):
                channel.send({"case": i, "args": encode(tuple(args))})
                line = channel.receive()
                if line.startswith(_PART_END):
                    ended = True
                    raise _Stopped(_part_end(line))
                values[i] = _answer(line, i, self.policy.output_bytes)
            channel.send(_END)
            while not (line := channel.receive()).startswith(_PART_END):
                pass       # anything the part wrote after its last answer
        except _Stopped as why:
            note = _describe_stop(str(why), self._run.proc, timeout, self.policy)
            if ended:      # the part's process died; the sandbox serves the next part
                try:
                    channel.send(_END)
                except _Stopped:
                    self.close()
            else:
                self.close()
        stop = note or "the process stopped before answering"
        values = [v if v is not None else (False, f"no answer ({stop})") for v in values]
        return SandboxResult(values=values, note=note)


_PART_END = b'{"part_end": '
_END = {"end": True}


def _part_end(line):
    """The exit status in the runner's ``{"part_end": status}`` line, as a stop reason."""
    try:
        status = json.loads(line)["part_end"]
    except (ValueError, KeyError, TypeError):
        return "exit"
    return f"status {status}" if type(status) is int else "exit"


def run_sandbox(cells, func, args_list, *, timeout=20.0, files_from=None, mode="bubblewrap",
                forbidden=(), allowed=(), policy=None):
    """Run ``cells`` then ``func(*args)`` for each args tuple, in a sandbox of its own.

    See :class:`SandboxSession` for the arguments; grading several parts of one
    submission is cheaper with one session.
    """
    with SandboxSession(files_from=files_from, mode=mode, forbidden=forbidden,
                        allowed=allowed, policy=policy) as session:
        return session.run(cells, func, args_list, timeout=timeout)


def _describe_stop(why, proc, timeout, policy):
    if why == "timeout":
        return f"your code timed out after {timeout:g} s"
    if why == "output":
        return f"your code sent back more than {policy.output_bytes // 1024**2} MB"
    if why.startswith("status "):           # the part's own process ended
        code = int(why.split()[1])
    else:                                   # the whole sandbox ended
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
               files_from=None, mode="bubblewrap", forbidden=(), allowed=(), session=None):
    """Grade ``part`` of ``assignment`` for ``student`` from the notebook's code ``cells``.

    ``session`` (a :class:`SandboxSession`) runs it; without one, a sandbox is
    started for this part alone.
    """
    cases = [(c, False) for c in part.public()]
    if part.hidden is not None:
        rng = hidden_rng(secret, student, assignment, part_id)
        cases += [(c, True) for c in part.hidden(rng)]
    args = [c.args for c, _ in cases]
    if session is None:
        result = run_sandbox(cells, part.func, args, timeout=timeout or part.timeout,
                             files_from=files_from, mode=mode, forbidden=forbidden,
                             allowed=allowed)
    else:
        result = session.run(cells, part.func, args, timeout=timeout or part.timeout)
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
