"""The variants of ps4 and ps5: the width sigma of a Gaussian kernel (ps4's
parts 1, 2 and 4, ps5's part 4). The space is finite (sigma to two decimals in
[0.5, 2]), so these tests enumerate it whole: on every variant the reasoning
holds (ps4's projection: its Gram matrices stay well conditioned, f_0 has no
larger a norm than f) and the source notebook's solution passes every public
and hidden-style case; the answer worked out for another width fails every
case that depends on sigma, and no fixed answer passes a varying part on more
than its own variant."""

import functools

import numpy as np
import pytest

import kernlab
from conftest import COURSE
from coursecheck.check import call_and_judge
from coursecheck.problems import ps4, ps5
from coursecheck.variants import bind, draw_variant, variation
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.tools.author import build_notebook

#: the parts that vary, by problem set
VARYING = {"ps4": ("rkhs_inner", "rkhs_norm", "project_onto_span"), "ps5": ("svm_decision",)}
PART_IDS = [(ps, pid) for ps, pids in VARYING.items() for pid in pids]
#: every width a variant can have (the same range in both problem sets)
SPACE = [round(float(s), 2) for s in np.arange(0.5, 2.005, 0.01)]
#: the one case of a varying part that holds for every sigma: the zero function
#: (its norm is 0 whatever the kernel), kept for what it teaches
SIGMA_FREE = {("ps4", "rkhs_norm", "three copies of one centre, coefficients summing to 0 "
                                   "(the zero function)")}


@functools.lru_cache
def _cells(ps):
    nb = build_notebook(COURSE / "source" / ps / f"{ps}.md")
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


@functools.lru_cache
def _solution(ps, part_id, sigma):
    """The source notebook's answer to ``part_id``, defined with ``V = {"sigma": sigma}``."""
    scope = {}
    exec(_cells(ps)["setup"], scope)
    scope["V"] = {"sigma": sigma}
    exec(_cells(ps)[f"{part_id}_answer"], scope)
    return scope[graded_parts(COURSE, ps)[part_id].func]


def _cases(ps, part_id, sigma, seed):
    part = bind(graded_parts(COURSE, ps)[part_id], {"sigma": sigma})
    rng = np.random.default_rng([seed, int(round(100 * sigma))])
    return part, part.public() + part.hidden(rng)


@pytest.mark.parametrize("ps", VARYING)
def test_only_the_width_varies_and_draws_reach_the_whole_space(ps):
    module = {"ps4": ps4, "ps5": ps5}[ps]
    assert (module.SIGMA_LOW, module.SIGMA_HIGH) == (SPACE[0], SPACE[-1])
    parts = graded_parts(COURSE, ps)
    assert tuple(pid for pid, p in parts.items() if p.varies) == VARYING[ps]
    check = variation(ps).check
    drawn = [draw_variant(ps, f"student{i}", "0123-4567-89ab-cdef").params["sigma"]
             for i in range(2000)]
    assert set(drawn) <= set(SPACE) and len(SPACE) == 151
    assert len(set(drawn)) > 140                     # the draws reach nearly every width
    assert min(drawn) < 0.52 and max(drawn) > 1.97
    assert all(check({"sigma": s}) is None for s in SPACE)
    for bad in (0.49, 2.01, 0.0, -1.0, 1):           # outside the range, or not a float
        assert check({"sigma": bad}) is not None, bad


@pytest.mark.parametrize("ps, part_id", PART_IDS)
def test_on_every_width_the_solution_passes_every_case(ps, part_id):
    assert graded_parts(COURSE, ps)[part_id].varies
    for sigma in SPACE:
        part, cases = _cases(ps, part_id, sigma, 0)
        solution = _solution(ps, part_id, sigma)
        failed = [(c.label, m) for c in cases
                  if (m := call_and_judge(part, c, solution)) is not None]
        assert failed == [], sigma


def test_ps4_on_every_width_the_projection_and_the_norms_reason_as_the_text_says():
    for sigma in SPACE:
        k = kernlab.Gaussian(sigma=sigma)
        # part 4: K_ZZ positive definite and well conditioned on every case (what lets
        # the values at the data fix c), and the projection never adds norm
        _, cases = _cases("ps4", "project_onto_span", sigma, 0)
        solution = _solution("ps4", "project_onto_span", sigma)
        for case in cases:
            alpha, X, Z = case.args
            assert np.linalg.cond(k(Z)) < ps4.MAX_CONDITION, (sigma, case.label)
            c = solution(alpha, X, Z)
            assert c @ k(Z) @ c <= alpha @ k(X) @ alpha + 1e-9, (sigma, case.label)
        # part 2: the expansions with a cancelling pair still leave a function whose
        # norm is not 0, and |f(x)| <= ||f|| for the Gaussian kernel
        _, cases = _cases("ps4", "rkhs_norm", sigma, 0)
        for case in cases:
            if ("ps4", "rkhs_norm", case.label) in SIGMA_FREE:
                continue
            f = kernlab.RKHSFunction(k, case.args[1], case.args[0])
            assert f.norm() > 1e-3, (sigma, case.label)
            assert np.all(np.abs(f(case.args[1])) <= f.norm() + 1e-12)


@pytest.mark.parametrize("ps, part_id", PART_IDS)
def test_a_solution_for_another_width_fails_every_case_that_depends_on_sigma(ps, part_id):
    """Worked out for a classmate's sigma, even the nearest one, an answer is wrong."""
    for i, sigma in enumerate(SPACE):
        others = (SPACE[i + 1] if i + 1 < len(SPACE) else SPACE[i - 1],   # the nearest
                  SPACE[(i + 75) % len(SPACE)])                          # a far one
        part, cases = _cases(ps, part_id, sigma, 1)
        for other in others:
            copied = _solution(ps, part_id, other)
            passed = {(ps, part_id, c.label) for c in cases
                      if call_and_judge(part, c, copied) is None}
            assert passed <= SIGMA_FREE, (sigma, other, passed)


def _fixed_answers(ps, part_id):
    """Answers one could circulate to the class: the solution for a fixed width, or
    answers that ignore the kernel, each with the widths it is right for."""
    answers = {f"the solution for sigma={s}": (_solution(ps, part_id, s), [s])
               for s in SPACE[::10]}
    others = {
        "rkhs_inner": {
            "0": lambda alpha, X, beta, Y: 0.0,
            "sum alpha sum beta": lambda alpha, X, beta, Y: float(np.sum(alpha) * np.sum(beta)),
            "the linear kernel": lambda alpha, X, beta, Y: float(alpha @ (X @ Y.T) @ beta)},
        "rkhs_norm": {
            "0": lambda alpha, X: 0.0,
            "|alpha|": lambda alpha, X: float(np.linalg.norm(alpha)),
            "|sum alpha|": lambda alpha, X: float(abs(np.sum(alpha)))},
        "project_onto_span": {
            "c = 0": lambda alpha, X, Z: np.zeros(len(Z)),
            "c = alpha of the nearest centres": lambda alpha, X, Z: np.array(
                [alpha[np.argmin(((X - z) ** 2).sum(axis=1))] for z in Z]),
            "c = f(z) with sigma 1": lambda alpha, X, Z: kernlab.Gaussian(sigma=1.0)(Z, X) @ alpha},
        "svm_decision": {
            "b": lambda X, y, alpha, b, X_new: np.full(len(X_new), float(b)),
            "the linear kernel": lambda X, y, alpha, b, X_new: X_new @ X.T @ (alpha * y) + b,
            "the nearest training point's label": lambda X, y, alpha, b, X_new: np.array(
                [y[np.argmin(((X - x) ** 2).sum(axis=1))] for x in X_new])},
    }[part_id]
    answers.update({name: (answer, []) for name, answer in others.items()})
    return answers


@pytest.mark.slow
@pytest.mark.parametrize("ps, part_id", PART_IDS)
def test_no_fixed_answer_passes_a_varying_part_beyond_its_own_width(ps, part_id):
    for name, (answer, own) in _fixed_answers(ps, part_id).items():
        passed = []
        for sigma in SPACE:
            part = bind(graded_parts(COURSE, ps)[part_id], {"sigma": sigma})
            if all(call_and_judge(part, c, answer) is None for c in part.public()):
                passed.append(sigma)
        assert passed == own, (name, passed)
