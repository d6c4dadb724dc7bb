"""The course's nbgrader preprocessors, one per module, in the order they run.

``Autograde.sanitize_preprocessors`` (before nbgrader's own):

* :mod:`.bound_submission` -- a notebook far larger than an honest one is not
  graded (checked before it is read, too, by the course's autograde);
* :mod:`.refuse_links` -- a submission holding a symbolic link is not graded;
* :mod:`.sanitize_metadata` -- nbgrader metadata a student broke is dropped;
* :mod:`.restore_locked_cells` -- locked cells restored, quietly where the
  release hid tests.

``Autograde.autograde_preprocessors``:

* :mod:`.judge_submission` -- the notebook run in a kernel and every
  auto-graded part judged, in the sandbox; the submission's record;
* :mod:`.clean_student_html` -- what the student wrote, cleaned;
* :mod:`.save_recorded_grades` -- the gradebook's scores, from the record;
* :mod:`.record_submission_time` -- where the submission's time came from.

``GenerateFeedback.preprocessors``:

* :mod:`.refuse_half_graded` -- no feedback while a part awaits grading by hand;
* :mod:`.hide_hidden_tests` -- test cells without their hidden tests;
* :mod:`.clean_student_html` -- again, for notebooks graded before it;
* :mod:`.title_graded_parts` -- each graded part named by its title;
* :mod:`.link_book_sections` -- a part not fully scored sends the student to
  the book's sections it exercises;
* :mod:`.late_feedback` -- the due date used and the late penalty.

``HTMLExporter.preprocessors`` (every page nbconvert's HTML exporter makes,
Formgrader's grading page among them):

* :mod:`.show_graded_variant` -- the variant the submission was judged on.

:mod:`.base` holds the base class of those nbconvert's HTML exporter runs.
They are wired into nbgrader in the course's ``nbgrader_config.py``.
"""

import importlib

#: Each preprocessor, and the module it is in: nbgrader imports one when its
#: configuration names it (``coursegrader.preprocessors.JudgeSubmission``), so
#: autograde loads none of the feedback's.
_MODULES = {
    "BoundSubmission": "bound_submission",
    "CleanStudentHTML": "clean_student_html", "HideHiddenTests": "hide_hidden_tests",
    "JudgeSubmission": "judge_submission", "LateFeedback": "late_feedback",
    "LinkBookSections": "link_book_sections",
    "RecordSubmissionTime": "record_submission_time", "RefuseHalfGraded": "refuse_half_graded",
    "RefuseLinks": "refuse_links", "RestoreLockedCells": "restore_locked_cells",
    "SanitizeMetadata": "sanitize_metadata", "SaveRecordedGrades": "save_recorded_grades",
    "ShowGradedVariant": "show_graded_variant",
    "TitleGradedParts": "title_graded_parts",
}

__all__ = sorted(_MODULES)


def __getattr__(name):
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
