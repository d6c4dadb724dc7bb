"""SafeExecute: the notebook's own run, in a kernel inside the sandbox.

It runs the notebook's code cells in a kernel inside the sandbox of
:mod:`coursegrader.sandbox` (the runner inside is
:mod:`coursegrader.runners.kernel_runner`), with a timeout per cell and a
budget for the whole run; the outputs come back as data, are kept only if
plain and are cleaned.  A cell that times out or a kernel that dies stops the
run, never the grading (the grade is decided by
:class:`~coursegrader.preprocessors.judge_tests.JudgeTests` anyway).  With
``wait = False`` the run goes on while the judge works, and
:class:`~coursegrader.preprocessors.collect_kernel_run.CollectKernelRun`
applies it later (:func:`apply_kernel_run`).
"""

import threading

from nbformat.v4 import new_output
from traitlets import Bool, Float, Int

from .. import sandbox
from ..judging.cells import is_test_cell
from ..judging.problem_sets import public_parts
from ..runners import protocol
from ..student_outputs import clean_outputs
from .base import ConfinedPreprocessor

__all__ = ["SafeExecute", "apply_kernel_run"]


class SafeExecute(ConfinedPreprocessor):
    """Run the notebook in a sandboxed kernel; never let it stop the grading."""

    timeout = Int(
        60, help="Seconds a cell may run before the kernel run stops.").tag(config=True)
    budget = Float(
        600.0, help="Seconds the whole kernel run may take.").tag(config=True)
    output_bytes = Int(
        4 * 1024**2, help="Bytes of output kept from the run.").tag(config=True)
    wait = Bool(
        True, help="Wait for the kernel run here; with False, it goes on while the "
        "next preprocessors (the judge) work, and CollectKernelRun, later in the "
        "chain, waits for it and fills in the outputs.").tag(config=True)

    def preprocess(self, nb, resources):
        self.check_confinement(resources)
        # Registered test cells are graded by JudgeTests; running them here too
        # would only cost time.
        try:
            graded = set(public_parts(resources["nbgrader"]["assignment"]))
        except (KeyError, TypeError, ValueError):
            graded = set()
        run_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                     and not (is_test_cell(c)
                              and c.metadata.nbgrader.get("grade_id") in graded)]
        for i in run_cells:
            nb.cells[i].outputs = []
            nb.cells[i].execution_count = None
        request = protocol.KernelRequest(tuple(nb.cells[i].source for i in run_cells),
                                         self.timeout, self.budget, self.output_bytes)
        folder = (resources or {}).get("metadata", {}).get("path")
        result = {}
        job = threading.Thread(target=lambda: result.update(
            zip(("answer", "why"), self._run(sandbox.KERNEL, request, folder))),
            daemon=True)
        job.start()
        student = resources.get("nbgrader", {}).get("student")
        if self.wait:
            apply_kernel_run(nb, job, result, run_cells, self.log, student)
        else:   # the judge grades meanwhile; CollectKernelRun applies the outputs
            pending = (job, result, run_cells)
            resources.setdefault("coursegrader", {})["kernel_run"] = pending
        return nb, resources

    def _run(self, policy, request, folder):
        """(the KernelAnswer or None, why the run gave nothing usable or "")."""
        run = sandbox.start(policy, sandbox.KERNEL_RUNNER, mode=self.confinement,
                            files_from=folder)
        channel = sandbox.Channel(run)
        channel.expect(self.budget + 60, policy.output_bytes)   # kernel start-up and shutdown
        try:
            channel.send(request)
            channel.close_input()
            data = channel.receive_all()
        except sandbox.Stopped as stop:
            if stop.reason is protocol.StopReason.TIMEOUT:
                return None, f"the notebook's run took more than {self.budget:g} s in all"
            if stop.reason is protocol.StopReason.OUTPUT_LIMIT:
                return None, "the notebook's run sent back too much output"
            return None, "the kernel run stopped before it answered"
        except OSError as exc:
            return None, f"the kernel run could not be started ({exc})"
        finally:
            channel.close()
            sandbox.stop(run)
        try:
            return protocol.decode(data, protocol.KernelAnswer,
                                   max_bytes=policy.output_bytes), ""
        except protocol.ProtocolError as exc:
            return None, f"the kernel run sent back something unreadable ({exc})"


def _stop_text(stop):
    Reason = protocol.StopReason
    if stop.reason is Reason.BUDGET:
        return (f"the notebook's run took more than {stop.limit:g} s in all; this cell and "
                "the ones below were not run")
    if stop.reason is Reason.CELL_TIMEOUT:
        return f"this cell did not finish within {stop.limit:g} s"
    if stop.reason is Reason.KERNEL_DIED:
        return "the kernel died while running this cell"
    return f"the kernel could not run ({stop.detail})"


def apply_kernel_run(nb, job, result, run_cells, log, student):
    """Wait for the kernel run ``job`` and put its cleaned outputs into ``nb``."""
    job.join()
    answer, why = result.get("answer"), result.get("why", "the kernel run failed")
    cells = answer.cells if answer is not None else ()
    for i, got in zip(run_cells, cells):
        nb.cells[i].outputs = clean_outputs(got.outputs)
        nb.cells[i].execution_count = got.execution_count
    stopped = answer.stopped if answer is not None else None
    if stopped is not None and stopped.cell < len(run_cells):
        where, why = run_cells[stopped.cell], _stop_text(stopped)
    elif why:
        where = run_cells[0] if run_cells else None
    else:
        where = None
    if where is not None:
        log.warning("Kernel run of %s stopped at cell %d: %s; grading continues",
                    student, where, why)
        nb.cells[where].outputs.append(new_output(
            "error", ename="KernelStopped", evalue=why,
            traceback=[f"KernelStopped: {why}; the cells below were not run in the "
                       "notebook (the grader still checks every part)"]))
