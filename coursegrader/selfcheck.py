"""Self-checks: the format they are written in, and their rendering as text.

A self-check is a short question written in a chapter's (or a problem set's)
MyST source as a directive whose body is the question, then one list item per
choice::

    :::{selfcheck}
    :kind: choice
    Which ...?

    - [x] the right choice, its text wrapped
      as a paragraph may be

      Why it is right, with a link to the text ({eq}`kt-dual`).
    - [ ] a wrong choice

      Why it is wrong.
    :::

``:kind:`` is ``choice`` (one answer; the default), ``select`` (select all
that apply: every ``[x]`` is to be ticked, every ``[ ]`` left alone) or
``number`` (the reader types a number; the ``[x]`` item's label is the
answer, ``:tolerance:`` the absolute error allowed; a ``[ ]`` item's label is
a value a reader is likely to reach by a known mistake, and one ``[ ] other``
item explains any other value).  Each item is a paragraph, the choice's
text, then, after a blank line, its explanation, all indented by two spaces
under the item.

Every output reads a self-check through :func:`parse`, so none can disagree:
the book's website and PDF (the Sphinx extension ``book/_ext/selfcheck``), and
the notebooks, where JupyterLab knows no such directive: :func:`write_out`
writes each one out as text where it stands ("Self-check 3.", the question,
the choices lettered) and adds a last Markdown cell, "Answers to the
self-checks", with each answer and the explanation of every choice.  The
book's chapter downloads and the problem sets (:mod:`coursegrader.tools.author`)
both go through it.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass

import nbformat

KINDS = ("choice", "select", "number")
#: What the reader is asked to do, by kind (the legend of the website's choices).
LEGEND = {"choice": "Choose one answer.", "select": "Select all that apply.",
          "number": "Answer with a number."}
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
    label: str            # MyST, inline (one paragraph)
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
            current = [match.group(1) != " ", [match.group(2)], [], i]
            choices.append(current)
        elif line.strip() and not line.startswith("  "):
            raise SelfCheckError(
                "after the choices only their explanations may follow, indented by two "
                f"spaces; a choice is written '- [x] text' or '- [ ] text': {line.strip()!r}", i)
        elif current[2] or not line.strip():
            current[2].append(line)       # the explanation: after the first blank line
        else:
            current[1].append(line.strip())   # the choice's text, wrapped

    if len(choices) < 2:
        raise SelfCheckError("a self-check needs at least two choices ('- [x] ...', '- [ ] ...')")
    read = []
    for correct, label_lines, body, line in choices:
        label = " ".join(label_lines)
        explanation = textwrap.dedent("\n".join(body)).strip("\n")
        if not explanation.strip():
            raise SelfCheckError(f"choice {label!r} has no explanation: write it under the "
                                 "choice, after a blank line, indented by two spaces", line)
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


# -- as text, in a notebook ----------------------------------------------------

TITLE = "Answers to the self-checks"
_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")


def _indent(text: str, by: str = "  ") -> str:
    lines = text.split("\n")
    return "\n".join([lines[0]] + [by + line if line.strip() else "" for line in lines[1:]])


def question_text(number: int, check: SelfCheck) -> str:
    """The question as Markdown, its choices lettered, pointing at the answers."""
    out = [f"**Self-check {number}.** {LEGEND[check.kind]}", "", check.question, ""]
    if check.kind != "number":
        out += [f"- ({letter(i)}) {c.label}" for i, c in enumerate(check.choices)] + [""]
    out.append(f"*The answer, and why each choice is right or wrong: \"{TITLE}\" at the "
               "end of this notebook.*")
    return "\n".join(out)


def answer_text(number: int, check: SelfCheck, section: str | None) -> str:
    """The answer and every choice's explanation, as Markdown."""
    where = f" (section \"{section}\")" if section else ""
    right = [(i, c) for i, c in enumerate(check.choices) if c.correct]
    if check.kind == "choice":
        label = right[0][1].label
        summary = f"The answer is ({letter(right[0][0])}): {label}" + (
            "" if label.endswith((".", "?", "!")) else ".")
    elif check.kind == "select":
        summary = (f"Select {listing([f'({letter(i)})' for i, _ in right])}"
                   + (", and no other." if len(right) < len(check.choices) else ".")
                   if right else "None of the choices applies.")
    else:
        within = f" (an answer within {check.tolerance:g} of it counts)" if check.tolerance else ""
        summary = f"The answer is {right[0][1].label}{within}."
    out = [f"**Self-check {number}**{where}. {summary}", ""]
    for i, c in enumerate(check.choices):
        if check.kind == "choice":
            lead = f"({letter(i)}) {c.label}, {'right' if c.correct else 'wrong'}:"
        elif check.kind == "select":
            lead = f"({letter(i)}) {c.label}, {'applies' if c.correct else 'does not apply'}:"
        elif c.value is None:
            lead = "Any other value:"
        else:
            lead = f"{c.label}{', the answer' if c.correct else ''}:"
        out.append(f"- {lead} " + _indent(c.explanation))
    return "\n".join(out)


def write_out(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Replace every self-check of ``notebook`` by text; add the answers at its end."""
    answers, number, section = [], 0, None
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        blocks = find_blocks(cell.source)
        out, at = [], 0
        for block in blocks:
            for line in lines[at:block.start]:
                heading = _HEADING.match(line)
                section = heading.group(1) if heading else section
                out.append(line)
            number += 1
            out.append(question_text(number, block.check))
            answers.append(answer_text(number, block.check, section))
            at = block.end
        for line in lines[at:]:
            heading = _HEADING.match(line)
            section = heading.group(1) if heading else section
            out.append(line)
        if blocks:
            cell.source = "\n".join(out)
    if answers:
        notebook.cells.append(nbformat.v4.new_markdown_cell(
            f"## {TITLE}\n\n" + "\n\n".join(answers)))
    return notebook
