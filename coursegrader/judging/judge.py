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

import signal
from dataclasses import dataclass

from coursecheck import serial
from coursecheck.check import format_report, judge_received
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


def _answer(line, i, max_bytes):
    """(ok, value or message) for the answer ``line`` to case ``i``; never raises."""
    try:
        answer = protocol.decode(line, protocol.Answer, max_bytes=max_bytes)
    except protocol.ProtocolError:
        return False, "no answer (the process sent something else)"
    if answer.index != i:
        return False, "no answer (the process sent something else)"
    if answer.error is not None:
        return False, answer.error[:500]
    try:
        return True, serial.decode(answer.value)
    except RecursionError:
        return False, "returned an unsupported type: the value is nested too deeply"
    except serial.UnsupportedValue as exc:
        return False, f"returned an unsupported type: {exc}"
    except Exception as exc:  # any malformed value fails this case only
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
            "forbidden": tuple(str(p) for p in forbidden),
            "allowed": tuple(str(p) for p in allowed)}
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
            self._channel = sandbox.Channel(self._run)
        channel = self._channel
        channel.expect(timeout, self.policy.output_bytes)
        note = ""
        try:
            channel.send(protocol.PartHeader(tuple(cells), func, **self.header))
            for i, args in enumerate(args_list):
                channel.send(protocol.Case(i, serial.encode(tuple(args))))
                values[i] = _answer(channel.receive(), i, self.policy.output_bytes)
            channel.send(protocol.End())
            ended = channel.part_end()
            if ended.tampered:
                # It wrote into the grader's pipe (the runner then ends): none
                # of its answers counts.
                note = _TAMPERED
                values = [None] * len(args_list)
                self.close()
            elif ended.status != 0:
                note = _describe_stop(sandbox.stop_for_exit(ended.status), ended.status,
                                      timeout, self.policy)
        except sandbox.Stopped as why:
            # A part that ended early, ran out of time or flooded its output ends
            # the sandbox (what it left unread must reach no other part).
            note = _describe_stop(why.reason, why.code, timeout, self.policy)
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


def _describe_stop(reason, code, timeout, policy):
    Reason = protocol.StopReason
    if reason is Reason.TIMEOUT:
        return f"your code timed out after {timeout:g} s"
    if reason is Reason.OUTPUT_LIMIT:
        return f"your code sent back more than {policy.output_bytes // 1024**2} MB"
    if reason is Reason.VANISHED:
        return "the process running your code stopped answering"
    if reason is Reason.FILE_LIMIT:
        return (f"the process running your code was stopped for writing a file of more than "
                f"{policy.file_bytes // 1024**2} MB")
    if reason is Reason.CPU_LIMIT:
        return f"the process running your code used more than {policy.cpu_seconds} s of CPU"
    if reason is Reason.KILLED:
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
