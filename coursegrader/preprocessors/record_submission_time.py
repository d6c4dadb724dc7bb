"""RecordSubmissionTime: the gradebook keeps where a submission's time came from.

nbgrader's autograde reads a submission's time from the ``timestamp.txt`` in
``submitted/<student>/<ps>/``, which the course's collectors write from the
route's own evidence (:mod:`coursegrader.dating`), with their account of it in
``submission_time.json`` beside it. This preprocessor, at autograde, stores
that account in the gradebook (:func:`coursegrader.gradebook.record_dating`),
so that the export and the feedback page say where each time came from. A
submission no collector of the course dated is recorded as not dated, and its
``timestamp.txt``, whoever wrote it, is not used.
"""

import warnings

from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from sqlalchemy.exc import SAWarning

from .. import dating
from ..gradebook import record_dating

__all__ = ["RecordSubmissionTime"]


class RecordSubmissionTime(NbGraderPreprocessor):
    """Store the collector's account of the submission's time in the gradebook."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        # the collector's account is in submitted/, not copied to autograded/
        coursedir = CourseDirectory(config=self.config)
        folder = coursedir.format_path(coursedir.submitted_directory, info["student"],
                                       info["assignment"])
        found, undated = dating.collected(folder)
        if undated:
            self.log.warning("%s/%s: %s", info["student"], info["assignment"], undated)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            with Gradebook(info["db_url"]) as gb:
                record_dating(gb, info["assignment"], info["student"], found)
        return nb, resources
