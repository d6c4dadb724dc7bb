"""JudgeTests: the grade of every auto-graded part, decided in the sandbox.

For every auto-graded test cell of a registered problem set, it reruns the
part in the sandbox (:mod:`coursegrader.judging.judge`) and replaces the cell's
outputs with the report and the score that nbgrader records; the outcome of
each case goes into the cell's metadata for the grading log.
"""

import os
import secrets

from nbformat.v4 import new_output
from nbgrader.coursedir import CourseDirectory
from traitlets import Float, List, Unicode

from ..judging.judge import OUTCOMES_KEY, PartSession, grade_part
from ..judging.cells import is_test_cell
from ..settings import CourseSettings
from ..judging.problem_sets import graded_parts
from .base import ConfinedPreprocessor

__all__ = ["JudgeTests"]


def _python_source(source):
    """Turn IPython syntax (magics, !commands) into plain Python calls."""
    from IPython.core.inputtransformer2 import TransformerManager
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


class JudgeTests(ConfinedPreprocessor):
    """Replace the outputs of registered test cells with the sandboxed verdict."""

    secret = Unicode(
        "", help="Course secret for the hidden cases (else CourseSettings.secret, "
        "else secret_file)."
    ).tag(config=True)
    secret_file = Unicode(
        ".grader_secret", help="File holding the course secret; created when missing."
    ).tag(config=True)
    timeout = Float(
        None, allow_none=True,
        help="Seconds per part in the sandbox (default: the part's own)."
    ).tag(config=True)
    forbidden_paths = List(
        Unicode(),
        help="Unconfined mode only: paths the in-process guard refuses to open."
    ).tag(config=True)

    def _course_secret(self):
        if self.secret:
            return self.secret
        from_environment = CourseSettings(parent=self).secret
        if from_environment:
            return from_environment
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
            parts = graded_parts(CourseDirectory(config=self.config).root, assignment)
        except ValueError:
            self.log.warning("No coursegrader problem set for %r; test cells left as "
                             "run", assignment)
            return nb, resources
        self.check_confinement(resources)
        secret = self._course_secret()
        folder = resources.get("metadata", {}).get("path") or os.getcwd()
        nb_dir = os.path.abspath(folder)
        code = []
        with PartSession(files_from=nb_dir, mode=self.confinement,
                            forbidden=self.forbidden_paths) as session:
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                if not is_test_cell(cell):
                    code.append(_python_source(cell.source))
                    continue
                part_id = cell.metadata.nbgrader.get("grade_id")
                if part_id not in parts:
                    continue
                part = parts[part_id]
                points = float(cell.metadata.nbgrader.get("points", part.points))
                grade = grade_part(assignment, part_id, part, code, student=student,
                                   secret=secret, timeout=self.timeout, session=session)
                score = min(points, round(grade.score * points / grade.points, 2))
                self.log.info("%s/%s %s: %s of %s", student, assignment, part_id, score,
                              points)
                cell.outputs = _outputs(grade.report, score,
                                        cell.get("execution_count"))
                cell.metadata[OUTCOMES_KEY] = {"cases": grade.cases, "note": grade.note}
        return nb, resources


def _outputs(report, score, execution_count):
    outputs = [new_output("stream", name="stdout", text=report + "\n")]
    if score > 0:
        outputs.append(new_output("execute_result", data={"text/plain": f"{score:g}"},
                                  execution_count=execution_count))
    else:
        outputs.append(new_output("error", ename="CheckFailed", evalue="0 points",
                                  traceback=["CheckFailed: no check passed "
                                             "(0 points)"]))
    return outputs

