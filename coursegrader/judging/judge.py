"""Grade one part of a notebook outside the student's Python process.

:class:`PartSession` runs the student's code cells and function in the
sandbox of :mod:`coursegrader.sandbox` (the runner inside is
:mod:`coursegrader.runners.part_runner`; both sides speak
:mod:`coursegrader.runners.protocol` through the sandbox's channel; one
sandbox per submission, a fresh process per part), hands it one case at a time
under a time limit and returns what the function gave for each, and why the
run stopped early if it did (:func:`run_part` does the same for one part).
:func:`grade_part` draws the cases (hidden ones from the course secret, the
student and the part), compares with the reference and returns the part's
:class:`~coursegrader.record.PartResult`: its score, every case's outcome and
the report shown to the student.  What comes back is parsed as data with
bounded size and depth; an answer that cannot be parsed fails its case only.
"""

import time
from dataclasses import dataclass
from typing import Optional

from coursecheck import serial
from coursecheck.check import format_report, judge_received, printable
from coursecheck.parts import case_answer, describe, scored_cases

from .. import sandbox
from ..record import CaseResult, PartResult, Stop, UnsubmittedCode
from ..runners import protocol
from ..runners.protocol import StopReason
from .problem_sets import hidden_rng, part_score
from .variants import graded_on
from .verdicts import verdict_of

__all__ = ["PartRun", "PartSession", "run_part", "grade_part", "one_line"]


@dataclass
class PartRun:
    """What a part's run gave: per case ``(True, value)`` or ``(False, message)``,
    why the run stopped early (None when it did not), and the code it ran that
    the submission did not hand in as source (``ran``: how each came in, as the
    part's process reported it before running it; see
    :mod:`coursegrader.runners.code_origin`)."""

    values: list
    stop: Optional[Stop] = None
    ran: tuple = ()

    @property
    def note(self):
        """Why the run stopped early, in words ("" when it did not)."""
        return self.stop.describe() if self.stop is not None else ""


#: At most this many reports of code not handed in are kept per part.
RAN_KEPT = 3
#: The longest report line read as one: 200 characters, each escaped in JSON (12 bytes at most).
RAN_BYTES = 4096


def _receive_answer(channel, ran):
    """The next line of ``channel`` that is not a :class:`~protocol.Ran` report (nor
    empty); the reports read on the way are added to the list ``ran``."""
    while True:
        line = channel.receive()
        if not line.strip():
            continue
        try:
            report = protocol.decode(line, protocol.Ran, max_bytes=RAN_BYTES)
        except protocol.ProtocolError:
            return line
        if len(ran) < RAN_KEPT and report.description not in ran:
            ran.append(report.description)


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
    (see :mod:`coursegrader.runners.part_runner`: a part runs in a child forked
    before any student code, so it never sees another part's cases or
    leftovers).  A part whose process ends before its last answer, times out
    or floods its output ends the whole sandbox; the next part starts a new
    one.  ``files_from`` is the submission's folder: its regular files are
    copied into each part's folder, where the code runs.  ``forbidden`` and
    ``allowed`` only matter in the ``"unconfined"`` mode (paths the in-process
    guard refuses).  Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, *, files_from=None, mode="bubblewrap", forbidden=(), allowed=(),
                 policy=None):
        self._settings = dict(files_from=files_from, mode=mode, forbidden=forbidden,
                              allowed=allowed, policy=policy)
        self.files_from, self.mode, self.policy = files_from, mode, policy or sandbox.JUDGE
        self.header = {"sweep": True} if mode == "bubblewrap" else {
            "forbidden": tuple(str(p) for p in forbidden),
            "allowed": tuple(str(p) for p in allowed)}
        self._run = self._channel = self._apart = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._apart is not None:
            self._apart.close()
            self._apart = None
        if self._run is not None:
            self._channel.close()
            sandbox.stop(self._run)
            self._run = self._channel = None

    def apart(self):
        """A second session with this one's settings, kept until this one closes: a
        sandbox of its own, which nothing run in this one reaches (no process,
        file, ``/tmp`` or memory)."""
        if self._apart is None:
            self._apart = PartSession(**self._settings)
        return self._apart

    def run(self, cells, func, args_list, *, timeout=20.0):
        """Run ``cells`` then ``func(*args)`` for each args tuple; a :class:`PartRun`."""
        values = [None] * len(args_list)
        if self._run is None:
            self._run = sandbox.start(self.policy, sandbox.PART_RUNNER, mode=self.mode,
                                      files_from=self.files_from, control=True)
            self._channel = sandbox.Channel(self._run)
        channel = self._channel
        channel.expect(timeout, self.policy.output_bytes)
        stop, ran = None, []
        try:
            channel.send(protocol.PartHeader(tuple(cells), func, **self.header))
            for i, args in enumerate(args_list):
                channel.send(protocol.Case(i, serial.encode(tuple(args))))
                values[i] = _answer(_receive_answer(channel, ran), i,
                                    self.policy.output_bytes)
            channel.send(protocol.End())
            ended = channel.part_end()
            if ended.tampered:
                # It wrote into the grader's pipe (the runner then ends): none
                # of its answers counts.
                stop = Stop(StopReason.TAMPERED)
                values = [None] * len(args_list)
                self.close()
            elif ended.status != 0:
                stop = self._stop(sandbox.stop_for_exit(ended.status), ended.status, timeout)
        except sandbox.Stopped as stopped:
            # A part that ended early, ran out of time or flooded its output ends
            # the sandbox (what it left unread must reach no other part).
            stop = self._stop(stopped.reason, stopped.code, timeout)
            if stopped.reason is StopReason.TAMPERED:
                values = [None] * len(args_list)     # none of its answers counts
            self.close()
        why = stop.describe() if stop is not None else "the process stopped before answering"
        values = [v if v is not None else (False, f"no answer ({why})") for v in values]
        return PartRun(values=values, stop=stop, ran=tuple(ran))

    def _stop(self, reason, code, timeout):
        """The :class:`~coursegrader.record.Stop` of ``reason``, with the limit it hit."""
        limit = {StopReason.TIMEOUT: timeout,
                 StopReason.OUTPUT_LIMIT: self.policy.output_bytes,
                 StopReason.FILE_LIMIT: self.policy.file_bytes,
                 StopReason.CPU_LIMIT: self.policy.cpu_seconds}.get(reason)
        return Stop(reason, code=code, limit=limit)


def run_part(cells, func, args_list, *, timeout=20.0, files_from=None, mode="bubblewrap",
             forbidden=(), allowed=(), policy=None):
    """Run ``cells`` then ``func(*args)`` for each args tuple, in a sandbox of its own.

    See :class:`PartSession` for the arguments; grading several parts of one
    submission is cheaper with one session.
    """
    with PartSession(files_from=files_from, mode=mode, forbidden=forbidden,
                     allowed=allowed, policy=policy) as session:
        return session.run(cells, func, args_list, timeout=timeout)


ONE_LINE = 160  # characters of a message kept for a case


def one_line(text, limit=ONE_LINE):
    """``text`` cut to its first line and ``limit`` characters ("..." marks a cut)."""
    lines = str(text).strip().splitlines() or [""]
    first = lines[0].strip()
    if len(first) > limit:
        return first[:limit - 3] + "..."
    return first + " ..." if len(lines) > 1 else first


def _case_result(case, hidden, message, verdict=None):
    """A case's outcome as the record keeps it: the inputs of a failing public case
    (a hidden case's are never kept), the message cut to one line, the verdict
    handed in."""
    return CaseResult(label=case.label, hidden=bool(hidden), passed=message is None,
                      inputs=(None if message is None or hidden
                              else one_line("; then ".join(", ".join(describe(a) for a in args)
                                                           for args in case.calls))),
                      message=None if message is None else printable(one_line(message)),
                      verdict=verdict)


def _run_cases(session, cells, func, cases, timeout):
    """Every call of every case of ``cases`` ((case, hidden) pairs), in one
    :class:`PartRun` whose values are in the order of :attr:`Case.calls`.

    A case's further calls (:attr:`~coursecheck.parts.Case.separately`) are made
    in a sandbox of their own (:meth:`PartSession.apart`), in the reverse
    order, after the first calls of all the cases in ``session``: what they
    check is that the calls' answers agree, and a function that remembered the
    arguments of its earlier calls (a "feature map" whose rows are fitted to
    the points it has seen, in the order it saw them) would agree with itself
    in one process, or in another that saw the same points in the same order,
    without being a map.
    """
    firsts = session.run(cells, func, [c.args for c, _ in cases], timeout=timeout)
    later_args = [a for c, _ in cases for a in c.separately]
    if not later_args:
        return firsts
    laters = session.apart().run(cells, func, later_args[::-1], timeout=timeout)
    first_values, later_values = iter(firsts.values), reversed(laters.values)
    values = []
    for case, _ in cases:
        values.append(next(first_values))
        values.extend(next(later_values) for _ in case.separately)
    ran = firsts.ran + tuple(r for r in laters.ran if r not in firsts.ran)
    return PartRun(values=values, stop=firsts.stop or laters.stop, ran=ran[:RAN_KEPT])


def grade_part(assignment, part_id, part, cells, *, student, secret, points=None,
               timeout=None, files_from=None, mode="bubblewrap", forbidden=(), allowed=(),
               session=None, variant=None, unsubmitted=None):
    """Grade ``part`` of ``assignment`` for ``student`` from the notebook's code ``cells``.

    ``points``: what the part is worth in this notebook (default: its own
    points); ``variant``: for a part that varies, the student's variant it is
    bound to, which the report and the result name.  ``unsubmitted``: a list
    to which the code the part's process ran without the submission handing
    it in as source is added (as :class:`~coursegrader.record.UnsubmittedCode`).
    ``session`` (a
    :class:`PartSession`) runs it; without one, a sandbox is started for this
    part alone.  Returns its
    :class:`~coursegrader.record.PartResult`.
    """
    started = time.monotonic()
    points = float(part.points if points is None else points)
    cases = [(c, False) for c in part.public()]
    if part.hidden is not None:
        rng = hidden_rng(secret, student, assignment, part_id)
        cases += [(c, True) for c in part.hidden(rng)]
    if session is None:
        session = PartSession(files_from=files_from, mode=mode, forbidden=forbidden,
                              allowed=allowed)
        with session:
            run = _run_cases(session, cells, part.func, cases, timeout or part.timeout)
    else:
        run = _run_cases(session, cells, part.func, cases, timeout or part.timeout)
    if unsubmitted is not None:
        unsubmitted.extend(UnsubmittedCode(part_id, how) for how in run.ran)
    answers, start = [], 0
    for case, _ in cases:
        answers.append(case_answer(case, run.values[start:start + len(case.calls)]))
        start += len(case.calls)
    outcomes, verdicts = [], []
    for (case, is_hidden), (ok, got) in zip(cases, answers):
        msg = judge_received(part, case, got) if ok else got
        outcomes.append((case, is_hidden, msg))
        # a public case's verdict, for the similarity check (never a hidden one's)
        verdicts.append(verdict_of(got) if ok and part.verdict and not is_hidden else None)
    counted = scored_cases(part, outcomes)
    passed = sum(m is None for _, _, m in counted)
    score = min(points, round(part_score(part, passed, len(counted)) * points
                              / float(part.points), 2))
    report = format_report(part_id, part, outcomes, show_hidden=False)
    if run.stop is not None:
        report += f"\n  note: {run.note}; the cases without an answer count as failed"
    if variant is not None:
        report += f"\n{graded_on(variant)}"
    report += f"\nScore: {score:g} of {points:g} points"
    return PartResult(part=part_id, function=part.func, description=part.description,
                      points=points, score=score,
                      cases=tuple(_case_result(*o, verdict=v)
                                  for o, v in zip(outcomes, verdicts)), stop=run.stop,
                      report=report, seconds=round(time.monotonic() - started, 3),
                      variant=variant.label if variant is not None else None)
