"""The self-check's nodes and how the HTML builder writes them.

The page works without its script as far as it can: the question, the
choices and a "Show the answer" disclosure (``<details>``) are plain HTML;
``selfcheck.js`` adds the checking.  The markup, for a question of kind
``choice``::

    <div class="selfcheck" id="selfcheck-3" data-kind="choice" data-key="...">
      <p class="selfcheck-title">Self-check 3</p>
      <div class="selfcheck-question" id="selfcheck-3-q">...</div>
      <form class="selfcheck-form">
        <fieldset aria-labelledby="selfcheck-3-q selfcheck-3-legend">
          <legend id="selfcheck-3-legend">Choose one answer.</legend>
          <div class="selfcheck-choice" data-correct="false">
            <input type="radio" name="selfcheck-3" id="selfcheck-3-a" value="a">
            <label for="selfcheck-3-a"><span class="selfcheck-letter">(a)</span> ...</label>
            <div class="selfcheck-why" id="selfcheck-3-why-a" hidden>...</div>
          </div>
          ...
        </fieldset>
        <button type="submit">Check</button>
        <p class="selfcheck-result" role="status" aria-live="polite"></p>
      </form>
      <details class="selfcheck-reveal"><summary>Show the answer</summary>...</details>
    </div>

``select`` uses check boxes; ``number`` a text field labelled "Your answer",
and its choices (the answer, likely wrong values, any other value) are
explanations only, each hidden until it is the one that applies.
"""

from __future__ import annotations

import copy
from html import escape

from docutils import nodes
from sphinx.application import Sphinx

from coursegrader.selfcheck import LEGEND, listing

class selfcheck(nodes.General, nodes.Element):
    """One question; attributes kind, number, key, tolerance."""


class selfcheck_question(nodes.General, nodes.Element):
    """The question's text."""


class selfcheck_choices(nodes.General, nodes.Element):
    """The group of choices (or, for a number, its field and explanations)."""


class selfcheck_choice(nodes.General, nodes.Element):
    """One choice: a label and an explanation; attributes letter, correct, value, other."""


class selfcheck_label(nodes.General, nodes.TextElement):
    """A choice's text (one paragraph)."""


class selfcheck_why(nodes.General, nodes.Element):
    """A choice's explanation."""


class selfcheck_answer(nodes.General, nodes.Element):
    """What "Show the answer" shows."""


def _text_of_label(choice: selfcheck_choice) -> list[nodes.Node]:
    return [copy.deepcopy(child) for child in choice.next_node(selfcheck_label).children]


def answer_summary(check, box: selfcheck, group: selfcheck_choices) -> selfcheck_answer:
    """The answer in one paragraph: "(b) <label>", the letters to tick, or the value."""
    out = selfcheck_answer()
    para = nodes.paragraph()
    choices = list(group.findall(selfcheck_choice))
    right = [c for c in choices if c["correct"]]
    if check.kind == "choice":
        para += nodes.Text(f"The answer is ({right[0]['letter']}): ")
        para += _text_of_label(right[0])
        if not right[0].next_node(selfcheck_label).astext().rstrip().endswith((".", "?", "!")):
            para += nodes.Text(".")
    elif check.kind == "select":
        if not right:
            para += nodes.Text("None of the choices applies.")
        else:
            listed = listing([f"({c['letter']})" for c in right])
            wrong = len(choices) - len(right)
            para += nodes.Text(f"Select {listed}" + (", and no other." if wrong else "."))
    else:
        para += nodes.Text("The answer is ")
        para += _text_of_label(right[0])
        if check.tolerance:
            para += nodes.Text(f" (an answer within {check.tolerance:g} of it counts)")
        para += nodes.Text(".")
    out += para
    return out


# -- HTML -------------------------------------------------------------------------

def _attrs(**values) -> str:
    return "".join(f' {name.rstrip("_").replace("_", "-")}="{escape(str(value))}"'
                   for name, value in values.items() if value is not None)


def visit_selfcheck(self, node: selfcheck) -> None:
    ident = node["ids"][0]
    self.body.append(
        f'<div class="selfcheck"{_attrs(id=ident, data_kind=node["kind"], data_key=node["key"])}'
        + (_attrs(data_tolerance=repr(node["tolerance"])) if node["kind"] == "number" else "")
        + f'>\n<p class="selfcheck-title">Self-check {node["number"]}</p>\n')


def depart_selfcheck(self, node: selfcheck) -> None:
    self.body.append("</div>\n")


def visit_question(self, node: selfcheck_question) -> None:
    self.body.append(f'<div class="selfcheck-question"{_attrs(id=node["ids"][0])}>\n')


def depart_div(self, node) -> None:
    self.body.append("</div>\n")


def visit_choices(self, node: selfcheck_choices) -> None:
    box, kind = node["box"], node["kind"]
    self.body.append(
        f'<form class="selfcheck-form" novalidate>\n'
        f'<fieldset{_attrs(aria_labelledby=f"{box}-q {box}-legend")}>\n'
        f'<legend{_attrs(id=f"{box}-legend")}>{LEGEND[kind]}</legend>\n')
    if kind == "number":
        field = f"{box}-answer"
        self.body.append(
            f'<div class="selfcheck-number"><label{_attrs(for_=field)}>Your answer</label>'
            f'<input type="text"{_attrs(id=field, name=field)} inputmode="decimal" '
            'autocomplete="off" spellcheck="false"></div>\n')


def depart_choices(self, node: selfcheck_choices) -> None:
    self.body.append(
        '</fieldset>\n<div class="selfcheck-actions">'
        '<button type="submit" class="selfcheck-check">Check</button></div>\n'
        '<p class="selfcheck-result" role="status" aria-live="polite" aria-atomic="true">'
        '</p>\n</form>\n')


def visit_choice(self, node: selfcheck_choice) -> None:
    data = {"data_correct": "true" if node["correct"] else "false",
            "data_letter": node["letter"]}
    if node["kind"] == "number":
        data["data_value"] = "other" if node["other"] else repr(node["value"])
        self.body.append(f'<div class="selfcheck-choice"{_attrs(**data)} hidden>\n')
    else:
        self.body.append(f'<div class="selfcheck-choice"{_attrs(**data)}>\n')


def visit_label(self, node: selfcheck_label) -> None:
    choice = node.parent
    box, kind, letter = choice["box"], choice["kind"], choice["letter"]
    if kind == "number":
        self.body.append('<p class="selfcheck-value">')
        if choice["other"]:
            self.body.append("Any other value:")
            raise nodes.SkipChildren
        self.body.append("The answer, " if choice["correct"] else "If you found ")
        return
    field = f"{box}-{letter}"
    input_type = "radio" if kind == "choice" else "checkbox"
    self.body.append(
        f'<input{_attrs(type=input_type, name=box, id=field, value=letter)}>'
        f'<label{_attrs(for_=field)}><span class="selfcheck-letter">({letter})</span> ')


def depart_label(self, node: selfcheck_label) -> None:
    choice = node.parent
    if choice["kind"] != "number":
        self.body.append("</label>\n")
    else:
        self.body.append("</p>\n" if choice["other"] else ":</p>\n")


def visit_why(self, node: selfcheck_why) -> None:
    hidden = "" if node.parent["kind"] == "number" else " hidden"
    self.body.append(f'<div class="selfcheck-why"{_attrs(id=node["ids"][0])}{hidden}>\n')


def visit_answer(self, node: selfcheck_answer) -> None:
    self.body.append('<details class="selfcheck-reveal"><summary>Show the answer</summary>\n')


def depart_answer(self, node: selfcheck_answer) -> None:
    self.body.append("</details>\n")


def register(app: Sphinx) -> None:
    app.add_node(selfcheck, html=(visit_selfcheck, depart_selfcheck))
    app.add_node(selfcheck_question, html=(visit_question, depart_div))
    app.add_node(selfcheck_choices, html=(visit_choices, depart_choices))
    app.add_node(selfcheck_choice, html=(visit_choice, depart_div))
    app.add_node(selfcheck_label, html=(visit_label, depart_label))
    app.add_node(selfcheck_why, html=(visit_why, depart_div))
    app.add_node(selfcheck_answer, html=(visit_answer, depart_answer))
