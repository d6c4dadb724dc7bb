"""nbgrader preprocessors that make the grade independent of the student's kernel.

* :class:`SafeExecute` -- nbgrader's Execute, but a cell that times out or a
  kernel that dies stops the kernel run instead of aborting the submission
  (the grade is decided by :class:`JudgeTests` anyway).
* :class:`JudgeTests` -- for every auto-graded test cell of a registered
  problem set, reruns the part in a sandbox process (see
  :mod:`coursegrader.judge`) and replaces the cell's outputs with the report
  and the score that nbgrader records.
* :class:`HideHiddenTests` -- for feedback: removes the hidden-test region
  from test cells, tolerating student cells that merely contain the markers.

They are wired into nbgrader in ``assignments/nbgrader_config.py``.
"""

import json
import os
import secrets
import shutil
import sys
import tempfile

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Dict, Float, List, Type, Unicode

from .judge import grade_part, private_root
from .spec import get_parts

__all__ = ["SafeExecute", "GuardedKernelManager", "JudgeTests", "SanitizeMetadata",
           "HideHiddenTests", "test_cell_ids"]


def _secret_name(name):
    upper = name.upper()
    return upper.startswith("COURSEGRADER_") or any(
        w in upper for w in ("SECRET", "TOKEN", "PASSW", "API_KEY", "CREDENTIAL"))


class GuardedKernelManager(AsyncKernelManager):
    """Starts the kernel through ``python -m coursegrader.kernelguard`` (confined)."""

    guard_policy = Dict(help="denied / readable / writable paths for the kernel").tag(config=True)

    async def _async_pre_start_kernel(self, **kw):
        cmd, kw = await super()._async_pre_start_kernel(**kw)
        if self.guard_policy:
            cmd = [sys.executable, "-m", "coursegrader.kernelguard",
                   json.dumps(self.guard_policy), "--"] + list(cmd)
        return cmd, kw


class SafeExecute(Execute):
    """Execute that survives a cell timing out or the kernel dying, in a confined kernel."""

    kernel_manager_class = Type(GuardedKernelManager, config=True)

    interrupt_on_timeout = Bool(False, help="Stop the kernel run on a timeout.").tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", GuardedKernelManager)  # nbgrader sets its own
        super().__init__(*args, **kwargs)
    protected_paths = List(
        Unicode(), help="Folders the kernel may not read or write (see coursegrader.kernelguard)."
    ).tag(config=True)

    async def async_start_new_kernel(self, **kwargs):
        guard = (f"import coursegrader.kernelguard as _cg; "
                 f"_cg.install({[str(p) for p in self.protected_paths]!r}); del _cg")
        self.extra_arguments = ["--HistoryManager.hist_file=:memory:",
                                f"--IPKernelApp.exec_lines={guard}"]
        # The kernel gets a private temporary folder and no secrets, and is
        # started confined (coursegrader.kernelguard.main).
        from .kernelguard import _package_dirs
        from .sandbox import course_folders
        private = self._private_dir = tempfile.mkdtemp(prefix="kernel-", dir=private_root())
        env = {k: v for k, v in os.environ.items() if not _secret_name(k)}
        env.update(TMPDIR=private, MPLCONFIGDIR=private, IPYTHONDIR=private)
        kwargs["env"] = env
        cwd = kwargs.setdefault(
            "cwd", (self.resources or {}).get("metadata", {}).get("path") or os.getcwd())
        # The submission's folder is readable but not writable: whatever the
        # kernel leaves behind (a helper process, files) cannot reach the
        # sandbox that grades the submission afterwards.
        self.km.guard_policy = {
            "denied": [str(p) for p in self.protected_paths] + course_folders()
            + [private_root()],
            "readable": _package_dirs() + [str(cwd)],
            "writable": [private, os.devnull],
        }
        return await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)  # the sync path nbconvert uses

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = False
        self._private_dir = None
        try:
            return self._preprocess(nb, resources, km)
        finally:
            if self._private_dir:
                shutil.rmtree(self._private_dir, ignore_errors=True)

    def _preprocess(self, nb, resources, km):
        # Registered test cells are graded by JudgeTests; running them here too
        # would only cost time.
        try:
            self._graded_elsewhere = set(get_parts((resources or {})["nbgrader"]["assignment"]))
        except (KeyError, TypeError, ValueError):
            self._graded_elsewhere = set()
        self.shutdown_kernel = "immediate"
        try:
            return super().preprocess(nb, resources, km)
        except Exception as exc:  # e.g. the kernel died while shutting down
            self.log.warning("Kernel run stopped early (%s: %s); grading continues",
                             type(exc).__name__, exc)
            return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if self._stopped or (_is_test_cell(cell) and cell.metadata.nbgrader.get("grade_id")
                             in self._graded_elsewhere):
            return cell, self.resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            why = f"this cell did not finish within {self.timeout} s"
        except DeadKernelError:
            why = "the kernel died while running this cell"
        self._stopped = True
        self.log.warning("Cell %d: %s; the remaining cells are not run", index, why)
        cell.outputs.append(new_output(
            "error", ename="KernelStopped", evalue=why,
            traceback=[f"KernelStopped: {why}; the cells below were not run in the "
                       "notebook (the grader still checks every part)"]))
        return cell, self.resources


def test_cell_ids(nb, parts):
    """Grade ids of the auto-graded test cells of ``nb`` that belong to ``parts``."""
    return [c.metadata.nbgrader["grade_id"] for c in nb.cells
            if _is_test_cell(c) and c.metadata.nbgrader.get("grade_id") in parts]


def _is_test_cell(cell):
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


def _python_source(source):
    """Turn IPython syntax (magics, !commands) into plain Python calls."""
    from IPython.core.inputtransformer2 import TransformerManager
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


class JudgeTests(NbGraderPreprocessor):
    """Replace the outputs of registered test cells with the sandboxed verdict."""

    secret = Unicode(
        "", help="Course secret for the hidden cases (else $COURSEGRADER_SECRET, else secret_file)."
    ).tag(config=True)
    secret_file = Unicode(
        ".grader_secret", help="File holding the course secret; created when missing."
    ).tag(config=True)
    timeout = Float(
        None, allow_none=True, help="Seconds per part in the sandbox (default: the part's own)."
    ).tag(config=True)
    forbidden_paths = List(
        Unicode(), help="Paths graded code may not open (course folder, exchange)."
    ).tag(config=True)
    python = Unicode(sys.executable, help="Python used for the sandbox.").tag(config=True)

    def _course_secret(self):
        if self.secret:
            return self.secret
        if os.environ.get("COURSEGRADER_SECRET"):
            return os.environ["COURSEGRADER_SECRET"]
        path = os.path.abspath(self.secret_file)
        if not os.path.exists(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            self.log.info("Created the course secret %s (keep it; grades depend on it)", path)
        with open(path) as f:
            value = f.read().strip()
        if not value:
            raise ValueError(f"the course secret file {path} is empty")
        return value

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        assignment, student = info.get("assignment"), info.get("student")
        try:
            parts = get_parts(assignment)
        except ValueError:
            self.log.warning("No coursegrader problem set for %r; test cells left as run",
                             assignment)
            return nb, resources
        secret = self._course_secret()
        nb_dir = os.path.abspath(resources.get("metadata", {}).get("path") or os.getcwd())
        code = []
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            if not _is_test_cell(cell):
                code.append(_python_source(cell.source))
                continue
            part_id = cell.metadata.nbgrader.get("grade_id")
            if part_id not in parts:
                continue
            points = float(cell.metadata.nbgrader.get("points", parts[part_id].points))
            grade = grade_part(assignment, part_id, parts[part_id], code, student=student,
                               secret=secret, timeout=self.timeout, files_from=nb_dir,
                               forbidden=self.forbidden_paths, python=self.python)
            score = min(points, round(grade.score * points / grade.points, 2))
            self.log.info("%s/%s %s: %s of %s", student, assignment, part_id, score, points)
            cell.outputs = _outputs(grade.report, score, cell.get("execution_count"))
        return nb, resources


def _outputs(report, score, execution_count):
    outputs = [new_output("stream", name="stdout", text=report + "\n")]
    if score > 0:
        outputs.append(new_output("execute_result", data={"text/plain": f"{score:g}"},
                                  execution_count=execution_count))
    else:
        outputs.append(new_output("error", ename="CheckFailed", evalue="0 points",
                                  traceback=["CheckFailed: no check passed (0 points)"]))
    return outputs


class SanitizeMetadata(NbGraderPreprocessor):
    """Drop nbgrader metadata a student broke, before nbgrader's own checks.

    nbgrader stops the whole autograde run -- every student after this one
    ungraded -- when a submitted cell carries metadata of another schema
    version, and duplicated grade ids leave an empty block that trips the same
    check. This preprocessor, first in ``Autograde.sanitize_preprocessors``,
    removes the nbgrader metadata of such cells (invalid, or repeating a
    grade id seen in a later cell, the one nbgrader keeps), so they count as
    the student's own cells; the gradebook still restores the real ones.
    """

    def preprocess(self, nb, resources):
        from nbgrader.nbgraderformat import MetadataValidator
        validator = MetadataValidator()
        seen = set()
        for cell in reversed(nb.cells):
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            try:
                validator.validate_cell(cell)
                named = meta.get("grade") or meta.get("solution") or meta.get("locked") \
                    or meta.get("task")
                duplicate = named and meta["grade_id"] in seen
                if named:
                    seen.add(meta["grade_id"])
            except Exception:
                duplicate = True
            if duplicate:
                self.log.warning("Ignoring the nbgrader metadata of a submitted cell: %r", meta)
                del cell.metadata["nbgrader"]
        return nb, resources


class HideHiddenTests(NbGraderPreprocessor):
    """Remove ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` from test cells."""

    begin = Unicode("BEGIN HIDDEN TESTS").tag(config=True)
    end = Unicode("END HIDDEN TESTS").tag(config=True)
    # nbconvert's HTML exporter configures this for every preprocessor; nbgrader's
    # base class declares it without config=True, so traitlets would warn
    # "Config option `display_data_priority` not recognized" (as GetGrades does).
    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and utils.is_grade(cell):
            kept, hiding = [], False
            for line in cell.source.split("\n"):
                if self.begin in line:
                    hiding = True
                elif self.end in line:
                    hiding = False
                elif not hiding:
                    kept.append(line)
            cell.source = "\n".join(kept)
        return cell, resources
