"""SanitizeMetadata: nbgrader metadata a student broke is dropped, not fatal."""

from nbgrader.preprocessors import NbGraderPreprocessor

__all__ = ["SanitizeMetadata"]


class SanitizeMetadata(NbGraderPreprocessor):
    """Drop nbgrader metadata a student broke, before nbgrader's own checks.

    nbgrader stops the whole autograde run -- every student after this one
    ungraded -- when a submitted cell carries metadata of another schema
    version, and duplicated grade ids leave an empty block that trips the same
    check. This preprocessor, first in ``Autograde.sanitize_preprocessors``,
    removes the nbgrader metadata of such cells (invalid, or repeating a
    grade id seen in a later cell, the one nbgrader keeps), so they count as
    the student's own cells; the gradebook still restores the real ones.
    """

    def preprocess(self, nb, resources):
        from nbgrader.nbgraderformat import MetadataValidator
        validator = MetadataValidator()
        seen = set()
        for cell in reversed(nb.cells):
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            try:
                validator.validate_cell(cell)
                named = (meta.get("grade") or meta.get("solution")
                         or meta.get("locked") or meta.get("task"))
                duplicate = named and meta["grade_id"] in seen
                if named:
                    seen.add(meta["grade_id"])
            except Exception:
                duplicate = True
            if duplicate:
                self.log.warning("Ignoring the nbgrader metadata of a submitted cell: "
                                 "%r", meta)
                del cell.metadata["nbgrader"]
        return nb, resources

