"""The variants of ps1: part 1's constant c, part 3's sixteen candidates
(their parameters, and the order of their neutral names K1 ... K16), and part
4's samples of the candidates that are never kernels. Over hundreds of
variants the reasoning holds (the grader's verdict on every candidate agrees
with its Gram matrices: a kernel's are PSD on random samples, and a search
finds a sample on which each other candidate fails), the source notebook's
solution passes every public and hidden-style case of every part that varies,
and the answers one could circulate fail on almost every variant (the figures
measured here are the README's)."""

import functools
import importlib.util
import itertools

import numpy as np
import pytest

from conftest import COURSE
from coursecheck.check import call_and_judge
from coursecheck.problems import ps1
from coursecheck.variants import bind, draw_variant, variation
from coursegrader.judging.problem_sets import graded_parts, local_hidden_rng
from coursegrader.tools.author import build_notebook

SAMPLE = 400
VARYING = {"quadratic_map", "kernel_verdicts", "counterexample"}


@functools.lru_cache
def _cells():
    nb = build_notebook(COURSE / "source" / "ps1" / "ps1.md")
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


def _scope(params):
    """The notebook's names above the answers, with ``V`` = ``params``."""
    scope = {}
    exec(_cells()["setup"], scope)
    scope["V"] = params
    scope["print"] = lambda *a, **k: None
    exec(_cells()["candidates"], scope)
    return scope


def _solution(part_id, params):
    """The source notebook's answer to ``part_id``, defined with ``V`` = ``params``."""
    scope = _scope(params)
    exec(_cells()[f"{part_id}_answer"], scope)
    return scope[graded_parts(COURSE, "ps1")[part_id].func]


@functools.lru_cache
def _variants(count=SAMPLE):
    return tuple(draw_variant("ps1", f"student{i}", "0123-4567-89ab-cdef")
                 for i in range(count))


def _failing_sample(scope, name):
    """A few points on which the notebook's Gram matrix of ``name`` has a clearly
    negative eigenvalue, found by a random search (None when none is found)."""
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 4):
        for scale in (0.5, 2.0, 5.0):
            for _ in range(100):
                P = rng.uniform(-scale, scale, size=(m, 2))
                K = scope["gram"](name, P)
                if np.linalg.eigvalsh(K)[0] < -1e-3 * max(1.0, np.abs(K).max()):
                    return P
    return None


def _verdict(spec):
    path = COURSE / "hidden" / "ps1.py"
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location("h", path))
    module.__spec__.loader.exec_module(module)
    return module.verdict(spec)


def _cases(part_id, params):
    part = bind(graded_parts(COURSE, "ps1")[part_id], params)
    return part, part.public() + part.hidden(local_hidden_rng("ps1", part_id))


def _share(part_id, params, answer):
    """The fraction of the public and hidden-style cases of ``part_id`` that ``answer``
    passes on the variant ``params``."""
    part, cases = _cases(part_id, params)
    return sum(call_and_judge(part, c, answer) is None for c in cases) / len(cases)


def test_the_parts_that_vary_and_what_the_notebook_can_check():
    parts = graded_parts(COURSE, "ps1")
    assert {pid for pid, p in parts.items() if p.varies} == VARYING
    # the notebook's check of a verdict cannot tell right from wrong: any bool passes
    public = ps1.PARTS["kernel_verdicts"]
    assert public.withheld and public.reference is None and public.answers is None
    v = _variants()[0].params
    own = bind(public, v)
    for answer in (lambda name: True, lambda name: False):
        assert all(call_and_judge(own, c, answer) is None for c in own.public())
    assert call_and_judge(own, own.public()[0], lambda name: "yes") is not None
    # the grader's can: it judges by the withheld reference
    graded = bind(parts["kernel_verdicts"], v)
    verdicts = [_verdict(s) for s in v["candidates"]]
    assert [call_and_judge(graded, c, lambda name: True) is None
            for c in graded.public()] == verdicts


@pytest.mark.slow
def test_every_variant_holds_and_the_solution_passes_every_case():
    check = variation("ps1").check
    seen_c, kinds_by_verdict, orders = set(), {True: set(), False: set()}, set()
    rng = np.random.default_rng(5)
    for variant in _variants():
        v = variant.params
        assert check(v) is None, variant.label
        assert 0.25 <= v["c"] <= 4.0 and abs(v["c"] - 1.0) >= 0.05
        assert round(v["c"] * 100) % 5 != 0          # never a round number
        seen_c.add(v["c"])
        orders.add(tuple(s["kind"] for s in v["candidates"]))
        scope = _scope(v)
        for spec in v["candidates"]:
            kernel = _verdict(spec)
            kinds_by_verdict[kernel].add(spec["kind"])
            # the premise of the verdict, recomputed: a kernel's Gram matrices are PSD on
            # random samples of several scales; another candidate fails on a sample a
            # search finds
            if kernel:
                for scale in (0.3, 1.0, 3.0):
                    K = scope["gram"](spec["name"], rng.normal(scale=scale, size=(7, 2)))
                    assert np.linalg.eigvalsh(K)[0] >= -1e-7 * max(1.0, np.abs(K).max()), spec
            else:
                assert _failing_sample(scope, spec["name"]) is not None, spec
            # part 4's samples are of the four candidates that are never kernels, and
            # fail clearly in the notebook's own Gram matrix too
            if spec["kind"] in ps1.ALWAYS_NOT:
                values = np.linalg.eigvalsh(scope["gram"](spec["name"],
                                                          v["samples"][spec["name"]]))
                assert values[0] < -0.05 * np.abs(values).max(), spec
            else:
                assert spec["name"] not in v["samples"]
            # the notebook's candidate is the package's
            P = rng.normal(size=(4, 2))
            np.testing.assert_allclose(scope["gram"](spec["name"], P),
                                       ps1.candidate_gram(v, spec["name"], P), atol=1e-9)
        for part_id in sorted(VARYING):
            part, cases = _cases(part_id, v)
            solution = _solution(part_id, v)
            failed = [(c.label, m) for c in cases
                      if (m := call_and_judge(part, c, solution)) is not None]
            assert failed == [], (variant.label, part_id)
    # the sample reaches widely: many constants, every kind with either verdict where its
    # parameters decide, many orders
    assert len(seen_c) > 120
    assert kinds_by_verdict[True] & kinds_by_verdict[False] == set(ps1.KINDS) - set(
        ps1.ALWAYS_NOT) - {"(x.z)^p"}
    assert set(ps1.ALWAYS_NOT) <= kinds_by_verdict[False] - kinds_by_verdict[True]
    assert len(orders) == SAMPLE


#: the answer key of part 3 before it varied, by the old names
OLD_KEY = {"B_diag": True, "B_indefinite": False, "exp_first": True, "lin_minus_sq": False,
           "cubic": True, "gauss": True, "dist": False, "sq_dist": False, "neg_lin": False,
           "lin_plus_one": True, "lin_minus_one": False, "sum_first": False,
           "cos_first": True, "max_first": False, "min_abs_first": True, "norm_product": True}


def _table(table):
    return lambda name, *rest: table[name]


def _universal_verdicts():
    """Answers to part 3 one could circulate: constants, the old key, and the verdicts
    of one variant (by name, or as a rule on the kind that ignores the parameters)."""
    example = draw_variant("ps1", "example", "").params
    by_name = {s["name"]: _verdict(s) for s in example["candidates"]}
    by_kind = {s["kind"]: _verdict(s) for s in example["candidates"]}
    kinds = {}
    return {
        "all True": lambda name: True,
        "all False": lambda name: False,
        "the old answer key": _table(OLD_KEY),
        "the example variant's verdicts, by name": _table(by_name),
        "the example variant's verdicts, by kind": lambda name: by_kind[kinds[name]],
    }, kinds


def test_no_circulated_verdicts_fit_the_variants():
    answers, kinds = _universal_verdicts()
    variants = _variants()[1:]
    full = {name: 0 for name in answers}
    mean = {name: 0.0 for name in answers}
    for variant in variants:
        kinds.clear()
        kinds.update({s["name"]: s["kind"] for s in variant.params["candidates"]})
        for name, answer in answers.items():
            share = _share("kernel_verdicts", variant.params, answer)
            full[name] += share == 1.0
            mean[name] += share / len(variants)
    # none earns the part on any of 399 variants; on average each earns about what
    # tossing a coin for each verdict does (the old key nothing at all)
    print({name: round(m, 3) for name, m in mean.items()})
    assert full == {name: 0 for name in answers}, full
    assert mean["the old answer key"] == 0.0
    for name in answers:
        assert mean[name] < 0.7, (name, mean[name])


@pytest.mark.slow
def test_a_copy_of_a_classmates_answers_fails_where_the_variants_differ():
    variants = _variants()
    mine = variants[0].params
    verdicts = {s["name"]: _verdict(s) for s in mine["candidates"]}
    # part 1: the map worked out for c (as numbers in the solution), and the old one (c = 1)
    for c in (mine["c"], 1.0):
        fixed = _solution("quadratic_map", {**mine, "c": c})
        own = _share("quadratic_map", mine, fixed)
        theirs = [_share("quadratic_map", v.params, fixed) for v in variants[1:]]
        assert own == (1.0 if c == mine["c"] else 0.0)
        assert sum(s > 0 for s in theirs) == sum(v.params["c"] == c for v in variants[1:])
    # part 3: my verdicts, by name, on 399 classmates' variants: never all right
    shares = [_share("kernel_verdicts", v.params, _table(verdicts)) for v in variants[1:]]
    print("verdicts copied:", np.mean(shares), max(shares))
    assert max(shares) < 1.0 and np.mean(shares) < 0.65
    # part 4: my witnesses, by name, worked out on my samples
    solution = _solution("counterexample", mine)
    witnesses = {name: solution(name, X).tolist() for name, X in mine["samples"].items()}
    literal = lambda name, P: np.array(witnesses[name]) if name in witnesses else None
    public = len(mine["samples"])
    own = _share("counterexample", mine, literal)
    assert own == pytest.approx(public / (public + 3))      # the hidden-style cases fail
    shares = [_share("counterexample", v.params, literal) for v in variants[1:]]
    print("witnesses copied:", np.mean(shares), max(shares))
    assert max(shares) == 0.0


#: twelve points on which every candidate of the draw that is not a kernel fails: a
#: universal answer to part 4 when it asked for points (a principal sub-matrix of a
#: PSD matrix is PSD, so one sample holding a failing one for each kind fails them all)
UNIVERSAL_POINTS = [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [2, 2], [-2, -2], [1.6, 0],
                    [0, 1.6], [3, 1], [-1, 3], [0.5, 0.5]]


def _fixed_vectors():
    """Unit vectors one might circulate as witnesses on three points: every direction
    with entries in {-1, 0, 1}, up to sign (a and -a give the same value)."""
    out = []
    for a in itertools.product((-1.0, 0.0, 1.0), repeat=3):
        a = np.array(a)
        if a.any() and a[np.flatnonzero(a)[0]] > 0:
            out.append(a / np.linalg.norm(a))
    return out


@pytest.mark.slow   # 399 variants, seven cases each, 17 answers
def test_no_circulated_witnesses_fit_the_variants():
    """Part 4 asks for the witness on a sample of the variant's: no fixed answer fits
    every variant. The universal points of the old question, points as the old
    question asked, the thirteen directions with entries in {-1, 0, 1}, and the
    witnesses of two variants (the example's and a classmate's) as tables by name earn
    the part on none of 399 variants; the figures are the README's."""
    variants = _variants()
    example = draw_variant("ps1", "example", "").params
    classmate = variants[0].params

    def table(params):
        solution = _solution("counterexample", params)
        found = {name: solution(name, X) for name, X in params["samples"].items()}
        return lambda name, P: found.get(name)

    answers = {
        "the twelve universal points": lambda name, P: np.array(UNIVERSAL_POINTS, dtype=float),
        "two points, as the old question asked": lambda name, P: np.array([[0.0, 0.0],
                                                                           [2.0, 2.0]]),
        "the example variant's witnesses, by name": table(example),
        "a classmate's witnesses, by name": table(classmate),
    }
    answers.update({f"the fixed vector {np.round(a, 3).tolist()}": (lambda a: lambda n, P: a)(a)
                    for a in _fixed_vectors()})
    full = {name: 0 for name in answers}
    mean = {name: 0.0 for name in answers}
    for variant in variants[1:]:
        part, cases = _cases("counterexample", variant.params)
        for name, answer in answers.items():
            share = sum(call_and_judge(part, c, answer) is None for c in cases) / len(cases)
            full[name] += share == 1.0
            mean[name] += share / (len(variants) - 1)
    print({name: round(m, 4) for name, m in mean.items()})
    assert full == {name: 0 for name in answers}, full
    # points and tables by name pass no case at all; a fixed direction passes a case
    # only where a sample's witness happens to be it
    for name in list(answers)[:4]:
        assert mean[name] == 0.0, (name, mean[name])
    assert max(mean.values()) < 0.05, mean


@pytest.mark.slow
def test_part_3s_verdicts_are_compared_across_variants_by_the_graders_reference():
    """Part 3 gives verdicts (``Part.verdict``) whose reference is withheld: the
    student package cannot say a variant's right verdicts, the grader's half can, and
    with them the similarity check flags a sheet copied across variants and no honest
    student of 120."""
    from coursegrader.judging.verdicts import right_verdicts
    from coursegrader.similarity.material import SimilarityCheck
    from coursegrader.similarity.verdicts import verdict_evidence

    public, graded = ps1.PARTS["kernel_verdicts"], graded_parts(COURSE, "ps1")["kernel_verdicts"]
    assert public.verdict and public.withheld and graded.verdict
    variants = _variants()[:120]
    with pytest.raises(ValueError, match="graded_parts"):
        right_verdicts(public, variants[0].params)
    rights = {v.student: {"kernel_verdicts": right_verdicts(graded, v.params)}
              for v in variants}
    for v in variants:
        r = rights[v.student]["kernel_verdicts"]
        # one case per neutral name, labelled alike in every variant
        assert list(r) == [f"K{n} (a bool; the grader judges it)" for n in range(1, 17)]
        assert list(r.values()) == ["yes" if _verdict(s) else "no"
                                    for s in v.params["candidates"]]
    check = SimilarityCheck()
    handed = {s: {p: dict(r) for p, r in by_part.items()} for s, by_part in rights.items()}
    assert verdict_evidence(handed, rights, least=check.verdict_min,
                            share=check.verdict_share) == []
    bob, carol = variants[0].student, variants[1].student
    handed[carol] = {"kernel_verdicts": dict(handed[bob]["kernel_verdicts"])}
    found = verdict_evidence(handed, rights, least=check.verdict_min, share=check.verdict_share)
    assert found and all(carol in (e.a, e.b) for e in found)
    (e,) = [e for e in found if {e.a, e.b} == {bob, carol}]
    assert e.whose == bob and len(e.same) == e.differing >= check.verdict_min


def test_a_copied_sheet_with_the_verdicts_part_4_shows_set_right_is_still_flagged():
    """Part 4 names the four candidates of a student's variant that are never
    kernels, so a student handing in a classmate's sheet can set those four to
    "no" at no cost; the differences that makes are not counted against the sheet
    being one (``Part.known_verdicts``) when the other sheet is its holder's right
    one.  bob's sheet handed in by each of 149 classmates: flagged for 140 or
    more copied exactly, and for 115 or more with those set right (fewer than 30
    without the rule); an honest class of 150 (11,175 pairs) with a mistake in
    ten or five of its verdicts has at most 5 pairs more flagged than without
    the rule, and 15 in all."""
    import random

    from coursegrader.judging.verdicts import known_verdicts, right_verdicts
    from coursegrader.similarity.material import SimilarityCheck
    from coursegrader.similarity.verdicts import verdict_evidence

    graded = graded_parts(COURSE, "ps1")["kernel_verdicts"]
    variants = _variants()[:150]
    rights = {v.student: {"kernel_verdicts": right_verdicts(graded, v.params)}
              for v in variants}
    known = {v.student: {"kernel_verdicts": known_verdicts(graded, v.params)}
             for v in variants}
    check = SimilarityCheck()

    def flagged(handed, students, rule=True):
        return verdict_evidence(handed, {s: rights[s] for s in students},
                                least=check.verdict_min, share=check.verdict_share,
                                known={s: known[s] for s in students} if rule else None)

    bob = variants[0].student
    sheet = rights[bob]["kernel_verdicts"]
    exact = set_right = set_right_before = 0
    for v in variants[1:]:
        mine = known[v.student]["kernel_verdicts"]
        assert len(mine) == 4 and all(rights[v.student]["kernel_verdicts"][label] == "no"
                                      for label in mine)
        pair = (bob, v.student)
        exact += bool(flagged({s: {"kernel_verdicts": dict(sheet)} for s in pair}, pair))
        edited = {label: ("no" if label in mine else x) for label, x in sheet.items()}
        handed = {bob: {"kernel_verdicts": dict(sheet)}, v.student: {"kernel_verdicts": edited}}
        set_right += bool(flagged(handed, pair))
        set_right_before += bool(flagged(handed, pair, rule=False))
    assert exact >= 140 and set_right >= 115 and set_right_before < 30, (
        exact, set_right, set_right_before)

    for error in (0.1, 0.2):
        rng = random.Random(7)
        handed = {s: {"kernel_verdicts": {label: ({"yes": "no", "no": "yes"}[x]
                                                  if rng.random() < error else x)
                                          for label, x in r["kernel_verdicts"].items()}}
                  for s, r in rights.items()}
        students = list(rights)
        with_rule, without = len(flagged(handed, students)), len(flagged(handed, students,
                                                                          rule=False))
        assert without <= with_rule <= without + 5 and with_rule <= 15, (error, with_rule,
                                                                          without)
