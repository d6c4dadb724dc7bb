"""A submission holding the public answers of many variants other than its own.

ps2's variants are finitely many (151 widths), and the student package holds
the public answers of parts 5 and 7 for each: a table of them, keyed by the
width, passes every width's public checks. Those checks carry no points, and
such a submission is flagged on its own by ``make similarity``, naming how many
variants' answers it holds (``c.SimilarityCheck.other_variants``, 3). Measured
here on the honest ps2 class the similarity tests use for ps4 and ps5: 150
students handing in the source notebook's solution, half of them with their own
width typed in, and each with their own public answers written out as a
student copies them from the check's output: none holds another variant's.
"""

import functools
import json

import numpy as np
import pytest

from conftest import COURSE
from coursecheck.parts import variant_key
from coursecheck.variants import bind
from coursegrader.judging.problem_sets import graded_parts, hidden_module
from coursegrader.judging.variants import submission_variant
from coursegrader.record import AnswerCode
from coursegrader.similarity.material import Scaffold, SimilarityCheck
from coursegrader.similarity.values import (implied_by, literals, other_variants_held,
                                            space_answers)
from coursegrader.tools.author import build_notebook
from grading.test_ps2_answer_table import table_cell

SECRET = "similarity-values-secret"      # the class of tests/grading/test_similarity_values.py

pytestmark = pytest.mark.slow     # every width's public answers worked out: seconds


@functools.cache
def _source():
    return build_notebook(COURSE / "source" / "ps2" / "ps2.md")


@functools.cache
def _answers():
    parts = graded_parts(COURSE, "ps2")
    return space_answers("ps2", implied_by(
        parts, getattr(hidden_module(COURSE, "ps2"), "implied_values", None)))


def _honest():
    return [AnswerCode(c.metadata["nbgrader"].get("grade_id"), c.source, c.cell_type)
            for c in _source().cells if c.metadata.get("nbgrader", {}).get("solution")]


def _released():
    return Scaffold.of([c for c in _source().cells
                        if not c.metadata.get("nbgrader", {}).get("solution")]).numbers


def _held(cells, sigma):
    return other_variants_held(literals(cells, limit=5000)[0],
                               variant_key({"sigma": sigma}), _answers(),
                               released=_released())


def _own_public_answers(sigma):
    """A cell holding a student's own public answers of parts 5 and 7, to 4 decimals,
    as they copy them from their check's output."""
    parts = graded_parts(COURSE, "ps2")
    lines = []
    for pid in ("bump_gram", "basis_ridge"):
        part = bind(parts[pid], {"sigma": sigma})
        for i, case in enumerate(part.public()):
            value = np.round(np.asarray(part.reference(*case.args), dtype=float), 4)
            lines.append(f"{pid}_{i} = {value.tolist()!r}")
    return AnswerCode("my_notes", "\n".join(lines))


def test_the_space_holds_every_widths_public_answers_and_nothing_single():
    answers = _answers()
    assert len(answers) == 151
    assert all(v.shape and len(v.values) >= 2 for vs in answers.values() for v in vs)
    assert space_answers("ps4", lambda params: {}) is None      # ps4's widths are drawn


def test_no_honest_student_holds_another_variants_public_answers():
    most = 0
    for i in range(150):
        student = f"s{i:03d}"
        sigma = submission_variant(SECRET, "ps2", student).params["sigma"]
        cells = _honest() + [_own_public_answers(sigma)]
        if i % 2:    # their own width typed in where the solution reads it
            cells = [AnswerCode(c.cell, c.source.replace('V["sigma"]', repr(sigma)),
                                c.cell_type) for c in cells]
        most = max(most, len(_held(cells, sigma)))
    assert most == 0


def test_the_table_holds_every_other_width_and_a_few_copied_widths_count():
    threshold = SimilarityCheck().other_variants
    assert threshold == 3
    held = _held([AnswerCode("bump_gram_answer", table_cell())], 0.73)
    assert len(held) == 150 and variant_key({"sigma": 0.73}) not in held
    # written out as numbers: the public answers of three other widths, to 4 decimals
    three = [_own_public_answers(s) for s in (0.61, 0.99, 1.95)]
    three = [AnswerCode(f"cell{i}", c.source) for i, c in enumerate(three)]
    assert _held(three, 0.73) == sorted(variant_key({"sigma": s}) for s in (0.61, 0.99, 1.95))
    assert len(_held(three[:2], 0.73)) == 2 < threshold
    # one's own width's answers among them count for none
    assert len(_held(three, 0.99)) == 2


def test_answers_encoded_as_the_package_encodes_them_are_read():
    shipped = json.loads((COURSE / "problems" / "answers.json").read_text())["ps2"]
    entry = shipped["bump_gram"][variant_key({"sigma": 0.61})]["centres 0, 1, 3 on the line"]
    cell = AnswerCode("a", f"G = {entry['__ndarray__']!r}\nname = 'sigma_ab_base64_text'\n")
    found = [lit for lit in literals([cell], limit=10)[0] if lit.shape == (9,)]
    assert len(found) == 1 and found[0].values[0] == pytest.approx(1.0)
    assert _held([cell], 0.73) == [variant_key({"sigma": 0.61})]
