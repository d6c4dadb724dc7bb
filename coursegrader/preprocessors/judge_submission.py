"""JudgeSubmission: the notebook run for the student's outputs, every part judged, the record.

At autograde, first of ``Autograde.autograde_preprocessors``, it hands the
notebook to :func:`coursegrader.judging.submission.judge_submission`, which
runs the notebook's code in a kernel inside the sandbox (the student's
outputs) and meanwhile grades every auto-graded part of a problem set of the
course in a sandbox of its own.  Then it puts the judge's report and score
into each test cell and the kernel's outputs, kept plain and cleaned, into the
other code cells, and attaches the submission's
:class:`~coursegrader.record.SubmissionResult`, which nbgrader's writer saves
beside the autograded notebook and which the gradebook's scores are taken
from (:class:`~coursegrader.preprocessors.save_recorded_grades.SaveRecordedGrades`).
"""

import os
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum, Float, Int, List, Unicode, default

from .. import record, sandbox
from ..judging.problem_sets import graded_parts
from ..judging.variants import submission_variant
from ..judging.submission import Settings, judge_submission
from ..secret import SECRET_FILE, course_secret
from ..settings import CourseSettings
from ..student_html import MarkdownBudget
from ..student_outputs import MARKDOWN_CHARACTERS, clean_outputs

__all__ = ["JudgeSubmission"]


class JudgeSubmission(NbGraderPreprocessor):
    """Run the notebook and judge its parts in the sandbox; attach the record."""

    confinement = Enum(
        list(sandbox.MODES), default_value="bubblewrap",
        help="Where student code runs: 'bubblewrap' (the sandbox; grading is refused "
             "where it cannot be built) or 'unconfined' (weaker: separate processes with "
             "limits and a fixed environment, but no namespaces; an explicit opt-in)."
    ).tag(config=True)
    budget = Float(
        600.0, help="Seconds the notebook's whole run in a kernel may take (each cell: "
        "CourseSettings.cell_timeout); grading goes on regardless.").tag(config=True)
    output_bytes = Int(
        4 * 1024**2, help="Bytes of output kept from the notebook's run.").tag(config=True)
    secret_file = Unicode(
        help="File holding the course secret the hidden cases are drawn from, when "
             "CourseSettings.secret is empty; created when missing (default: "
             ".grader_secret in the course folder).").tag(config=True)
    forbidden_paths = List(
        Unicode(),
        help="Unconfined mode only: paths student code may not open (default: the course "
             "folder and the exchange; in the sandbox neither exists).").tag(config=True)

    @default("secret_file")
    def _default_secret_file(self):
        return str(Path(self._course()) / SECRET_FILE)

    @default("forbidden_paths")
    def _default_forbidden_paths(self):
        return [str(self._course()), CourseSettings(config=self.config).exchange]

    def _course(self):
        return CourseDirectory(config=self.config).root

    def _course_secret(self, settings):
        return course_secret(settings, self.secret_file, self.log)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        assignment, student = info.get("assignment"), info.get("student")
        sandbox.check_mode(self.confinement)
        (self.log.info if self.confinement == "bubblewrap" else self.log.warning)(
            "%s/%s %s", student, assignment, sandbox.describe(self.confinement))
        try:
            parts = graded_parts(self._course(), assignment)
        except ValueError as exc:
            self.log.warning("No problem set %r in the course (%s); the notebook is run, "
                             "its test cells as they are", assignment, exc)
            parts = {}
        settings = CourseSettings(config=self.config)
        folder = os.path.abspath(resources.get("metadata", {}).get("path") or os.getcwd())
        secret = self._course_secret(settings) if parts else ""
        # The variant of the student nbgrader's route named (the submission's
        # folder in submitted/), never the one the notebook shows.
        variant = (submission_variant(secret, assignment, student)
                   if parts else None)
        if variant is not None:
            self.log.info("%s/%s graded on variant %s", student, assignment, variant.label)
        judged = judge_submission(
            nb, parts, Settings(secret=secret,
                                mode=self.confinement, part_timeout=settings.part_timeout,
                                forbidden=tuple(self.forbidden_paths),
                                cell_timeout=settings.cell_timeout, budget=self.budget,
                                output_bytes=self.output_bytes),
            assignment=assignment, student=student,
            notebook=info.get("notebook") or resources.get("metadata", {}).get("name", ""),
            folder=folder, variant=variant)
        result = judged.result
        for part in result.parts:
            self.log.info("%s/%s %s: %s of %s", student, assignment, part.part, part.score,
                          part.points)
        markdown = MarkdownBudget(MARKDOWN_CHARACTERS)   # the notebook's, all outputs
        for i, cell in enumerate(nb.cells):
            if i in judged.kernel_cells:
                ran = judged.kernel_cells[i]
                cell.outputs = clean_outputs(ran.outputs, markdown)
                cell.execution_count = ran.execution_count
            elif cell.cell_type == "code" and result.part(_grade_id(cell)) is not None:
                cell.outputs = _verdict(result.part(_grade_id(cell)), cell.get("execution_count"))
            elif cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        self._show_stop(nb, result, judged.run_cells, student)
        record.attach(resources, result)
        return nb, resources

    def _show_stop(self, nb, result, ran, student):
        """Say in the notebook where and why its run stopped, if it did."""
        stop = result.kernel_run.stop if result.kernel_run else None
        if stop is None or not ran:
            return
        where = stop.cell if stop.cell is not None else ran[0]
        why = stop.describe(kernel=True)
        self.log.warning("Kernel run of %s stopped at cell %d: %s; grading continues",
                         student, where, why)
        nb.cells[where].outputs.append(new_output(
            "error", ename="KernelStopped", evalue=why,
            traceback=[f"KernelStopped: {why}; the cells below were not run in the "
                       "notebook (the grader still checks every part)"]))


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _verdict(part, execution_count):
    """A test cell's outputs: the judge's report, then the score nbgrader reads."""
    outputs = [new_output("stream", name="stdout", text=part.report + "\n")]
    if part.score > 0:
        outputs.append(new_output("execute_result", data={"text/plain": f"{part.score:g}"},
                                  execution_count=execution_count))
    else:
        outputs.append(new_output("error", ename="CheckFailed", evalue="0 points",
                                  traceback=["CheckFailed: no check passed "
                                             "(0 points)"]))
    return outputs
