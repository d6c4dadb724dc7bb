"""Unit tests of coursegrader: encoding, comparators, checks, sandbox, preprocessor, PS1 spec."""

import math
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

import kernlab
from attacks import DISABLE_GUARD
from coursecheck import Case, CheckFailed, Part, allclose, check, custom, equal, same_set
from coursecheck.problems import ps1
from coursecheck.serial import UnsupportedValue, roundtrip
from coursecheck.parts import judge_case
from coursegrader import check_hidden
from coursegrader.runners import landlock
from coursegrader.tools.author import build_notebook
from coursegrader.judging.judge import PartSession, grade_part, run_part
from coursegrader.judging.problem_sets import (graded_part, hidden_module, hidden_rng,
                                               local_hidden_rng, part_score)
from coursegrader.tools.validation import release_leaks
from coursecheck.variants import bind, draw_variant
from grading import ps1_variant

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS1_SOURCE = COURSE / "source" / "ps1" / "ps1.md"
#: the example variant of ps1, which the notebook's checks run on when no student is set
EXAMPLE = draw_variant("ps1", "example", "")
#: its constant c of part 1, a plain number (graded code may not use coursecheck)
EXAMPLE_C = float(EXAMPLE.params["c"])
# the grader's settings in the course, with the secret "k"
IN_THE_COURSE = Config({"CourseDirectory": {"root": str(COURSE)},
                        "CourseSettings": {"secret": "k"}})


# ---------------------------------------------------------------- encoding

@pytest.mark.parametrize("value", [
    None, True, 3, -(2**70), 2.5, float("inf"), complex(1, -2), "text",
    np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1.5, np.nan]), np.float32(2.5),
    np.array([True, False]), np.array(1.5), np.arange(6.0).reshape(2, 3).T,
    [1, (2.0, "a")], {"k": [np.zeros(2)]}, {1, 2, "x"}, (),
])
def test_roundtrip_keeps_plain_values(value):
    back = roundtrip(value)
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        np.testing.assert_array_equal(back, value)
    elif isinstance(value, dict):
        np.testing.assert_array_equal(back["k"][0], value["k"][0])
    else:
        assert back == value or (isinstance(value, float) and math.isnan(value))


class _Always:
    def __eq__(self, other):
        return True


class _F(float):
    def __eq__(self, other):
        return True


class _A(np.ndarray):
    pass


@pytest.mark.parametrize("value", [
    _Always(), _F(1.0), np.zeros(3).view(_A), np.array(["a"]), np.array([None]),
    {1: 2}, [lambda: 0], np.float64,
])
def test_roundtrip_rejects_anything_else(value):
    with pytest.raises(UnsupportedValue):
        roundtrip(value)


# ---------------------------------------------------------------- comparators

def test_allclose_reports_shape_then_worst_entry():
    cmp = allclose(rtol=1e-6, atol=1e-9)
    assert cmp(np.ones(3), np.ones(3)) is None
    assert cmp(np.ones((3, 1)), np.ones(3)) == "expected shape (3,), got (3, 1)"
    msg = cmp(np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
    assert "1 of 3 entries differ" in msg and "index (2,)" in msg
    assert "expected 3.0" in msg and "got 3.5" in msg
    assert "got nothing (None)" in cmp(None, np.ones(2))
    assert "nan" in cmp(np.array([np.nan]), np.array([1.0]))
    assert cmp(2.0 + 1e-12, 2.0) is None


def test_same_set_equal_custom():
    assert same_set()(["b", "a", "a"], {"a", "b"}) is None
    assert "missing 'c'" in same_set()(["a"], ["a", "c"])
    assert "unexpected 'z'" in same_set()(["a", "z"], ["a"])
    assert equal()(True, True) is None and equal()(np.bool_(True), True) is None
    assert "expected the bool True, got 1" == equal()(1, True)
    even = custom(lambda got, exp, case: got % 2 == 0, "not even")
    assert even(4, None) is None and even(3, 4).startswith("not even")
    assert custom(lambda g, e, c: "too big")(1, 0) == "too big"


def test_part_validates_its_fields():
    pub = lambda: [Case(args=(1,), label="one")]  # noqa: E731
    with pytest.raises(ValueError, match="exactly one"):
        Part(func="f", points=1, public=pub)
    with pytest.raises(ValueError, match="points"):
        Part(func="f", points=0, public=pub, reference=abs)
    with pytest.raises(ValueError, match="identifier"):
        Part(func="not a name", points=1, public=pub, reference=abs)
    with pytest.raises(TypeError, match="tuple"):
        Case(args=[1], label="x")
    with pytest.raises(ValueError, match="no part"):
        graded_part(COURSE, "ps1", "nonexistent")
    with pytest.raises(ValueError, match="like 'ps1'"):
        graded_part(COURSE, "../etc", "x")
    assert part_score(Part(func="f", points=3, public=pub, reference=abs), 1, 3) == 1.0


def test_hidden_streams_are_reproducible_and_per_student():
    draw = lambda *key: hidden_rng(*key).integers(0, 2**62)  # noqa: E731
    assert draw("s", "alice", "ps1", "a") == draw("s", "alice", "ps1", "a")
    assert draw("s", "alice", "ps1", "a") != draw("s", "bob", "ps1", "a")
    assert draw("s", "alice", "ps1", "a") != draw("t", "alice", "ps1", "a")
    assert local_hidden_rng("ps1", "a").integers(0, 2**62) == \
        local_hidden_rng("ps1", "a").integers(0, 2**62)
    with pytest.raises(ValueError):
        hidden_rng("", "alice", "ps1", "a")


# ---------------------------------------------------------------- in-notebook check

def _good_quadratic(X):
    X = np.asarray(X, dtype=float)
    s, c = np.sqrt(2.0), EXAMPLE_C
    return np.column_stack([np.full(len(X), c), np.sqrt(2 * c) * X[:, 0],
                            np.sqrt(2 * c) * X[:, 1], X[:, 0] ** 2, X[:, 1] ** 2,
                            s * X[:, 0] * X[:, 1]])


def test_check_passes_and_prints_each_case(capsys):
    check("ps1", "quadratic_map", _good_quadratic)
    check_hidden("ps1", "quadratic_map", _good_quadratic, course=COURSE)
    out = capsys.readouterr().out
    assert "ok    case '4 points in R^2 (one at the origin), then each alone'" in out
    assert "hidden-style case" in out and "FAIL" not in out


def test_check_failure_names_case_expected_and_got(capsys):
    with pytest.raises(CheckFailed) as info:
        check("ps1", "quadratic_map", lambda X: _good_quadratic(X)[:, :5])
    message = str(info.value)
    assert message.startswith("<lambda> [quadratic_map]: 2 of 2 checks failed\n")
    assert "case '4 points in R^2 (one at the origin), then each alone'" in message
    assert "expected shape (4, 6), got (4, 5)" in " ".join(message.split())
    # nbgrader validate cuts every line of an error at 87 characters
    assert all(len(line) <= 80 for line in message.split("\n"))
    with pytest.raises(CheckFailed, match="expected True or False, got 'yes'"):
        check("ps1", "kernel_verdicts", lambda name: "yes")
    with pytest.raises(CheckFailed, match="unsupported type"):
        check("ps1", "kernel_verdicts", lambda name: _Always())
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check("ps1", "counterexample",
              lambda name, P: (_ for _ in ()).throw(NotImplementedError()))


def test_check_is_silent_on_stderr_and_ignores_global_random_state(capfd):
    def noisy(X):
        import sys
        warnings.warn("a warning from student code")
        print("to stderr", file=sys.stderr)
        np.random.seed(123)  # the student's code changes the global state
        np.random.normal(size=10)
        return _good_quadratic(X)

    np.random.seed(0)
    check_hidden("ps1", "quadratic_map", noisy, course=COURSE)
    first = capfd.readouterr()
    np.random.seed(99)
    check_hidden("ps1", "quadratic_map", noisy, course=COURSE)
    second = capfd.readouterr()
    assert first.err == "" and second.err == ""
    assert first.out == second.out  # the same cases whatever the global state


def test_check_arguments_cannot_be_changed_by_the_student():
    def mutating(X):
        X[:] = 0.0  # spoils its own copy only
        return _good_quadratic(X)
    with pytest.raises(CheckFailed):
        check("ps1", "quadratic_map", mutating)
    check("ps1", "quadratic_map", _good_quadratic)


# ---------------------------------------------------------------- PS1 spec against kernlab

def _notebook_setup_namespace(params=None):
    """The notebook's names above the answers, with ``V`` the example variant's (or
    ``params``)."""
    nb = build_notebook(PS1_SOURCE)
    cells = {c.metadata["nbgrader"].get("grade_id"): c.source for c in nb.cells
             if "nbgrader" in c.metadata}
    ns = {"print": lambda *a, **k: None}
    exec(cells["setup"], ns)
    ns["V"] = EXAMPLE.params if params is None else params
    exec(cells["candidates"], ns)
    return ns, nb


def test_notebook_candidates_are_the_graders():
    rng = np.random.default_rng(5)
    for i in range(20):
        v = draw_variant("ps1", f"s{i}", "0123-4567-89ab-cdef").params
        ns, _ = _notebook_setup_namespace(v)
        assert list(ns["CANDIDATES"]) == [f"K{n}" for n in range(1, 17)]
        P = rng.normal(scale=2.0, size=(6, 2))
        for name in ns["CANDIDATES"]:
            np.testing.assert_allclose(ns["gram"](name, P), ps1.candidate_gram(v, name, P),
                                       rtol=1e-12, atol=1e-12, err_msg=name)


def test_verdicts_agree_with_kernlab():
    rng = np.random.default_rng(11)
    ns, _ = _notebook_setup_namespace()
    verdict = hidden_module(COURSE, "ps1").verdict
    counter = bind(ps1.PARTS["counterexample"], EXAMPLE.params)
    for spec in EXAMPLE.params["candidates"]:
        name = spec["name"]
        if verdict(spec):
            for scale in (0.3, 1.0, 2.0):
                K = ps1.candidate_gram(EXAMPLE.params, name, rng.normal(scale=scale, size=(12, 2)))
                assert kernlab.is_psd(K, tol=1e-8), name
        else:
            # every non-kernel fails clearly on a sample drawn for it, and the reference
            # witness there is one the grader accepts
            P = ps1.draw_sample(rng, spec)
            assert ps1.sample_fault(spec, P) is None, name
            case = Case(args=(name, P), label=name)
            assert judge_case(counter, case, _reference_solution("witness", ns)(name, P)) \
                is None, name


def _reference_solution(func, ns):
    nb = build_notebook(PS1_SOURCE)
    for cell in nb.cells:
        if cell.cell_type == "code" and f"def {func}(" in cell.source:
            exec(cell.source, ns)
    return ns[func]


def test_multinomial_map_from_the_note_without_binomial_weights_is_rejected():
    # Weighting a degree-p' monomial only by p'!/(j_1!...j_d!) (no binom(p, p'))
    # gives sum_{p'} <x,t>^p', not (1 + <x,t>)^p: the grader must say so.
    from itertools import combinations_with_replacement
    from math import factorial, prod

    def without_binomial(X, p):
        cols = []
        for combo in combinations_with_replacement(range(X.shape[1] + 1), p):
            counts = np.bincount(combo, minlength=X.shape[1] + 1)[1:]
            w = factorial(int(counts.sum())) / prod(factorial(int(c)) for c in counts)
            Z = np.column_stack([np.ones(len(X)), X])
            cols.append(np.sqrt(w) * np.prod(Z[:, list(combo)], axis=1))
        return np.column_stack(cols)

    part = ps1.PARTS["multinomial_map"]
    X = np.random.default_rng(2).normal(size=(4, 2))
    msg = judge_case(part, Case(args=(X, 3), label="x"), without_binomial(X, 3))
    assert msg is not None and "but the kernel gives" in msg
    ns, _ = _notebook_setup_namespace()
    good = _reference_solution("multinomial_feature_map", ns)
    for d, p in [(1, 1), (2, 3), (3, 2), (4, 4)]:
        X = np.random.default_rng(d + p).normal(size=(3, d))
        assert good(X, p).shape == (3, math.comb(d + p, p))
        assert judge_case(part, Case(args=(X, p), label="x"), good(X, p)) is None


def test_witness_verify_accepts_the_smallest_eigenvector_of_either_sign_only():
    part = bind(ps1.PARTS["counterexample"], EXAMPLE.params)
    # a |x - z| with a > 0: a distance matrix, one positive eigenvalue and two negative
    name = next(s["name"] for s in EXAMPLE.params["candidates"] if s["kind"] == "a |x - z|")
    P = EXAMPLE.params["samples"][name]
    case = Case(args=(name, P), label="x")
    values, vectors = np.linalg.eigh(ps1.candidate_gram(EXAMPLE.params, name, P))
    assert judge_case(part, case, vectors[:, 0]) is None
    assert judge_case(part, case, -vectors[:, 0]) is None
    assert "as small as" in judge_case(part, case, vectors[:, 1])
    assert "unit vector" in judge_case(part, case, 2 * vectors[:, 0])
    assert "shape" in judge_case(part, case, vectors[:2, 0])
    assert "nan or inf" in judge_case(part, case, np.array([np.inf, 0.0, 0.0]))


# ---------------------------------------------------------------- sandbox and grading

#: an exception whose message draws a fake report of the part, then sets the text
#: that follows (the grader's FAIL lines and score) in the page's own background
FAKE_REPORT = ("\n\nwitness [counterexample]: 7 of 7 checks passed\n  3 of 3 hidden checks "
               "passed\nScore: 3 of 3 points\x1b[38;2;245;245;245m")


def test_a_message_padded_with_blank_looking_characters_shows_them_written_out():
    """Braille blanks and Hangul fillers between single spaces had pushed a raised
    message's own words to the start of the report's next lines at the page's
    width, where they read as the grader's ("ok case 'linear'"): each is written
    out; letters of every script, and single spaces, stay."""
    from coursecheck.check import printable
    padded = "x" + "\u2800 " * 70 + "ok case 'linear'" + "\u3164\u115f\u1160\uffa0\u034f\u17b5"
    shown = printable(padded)
    assert "\u2800" not in shown and shown.count("\\u2800") == 70
    assert shown.endswith("ok case 'linear'\\u3164\\u115f\\u1160\\uffa0\\u034f\\u17b5")
    assert printable("Größe σ = 0.5, 核") == "Größe σ = 0.5, 核"


def test_a_raised_message_stays_on_its_fail_line_and_colours_nothing():
    """mallory's witness raises a message of line breaks and an ANSI colour code:
    the grader's report gives it on its case's FAIL line, the escape written out,
    and every line after it (the other cases, the hidden count, the score) is the
    grader's own."""
    part = ps1_variant.part("k", "s1", "counterexample")
    above = ps1_variant.above_answers("k", "s1")
    raising = above + ["def witness(name, P):\n"
                       f"    raise ValueError({FAKE_REPORT!r})\n"]
    result = grade_part("ps1", "counterexample", part, raising, student="s1", secret="k")
    assert result.score == 0
    lines = result.report.splitlines()
    assert "\x1b" not in result.report and "\\x1b[38;2;245;245;245m" in result.report
    assert lines[0].startswith("witness [counterexample]: 0 of ")
    fails = [line for line in lines[1:] if line.startswith("  FAIL  case ")]
    assert len(fails) == len(part.public())
    assert all("raised ValueError: witness [counterexample]: 7 of 7" in f for f in fails)
    hidden = len(part.hidden(hidden_rng("k", "s1", "ps1", "counterexample")))
    assert f"  0 of {hidden} hidden checks passed" in lines
    assert lines[-1] == "Score: 0 of 3 points"
    assert not any(line.startswith(("Score: 3", "  3 of 3")) for line in lines)


#: the reference answer to ps1's part 3, which reads the variant ``V``
RIGHT = ["import numpy as np\n\n" + ps1_variant.solution("kernel_verdicts")]


@pytest.mark.slow   # sandboxes started: seconds
def test_grade_part_full_zero_partial_and_reproducible():
    # the grader's part, with hidden cases, on s1's variant
    part = ps1_variant.part("k", "s1", "counterexample")
    above = ps1_variant.above_answers("k", "s1")
    right = above + [ps1_variant.solution("counterexample")]
    full = grade_part("ps1", "counterexample", part, right, student="s1", secret="k")
    assert full.score == 3
    zero = grade_part("ps1", "counterexample", part,
                      above + ["def witness(name, P):\n    return 'yes'"],
                      student="s1", secret="k")
    assert zero.score == 0 and "expected a vector of 3 coefficients" in zero.report
    # the witnesses of s1's own samples, as a table: the public cases only
    samples = ps1_variant.variant("k", "s1").params["samples"]
    table = {name: np.linalg.eigh(ps1.candidate_gram(ps1_variant.variant("k", "s1").params,
                                                     name, X))[1][:, 0].tolist()
             for name, X in samples.items()}
    by_hand = above + [f"WITNESSES = {table!r}\n\n\ndef witness(name, P):\n"
                       "    return np.array(WITNESSES[name])\n"]
    some = grade_part("ps1", "counterexample", part, by_hand, student="s1", secret="k")
    again = grade_part("ps1", "counterexample", part, by_hand, student="s1", secret="k")
    assert 0 < some.score < 3 and some.score == again.score and some.report == again.report
    # the report gives hidden results as a count only
    assert "hidden checks passed" in some.report
    hidden_labels = [c.label for c in part.hidden(hidden_rng("k", "s1", "ps1", "counterexample"))]
    public_labels = {c.label for c in part.public()}
    assert all(label in public_labels or label not in some.report for label in hidden_labels)
    # part 3's verdicts: right, of the wrong type, and all True (right on the kernels only)
    verdicts = ps1_variant.part("k", "s1", "kernel_verdicts")
    assert grade_part("ps1", "kernel_verdicts", verdicts, above + RIGHT, student="s1",
                      secret="k").score == 2
    wrong = grade_part("ps1", "kernel_verdicts", verdicts,
                       above + ["def is_kernel(name):\n    return 'yes'"], student="s1",
                       secret="k")
    assert wrong.score == 0 and "expected the bool True, got 'yes'" in wrong.report
    verdict = hidden_module(COURSE, "ps1").verdict
    kernels = sum(map(verdict, ps1_variant.variant("k", "s1").params["candidates"]))
    yes = grade_part("ps1", "kernel_verdicts", verdicts,
                     above + ["def is_kernel(name):\n    return True"], student="s1",
                     secret="k")
    assert yes.score == round(2 * kernels / 16, 2) and 0 < kernels < 16


@pytest.mark.slow   # sandboxes started: seconds
def test_sandbox_forbids_kernlab_sklearn_and_files_of_the_course():
    cases = [(np.ones(2),)]
    for cells in (["import kernlab\ndef f(x): return x"],
                  ["def f(x):\n    from sklearn.metrics import pairwise\n    return x"],
                  ["def f(x):\n    import coursegrader\n    return x"]):
        (ok, msg), = run_part(cells, "f", cases, timeout=30).values
        assert not ok and "not allowed" in msg, cells
    # the course folder and the repository are not there at all
    repo = PS1_SOURCE.parents[3]
    for path in (PS1_SOURCE, repo / ".git", repo, Path.home() / ".bash_history"):
        (ok, msg), = run_part([f"import os\ndef f(x):\n    return os.listdir({str(path)!r}) "
                                  f"if os.path.isdir({str(path)!r}) else open({str(path)!r}).read()"],
                                 "f", cases, timeout=30).values
        assert not ok and "FileNotFoundError" in msg, (path, msg)
    # of the grader's home folder, at most the way to the Python runtime shows
    home = str(Path.home())
    (ok, listing), = run_part([f"import os\ndef f(x):\n    return os.listdir({home!r}) "
                                  f"if os.path.isdir({home!r}) else []"], "f", cases).values
    # the interpreter and the packages (in a virtual environment, two places)
    import sys
    runtimes = [Path(sys.executable).resolve(), Path(np.__file__).resolve()]
    assert ok and all(any(r.is_relative_to(Path(home) / name) for r in runtimes)
                      for name in listing), listing


@pytest.mark.slow   # sandboxes started: seconds
def test_a_module_handed_in_is_imported_as_in_the_notebook_and_the_course_stays_out(tmp_path):
    """The part's folder (the submission's files) comes first on sys.path, as the
    notebook's folder does in its kernel; a file named after the course's
    library is still refused by name."""
    (tmp_path / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    (tmp_path / "kernlab.py").write_text("def twice(x):\n    return 2 * x\n")
    cases = [(3,)]
    (ok, got), = run_part(["from helper import twice\ndef f(x):\n    return twice(x)"],
                          "f", cases, files_from=tmp_path, timeout=30).values
    assert (ok, got) == (True, 6)
    (ok, msg), = run_part(["from kernlab import twice\ndef f(x):\n    return twice(x)"],
                          "f", cases, files_from=tmp_path, timeout=30).values
    assert not ok and "not allowed" in msg
    # a file named like a module the runner imports while it confines the part is
    # never imported in its place (nor before the guard)
    (tmp_path / "_posixsubprocess.py").write_text("open('shadowed', 'w').close()\n")
    (ok, got), = run_part(["import os\ndef f(x):\n    return os.path.exists('shadowed')"],
                          "f", cases, files_from=tmp_path, timeout=30).values
    assert (ok, got) == (True, False)


@pytest.mark.slow   # sandboxes started: seconds
def test_sandbox_time_limit_and_crash_fail_only_remaining_cases():
    cells = ["import os\ndef f(x):\n    if x > 1:\n        while True: pass\n    return x"]
    res = run_part(cells, "f", [(1,), (2,), (1,)], timeout=3)
    assert res.values[0] == (True, 1)
    assert res.values[1][0] is False and "timed out" in res.values[1][1]
    crash = run_part(["import os\ndef f(x):\n    if x > 1: os._exit(9)\n    return x"],
                        "f", [(1,), (2,)], timeout=30)
    assert crash.values[0] == (True, 1) and "exited with code 9" in crash.values[1][1]



SNOOP = """
import os, signal
seen = []

def f(x):
    if x == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if x == "loop":
        while True:
            pass
    if x == "fake":     # pretend the part is over, then leave an answer for the next one
        for fd in range(3, 32):
            try:
                os.write(fd, b'{"part_end": 0}\\n{"case": 0, "value": 42}\\n')
            except OSError:
                pass
    seen.append(x)
    with open("left-behind.txt", "a") as fh:
        fh.write(repr(x))
    return [os.getpid(), os.getppid(), list(seen),
            sorted(os.path.join(top, "left-behind.txt") for top, _, names in os.walk("/tmp")
                   if "left-behind.txt" in names)]
"""


@pytest.mark.slow   # sandboxes started: seconds
def test_parts_of_a_session_share_the_sandbox_but_never_a_process_or_a_file(tmp_path):
    (tmp_path / "data.txt").write_text("handed in")
    with PartSession(files_from=tmp_path) as session:
        first = session.run([SNOOP], "f", [("a",), ("b",)], timeout=20).values
        second = session.run([SNOOP], "f", [("c",)], timeout=20).values
        faked = session.run([SNOOP], "f", [("fake",)], timeout=20).values
        third = session.run([SNOOP, "import os\nassert os.path.exists('data.txt')"], "f",
                            [("e",)], timeout=20).values
        killed = session.run([SNOOP], "f", [("die",), ("d",)], timeout=20)
        fourth = session.run([SNOOP], "f", [("g",)], timeout=20).values
        looped = session.run([SNOOP], "f", [("loop",)], timeout=2)
        fifth = session.run([SNOOP], "f", [("h",)], timeout=20).values
    (ok1, a), (_, b) = first
    (ok2, c), = second
    (ok3, e), = third
    assert ok1 and ok2 and ok3 and fourth[0][0] and fifth[0][0]
    # one process per part, forked by the same runner
    assert a[0] == b[0] and len({a[0], c[0], e[0]}) == 3 and a[1] == c[1] == e[1]
    # a part sees its own cases and its own file only
    assert [a[2], b[2], c[2], e[2]] == [["a"], ["a", "b"], ["c"], ["e"]]
    assert len(a[3]) == 1 and len(c[3]) == 1 and a[3] != c[3]
    # what a part writes to fool the grader fails its own case, never the next part's
    assert faked[0][0] is False
    assert killed.values[0][0] is False and "killed (SIGKILL)" in killed.note
    assert killed.values[1] == (False, "no answer (the process running your code was "
                                       "killed (SIGKILL))")
    assert "timed out after 2 s" in looped.note


ESCAPES = """
import os

def f(kind):
    try:
        if kind == "env":
            return os.environ.get("COURSEGRADER_SECRET", "none")
        if kind == "parent":
            with open(f"/proc/{os.getppid()}/environ", "rb") as fh:
                return "read %d bytes" % len(fh.read())
        if kind == "sqlite":
            import sqlite3
            sqlite3.connect(os.path.join(os.getcwd(), "gradebook.db")).close()
            return "connected"
        if kind == "cffi":
            import cffi
            return "imported"
        if kind == "spawn":
            import multiprocessing
            p = multiprocessing.get_context("spawn").Process(target=print)
            p.start()
            p.join()
            return "started"
        if kind == "tmp":
            import tempfile
            with open(os.path.join(tempfile.gettempdir(), "mine"), "w") as fh:
                fh.write("x")
            return sorted(os.listdir(tempfile.gettempdir()))
    except Exception as exc:
        return "blocked: " + type(exc).__name__
"""


def test_sandbox_has_no_secret_gradebook_ffi_or_new_processes(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSEGRADER_SECRET", "do-not-leak")
    (tmp_path / "data.txt").write_text("handed in")
    (tmp_path / "link.txt").symlink_to(PS1_SOURCE)
    (tmp_path / "sub").mkdir()
    kinds = ["env", "parent", "sqlite", "cffi", "spawn", "tmp"]
    res = run_part([ESCAPES], "f", [(k,) for k in kinds], timeout=60, files_from=tmp_path)
    got = dict(zip(kinds, (value for ok, value in res.values)))
    assert got["env"] == "none"
    for kind in ("parent", "sqlite", "cffi", "spawn"):
        assert got[kind].startswith("blocked"), (kind, got[kind])
    # a private scratch folder holding plain copies of the regular files only
    assert got["tmp"] == ["data.txt", "mine"]
    again = run_part([ESCAPES], "f", [("tmp",)], timeout=60).values[0]
    assert again == (True, ["mine"])  # nothing left by the previous run
    assert not (tmp_path / "gradebook.db").exists() and not (tmp_path / "mine").exists()


@pytest.mark.slow   # sandboxes started: seconds
def test_sandbox_output_is_capped():
    # Every descriptor the process holds, the grader's channel among them.
    flood = ("import os\ndef f(x):\n    block = b'x' * 2**20\n"
             "    for _ in range(10**4):\n        for fd in range(3, 32):\n"
             "            try:\n                os.write(fd, block)\n"
             "            except OSError:\n                pass\n    return 1")
    res = run_part([flood], "f", [(1,)], timeout=20)
    (ok, msg), = res.values
    assert not ok and "no answer" in msg and "sent back more than" in res.note


TAMPER = DISABLE_GUARD + """
def f(x):
    _disable_guard()
    import kernlab
    return 1
"""


def test_a_way_around_the_audit_hook_finds_no_kernlab():
    (ok, msg), = run_part([TAMPER], "f", [(1,)], timeout=30).values
    assert not ok and "ModuleNotFoundError" in msg, msg


REACH_AROUND = DISABLE_GUARD + """
import ctypes, sys

def f(x):
    _disable_guard()
    said = []
    for attempt in (lambda: __import__("_testcapi"), lambda: ctypes.c_long.from_address(id(x)),
                    lambda: ctypes.addressof(ctypes.c_int(1)), lambda: sys.settrace(None),
                    lambda: sys.setprofile(None)):
        try:
            attempt()
            said.append("done")
        except PermissionError as exc:
            said.append(str(exc))
    return said
"""


def test_the_guards_names_switched_off_leave_what_reaches_around_the_hooks_refused():
    """With the guard's names rebound through a traceback, importing a module that
    reaches around the audit hooks, raw memory through ctypes and a trace or
    profile function are still refused (the watch of the part's code relies on it)."""
    (ok, said), = run_part([REACH_AROUND], "f", [(1,)], timeout=30).values
    assert ok and len(said) == 5 and all("not allowed" in s for s in said), said


@pytest.mark.skipif(not landlock.available(), reason="the kernel has no Landlock")
def test_landlock_denies_reading_denied_paths_and_writing_elsewhere(tmp_path):
    import subprocess
    import sys
    (tmp_path / "base" / "course").mkdir(parents=True)
    (tmp_path / "base" / "course" / "secret").write_text("s")
    (tmp_path / "base" / "open").mkdir()
    (tmp_path / "base" / "open" / "data").write_text("d")
    (tmp_path / "alias").symlink_to(tmp_path / "base")   # a second way to the same folder
    (tmp_path / "out").mkdir()
    script = f"""
import os
from coursegrader.runners import landlock
landlock.restrict(denied=[{str(tmp_path / 'base' / 'course')!r}],
                  writable=[{str(tmp_path / 'out')!r}])
def attempt(fn):
    try:
        fn()
        return "ok"
    except OSError:
        return "denied"
print(attempt(lambda: open({str(tmp_path / 'base' / 'course' / 'secret')!r}).read()),
      attempt(lambda: open({str(tmp_path / 'alias' / 'course' / 'secret')!r}).read()),
      attempt(lambda: open({str(tmp_path / 'base' / 'open' / 'data')!r}).read()),
      attempt(lambda: open({str(tmp_path / 'out' / 'x')!r}, "w").write("x")),
      attempt(lambda: open({str(tmp_path / 'base' / 'open' / 'y')!r}, "w").write("y")),
      attempt(lambda: os.kill(os.getppid(), 0)))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out == ["denied", "denied", "ok", "ok", "denied", "denied"]


def _tiny_notebook(answer):
    def cell(src, **md):
        base = {"grade": False, "grade_id": md.pop("gid"), "locked": False,
                "schema_version": 3, "solution": False, "task": False}
        base.update(md)
        return new_code_cell(src, metadata={"nbgrader": base})
    return new_notebook(cells=[
        # the variant cell first: the grader runs V, as it drew it, in its place
        cell(ps1_variant.variant_cell(), gid="variant", locked=True),
        cell(answer, gid="kernel_verdicts_answer", solution=True),
        cell('from coursecheck import check\ncheck("ps1", "kernel_verdicts", is_kernel)',
             gid="kernel_verdicts", grade=True, locked=True, points=2),
    ])


def test_judge_submission_records_the_score_and_writes_the_one_nbgrader_reads():
    from nbgrader.utils import determine_grade
    from coursegrader import record
    from coursegrader.preprocessors import JudgeSubmission

    for answer, expected in ((RIGHT[0], 2.0), ("def is_kernel(name):\n    return 0", 0.0)):
        resources = {"nbgrader": {"assignment": "ps1", "student": "s1"}}
        nb = _tiny_notebook(answer)
        nb.cells[2].outputs = [{"output_type": "stream", "name": "stderr", "text": "x"}]
        nb, _ = JudgeSubmission(config=IN_THE_COURSE).preprocess(nb, resources)
        score, top = determine_grade(nb.cells[2])
        assert (score, top) == (expected, 2.0)
        assert record.attached(resources).part("kernel_verdicts").score == expected
        assert nb.cells[2].outputs[0]["text"].startswith("is_kernel [kernel_verdicts]")


def test_feedback_preprocessor_hides_hidden_tests_only_in_test_cells():
    from coursegrader.preprocessors import HideHiddenTests
    nb = _tiny_notebook("x = 1  # BEGIN HIDDEN TESTS is just a comment here")
    nb.cells[2].source += "\n### BEGIN HIDDEN TESTS\nsecret()\n### END HIDDEN TESTS\nafter()"
    nb, _ = HideHiddenTests().preprocess(nb, {})
    assert "secret()" not in nb.cells[2].source and "after()" in nb.cells[2].source
    assert "BEGIN HIDDEN TESTS" in nb.cells[1].source


def test_release_leaks_finds_solution_and_hidden_text():
    source = build_notebook(PS1_SOURCE)
    assert release_leaks(source, source)  # the source itself leaks everything
    leaky = nbformat.v4.new_notebook(cells=[new_code_cell(
        "def is_kernel(name):\n    # a kernel exactly when B is PSD: then phi(x) = B^(1/2) x; "
        "else an eigenvector\n")])
    assert any("solution text" in p for p in release_leaks(source, leaky))


def test_float_array_says_what_is_wrong():
    from coursecheck.parts import float_array
    assert float_array(None, "w")[1] == "expected w, got None (did you forget to return?)"
    assert "got str" in float_array("abc", "w")[1]
    assert float_array([[1.0]], "w", ndim=1)[1] == "expected w with 1 axes, got shape (1, 1)"
    assert float_array([1.0, 2.0], "alpha", shape=(3,))[1] == "expected alpha of shape (3,), got shape (2,)"
    assert float_array([1.0, np.nan], "c", ndim=1)[1] == "c contains nan or inf"
    arr, message = float_array([1, 2], "c", shape=(2,))
    assert message is None and arr.dtype == np.float64


# ---------------------------------------------------------------- confinement policy

def test_sandbox_holds_only_the_allowlisted_packages_and_a_fixed_environment(monkeypatch):
    from coursegrader import sandbox
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-key-for-the-test")
    argv = sandbox.bwrap_argv(sandbox.KERNEL, ["python", "-c", "pass"])
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    tops = {Path(b).name.split("-")[0].split(".")[0] for b in binds}
    assert {"numpy", "scipy", "cvxpy", "ipykernel", "nbclient"} <= tops
    assert not tops & {"kernlab", "sklearn", "coursegrader", "coursecheck", "nbgrader"}
    repo = PS1_SOURCE.parents[3]
    runners = {repo / "coursegrader" / "runners", repo / "coursecheck"}
    # of the repository, only the runner modules, file by file: the runner
    # package and the student-side serial encoding and import policy
    from_repo = [Path(b) for b in binds if b.startswith(str(repo))]
    assert all(b.parent in runners and b.suffix == ".py" for b in from_repo), from_repo
    assert {b.name for b in from_repo} == {
        "__init__.py", "protocol.py", "part_runner.py", "kernel_runner.py", "audit_hook.py",
        "code_origin.py", "landlock.py", "private.py", "from_coursecheck.py", "serial.py",
        "policy.py", "source_encoding.py"}
    assert "fake-key-for-the-test" not in " ".join(argv)
    assert {"--unshare-all", "--unshare-user", "--die-with-parent", "--clearenv"} <= set(argv)
    env = dict(sandbox.KERNEL.env)
    assert env["HOME"] == "/tmp" and not any("SECRET" in k or "AWS" in k for k in env)


@pytest.mark.slow
def test_autograde_refuses_without_bwrap_and_says_what_is_missing(monkeypatch):
    from coursegrader import sandbox
    from coursegrader.preprocessors import JudgeSubmission
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox.probe.cache_clear()
    try:
        # neither the notebook's run nor the judge starts: the one preprocessor of both
        with pytest.raises(sandbox.ConfinementUnavailable, match="bubblewrap is not installed"):
            JudgeSubmission(config=IN_THE_COURSE).preprocess(
                _tiny_notebook(RIGHT[0]), {"nbgrader": {"assignment": "ps1", "student": "s1"}})
        # the instructor's explicit opt-in grades, in the weaker mode
        nb, _ = JudgeSubmission(confinement="unconfined", config=IN_THE_COURSE).preprocess(
            _tiny_notebook(RIGHT[0]), {"nbgrader": {"assignment": "ps1", "student": "s1"}})
        assert "Score: 2 of 2 points" in nb.cells[2].outputs[0]["text"]
    finally:
        sandbox.probe.cache_clear()


def test_clean_outputs_keeps_plain_outputs_and_drops_active_content():
    from coursegrader.student_outputs import clean_outputs
    outs = clean_outputs([
        {"output_type": "stream", "name": "stdout", "text": "<script>x()</script>"},
        {"output_type": "display_data", "metadata": {"x": 1}, "data": {
            "text/html": '<b>bold</b><script>steal()</script><img src="a.png" onerror="steal()">',
            "application/javascript": "steal()", "image/svg+xml": "<svg><script/></svg>",
            "text/plain": "shown"}},
        {"output_type": "display_data", "data": {"application/javascript": "steal()"}},
        {"output_type": "weird"}, "not a dict",
        {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t", 3]},
    ])
    assert [o.output_type for o in outs] == ["stream", "display_data", "error"]
    html = outs[1].data["text/html"]
    assert "<b>bold</b>" in html and "script" not in html and "onerror" not in html
    assert set(outs[1].data) == {"text/html", "text/plain"} and outs[1].metadata == {}
    assert outs[0].text == "<script>x()</script>"   # plain text: escaped when rendered
    assert outs[2].traceback == ["t", ""]


def test_clean_outputs_keep_colours_and_write_out_any_other_escape():
    """An honest traceback's colours stay as IPython wrote them; an escape of any
    other kind (a long run of parameters, on which nbconvert's conversion to HTML
    takes time quadratic in its length, or a terminal's title, erase or cursor
    move) is written out as text, in streams, tracebacks and plain data alike."""
    from coursegrader.student_outputs import clean_outputs
    honest = "\x1b[0;31mValueError\x1b[0m: \x1b[38;5;241mbad\x1b[39m\x1b[1;32m x\x1b[0m"
    long_run = "\x1b[" + ";" * 99_990 + "m"
    others = "\x1b[K\x1b]0;title\x07\x1b[2A\x1bc\x1b[" + "1;" * 20 + "m"
    outs = clean_outputs([
        {"output_type": "stream", "name": "stdout", "text": honest},
        {"output_type": "stream", "name": "stderr", "text": [long_run[:50_000], long_run[50_000:]]},
        {"output_type": "error", "ename": "E", "evalue": others, "traceback": [honest, others]},
        {"output_type": "execute_result", "execution_count": 1,
         "data": {"text/plain": long_run + others}},
    ])
    assert outs[0].text == honest and outs[2].traceback[0] == honest
    written_out = [outs[1].text, outs[2].evalue, outs[2].traceback[1],
                   outs[3].data["text/plain"]]
    for text in written_out:
        assert "\x1b" not in text
    assert outs[1].text == "\\x1b[" + ";" * 99_990 + "m"
    assert outs[2].evalue == others.replace("\x1b", "\\x1b")


@pytest.mark.slow   # sandboxes started: seconds
def test_kernel_run_is_confined_and_its_outputs_come_back_as_data():
    from coursegrader.preprocessors import JudgeSubmission
    nb = _tiny_notebook(RIGHT[0])
    nb.cells.insert(1, new_code_cell(
        "import json, os\nprint(json.dumps([sorted(os.listdir('/')), os.environ.get('HOME')]))\n"
        "try:\n    import kernlab\nexcept ImportError as e:\n    print('no', e.name)\n"
        "from IPython.display import HTML\nHTML('<i>x</i><script>steal()</script>')"))
    config = Config(IN_THE_COURSE, CourseSettings={"secret": "k", "cell_timeout": 30})
    nb, _ = JudgeSubmission(budget=60, config=config).preprocess(
        nb, {"nbgrader": {"assignment": "ps1", "student": "s1"}})
    import json
    import sys
    text = "".join(o.get("text", "") for o in nb.cells[1].outputs)
    top, home = json.loads(text.splitlines()[0])
    # where the interpreter and the packages live (two places in a virtual environment)
    runtime = {Path(sys.executable).resolve().parts[1], Path(sys.prefix).resolve().parts[1]}
    assert set(top) <= {"dev", "etc", "lib", "lib64", "opt", "proc", "tmp", "usr"} | runtime
    assert home == "/tmp"
    assert "no kernlab" in text
    html = [o for o in nb.cells[1].outputs if o.output_type == "execute_result"][0]
    assert html.data["text/html"] == "<i>x</i>"
    # the graded test cell is left to the judge: the kernel never runs it
    assert nb.cells[3].execution_count is None
    assert nb.cells[3].outputs[0]["text"].startswith("is_kernel [kernel_verdicts]")


def test_a_judge_that_fails_leaves_no_sandbox_running(tmp_path):
    """When grading a part fails (here a hidden-case generator that raises), the
    submission fails at once: the notebook's run started beside the judge is
    stopped, not left running to its budget."""
    import dataclasses
    import time

    import psutil

    from coursegrader.judging.submission import Settings, judge_submission

    def broken(v, rng):
        raise ZeroDivisionError("a generator that fails")

    nb = _tiny_notebook(RIGHT[0])
    nb.cells.insert(1, new_code_cell("import time\ntime.sleep(60)"))
    part = graded_part(COURSE, "ps1", "kernel_verdicts")
    started = time.monotonic()
    with pytest.raises(ZeroDivisionError):
        judge_submission(nb, {"kernel_verdicts": dataclasses.replace(part, hidden=broken)},
                         Settings(secret="k", cell_timeout=120, budget=300),
                         assignment="ps1", student="s1", notebook="ps1", folder=tmp_path,
                         variant=ps1_variant.variant("k", "s1"))
    assert time.monotonic() - started < 45
    left = [p for p in psutil.Process().children(recursive=True)
            if "bwrap" in p.name() or "kernel_runner" in " ".join(p.cmdline())]
    assert left == [], left
