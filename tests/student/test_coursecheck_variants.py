"""The student's side of variants: whose variant a notebook shows, and its checks."""

import json
import os
import subprocess
import sys

import pytest

from coursecheck import CheckFailed, check, set_student, variant
from coursecheck.parts import get_parts
from coursecheck.variants import (CODE_PATTERN, bind, current_student, draw_variant,
                                  identity_file, student_variant, variant_seed)
from coursegrader.judging.variants import submission_variant, variant_code
from variant_problem import C_VALUES, install, install_plain

CODE = "0123-4567-89ab-cdef"


@pytest.fixture
def home(monkeypatch, tmp_path):
    """A fresh configuration folder, and no student set in the environment."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("COURSECHECK_STUDENT", raising=False)
    monkeypatch.delenv("COURSECHECK_VARIANT_CODE", raising=False)
    return tmp_path


def test_a_variant_is_a_function_of_course_problem_set_student_and_code(monkeypatch):
    ps = install(monkeypatch)
    a = draw_variant(ps, "alice", CODE)
    assert a == draw_variant(ps, "alice", CODE)          # deterministic
    assert a.label.startswith("ps90-") and a.params["c"] in C_VALUES
    others = [draw_variant(ps, "alice", "1111-4567-89ab-cdef"),
              draw_variant(ps, "bob", CODE),
              draw_variant(ps, "alice", CODE, course="another-course")]
    assert all(o.label != a.label for o in others)
    assert variant_seed("k", "ps1", "a", "b") != variant_seed("k", "ps1", "ab", "")
    plain = install_plain(monkeypatch)
    assert draw_variant(plain, "alice", CODE) is None    # a problem set without variants


def test_the_variant_space_holds_only_variants_whose_reasoning_holds(monkeypatch):
    ps = install(monkeypatch)
    from coursecheck.variants import variation
    seen = set()
    for i in range(400):
        v = draw_variant(ps, f"s{i}", CODE)
        assert variation(ps).check(v.params) is None, v
        seen.add(v.params["c"])
    assert seen == set(C_VALUES)     # the sample reaches every value of the range


def test_the_code_needs_the_course_secret_and_is_the_graders():
    code = variant_code("secret-1", "kernel-methods", "alice")
    assert CODE_PATTERN.match(code)
    assert code != variant_code("secret-2", "kernel-methods", "alice")
    assert code != variant_code("secret-1", "kernel-methods", "bob")
    with pytest.raises(ValueError, match="secret"):
        variant_code("", "kernel-methods", "alice")


def test_the_student_sets_their_id_once_and_the_notebook_says_whose_variant(
        home, monkeypatch, capsys):
    ps = install(monkeypatch)
    shown = variant(ps)                                   # nobody set: the example, said so
    out = capsys.readouterr().out
    assert "the example variant" in out and "python -m coursecheck.variants ID CODE" in out
    assert shown == draw_variant(ps, "example", "").params

    code = variant_code("course-secret", "kernel-methods", "alice")
    set_student("alice", code.upper())                   # as typed from a message
    assert current_student()[:2] == ("alice", code)
    assert oct(identity_file().stat().st_mode & 0o777) == "0o600"
    shown = variant(ps)
    out = capsys.readouterr().out
    graders = submission_variant("course-secret", ps, "alice")
    assert f"Variant for alice ({graders.label})" in out
    assert shown == graders.params                       # the student's own, offline


def test_the_hub_sets_the_student_for_its_server(home, monkeypatch, capsys):
    ps = install(monkeypatch)
    set_student("alice", CODE)
    monkeypatch.setenv("COURSECHECK_STUDENT", "bob")
    monkeypatch.setenv("COURSECHECK_VARIANT_CODE", "aaaa-bbbb-cccc-dddd")
    assert current_student() == ("bob", "aaaa-bbbb-cccc-dddd", "this server's settings")
    variant(ps)
    assert "Variant for bob" in capsys.readouterr().out


@pytest.mark.parametrize("student, code, what", [
    ("", CODE, "student"), ("example", CODE, "student"), ("a b", CODE, "student"),
    ("alice", "", "code"), ("alice", "0123456789abcdef", "code"),
    ("alice", "zzzz-zzzz-zzzz-zzzz", "code"),
])
def test_a_bad_id_or_code_is_refused_naming_it(home, student, code, what):
    with pytest.raises(ValueError, match=f"^{what} must be"):
        set_student(student, code)
    assert not identity_file().exists()


def test_a_broken_identity_file_says_how_to_set_it_again(home):
    identity_file().parent.mkdir(parents=True)
    identity_file().write_text("{not json")
    with pytest.raises(ValueError, match="python -m coursecheck.variants ID CODE"):
        current_student()


def test_the_command_line_sets_and_shows_the_student(home):
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config")}
    run = [sys.executable, "-m", "coursecheck.variants"]
    done = subprocess.run(run + ["alice", CODE], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "variants of alice" in done.stdout
    assert json.loads(identity_file().read_text()) == {"student": "alice", "code": CODE}
    shown = subprocess.run(run, env=env, capture_output=True, text=True)
    assert "Variants shown for alice" in shown.stdout
    bad = subprocess.run(run + ["alice", "nope"], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and "code must be" in bad.stderr


def test_a_public_check_runs_on_the_variant_the_notebook_shows(home, monkeypatch, capsys):
    ps = install(monkeypatch)
    set_student("alice", CODE)
    c = student_variant(ps).params["c"]
    check(ps, "scaled", lambda x: c * x)
    assert "On the variant of alice" in capsys.readouterr().out
    other = next(v for v in C_VALUES if v != c)
    with pytest.raises(CheckFailed):                    # worked with a classmate's c
        check(ps, "scaled", lambda x: other * x)
    check(ps, "doubled", lambda x: 2 * x)               # a part that does not vary


def test_bind_gives_the_part_for_one_variant(monkeypatch):
    ps = install(monkeypatch)
    part = get_parts(ps)["scaled"]
    bound = bind(part, {"c": 2.0, "x": [1.0, 2.0, 3.0]})
    assert not bound.varies and bound.public()[0].args[0].tolist() == [1.0, 2.0, 3.0]
    assert bound.reference(3.0) == 6.0
    assert bind(get_parts(ps)["doubled"], {"c": 9}) is get_parts(ps)["doubled"]


def test_a_part_that_varies_cannot_ship_one_set_of_answers():
    from coursecheck.parts import Part
    with pytest.raises(ValueError, match="varies"):
        Part(func="f", points=1, public=list, answers={}, varies=True)
    # a table per variant (a function of the variant) is for a part that varies only
    with pytest.raises(ValueError, match="varies"):
        Part(func="f", points=1, public=list, answers=lambda v: {})
    tables = {0.5: {"your x": 1.0}, 2.0: {"your x": 4.0}}
    part = Part(func="f", points=1, public=lambda v: [], answers=lambda v: tables[v["c"]],
                varies=True)
    assert bind(part, {"c": 2.0}).answers == {"your x": 4.0}
    assert not bind(part, {"c": 2.0}).varies


def test_a_problem_set_without_variants_says_so(home, monkeypatch):
    with pytest.raises(ValueError, match="has no variants"):
        variant(install_plain(monkeypatch))
