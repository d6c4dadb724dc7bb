"""The variants of the course's problem sets: over hundreds of variants, the
intended reasoning holds (``VARIANT.check``) and the reference solution of the
source notebook, run on each variant, passes the part's own judge."""

import functools

import numpy as np
import pytest

from conftest import COURSE
from coursecheck.check import call_and_judge
from coursecheck.problems import ps3
from coursecheck.variants import bind, draw_variant, variation
from coursegrader.judging.problem_sets import graded_parts, local_hidden_rng
from coursegrader.tools.author import build_notebook

SAMPLE = 400


@functools.lru_cache
def _cells(ps):
    nb = build_notebook(COURSE / "source" / ps / f"{ps}.md")
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


def _solution(ps, part_id, params):
    """The source notebook's answer to ``part_id``, defined with ``V`` = ``params``."""
    setup, answer = _cells(ps)["setup"], _cells(ps)[f"{part_id}_answer"]
    scope = {}
    exec(setup, scope)
    scope["V"] = params
    exec(answer, scope)
    return scope[graded_parts(COURSE, ps)[part_id].func]


def _variants(ps, count=SAMPLE):
    return [draw_variant(ps, f"student{i}", "0123-4567-89ab-cdef") for i in range(count)]


@pytest.mark.slow
def test_ps3_every_function_of_every_variant_is_shown_not_a_kernel():
    parts = graded_parts(COURSE, "ps3")
    varying = {pid for pid, p in parts.items() if p.varies}
    assert varying == {"counterexample"}
    check = variation("ps3").check
    seen = {key: set() for key in ("B", "w", "u", "v", "c")}
    orders = set()
    for v in _variants("ps3"):
        assert check(v.params) is None, v
        for key in seen:
            seen[key].add(repr(v.params[key]))
        orders.add(tuple(v.params["order"]))
        B = np.array(v.params["B"])
        assert np.linalg.eigvalsh(B)[0] < -0.5           # clearly indefinite, not by rounding
        functions = ps3.candidates(v.params)
        for name, X in v.params["samples"].items():
            # the premise, recomputed here: three points of [-2, 2]^2 on which the Gram
            # matrix has one clearly negative eigenvalue, clearly below the next
            values = np.linalg.eigvalsh(functions[name](np.array(X)))
            assert np.array(X).shape == (3, 2) and np.abs(X).max() <= 2.0
            assert values[0] < -0.05 * np.abs(values).max(), (v.label, name)
            assert values[1] - values[0] > 0.05 * np.abs(values).max(), (v.label, name)
        part = bind(parts["counterexample"], v.params)
        cases = part.public() + part.hidden(local_hidden_rng("ps3", "counterexample"))
        assert [c.args for c in part.public()] == [
            (name, v.params["samples"][name]) for name in v.params["order"]]
        solution = _solution("ps3", "counterexample", v.params)
        failed = [(c.label, m) for c in cases
                  if (m := call_and_judge(part, c, solution)) is not None]
        assert failed == [], v.label
    # the sample reaches every value of every parameter and many orders
    assert [len(seen[k]) for k in ("B", "w", "u", "v", "c")] == [4, 4, 4, 2, 3]
    assert len(orders) > 60


def _literal(table):
    """An answer that returns, for each function name, a value worked out once."""
    return lambda name, X=None: np.array(table[name], dtype=float)


def _passed(params, answer):
    """How many of the public and hidden-style cases of ps3's part 6 ``answer`` passes
    on the variant ``params``."""
    part = bind(graded_parts(COURSE, "ps3")["counterexample"], params)
    cases = part.public() + part.hidden(local_hidden_rng("ps3", "counterexample"))
    return sum(call_and_judge(part, c, answer) is None for c in cases)


#: the answer that defeated every variant of the question as it was (a sample of
#: points on which each function fails): six points that fail every function for
#: every parameter of the draw, and one set of at most two points per function
UNIVERSAL_POINTS = [[1, 0], [0, 1], [0, 0], [1, 1], [-1, -1], [3, 0]]
UNIVERSAL_TABLE = {"x^T B z": [[1, 0], [0, 1]],             # det(X B X^T) = det(X)^2 det(B) < 0
                   "w.x + w.z": [[0, 0], [1, 2]],           # two different projections
                   "min(u.x, u.z)": [[1, 1], [-1, -1]],     # one negative projection for each u
                   "x.z - c(x.z)^2": [[3, 0]],              # 9 - 81 c < 0 for every c >= 1/4
                   "max(v.x, v.z)": [[-1, -1]]}             # v.x < 0 for v = e1 and v = e2


def test_ps3_the_universal_answers_of_the_old_question_earn_nothing():
    variants = _variants("ps3", 200)
    # they were right for every variant of the old question
    for v in variants:
        for name, k in ps3.candidates(v.params).items():
            assert np.linalg.eigvalsh(k(np.array(UNIVERSAL_POINTS, dtype=float)))[0] < -1e-3
            assert np.linalg.eigvalsh(k(np.array(UNIVERSAL_TABLE[name], dtype=float)))[0] < -1e-3
    for v in variants:
        assert _passed(v.params, _literal({n: UNIVERSAL_POINTS for n in ps3.NAMES})) == 0
        assert _passed(v.params, _literal(UNIVERSAL_TABLE)) == 0


@pytest.mark.slow
def test_ps3_no_fixed_witness_fits_the_variants():
    """The reason the part varies: a witness is a value of the sample, so the answers
    worked out for one variant, or any fixed vectors, prove nothing about another's."""
    variants = _variants("ps3", 240)
    # each student's own witnesses, worked out once as numbers, pass their own public cases
    # and no case of anyone else's
    parts = graded_parts(COURSE, "ps3")
    for mine in variants[:20]:
        solution = _solution("ps3", "counterexample", mine.params)
        table = {name: solution(name, X).tolist() for name, X in mine.params["samples"].items()}
        own = bind(parts["counterexample"], mine.params)
        assert all(call_and_judge(own, c, _literal(table)) is None for c in own.public())
        assert sum(_passed(theirs.params, _literal(table)) for theirs in variants[20:60]) == 0
    # 2000 fixed unit vectors against every sample of 240 variants: the fraction of
    # (vector, sample) pairs that pass is the chance that a guess passes a case
    rng = np.random.default_rng(3)
    guesses = rng.normal(size=(2000, 3))
    guesses /= np.linalg.norm(guesses, axis=1, keepdims=True)
    hits = trials = 0
    for v in variants:
        for name, k in ps3.candidates(v.params).items():
            K = k(np.array(v.params["samples"][name], dtype=float))
            values = np.linalg.eigvalsh(K)
            reached = np.einsum("gi,ij,gj->g", guesses, K, guesses)
            hits += int(np.sum(reached <= values[0] + ps3.TOLERANCE * np.abs(values).max()))
            trials += len(guesses)
    assert hits / trials < 1e-3, hits / trials
