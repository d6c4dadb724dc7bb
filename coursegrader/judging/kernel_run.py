"""The notebook's own run in a kernel inside the sandbox, for the student's outputs.

:class:`KernelRun` starts the kernel's runner (:mod:`coursegrader.runners.kernel_runner`)
in the sandbox with the notebook's code cells, and the run goes on, in a
thread of its own, while the judge grades the parts; :meth:`KernelRun.finish`
waits for it and returns each cell's outputs as data and why the run stopped,
if it did.  A cell that runs longer than its limit, a kernel that dies, or the
run exceeding its budget stops the run, never the grading: the grade is the
judge's.  What comes back is read within a byte budget and a deadline and
parsed as a :class:`~coursegrader.runners.protocol.KernelAnswer`; the outputs
are not trusted (the caller keeps only plain, cleaned ones).
"""

import threading
import time
from dataclasses import dataclass

from .. import sandbox
from ..record import KernelRunResult, Stop
from ..runners.protocol import KernelAnswer, KernelRequest, ProtocolError, StopReason, decode

__all__ = ["KernelRun", "KernelOutcome"]

#: Seconds the kernel may take to start and to shut down, beyond the run's budget.
SLACK = 60


@dataclass(frozen=True)
class KernelOutcome:
    """What the notebook's run gave: ``cells`` ({notebook cell index: CellRun}) and its
    :class:`~coursegrader.record.KernelRunResult`."""

    cells: dict
    result: KernelRunResult


class KernelRun:
    """The run of the code cells ``cells`` ({notebook cell index: source}), started now.

    ``folder``: the submission's folder, whose regular files the sandbox gets;
    ``mode``: the confinement; ``cell_timeout``, ``budget``: seconds a cell
    and the whole run may take; ``output_bytes``: outputs the runner keeps.
    """

    def __init__(self, cells, *, folder, mode, cell_timeout, budget, output_bytes,
                 policy=sandbox.KERNEL):
        self._index = list(cells)
        self._request = KernelRequest(tuple(cells.values()), cell_timeout, budget,
                                      output_bytes)
        self._folder, self._mode, self._policy = folder, mode, policy
        self._outcome, self._run_handle, self._cancelled = None, None, False
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def finish(self):
        """Wait for the run to end; its :class:`KernelOutcome`."""
        self._thread.join()
        return self._outcome

    def cancel(self):
        """Stop the run now (the judging failed: nobody waits for its outputs)."""
        self._cancelled = True
        if self._run_handle is not None:
            sandbox.stop(self._run_handle)
        self._thread.join()

    def _run(self):
        try:
            answer, stop = self._exchange(), None
        except _Failed as failed:
            answer, stop = None, failed.stop
        except Exception as exc:   # whatever went wrong, the grading goes on
            answer = None
            stop = Stop(StopReason.NO_KERNEL, detail=f"{type(exc).__name__}: {exc}"[:300])
        cells = {}
        if answer is not None:
            cells = dict(zip(self._index, answer.cells))
            if answer.stopped is not None:
                k = answer.stopped.cell
                stop = Stop(answer.stopped.reason, limit=answer.stopped.limit,
                            cell=self._index[k] if k < len(self._index) else None,
                            detail=(answer.stopped.detail or "")[:300] or None)
        self._outcome = KernelOutcome(cells, KernelRunResult(
            stop=stop, seconds=round(time.monotonic() - self._started, 3)))

    def _exchange(self):
        """The runner's KernelAnswer; raises _Failed when there is none."""
        budget = self._request.budget
        if self._cancelled:
            raise _Failed(Stop(StopReason.VANISHED))
        try:
            run = sandbox.start(self._policy, sandbox.KERNEL_RUNNER, mode=self._mode,
                                files_from=self._folder)
        except OSError as exc:
            raise _Failed(Stop(StopReason.NO_KERNEL, detail=f"not started: {exc}"[:300]))
        self._run_handle = run
        if self._cancelled:     # cancelled while it started
            sandbox.stop(run)
        channel = sandbox.Channel(run)
        channel.expect(budget + SLACK, self._policy.output_bytes)
        try:
            channel.send(self._request)
            channel.close_input()
            data = channel.receive_all()
        except sandbox.Stopped as stopped:
            if stopped.reason is StopReason.TIMEOUT:
                raise _Failed(Stop(StopReason.BUDGET, limit=budget)) from None
            limit = self._policy.output_bytes if stopped.reason is \
                StopReason.OUTPUT_LIMIT else None
            raise _Failed(Stop(stopped.reason, code=stopped.code, limit=limit)) from None
        except OSError as exc:
            raise _Failed(Stop(StopReason.NO_KERNEL, detail=f"not started: {exc}"[:300]))
        finally:
            channel.close()
            sandbox.stop(run)
        try:
            return decode(data, KernelAnswer, max_bytes=self._policy.output_bytes)
        except ProtocolError as exc:
            raise _Failed(Stop(StopReason.UNREADABLE, detail=str(exc)[:300])) from None


class _Failed(Exception):
    def __init__(self, stop):
        super().__init__(stop.reason.value)
        self.stop = stop
