"""Self-checks on paper: the question where it stands, the answers at the chapter's end.

For every builder but HTML (the PDF's LaTeX builder in this book) each
self-check becomes plain docutils nodes: "Self-check N." and the question,
its choices lettered (a), (b), ..., and a link to its answer.  After the
last section of the chapter a rubric "Answers to the self-checks" lists, for
each, the answer and the explanation of every choice, each linking back to
its question.  The LaTeX builder assembles the whole book into one tree;
each chapter is one ``start_of_file`` node in it, which is where its answers
go.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

from coursegrader.selfcheck import LEGEND

from . import nodes_html as sc

TITLE = "Answers to the self-checks"


def _link(text: str, refid: str) -> nodes.reference:
    return nodes.reference("", text, refid=refid, internal=True)


def _by_chapter(root: nodes.Element) -> list[tuple[nodes.Element, list[sc.selfcheck]]]:
    """Each chapter (``start_of_file``, or ``root`` itself) with its self-checks.

    Walked from the top: Sphinx builds the LaTeX tree by moving each chapter's
    children under its ``start_of_file`` without resetting their ``parent``.
    """
    found: dict[int, tuple[nodes.Element, list[sc.selfcheck]]] = {}

    def walk(node: nodes.Element, chapter: nodes.Element) -> None:
        for child in node.children:
            if isinstance(child, sc.selfcheck):
                found.setdefault(id(chapter), (chapter, []))[1].append(child)
            elif isinstance(child, addnodes.start_of_file):
                walk(child, child)
            elif isinstance(child, nodes.Element):
                walk(child, chapter)

    walk(root, root)
    return list(found.values())


def _question(box: sc.selfcheck) -> list[nodes.Node]:
    ident, number, kind = box["ids"][0], box["number"], box["kind"]
    title = nodes.paragraph()
    title += nodes.strong("", f"Self-check {number}.")
    title += nodes.Text(" " + LEGEND[kind])
    out = [nodes.target("", "", ids=[ident]), title]
    out += box.next_node(sc.selfcheck_question).children
    choices = list(box.findall(sc.selfcheck_choice))
    if kind != "number":
        listed = nodes.enumerated_list(enumtype="loweralpha", prefix="(", suffix=")")
        for choice in choices:
            item = nodes.list_item()
            item += nodes.paragraph("", "", *choice.next_node(sc.selfcheck_label).children)
            listed += item
        out.append(listed)
    see = nodes.paragraph()
    see += nodes.emphasis("", "", nodes.Text("The answer, and why each choice is right or "
                                             "wrong: "),
                          _link(f"{TITLE}, {number}", f"{ident}-answer"),
                          nodes.Text(", at the end of the chapter."))
    out.append(see)
    return out


def _answer(box: sc.selfcheck) -> list[nodes.Node]:
    box = box.deepcopy()   # the question keeps the labels; the answers get copies
    ident, number, kind = box["ids"][0], box["number"], box["kind"]
    head = nodes.paragraph()
    head += nodes.strong("", "", _link(f"Self-check {number}", ident))
    head += nodes.Text(". ")
    head += box.next_node(sc.selfcheck_answer).next_node(nodes.paragraph).children
    out = [nodes.target("", "", ids=[f"{ident}-answer"]), head]
    reasons = nodes.bullet_list()
    for choice in box.findall(sc.selfcheck_choice):
        label = list(choice.next_node(sc.selfcheck_label).children)
        if kind != "number":
            verdict = {("choice", True): "right", ("choice", False): "wrong",
                       ("select", True): "applies", ("select", False): "does not apply"}
            lead = [nodes.Text(f"({choice['letter']}) ")] + label
            lead.append(nodes.Text(f", {verdict[kind, choice['correct']]}: "))
        elif choice["other"]:
            lead = [nodes.Text("Any other value: ")]
        else:
            lead = label + [nodes.Text(" (the answer): " if choice["correct"] else ": ")]
        why = list(choice.next_node(sc.selfcheck_why).children)
        item = nodes.list_item()
        if why and isinstance(why[0], nodes.paragraph):
            first = why.pop(0)
            first.children[0:0] = lead
            for child in lead:
                child.parent = first
            item += first
        else:
            item += nodes.paragraph("", "", *lead)
        item += why
        reasons += item
    out.append(reasons)
    return out


class SelfChecksAsText(SphinxPostTransform):
    """Every self-check as printable text, its answer at the end of its chapter."""

    default_priority = 40

    def run(self, **kwargs) -> None:
        if self.app.builder.format == "html":
            return
        for chapter, boxes in _by_chapter(self.document):
            answers = []
            for box in boxes:
                answers += _answer(box)
                box.replace_self(_question(box))
            sections = [n for n in chapter.children if isinstance(n, nodes.section)]
            where = sections[-1] if sections else chapter
            where += nodes.rubric("", TITLE)
            where += answers
