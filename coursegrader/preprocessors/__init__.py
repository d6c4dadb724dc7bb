"""The course's nbgrader preprocessors, one per module, in the order they run.

``Autograde.sanitize_preprocessors`` (before nbgrader's own):

* :mod:`.refuse_links` -- a submission holding a symbolic link is not graded;
* :mod:`.sanitize_metadata` -- nbgrader metadata a student broke is dropped;
* :mod:`.restore_locked_cells` -- locked cells restored, quietly where the
  release hid tests.

``Autograde.autograde_preprocessors``:

* :mod:`.judge_submission` -- the notebook run in a kernel and every
  auto-graded part judged, in the sandbox; the submission's record;
* :mod:`.clean_student_html` -- what the student wrote, cleaned;
* :mod:`.save_recorded_grades` -- the gradebook's scores, from the record.

``GenerateFeedback.preprocessors``:

* :mod:`.hide_hidden_tests` -- test cells without their hidden tests;
* :mod:`.clean_student_html` -- again, for notebooks graded before it;
* :mod:`.title_graded_parts` -- each graded part named by its title;
* :mod:`.late_feedback` -- the due date used and the late penalty.

:mod:`.base` holds the base class of those nbconvert's HTML exporter runs.
They are wired into nbgrader in the course's ``nbgrader_config.py``.
"""

from .clean_student_html import CleanStudentHTML
from .hide_hidden_tests import HideHiddenTests
from .judge_submission import JudgeSubmission
from .late_feedback import LateFeedback
from .refuse_links import RefuseLinks
from .restore_locked_cells import RestoreLockedCells
from .sanitize_metadata import SanitizeMetadata
from .save_recorded_grades import SaveRecordedGrades
from .title_graded_parts import TitleGradedParts

__all__ = ["CleanStudentHTML", "HideHiddenTests", "JudgeSubmission", "LateFeedback",
           "RefuseLinks", "RestoreLockedCells", "SanitizeMetadata", "SaveRecordedGrades",
           "TitleGradedParts"]
