"""Judge a submitted notebook: every auto-graded part, and the notebook's own run beside it.

:func:`judge_submission` starts the notebook's run in a kernel
(:class:`~coursegrader.judging.kernel_run.KernelRun`, for the student's
outputs), grades each auto-graded part in one sandbox of its own while that
run goes on (:mod:`coursegrader.judging.judge`), waits for the run and
returns the submission's :class:`~coursegrader.record.SubmissionResult` with
the outputs of the cells the kernel ran.  It reads the notebook and changes
nothing in it: putting the verdicts and outputs in is nbgrader's side
(:class:`~coursegrader.preprocessors.judge_submission.JudgeSubmission`).
"""

import time
from dataclasses import dataclass

from coursecheck.variants import VARIANT_CELL, bind_parts

from ..record import ANSWER_BYTES, SubmissionResult, limits_hit, now
from .cells import grade_id, is_test_cell, python_source, student_cells
from .judge import PartSession, grade_part
from .kernel_run import KernelRun
from .modules import student_modules
from .variants import variant_cell_source

__all__ = ["Settings", "Judgement", "judge_submission"]


@dataclass(frozen=True)
class Settings:
    """How a submission is judged.

    ``secret``: the course secret hidden cases are drawn from; ``mode``: the
    confinement; ``part_timeout``: seconds per part (None: each part's own);
    ``forbidden``: paths refused in the unconfined mode; ``cell_timeout``,
    ``budget``, ``output_bytes``: a cell's and the whole notebook run's
    seconds, and the output it keeps.
    """

    secret: str
    mode: str = "bubblewrap"
    part_timeout: float = None
    forbidden: tuple = ()
    cell_timeout: float = 60
    budget: float = 600.0
    output_bytes: int = 4 * 1024**2


@dataclass(frozen=True)
class Judgement:
    """The submission's record; the cells the kernel was given to run (their indices
    in the notebook) and what it gave back for each, {cell index: CellRun}."""

    result: SubmissionResult
    run_cells: tuple
    kernel_cells: dict


def judge_submission(nb, parts, settings, *, assignment, student, notebook, folder,
                     variant=None):
    """Judge notebook ``nb`` of ``student``'s submission to ``assignment``.

    ``parts``: the problem set's graded parts ({grade id: Part}; empty when the
    problem set is not the course's: the notebook is then only run);
    ``folder``: the submission's folder, whose regular files the sandboxes get;
    ``variant``: the student's variant, drawn from the student id the route
    established (:mod:`coursegrader.judging.variants`), for a problem set with
    variants: the notebook's variant cell is replaced by it in every run, and
    the parts that vary are judged on it.
    """
    started, clock = now(), time.monotonic()
    varying = {pid for pid, part in parts.items() if part.varies}
    if varying and variant is None:
        raise ValueError(f"{assignment}: the parts {sorted(varying)} vary, and no variant "
                         "was given")
    if variant is not None:
        parts = bind_parts(parts, variant)

    def source(cell):
        if variant is not None and grade_id(cell) == VARIANT_CELL:
            return variant_cell_source(variant)
        return cell.source

    graded = {i for i, cell in enumerate(nb.cells)
              if is_test_cell(cell) and grade_id(cell) in parts}
    run_cells = tuple(i for i, cell in enumerate(nb.cells)
                      if cell.cell_type == "code" and i not in graded)
    kernel = KernelRun({i: source(nb.cells[i]) for i in run_cells},
                       folder=folder, mode=settings.mode, cell_timeout=settings.cell_timeout,
                       budget=settings.budget, output_bytes=settings.output_bytes)
    code, results, unsubmitted = [], [], []
    try:
        with PartSession(files_from=folder, mode=settings.mode,
                         forbidden=settings.forbidden) as session:
            for i, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if not is_test_cell(cell):
                    code.append(python_source(source(cell)))
                elif i in graded:
                    part_id = grade_id(cell)
                    results.append(grade_part(
                        assignment, part_id, parts[part_id], code, student=student,
                        secret=settings.secret, timeout=settings.part_timeout,
                        session=session, unsubmitted=unsubmitted,
                        variant=variant if part_id in varying else None,
                        points=cell.metadata.nbgrader.get("points", parts[part_id].points)))
    except BaseException:
        kernel.cancel()     # the submission fails: its notebook's run is not waited for
        raise
    ran = kernel.finish()
    result = SubmissionResult(
        assignment=assignment, student=student, notebook=notebook, parts=tuple(results),
        kernel_run=ran.result,
        limits_hit=limits_hit([p.stop for p in results] + [ran.result.stop]),
        started=started, seconds=round(time.monotonic() - clock, 3), confinement=settings.mode,
        answers=student_cells(nb, ANSWER_BYTES) + student_modules(folder, ANSWER_BYTES),
        variant=variant.label if variant is not None else None,
        unsubmitted_code=tuple(unsubmitted))
    return Judgement(result, run_cells, ran.cells)
