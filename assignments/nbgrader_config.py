"""nbgrader configuration of the course (run nbgrader from this folder, or use the Makefile).

This folder is the course: the problem sets' sources (source/), their parts
(problems/, the public half, and hidden/, the grader's) and this file.  The
grade of every auto-graded part is decided outside the student's kernel by
coursegrader's JudgeSubmission preprocessor
(coursegrader/preprocessors/judge_submission.py): it reruns each part, in a
process of its own in one sandbox per submission, with public and hidden
cases, writes the report and the score into the test cell and the
submission's record beside the autograded notebook.  Every run of student code
(the notebook's kernel and the judge) happens in the bubblewrap sandbox of
coursegrader/sandbox/.  `python -m coursegrader --help-all` lists every
setting of the grader.
"""

import os
import warnings

from coursegrader import dating, record
from coursegrader.apps import feedback_page
from coursegrader.settings import nbgrader_settings

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)
HERE = os.path.dirname(os.path.abspath(__file__))

# The course's settings per machine (the course id, the exchange folder, the
# gradebook, the secret, time limits, ...) are c.CourseSettings.<name>: set them
# here, or by the environment variables coursegrader/settings.py names.  The
# gradebook is SQLite in this folder by default, for grading on one machine
# (one writer at a time: a writer waits up to 60 s for another, and
# coursegrader.tools.batch grades a submission again if the lock outlasts
# that); several graders or machines at once need a database server, e.g.
#   export NBGRADER_DB_URL=postgresql+psycopg://grader:PASSWORD@dbhost/kernel_methods

# A problem set is written in source/psN/psN.md (with its solutions) and
# turned into source/psN/psN.ipynb by `make generate`; nbgrader copies every
# other file of source/psN/ into the release, so the Markdown source is ignored,
# and every file of a submission into its feedback, so its record (which names
# the hidden cases) is left out, and so is the collector's account of when it
# was handed in (which a student's own file of that name never replaces).
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.md",
                            record.IGNORE, dating.FILE]

# nbgrader's gradebook adds a submission's rows while SQLAlchemy autoflushes a
# lazy load, which SQLAlchemy reports as "Object of type <SubmittedAssignment>
# not in session"; the rows are added right after and nothing is lost
# (nbgrader 0.9), so the warning says nothing to the instructor.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

# Submissions downloaded from a learning-management system as one zip
# (`make zip_collect PS=ps1 ZIP=...`, coursegrader/tools/lms_zip.py): only the
# members at the top level of the LMS's zip are read, never an archive inside
# it, within caps on their number and size; the student comes from the
# LMS's own name of each member, Canvas's
# <name>_[LATE_]<user id>_<submission id>_<file>[-<n>].ipynb by default, and
# .py for a module handed in beside the notebook (helper.py). With
# Canvas's gradebook CSV (make zip_collect ... ROSTER=canvas.csv, or
# c.LmsZipExtractor.roster) each file is the student of its <user id> there,
# the SIS Login ID or SIS User ID registered in the gradebook; without it the
# student is <name> (Canvas builds it from the student's name: it must be the
# student's id in the gradebook), and a <name> two accounts share takes
# neither file. Adapt the expression
# to another system's names; a `timestamp` group (the LMS's submission time)
# dates the submission and lets a newer file of a student replace an older one
# (without it, both are skipped and listed); a `late` group is the LMS's late
# marker. Canvas's names carry no time, only LATE_: such a submission counts
# one day late (coursegrader/dating.py says where each time comes from).
c.ZipCollectApp.extractor_plugin = "coursegrader.tools.lms_zip.LmsZipExtractor"
c.ZipCollectApp.collector_plugin = "coursegrader.tools.lms_zip.LmsZipCollector"
c.LmsZipExtractor.named_regexp = (
    r"(?P<student_id>[^_]+)_(?P<late>LATE_)?(?P<user_id>\d+)_\d+_(?P<file_id>.+?)"
    r"(?:-\d+)?(?P<ext>\.ipynb|\.py)")
# An LMS that writes each file's submission time on its zip entry: its zone.
# c.LmsZipExtractor.entry_time_zone = "Europe/Berlin"
# The start of any member's name that names its student (shown beside a file
# that is not taken, such as an attachment); adapt it with named_regexp.
c.LmsZipExtractor.owner_regexp = r"(?P<student_id>[^_]+)_(?:LATE_)?(?P<user_id>\d+)_\d+_"
# Each student's bounds: how many notebooks of the problem set, how many bytes
# together; a student over one has nothing taken and is named.
# c.LmsZipExtractor.max_files = 100
# c.LmsZipExtractor.max_total_bytes = 200 * 1024**2

# The released notebooks: no solutions, no hidden tests, no outputs.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Where student code runs.  "bubblewrap": a sandbox with no view of the
# course, the exchange, the grader's home or the network (Debian package
# bubblewrap); autograde refuses to run where it cannot be built.
# "unconfined" is a weaker mode for a machine without it: student code then
# runs with the grader's rights (only limits, a fixed environment and a
# private folder).  The autograde log says which one was used.
c.JudgeSubmission.confinement = "bubblewrap"

# The student's notebook is run too (in the sandbox, while the judge grades),
# for the outputs the feedback shows: a cell that loops forever is stopped
# after c.CourseSettings.cell_timeout seconds, the whole run after `budget`
# seconds; grading goes on regardless, and the feedback says where and why the
# run stopped.  The solved notebooks of ps1..ps5 run in 1.8 to 3.4 s, the
# kernel's start included (alone or beside the judge); 30 s is about nine
# times the slowest, for a grader sharing its cores with the judge's sandboxes
# and other graders, and with code slower than the reference answers.  A
# budget far above that only lets one submission hold a grader (and, from
# Formgrader, the instructor's worker thread) for longer: 600 s held one for
# ten minutes with ten cells of 59 s.  Stopping the run costs a student
# outputs in her feedback, never points.
c.JudgeSubmission.budget = 30.0

# A notebook far larger than any honest one (by default over 10 MiB or 1,000
# cells: c.BoundSubmission.max_bytes, max_cells) is refused before it is read,
# so that it cannot hold a grader for long; it fails alone, named.
# A submission with symbolic links is refused (nbgrader would follow them).
# A submission with broken nbgrader metadata must not stop the grading of the
# others (nbgrader aborts the whole run on a schema mismatch).
c.Autograde.sanitize_preprocessors = [
    "coursegrader.preprocessors.BoundSubmission",
    "coursegrader.preprocessors.RefuseLinks",
    "coursegrader.preprocessors.SanitizeMetadata",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    # nbgrader's OverwriteCells, quiet on hidden tests
    "coursegrader.preprocessors.RestoreLockedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# A graded cell missing from a submission (its nbgrader metadata removed, or the
# cell deleted) is put back from the gradebook, so that Formgrader shows it to
# grade by hand: a part with nowhere to grade it kept `make export` and `make
# feedback` refusing, for the whole class, until FORCE=1.
c.RestoreLockedCells.add_missing_cells = True
# The judge, then the scores it recorded into the gradebook.  (nbgrader's
# IgnorePattern, with no pattern, and nbconvert's ClearMetadataPreprocessor,
# not enabled, did nothing here and are not in the list; AssignLatePenalties
# keeps nbgrader's own penalty empty: the course's late policy, below, is
# worked out at export and feedback.)
c.Autograde.autograde_preprocessors = [
    "coursegrader.preprocessors.JudgeSubmission",
    "nbgrader.preprocessors.LimitOutput",
    # what the student wrote is cleaned in the autograded notebook itself
    "coursegrader.preprocessors.CleanStudentHTML",
    "coursegrader.preprocessors.SaveRecordedGrades",
    # where the submission's time came from (the collector's account, beside it)
    "coursegrader.preprocessors.RecordSubmissionTime",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback shows the public test source and every report, never hidden tests,
# and no HTML or script of the student's that could run in a browser; each
# graded part is named by its title, and a part not fully scored names the
# book's sections it exercises, linked on the published book when
# c.CourseSettings.book_url is set (below, or $COURSEGRADER_BOOK_URL).  No
# feedback is written (from `make feedback` or Formgrader) for a submission
# with parts still to grade by hand, unless c.RefuseHalfGraded.allow_ungraded
# (make feedback FORCE=1).
c.GenerateFeedback.preprocessors = [
    "coursegrader.preprocessors.RefuseHalfGraded",
    "coursegrader.preprocessors.HideHiddenTests",
    "coursegrader.preprocessors.CleanStudentHTML",
    "coursegrader.preprocessors.TitleGradedParts",
    "coursegrader.preprocessors.LinkBookSections",
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
# Formgrader's grading page names, next to the student, the variant the
# submission was judged on, as its record says (problem sets with variants).
c.HTMLExporter.preprocessors = ["coursegrader.preprocessors.ShowGradedVariant"]
c.HTMLExporter.filters = {
    "offline_mathjax": "coursegrader.apps.feedback_page.offline_mathjax",
    "script_sources": "coursegrader.csp.script_sources",
    "clean_student_html": "coursegrader.student_html.clean_html",
    "tex_to_mathml": "coursegrader.mathml.html_with_mathml",
}

# The address of the published course website (the folder of its index.html):
# feedback links a failed part to the section of the book that teaches it.
# Unset, the feedback names the section by its chapter and title.
# c.CourseSettings.book_url = "https://example.org/kernel-methods/"

# Due dates and the late policy (coursegrader/late_policy.py). Due dates come
# from due_dates.csv (`make db`), extensions from `make extend`; both are
# written and shown in this time zone. The penalty is worked out again at
# every `make export` and `make feedback`, from each student's own due date.
c.CourseCalendar.time_zone = "UTC"  # e.g. "Europe/Berlin"
c.LatePolicy.per_day = 0.10          # of the points, per day or part of a day late
c.LatePolicy.zero_after_days = 5     # later than that: zero
c.LatePolicy.of = "points_possible"  # or "score": a fraction of what was earned

# `make similarity`: a pair of submissions is flagged when this share of one
# submission's code (in normal form: names, comments, layout, no-ops and the
# spelling of loops set aside; the release removed) is found in the other, or
# this share of its written answers' runs of words (coursegrader/similarity/).
c.SimilarityCheck.threshold = 0.6
c.SimilarityCheck.written_threshold = 0.5

# Last, nbgrader's own settings that follow from the course's
# (coursegrader/settings.py): this folder, the course id, the gradebook and the
# exchange.  Collecting from the shared-folder exchange, where a student owns
# their inbound folder and could add links to it (to the solutions, to
# .grader_secret), takes only regular files and skips and logs every link
# (coursegrader/tools/exchange_collect.py); on the course's JupyterHub
# (deploy/), whose servers set KERNEL_COURSE_EXCHANGE, the environment's
# nbgrader_config.py picks the collect of its exchange (ngshare's, or an
# owner-checked one built on that class), and this file leaves the choice.
c.merge(nbgrader_settings(c, HERE))
