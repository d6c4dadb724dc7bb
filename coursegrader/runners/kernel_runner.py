"""The notebook's run in a kernel, inside the sandbox (``sandboxrunner.kernel_runner``).

:class:`coursegrader.judging.kernel_run.KernelRun` starts this module in
the sandbox of :mod:`coursegrader.sandbox`, so the Jupyter kernel, its ZeroMQ
sockets (on the sandbox's own loopback) and everything the notebook starts
live and die inside it.  It reads one :class:`~.protocol.KernelRequest` on stdin, runs the cells in
order in a fresh ``python3`` kernel with nbclient and writes one
:class:`~.protocol.KernelAnswer` on stdout: each cell's outputs and execution
count, and where and why the run stopped (a :class:`~.protocol.StopReason`).

A cell that runs longer than ``cell_timeout`` seconds, a kernel that dies, or
the whole run exceeding ``budget`` seconds stops the run (the remaining cells
are left unrun); outputs beyond ``output_bytes`` bytes in all are dropped,
with a note.  The grader trusts none of this: it reads at most a fixed number
of bytes, parses them as data and keeps only plain, sanitised outputs.
"""

import json
import os
import sys
import time

from .private import make_private
from .protocol import (CellRun, KernelAnswer, KernelRequest, KernelStop, StopReason, decode,
                       encode, write_all)

__all__ = ["main"]


def _client_class():
    from nbclient import NotebookClient

    class CappedClient(NotebookClient):
        """nbclient's client that keeps at most ``output_bytes`` bytes of output."""

        output_left = 0
        output_dropped = False

        def output(self, outs, msg, display_id, cell_index):
            size = len(json.dumps(msg.get("content", {}), default=str))
            if size > self.output_left:
                self.output_left = 0
                self.output_dropped = True
                return None
            self.output_left -= size
            return super().output(outs, msg, display_id, cell_index)

    return CappedClient


def run(request):
    """Run the cells of the :class:`KernelRequest` ``request``; return the KernelAnswer."""
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s)
                                         for s in request.cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    cell_timeout = float(request.cell_timeout)
    budget = float(request.budget)
    client = _client_class()(
        nb, timeout=int(cell_timeout), kernel_name="python3", allow_errors=True,
        interrupt_on_timeout=False, shutdown_kernel="immediate", startup_timeout=60,
        extra_arguments=["--HistoryManager.hist_file=:memory:"],
        resources={"metadata": {"path": os.getcwd()}})
    client.output_left = int(request.output_bytes)
    deadline = time.monotonic() + budget
    stopped = None
    with client.setup_kernel():
        for k, cell in enumerate(nb.cells):
            remaining = deadline - time.monotonic()
            if remaining < 1:
                stopped = KernelStop(k, StopReason.BUDGET, limit=budget)
                break
            client.timeout = max(1, int(min(cell_timeout, remaining)))
            try:
                client.execute_cell(cell, k)
            except CellTimeoutError:
                stopped = (KernelStop(k, StopReason.BUDGET, limit=budget)
                           if client.timeout < cell_timeout
                           else KernelStop(k, StopReason.CELL_TIMEOUT, limit=client.timeout))
            except DeadKernelError:
                stopped = KernelStop(k, StopReason.KERNEL_DIED)
            if client.output_dropped:
                cell.outputs.append(nbformat.v4.new_output(
                    "stream", name="stdout",
                    text=f"\n[output beyond {request.output_bytes} bytes dropped]\n"))
                client.output_dropped = False
            if stopped:
                break
    # plain JSON: the outputs as the kernel sent them, whatever they hold
    return KernelAnswer(tuple(CellRun(json.loads(json.dumps(c.outputs, default=str)),
                                      c.execution_count) for c in nb.cells), stopped)


def main():
    make_private()      # the kernel it starts cannot open this process's descriptors
    request = decode(sys.stdin.buffer.read(), KernelRequest)
    out_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = open(os.devnull, "w")
    sys.stderr = open(os.devnull, "w")
    try:
        answer = run(request)
    except Exception as exc:  # the kernel could not be started: say so, grading goes on
        answer = KernelAnswer((), KernelStop(0, StopReason.NO_KERNEL,
                                             detail=f"{type(exc).__name__}: {exc}"[:300]))
    try:
        data = encode(answer)
    except ValueError:        # an output JSON cannot carry (a NaN): the cells' outputs go
        data = encode(KernelAnswer((), answer.stopped))
    write_all(out_fd, data)
    os._exit(0)


if __name__ == "__main__":
    main()
