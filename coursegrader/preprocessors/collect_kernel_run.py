"""CollectKernelRun: waits for the kernel run SafeExecute left going, and applies it."""

from nbgrader.preprocessors import NbGraderPreprocessor

from .safe_execute import apply_kernel_run

__all__ = ["CollectKernelRun"]


class CollectKernelRun(NbGraderPreprocessor):
    """Wait for the kernel run SafeExecute left going (``wait = False``); apply it."""

    def preprocess(self, nb, resources):
        pending = resources.get("coursegrader", {}).pop("kernel_run", None)
        if pending is not None:
            job, result, run_cells = pending
            apply_kernel_run(nb, job, result, run_cells, self.log,
                              resources.get("nbgrader", {}).get("student"))
        return nb, resources

