"""Restore locked cells from the gradebook, quietly where the release hid tests.

nbgrader's ``OverwriteCells`` puts every locked cell of a submission back to
its source version and warns "Attribute 'checksum' for cell ... has changed!"
whenever the submitted cell differs. A test cell with a ``### BEGIN HIDDEN
TESTS`` region always differs: the release removed that region, so every
submission of every student would warn about every such cell. This
preprocessor restores those cells without a warning when the submitted source
is exactly the released one (the source with the hidden region removed, as
:class:`coursegrader.preprocessors.hide_hidden_tests.HideHiddenTests` removes
it); any other change to a locked cell is still reported and undone by nbgrader's code.
"""

from nbformat.v4 import new_code_cell
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import OverwriteCells

from .hide_hidden_tests import HideHiddenTests

__all__ = ["RestoreLockedCells"]


class RestoreLockedCells(OverwriteCells):
    """``OverwriteCells`` that expects submissions to miss their hidden-test regions."""

    @staticmethod
    def released_source(source):
        """A test cell's ``source`` as the release shows it (hidden tests removed)."""
        cell = new_code_cell(source, metadata={"nbgrader": {"grade": True}})
        released, _ = HideHiddenTests().preprocess_cell(cell, {}, 0)
        return released.source

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code" and utils.is_grade(cell):
            try:
                source_cell = self.gradebook.find_source_cell(
                    grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source_cell = None
            if (source_cell is not None and source_cell.locked
                    and cell.source != source_cell.source
                    and cell.source == self.released_source(source_cell.source)):
                cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)

