"""Classes graded once per run and read by several test modules.

Grading a class through the course's Makefile costs about half a minute of
nbgrader starts and sandboxed kernels, so modules whose classes agree share
one.  A shared class is read only: a test that changes its files (grades
again, writes feedback) works on a copy of its own.

``ps1_class``: ps1 handed in through nbgrader's exchange by alice (the
reference solution), bob (the blank release, with a written answer whose maths
tries to make a link that runs a script) and carol (the answers of two parts,
quadratic_map and kernel_verdicts); graded with ``make collect autograde
feedback report`` with the book's address set (``COURSEGRADER_BOOK_URL``), then
``make feedback`` again without it.  The written parts are not graded by hand:
the feedback is provisional.  Read by tests/grading/test_clean_class.py and
tests/grading/test_book_sections.py.

Registered as a plugin by tests/conftest.py, so that every module sees the same
fixture; a module that defined or imported it again would grade a class of its own.
"""

import os
import subprocess
import sys
from dataclasses import dataclass

import nbformat
import pytest

from conftest import COURSE, copy_course

#: The book's address the first feedback and the report link to.
BOOK_URL = "https://course.example.org/kernel-methods/"
#: bob's written answer: a \href whose target is a script.
PROBE = r"Not sure: $\href{javascript:window.PWNED=1}{D} \succeq 0$ and $\frac{1}{2}$."
#: Who hands in what: every answer (None), none, or the answers of these cells.
ANSWERED = {"alice": None, "bob": (),
            "carol": ("quadratic_map_answer", "kernel_verdicts_answer")}


@dataclass(frozen=True)
class GradedClass:
    """What the instructor's commands left: the course, their output, the pages."""

    course: object
    #: output of ``make db generate release``
    setup: str
    #: output of ``make collect autograde feedback report`` (the second ``make
    #: feedback`` says, rightly, that it replaces the pages of the first)
    grading: str
    #: every file of gradelog/, concatenated
    logs: str
    #: {student: feedback page} written with the book's address, and without it
    linked: dict
    plain: dict
    #: report/ps1.html
    report: str


@pytest.fixture(scope="session")
def ps1_class(slow, tmp_path_factory):
    """:class:`GradedClass` of ps1 (see the module's docstring), graded once per run."""
    from coursegrader.tools.course import fill_answers

    tmp = tmp_path_factory.mktemp("ps1-class")
    course = copy_course(tmp, ["ps1"], secret="ps1-class-secret")
    (course.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    (course.root / "students.csv").write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{s},{s.title()},Example,{s}@example.org\n" for s in ANSWERED))

    def make(*targets, book_url=""):
        env = {**os.environ, "COURSEGRADER_BOOK_URL": book_url}
        run = subprocess.run(["make", *targets, "PS=ps1", f"PYTHON={sys.executable}"],
                             cwd=course.root, capture_output=True, text=True, timeout=600,
                             env=env)
        assert run.returncode == 0, f"make {' '.join(targets)}:\n{run.stdout}{run.stderr}"
        return run.stdout + run.stderr

    setup = make("db", "generate", "release")
    for student, ids in ANSWERED.items():
        course.student(student, "fetch_assignment", "ps1")
        path = course.student_notebook_path(student, "ps1")
        nb = fill_answers(nbformat.read(path, as_version=4), course.source("ps1"), ids)
        if student == "bob":
            for cell in nb.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == "validity_arguments":
                    cell.source = PROBE
        nbformat.write(nb, path)
        course.student(student, "submit", "ps1")

    def pages():
        return {s: (course.root / "feedback" / s / "ps1" / "ps1.html").read_text()
                for s in ANSWERED}

    grading = make("collect", "autograde", "feedback", "report", "FORCE=1", book_url=BOOK_URL)
    linked = pages()
    make("feedback", "FORCE=1")
    plain = pages()
    logs = "".join(p.read_text() for p in sorted((course.root / "gradelog").rglob("*"))
                   if p.is_file())
    report = (course.root / "report" / "ps1.html").read_text()
    return GradedClass(course, setup, grading, logs, linked, plain, report)
