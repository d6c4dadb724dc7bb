"""SanitizeMetadata: nbgrader metadata a student broke is dropped, not fatal."""

from nbgrader.preprocessors import NbGraderPreprocessor

__all__ = ["SanitizeMetadata"]


class SanitizeMetadata(NbGraderPreprocessor):
    """Drop nbgrader metadata a student broke, before nbgrader's own checks.

    nbgrader stops the whole autograde run -- every student after this one
    ungraded -- when a submitted cell carries metadata of another schema
    version, and duplicated grade ids leave an empty block that trips the same
    check, and a well-formed cell under a grade id the release does not have
    (a "bonus" graded cell of her own) fails her whole notebook as "corrupted".
    This preprocessor, first in ``Autograde.sanitize_preprocessors``, removes
    the nbgrader metadata of such cells (invalid, repeating a grade id seen in
    a later cell, the one nbgrader keeps, or naming a cell the gradebook does
    not hold for this notebook), so they count as the student's own cells; the
    gradebook still restores the real ones.
    """

    def preprocess(self, nb, resources):
        from nbgrader.nbgraderformat import MetadataValidator
        validator = MetadataValidator()
        released = self.released_grade_ids(resources)
        seen = set()
        for cell in reversed(nb.cells):
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            try:
                validator.validate_cell(cell)
                named = (meta.get("grade") or meta.get("solution")
                         or meta.get("locked") or meta.get("task"))
                ignored = named and (meta["grade_id"] in seen or (
                    released is not None and meta["grade_id"] not in released))
                if named:
                    seen.add(meta["grade_id"])
            except Exception:
                ignored = True
            if ignored:
                self.log.warning("Ignoring the nbgrader metadata of a submitted cell: "
                                 "%r", meta)
                del cell.metadata["nbgrader"]
        return nb, resources

    @staticmethod
    def released_grade_ids(resources):
        """The grade ids of the notebook's cells in the gradebook (None when the
        preprocessor runs without one)."""
        from nbgrader.api import Gradebook, MissingEntry
        where = resources.get("nbgrader", {})
        if not all(where.get(key) for key in ("db_url", "assignment", "notebook")):
            return None
        with Gradebook(where["db_url"]) as gradebook:
            try:
                notebook = gradebook.find_notebook(where["notebook"], where["assignment"])
            except MissingEntry:
                return None
            return {cell.name for cell in notebook.source_cells}
