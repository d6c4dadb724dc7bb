"""The variants of ps2: the width sigma of the Gaussian bumps (parts 5 and 7,
``bump_gram`` and ``basis_ridge``) and of the Gaussian kernel (part 8,
``kernel_ridge_predict``). The space is finite (sigma to two decimals in
[0.5, 2]), so these tests enumerate it whole: on every width the basis ridge's
systems stay well conditioned, the public half's table of answers for that
width and the grader's reference agree, and the source notebook's solution
passes every public and hidden-style case; the solution for another width, even
the nearest, fails every case, and no fixed answer passes a varying part's
public cases on more than its own width."""

import dataclasses
import functools

import numpy as np
import pytest

import kernlab
from conftest import COURSE, within_a_quarter_of_the_check
from coursecheck.check import call_and_judge
from coursecheck.parts import get_parts, judge_case, variant_key
from coursecheck.problems import ps2
from coursecheck.variants import bind, draw_variant, variation
from coursegrader.judging.problem_sets import graded_parts, hidden_module
from coursegrader.tools.author import build_notebook

VARYING = ("bump_gram", "basis_ridge", "kernel_ridge_predict")
#: every width a variant can have
SPACE = [round(float(s), 2) for s in np.arange(0.5, 2.005, 0.01)]


@functools.lru_cache
def _cells():
    nb = build_notebook(COURSE / "source" / "ps2" / "ps2.md")
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


@functools.lru_cache
def _solution(part_id, sigma):
    """The source notebook's answer to ``part_id``, defined with ``V = {"sigma": sigma}``
    (part 7's answer calls part 5's, so both are defined)."""
    scope = {"V": {"sigma": sigma}}
    exec(_cells()["setup"], scope)
    answer = {"kernel_ridge_predict": "kernel_ridge_answer"}.get(part_id, f"{part_id}_answer")
    if part_id == "basis_ridge":
        exec(_cells()["bump_gram_answer"], scope)
    exec(_cells()[answer], scope)
    return scope[ps2.PARTS[part_id].func]


def _cases(part_id, sigma, seed):
    part = bind(graded_parts(COURSE, "ps2")[part_id], {"sigma": sigma})
    rng = np.random.default_rng([seed, int(round(100 * sigma))])
    return part, part.public() + part.hidden(rng)


def test_only_the_width_varies_and_draws_reach_the_whole_space():
    assert (ps2.SIGMA_LOW, ps2.SIGMA_HIGH) == (SPACE[0], SPACE[-1])
    assert list(ps2.WIDTHS) == SPACE and len(SPACE) == 151
    assert [v["sigma"] for v in variation("ps2").space()] == SPACE
    parts = graded_parts(COURSE, "ps2")
    assert tuple(pid for pid, p in parts.items() if p.varies) == VARYING
    check = variation("ps2").check
    drawn = [draw_variant("ps2", f"student{i}", "0123-4567-89ab-cdef").params["sigma"]
             for i in range(2000)]
    assert set(drawn) <= set(SPACE)
    assert len(set(drawn)) > 140                     # the draws reach nearly every width
    assert min(drawn) < 0.52 and max(drawn) > 1.97
    assert all(check({"sigma": s}) is None for s in SPACE)
    for bad in (0.49, 2.01, 0.0, -1.0, 1, 0.555):   # outside, not a float, not two decimals
        assert check({"sigma": bad}) is not None, bad


def test_the_public_tables_hold_every_width_and_agree_with_the_reference():
    """bump_gram and basis_ridge ship one table of public answers per width, never the rule."""
    public, graded = get_parts("ps2"), graded_parts(COURSE, "ps2")
    for pid in ("bump_gram", "basis_ridge"):
        assert public[pid].reference is None and callable(public[pid].answers)
        for sigma, nearest in zip(SPACE, SPACE[1:] + SPACE[-2:-1]):
            mine = bind(public[pid], {"sigma": sigma})
            ref = bind(graded[pid], {"sigma": sigma})
            assert sorted(mine.answers) == sorted(c.label for c in mine.public())
            for case in mine.public():
                assert within_a_quarter_of_the_check(
                    mine.compare, mine.answers[case.label], ref.reference(*case.args), case), \
                    (pid, sigma, case.label)
            # the closeness allowed is rounding: the table of the nearest width is not close
            other = bind(public[pid], {"sigma": nearest}).answers
            assert not any(within_a_quarter_of_the_check(
                mine.compare, other[case.label], ref.reference(*case.args), case)
                for case in mine.public()), (pid, sigma, nearest)
        # a width outside the space has no table: the check says so rather than guess
        assert bind(public[pid], {"sigma": 0.505}).answers == {}
    assert variant_key({"sigma": 0.5}) == '{"sigma": 0.5}'


@pytest.mark.parametrize("part_id", VARYING)
def test_on_every_width_the_solution_passes_every_case(part_id):
    public = get_parts("ps2")[part_id]
    for sigma in SPACE:
        part, cases = _cases(part_id, sigma, 0)
        solution = _solution(part_id, sigma)
        failed = [(c.label, m) for c in cases
                  if (m := call_and_judge(part, c, solution)) is not None]
        assert failed == [], sigma
        # and the student's own check, on the public half, passes it too
        mine = bind(public, {"sigma": sigma})
        assert all(call_and_judge(mine, c, solution) is None for c in mine.public()), sigma


def test_on_every_width_the_basis_ridge_systems_are_well_conditioned():
    """The premise of part 7's tolerance: on every case of every width, public and
    hidden-style, Phi^T Phi + lam G has condition number below MAX_CONDITION, and the
    bump Gram matrix of the hidden cases has every entry above 1e-6 (so each depends
    on sigma)."""
    hidden = hidden_module(COURSE, "ps2")
    worst = 0.0
    for sigma in SPACE:
        for seed in (0, 1):
            _, cases = _cases("basis_ridge", sigma, seed)
            for case in cases:
                condition = hidden.basis_ridge_condition({"sigma": sigma}, case)
                worst = max(worst, condition)
                assert condition < hidden.MAX_CONDITION, (sigma, case.label, condition)
            part, cases = _cases("bump_gram", sigma, seed)
            for case in part.hidden(np.random.default_rng([seed, int(round(100 * sigma))])):
                assert part.reference(*case.args).min() > 1e-6, (sigma, case.label)
    assert worst > 1e3      # the check is not vacuous: the wide bumps do strain the system


@pytest.mark.slow
@pytest.mark.parametrize("part_id", VARYING)
def test_a_solution_for_another_width_fails_every_case(part_id):
    """Worked out for a classmate's sigma, even the nearest one, an answer is wrong."""
    for i, sigma in enumerate(SPACE):
        others = (SPACE[i + 1] if i + 1 < len(SPACE) else SPACE[i - 1],   # the nearest
                  SPACE[(i + 75) % len(SPACE)])                          # a far one
        part, cases = _cases(part_id, sigma, 1)
        for other in others:
            copied = _solution(part_id, other)
            passed = [c.label for c in cases if judge_case(part, c, copied(*c.args)) is None]
            assert passed == [], (sigma, other, passed)


def _ridge(Phi, y, M, lam):
    return np.linalg.solve(Phi.T @ Phi + lam * M, Phi.T @ y)


def _fixed_answers(part_id):
    """Answers one could circulate to the class: the solution for a fixed width, or
    answers that ignore the width, each with the widths it is right for."""
    answers = {f"the solution for sigma={s}": (_solution(part_id, s), [s]) for s in SPACE[::15]}
    unnormalised = lambda X, U: kernlab.Gaussian(sigma=1.0)(X, U)        # noqa: E731
    others = {
        "bump_gram": {
            "the identity": lambda U: np.eye(len(U)),
            "all ones": lambda U: np.ones((len(U), len(U))),
            "the Gaussian kernel of width 1 on the centres": lambda U: unnormalised(U, U)},
        "basis_ridge": {
            "w = 0": lambda X, y, U, lam: np.zeros(len(U)),
            "ridge on unnormalised bumps of width 1, identity penalty": lambda X, y, U, lam:
                _ridge(unnormalised(X, U), y, np.eye(len(U)), lam),
            "the targets at the nearest data points": lambda X, y, U, lam: np.array(
                [y[np.argmin(((X - u) ** 2).sum(axis=1))] for u in U])},
        "kernel_ridge_predict": {
            "0": lambda X, y, Xn, lam: np.zeros(len(Xn)),
            "the mean target": lambda X, y, Xn, lam: np.full(len(Xn), float(np.mean(y))),
            "linear ridge": lambda X, y, Xn, lam: Xn @ np.linalg.solve(
                X.T @ X + lam * np.eye(X.shape[1]), X.T @ y),
            "the nearest training point's target": lambda X, y, Xn, lam: np.array(
                [y[np.argmin(((X - x) ** 2).sum(axis=1))] for x in Xn])},
    }[part_id]
    answers.update({name: (answer, []) for name, answer in others.items()})
    return answers


@pytest.mark.slow
@pytest.mark.parametrize("part_id", VARYING)
def test_no_fixed_answer_passes_a_varying_part_beyond_its_own_width(part_id):
    answers = _fixed_answers(part_id)
    passed = {name: [] for name in answers}
    other_cases = {name: 0 for name in answers}
    for sigma in SPACE:
        part = bind(get_parts("ps2")[part_id], {"sigma": sigma})
        if part.reference is not None:      # judge once against the expected values
            part = dataclasses.replace(part, reference=None, answers={
                c.label: part.reference(*c.args) for c in part.public()})
        for name, (answer, own) in answers.items():
            ok = [judge_case(part, c, answer(*c.args)) is None for c in part.public()]
            if all(ok):
                passed[name].append(sigma)
            if sigma not in own:
                other_cases[name] += sum(ok)
    assert passed == {name: own for name, (_, own) in answers.items()}
    # not even one public case of another width
    assert other_cases == {name: 0 for name in answers}
