"""Expressions that hand back one of their parts are read as that part, by running
them on stand-ins: nothing of the submission runs, and nothing runs for long."""

import ast

import pytest

from coursegrader.similarity.round_trips import inline_round_trips


def read(source):
    module, _ = inline_round_trips(ast.parse(source))
    return ast.unparse(module)


@pytest.mark.parametrize("source, reads", [
    ("y = next(iter((np.dot(a, b),)))", "y = np.dot(a, b)"),
    ("y = [x for x in (a + b,)][0]", "y = a + b"),
    ("y = f(next(iter((x,))), [z].pop())", "y = f(x, z)"),
    ("y = next(iter(([w].pop(),)))", "y = w"),
    ("y = {'k': (lambda: g(x))}['k']()", "y = g(x)"),
    ("y = (a, n)[1]", "y = n"),
    ("y = next(iter((n,)), 0) + 1", "y = n + 1"),
    ("y = (min,)[0](a, b)", "y = min(a, b)"),
    ("y = {n: m}.get(n)", "y = m"),                       # a stand-in found as itself
    ("y = (a, n)[hash(0) + bool() + len(range(1))]", "y = n"),
])
def test_a_part_handed_back_is_read_as_the_part(source, reads):
    assert read(source) == reads


@pytest.mark.parametrize("source", [
    "y = x[0]",                                  # what x holds is the submission's
    "y = next(iter(xs))",
    "y = (f(), n)[1]",                           # f runs
    "y = [x.y for x in xs][0]",                  # the part reads the loop's name
    "y = (n, 0)[k]",                             # the index is the submission's
    "y = sorted((n, m))[0]",                     # compares what it is given
    "y = (lambda v: -v)(n)",
    "y = [(y := n)][0]",                         # moving it would move a binding
    "y = {0: a}.get(k, n)",                      # a when k is 0
    "y = (a, n)[hash(k) % 2]",                   # a stand-in's hash is its address
    "y = (a, n)[a is b]",
    "y = (n if k else m)",
])
def test_what_does_more_than_hand_back_a_part_is_left(source):
    assert read(source) == ast.unparse(ast.parse(source))


def test_a_name_the_student_binds_is_not_a_builtin():
    assert read("iter = reversed\ny = next(iter((n,)))") == \
        "iter = reversed\ny = next(iter((n,)))"
    assert read("from helpers import *\ny = next(iter((n,)))") == \
        "from helpers import *\ny = next(iter((n,)))"


def test_the_parts_never_run(tmp_path):
    """A part is set aside, not evaluated: reading the code writes no file."""
    target = tmp_path / "written"
    source = f"y = next(iter((open({str(target)!r}, 'w').write('x'),)))"
    assert read(source) == f"y = open({str(target)!r}, 'w').write('x')"
    assert not target.exists()


@pytest.mark.parametrize("source", [
    "y = (lambda f: f(f))(lambda f: f(f))",                          # calls itself
    "y = (lambda f, d: [f(f, d[1:]) for _ in d])(lambda f, d: 0, 'x' * 64)",
    "y = next(iter(lambda: 0, 1))",                                   # never stops
    "y = list(iter(int, 1))[0]",
    "y = [0 for a in 'abcdefgh' for b in 'abcdefgh' for c in 'abcdefgh' "
    "for d in 'abcdefgh' for e in 'abcdefgh' for f in 'abcdefgh'][0]",
    "y = list(map(lambda x: x, [n]))[0]",
    "y = sorted([n], key=lambda v: v)[0]",
    "y = [n].__class__.__subclasses__()[0]",
    "y = {0: n}['k' * 100]",
    "y = (lambda d: d[0](d))({0: lambda d: d[0](d)})",
])
def test_what_could_run_long_or_reach_further_is_not_run(source):
    """Each is left as written, at once (the suite's timeout bounds it)."""
    assert read(source) == ast.unparse(ast.parse(source))
