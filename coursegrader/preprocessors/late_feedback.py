"""LateFeedback: the feedback page shows the due date used and the late penalty."""

import warnings

from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning

from ..gradebook import create_tables, grade_lines
from ..late_policy import CourseCalendar, LatePolicy
from .base import HTMLExportablePreprocessor

__all__ = ["LateFeedback"]


class LateFeedback(HTMLExportablePreprocessor):
    """Feedback shows the student's due date and the late penalty of the policy now.

    Runs after nbgrader's ``GetGrades`` in ``GenerateFeedback.preprocessors``;
    the template ``templates/feedback/base.html.j2`` shows the due date.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        calendar = CourseCalendar(config=self.config)
        policy = LatePolicy(config=self.config)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            with Gradebook(info["db_url"]) as gb:
                create_tables(gb)
                line = next(g for g in grade_lines(gb, policy, [info["assignment"]])
                            if g.student_id == info["student"])
                notebook = gb.find_submission_notebook(
                    info["notebook"], info["assignment"], info["student"])
                nb_score, nb_max = float(notebook.score), float(notebook.max_score)
        # the notebook's share of the problem set's penalty (all of it when
        # the problem set is one notebook)
        share = (line.penalty * nb_score / line.raw_score) if line.raw_score else 0.0
        info["late_penalty"] = round(share, 6)
        info["score"] = nb_score - info["late_penalty"]
        info["max_score"] = nb_max
        info["due_date"] = calendar.show(line.due)
        info["due_extended"] = line.extended
        info["handed_in"] = calendar.show(line.timestamp)
        info["time_source"] = line.dating.describe() if line.dating else ""
        info["days_late"] = line.days_late
        return nb, resources
