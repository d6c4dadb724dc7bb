"""Independent honest work is not flagged: ps1 answered by the reference
solution, the eight answers of ``ps1_honest`` and the ten of
``ps1_independent`` (written by people who saw only the released notebook,
after the check's settings were chosen), each read from the released notebook
as a record keeps it and compared with every other: 19 answers, 171 pairs.
The pipeline (``make zip_collect``, ``make autograde``, ``make similarity``)
compares them the same way; ``test_similarity_attacks.py`` runs it on the
first nine.
"""

import itertools

import pytest

from conftest import COURSE
from coursegrader import record
from coursegrader.judging.cells import student_cells
from coursegrader.similarity.compare import compare
from coursegrader.similarity.material import Scaffold, SimilarityCheck, boilerplate, material_of
from coursegrader.tools.course import Course, fill_answers, with_answers
from grading.ps1_copies import (BODY_WRAPPERS, CARRIERS, CELL_WRAPPERS, CHECK_PAD, CODE_PARTS,
                                ONE_LINE_PADS, body_wrapped, carried, cell_wrapped,
                                into_temporaries, padded)
from grading.ps1_honest import HONEST
from grading.ps1_independent import INDEPENDENT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("honest")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange", assignments=["ps1"])
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    nb = c.released("ps1")
    reference = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell.source
                 for cell in fill_answers(nb, c.source("ps1")).cells}
    return nb, reference


def _materials(released, answers):
    check = SimilarityCheck()
    scaffold = Scaffold.of(released.cells)
    boiler = boilerplate(scaffold, check)
    out = {}
    for student, filled in answers.items():
        nb = with_answers(released, filled)
        out[student] = material_of(student, student_cells(nb, record.ANSWER_BYTES), scaffold,
                                   check, boiler)
    return out, check


def test_no_two_of_nineteen_independent_answers_are_flagged(released):
    nb, reference = released
    answers = {"alice": reference, **HONEST, **INDEPENDENT}
    assert len(answers) == 19
    materials, check = _materials(nb, answers)
    assert all(not m.flags for m in materials.values()), \
        {s: m.flags for s, m in materials.items() if m.flags}
    pairs = {(a, b): compare(materials[a], materials[b], check)
             for a, b in itertools.combinations(sorted(materials), 2)}
    flagged = {p: (round(c.code, 2), round(c.written, 2)) for p, c in pairs.items() if c.flagged}
    assert flagged == {}
    # the closest pair's code share: 0.48 under make similarity's fixed hash seed,
    # 0.45 to 0.52 under others (copydetect's k-grams are hashed with hash())
    closest = max(c.code for c in pairs.values())
    assert 0.2 < closest < check.threshold, closest
    assert max(c.written for c in pairs.values()) < check.written_threshold - 0.2


PADS = {**ONE_LINE_PADS, "a check that only raises": (CHECK_PAD, "")}


def _code_shares_with_originals(released, disguise):
    """{student: the code share of each honest answer's code, disguised by
    ``disguise`` (the written answers left blank), with the original}."""
    nb, _ = released
    copies = {f"{student}_copy": disguise({part: answers[part] for part in CODE_PARTS})
              for student, answers in HONEST.items()}
    materials, check = _materials(nb, {**HONEST, **copies})
    return {student: compare(materials[student], materials[f"{student}_copy"], check).code
            for student in HONEST}, check


@pytest.mark.parametrize("pad", sorted(PADS))
def test_a_copy_padded_after_every_line_is_flagged_with_its_original(released, pad):
    """Each of the eight honest answers' code, every operation in a temporary and
    a line of padding after every statement: each copy's code share with its
    original reaches the threshold."""
    shares, check = _code_shares_with_originals(
        released, lambda code: padded(into_temporaries(code), *PADS[pad]))
    assert min(shares.values()) >= check.threshold, shares


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_a_copy_whose_every_assignment_is_carried_by_something_else_is_flagged(released,
                                                                              carrier):
    """Each of the eight honest answers' code, every operation in a temporary and
    every assignment carried by something the normal form could read as nothing
    (an assert, a loop's test, a default, a print holding a walrus; a branch or a
    loop that always runs): each copy's code share with its original reaches the
    threshold."""
    shares, check = _code_shares_with_originals(
        released, lambda code: carried(into_temporaries(code), *CARRIERS[carrier]))
    assert min(shares.values()) >= check.threshold, shares


@pytest.mark.parametrize("wrapper", sorted(BODY_WRAPPERS))
def test_a_copy_whose_every_function_body_is_wrapped_is_flagged(released, wrapper):
    """Each of the eight honest answers' code with every function's body inside
    a block the normal form keeps (a context bound to a name, a ``try`` that
    returns 0, a test of the first parameter): every line one level deeper,
    each copy's code share with its original reaches the threshold."""
    shares, check = _code_shares_with_originals(
        released, lambda code: body_wrapped(code, BODY_WRAPPERS[wrapper]))
    assert min(shares.values()) >= check.threshold, shares


@pytest.mark.parametrize("wrapper", sorted(CELL_WRAPPERS))
def test_a_copy_whose_cells_are_wrapped_whole_is_flagged(released, wrapper):
    """Each of the eight honest answers' code cells unchanged but indented inside
    something that runs them once: each copy's code share with its original
    reaches the threshold."""
    shares, check = _code_shares_with_originals(
        released, lambda code: cell_wrapped(code, CELL_WRAPPERS[wrapper]))
    assert min(shares.values()) >= check.threshold, shares
