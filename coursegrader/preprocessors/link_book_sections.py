"""The nbgrader preprocessor that sends a student back to the book from a failed part.

Each auto-graded part names the sections of the book it exercises
(:attr:`coursecheck.parts.Part.sections`).  For every part that did not get
full marks in the submission's record (:mod:`coursegrader.record`, beside the
autograded notebook), the course's feedback template
(``templates/feedback/course.html.j2``) shows those sections under the part
and beside it in the contents: a link to the section on the published book,
``CourseSettings.book_url``, or, with no address set, the chapter and the
section's title in words (:mod:`coursegrader.book_sections`).
"""

from nbgrader import utils

from .. import book_sections
from ..settings import CourseSettings
from .base import HTMLExportablePreprocessor, graded_record

__all__ = ["LinkBookSections"]


class LinkBookSections(HTMLExportablePreprocessor):
    """Put ``{grade_id: [{"text": ..., "url": ... or None}, ...]}`` in
    ``resources["book_sections"]``, for each auto-graded part not fully scored."""

    def preprocess(self, nb, resources):
        result = graded_record(resources)
        assignment = resources.get("nbgrader", {}).get("assignment")
        found = {}
        if result is not None and assignment:
            parts = _parts(assignment)
            book_url = CourseSettings(config=self.config).book_url
            for cell in nb.cells:
                if not utils.is_grade(cell) or utils.is_solution(cell):
                    continue
                gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                graded = result.part(gid)
                if graded is None or graded.score >= graded.points or gid not in parts:
                    continue
                found[gid] = [self._entry(label, book_url) for label in parts[gid].sections]
        resources["book_sections"] = {gid: entries for gid, entries in found.items() if entries}
        return nb, resources

    def _entry(self, label, book_url):
        try:
            sec = book_sections.section(label)
        except ValueError as exc:   # tests/grading/test_book_sections.py keeps this from happening
            self.log.warning("%s", exc)
            return {"text": label, "url": None}
        return {"text": sec.describe(), "url": book_sections.link(sec, book_url)}


def _parts(assignment):
    from coursecheck.parts import get_parts
    try:
        return get_parts(assignment)
    except ValueError:
        return {}
