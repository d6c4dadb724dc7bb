"""``python -m coursegrader --help-all``: every setting of the grader, as nbgrader's apps list theirs.

Each setting is a traitlet of the class that uses it, set in the course's
``nbgrader_config.py`` as ``c.<Class>.<name> = ...``; the few a machine sets
come from the environment variables :mod:`coursegrader.settings` names.
"""

import sys

from traitlets.config import Application

__all__ = ["CourseGraderApp", "configurable_classes", "main"]


def configurable_classes():
    """Every class of the grader that has settings, in the order the help lists them."""
    from .late_policy import CourseCalendar, LatePolicy
    from .preprocessors import (BoundSubmission, CleanStudentHTML, HideHiddenTests,
                                 JudgeSubmission, RefuseHalfGraded, TitleGradedParts)
    from .settings import CourseSettings
    from .tools.lms_zip import LmsZipExtractor
    from .similarity.material import SimilarityCheck
    return [CourseSettings, BoundSubmission, JudgeSubmission, CleanStudentHTML, RefuseHalfGraded,
            HideHiddenTests, TitleGradedParts, CourseCalendar, LatePolicy, SimilarityCheck,
            LmsZipExtractor]


class CourseGraderApp(Application):
    name = "python -m coursegrader"
    description = (
        "The course's grader. Its settings go in the course's nbgrader_config.py as "
        "c.<Class>.<name> = ..., beside nbgrader's; the course folder is the folder of "
        "that file. The instructor's steps are the course's Makefile targets (make help), "
        "each a tool of coursegrader.tools: python -m coursegrader.tools.<name> --help. "
        "--help-all lists every setting.")

    def start(self):
        self.print_description()
        print("Run with --help-all to list every setting.")


def main(argv=None):
    CourseGraderApp.classes = configurable_classes()
    app = CourseGraderApp.instance()
    app.initialize(argv)
    app.start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
