"""SaveRecordedGrades: the gradebook's automatic scores, taken from the submission's record.

nbgrader's ``SaveAutoGrades`` works out each graded cell's score from its
outputs.  This one takes the score of every part the judge graded from the
:class:`~coursegrader.record.SubmissionResult` that
:class:`~coursegrader.preprocessors.judge_submission.JudgeSubmission` attached;
a graded cell the judge did not grade (a written answer, a test of a notebook
that is not a problem set of the course) is scored as nbgrader scores it.
"""

from nbgrader.preprocessors import SaveAutoGrades

from .. import record

__all__ = ["SaveRecordedGrades"]


class SaveRecordedGrades(SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, with the judge's scores read from the record."""

    def preprocess(self, nb, resources):
        self._result = record.attached(resources)
        return super().preprocess(nb, resources)

    def _add_score(self, cell, resources):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        part = self._result.part(grade_id) if self._result is not None else None
        if part is None:
            return super()._add_score(cell, resources)
        grade = self.gradebook.find_grade(grade_id, self.notebook_id, self.assignment_id,
                                          self.student_id)
        grade.auto_score = part.score
        # a grader's earlier manual score is kept, and marked for review
        grade.needs_manual_grade = grade.manual_score is not None
        self.gradebook.db.commit()
