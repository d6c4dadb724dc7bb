"""The similarity check's numbers: what a submission holds as literals, and the values
of a classmate's variant among them (``coursegrader.similarity.values``).

The class measurements draw the variants of many students as the grader does
(``submission_variant``), give each the source notebook's solution, which reads
``V`` (for ps4 and ps5 half of them with their own width typed in, as a student
who copies it from the printed variant would), and check that no honest
submission is flagged, while a notebook handed over with a classmate's width,
witness vectors or samples typed in is, with that classmate only.
"""

import functools
import subprocess
import sys

import numpy as np
import pytest

from conftest import COURSE
from coursegrader.judging.problem_sets import graded_parts, hidden_module
from coursegrader.judging.variants import submission_variant
from coursegrader.record import AnswerCode
from coursegrader.similarity.material import Scaffold
from coursegrader.similarity.values import (ANY, common_values, evidence, implied_by,
                                            literals, shared_evidence, trivial, variant_reads,
                                            variant_values)
from coursegrader.tools.author import build_notebook

SECRET = "similarity-values-secret"


def _code(source, cell="part_answer"):
    return AnswerCode(cell, source)


def _text(source, cell="part_written"):
    return AnswerCode(cell, source, "markdown")


def _found(*cells, limit=1000):
    return {(lit.values, lit.shape) for lit in literals(cells, limit=limit)[0]}


# ---------------------------------------------------------------- what is read


def test_numbers_and_arrays_of_code_are_read_with_their_signs_and_shapes():
    got = _found(_code("sigma = 1.37\nW = np.array([[0.7071, -0.7071, 0.125]])\n"
                       "t = -1.2e-1\nk = f(x, 0.5, 3)\n"))
    assert ((1.37,), ()) in got
    assert ((-0.12,), ()) in got
    assert ((0.7071, -0.7071, 0.125), (3,)) in got      # a row is a vector
    assert ((-0.7071,), ()) in got and ((0.7071,), ()) in got
    assert ((0.12,), ()) not in got                      # read with its sign only
    assert not any(v == (0.5,) or v == (3.0,) for v, _ in got)   # trivially common


def test_a_number_written_as_a_string_or_as_arithmetic_is_read_as_its_value():
    got = _found(_code('a = float("1.37")\nb = 137 / 100\nc = 1.3 + 0.07\n'
                       'd = np.array(["0.41", "-0.82", "0.41"], dtype=float)\n'
                       'e = "sigma"\nf = 1 / 0\ng = 2 ** 0.5\nh = ' + " + ".join(["0.01"] * 300)))
    values = sorted(v[0] for v, shape in got if shape == ())
    for source in ('float("1.37")', "137 / 100", "1.3 + 0.07"):
        assert [lit.values for lit in literals([_code(source)], limit=10)[0]
                if abs(lit.values[0] - 1.37) < 1e-12], source
    assert ((0.41, -0.82, 0.41), (3,)) in got
    assert not any(abs(v - 2 ** 0.5) < 1e-9 for v in values)     # a power is not folded
    # a cell too deep to parse (a long chain of additions) is read as text
    deep = _code("s = 1.37\nh = " + " + ".join(["0.01"] * 20000))
    assert ((1.37,), ()) in _found(deep)


def test_numbers_of_written_answers_are_read_at_a_sentences_end_and_in_brackets():
    got = _found(_text("My width is 1.37 and a = (0.41, \u22120.82, 0.41). It ends 3.33.\n"
                       "Python 3.11.2, version v2.71, cell 1,000."))
    assert ((1.37,), ()) in got and ((3.33,), ()) in got
    assert ((-0.82,), ()) in got
    assert ((0.41, -0.82, 0.41), (3,)) in got
    assert ((3.11,), ()) not in got and ((2.71,), ()) not in got


def test_trivially_common_numbers_are_never_read():
    assert all(map(trivial, (0, 3, -2.0, 1.5, 0.5, 0.2, 0.05, 1e-6, 3e5, 0.1)))
    assert not any(map(trivial, (1.37, 0.7071, 1.2, 0.55, 0.75, 0.9, 0.25, 3e-5)))
    assert _found(_code("x = [1, 0.5, 2.0]\ny = 1e-10\n"), _text("a tolerance of 0.001")) == set()


def test_odd_cells_are_read_within_bounds_and_never_raise():
    cells = [_code("def f(:\n  1.37"), _code("%timeit g(2.35)\nx = 1.37\n"),
             _code("x = 1e999\ny = " + "9" * 400 + "\n"), _text("1e999 and 1.37e-99999 and 1.37"),
             _code("x = [" + ", ".join(["1.37"] * 5000) + "]\n"),
             AnswerCode("helper.pyc", "", "compiled")]
    got, cut = literals(cells, limit=100)
    assert cut and len(got) == 100
    assert all(np.isfinite(lit.values).all() for lit in got)
    assert ((1.37,), ()) in _found(*cells[1:2])   # IPython syntax read as the judge reads it
    assert not any(len(lit.values) > 1000 for lit in got)


# ---------------------------------------------------------------- matching


def _values(student, params, implied=None):
    return variant_values(student, params, implied)


def test_a_width_matches_within_half_a_unit_of_its_last_digit_and_never_ones_own():
    values = {"bob": _values("bob", {"sigma": 1.37}), "carol": _values("carol", {"sigma": 1.36}),
              "dave": _values("dave", {"sigma": 0.83})}
    held = {"carol": literals([_code("s = 1.370")], limit=10)[0],
            "dave": literals([_code("s = 1.36")], limit=10)[0],
            "bob": literals([_code("s = 1.37")], limit=10)[0]}
    found = evidence(held, values)
    assert [(e.holder, e.owner, e.name) for e in found] == [
        ("carol", "bob", "sigma"), ("dave", "carol", "sigma")]
    assert found[0].describe() == "carol holds bob's sigma (1.37, in part_answer)"


def test_a_number_of_two_digits_matches_only_the_value_it_is():
    values = {"bob": _values("bob", {"sigma": 1.23}), "carol": _values("carol", {"sigma": 0.71}),
              "dave": _values("dave", {"sigma": 1.2})}
    held = {"carol": literals([_code("s = 1.2")], limit=10)[0]}
    assert [(e.holder, e.owner) for e in evidence(held, values)] == [("carol", "dave")]


def test_values_the_release_prints_or_many_variants_share_are_not_evidence():
    values = {s: _values(s, {"sigma": 1.37 if s < "s3" else 0.91, "c": 0.37})
              for s in ("s0", "s1", "s2", "s3", "s4")}
    held = {"s3": literals([_code("a = 1.37\nb = 0.37")], limit=10)[0]}
    assert evidence(held, values) == []                   # three of five hold 1.37, all 0.37
    values["s0"] = _values("s0", {"sigma": 1.51, "c": 0.63})
    held["s3"] = literals([_code("a = 1.51\nb = 0.63")], limit=10)[0]
    assert {e.name for e in evidence(held, values)} == {"sigma", "c"}
    released = tuple(literals([_text("for example sigma = 1.51")], limit=10)[0])
    assert {e.name for e in evidence(held, values, released=released)} == {"c"}


def test_a_witness_of_either_sign_matches_rounded_or_in_full_as_a_row_or_a_column():
    a = np.array([0.28646635657566955, -0.7421629764293789, -0.6059134781202232])
    values = {"bob": _values("bob", {}, lambda v: {"witness": ("\u00b1", a.tolist())}),
              "carol": _values("carol", {}, lambda v: {"witness": ("\u00b1", [0.6, 0.0, 0.8])})}
    for typed in (repr(a.tolist()), repr((-a).round(4).tolist()),
                  f"np.array([[{a[0]:.2f}], [{a[1]:.2f}], [{a[2]:.2f}]])"):
        held = {"carol": literals([_code(f"w = {typed}")], limit=10)[0]}
        assert [(e.holder, e.owner) for e in evidence(held, values)] == [("carol", "bob")], typed
    held = {"carol": literals([_code(f"w = {(a + [0.02, 0, 0]).round(2).tolist()!r}")],
                              limit=10)[0]}
    assert evidence(held, values) == []                   # one entry two units off


def test_what_a_variant_draws_from_a_few_choices_is_common_whoever_the_class_is():
    common = common_values("ps3", 200, 0.05)
    assert ((), (0.25,)) in common                          # c, from three choices
    assert not any(shape == (3, 2) for shape, _ in common)  # samples are each one's own
    assert not any(shape == () and 0.5 <= v[0] <= 2.0 and not trivial(v[0])
                   for shape, v in common_values("ps4", 200, 0.05))   # 151 widths
    values = {"bob": _values("bob", {"sigma": 1.37, "c": 0.25}),
              "carol": _values("carol", {"sigma": 0.91, "c": 4.0})}
    held = {"carol": literals([_code("c = 0.25\ns = 1.37")], limit=10)[0]}
    assert [e.name for e in evidence(held, values)] == ["c", "sigma"]
    assert [e.name for e in evidence(held, values, common=common)] == ["sigma"]


@pytest.mark.slow
def test_text_that_does_not_parse_is_read_in_time_linear_in_its_length():
    """An unclosed bracket of numbers (a table of 5,000 lines in a module, cut or
    left open), 100,000 digits before a letter: read as text, each once.  Read
    with numbers that could split and give back digits, 500 lines of the table had
    held ``make similarity`` for minutes, for the whole class."""
    code = ("from coursegrader.similarity.values import literals\n"
            "from types import SimpleNamespace as C\n"
            "table = 'T = [\\n' + ''.join(f'    {i}.37,\\n' for i in range(5000))\n"
            "digits = '1' * 100000 + 'x = [1.37'\n"
            "for source in (table, digits):\n"
            "    for kind in ('code', 'markdown'):\n"
            "        found, cut = literals([C(cell='c', cell_type=kind, source=source)],"
            " limit=100000)\n"
            "        print(len(found))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["5000", "5000", "1", "1"]


def test_two_holders_of_a_third_students_value_are_a_pair():
    values = {s: _values(s, {"sigma": x}) for s, x in
              (("bob", 1.37), ("carol", 0.91), ("dave", 1.83), ("erin", 0.67))}
    held = {s: literals([_code("s = 1.37")], limit=10)[0] for s in ("carol", "dave")}
    pairs = shared_evidence(evidence(held, values))
    assert set(pairs) == {frozenset(("carol", "bob")), frozenset(("dave", "bob")),
                          frozenset(("carol", "dave"))}
    assert pairs[frozenset(("carol", "dave"))] == [
        "carol and dave both hold bob's sigma (1.37; 1.37)"]


# ---------------------------------------------------------------- a class


@functools.cache
def _source(ps):
    return build_notebook(COURSE / "source" / ps / f"{ps}.md")


def _honest(ps):
    """The source notebook's solution cells, as a student's record keeps them."""
    return [AnswerCode(c.metadata["nbgrader"].get("grade_id"), c.source, c.cell_type)
            for c in _source(ps).cells if c.metadata.get("nbgrader", {}).get("solution")]


def _with(cells, replace):
    return [AnswerCode(c.cell, replace(c.source), c.cell_type) for c in cells]


def _implied(ps):
    return implied_by(graded_parts(COURSE, ps),
                      getattr(hidden_module(COURSE, ps), "implied_values", None))


def _class(ps, n):
    implied = _implied(ps)
    drawn = {f"s{i:03d}": submission_variant(SECRET, ps, f"s{i:03d}") for i in range(n)}
    values = {s: variant_values(s, v.params, implied) for s, v in drawn.items()}
    scaffold = Scaffold.of([c for c in _source(ps).cells
                            if not c.metadata.get("nbgrader", {}).get("solution")])
    return drawn, values, scaffold.numbers, common_values(ps, 200, 0.05, implied)


def _printed(value):
    """``value`` as a student writes it down: to four decimals, a vector in brackets."""
    if isinstance(value, list):
        return "(" + ", ".join(f"{v:.4f}" for v in value) + ")"
    return f"{value:.4f}"


@pytest.mark.parametrize("ps", ["ps4", "ps5"])
def test_no_honest_width_is_flagged_and_a_classmates_width_typed_in_is(ps):
    drawn, values, released, common = _class(ps, 150)
    sigma = {s: v.params["sigma"] for s, v in drawn.items()}
    students = sorted(drawn)
    held, reads = {}, {}
    for i, s in enumerate(students):
        cells = _honest(ps)
        if i % 2:    # their own width typed in where the solution reads it
            cells = _with(cells, lambda src, x=sigma[s]: src.replace('V["sigma"]', repr(x)))
        held[s], reads[s] = literals(cells, limit=5000)[0], _reads(cells)
    assert evidence(held, values, released=released, common=common, reads=reads) == []
    # carol: the notebook of bob, handed over with his width typed in
    bob = students[1]
    carol = next(s for s in students if sigma[s] != sigma[bob])
    cells = _with(_honest(ps), lambda src: src.replace('V["sigma"]', repr(sigma[bob])))
    held[carol], reads[carol] = literals(cells, limit=5000)[0], _reads(cells)
    found = evidence(held, values, released=released, common=common, reads=reads)
    assert {(e.holder, e.name) for e in found} == {(carol, "sigma")}
    assert {e.owner for e in found} == {s for s in students if sigma[s] == sigma[bob]}
    assert bob in {e.owner for e in found}
    # dave: bob's answer to the first public case of a varying part, worked out on his
    # width and written into a written answer
    dave = next(s for s in students if sigma[s] not in (sigma[bob], sigma[carol]))
    implied = _implied(ps)(drawn[bob].params)
    name = next(k for k in implied if k.endswith("public case 1"))
    held[dave] = literals(_honest(ps) + [_text(f"I find {_printed(implied[name])}.")],
                          limit=5000)[0]
    found = evidence(held, values, released=released, common=common, reads=reads)
    assert {(e.holder, e.name) for e in found if e.holder == dave} == {(dave, name)}
    assert {e.owner for e in found if e.holder == dave} == {
        s for s in students if sigma[s] == sigma[bob]}


def test_the_keys_of_v_a_submission_reads_are_its_constant_keys():
    assert variant_reads(['c = float(V["c"])', "s = V.get('sigma', 1.0)",
                          "def f(x):\n    return x * V['c']", "V[", "x = 1"]) == {"c", "sigma"}
    for other in ("W = V", "k = 'c'\nx = V[k]", "f(**V)", "for k in V: pass", "V.get(k)",
                  "sigma = variant('ps4')['sigma']", "params = variant('ps1')"):
        assert variant_reads([other]) == {ANY}, other


def _reads(cells):
    return variant_reads(c.source for c in cells if c.cell_type == "code")


@pytest.mark.parametrize("ps, name", [("ps1", "c"), ("ps4", "sigma")])
def test_a_short_number_written_by_chance_is_no_classmates_value(ps, name):
    """Each honest student writes three numbers of two decimals that are classmates'
    values of the parameter (a ps1 constant c from some 300, a ps4 width from 151),
    in a written answer, a step size and a test point: none is flagged, whether the
    solution reads ``V`` or has the student's own value typed in.  Carol's copy of
    bob's notebook, his value written where it reads ``V``, still is."""
    drawn, values, released, common = _class(ps, 100)
    students = sorted(drawn)
    mine = {s: drawn[s].params[name] for s in students}
    pool = sorted({x for x in mine.values() if not trivial(x)})
    rng = np.random.default_rng(7)
    held, reads = {}, {}
    for i, s in enumerate(students):
        a, b, c = rng.choice([x for x in pool if x != mine[s]], 3, replace=False)
        cells = _honest(ps)
        if i % 2:    # their own value typed in where the solution reads it
            cells = _with(cells, lambda src, x=mine[s]: src.replace(f'V["{name}"]', repr(x)))
        cells += [_text(f"The smallest eigenvalue comes out near {a!r}."),
                  _code(f"step = {b!r}\nx_test = np.array([[{c!r}]])", "scratch")]
        held[s], reads[s] = literals(cells, limit=5000)[0], _reads(cells)
    # the numbers are classmates' values: read without where they are written, they flag
    assert len({e.holder for e in evidence(held, values, released=released,
                                           common=common)}) > 30
    assert evidence(held, values, released=released, common=common, reads=reads) == []
    bob = students[0]
    carol = next(s for s in students if mine[s] != mine[bob])
    cells = _with(_honest(ps), lambda src: src.replace(f'V["{name}"]', repr(mine[bob])))
    held[carol], reads[carol] = literals(cells, limit=5000)[0], _reads(cells)
    found = evidence(held, values, released=released, common=common, reads=reads)
    assert {(e.holder, e.name) for e in found} == {(carol, name)}
    assert bob in {e.owner for e in found}
    # the same copy reading V once more is no longer caught by its number (its code is
    # bob's: the code comparison's business)
    cells.append(_code(f'_ = V["{name}"]', "scratch"))
    held[carol], reads[carol] = literals(cells, limit=5000)[0], _reads(cells)
    assert evidence(held, values, released=released, common=common, reads=reads) == []


def test_no_honest_ps3_is_flagged_and_a_classmates_witnesses_or_samples_typed_in_are():
    drawn, values, released, common = _class("ps3", 100)
    students = sorted(drawn)
    held = {s: literals(_honest("ps3"), limit=5000)[0] for s in students}
    # a student who works their own witnesses out by hand and types them in
    own = students[0]
    implied = hidden_module(COURSE, "ps3").implied_values(drawn[own].params)   # witnesses
    table = {k.split(" of ", 1)[1]: np.round(v[1], 4).tolist() for k, v in implied.items()}
    held[own] = literals([_code(f"W = {table!r}\ndef witness(name, X):\n"
                                "    return np.array(W[name])\n")], limit=5000)[0]
    assert evidence(held, values, released=released, common=common) == []
    bob, carol, dave = students[1], students[2], students[3]
    bobs = hidden_module(COURSE, "ps3").implied_values(drawn[bob].params)
    table = {k.split(" of ", 1)[1]: np.round(-np.asarray(v[1]), 3).tolist()
             for k, v in bobs.items()}
    held[carol] = literals([_code(f"W = {table!r}\ndef witness(name, X):\n"
                                  "    return np.array(W[name])\n")], limit=5000)[0]
    held[dave] = literals([_code(f"S = {drawn[bob].params['samples']!r}\n")], limit=5000)[0]
    found = evidence(held, values, released=released, common=common)
    assert {(e.holder, e.owner) for e in found} == {(carol, bob), (dave, bob)}
    assert {e.name for e in found if e.holder == carol} == {
        f"witness on the sample of {name}" for name in drawn[bob].params["samples"]}
    assert {e.name for e in found if e.holder == dave} == {
        f"samples[{name!r}]" for name in drawn[bob].params["samples"]}


# ---------------------------------------------------------------- the command's draw


def _course(tmp_path, secret):
    from traitlets.config import Config
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "ps4.py").write_text((COURSE / "hidden" / "ps4.py").read_text())
    config = Config({"CourseDirectory": {"root": str(tmp_path)}})
    if secret:
        config.CourseSettings.secret = secret
    return config


def test_the_command_draws_each_variant_from_the_secret_and_trusts_no_other_label(tmp_path):
    from nbgrader.coursedir import CourseDirectory

    from coursegrader.similarity.material import Material, SimilarityCheck
    from coursegrader.tools.similarity import variant_evidence

    config = _course(tmp_path, SECRET)
    drawn = {s: submission_variant(SECRET, "ps4", s) for s in ("alice", "bob", "carol")}
    typed = f"s = {drawn['alice'].params['sigma']!r}"
    assert drawn["bob"].params["sigma"] != drawn["alice"].params["sigma"]
    materials = [Material("alice", "", [], numbers=[], variant=drawn["alice"].label),
                 Material("bob", "", [], numbers=literals([_code(typed)], limit=10)[0],
                          variant=drawn["bob"].label),
                 # judged on another variant than the secret draws: not compared
                 Material("carol", "", [], numbers=literals([_code(typed)], limit=10)[0],
                          variant=drawn["bob"].label)]
    coursedir = CourseDirectory(config=config)
    scaffold = Scaffold(frozenset(), frozenset(), "", ())
    check = SimilarityCheck(config=config)
    found, verdicts, skipped = variant_evidence(coursedir, "ps4", materials, scaffold, check,
                                                config)
    assert [(e.holder, e.owner, e.name) for e in found] == [("bob", "alice", "sigma")]
    assert verdicts == []      # ps4 asks for no verdict
    assert skipped == [f"carol: its variant not compared (judged on {drawn['bob'].label}, "
                       f"the course secret draws {drawn['carol'].label})"]
    assert not (tmp_path / ".grader_secret").exists()
    # without the course secret, no variant is drawn (and no secret is made)
    (tmp_path / "other").mkdir()
    config = _course(tmp_path / "other", None)
    found, verdicts, skipped = variant_evidence(CourseDirectory(config=config), "ps4",
                                                materials, scaffold,
                                                SimilarityCheck(config=config), config)
    assert found == verdicts == [] and len(skipped) == 1 and "no course secret" in skipped[0]
    assert not (tmp_path / "other" / ".grader_secret").exists()


def test_a_submission_holding_every_width_keeps_the_page_and_each_row_small(tmp_path):
    from coursegrader.similarity.material import SimilarityCheck, boilerplate, material_of
    from coursegrader.similarity.page import write_report
    from coursegrader.tools.similarity import compare_all

    widths = [round(0.5 + 0.01 * i, 2) for i in range(1, 150) if not trivial(0.5 + 0.01 * i)]
    students = [f"s{i:03d}" for i in range(len(widths))]
    values = {s: _values(s, {"sigma": w, "t": [w + 0.003, w + 0.004]})
              for s, w in zip(students, widths)}
    every = "\n".join(f"a{i} = {w!r}\nb{i} = [{w + 0.003!r}, {w + 0.004!r}]"
                      for i, w in enumerate(widths))
    held = {s: literals([_code(every)], limit=5000)[0] for s in students[:3]}
    pairs = shared_evidence(evidence(held, values), most=1)
    assert len(pairs) == 3 * (len(students) - 3) + 3        # each padder with everyone
    assert all(len(lines) <= 2 for lines in pairs.values())
    assert pairs[frozenset(("s000", "s001"))][-1].endswith(" more")
    check = SimilarityCheck(page_pairs=10)
    scaffold = Scaffold(frozenset(), frozenset(), "", ())
    boiler = boilerplate(scaffold, check)
    materials = [material_of(s, [], scaffold, check, boiler) for s in students]
    table, page = write_report("ps4", materials, compare_all(materials, check, pairs),
                               tmp_path, check, [])
    text = page.read_text()
    assert f"{len(pairs) - 10} more such pairs are not shown here" in text
    assert len(text) < 40_000
    assert table.read_text().count("holds") + table.read_text().count("both hold") >= len(pairs)
