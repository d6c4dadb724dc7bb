"""The check a student runs in the notebook: ``check("ps1", "part", func)``.

It calls ``func`` on the part's public cases (and, with ``hidden=True``, on a
few hidden-style cases drawn from a fixed local seed), prints one line per
case and raises :class:`CheckFailed` naming the first failing case, its
expected value and what ``func`` returned.  Warnings are silenced and
anything written to stderr is swallowed, so the cell never writes to stderr.

This check is feedback while working.  The grade is decided again outside
the student's Python process by :mod:`coursegrader.preprocessor`.
"""

import contextlib
import io
import os
import sys
import tempfile
import traceback
import warnings

from .serial import UnsupportedValue, roundtrip
from .spec import get_part, judge_case, local_hidden_rng

__all__ = ["CheckFailed", "check", "run_cases", "format_report"]


class CheckFailed(AssertionError):
    """Raised by :func:`check` when a case fails; the message names the case."""

    def _render_traceback_(self):
        # IPython shows this instead of a traceback through the grading code.
        return [f"CheckFailed: {self}"]


@contextlib.contextmanager
def _quiet():
    """Silence warnings and swallow stderr, at the Python and the file-descriptor level."""
    saved_fd = None
    sink = None
    try:
        sys.stderr.flush()
    except Exception:
        pass
    try:
        sink = tempfile.TemporaryFile()
        saved_fd = os.dup(2)
        os.dup2(sink.fileno(), 2)
    except OSError:
        saved_fd = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.redirect_stderr(io.StringIO()):
                yield
    finally:
        if saved_fd is not None:
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
        if sink is not None:
            sink.close()


def _student_frame(tb):
    """Line number of the last traceback frame outside coursegrader, for the message."""
    here = os.path.dirname(os.path.abspath(__file__))
    line = None
    for frame in traceback.extract_tb(tb):
        if not os.path.abspath(frame.filename).startswith(here):
            line = frame.lineno
    return line


def call_and_judge(part, case, func):
    """Call ``func`` on a fresh copy of the case's arguments; return None or a message."""
    try:
        args = roundtrip(case.args)
    except UnsupportedValue as exc:  # a bug in the problem set, not the student's
        raise ValueError(f"case {case.label!r} has arguments that cannot be sent: {exc}") from exc
    try:
        result = func(*args)
    except NotImplementedError:
        return "not implemented yet (the function raises NotImplementedError)"
    except Exception as exc:
        line = _student_frame(exc.__traceback__)
        at = f" (line {line} of your code)" if line else ""
        return f"raised {type(exc).__name__}: {exc}{at}"
    try:
        got = roundtrip(result)
    except UnsupportedValue as exc:
        return f"returned an unsupported type: {exc}; return numbers, arrays, lists or tuples"
    return judge_received(part, case, got)


def judge_received(part, case, got):
    """Judge a plain value (already through the pickle-free round trip)."""
    try:
        return judge_case(part, case, got)
    except Exception as exc:
        return f"could not check the answer ({type(exc).__name__}: {exc})"


def run_cases(part, cases, func):
    """Run ``func`` on ``cases`` [(Case, is_hidden)]; return [(case, is_hidden, message)]."""
    outcomes = []
    with _quiet():
        for case, is_hidden in cases:
            outcomes.append((case, is_hidden, call_and_judge(part, case, func)))
    return outcomes


def format_report(part_id, part, outcomes, show_hidden=True):
    """Readable report; hidden cases are summarised unless ``show_hidden``."""
    passed = sum(msg is None for _, _, msg in outcomes)
    lines = [f"{part.func} [{part_id}]: {passed} of {len(outcomes)} checks passed"]
    hidden_total = hidden_ok = 0
    for case, is_hidden, msg in outcomes:
        if is_hidden and not show_hidden:
            hidden_total += 1
            hidden_ok += msg is None
            continue
        tag = "hidden-style " if is_hidden else ""
        if msg is None:
            lines.append(f"  ok    {tag}case '{case.label}'")
        else:
            lines.append(f"  FAIL  {tag}case '{case.label}': {msg}")
    if hidden_total:
        lines.append(f"  {hidden_ok} of {hidden_total} hidden checks passed")
    return "\n".join(lines)


def check(assignment, part_id, func, hidden=False):
    """Check ``func`` on the public cases of ``assignment``'s part ``part_id``.

    Prints a line per case and raises :class:`CheckFailed` if any case fails.
    With ``hidden=True`` a few hidden-style cases from a fixed seed are added.
    """
    part = get_part(assignment, part_id)
    if not callable(func):
        raise CheckFailed(f"expected the function {part.func}, got {type(func).__name__}")
    cases = [(c, False) for c in part.public()]
    if hidden and part.hidden is not None:
        cases += [(c, True) for c in part.hidden(local_hidden_rng(assignment, part_id))]
    outcomes = run_cases(part, cases, func)
    print(format_report(part_id, part, outcomes))
    failed = [(c, h, m) for c, h, m in outcomes if m is not None]
    if failed:
        case, is_hidden, msg = failed[0]
        more = f" (and {len(failed) - 1} more failing)" if len(failed) > 1 else ""
        tag = "hidden-style " if is_hidden else ""
        raise CheckFailed(f"{tag}case '{case.label}': {msg}{more}")
    print("All checks passed." if hidden else
          "All public checks passed; the grade also uses hidden cases.")
