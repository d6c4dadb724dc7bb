"""A throw-away copy of the course, driven through nbgrader's own apps.

Used by the tests and for dry runs before a term: copy the course to a
temporary folder with its own exchange and gradebook, then play instructor and
students. Each step runs the same nbgrader application class as the
corresponding ``nbgrader <command>`` (in this process, which saves the
interpreter start-up of a command per step)::

    course = Course.copy_of("assignments", tmp / "course", exchange=tmp / "exchange")
    course.nbgrader("generate_assignment", "ps1")
    course.nbgrader("release_assignment", "ps1")
    course.student("alice", "fetch_assignment", "ps1")
    course.student("alice", "submit", "ps1")
    course.nbgrader("collect", "ps1")
    course.nbgrader("autograde", "ps1")
"""

import contextlib
import copy
import os
import shutil
import warnings
from pathlib import Path

import nbformat

from .. import dating
from ..judging.problem_sets import HIDDEN_FOLDER
from ..markers import SOLUTION, without_marker_lines
from ..settings import course_config
from .author import write_notebook

__all__ = ["Course", "APPS", "fill_answers", "with_answers", "answer_cell_ids"]


def _apps():
    from nbgrader.apps import (AutogradeApp, CollectApp, ExportApp, FetchAssignmentApp,
                               FetchFeedbackApp, GenerateAssignmentApp, GenerateFeedbackApp,
                               ReleaseAssignmentApp, ReleaseFeedbackApp, SubmitApp)
    from nbgrader.apps.dbapp import (DbAssignmentAddApp, DbStudentAddApp,
                                     DbStudentImportApp)
    return {
        "db assignment add": DbAssignmentAddApp, "db student add": DbStudentAddApp,
        "db student import": DbStudentImportApp,
        "generate_assignment": GenerateAssignmentApp, "release_assignment": ReleaseAssignmentApp,
        "fetch_assignment": FetchAssignmentApp, "submit": SubmitApp, "collect": CollectApp,
        "autograde": AutogradeApp, "generate_feedback": GenerateFeedbackApp,
        "release_feedback": ReleaseFeedbackApp, "fetch_feedback": FetchFeedbackApp,
        "export": ExportApp,
    }


APPS = tuple(["db assignment add", "db student add", "db student import",
              "generate_assignment", "release_assignment", "fetch_assignment", "submit",
              "collect", "autograde", "generate_feedback", "release_feedback",
              "fetch_feedback", "export"])


@contextlib.contextmanager
def _cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class Course:
    """A course folder (nbgrader_config.py, source/) with its own exchange.

    Its course id and gradebook are those its configuration gives nbgrader.
    """

    def __init__(self, root, exchange):
        self.root = Path(root).resolve()
        self.exchange = Path(exchange).resolve()
        nbgrader = course_config(self.root).CourseDirectory
        self.course_id, self.db_url = nbgrader.course_id, nbgrader.db_url

    @classmethod
    def copy_of(cls, course_dir, dest, *, exchange, assignments=None, secret="dry-run",
                cell_timeout=None, part_timeout=None, db_url=None):
        """Copy nbgrader_config.py, source/ and the problem definitions (problems/,
        hidden/) of all or some problem sets to ``dest``, and write each problem
        set's notebook from its MyST source there.

        ``db_url`` puts the copy's gradebook on a database server (default:
        SQLite in the copy).
        """
        course_dir, dest = Path(course_dir), Path(dest)
        (dest / "source").mkdir(parents=True)
        names = assignments or sorted(p.name for p in (course_dir / "source").iterdir()
                                      if p.is_dir())
        for ps in names:
            shutil.copytree(course_dir / "source" / ps, dest / "source" / ps,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__",
                                                          f"{ps}.ipynb"))
            write_notebook(dest, ps)  # always from the Markdown source, never a stale copy
        for folder in ("problems", HIDDEN_FOLDER):
            if not (course_dir / folder).is_dir():
                continue
            (dest / folder).mkdir()
            for path in (course_dir / folder).iterdir():
                if path.is_file() and (path.suffix != ".py" or path.stem in names
                                       or path.stem == "__init__"):
                    shutil.copy2(path, dest / folder / path.name)
        Path(exchange).mkdir(parents=True, exist_ok=True)
        Path(exchange).chmod(0o777)  # as nbgrader wants a shared exchange (else it warns)
        config = (course_dir / "nbgrader_config.py").read_text()
        extra = ["", "# Settings of this copy",
                 f"c.CourseSettings.exchange = {str(Path(exchange).resolve())!r}",
                 "c.ExchangeCollect.check_owner = False  # every student is the same OS user here"]
        if cell_timeout:
            extra.append(f"c.CourseSettings.cell_timeout = {int(cell_timeout)}")
        if part_timeout:
            extra.append(f"c.CourseSettings.part_timeout = {float(part_timeout)}")
        if db_url:
            extra.append(f"c.CourseSettings.db_url = {str(db_url)!r}")
        extra.append("c.merge(nbgrader_settings(c, HERE))   # nbgrader's, from this copy's")
        (dest / "nbgrader_config.py").write_text(config + "\n".join(extra) + "\n")
        (dest / ".grader_secret").write_text(secret + "\n")
        return cls(dest, exchange)

    # -- running nbgrader -------------------------------------------------
    def _run(self, cwd, command, argv, check):
        app_cls = _apps()[command]
        with _cwd(cwd):
            app = app_cls()
            try:
                app.initialize([str(a) for a in argv])
                app.start()
                status = 0
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            finally:
                for handler in list(app.log.handlers):
                    app.log.removeHandler(handler)
        if check and status:
            raise RuntimeError(f"nbgrader {command} {' '.join(map(str, argv))} failed "
                               f"(status {status})")
        return status

    def nbgrader(self, command, *argv, check=True):
        """Run ``nbgrader <command> argv`` as the instructor, in the course folder."""
        return self._run(self.root, command, argv, check)

    def home(self, student):
        path = self.root.parent / "homes" / student
        path.mkdir(parents=True, exist_ok=True)
        return path

    def student(self, student, command, *argv, check=True):
        """Run ``nbgrader <command> argv`` as ``student`` in their own folder."""
        home = self.home(student)
        common = [f"--course={self.course_id}", f"--Exchange.root={self.exchange}",
                  f"--Exchange.cache={home / '.nbgrader_cache'}"]
        if command == "submit":
            common.append(f"--student={student}")
        return self._run(home, command, list(argv) + common, check)

    def release_to(self, students, ps):
        """Register ``students`` (ids, through a ``students.csv``) and ``ps``, then
        generate and release it, as an instructor's ``make db generate release`` would."""
        (self.root / "students.csv").write_text(
            "id,first_name,last_name,email\n"
            + "".join(f"{s},{s.title()},Example,{s}@example.org\n" for s in students))
        self.nbgrader("db student import", "students.csv")
        self.nbgrader("db assignment add", ps)
        self.nbgrader("generate_assignment", ps)
        self.nbgrader("release_assignment", ps)

    def hand_in(self, student, ps, nb, timestamp="2026-01-01 12:00:00.000000 UTC"):
        """Put ``nb`` in submitted/<student>/<ps>/ as the course's collect leaves it,
        handed in at ``timestamp`` (UTC) by the instructor's word."""
        from nbgrader.utils import parse_utc
        folder = self.root / "submitted" / student / ps
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{ps}.ipynb")
        dating.write(folder, dating.Dating(dating.Source.INSTRUCTOR, parse_utc(timestamp),
                                           detail="Course.hand_in"))
        return folder

    # -- notebooks ----------------------------------------------------------
    def notebook(self, *parts):
        return nbformat.read(self.root.joinpath(*parts), as_version=4)

    def source(self, ps):
        return self.notebook("source", ps, f"{ps}.ipynb")

    def released(self, ps):
        return self.notebook("release", ps, f"{ps}.ipynb")

    def student_notebook_path(self, student, ps):
        return self.home(student) / ps / f"{ps}.ipynb"

    # -- gradebook ----------------------------------------------------------
    @contextlib.contextmanager
    def gradebook(self):
        from nbgrader.api import Gradebook
        from sqlalchemy.exc import SAWarning
        with warnings.catch_warnings():
            # nbgrader's score properties trip SQLAlchemy's autoflush warnings
            warnings.simplefilter("ignore", SAWarning)
            with Gradebook(self.db_url, course_id=self.course_id) as gb:
                yield gb

    def code_scores(self, ps):
        """{student: (auto-graded score, auto-graded maximum)} for submitted work."""
        with self.gradebook() as gb:
            return {s.student.id: (float(s.code_score), float(s.max_code_score))
                    for s in gb.assignment_submissions(ps)}

    def cell_scores(self, ps):
        """{(student, grade_id): auto score} of every auto-graded cell."""
        with self.gradebook() as gb:
            out = {}
            for sub in gb.assignment_submissions(ps):
                for nb in sub.notebooks:
                    for grade in nb.grades:
                        if grade.cell.cell_type == "code":
                            out[(sub.student.id, grade.name)] = grade.auto_score
            return out


def answer_cell_ids(nb):
    """grade_ids of the code answer cells (solution, not grade) in notebook order."""
    return [c.metadata.nbgrader["grade_id"] for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
            and not c.metadata.nbgrader.get("grade")]


def with_answers(released, answers):
    """Copy of ``released`` with each cell whose grade id is a key of ``answers``
    ({grade id: source}) holding that source, as a student would fill it in."""
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def fill_answers(released, source, ids=None):
    """Copy of ``released`` with answer cells ``ids`` (default: all) taken from ``source``."""
    nb = copy.deepcopy(released)
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in source.cells}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        if ids is not None and gid not in ids:
            continue
        text = by_id[gid].source
        cell.source = without_marker_lines(text, SOLUTION)
    return nb
