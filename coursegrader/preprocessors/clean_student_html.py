"""The nbgrader preprocessor that cleans what a student wrote before anyone views it.

Run at autograde, after the kernel run and the judge (``nbgrader_config.py``),
it cleans the autograded notebook itself, so Formgrader, the feedback page
and the instructor's JupyterLab all read a notebook holding no script, event
handler, style or dangerous link of the student's; and again before feedback
is written, for notebooks autograded before it was in place.  The rule of
what stays is :mod:`coursegrader.student_html`.
"""

import json

from traitlets import Bool, Int

from ..student_html import MarkdownBudget, clean_html
from ..student_outputs import MARKDOWN_CHARACTERS, clean_outputs
from .base import HTMLExportablePreprocessor

__all__ = ["CleanStudentHTML"]


class CleanStudentHTML(HTMLExportablePreprocessor):
    """Clean the HTML of Markdown cells, raw cells and outputs in a submitted notebook.

    A Markdown cell that is plain Markdown (no raw HTML, links only to http,
    https, mailto or ``#anchors``) is kept as written; another is replaced by
    its cleaned rendering, which looks the same where nothing was removed.
    Rendering is bounded per cell (``student_html.MAX_MARKDOWN``) and per
    notebook (:attr:`markdown_budget`): past either, a cell is shown as plain text.
    """

    markdown = Bool(
        True, help="Clean Markdown cells (rendered as nbconvert renders them, then the "
        "rendered HTML cleaned).").tag(config=True)
    raw = Bool(True, help="Clean raw cells as HTML (nbconvert shows raw HTML cells "
               "as they are).").tag(config=True)
    outputs = Bool(True, help="Keep only plain, cleaned outputs in code cells "
                   "(coursegrader.student_outputs.clean_outputs).").tag(config=True)

    markdown_budget = Int(
        MARKDOWN_CHARACTERS, help="Characters of Markdown rendered per notebook, in its "
        "cells and in the Markdown its outputs display; past that many each is shown as "
        "plain text (rendering some texts costs time quadratic in their length)."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        self._markdown = MarkdownBudget(self.markdown_budget)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown" and self.markdown:
            cell.source = self._markdown.clean(cell.source)
        elif cell.cell_type == "raw" and self.raw:
            cell.source = clean_html(cell.source)
        elif cell.cell_type == "code" and self.outputs:
            outputs = json.loads(json.dumps(cell.get("outputs", [])))   # plain data
            cell.outputs = clean_outputs(outputs, self._markdown)
        return cell, resources
