"""The check a student runs in the notebook: ``check("ps1", "part", func)``.

It calls ``func`` on the part's public cases, prints one line per case and,
when a case fails, raises :class:`CheckFailed` whose first lines name the
failing case, what was expected and what ``func`` returned (``nbgrader
validate`` prints those lines, each cut at 87 characters, so they are kept
short).  The check cells carry the ``raises-exception`` tag, so "Run all" in
JupyterLab reports the failure and goes on to the next cell, while
``nbgrader validate`` still sees the error and counts the test as failed.

The check also warns, with the grader's own words (:mod:`coursecheck.policy`),
when the function uses a module graded code may not import; such a check
fails, as the grade would be zero.  Warnings are silenced and anything written
to stderr is swallowed, so the cell never writes to stderr.

This check is feedback while working.  The grade is decided again outside the
student's Python process by the course's grader.
"""

import builtins
import contextlib
import io
import os
import sys
import tempfile
import textwrap
import traceback
import types
import warnings

from .policy import FORBIDDEN_IMPORTS, forbidden_import_message
from .serial import UnsupportedValue, roundtrip
from .parts import PUBLIC_UNSCORED, case_answer, get_part, judge_case
from .variants import bind, student_variant

__all__ = ["CheckFailed", "check", "check_cases", "run_cases", "format_report", "printable",
           "judge_received", "forbidden_uses"]

WIDTH = 78  # nbgrader validate cuts each line of an error at 87 characters, indent included


class CheckFailed(AssertionError):
    """Raised by :func:`check` when a case fails; the message names the case."""

    def _render_traceback_(self):
        # IPython shows this instead of a traceback through the checking code;
        # the first line names the function and how many checks failed.
        return f"CheckFailed: {self}".split("\n")


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
    """Line number of the last traceback frame outside coursecheck, for the message."""
    here = os.path.dirname(os.path.abspath(__file__))
    line = None
    for frame in traceback.extract_tb(tb):
        if not os.path.abspath(frame.filename).startswith(here):
            line = frame.lineno
    return line


def call_and_judge(part, case, func):
    """Call ``func`` on a fresh copy of the arguments of each of the case's calls
    (one, or more: :attr:`~coursecheck.parts.Case.separately`); return None or a message."""
    ok, got = case_answer(case, [_call(case, func, args) for args in case.calls])
    return judge_received(part, case, got) if ok else got


def _call(case, func, args):
    """``(True, value)`` for what ``func(*args)`` returned (through the round trip), or
    ``(False, message)`` saying why there is none."""
    try:
        args = roundtrip(args)
    except UnsupportedValue as exc:  # a bug in the problem set, not the student's
        raise ValueError(f"case {case.label!r} has arguments that cannot be sent: {exc}") from exc
    try:
        result = func(*args)
    except NotImplementedError:
        return False, "not implemented yet (the function raises NotImplementedError)"
    except Exception as exc:
        line = _student_frame(exc.__traceback__)
        at = f" (line {line} of your code)" if line else ""
        return False, f"raised {type(exc).__name__}: {exc}{at}"
    try:
        return True, roundtrip(result)
    except UnsupportedValue as exc:
        return False, (f"returned an unsupported type: {exc}; return numbers, arrays, lists "
                       "or tuples")


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


def printable(message):
    """``message`` as one line of plain text: its line breaks and runs of spaces
    made one space, and every other character a terminal or a page would act on
    (an escape sequence's ESC, a carriage return, a right-to-left override)
    written out as its escape, ``\\x1b``, and so is a character drawn blank
    (:data:`_BLANK`).  A message can hold what the student's code raised, and a
    report is shown where ANSI codes colour the text (the feedback page,
    Formgrader): there, a message must not draw a fake line or hide the
    grader's next ones."""
    text = " ".join(str(message).split())
    return "".join(ch if ch.isprintable() and ch not in _BLANK else ascii(ch)[1:-1]
                   for ch in text)


#: Characters Python calls printable that a browser draws as blank space (a Braille
#: blank, Hangul fillers, a combining grapheme joiner, Khmer's inherent vowels):
#: runs of them pushed a message's own words to the start of the report's next
#: lines, where they read as the grader's.
_BLANK = frozenset("\u2800\u3164\u115f\u1160\uffa0\u034f\u17b4\u17b5")


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
            lines.append(f"  FAIL  {tag}case '{case.label}': {printable(msg)}")
    if hidden_total:
        lines.append(f"  {hidden_ok} of {hidden_total} hidden checks passed")
    if not part.public_points:
        lines.append(_wrap(f"Note: {PUBLIC_UNSCORED}.", "  "))
    return "\n".join(lines)


def _root(module_name):
    return (module_name or "").split(".")[0]


def forbidden_uses(func, _depth=3):
    """Forbidden modules ``func`` refers to: by a global name, or through helper functions.

    Looks at the names the function's code reads from its globals (and, a few
    levels down, those of the notebook functions it calls) and returns the
    sorted names of forbidden modules they come from, e.g. ``["kernlab"]``.
    """
    found, seen = set(), set()

    def code_names(code):
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= code_names(const)
        return names

    def visit(f, depth):
        code = getattr(f, "__code__", None)
        if code is None or id(f) in seen:
            return
        seen.add(id(f))
        glob = getattr(f, "__globals__", {})
        for name in code_names(code):
            if name not in glob:
                continue
            value = glob[name]
            origin = value.__name__ if isinstance(value, types.ModuleType) \
                else getattr(value, "__module__", None)
            if _root(origin) in FORBIDDEN_IMPORTS:
                found.add(_root(origin))
            elif isinstance(value, types.FunctionType) and depth > 0:
                visit(value, depth - 1)

    visit(func, _depth)
    return sorted(found)


@contextlib.contextmanager
def _recording_imports(seen):
    """Record in ``seen`` the forbidden modules imported while the block runs."""
    real_import = builtins.__import__

    def recording_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and _root(name) in FORBIDDEN_IMPORTS:
            seen.add(_root(name))
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = recording_import
    try:
        yield
    finally:
        builtins.__import__ = real_import


def _wrap(text, indent="  "):
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False)


def check_cases(part_id, part, cases, func, *, hidden=False):
    """Run ``func`` on ``cases``, print the report, raise :class:`CheckFailed` on a failure."""
    name = getattr(func, "__name__", part.func)
    if not callable(func):
        raise CheckFailed(f"expected the function {part.func}, got {type(func).__name__}")
    imported = set()

    def watched(*args):
        with _recording_imports(imported):
            return func(*args)

    outcomes = run_cases(part, [(c, hidden) for c in cases], watched)
    print(format_report(part_id, part, outcomes))
    forbidden = sorted(set(forbidden_uses(func)) | imported)
    for module in forbidden:
        print(_wrap(f"WARNING {forbidden_import_message(module)}: {name} uses {module}, and "
                    f"the grader runs it where {module} cannot be imported (0 points).", ""))
    failed = [(c, m) for c, _, m in outcomes if m is not None]
    if failed or forbidden:
        lines = [f"{name} [{part_id}]: {len(failed)} of {len(outcomes)} checks failed"]
        lines += [_wrap(f"{forbidden_import_message(m)} (0 points)") for m in forbidden]
        tag = "hidden-style " if hidden else ""
        for case, msg in failed[:3]:
            lines.append(_wrap(f"{tag}case '{case.label}':"))
            lines += [_wrap(line.strip(), "    ") for line in msg.split("\n")]
        if len(failed) > 3:
            lines.append(f"  ... and {len(failed) - 3} more failing (see the report above)")
        raise CheckFailed("\n".join(lines))
    if hidden:
        print("All hidden-style checks passed.")
    elif not part.public_points:
        print("All public checks passed; they carry no points: the grade comes from "
              "hidden cases.")
    else:
        print("All public checks passed; the grade also uses hidden cases.")


def check(assignment, part_id, func):
    """Check ``func`` on the public cases of ``assignment``'s part ``part_id``.

    Prints a line per case and raises :class:`CheckFailed` if a case fails or
    the function uses a module graded code may not import.
    """
    part = get_part(assignment, part_id)
    if part.varies:   # on the variant the notebook shows (the grader draws it again)
        shown = student_variant(assignment)
        print(f"On the variant of {shown.student} ({shown.label}).")
        part = bind(part, shown.params)
    check_cases(part_id, part, part.public(), func)
