"""The similarity check compares the verdicts of students with different variants.

On the small problem set of ``tests/variant_problem.py`` with its verdict part
(``kernel_verdicts``: is each of twelve candidates ``exp(a x z)``, with a sign
of ``a`` drawn per variant and candidate, a kernel?): two students whose
variants' right verdicts differ on some candidates and who hand in the same
verdict on every one of them (at least ``SimilarityCheck.verdict_min``) are
flagged; honest classes are not, nor two honest students whose right verdicts
happen to coincide.
"""

import itertools

import numpy as np
import pytest

from coursecheck.parts import get_parts
from coursegrader import record
from coursegrader.judging.variants import submission_variant
from coursegrader.judging.verdicts import right_verdicts, verdict_of
from coursegrader.similarity.material import SimilarityCheck
from coursegrader.similarity.verdicts import handed_in, verdict_evidence
from variant_problem import CANDIDATES, install

SECRET = "verdict-secret"
PART = "kernel_verdicts"
CHECK = SimilarityCheck()

HIDDEN = '''\
from variant_problem import Case

HIDDEN = {
    "scaled": lambda v, rng: [Case(args=(rng.normal(size=4),), label="random x")],
    "doubled": lambda rng: [Case(args=(rng.normal(size=2),), label="random x")],
    "kernel_verdicts": lambda v, rng: [],
}
REFERENCES = {}
'''


@pytest.fixture
def ps(monkeypatch):
    return install(monkeypatch, verdicts=True)


def rights_of(ps, students):
    """{student: {part: {candidate: right verdict}}} of each student's own variant."""
    part = get_parts(ps)[PART]
    return {s: {PART: right_verdicts(part, submission_variant(SECRET, ps, s).params)}
            for s in students}


def honest(rights, rng, error):
    """Each student's own right verdicts, each one wrong with probability ``error``
    (a mistake of their own, independent of everyone else's)."""
    flip = {"yes": "no", "no": "yes"}
    return {s: {PART: {k: flip[v] if rng.random() < error else v
                       for k, v in r[PART].items()}} for s, r in rights.items()}


def flagged(handed, rights):
    return {frozenset((e.a, e.b)) for e in verdict_evidence(
        handed, rights, least=CHECK.verdict_min, share=CHECK.verdict_share)}


def test_verdicts_are_yes_no_or_a_short_name_and_nothing_else():
    assert (verdict_of(True), verdict_of(np.bool_(False))) == ("yes", "no")
    assert verdict_of("  gaussian ") == "gaussian"
    for not_a_verdict in (1, 0.5, None, [True], "", "x" * 65, "a\nb", np.array([True])):
        assert verdict_of(not_a_verdict) is None, not_a_verdict


def test_each_variant_asks_twelve_questions_whose_answers_vary(ps):
    from coursecheck.variants import variation
    drawn = [submission_variant(SECRET, ps, f"v{i}") for i in range(200)]
    assert all(variation(ps).check(d.params) is None for d in drawn)
    rights = rights_of(ps, [d.student for d in drawn])
    for r in rights.values():
        assert sorted(r[PART]) == sorted(CANDIDATES) and set(r[PART].values()) <= {"yes", "no"}
    # every candidate is a kernel in some variants and not in others
    for k in CANDIDATES:
        assert {r[PART][k] for r in rights.values()} == {"yes", "no"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_honest_classes_are_not_flagged(ps, seed):
    """Classes of 150 (11,175 pairs) on three seeds: every student right, none
    flagged; every student wrong on each candidate with probability 0.1, on their
    own, at most one pair (a chance of about 1 in 10,000 a pair)."""
    rights = rights_of(ps, [f"s{seed}-{i}" for i in range(150)])
    rng = np.random.default_rng(seed)
    assert flagged(honest(rights, rng, 0.0), rights) == set()
    assert len(flagged(honest(rights, rng, 0.1), rights)) <= 1


def test_students_whose_right_verdicts_coincide_are_not_flagged(ps):
    """Of 400 made-up students, the pairs of different variants whose right verdicts
    are the same on all twelve candidates hand in the same twelve verdicts,
    honestly: none is flagged, nor is any pair of the class."""
    rights = rights_of(ps, [f"c{i}" for i in range(400)])
    same = [(a, b) for a, b in itertools.combinations(sorted(rights), 2)
            if rights[a] == rights[b]]
    assert len(same) >= 3, same
    handed = honest(rights, np.random.default_rng(7), 0.0)
    assert all(handed[a] == handed[b] for a, b in same)
    assert flagged(handed, rights) == set()


def test_a_copy_across_variants_is_flagged_with_its_source(ps):
    students = [f"t{i}" for i in range(40)]
    rights = rights_of(ps, students)
    handed = honest(rights, np.random.default_rng(3), 0.0)
    bob = students[0]

    def differing(a, b):
        return sum(rights[a][PART][k] != rights[b][PART][k] for k in CANDIDATES)

    carol = next(s for s in students[1:] if differing(bob, s) >= CHECK.verdict_min)
    handed[carol] = {PART: dict(handed[bob][PART])}          # bob's answer sheet
    found = verdict_evidence(handed, rights, least=CHECK.verdict_min)
    (e,) = [e for e in found if {e.a, e.b} == {bob, carol}]
    assert e.whose == bob and len(e.same) == e.differing == differing(bob, carol)
    assert f"{bob}'s right ones" in e.describe()
    # every flagged pair is carol's: with bob, and with any classmate whose own
    # right verdicts are bob's wherever theirs and carol's differ (her sheet is
    # theirs too there; the page says whose right ones they are)
    for other in found:
        assert carol in (other.a, other.b), other
        them = other.b if other.a == carol else other.a
        assert other.whose == them
        assert all(rights[them][PART][k] == rights[bob][PART][k] for k in other.same)
    # a sheet circulated to two more students: each is flagged with bob
    dave, eve = [s for s in students[1:]
                 if s != carol and differing(bob, s) >= CHECK.verdict_min][:2]
    handed[dave] = handed[eve] = {PART: dict(handed[bob][PART])}
    pairs = {frozenset((e.a, e.b)) for e in verdict_evidence(handed, rights,
                                                             least=CHECK.verdict_min)}
    copiers = {bob, carol, dave, eve}
    assert {frozenset((bob, s)) for s in (carol, dave, eve)} <= pairs
    assert all(p & copiers for p in pairs), pairs      # no pair of two honest students
    # what it does not catch: a copy with one of the differing verdicts changed
    handed = honest(rights, np.random.default_rng(3), 0.0)
    sheet = dict(handed[bob][PART])
    first = next(k for k in CANDIDATES if rights[bob][PART][k] != rights[carol][PART][k])
    sheet[first] = rights[carol][PART][first]
    handed[carol] = {PART: sheet}
    assert verdict_evidence(handed, rights, least=CHECK.verdict_min) == []


def test_the_record_keeps_public_verdicts_and_the_command_flags_the_pair(ps, tmp_path):
    """The verdicts go from the record (as the judge writes it) to the command's
    comparison: carol, of another variant, hands in bob's; the pair is flagged."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    from coursegrader.similarity.material import Scaffold, boilerplate, material_of
    from coursegrader.tools.similarity import compare_all, variant_evidence

    students = ["alice", "bob"] + [f"carol{i}" for i in range(20)]
    rights = rights_of(ps, students)
    carol = next(s for s in students[2:] if sum(
        rights["bob"][PART][k] != rights[s][PART][k] for k in CANDIDATES) >= CHECK.verdict_min)

    def result(student, verdicts):
        cases = tuple(record.CaseResult(label=k, hidden=False, passed=True, verdict=v)
                      for k, v in verdicts.items())
        cases += (record.CaseResult(label="hidden", hidden=True, passed=True, verdict="yes"),)
        part = record.PartResult(part=PART, function="is_kernel", description="",
                                 points=2, score=2, cases=cases)
        saved = record.SubmissionResult(assignment=ps, student=student, notebook=ps,
                                        parts=(part,),
                                        variant=submission_variant(SECRET, ps, student).label)
        return record.SubmissionResult.loads(saved.dumps())     # as the command reads it

    handed = {"alice": rights["alice"][PART], "bob": rights["bob"][PART],
              carol: rights["bob"][PART]}
    results = {s: result(s, v) for s, v in handed.items()}
    assert handed_in(results[carol].parts) == {PART: rights["bob"][PART]}   # no hidden one
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / f"{ps}.py").write_text(HIDDEN)
    config = Config({"CourseDirectory": {"root": str(tmp_path)},
                     "CourseSettings": {"secret": SECRET}})
    scaffold = Scaffold(frozenset(), frozenset(), "", ())
    check = SimilarityCheck(config=config)
    materials = [material_of(s, [], scaffold, check, boilerplate(scaffold, check),
                             variant=r.variant, verdicts=handed_in(r.parts))
                 for s, r in results.items()]
    found, verdicts, skipped = variant_evidence(CourseDirectory(config=config), ps, materials,
                                                scaffold, check, config)
    assert skipped == [] and found == []
    assert [(frozenset((v.a, v.b)), v.whose) for v in verdicts] == [
        (frozenset(("bob", carol)), "bob")]
    shared = {frozenset((v.a, v.b)): [v.describe()] for v in verdicts}
    pairs = {frozenset((p.a.student, p.b.student)): p
             for p in compare_all(materials, check, shared)}
    assert [k for k, p in pairs.items() if p.flagged] == [frozenset(("bob", carol))]


@pytest.mark.slow   # a sandbox started: seconds
def test_the_judge_keeps_the_verdict_of_each_public_case_in_the_record(ps):
    """Graded in the sandbox on bob's variant: each public case keeps the verdict
    the student's function returned, whatever code returned it; an answer that is
    no verdict (a number, a long text) keeps none."""
    from coursecheck.variants import bind
    from coursegrader.judging.judge import grade_part

    bob = submission_variant(SECRET, ps, "bob")
    part = bind(get_parts(ps)[PART], bob.params)
    right = right_verdicts(get_parts(ps)[PART], bob.params)
    kernels = sorted(k for k, v in right.items() if v == "yes")
    sheet = [f"def is_kernel(name):\n    return name in {kernels!r}\n"]
    graded = grade_part(ps, PART, part, sheet, student="bob", secret=SECRET)
    assert graded.score == 2
    assert {c.label: c.verdict for c in graded.cases} == right
    odd = ["def is_kernel(name):\n    return 1.0 if name == 'K1' else 'no ' * 40\n"]
    graded = grade_part(ps, PART, part, odd, student="bob", secret=SECRET)
    assert graded.score < 2 and {c.verdict for c in graded.cases} == {None}
