"""HideHiddenTests: the feedback shows a test cell without its hidden tests."""

from nbgrader import utils
from traitlets import Unicode

from ..markers import HIDDEN_TESTS, outside_lines
from .base import HTMLExportablePreprocessor

__all__ = ["HideHiddenTests"]


class HideHiddenTests(HTMLExportablePreprocessor):
    """Remove ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` from test cells.

    Student cells that merely contain the markers are left alone (only graded
    cells are read).
    """

    begin = Unicode(HIDDEN_TESTS[0], help="Text of the line that opens a hidden-test "
                    "region.").tag(config=True)
    end = Unicode(HIDDEN_TESTS[1], help="Text of the line that closes a hidden-test "
                  "region.").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and utils.is_grade(cell):
            region = (self.begin, self.end)
            cell.source = "\n".join(outside_lines(cell.source, (region,)))
        return cell, resources
