"""nbgrader preprocessors that make the grade independent of the student's kernel.

* :class:`SafeExecute` -- runs the notebook's code cells in a kernel inside
  the sandbox of :mod:`coursegrader.confine` (see
  :mod:`coursegrader.kernelguard`), with a timeout per cell and a budget for
  the whole run; the outputs come back as data, are kept only if plain and
  are sanitised.  A cell that times out or a kernel that dies stops the run,
  never the grading (the grade is decided by :class:`JudgeTests` anyway).
* :class:`CollectKernelRun` -- where the kernel run goes on while the judge
  works (``SafeExecute.wait = False``), waits for it and fills in its outputs.
* :class:`JudgeTests` -- for every auto-graded test cell of a registered
  problem set, reruns the part in the sandbox (see :mod:`coursegrader.judge`)
  and replaces the cell's outputs with the report and the score that nbgrader
  records.
* :class:`RefuseLinks` -- refuses a submission that holds symbolic links.
* :class:`HideHiddenTests` -- for feedback: removes the hidden-test region
  from test cells, tolerating student cells that merely contain the markers.

Both preprocessors that run student code refuse to, with a message saying
what is missing, where the sandbox cannot be built, unless the instructor
chose ``confinement = "unconfined"``; each logs which confinement it used.
They are wired into nbgrader in ``assignments/nbgrader_config.py``.
"""

import json
import os
import secrets
import selectors
import threading
import time

from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Enum, Float, Int, List, Unicode

from coursecheck.serial import UnsupportedValue, loads_bounded

from . import confine
from .judge import OUTCOMES_KEY, SandboxSession, grade_part
from .spec import get_parts
from .student_html import clean_html, clean_markdown

__all__ = ["SafeExecute", "CollectKernelRun", "JudgeTests", "SanitizeMetadata", "RefuseLinks",
           "HideHiddenTests", "test_cell_ids", "clean_outputs"]

_TEXT_LIMIT = 100_000   # characters kept of one output's text
_KEPT_DATA = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png",
              "image/jpeg")


class _Confined(NbGraderPreprocessor):
    """A preprocessor that runs student code: the confinement mode and the log line."""

    confinement = Enum(
        list(confine.MODES), default_value="bubblewrap",
        help="'bubblewrap' (refuse to grade where the sandbox cannot be built) or "
             "'unconfined' (weaker: no namespaces; an explicit opt-in).").tag(config=True)

    def _confine(self, resources):
        """Check the mode (raising ConfinementUnavailable) and log it once per submission."""
        confine.check_mode(self.confinement)
        info = resources.get("nbgrader", {})
        line = f"{info.get('student')}/{info.get('assignment')} {type(self).__name__} " \
            f"{confine.describe(self.confinement)}"
        (self.log.info if self.confinement == "bubblewrap" else self.log.warning)(line)


def _text(value):
    if isinstance(value, list):
        value = "".join(v for v in value if type(v) is str)
    return value[:_TEXT_LIMIT] if type(value) is str else ""


def clean_outputs(outputs):
    """Plain, sanitised copies of notebook ``outputs`` from an untrusted source.

    Streams, errors and rich outputs only; of rich data only text, HTML and
    Markdown (cleaned by :mod:`coursegrader.student_html`), LaTeX and PNG/JPEG
    images; anything else -- scripts, widgets, SVG, metadata -- is dropped.
    """
    kept = []
    for out in outputs if isinstance(outputs, list) else []:
        kind = out.get("output_type") if isinstance(out, dict) else None
        if kind == "stream":
            name = out.get("name") if out.get("name") in ("stdout", "stderr") else "stdout"
            kept.append(new_output("stream", name=name, text=_text(out.get("text"))))
        elif kind == "error":
            tb = out.get("traceback")
            kept.append(new_output("error", ename=_text(out.get("ename"))[:200],
                                   evalue=_text(out.get("evalue"))[:2000],
                                   traceback=[_text(t) for t in tb[:200]]
                                   if isinstance(tb, list) else []))
        elif kind in ("execute_result", "display_data"):
            raw = out.get("data") if isinstance(out.get("data"), dict) else {}
            data = {}
            for mime in _KEPT_DATA:
                if mime in raw:
                    text = _text(raw[mime])
                    data[mime] = clean_html(text) if mime == "text/html" \
                        else clean_markdown(text) if mime == "text/markdown" else text
            if not data:
                continue
            extra = {}
            if kind == "execute_result":
                n = out.get("execution_count")
                extra["execution_count"] = n if type(n) is int else None
            kept.append(new_output(kind, data=data, **extra))
    return kept


class SafeExecute(_Confined):
    """Run the notebook in a sandboxed kernel; never let it stop the grading."""

    timeout = Int(60, help="Seconds a cell may run before the kernel run stops.").tag(config=True)
    budget = Float(600.0, help="Seconds the whole kernel run may take.").tag(config=True)
    output_bytes = Int(4 * 1024**2, help="Bytes of output kept from the run.").tag(config=True)
    wait = Bool(True, help="Wait for the kernel run here; with False, it goes on while the "
                "next preprocessors (the judge) work, and CollectKernelRun, later in the "
                "chain, waits for it and fills in the outputs.").tag(config=True)

    def preprocess(self, nb, resources):
        self._confine(resources)
        # Registered test cells are graded by JudgeTests; running them here too
        # would only cost time.
        try:
            graded = set(get_parts(resources["nbgrader"]["assignment"]))
        except (KeyError, TypeError, ValueError):
            graded = set()
        run_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                     and not (_is_test_cell(c) and c.metadata.nbgrader.get("grade_id") in graded)]
        for i in run_cells:
            nb.cells[i].outputs = []
            nb.cells[i].execution_count = None
        request = {"cells": [nb.cells[i].source for i in run_cells],
                   "cell_timeout": self.timeout, "budget": self.budget,
                   "output_bytes": self.output_bytes}
        folder = (resources or {}).get("metadata", {}).get("path")
        result = {}
        job = threading.Thread(target=lambda: result.update(
            zip(("answer", "why"), self._run(confine.KERNEL, request, folder))), daemon=True)
        job.start()
        student = resources.get("nbgrader", {}).get("student")
        if self.wait:
            _apply_kernel_run(nb, job, result, run_cells, self.log, student)
        else:   # the judge grades meanwhile; CollectKernelRun applies the outputs
            resources.setdefault("coursegrader", {})["kernel_run"] = (job, result, run_cells)
        return nb, resources

    def _run(self, policy, request, folder):
        """(answer or {}, why the run gave nothing usable or "")."""
        run = confine.start(policy, "kernelguard", mode=self.confinement, files_from=folder)
        deadline = time.monotonic() + self.budget + 60   # kernel start-up and shutdown
        out = bytearray()
        why = ""
        try:
            data = json.dumps(request).encode()
            run.proc.stdin.write(data)
            run.proc.stdin.close()
            fd = run.proc.stdout.fileno()
            os.set_blocking(fd, False)
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                while True:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        why = f"the notebook's run took more than {self.budget:g} s in all"
                        break
                    if not sel.select(remaining):
                        continue
                    try:
                        chunk = os.read(fd, 1 << 20)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > policy.output_bytes:
                        why = "the notebook's run sent back too much output"
                        break
        except OSError as exc:
            why = f"the kernel run could not be started ({exc})"
        finally:
            confine.stop(run)
        if why:
            return {}, why
        try:
            return loads_bounded(bytes(out), policy.output_bytes), ""
        except UnsupportedValue as exc:
            return {}, f"the kernel run sent back something unreadable ({exc})"


def _apply_kernel_run(nb, job, result, run_cells, log, student):
    """Wait for the kernel run ``job`` and put its cleaned outputs into ``nb``."""
    job.join()
    answer, why = result.get("answer", {}), result.get("why", "the kernel run failed")
    cells = answer.get("cells") if isinstance(answer, dict) else None
    if isinstance(cells, list):
        for i, got in zip(run_cells, cells):
            if isinstance(got, dict):
                nb.cells[i].outputs = clean_outputs(got.get("outputs"))
                n = got.get("execution_count")
                nb.cells[i].execution_count = n if type(n) is int else None
    stopped = answer.get("stopped") if isinstance(answer, dict) else None
    if isinstance(stopped, dict) and type(stopped.get("cell")) is int \
            and 0 <= stopped["cell"] < len(run_cells):
        where, why = run_cells[stopped["cell"]], _text(stopped.get("why"))[:300]
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


class CollectKernelRun(NbGraderPreprocessor):
    """Wait for the kernel run SafeExecute started (with ``wait = False``) and apply it."""

    def preprocess(self, nb, resources):
        pending = resources.get("coursegrader", {}).pop("kernel_run", None)
        if pending is not None:
            job, result, run_cells = pending
            _apply_kernel_run(nb, job, result, run_cells, self.log,
                              resources.get("nbgrader", {}).get("student"))
        return nb, resources


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


class JudgeTests(_Confined):
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
        Unicode(), help="Unconfined mode only: paths the in-process guard refuses to open."
    ).tag(config=True)

    def _course_secret(self):
        if self.secret:
            return self.secret
        if os.environ.get("COURSEGRADER_SECRET"):
            return os.environ["COURSEGRADER_SECRET"]
        path = os.path.abspath(self.secret_file)
        if not os.path.exists(path):
            # Written whole under another name, then linked into place: workers
            # grading their first submissions at once all end up reading one secret.
            tmp = f"{path}.{os.getpid()}-{secrets.token_hex(4)}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(secrets.token_hex(32) + "\n")
                os.link(tmp, path)
                self.log.info("Created the course secret %s (keep it; grades depend "
                              "on it)", path)
            except FileExistsError:
                pass          # another worker made it first: use theirs
            finally:
                os.unlink(tmp)
        with open(path) as f:
            value = f.read().strip()
        if not value:
            raise ValueError(f"the course secret file {path} is empty")
        return value

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        assignment, student = info.get("assignment"), info.get("student")
        for cell in nb.cells:   # the outcomes the grading log keeps come from the judge
            cell.metadata.pop(OUTCOMES_KEY, None)
        try:
            parts = get_parts(assignment)
        except ValueError:
            self.log.warning("No coursegrader problem set for %r; test cells left as run",
                             assignment)
            return nb, resources
        self._confine(resources)
        secret = self._course_secret()
        nb_dir = os.path.abspath(resources.get("metadata", {}).get("path") or os.getcwd())
        code = []
        with SandboxSession(files_from=nb_dir, mode=self.confinement,
                            forbidden=self.forbidden_paths) as session:
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
                                   secret=secret, timeout=self.timeout, session=session)
                score = min(points, round(grade.score * points / grade.points, 2))
                self.log.info("%s/%s %s: %s of %s", student, assignment, part_id, score, points)
                cell.outputs = _outputs(grade.report, score, cell.get("execution_count"))
                cell.metadata[OUTCOMES_KEY] = {"cases": grade.cases, "note": grade.note}
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


class _FeedbackPreprocessor(NbGraderPreprocessor):
    """A preprocessor run by ``generate_feedback``, under nbconvert's HTML exporter."""

    # The HTML exporter configures this for every preprocessor; nbgrader's base
    # class declares it without config=True, so traitlets would warn "Config
    # option `display_data_priority` not recognized" (nbgrader's GetGrades
    # declares it the same way).
    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)


class RefuseLinks(NbGraderPreprocessor):
    """Refuse a submission whose folder holds a symbolic link (first sanitize step).

    nbgrader follows links when it reads the notebook and copies the other
    files, so a link to the course secret or the instructor's notebook would
    hand their content to the student's code or to the grader as the
    student's work.  Such a submission is not graded at all.
    """

    def preprocess(self, nb, resources):
        meta = resources.get("metadata", {})
        folder = meta.get("path") or os.getcwd()
        notebook = os.path.join(folder, (meta.get("name") or "") + ".ipynb")
        links = [notebook] if os.path.islink(notebook) else []
        for top, dirs, files in os.walk(folder):
            links += [os.path.join(top, n) for n in dirs + files
                      if os.path.islink(os.path.join(top, n))]
        if links:
            names = ", ".join(os.path.relpath(p, folder) for p in links[:5])
            raise ValueError(f"the submission holds symbolic links ({names}); links are "
                             "refused, hand in plain files")
        return nb, resources


class HideHiddenTests(_FeedbackPreprocessor):
    """Remove ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` from test cells."""

    begin = Unicode("BEGIN HIDDEN TESTS").tag(config=True)
    end = Unicode("END HIDDEN TESTS").tag(config=True)

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
