"""The nbgrader preprocessor that names, on Formgrader's grading page, the variant
a submission was judged on.

In a problem set with variants each student is judged on their own variant,
drawn by the grader from the student id the route established.  The grader
who opens a submission in Formgrader reads that variant's label
(``ps4-1a2b3c4d``) in the page's heading, next to the student's name
(``templates/formgrade/course.html.j2``), and can open the same variant with
``make student_copy``.  The label is read from the submission's record
(:attr:`coursegrader.record.SubmissionResult.variant`, beside the autograded
notebook), never from the notebook, whose variant cell and printed output are
the student's to write.  nbconvert's HTML exporter runs it for every page it
makes (``HTMLExporter.preprocessors`` in ``nbgrader_config.py``).
"""

from .base import HTMLExportablePreprocessor, graded_record

__all__ = ["ShowGradedVariant"]


class ShowGradedVariant(HTMLExportablePreprocessor):
    """Put the label of the variant the record says the submission was judged on
    (or None) in ``resources["graded_variant"]``."""

    def preprocess(self, nb, resources):
        resources["graded_variant"] = None
        try:
            result = graded_record(resources)
        except (OSError, ValueError) as exc:
            self.log.warning("The record of %s cannot be read (%s): no variant shown",
                             resources.get("metadata", {}).get("path"), exc)
            return nb, resources
        # Formgrader names the student in resources["student"], feedback in
        # resources["nbgrader"]["student"]; a record of anyone else is not shown
        student = resources.get("student") or resources.get("nbgrader", {}).get("student")
        if result is None or (student is not None and result.student != student):
            return nb, resources
        resources["graded_variant"] = result.variant
        return nb, resources
