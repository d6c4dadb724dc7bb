"""The nbgrader preprocessor that names each graded part on the feedback page.

nbgrader's feedback page lists the graded cells as "Test cell" or "Written
response"; the course's feedback template (``templates/feedback/index.html.j2``)
shows instead the title this preprocessor finds for each: the last heading of
the problem set's own (locked) Markdown cells above it -- for example "Part 1:
the feature map ... (2 points)" -- followed, for an auto-graded test cell, by
what the part checks, as the submission's record says (the part's
``description``: :mod:`coursegrader.record`, beside the autograded notebook),
and for a part that varies, the variant it was judged on.
"""

import html
import re

from nbgrader import utils
from traitlets import Unicode

from ..student_html import student_markdown_html
from .base import HTMLExportablePreprocessor, graded_record

__all__ = ["TitleGradedParts"]

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


class TitleGradedParts(HTMLExportablePreprocessor):
    """Put ``{grade_id: title as HTML}`` in ``resources["part_titles"]``."""

    separator = Unicode(
        " \N{EM DASH} ", help="Text between a test cell's heading and what the part "
        "checks.").tag(config=True)

    def preprocess(self, nb, resources):
        result = graded_record(resources)
        titles, heading = {}, ""
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and meta.get("locked") \
                    and not meta.get("solution"):
                found = _HEADING.findall(cell.source)
                if found:
                    heading = _inline(found[-1])
            if not utils.is_grade(cell):
                continue
            gid = meta.get("grade_id", "")
            part = result.part(gid) if result and not utils.is_solution(cell) else None
            checks = html.escape(part.description) if part and part.description else ""
            if part and part.variant:
                checks += html.escape(f" (on your variant, {part.variant})")
            title = self.separator.join(t for t in (heading, checks) if t)
            titles[gid] = title or html.escape(gid)
        resources["part_titles"] = titles
        return nb, resources


def _inline(markdown):
    """One line of Markdown as cleaned HTML without the paragraph around it."""
    rendered = student_markdown_html(markdown).strip()
    match = re.fullmatch(r"<p>(.*)</p>", rendered, flags=re.S)
    return match.group(1) if match else rendered
