"""nbgrader configuration of the course (run nbgrader from this folder, or use the Makefile).

The grade of every auto-graded part is decided outside the student's kernel
by coursegrader's JudgeTests preprocessor (see coursegrader/preprocessor.py):
it reruns each part in a restricted sandbox process with public and hidden
cases and writes the score into the test cell.
"""

import os
import warnings

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "kernel-methods")
c.Exchange.root = EXCHANGE

# nbgrader's gradebook adds a submission's rows while SQLAlchemy autoflushes a
# lazy load, which SQLAlchemy reports as "Object of type <SubmittedAssignment>
# not in session"; the rows are added right after and nothing is lost
# (nbgrader 0.9), so the warning says nothing to the instructor.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

# Submissions downloaded from a learning-management system as one zip
# (`make zip_collect PS=ps1 ZIP=...`): the file names inside follow Canvas's
# pattern <student>_[LATE_]<user id>_<submission id>_<file>[-<n>].ipynb (the
# -<n> is added to a resubmission); <student> must be the student's id in the
# gradebook. Adapt the expression to another system's names.
c.FileNameCollectorPlugin.named_regexp = (
    r".*/(?P<student_id>[^/_]+)_(?:LATE_)?\d+_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$")

# The released notebooks: no solutions, no hidden tests, no outputs.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Running the student's notebook: a cell that loops forever is stopped after
# this many seconds (and the kernel with it); grading goes on regardless.
c.Execute.timeout = int(os.environ.get("COURSEGRADER_CELL_TIMEOUT", "60"))
c.SafeExecute.timeout = c.Execute.timeout
c.SafeExecute.interrupt_on_timeout = False
# The kernel may not signal the grader, start processes, or touch the course
# folder (gradebook, secret, solutions, other students) or the exchange.
c.SafeExecute.protected_paths = [HERE, EXCHANGE]

# A submission with broken nbgrader metadata must not stop the grading of the
# others (nbgrader aborts the whole run on a schema mismatch).
c.Autograde.sanitize_preprocessors = [
    "coursegrader.preprocessor.SanitizeMetadata",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "coursegrader.overwrite.RestoreLockedCells",  # nbgrader's OverwriteCells, quiet on hidden tests
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "coursegrader.preprocessor.SafeExecute",
    "coursegrader.preprocessor.JudgeTests",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# The sandbox: graded code may not open the course folder (solutions,
# gradebook, other students' work) or the exchange.
c.JudgeTests.secret_file = os.path.join(HERE, ".grader_secret")
c.JudgeTests.forbidden_paths = [HERE, EXCHANGE]
if os.environ.get("COURSEGRADER_PART_TIMEOUT"):
    c.JudgeTests.timeout = float(os.environ["COURSEGRADER_PART_TIMEOUT"])

# Feedback shows the public test source and every report, never hidden tests.
c.GenerateFeedback.preprocessors = [
    "coursegrader.preprocessor.HideHiddenTests",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
