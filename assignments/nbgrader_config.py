"""nbgrader configuration of the course (run nbgrader from this folder, or use the Makefile).

The grade of every auto-graded part is decided outside the student's kernel
by coursegrader's JudgeTests preprocessor (coursegrader/preprocessors/judge_tests.py):
it reruns each part, in a process of its own in one sandbox per submission,
with public and hidden cases and writes the score into the test cell.  Every run of student code (the notebook's kernel
and the judge) happens in the bubblewrap sandbox of coursegrader/sandbox.py.
"""

import os
import warnings

from coursegrader.apps import feedback_page
from coursegrader.settings import CourseSettings

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

# What the environment sets (NBGRADER_EXCHANGE, NBGRADER_COURSE_ID,
# NBGRADER_DB_URL, COURSEGRADER_*, ...): read in one place,
# coursegrader/settings.py, which names each variable.
settings = CourseSettings(config=c)
HERE = os.path.dirname(os.path.abspath(__file__))
EXCHANGE = settings.exchange

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = settings.course_id
c.Exchange.root = EXCHANGE

# A problem set is written in source/psN/psN.md (with its solutions) and
# turned into source/psN/psN.ipynb by `make generate`; nbgrader copies every
# other file of source/psN/ into the release, so the Markdown source is ignored.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.md"]

# The gradebook. By default SQLite in this folder, for grading on one machine:
# one writer at a time, so a writer waits up to 60 s for another to finish
# (coursegrader.tools.batch also grades a submission again if the lock outlasts that).
# Several graders or machines at once need a database server, e.g.
#   export NBGRADER_DB_URL=postgresql+psycopg://grader:PASSWORD@dbhost/kernel_methods
c.CourseDirectory.db_url = (settings.db_url
                            or f"sqlite:///{os.path.join(HERE, 'gradebook.db')}?timeout=60")

# nbgrader's gradebook adds a submission's rows while SQLAlchemy autoflushes a
# lazy load, which SQLAlchemy reports as "Object of type <SubmittedAssignment>
# not in session"; the rows are added right after and nothing is lost
# (nbgrader 0.9), so the warning says nothing to the instructor.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

# Submissions downloaded from a learning-management system as one zip
# (`make zip_collect PS=ps1 ZIP=...`, coursegrader/tools/lms_zip.py): only the
# members at the top level of the LMS's zip are read, never an archive inside
# it, within caps on their number and size; the student id comes from the
# LMS's own name of each member, Canvas's
# <student>_[LATE_]<user id>_<submission id>_<file>[-<n>].ipynb by default
# (<student> must be the student's id in the gradebook). Adapt the expression
# to another system's names; a `timestamp` group lets a newer file of a
# student replace an older one (without it, both are skipped and listed).
c.ZipCollectApp.extractor_plugin = "coursegrader.tools.lms_zip.LmsZipExtractor"
c.ZipCollectApp.collector_plugin = "coursegrader.tools.lms_zip.LmsZipCollector"
c.LmsZipExtractor.named_regexp = (
    r"(?P<student_id>[^_]+)_(?:LATE_)?\d+_\d+_(?P<file_id>.+?)(?:-\d+)?\.ipynb")

# The released notebooks: no solutions, no hidden tests, no outputs.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Where student code runs.  "bubblewrap": a sandbox with no view of the
# course, the exchange, the grader's home or the network (Debian package
# bubblewrap); autograde refuses to run where it cannot be built.
# "unconfined" is a weaker mode for a machine without it: student code then
# runs with the grader's rights (only limits, a fixed environment and a
# private folder).  The autograde log says which one was used.
CONFINEMENT = "bubblewrap"
c.SafeExecute.confinement = CONFINEMENT
c.JudgeTests.confinement = CONFINEMENT

# Running the student's notebook (in the sandbox): a cell that loops forever
# is stopped after this many seconds, the whole run after `budget` seconds;
# grading goes on regardless.
c.SafeExecute.timeout = settings.cell_timeout
c.SafeExecute.budget = 600.0
# The kernel run goes on while JudgeTests grades; CollectKernelRun waits for it.
c.SafeExecute.wait = False

# A submission with symbolic links is refused (nbgrader would follow them).
# A submission with broken nbgrader metadata must not stop the grading of the
# others (nbgrader aborts the whole run on a schema mismatch).
c.Autograde.sanitize_preprocessors = [
    "coursegrader.preprocessors.RefuseLinks",
    "coursegrader.preprocessors.SanitizeMetadata",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    # nbgrader's OverwriteCells, quiet on hidden tests
    "coursegrader.preprocessors.RestoreLockedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "coursegrader.preprocessors.SafeExecute",
    "coursegrader.preprocessors.JudgeTests",
    "coursegrader.preprocessors.CollectKernelRun",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    # what the student wrote is cleaned in the autograded notebook itself
    "coursegrader.preprocessors.CleanStudentHTML",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# The judge.  forbidden_paths only matter in the unconfined mode (in the
# sandbox the course folder and the exchange do not exist).
c.JudgeTests.secret_file = os.path.join(HERE, ".grader_secret")
c.JudgeTests.forbidden_paths = [HERE, EXCHANGE]
c.JudgeTests.timeout = settings.part_timeout   # None: each part's own limit

# Feedback shows the public test source and every report, never hidden tests,
# and no HTML or script of the student's that could run in a browser; each
# graded part is named by its title.
c.GenerateFeedback.preprocessors = [
    "coursegrader.preprocessors.HideHiddenTests",
    "coursegrader.preprocessors.CleanStudentHTML",
    "coursegrader.preprocessors.TitleGradedParts",
    "nbgrader.preprocessors.GetGrades",
    "coursegrader.preprocessors.LateFeedback",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
c.HTMLExporter.sanitize_html = True
# The page opens offline: MathJax inlined from the site's copy, no cell prompts
# (coursegrader/apps/feedback_page.py, coursegrader/templates/feedback/).  The same
# settings reach Formgrader, whose grading page (templates/formgrade/) shows
# Markdown cells cleaned by coursegrader/student_html.py, as the feedback does.
c.HTMLExporter.extra_template_basedirs = feedback_page.template_basedirs()
c.HTMLExporter.template_file = feedback_page.TEMPLATE_FILE
c.HTMLExporter.filters = {
    "offline_mathjax": "coursegrader.apps.feedback_page.offline_mathjax",
    "clean_student_html": "coursegrader.student_html.clean_html",
}

# Collecting from the shared-folder exchange: a student owns their inbound
# folder and could add links to it (to the solutions, to .grader_secret);
# this collect takes only regular files and skips and logs every link
# (coursegrader/tools/exchange_collect.py). On the course's JupyterHub (deploy/),
# whose servers set KERNEL_COURSE_EXCHANGE, the environment's nbgrader_config.py
# picks the collect of its exchange (ngshare's, or an owner-checked one built on
# this class); nbgrader reads this file after that one, so it leaves the choice.
if not settings.hub_exchange:
    c.ExchangeFactory.collect = "coursegrader.tools.exchange_collect.NoLinkCollect"

# Due dates and the late policy (coursegrader/late_policy.py). Due dates come
# from due_dates.csv (`make db`), extensions from `make extend`; both are
# written and shown in this time zone. The penalty is worked out again at
# every `make export` and `make feedback`, from each student's own due date.
c.CourseCalendar.time_zone = "UTC"  # e.g. "Europe/Berlin"
c.LatePolicy.per_day = 0.10          # of the points, per day or part of a day late
c.LatePolicy.zero_after_days = 5     # later than that: zero
c.LatePolicy.of = "points_possible"  # or "score": a fraction of what was earned

# `make similarity`: a pair of submissions is flagged when this share of one
# answer's code (names, comments and layout set aside; the released scaffold
# removed) is found in the other (coursegrader/tools/similarity.py).
c.SimilarityCheck.threshold = 0.6
