"""The ``{selfcheck}`` directive: its text, read by ``spec.parse``, as nodes."""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from coursegrader.selfcheck import SelfCheckError, letter, parse

from . import nodes_html as sc

logger = logging.getLogger(__name__)


class SelfCheckDirective(SphinxDirective):
    has_content = True
    option_spec = {"kind": directives.unchanged, "tolerance": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        lines = list(self.content)
        try:
            check = parse(lines, self.options)
        except SelfCheckError as exc:
            logger.warning("self-check: %s", exc,
                           location=(self.env.docname, self.content_offset + 1 + exc.line))
            return []
        count = self.env.temp_data["selfcheck_count"] = \
            self.env.temp_data.get("selfcheck_count", 0) + 1
        ident = f"selfcheck-{count}"
        box = sc.selfcheck(kind=check.kind, number=count, key=f"{self.env.docname}#{ident}",
                           tolerance=check.tolerance, ids=[ident])
        self.set_source_info(box)

        question = sc.selfcheck_question(ids=[f"{ident}-q"])
        self._blocks(check.question, check.question_line, question)
        box += question

        group = sc.selfcheck_choices(kind=check.kind, box=ident)
        for index, choice in enumerate(check.choices):
            item = sc.selfcheck_choice(kind=check.kind, box=ident, index=index,
                                       letter=letter(index), correct=choice.correct,
                                       value=choice.value, other=(
                                           check.kind == "number" and choice.value is None))
            label = sc.selfcheck_label()
            label += self._inline(choice.label, choice.line)
            item += label
            why = sc.selfcheck_why(ids=[f"{ident}-why-{letter(index)}"])
            self._blocks(choice.explanation, choice.line + 1, why)
            item += why
            group += item
        box += group
        box += sc.answer_summary(check, box, group)
        return [box]

    def _blocks(self, text: str, line: int, parent: nodes.Element) -> None:
        self.state.nested_parse(StringList(text.split("\n"), source=self.env.docname),
                                self.content_offset + line, parent)

    def _inline(self, text: str, line: int) -> list[nodes.Node]:
        """A choice's text, parsed as MyST, as inline nodes."""
        holder = nodes.container()
        self._blocks(text, line, holder)
        if len(holder) == 1 and isinstance(holder[0], nodes.paragraph):
            return holder[0].children
        logger.warning("self-check: a choice's text is one paragraph, not %r", text,
                       location=(self.env.docname, self.content_offset + 1 + line))
        return [nodes.Text(text)]
