"""The variants of ps4: the width sigma of the Gaussian kernel of parts 1, 2
and 4. The space is finite (sigma to two decimals in [0.5, 2]), so these
tests enumerate it whole: on every variant the reasoning holds (the
projection's Gram matrices stay well conditioned, f_0 has no larger a norm
than f) and the source notebook's solution passes every public and
hidden-style case; on every other variant, the answer worked out for one
fails every case that depends on sigma, and no fixed answer passes a varying
part on more than its own variant."""

import numpy as np
import pytest

from conftest import COURSE
from coursecheck.check import call_and_judge
from coursecheck.problems.ps4 import MAX_CONDITION, SIGMA_HIGH, SIGMA_LOW
from coursecheck.variants import bind, draw_variant, variation
from coursegrader.judging.problem_sets import graded_parts, local_hidden_rng
from test_problem_set_variants import _solution, _variants

import kernlab

VARYING = ("rkhs_inner", "rkhs_norm", "project_onto_span")
#: every sigma a variant can have
SPACE = [round(s, 2) for s in np.arange(SIGMA_LOW, SIGMA_HIGH + 0.005, 0.01)]
#: the one case of a varying part that holds for every sigma: the zero function
#: (its norm is 0 whatever the kernel), kept for what it teaches
SIGMA_FREE = {("rkhs_norm", "three copies of one centre, coefficients summing to 0 "
                            "(the zero function)")}


def _cases(part_id, sigma, seed):
    part = bind(graded_parts(COURSE, "ps4")[part_id], {"sigma": sigma})
    rng = np.random.default_rng([seed, int(round(100 * sigma))])
    return part, part.public() + part.hidden(rng)


def _sigma_dependent(part_id, cases):
    return [c for c in cases if (part_id, c.label) not in SIGMA_FREE]


def test_ps4_varies_sigma_only_in_parts_1_2_and_4_and_draws_reach_the_whole_space():
    parts = graded_parts(COURSE, "ps4")
    assert {pid for pid, p in parts.items() if p.varies} == set(VARYING)
    check = variation("ps4").check
    drawn = [v.params["sigma"] for v in _variants("ps4", 2000)]
    assert set(drawn) <= set(SPACE) and len(SPACE) == 151
    assert len(set(drawn)) > 140                     # the draws reach nearly every width
    assert min(drawn) < 0.52 and max(drawn) > 1.97
    assert all(check({"sigma": s}) is None for s in SPACE)
    for bad in (0.49, 2.01, 0.0, -1.0, 1):           # outside the range, or not a float
        assert check({"sigma": bad}) is not None, bad


def test_ps4_on_every_variant_the_reasoning_holds_and_the_solution_passes():
    parts = graded_parts(COURSE, "ps4")
    for sigma in SPACE:
        params = {"sigma": sigma}
        for part_id in VARYING:
            part, cases = _cases(part_id, sigma, 0)
            solution = _solution("ps4", part_id, params)
            failed = [(c.label, m) for c in cases
                      if (m := call_and_judge(part, c, solution)) is not None]
            assert failed == [], (sigma, part_id)
        # part 4: K_ZZ positive definite and well conditioned on every case (what lets
        # the values at the data fix c), and the projection never adds norm
        k = kernlab.Gaussian(sigma=sigma)
        part, cases = _cases("project_onto_span", sigma, 0)
        solution = _solution("ps4", "project_onto_span", params)
        for case in cases:
            alpha, X, Z = case.args
            assert np.linalg.cond(k(Z)) < MAX_CONDITION, (sigma, case.label)
            c = solution(alpha, X, Z)
            assert c @ k(Z) @ c <= alpha @ k(X) @ alpha + 1e-9, (sigma, case.label)
        # part 2's premise: a cancelling pair on a repeated centre leaves a non-zero f
        # whose norm depends on sigma, and |f(x)| <= ||f|| for the Gaussian kernel
        part, cases = _cases("rkhs_norm", sigma, 0)
        for case in _sigma_dependent("rkhs_norm", cases):
            alpha, X = case.args
            f = kernlab.RKHSFunction(k, X, alpha)
            assert f.norm() > 1e-3
            assert np.all(np.abs(f(X)) <= f.norm() + 1e-12)
        assert parts["rkhs_norm"].varies


def test_ps4_a_solution_for_another_width_fails_every_case_that_depends_on_sigma():
    """Worked out for a classmate's sigma, even the nearest one, an answer is wrong."""
    for i, sigma in enumerate(SPACE):
        others = (SPACE[i + 1] if i + 1 < len(SPACE) else SPACE[i - 1],   # the nearest
                  SPACE[(i + 75) % len(SPACE)])                          # a far one
        for part_id in VARYING:
            part, cases = _cases(part_id, sigma, 1)
            for other in others:
                copied = _solution("ps4", part_id, {"sigma": other})
                passed = [c.label for c in cases if call_and_judge(part, c, copied) is None]
                assert {(part_id, label) for label in passed} <= SIGMA_FREE, (sigma, other)


def _fixed_answers(part_id):
    """Answers one could circulate to the class: another width, or none at all."""
    answers = {f"the solution for sigma={s}": _solution("ps4", part_id, {"sigma": s})
               for s in SPACE[::10]}
    if part_id == "rkhs_inner":
        answers.update({
            "0": lambda alpha, X, beta, Y: 0.0,
            "alpha.beta summed": lambda alpha, X, beta, Y: float(np.sum(alpha) * np.sum(beta)),
            "the linear kernel": lambda alpha, X, beta, Y: float(alpha @ (X @ Y.T) @ beta)})
    elif part_id == "rkhs_norm":
        answers.update({
            "0": lambda alpha, X: 0.0,
            "|alpha|": lambda alpha, X: float(np.linalg.norm(alpha)),
            "|sum alpha|": lambda alpha, X: float(abs(np.sum(alpha)))})
    else:
        answers.update({
            "c = 0": lambda alpha, X, Z: np.zeros(len(Z)),
            "c = alpha on the nearest centres": lambda alpha, X, Z: np.array(
                [alpha[np.argmin(((X - z) ** 2).sum(axis=1))] for z in Z]),
            "c = f(z) with sigma 1": lambda alpha, X, Z: kernlab.Gaussian(sigma=1.0)(Z, X) @ alpha})
    return answers


@pytest.mark.parametrize("part_id", VARYING)
def test_ps4_no_fixed_answer_passes_a_varying_part_beyond_its_own_width(part_id):
    for name, answer in _fixed_answers(part_id).items():
        passed = []
        for sigma in SPACE:
            part = bind(graded_parts(COURSE, "ps4")[part_id], {"sigma": sigma})
            if all(call_and_judge(part, c, answer) is None for c in part.public()):
                passed.append(sigma)
        own = [float(name.rpartition("=")[2])] if name.startswith("the solution for") else []
        assert passed == own, (name, passed)
