"""Self-checks in a downloaded notebook: readable text, answers at the end.

JupyterLab knows no ``{selfcheck}`` directive, so the notebook a reader
downloads has each one written out where it stands ("Self-check 3.", the
question, the choices lettered) and, in a last Markdown cell, "Answers to the
self-checks": each answer with the explanation of every choice.  The numbers
are those of the website and the PDF.
"""

from __future__ import annotations

import re

import nbformat

from .spec import SelfCheck, find_blocks, letter, listing

TITLE = "Answers to the self-checks"
_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")
LEGEND = {"choice": "Choose one answer.", "select": "Select all that apply.",
          "number": "Answer with a number."}


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
        summary = f"The answer is ({letter(right[0][0])}): {right[0][1].label}."
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
