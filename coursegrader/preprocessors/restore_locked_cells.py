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

With ``add_missing_cells`` (the course's setting), a graded cell missing from a
submission (deleted, or its nbgrader metadata removed) is put back from the
gradebook, so that Formgrader shows it to grade by hand. nbgrader places it
after the cell before it in the release, looked up among the submission's
graded and answer cells only, and fails the whole notebook when that one is a
task or a locked cell (a written part follows its task cell); here it goes after
the nearest cell before it in the release that the submission still has.
"""

import nbformat
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


    def add_missing_grade_cells(self, nb, resources):
        """Put back each graded cell of the release the submission lacks, after the
        nearest cell before it in the release that the submission has (first if none)."""
        source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        source = {cell.name: cell for cell in source_nb.source_cells}
        order = list(source)
        solutions = {cell.name for cell in source_nb.solution_cells}
        for grade_cell in source_nb.grade_cells:
            have = {cell.metadata["nbgrader"]["grade_id"]: index
                    for index, cell in enumerate(nb.cells)
                    if cell.metadata.get("nbgrader", {}).get("grade_id")}
            if grade_cell.name in have or grade_cell.name not in source:
                continue
            self.log.warning("Missing grade cell %s encountered, adding to notebook",
                             grade_cell.name)
            cell = nbformat.from_dict(self.missing_cell_transform(
                source[grade_cell.name], grade_cell.max_score,
                is_solution=grade_cell.name in solutions))
            before = [have[name] for name in order[:order.index(grade_cell.name)]
                      if name in have]
            nb.cells.insert(max(before) + 1 if before else 0, cell)
        return nb, resources
