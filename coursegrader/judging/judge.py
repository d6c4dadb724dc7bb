"""Grade one part of a notebook outside the student's Python process.

:class:`PartSession` runs the student's code cells and function in the
sandbox of :mod:`coursegrader.sandbox` (the runner inside is
:mod:`coursegrader.runners.part_runner`, and both sides speak
:mod:`coursegrader.runners.protocol`; one sandbox per submission, a fresh
process per part), hands it one case at a time under a time limit and returns
what the function gave for each (:func:`run_part` does the same for one part);
:func:`grade_part` draws the cases (hidden ones from the course secret, the
student and the part), compares with kernlab and returns the score and the
report shown to the student.  What comes back is parsed as data with bounded size and depth; an
answer that cannot be parsed fails its case only.
"""

import os
import selectors
import signal
import time
from dataclasses import dataclass

from coursecheck.check import format_report, judge_received
from coursecheck.serial import UnsupportedValue, decode, encode, loads_bounded
from coursecheck.parts import describe

from .. import sandbox
from ..runners import protocol
from .problem_sets import hidden_rng, part_score

__all__ = ["PartResult", "PartSession", "run_part", "grade_part", "PartGrade",
           "case_fields", "one_line", "OUTCOMES_KEY"]


@dataclass
class PartResult:
    values: list      # per case: (True, value) or (False, error message)
    note: str         # why the process stopped early, or ""


class _Stopped(Exception):
    """The sandbox stopped answering (the message says why)."""


class _Channel:
    """Exchange with the judge's runner, bounded in time and in bytes read.

    Lines go to its stdin; answers come back as lines on its stdout and the
    runner's own ``{"part_end": status}`` lines on its stderr, which no part's
    process can write to.
    """

    def __init__(self, proc):
        self.deadline, self.left = 0.0, 0
        self.buffer, self.control, self.status = b"", b"", None
        self.tampered = False
        self.fds = {"in": proc.stdin.fileno(), "out": proc.stdout.fileno(),
                    "control": proc.stderr.fileno()}
        for fd in self.fds.values():
            os.set_blocking(fd, False)
        self.sel = selectors.DefaultSelector()

    def _wait(self, fds, event):
        """The descriptors of ``fds`` that are ready before the deadline (maybe none)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _Stopped("timeout")
        for fd in fds:
            self.sel.register(fd, event)
        try:
            return {key.fd for key, _ in self.sel.select(remaining)}
        finally:
            for fd in fds:
                self.sel.unregister(fd)

    def _write(self, data):
        fd = self.fds["in"]
        while data:
            if not self._wait([fd], selectors.EVENT_WRITE):
                continue
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise _Stopped("exit") from None

    def send_case(self, index, args):
        self._write(protocol.case_line(index, encode(tuple(args))))

    def send_end(self):
        self._write(protocol.END + b"\n")

    def send_header(self, record):
        """A part's header, framed so that the runner reads exactly that much."""
        self._write(protocol.frame_header(record))

    def _read_out(self):
        """Read what is there to read; False if nothing was."""
        try:
            chunk = os.read(self.fds["out"], 1 << 20)
        except BlockingIOError:
            return False
        if not chunk:
            raise _Stopped("exit")
        self.left -= len(chunk)
        if self.left < 0:
            raise _Stopped("output")
        self.buffer += chunk
        return True

    def _read_control(self):
        try:
            chunk = os.read(self.fds["control"], 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            raise _Stopped("exit")
        self.control = (self.control + chunk)[-(1 << 16):]
        while b"\n" in self.control:
            line, self.control = self.control.split(b"\n", 1)
            try:
                end = protocol.parse_part_end(line)
            except ValueError:
                raise _Stopped("exit") from None
            if end is not None:
                self.status, self.tampered = end

    def receive(self):
        """The next line the part's process wrote; stops if the process ended first."""
        while b"\n" not in self.buffer:
            if self.status is not None:   # it ended: read what it wrote before
                while b"\n" not in self.buffer and self._read_out():
                    pass
                if b"\n" not in self.buffer:
                    raise _Stopped(f"status {self.status}")
                break
            ready = self._wait([self.fds["out"], self.fds["control"]], selectors.EVENT_READ)
            if self.fds["out"] in ready:
                self._read_out()
            if self.fds["control"] in ready:
                self._read_control()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def part_end(self):
        """Wait for the runner to report the part's process ended; drop what it left unread."""
        while self.status is None:
            if self.fds["control"] in self._wait([self.fds["control"]], selectors.EVENT_READ):
                self._read_control()
        status, self.status = self.status, None
        while True:       # the process is gone: everything it wrote is in the pipe
            try:
                if not os.read(self.fds["out"], 1 << 20):
                    break
            except BlockingIOError:
                break
        self.buffer = b""
        return status

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


class PartSession:
    """One sandbox for a submission's parts, each graded by a fresh process of its own.

    The sandbox starts at the first :meth:`run` and serves every part after it
    (see :mod:`coursegrader.runners.part_runner`: a part runs in a child forked before any
    student code, so it never sees another part's cases or leftovers).  A part
    whose process ends before its last answer, times out or floods its output
    ends the whole sandbox; the next part starts a new one.  ``files_from`` is
    the submission's folder: its regular files are copied into each part's
    folder, where the code runs.
    ``forbidden`` and ``allowed`` only matter in the ``"unconfined"`` mode
    (paths the in-process guard refuses).  Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, *, files_from=None, mode="bubblewrap", forbidden=(), allowed=(),
                 policy=None):
        self.files_from, self.mode, self.policy = files_from, mode, policy or sandbox.JUDGE
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
            sandbox.stop(self._run)
            self._run = self._channel = None

    def run(self, cells, func, args_list, *, timeout=20.0):
        """Run ``cells`` then ``func(*args)`` for each args tuple; a :class:`PartResult`."""
        values = [None] * len(args_list)
        if self._run is None:
            self._run = sandbox.start(self.policy, sandbox.PART_RUNNER, mode=self.mode,
                                      files_from=self.files_from, control=True)
            self._channel = _Channel(self._run.proc)
        channel = self._channel
        channel.deadline = time.monotonic() + timeout
        channel.left = self.policy.output_bytes
        note = ""
        try:
            channel.send_header({**self.header, "cells": list(cells), "func": func})
            for i, args in enumerate(args_list):
                channel.send_case(i, args)
                values[i] = _answer(channel.receive(), i, self.policy.output_bytes)
            channel.send_end()
            status = channel.part_end()
            if channel.tampered:
                # It wrote into the grader's pipe (the runner then ends): none
                # of its answers counts.
                note = _TAMPERED
                values = [None] * len(args_list)
                self.close()
            elif status != 0:
                note = _describe_stop(f"status {status}", None, timeout, self.policy)
        except _Stopped as why:
            # A part that ended early, ran out of time or flooded its output ends
            # the sandbox (what it left unread must reach no other part).
            note = _describe_stop(str(why), self._run.proc, timeout, self.policy)
            self.close()
        stop = note or "the process stopped before answering"
        values = [v if v is not None else (False, f"no answer ({stop})") for v in values]
        return PartResult(values=values, note=note)


_TAMPERED = ("the process running your code wrote into the grader's input channel, "
             "which is not allowed; none of its answers counts")


def run_part(cells, func, args_list, *, timeout=20.0, files_from=None, mode="bubblewrap",
                forbidden=(), allowed=(), policy=None):
    """Run ``cells`` then ``func(*args)`` for each args tuple, in a sandbox of its own.

    See :class:`PartSession` for the arguments; grading several parts of one
    submission is cheaper with one session.
    """
    with PartSession(files_from=files_from, mode=mode, forbidden=forbidden,
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
    cases: list = None   # case_fields(part_id, outcomes): what the grading log keeps
    note: str = ""       # why the part's run stopped early, or ""


ONE_LINE = 160  # characters of a message kept in the grading log
# The key of a test cell's metadata where the judge's preprocessor leaves
# case_fields() and the note for the grading log (coursegrader.tools.batch).
OUTCOMES_KEY = "coursegrader_outcomes"


def one_line(text, limit=ONE_LINE):
    """``text`` cut to its first line and ``limit`` characters ("..." marks a cut)."""
    lines = str(text).strip().splitlines() or [""]
    first = lines[0].strip()
    if len(first) > limit:
        return first[:limit - 3] + "..."
    return first + " ..." if len(lines) > 1 else first


def case_fields(part_id, outcomes):
    """Each case's outcome as plain fields: part, case label, hidden, passed,
    the inputs of a failing public case (hidden inputs are never kept) and the
    message cut to one line."""
    return [{"part": part_id, "case": case.label, "hidden": bool(is_hidden),
             "passed": msg is None,
             "inputs": (None if msg is None or is_hidden
                        else one_line(", ".join(describe(a) for a in case.args))),
             "message": None if msg is None else one_line(msg)}
            for case, is_hidden, msg in outcomes]


def grade_part(assignment, part_id, part, cells, *, student, secret, timeout=None,
               files_from=None, mode="bubblewrap", forbidden=(), allowed=(), session=None):
    """Grade ``part`` of ``assignment`` for ``student`` from the notebook's code ``cells``.

    ``session`` (a :class:`PartSession`) runs it; without one, a sandbox is
    started for this part alone.
    """
    cases = [(c, False) for c in part.public()]
    if part.hidden is not None:
        rng = hidden_rng(secret, student, assignment, part_id)
        cases += [(c, True) for c in part.hidden(rng)]
    args = [c.args for c, _ in cases]
    if session is None:
        result = run_part(cells, part.func, args, timeout=timeout or part.timeout,
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
    return PartGrade(score=score, points=float(part.points), report=report,
                     outcomes=outcomes, cases=case_fields(part_id, outcomes),
                     note=result.note or "")
