"""What a self-check says, read from its text: one parser for every output.

A self-check is written in a chapter's MyST source as a directive whose body
is the question, then one list item per choice::

    :::{selfcheck}
    :kind: choice
    Which ...?

    - [x] the right choice, on one line
      Why it is right, with a link to the text ({eq}`kt-dual`).
    - [ ] a wrong choice
      Why it is wrong.
    :::

``:kind:`` is ``choice`` (one answer; the default), ``select`` (select all
that apply: every ``[x]`` is to be ticked, every ``[ ]`` left alone) or
``number`` (the reader types a number; the ``[x]`` item's label is the
answer, ``:tolerance:`` the absolute error allowed; a ``[ ]`` item's label is
a value a reader is likely to reach by a known mistake, and one ``[ ] other``
item explains any other value).  Every item carries its explanation in the
indented lines under it.

The website (the Sphinx directive), the PDF and the downloaded notebook all
read a self-check through :func:`parse`, so they cannot disagree.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass

KINDS = ("choice", "select", "number")
OTHER = "other"

_ITEM = re.compile(r"^- \[( |x|X)\] (.*\S)\s*$")
_OPTION = re.compile(r"^:([A-Za-z][\w-]*):(?:\s+(.*?))?\s*$")
_NUMBER = re.compile(r"^[-+\u2212]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_FENCE_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{selfcheck\}\s*$")


class SelfCheckError(ValueError):
    """A self-check that cannot be read; ``line`` counts from its body's first line."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Choice:
    label: str            # MyST, one line
    correct: bool
    explanation: str      # MyST, any blocks
    value: float | None   # kind "number": the value, None for "other"
    line: int             # of the label, from the body's first line


@dataclass(frozen=True)
class SelfCheck:
    kind: str
    question: str
    choices: tuple[Choice, ...]
    tolerance: float = 0.0
    question_line: int = 0

    @property
    def answer(self) -> Choice | None:
        """The right choice of a ``choice`` or ``number`` question."""
        right = [c for c in self.choices if c.correct]
        return right[0] if len(right) == 1 else None


def parse_number(text: str) -> float | None:
    """A decimal (``-0.25``, ``1e-3``) or a fraction (``3/4``); None otherwise."""
    text = text.strip().replace("\u2212", "-").replace(" ", "")
    if "/" in text:
        top, _, bottom = text.partition("/")
        if _NUMBER.match(top) and _NUMBER.match(bottom) and float(bottom) != 0:
            return float(top) / float(bottom)
        return None
    return float(text) if _NUMBER.match(text) else None


def split_options(lines: list[str]) -> tuple[dict[str, str], list[str], int]:
    """``:key: value`` lines at the top of a body: (options, the rest, lines used)."""
    options, used = {}, 0
    for line in lines:
        match = _OPTION.match(line)
        if not match:
            break
        options[match.group(1)] = match.group(2) or ""
        used += 1
    return options, lines[used:], used


def parse(lines: list[str], options: dict[str, str] | None = None) -> SelfCheck:
    """Read a self-check's body (``lines``, options already taken off) and options."""
    options = dict(options or {})
    kind = (options.pop("kind", None) or "choice").strip()
    if kind not in KINDS:
        raise SelfCheckError(f":kind: must be one of {', '.join(KINDS)}, not {kind!r}")
    tolerance = 0.0
    if "tolerance" in options:
        if kind != "number":
            raise SelfCheckError(":tolerance: belongs to a question of :kind: number")
        tolerance = parse_number(options.pop("tolerance") or "")
        if tolerance is None or tolerance < 0 or not math.isfinite(tolerance):
            raise SelfCheckError(":tolerance: must be a number >= 0")
    if options:
        raise SelfCheckError(f"unknown option(s) {', '.join(':' + k + ':' for k in options)};"
                             " a self-check knows :kind: and :tolerance:")

    first = next((i for i, line in enumerate(lines) if line.startswith("- [")), len(lines))
    question = "\n".join(lines[:first]).strip("\n")
    if not question.strip():
        raise SelfCheckError("the question is missing: write it before the list of choices")
    question_line = next(i for i, line in enumerate(lines) if line.strip())

    choices, current = [], None
    for i in range(first, len(lines)):
        line = lines[i]
        match = _ITEM.match(line)
        if match:
            current = [match.group(1) != " ", match.group(2), [], i]
            choices.append(current)
        elif line.strip() and not line.startswith("  "):
            raise SelfCheckError(
                "after the choices only their explanations may follow, indented by two "
                f"spaces; a choice is written '- [x] text' or '- [ ] text': {line.strip()!r}", i)
        else:
            current[2].append(line)

    if len(choices) < 2:
        raise SelfCheckError("a self-check needs at least two choices ('- [x] ...', '- [ ] ...')")
    read = []
    for correct, label, body, line in choices:
        explanation = textwrap.dedent("\n".join(body)).strip("\n")
        if not explanation.strip():
            raise SelfCheckError(f"choice {label!r} has no explanation: write it in the "
                                 "lines under the choice, indented by two spaces", line)
        value = None
        if kind == "number" and not (label.strip() == OTHER and not correct):
            value = parse_number(label)
            if value is None:
                raise SelfCheckError(f"in a question of :kind: number every choice is a "
                                     f"number or '{OTHER}', not {label!r}", line)
        read.append(Choice(label.strip(), correct, explanation, value, line))

    right = sum(c.correct for c in read)
    if kind in ("choice", "number") and right != 1:
        raise SelfCheckError(f"a question of :kind: {kind} has exactly one '- [x]' choice, "
                             f"not {right}")
    if kind == "number":
        others = [c for c in read if c.value is None]
        if len(others) != 1:
            raise SelfCheckError(f"a question of :kind: number has exactly one '- [ ] {OTHER}'"
                                 " choice, which explains any value not listed")
        answer = next(c for c in read if c.correct)
        for c in read:
            if c is not answer and c.value is not None and abs(c.value - answer.value) <= tolerance:
                raise SelfCheckError(f"the wrong value {c.label} is within the tolerance of "
                                     f"the answer {answer.label}", c.line)
    return SelfCheck(kind, question, tuple(read), tolerance, question_line)


def judge_number(check: SelfCheck, text: str) -> Choice | None:
    """The choice whose explanation a typed answer gets; None if it is no number."""
    value = parse_number(text)
    if value is None:
        return None
    for choice in sorted(check.choices, key=lambda c: not c.correct):
        if choice.value is not None and abs(value - choice.value) <= check.tolerance:
            return choice
    return next(c for c in check.choices if c.value is None)


def letter(index: int) -> str:
    """The letter of a choice: a, b, ..., z, aa, ab, ..."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


def listing(items: list[str]) -> str:
    """"(a)", "(a) and (c)", "(a), (b) and (c)"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class Block:
    """A self-check found in Markdown text: the lines it spans and what it says."""
    start: int          # line of the opening fence
    end: int            # line after the closing fence
    check: SelfCheck


def find_blocks(text: str) -> list[Block]:
    """Every ``{selfcheck}`` fence of a Markdown text, read with :func:`parse`."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence = opened.group("fence")
        close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        if end is None:
            raise SelfCheckError(f"a {{selfcheck}} opened with {fence} is never closed", 0)
        options, body, used = split_options(lines[i + 1:end])
        try:
            check = parse(body, options)
        except SelfCheckError as exc:
            raise SelfCheckError(str(exc), i + 1 + used + exc.line) from None
        found.append(Block(i, end + 1, check))
        i = end + 1
    return found
