"""The variants of the course's problem sets: over hundreds of variants, the
intended reasoning holds (``VARIANT.check``) and the reference solution of the
source notebook, run on each variant, passes the part's own judge."""

import functools

import numpy as np

from conftest import COURSE
from coursecheck.check import call_and_judge
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
        part = bind(parts["counterexample"], v.params)
        cases = part.public() + part.hidden(local_hidden_rng("ps3", "counterexample"))
        assert {c.args[0] for c in part.public()} == set(v.params["order"])
        solution = _solution("ps3", "counterexample", v.params)
        failed = [(c.label, m) for c in cases
                  if (m := call_and_judge(part, c, solution)) is not None]
        assert failed == [], v.label
    # the sample reaches every value of every parameter and many orders
    assert [len(seen[k]) for k in ("B", "w", "u", "v", "c")] == [4, 4, 4, 2, 3]
    assert len(orders) > 60


def test_ps3_points_worked_out_for_one_variant_fail_on_most_others():
    """The reason the part varies: a classmate's points prove nothing about yours."""
    variants = _variants("ps3", 60)
    parts = graded_parts(COURSE, "ps3")
    transferred = total = 0
    for mine in variants[:20]:
        solution = _solution("ps3", "counterexample", mine.params)
        own = bind(parts["counterexample"], mine.params)
        assert all(call_and_judge(own, c, solution) is None for c in own.public())
        for theirs in variants[20:]:
            part = bind(parts["counterexample"], theirs.params)
            cases = part.public()
            transferred += sum(call_and_judge(part, c, solution) is None for c in cases)
            total += len(cases)
    # the same matrix B, direction w, u or v or a smaller c lets a point carry over
    assert transferred / total < 0.45, transferred / total
