"""ps1's variants for the tests that grade its parts directly (``grade_part``,
``judge_submission``): the variant a student is graded on, the cell the grader
runs in place of the notebook's variant cell, and the source notebook's cells
above the answers and its reference answers, which read ``V``."""

import functools

from conftest import COURSE
from coursecheck.variants import bind
from coursegrader.judging.problem_sets import graded_part
from coursegrader.judging.variants import submission_variant, variant_cell_source
from coursegrader.tools.author import build_notebook


@functools.lru_cache
def _cells():
    nb = build_notebook(COURSE / "source" / "ps1" / "ps1.md")
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


def variant(secret, student):
    """The :class:`~coursecheck.variants.Variant` of ps1 ``student`` is graded on."""
    return submission_variant(secret, "ps1", student)


def above_answers(secret, student):
    """The notebook's code above the answers, as the grader runs it for ``student``:
    the setup cell, ``V`` as the grader draws it, and the cell defining ``CANDIDATES``."""
    return [_cells()["setup"], variant_cell_source(variant(secret, student)),
            _cells()["candidates"]]


def solution(part_id):
    """The source notebook's reference answer to ``part_id`` (it reads ``V``), without
    the lines that mark the solution region."""
    return "\n".join(line for line in _cells()[f"{part_id}_answer"].split("\n")
                     if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def part(secret, student, part_id):
    """The grader's part ``part_id`` (with its hidden half) bound to ``student``'s variant."""
    return bind(graded_part(COURSE, "ps1", part_id), variant(secret, student).params)




def variant_cell():
    """The locked variant cell of the released notebook."""
    return _cells()["variant"]


def candidates_cell():
    """The locked cell that defines the candidates from ``V``."""
    return _cells()["candidates"]
