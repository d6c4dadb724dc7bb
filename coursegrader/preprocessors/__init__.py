"""The course's nbgrader preprocessors, one per module, in the order they run.

``Autograde.sanitize_preprocessors`` (before nbgrader's own):

* :mod:`.refuse_links` -- a submission holding a symbolic link is not graded;
* :mod:`.sanitize_metadata` -- nbgrader metadata a student broke is dropped;
* :mod:`.restore_locked_cells` -- locked cells restored, quietly where the
  release hid tests.

``Autograde.autograde_preprocessors``:

* :mod:`.safe_execute` -- the notebook's run in a kernel inside the sandbox;
* :mod:`.judge_tests` -- every auto-graded part graded in the sandbox;
* :mod:`.collect_kernel_run` -- the kernel run's outputs put in;
* :mod:`.clean_student_html` -- what the student wrote, cleaned.

``GenerateFeedback.preprocessors``:

* :mod:`.hide_hidden_tests` -- test cells without their hidden tests;
* :mod:`.clean_student_html` -- again, for notebooks graded before it;
* :mod:`.title_graded_parts` -- each graded part named by its title;
* :mod:`.late_feedback` -- the due date used and the late penalty.

:mod:`.base` holds their two base classes.  They are wired into nbgrader in
``assignments/nbgrader_config.py``.
"""

from .clean_student_html import CleanStudentHTML
from .collect_kernel_run import CollectKernelRun
from .hide_hidden_tests import HideHiddenTests
from .judge_tests import JudgeTests
from .late_feedback import LateFeedback
from .refuse_links import RefuseLinks
from .restore_locked_cells import RestoreLockedCells
from .safe_execute import SafeExecute
from .sanitize_metadata import SanitizeMetadata
from .title_graded_parts import TitleGradedParts

__all__ = ["CleanStudentHTML", "CollectKernelRun", "HideHiddenTests", "JudgeTests",
           "LateFeedback", "RefuseLinks", "RestoreLockedCells", "SafeExecute",
           "SanitizeMetadata", "TitleGradedParts"]
