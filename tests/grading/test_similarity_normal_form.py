"""The similarity check's normal form: what a copier changes is gone, what code does stays.

Each disguise below is one a student uses to hide a copy; the disguised code
must have exactly the normal form of the original. Code that does something
else must not.
"""

import ast
import itertools
import os
import re
import subprocess
import sys

import pytest

from coursegrader.similarity.bookkeeping import bookkeeping_names
from coursegrader.similarity.code import lexical_form, normal_code
from coursegrader.similarity.letters import skeleton
from coursegrader.similarity.rendered import styled_markup
from coursegrader.similarity.text import (found_in, marked_words, mixed_script_words,
                                          shingles, skipping_shingles, words)
from grading.ps1_copies import (CODE_PARTS, ONE_LINE_PADS, WRITTEN_PARTS, into_temporaries, reordered,
                                locals_on_a_namespace, operators_as_calls,
                                picked_from_literals)
from grading.ps1_honest import HONEST
from grading.ps1_styles import STYLES

ORIGINAL = '''\
def feature_map(X, p):
    """Rows of features."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    out = []
    for row in X:
        out.append([row[i] ** p for i in range(d)])
    total = 0
    for k in range(n):
        total += k
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total
'''

DISGUISES = {
    "renamed, comments and layout": '''\
def feature_map(data, power):
    # build features
    data = np.asarray(data,
                      dtype=float)
    rows, dims = data.shape


    result = []
    for r in data:
        result.append([r[j] ** power for j in range(dims)])   # one row
    acc = 0
    for t in range(rows):
        acc += t
    if acc > rows:
        raise ValueError("something else entirely")
    return np.array(result) * acc
''',
    "a no-op after each line": '''\
def feature_map(X, p):
    pass
    X = np.asarray(X, dtype=float)
    X = X
    n, d = X.shape
    ...
    out = []
    n
    for row in X:
        out.append([row[i] ** p for i in range(d)])
        "just checking"
    total = 0
    total += 0
    for k in range(n):
        total += k
        total *= 1
    print(total)
    assert True
    if total > n:
        raise ValueError(f"bad input {X.shape}")
        total = 5
    unused = n * 2
    junk = unused + 1
    if False:
        out = None
    while False:
        pass
    return np.array(out) * total
    print("never")
''',
    "loops rewritten": '''\
def feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    out = []
    j = 0
    while j < len(X):
        row = X[j]
        vals = []
        for i in range(d):
            vals.append(row[i] ** p)
        out.append(vals)
        j += 1
    total = 0
    k = 0
    while k <= n - 1:
        total = total + k
        k = k + 1
    if n < total:
        raise ValueError("bad")
    return np.array(out) * total
''',
    "arithmetic that does nothing": '''\
def feature_map(X, p):
    X = np.asarray(X, dtype=float) * 1
    n, d = X.shape
    out = []
    for row in X:
        out.append([(row[i] + 0) ** p for i in range(d)])
    total = 0 + 0
    for k in range(n):
        total += k * 1
        total = total - 0
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return 1 * np.array(out) * total
''',
    "a counter moved on after each line, read by an always-true test": '''\
def feature_map(X, p):
    _k = 0
    X = np.asarray(X, dtype=float)
    _k = _k + 1
    n, d = X.shape
    _k += 2
    out = []
    _k = _k + 3
    for row in X:
        out.append([row[i] ** p for i in range(d)])
        _k = _k + len(out)
    total = 0
    if _k > -1:
        for k in range(n):
            total += k
            _k = _k + 1
    else:
        raise RuntimeError("the count went wrong")
    if _k < 0:
        raise RuntimeError("never")
    else:
        pass
    assert _k >= 0, "never"
    if total > n:
        _k = _k + 1
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total if _k > -1 else None
''',
    "a list grown after each line, its length tested": '''\
_seen = []
_ticks = [0]

def feature_map(X, p):
    X = np.asarray(X, dtype=float)
    _seen.append(1)
    n, d = X.shape
    _seen.append(_ticks[0])
    _ticks[0] = len(_seen) + 1
    out = []
    _seen.append(3)
    for row in X:
        out.append([row[i] ** p for i in range(d)])
        _seen.append(row[0])
    total = 0
    for k in range(n):
        total += k
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    assert len(_seen) + _ticks[0] > 0
    return None if len(_seen) < 0 else np.array(out) * total
''',
    "counters bound first by a tuple, a walrus, a loop and a parameter": '''\
import itertools
_ticks = itertools.count()
_n = 0

def _tick():
    global _n
    _n = _n + 1

def feature_map(X, p, _d=0):
    _a, _b = 0, 0
    (_c := 0)
    for _e, _f in [(0, 0)]:
        pass
    X = np.asarray(X, dtype=float)
    _a, _z = _a + 1, _a
    n, d = X.shape
    (_c := _c + 2)
    out = []
    for _b in (_b + 1,):
        pass
    for row in X:
        out.append([row[i] ** p for i in range(d)])
        _d += 1
        next(_ticks)
    total = 0
    _e = _e + _f
    for k in range(n):
        total += k
        _tick()
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total if _a + _b + _c + _d + _e > -1 and _n >= 0 else None
''',
    "debugging left in, declarations, library calls of constants and unused imports "
    "after each line": '''\
import os
import gc
import contextlib
_quiet = contextlib.nullcontext()
VERBOSE = bool(os.environ.get("VERBOSE"))
_seen = []

def feature_map(X, p):
    import math as _m
    X = np.asarray(X, dtype=float)
    gc.collect()
    np.seterr(all="ignore")
    assert X is not None
    with _quiet:
        pass
    for _ in range(0):
        pass
    try:
        pass
    except KeyError:
        pass
    match X:
        case _:
            pass
    if VERBOSE:
        print("X", X)
    global _g
    n, d = X.shape
    if VERBOSE:
        _seen.append(("n", n))
    import math as _m
    out = []
    _z, _w = 0, 0
    for row in X:
        out.append([row[i] ** p for i in range(d)])
        if VERBOSE:
            print(row)
    total = 0
    for k in range(n):
        total += k
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total
''',
    "every statement wrapped in a block that runs it once": '''\
def feature_map(X, p):
    try:
        X = np.asarray(X, dtype=float)
    except ZeroDivisionError:
        pass
    while True:
        n, d = X.shape
        break
    for _r in (0,):
        out = []
    match 0:
        case _:
            for row in X:
                with np.errstate():
                    out.append([row[i] ** p for i in range(d)])
    for _s in range(1):
        total = 0
    for k in range(n):
        try:
            total += k
        except ValueError:
            return None
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total
''',
    "dead helpers": '''\
def _helper_never_called(a):
    return a * 2

class Unused:
    def method(self):
        return 1

def feature_map(X, p):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    out = []
    for row in X:
        out.append([row[i] ** p for i in range(d)])
    total = 0
    for k in range(n):
        total += k
    if total > n:
        raise ValueError(f"bad input {X.shape}")
    return np.array(out) * total
''',
}



class _Through(ast.NodeTransformer):
    """Every name read passed through ``call`` (a function's name, or a lambda's text)."""

    def __init__(self, call):
        self.call = call

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            return ast.Call(ast.parse(self.call, mode="eval").body, [node], [])
        return node


def _through(identity, call="_i"):
    tree = ast.fix_missing_locations(_Through(call).visit(ast.parse(ORIGINAL)))
    return identity + ast.unparse(tree) + "\n"


#: ``def _i(v): return v`` and the variants a student tries next
IDENTITIES = {
    "a def": "def _i(v):\n    return v\n\n",
    "a def with a docstring and more parameters": (
        'def _i(v, scale=1, *rest, **options):\n    """Pass through."""\n    return v\n\n'),
    "a def of *args": "def _i(*a):\n    return a[0]\n\n",
    "a lambda": "_i = lambda x: x\n",
    "a lambda given another name": "_f = lambda x: x\n_i = _f\n",
    "a decorator": "def _i(v):\n    return v\n\n@_i\n",
    "a def returning a conditional of a constant test": (
        "def _i(v):\n    return v if True else 0\n\n"),
    "a def written twice": "def _i(v):\n    return v\n\n\ndef _i(v):\n    return v\n\n",
    "a def returning its argument popped from a list": "def _i(v):\n    return [v].pop()\n\n",
    "a def returning a copy of its argument's name": "def _i(v):\n    w = v\n    return w\n\n",
    "a def unpacking its argument from a tuple": "def _i(v):\n    (w,) = (v,)\n    return w\n\n",
    "a def returning from a loop over its argument alone": (
        "def _i(v):\n    for w in (v,):\n        return w\n\n"),
    "a def returning in a try that raises again": (
        "def _i(v):\n    try:\n        return v\n    except Exception:\n        raise\n\n"),
    "a chain of twelve, each defined through the one before": (
        "def _f0(v):\n    return v\n\n"
        + "".join(f"_f{k} = _f{k - 1}((_f{k - 1},))[0]\n" for k in range(1, 13))
        + "_i = _f12\n"),
}
DISGUISES.update({f"every name read through an identity function, {how}": _through(identity)
                  for how, identity in IDENTITIES.items()})
DISGUISES["every name read through a lambda called where it stands"] = _through(
    "", "(lambda x: x)")
#: a dead function too deep for Python's default recursion limit in front
DISGUISES["a dead sum of 600 terms and 400 elifs in front"] = (
    "def _ones():\n    return " + " + ".join(["1"] * 600) + "\n\n"
    + "def _tmp(P):\n    if P == 0:\n        return 0\n"
    + "".join(f"    elif P == {i}:\n        return {i}\n" for i in range(1, 400))
    + "\n" + ORIGINAL)



class _Picked(ast.NodeTransformer):
    """Every name read written as ``literal`` (``({},)[0]``: an element picked out again)."""

    def __init__(self, literal):
        self.literal = literal

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            return ast.parse(self.literal.format(node.id), mode="eval").body
        return node


def _picked(literal):
    return ast.unparse(ast.fix_missing_locations(_Picked(literal).visit(ast.parse(ORIGINAL))))


#: ``(n,)[0]`` and the variants a student tries next: each is ``n``
PICKS = {
    "a one-element tuple": "({},)[0]",
    "a one-element list": "[{}][0]",
    "the last of a pair": "[0, {}][1]",
    "a negative index": "({},)[-1]",
    "True as the index": "(0, {})[True]",
    "a dict of a number": "{{0: {}}}[0]",
    "a dict of a string": "{{'k': {}}}['k']",
    "a repeated key, the last value": "{{0: None, 0: {}}}[0]",
    "a lambda of no parameters called where it stands": "(lambda: {})()",
    "a one-element comprehension": "[{} for _ in 'x'][0]",
    "a conditional of a constant test": "({} if 1 else 0)",
    "or after a constant that decides nothing": "(0 or {})",
    "nested: a lambda picked from a dict, called": "{{0: (lambda v: v)}}[0]({})",
    "the second of a comprehension of two elements": "[{} for _ in 'xy'][1]",
    # a round trip through the builtins that build and take apart containers
    "next of an iterator": "next(iter(({},)))",
    "popped from a list": "[{}].pop()",
    "a keyword of dict": "dict(k={})['k']",
    "a lambda's default": "(lambda _x={}: _x)()",
    "the last of reversed, from a set": "next(reversed(list({{{}}})))",
    "unpacked and sliced": "[*[0, {}]][1:][0]",
    "get from a dict of pairs": "dict([('k', {})]).get('k')",
    "a generator's first": "next({} for _ in 'x')",
    "the only element's minimum": "min([{}])",
    "the second of enumerate's first": "next(enumerate([{}]))[1]",
    "a lambda of *args": "(lambda *a: a[-1])({})",
    # what picks it worked out from constants, and a name nobody reads
    "arithmetic in the index": "({}, 0)[0 * 1]",
    "the length of an empty tuple as the index": "({},)[len(())]",
    "a conditional of a test of constants": "({} if [0] else None)",
    "a comparison of constants as the index": "(0, {})[2 > 1]",
    "a walrus whose name nobody reads": "(_w := {})",
    # more constants
    "bool() as the index": "({},)[bool()]",
    "__debug__ in the index": "({}, 0)[__debug__ - 1]",
    "the hash of 0 as the index": "({},)[hash(0)]",
    "the real part of 0 as the index": "({}, 0)[(0).real]",
    "a comprehension over range(1)": "[{} for _ in range(1)][0]",
    "the length of an empty range": "({},)[len(range(0))]",
    "whether a name is not itself": "({0}, 0)[{0} is not {0}]",
    # other builtins of constants, a library's constant, picks that
    # cannot differ
    "isinstance of a constant as the index": "({}, 0)[isinstance(0, str)]",
    "ord of chr as the index": "({},)[ord(chr(0))]",
    "callable of a constant as the index": "({}, 0)[callable(0)]",
    "the sum of nothing as the index": "({},)[sum(())]",
    "both branches the same": "({0} if k else {0})",
    "both elements the same, picked by the length of something": "({0}, {0})[len(k) % 2]",
}
DISGUISES.update({f"every name read picked from a literal, {how}": _picked(literal)
                  for how, literal in PICKS.items()})
DISGUISES["every name read through next of a generator that yields it"] = (
    "def _g(v):\n    yield v\n\n\n" + _picked("next(_g({}))"))



def _after_each_line(pad, header=""):
    """ORIGINAL with ``pad`` (``{}``: the name the line binds, or ``X``) after each of
    its simple statements, as a copier pads a copy one line at a time."""
    out = []
    for line in ORIGINAL.splitlines():
        out.append(line)
        body = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        if body.startswith('"""') or not indent or body.endswith(":") \
                or body.startswith(("return", "raise")):
            continue
        name = re.match(r"\w+", body).group() if "=" in body else "X"
        out += [indent + p for p in pad.format(name).splitlines()]
    return header + "\n".join(out) + "\n"


DISGUISES.update({f"one line after each: {how}": _after_each_line(pad, header)
                  for how, (pad, header) in ONE_LINE_PADS.items()})

OTHER = {
    "every name read picked from a literal beside a call, which runs": _picked(
        "(print(), {})[1]"),
    "every name read picked by an index that is a name": _picked("({}, 0)[k]"),
    "every name read taken from a literal beside a call, which runs": _picked(
        "next(iter([print(), {}][1:]))"),
    "every name read given back by a lambda that changes it": _picked("(lambda _x={}: -_x)()"),
    "every name read looked up under a key it is not under": _picked("dict(k={}).get('j')"),
    "every name read as the smaller of two": _picked("min(({}, 0))"),
    "every name read through a student's own next": (
        "next = lambda it: 0\n" + _picked("next(iter(({},)))")),
    "every name read picked by a test of the submission's own": _picked("({} if k else 0)"),
    "every name read picked by its own hash": _picked("({0}, 0)[hash({0}) % 2]"),
    "every name read picked by whether it is an int": _picked("(0, {0})[isinstance({0}, int)]"),
    "every name read picked by the length of its text": _picked("(0, {0})[len(str({0})) % 2]"),
    "every name read picked by a comparison of the submission's own": _picked(
        "(0, {})[p == q]"),
    "every name read through next after a star import of a module handed in": (
        "from helper import *\n" + _picked("next(iter(({},)))")),
    "every name read through a function that is not the identity": _through(
        "def _i(v):\n    return -v\n\n"),
    "every name read through id, which returns a number": _through("_i = id\n"),
    "the diagonal filled in place": ORIGINAL.replace(
        "    n, d = X.shape\n", "    n, d = X.shape\n    np.fill_diagonal(X, 0)\n"),
    "rows shuffled in place": "import random\n" + ORIGINAL.replace(
        "    n, d = X.shape\n", "    n, d = X.shape\n    random.shuffle(X)\n"),
    "an element set by the operator module": "import operator\n" + ORIGINAL.replace(
        "    n, d = X.shape\n", "    n, d = X.shape\n    operator.setitem(X, 0, 1)\n"),
    "an element set by a special method": ORIGINAL.replace(
        "    n, d = X.shape\n", "    n, d = X.shape\n    np.ndarray.__setitem__(X, 0, 1)\n"),
    "a sum written into its operand": ORIGINAL.replace(
        "    n, d = X.shape\n", "    n, d = X.shape\n    np.add(X, 1, out=X)\n"),
    "an iterator moved on": ORIGINAL.replace(
        "    for row in X:\n", "    rows = iter(X)\n    next(rows)\n    for row in rows:\n"),
    "a value put on a module and read back": ORIGINAL.replace(
        "    n, d = X.shape\n", "    np._kept = X\n    n, d = np._kept.shape\n"),
    "another computation": ORIGINAL.replace("row[i] ** p", "row[i] * p"),
    "another library call": ORIGINAL.replace("np.array(out)", "np.vstack(out)"),
    "another control flow": ORIGINAL.replace("if total > n:", "if total > n + 1:"),
    "a counter the result reads": ORIGINAL.replace(
        "    out = []\n", "    out = []\n    seen = 0\n").replace(
        "        out.append(", "        seen += 1\n        out.append(").replace(
        "return np.array(out) * total", "return np.array(out) * total / seen"),
    "a count of iterations that ends the loop early": ORIGINAL.replace(
        "    for k in range(n):\n        total += k\n",
        "    it = 0\n    for k in range(n):\n        it += 1\n        if it > 50:\n"
        "            break\n        total += k\n"),
}


def normal(source):
    """The normal form of ``source`` as the check reads it after a setup cell that
    imported ``np``."""
    return normal_code([ast.parse(source)], keep=frozenset({"feature_map"}),
                       imports=frozenset({"np"}))


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_a_disguise_leaves_the_normal_form_as_it_was(disguise):
    assert normal(DISGUISES[disguise]) == normal(ORIGINAL)


@pytest.mark.parametrize("change", sorted(OTHER))
def test_code_that_does_something_else_reads_differently(change):
    assert normal(OTHER[change]) != normal(ORIGINAL)


def test_the_normal_form_keeps_what_the_code_calls_and_hides_what_the_student_named():
    form = normal(ORIGINAL)
    assert "np.asarray" in form and "range(" in form and "feature_map" in form
    for name in ("out", "total", "row", "X"):
        assert f"{name}=" not in form and f"({name}" not in form, name
    assert "bad input" not in form and "'S'" in form
    assert "Rows of features" not in form


def test_a_function_only_a_dropped_call_passes_on_stays():
    """``list(map(step, xs))`` is a call whose result nobody keeps, read as nothing,
    but what ``step`` does is the work: it stays."""
    source = ("def feature_map(X, p):\n    out = []\n\n    def step(row):\n"
              "        out.append(row ** p - 7)\n\n    list(map(step, X))\n"
              "    return out\n")
    form = normal(source)
    assert "v**v" in form and "-7" in form and ".append(" in form, form
    through_lambda = source.replace("    def step(row):\n        out.append(row ** p - 7)\n",
                                    "    step = lambda row: out.append(row ** p - 7)\n")
    assert "v**v" in normal(through_lambda) and "-7" in normal(through_lambda)
    # the work in a method that asking for an object's text runs
    through_str = ("OUT = []\n\n\nclass Steps:\n    def __init__(self, X, p):\n"
                   "        self.X, self.p = X, p\n\n    def __str__(self):\n"
                   "        OUT.extend(r ** self.p - 7 for r in self.X)\n"
                   "        return 'done'\n\n\ndef feature_map(X, p):\n"
                   "    steps = Steps(X, p)\n    str(steps)\n    return OUT\n")
    assert "-7" in normal(through_str) and "v=v(v,v)" in normal(through_str), \
        normal(through_str)


STRAIGHT = """\
def feature_map(X):
    a = np.asarray(X, dtype=float)
    b = a * 2
    c = np.sqrt(b)
    d = c.sum(axis=0)
    return d / len(X)
"""


def test_a_check_after_every_line_is_read_first_and_a_check_now_and_then_where_it_is():
    """A copy with ``if t is ...: raise ...`` after each line reads as the original
    below its checks, each still read; honest code's checks on the way stay put."""
    check = "    if {} is ...:\n        raise ValueError('bad input')\n"
    lines = STRAIGHT.splitlines(keepends=True)
    padded = lines[0] + "".join(line + check.format(line.split("=")[0].strip())
                                for line in lines[1:-1]) + lines[-1]
    original = normal(STRAIGHT).splitlines()
    assert normal(padded).splitlines() == (
        original[:1] + [" if v is...:", "  raise ValueError('S')"] * 4 + original[1:])
    now_and_then = STRAIGHT.replace("    c = ", check.format("b") + "    c = ")
    form = normal(now_and_then).splitlines()
    assert form[1:4] == [" v=np.asarray(v,dtype=float)", " v=v*2", " if v is...:"], form


def test_a_class_that_is_used_keeps_every_method_and_one_nobody_uses_goes():
    """A copy with its work moved into methods (called by attribute, by ``()``, by
    Python at construction) is read with that work; a class nobody uses is not."""
    source = ("class Steps:\n    def __init__(self, X):\n        self.X = X\n\n"
              "    def compute(self, p):\n        return [r ** p - 7 for r in self.X]\n\n"
              "    def __call__(self, p):\n        return self.compute(p) * 3\n\n\n"
              "class Unused:\n    def run(self):\n        return 41\n\n\n"
              "def feature_map(X, p):\n    return Steps(X)(p)\n")
    form = normal(source)
    assert "v=v**v" in form and "v=v-7" in form and "v*3" in form, form
    assert "41" not in form and form.count("class ") == 1, form


@pytest.mark.parametrize("call", ['globals()["step"](X, p)', 'vars()["step"](X, p)',
                                  'getattr(sys.modules[__name__], "st" + "ep")(X, p)'])
def test_a_function_called_by_its_name_as_text_is_read(call):
    """A copy whose work is in functions it calls only by their names as text is
    read with that work."""
    source = ("import sys\n\n\ndef step(X, p):\n    return [r ** p - 7 for r in X]\n\n\n"
              f"def feature_map(X, p):\n    return {call}\n")
    assert "v=v-7" in normal(source), normal(source)
    assert "v=v-7" not in normal(source.replace(call, "0"))


def test_a_function_a_decorator_registers_is_read():
    """``@STEPS.append`` registers the function, which is then called from the
    list: what it does stays."""
    source = ("STEPS = []\n\n\n@STEPS.append\ndef step(X, p):\n"
              "    return [r ** p - 7 for r in X]\n\n\n"
              "def feature_map(X, p):\n    return STEPS[0](X, p)\n")
    assert "v=v-7" in normal(source), normal(source)


def test_a_call_whose_result_nobody_reads_still_does_its_work():
    """``_ = fill(F, X, p)`` with nobody reading ``_``: what ``fill`` does stays
    (read where it is called, or as the call where ``fill`` is called twice);
    ``_z = np.sqrt(F)`` with nobody reading ``_z`` goes."""
    source = ("def fill(F, X, p):\n    for i, r in enumerate(X):\n        F[i] = r ** p - 7\n\n\n"
              "def feature_map(X, p):\n    F = np.zeros_like(X)\n    _ = fill(F, X, p)\n"
              "    _z = np.sqrt(F)\n    return F\n")
    form = normal(source)
    assert "v[v]=v-7" in form and form.count("def ") == 1 and "sqrt" not in form, form
    twice = normal(source.replace("    _z = ", "    _ = fill(F, X, p)\n    _z = "))
    assert "v[v]=v-7" in twice and twice.count("v(v,v,v)") == 2 and "sqrt" not in twice, twice


def test_work_done_where_a_definition_or_a_text_is_made_is_read():
    """What an f-string's field, a dead function's default or a class body calls
    runs, so it is read; an f-string of names alone is text."""
    source = ("def feature_map(X, p):\n    out = []\n    f\"{out.append(X ** p - 7)}\"\n"
              "    def _d(_a=out.append(X * 3)):\n        pass\n\n"
              "    class _C:\n        _ = out.append(X + 11)\n    return out\n")
    form = normal(source)
    assert "v-7" in form and "v*3" in form and "v+11" in form, form
    assert "'S'" in normal("def feature_map(X, p):\n    return f\"{X} to the {p}\"\n")


def test_a_function_made_for_one_value_reads_as_the_value():
    """``def _s1(): return e`` then ``t = _s1()``, and ``@_call`` over ``def t():
    return e``: each is ``t = e``; a function called twice, or with an argument,
    stays."""
    plain = "def feature_map(X, p):\n    A = X ** p\n    B = A - 7\n    return B\n"
    thunks = ("def _call(f):\n    return f()\n\n\ndef feature_map(X, p):\n"
              "    def _s1():\n        return X ** p\n    A = _s1()\n\n"
              "    @_call\n    def B():\n        return A - 7\n    return B\n")
    assert normal(thunks) == normal(plain)
    twice = thunks.replace("    A = _s1()\n", "    A = _s1() + _s1()\n")
    assert "def " in normal(twice).split("\n", 1)[1]


def test_cells_are_one_program():
    """A helper in one cell used by a function in another is not dead code."""
    cells = [ast.parse("def helper(a):\n    return a + 1\n"),
             ast.parse("def feature_map(X, p):\n    return helper(X) * p\n")]
    assert "v+1" in normal_code(cells, keep=frozenset({"feature_map"}))


def test_code_that_does_not_parse_is_read_token_by_token():
    form = lexical_form("def f(x:\n    return np.linalg.norm(x)  # comment\n")
    assert "np" not in form and "norm" not in form        # names set aside
    assert "return" in form and "comment" not in form


def test_an_identity_bound_twice_or_by_the_release_is_not_seen_through():
    """Which of two bindings a call reaches is a matter of scope and order: left as it is."""
    twice = _through("def _i(v):\n    return v\n\n") + "\n_i = abs\n"
    assert "v=v(np)\n" in normal(twice)    # the call stays, on a line of its own
    released = "def feature_map(v):\n    return v\n\nnp.save(feature_map(np))\n"
    assert "feature_map(np)" in normal(released)


def test_written_answers_are_read_as_words():
    assert words(r"**B_diag** is a kernel: $\phi(x) = (x_1, \sqrt{5}\, x_2)$.") == [
        "b", "diag", "is", "a", "kernel", "phi", "x", "1", "sqrt", "5", "x", "2"]
    assert words(r"$\left( a \right)$ \mathrm{tr}") == ["a", "tr"]


SENTENCE = "Candidate K3 grows with the distance, so the Gram matrix is not PSD."


@pytest.mark.parametrize("how, written", [
    ("Cyrillic and Greek look-alikes", SENTENCE.translate(str.maketrans(
        {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
         "x": "\u0445", "i": "\u0456", "K": "\u039a", "S": "\u0405", "G": "\u050c"}))),
    ("zero-width spaces and joiners inside words", SENTENCE.replace("nd", "n\u200bd")
     .replace("ra", "r\u200da").replace("is", "i\u2060s")),
    ("soft hyphens, bidirectional controls, a combining grapheme joiner",
     SENTENCE.replace("date", "da\u00adte").replace("Gram", "\u202aGr\u034fam\u202c")),
    ("fullwidth and mathematical letters", SENTENCE.replace("Gram", "\uff27\uff52\uff41\uff4d")
     .replace("matrix", "\U0001d426\U0001d41a\U0001d42d\U0001d42b\U0001d422\U0001d431")),
    ("capitals", SENTENCE.upper()),
    ("HTML character references", SENTENCE.replace("e", "&#101;").replace("o", "&#x6f;")
     .replace("a", "&#97;").replace("nd", "n&shy;d").replace(" ", "&nbsp;")),
    ("HTML comments and empty tags inside words", SENTENCE.replace("Cand", "Ca<!---->nd")
     .replace("grows", "gr<b></b>ows").replace("matrix", "ma<em></em>tr<!-- x -->ix")),
    ("tags around words", SENTENCE.replace("Gram", "<strong>Gram</strong>")
     .replace("distance", '<span class="x">distance</span>')),
    ("Markdown emphasis inside words", SENTENCE.replace("distance", "dis**tan**ce")
     .replace("Gram", "G*ra*m").replace("matrix", "ma~~tr~~ix")),
    ("text inside words that shows nothing", SENTENCE
     .replace("grows", 'gr<span style="display: none">zq</span>ows')
     .replace("Gram", "Gr<span hidden>q<b>z</b></span>am")
     .replace("matrix", "ma<style>.x {}</style>trix")
     .replace("distance", "dis<SPAN STYLE='font-size:0'>q</SPAN>tance")
     .replace("PSD", 'P<i style="visibility&colon;hidden">q</i>SD')),
    ("elements that show none of their text inside words", SENTENCE
     .replace("grows", "gr<audio>zq</audio>ows").replace("Gram", "Gr<noscript>q</noscript>am")
     .replace("matrix", 'ma<canvas width="0">zq</canvas>trix')
     .replace("distance", "dis<svg width=0 height=0><text>q</text></svg>tance")),
    ("formulas that show nothing inside words", SENTENCE
     .replace("grows", r"gr$\vphantom{zq}$ows").replace("Gram", r"Gr$\!$am")
     .replace("matrix", r"ma$\vphantom{z{q}}\!$trix").replace("distance", r"dis${\kern-1mu}$tance")),
    ("formulas of space for every space", SENTENCE.replace(" ", r"$\ $", 3)
     .replace(" ", r"$\,$", 3).replace(" ", r"$\;$", 3).replace(" ", r"$\quad$")),
    ("raw HTML a browser shows nothing of, inside words", SENTENCE
     .replace("grows", "gr<?zq?>ows").replace("Gram", "Gr<![CDATA[zq]]>am")
     .replace("matrix", "ma<!DOCTYPE zq>trix")),
    ("images inside words, which show a picture and not their text", SENTENCE
     .replace("grows", "gr![zq](data:image/gif;base64,R0lGOD)ows")
     .replace("Gram", '<img alt="zq" src="x.png">Gram')),
])
def test_what_changes_how_words_are_stored_but_not_how_they_read_changes_no_run(how, written):
    assert set(shingles(words(written), 4)) == set(shingles(words(SENTENCE), 4)), how


def test_markup_that_may_style_or_hide_text_is_named():
    """CSS hides text in more ways than a list holds: each tag that may, named."""
    written = ('<b>PSD</b> <span class="x">a</span> <!-- <i style="c"> -->'
               ' $<i style="d">$ b<span style="color:#fff">zq</span>c <script>1</script>'
               ' <font color="white">w</font> <bdo dir="rtl">ztac</bdo> <x-note>n</x-note>')
    assert styled_markup(written, limit=10) == [
        '<span class="x">', '<span style="color:#fff">', "<script>", '<font color="white">',
        '<bdo dir="rtl">', "<x-note>"]
    assert words(written) == ["psd", "a", "i", "style", "d", "bzqc", "w"]
    # a phantom or a colour in a formula, a character that reverses the text
    assert styled_markup(r"x$\vphantom{q}$y $\color{white}{z}$ a" + "\u202eb") == [
        r"\vphantom", r"\color", "U+202E"]
    assert styled_markup(r"a<?zq?>b $\texttip{}{zq}$ $$x \tag{1}$$") == ["<?zq?>", r"\texttip"]
    # a picture the answer holds (of a classmate's answer, say): compared as no words
    for held in ("![answer](data:image/png;base64,iVBORw0KGgo=)",
                 '<img alt="answer" src="data:image/png;base64,iVBORw0KGgo=">',
                 "![answer](attachment:answer.png)"):
        assert words(held) == []
        found = styled_markup("my answer: " + held)
        assert len(found) == 1 and found[0].startswith("an image, which reads as"), found
    # and one fetched from elsewhere, which Formgrader shows or links to
    assert styled_markup("![answer](https://i.example.org/k5.png)")[0].startswith("an image")
    # honest Markdown and the HTML that shows its text as text
    honest = ("An honest <b>answer</b> with $x<y$ and <br> a break, <sub>2</sub>, "
              "<kbd>Ctrl</kbd>, a [link](https://example.org), `code`, $\\quad$, "
              "<table><tr><td>1</td></tr></table> and <p align=\"center\">centred</p>")
    assert styled_markup(honest) == []


def test_written_answers_are_read_as_they_render_and_formulas_as_written():
    assert words("a &lt;b&gt; tag, a<!-- hidden --> comment, <i>it</i>alic") == [
        "a", "b", "tag", "a", "comment", "italic"]
    # in a formula nothing is HTML: ``<`` and ``*`` are mathematics
    assert words("$x<y> z$ and $a*b$, x < y") == ["x", "y", "z", "and", "a", "b", "x", "y"]
    # nor in code; ``_`` inside a word and a marker alone are no emphasis in Markdown
    assert words("`a&#101;` `x**2**y`") == ["a", "101", "x", "2", "y"]
    assert words("B_diag a_b_c x**2") == ["b", "diag", "a", "b", "c", "x", "2"]
    # a comment never closed hides the rest, as in a browser
    assert words("shown <!-- hidden") == ["shown"]
    # a link shows its text, an empty one and an empty formula show nothing, and a
    # reference's definition shows nothing (the links and formulas a copy put
    # inside every word: written share 0.07, not flagged)
    first = ["first", "claim"]
    assert words("fi[rs](#)t cl[ai](#)m") == first
    assert words("fi[rs][r]t cl[ai][r]m\n\n[r]: #") == first
    assert words("fi[](#)rst cl[](#)aim") == first
    assert words("fi${}$rst cl$ $aim") == first
    # formulas with something in them, and brackets that are no link, stay
    assert words("$[0, 1]$ and $$y$$ and [0, 1]") == ["0", "1", "and", "y", "and", "0", "1"]


def test_a_word_mixing_latin_and_cyrillic_letters_is_named_and_honest_maths_is_not():
    copied = words("the C\u0430ndid\u0430te is n\u043et a kernel, \u0432ut \u043a3 is")
    assert mixed_script_words(copied) == ["c\u0430ndid\u0430te", "n\u043et", "\u0432ut"]
    honest = words("the weights \u03b1i and \u03bbmax of K are \u044f\u0434\u0440\u043e, "
                   "r\u00e9sum\u00e9, na\u00efve, \u0160koda, 2\u03c3")
    assert mixed_script_words(honest) == []


def test_ascii_letters_and_digits_are_never_taken_for_one_another():
    assert [skeleton(w) for w in words("l 1 I 0 O rn m")] == ["l", "1", "i", "0", "o", "rn", "m"]


def test_shared_runs_of_words_are_marked():
    a = words("the gram matrix of the point has a negative entry so it fails")
    b = words("indeed the gram matrix of the point has a negative entry")
    shared = set(shingles(a, 4)) & set(shingles(b, 4))
    pieces = marked_words(a, 4, shared)
    assert pieces[0] == ("the gram matrix of the point has a negative entry", True)
    assert pieces[1] == (" so it fails", False)


def test_bookkeeping_is_a_count_only_tests_read_and_nothing_else():
    """A counter moved on (by ``+=``, an assignment from itself, ``append`` or an
    item) and one worked out from it count; data tested once, a constant table
    tested against, a count that is returned and a module only called are not."""
    tree = ast.parse('''\
NEVER = {"a", "b"}
def f(x, kind):
    _k = 0
    _log = []
    _ticks = [0]
    t = x.ndim != 2
    n = 0
    for row in x:
        _k += 1
        _log.append(row)
        _ticks[0] = _k
        n = n + 1
    _j = _k * 2
    np.save(x)
    if t or kind in NEVER:
        raise ValueError(kind)
    assert len(_log) >= 0 and _ticks[0] > -1
    return x if _j > -1 else None, n
''')
    assert bookkeeping_names(tree) == {"_k", "_log", "_ticks", "_j"}


FILLERS = ("indeed", "clearly", "so", "then", "thus", "here", "now", "also")


def _found_in(a, b, skip):
    """The share of ``a``'s runs of 4 words found in ``b`` with ``skip`` words between."""
    runs = shingles(a, 4)
    return len(found_in(runs, skipping_shingles(b, 4, skip))) / len(runs)


@pytest.mark.parametrize("every", [2, 3])
def test_words_put_between_a_copys_words_hide_none_of_its_runs(every):
    """A word added after every second or third word of a classmate's written
    answers breaks every run of four of the copy, and none of the original's is
    lost; independent answers share few runs all the same."""
    answers = {name: words(a["validity_arguments"] + "\n" + a["closure_proofs"])
               for name, a in HONEST.items()}
    for name, original in answers.items():
        copy = []
        for i, word in enumerate(original):
            copy.append(word)
            if i % every == every - 1:
                copy.append(FILLERS[i % len(FILLERS)])
        assert _found_in(original, copy, 0) < 0.05, name
        assert _found_in(original, copy, 2) > 0.95, name
        pieces = marked_words(copy, 4, set(shingles(original, 4)), 2)
        marked = " ".join(text for text, shared in pieces if shared).split()
        added = len(copy) - len(original)
        # on the page, the original's words are marked in the copy, the added ones not
        assert 0.95 * len(original) < len(marked) < len(original) + 0.1 * added, name
    for a, b in itertools.permutations(answers, 2):
        assert _found_in(answers[a], answers[b], 2) < 0.25, (a, b)


ODD = '''\
import numpy as np, math as m
from itertools import *
GLOBAL: int = 3
@staticmethod
def deco(f):
    return f
class Box(object):
    """A box."""
    size = 2
    def __init__(self, *args, key=None, **kw):
        self.args = args
    @property
    def area(self):
        return self.size ** 2
def feature_map(X, p=2, *, axis=-1):
    global GLOBAL
    total = 0
    def inner():
        nonlocal total
        total += 1
    if (n := len(X)) > 3:
        inner()
    match p:
        case 1 | 2:
            pass
        case [a, *rest]:
            total = a
        case _:
            raise ValueError(f"{p!r:>{n}}")
    try:
        y = {k: v for k, v in zip(X, X) if k}
        s = {q for q in X}
        g = sum(x * x for x in X if x for _ in range(2))
        f = lambda z: [w for w in z]
    except (TypeError, ValueError) as err:
        raise RuntimeError(str(err)) from err
    finally:
        del total
    with open(__file__) as fh, open(__file__) as gh:
        pass
    assert X is not None, "X"
    return ((((((((((((X)))))))))))) if p else -X
async def later(xs):
    async for x in xs:
        await x
    return [y async for y in xs]
'''


def test_any_python_a_student_writes_has_a_normal_form():
    first = normal_code([ast.parse(ODD)], keep=frozenset({"feature_map"}))
    assert first == normal_code([ast.parse(ODD)], keep=frozenset({"feature_map"}))
    assert "def feature_map(" in first and "match" in first
    ast.parse(first)                                   # still Python


@pytest.mark.parametrize("wrapper, call", [
    ("class _W:\n    def __call__(self, v):\n        return v\n\n\n_w = _W()\n", "_w({})"),
    ("class _O:\n    def i(self, v):\n        return v\n\n\n_o = _O()\n", "_o.i({})"),
    ("def _i(v, k):\n    match v:\n        case w:\n            return w\n", "_i({}, 0)"),
    ("", "({}, 0)[__name__ == 'x']"),
    ("import typing\n", "typing.cast(object, {})"),          # a library's identity
    ("import operator\n", "operator.itemgetter(0)(({},))"),
])
def test_wrapping_at_scale_is_flagged_however_it_is_spelt(wrapper, call):
    """Names passed one by one through an instance, a method or an identity of two
    parameters that no reading sees through, or picked by what no reading works
    out: at scale, named, while the original and honest code are not."""
    unread = []
    normal_code([ast.parse(wrapper), ast.parse(_picked(call))],
                keep=frozenset({"feature_map"}), unread=unread)
    assert unread and all(re.match(r"\d+ (calls|values|operators|conditional)", u) for u in unread)
    plain = []
    normal_code([ast.parse(ORIGINAL)], keep=frozenset({"feature_map"}), unread=plain)
    assert plain == []


#: what ps1's release binds (its graded functions keep their names)
PS1_KEEP = frozenset({"quadratic_feature_map", "multinomial_feature_map", "is_kernel",
                      "witness", "V", "np", "math", "itertools", "gram", "candidate_function",
                      "CANDIDATES", "variant", "check"})
LIBRARY_IDENTITIES = ("typing.cast(object, {})", "operator.itemgetter(0)(({},))",
                      "functools.reduce(lambda a, b: b, ({},))",
                      "contextlib.nullcontext({}).enter_result", "operator.getitem(({},), 0)",
                      "heapq.nlargest(1, ({},))[0]", "next(itertools.repeat({}))",
                      "types.SimpleNamespace(v={}).v", "collections.deque(({},)).pop()",
                      "random.choice(({},))")
IMPORTS = ("import collections, contextlib, functools, heapq, itertools, operator, "
           "random, types, typing\n")
#: seven identities of two parameters and more, through ``match``
OWN_IDENTITIES = "".join(f"def _h{k}(v, *rest):\n    match v:\n        case w:\n"
                         f"            return w\n\n\n" for k in range(7))
#: a function nobody calls, reading 600 names
UNCALLED = "def _never():\n    return [" + ", ".join(f"V{i}" for i in range(600)) + "]\n"
#: a class whose ``__ror__`` gives back its operand, and one whose ``__getitem__``
#: gives back its key, each with one instance
OPERAND = ("class _P:\n    __array_ufunc__ = None\n\n    def __ror__(self, o):\n"
           "        return o\n\n\n_p = _P()\n")
KEY = "class _G:\n    def __getitem__(self, k):\n        return k\n\n\n_g = _G()\n"
#: ten such classes, an instance of each, taking turns; one bound by ``globals()``
TEN_OPERANDS = "".join(f"class _P{k}:\n    __array_ufunc__ = None\n\n    def __ror__(self, o):\n"
                       f"        return o\n\n\n_p{k} = _P{k}()\n" for k in range(10))
HIDDEN_OPERAND = ("class _P:\n    __array_ufunc__ = None\n\n    def __ror__(self, o):\n"
                  "        return o\n\n\nglobals().update(_p=_P())\n")
#: an identity of several parameters, and names of its own to pad its calls with
PADDED = ("def _h(v, *rest):\n    match v:\n        case w:\n            return w\n\n\n"
          "_a = object()\n_b = object()\n_c = []\n")


@pytest.mark.parametrize("prelude, literals", [
    (IMPORTS, LIBRARY_IDENTITIES),         # ten library identities in turn, a few uses each
    ("import typing\n", ("typing.cast(typing.Union[int, float, complex, object], {})",)),
    ("import typing\n" + UNCALLED, ("typing.cast(object, {})",)),  # diluted by dead code
    (OWN_IDENTITIES, tuple(f"_h{k}({{}}, int, float, str, bytes, list, dict, set, tuple)"
                           for k in range(7))),   # each called a few times, padded
    (OPERAND, ("({} | _p)",)),           # an operator of an object of its own
    (KEY, ("_g[{}]",)),                  # a subscript of one
    (PADDED, ("_h({}, _a, _b, _c)",)),   # padded with names of its own
    (PADDED, ("_h({0}, {0})",)),         # the value passed twice
    (TEN_OPERANDS, tuple(f"({{}} | _p{k})" for k in range(10))),   # ten objects in turn
    (HIDDEN_OPERAND, ("({} | _p)",)),    # an object no assignment binds
    (OPERAND, ("({} | _P())",)),         # a fresh object each time
    ("_t = V is not None\n", ("(_t and {})",)),       # a test no reading works out
    ("", ("({0} if {0} is not None else 0)",)),
    ("", ("locals()['{}']",)),           # looked up by name
], ids=["ten library identities", "a padded library identity", "diluted by dead code",
        "seven padded identities of its own", "an operator of its own", "a subscript of its own",
        "padded with names of its own", "the value twice", "ten objects in turn",
        "an object globals() binds", "a fresh object each time", "a computed test",
        "a test of the value itself", "looked up by name"])
def test_wrapping_every_name_is_flagged_however_it_is_spread_or_padded(prelude, literals):
    """A copy of an honest ps1 answer with every name it reads wrapped: spread over
    many wrappers used a few times each, padded with a wrapper's own arguments or
    diluted by code nobody calls, it is still flagged on its own; no honest answer
    is."""
    for student, answers in HONEST.items():
        copy = picked_from_literals(answers, *literals)
        unread = []
        normal_code([ast.parse(prelude)] + [ast.parse(copy[p]) for p in CODE_PARTS],
                    keep=PS1_KEEP, unread=unread)
        assert unread and all(re.match(r"\d+ (calls|values|operators|conditional)", u) for u in unread), \
            student
        honest = []
        normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP, unread=honest)
        assert honest == [], student


@pytest.mark.parametrize("style", sorted(STYLES))
def test_honest_styles_of_helpers_casts_and_classes_are_not_flagged(style):
    """Honest answers that call a helper in every part, cast everything, or hold
    each part in a class: the counts of wrapping at scale stay under their bounds."""
    unread = []
    normal_code([ast.parse(c) for c in STYLES[style]], keep=PS1_KEEP, unread=unread)
    assert unread == []


def test_a_test_of_a_name_bound_once_to_a_constant_reads_as_the_branch():
    """``_t = 1`` then ``n if _t else None``, ``_t and n``, ``_f or n``: the name is a
    constant (bound once, at the top level), and the copy reads as its original;
    a name bound twice still decides, where its value goes beyond tests (one only
    tests read is bookkeeping: see the disguise of a counter above)."""
    for answers in HONEST.values():
        copy = picked_from_literals(answers, "({} if _t else None)", "(_t and {})",
                                    "(_f or {})")
        original = normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        assert normal_code([ast.parse("_t = 1\n_f = 0\n")]
                           + [ast.parse(copy[p]) for p in CODE_PARTS],
                           keep=PS1_KEEP) == original
    twice = ("_t = 1\n_t = 0\ndef f(x):\n    return x if _t else None\n\n"
             "def g():\n    return _t\n")
    assert "if" in normal_code([ast.parse(twice)], keep=frozenset({"f"}))


class _EachInATry(ast.NodeTransformer):
    """Every statement of every function inside ``try: ... except ArithmeticError:
    raise`` (the handler of every other one names the error and raises it again)."""

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        body = []
        for k, stmt in enumerate(node.body):
            again = ast.Raise(exc=ast.Name("e", ast.Load()) if k % 2 else None, cause=None)
            body.append(ast.Try(body=[stmt], handlers=[ast.ExceptHandler(
                type=ast.Name("ArithmeticError", ast.Load()), name="e" if k % 2 else None,
                body=[again])], orelse=[], finalbody=[]))
        node.body = body
        return node


def test_a_try_that_only_raises_again_reads_as_its_body():
    """Each statement in a ``try`` whose handler raises again catches nothing: the
    copy reads as its original; a handler that does something stays."""
    for answers in HONEST.values():
        original = normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        tried = [ast.fix_missing_locations(_EachInATry().visit(ast.parse(answers[p])))
                 for p in CODE_PARTS]
        assert normal_code(tried, keep=PS1_KEEP) == original
    for again in ("raise e from None", "raise ArithmeticError", "f = e\n        raise f"):
        other = ("def f(x):\n    try:\n        y = x + 1\n    except ArithmeticError as e:\n"
                 f"        {again}\n    return y\n")
        assert normal_code([ast.parse(other)], keep=frozenset({"f"})) == normal_code(
            [ast.parse("def f(x):\n    y = x + 1\n    return y\n")], keep=frozenset({"f"}))
    handled = "def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n        return 0\n"
    assert "except" in normal_code([ast.parse(handled)], keep=frozenset({"f"}))


def test_operations_moved_into_temporaries_read_as_the_original():
    """Every call, operator, subscript and literal list or tuple of a statement moved
    into a temporary of its own, innermost first: the copy reads as its original
    (a comparison too, which the normal form writes the other way round)."""
    for answers in HONEST.values():
        original = normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        copy = into_temporaries(answers)
        assert copy != answers
        assert normal_code([ast.parse(copy[p]) for p in CODE_PARTS], keep=PS1_KEEP) == original
    assert normal("def feature_map(x):\n    return g(x).h(-1) >= 2 * max(x)\n") == normal(
        "def feature_map(x):\n    a = g(x)\n    b = a.h(-1)\n    c = max(x)\n    d = 2 * c\n"
        "    return b >= d\n")
    # what runs on a condition, or again and again, stays where it is
    assert "v=v if v else g(v)" in normal("def feature_map(x):\n    y = x if x else g(x)\n    return y\n")
    assert "while g(v)<1:" in normal("def feature_map(x):\n    while g(x) < 1:\n        x = x + 1\n"
                                     "    return x\n")


def test_operator_calls_read_as_the_operators():
    """``operator.mul(a, b)`` is ``a * b`` under any import of the module or its
    functions; a name ``operator`` the student binds otherwise, or a call with a
    keyword, stays a call."""
    for answers in HONEST.values():
        original = normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        copy = operators_as_calls(answers)
        assert "operator.mul(" in copy[CODE_PARTS[0]] + copy[CODE_PARTS[1]]
        read = normal_code([ast.parse(copy[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        assert read.replace("import operator\n", "") == original
    plain = normal("def feature_map(x):\n    return x[0] * 2 < -x[1]\n")
    for spelt in ("import operator as op\ndef feature_map(x):\n"
                  "    return op.lt(op.mul(op.getitem(x, 0), 2), op.neg(x[1]))\n",
                  "from operator import lt, mul as m, getitem, neg\ndef feature_map(x):\n"
                  "    return lt(m(getitem(x, 0), 2), neg(x[1]))\n"):
        assert normal(spelt) == plain      # the import, read nowhere now, gone too
    for other in ("operator = np\ndef feature_map(x):\n    return operator.mul(x, 2)\n",
                  "import operator\ndef feature_map(x, operator):\n"
                  "    return operator.mul(x, 2)\n",
                  "import operator\ndef feature_map(x):\n    return operator.mul(x, b=2)\n"):
        assert ".mul(v," in normal(other) and "*" not in normal(other)


def test_variables_kept_on_a_namespace_read_as_names():
    """A function's variables kept as attributes of one object (``_s.X = ...``)
    read as the names they stand for; an attribute the code only reads stays."""
    for answers in HONEST.values():
        original = normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        kept_on = locals_on_a_namespace(answers)
        assert "_s.X = " in kept_on[CODE_PARTS[0]] + kept_on[CODE_PARTS[1]]
        copy = normal_code([ast.parse(kept_on[p]) for p in CODE_PARTS], keep=PS1_KEEP)
        kept = [line for line in original.splitlines() if line not in copy.splitlines()]
        assert len(kept) <= len(original.splitlines()) // 10, kept
    assert normal("def feature_map(x):\n    s = S()\n    s.y = x.shape\n    return s.y\n") \
        == "def feature_map(v):\n v=S()\n v=v.shape\n return v"
    assert ".shape" in normal("def feature_map(x):\n    return x.shape\n")


def test_formulas_that_show_nothing_read_as_nothing_and_many_are_named():
    padded = "the kernel is $\\mathrel{}$ positive semi $\\mathord{}$ definite $\\mathop{}$ here"
    assert words(padded) == ["the", "kernel", "is", "positive", "semi", "definite", "here"]
    assert styled_markup(padded) == ["3 formulas that show nothing: $\\mathrel{}$"]
    assert styled_markup("honest $x$ and $\\quad$ spacing $y$") == []


def test_ascii_look_alikes_read_as_the_letters_they_imitate():
    """``l`` written ``I`` or ``|``, ``m`` written ``rn``, ``o`` written ``0``, ``e``,
    ``k`` and ``t`` as Greek letters or a small capital (which many fonts show
    alike), or every word written twice: a copy so written shares every run of
    words with its original, and independent answers share no more than before."""
    for answers in HONEST.values():
        for part in WRITTEN_PARTS:
            text = answers[part]
            pieces = re.split(r"(\$\$[\s\S]*?\$\$|\$[^$\n]+\$)", text)
            copy = "".join(re.sub(r"(?<=[a-z])l", "I", p).replace("m", "rn").replace("o", "0")
                           if i % 2 == 0 else p for i, p in enumerate(pieces))
            greek = "".join(p.replace("e", "ε").replace("k", "κ").replace("t", "ᴛ")
                            if i % 2 == 0 else p for i, p in enumerate(pieces))
            bars = "".join(re.sub(r"(?<=[a-z])l(?=[a-z])", "|", p) if i % 2 == 0 else p
                           for i, p in enumerate(pieces))         # ``va|ue``
            assert copy != text
            mine, theirs = shingles(words(copy), 4), shingles(words(text), 4)
            assert set(mine) == set(theirs)
            assert set(shingles(words(bars), 4)) == set(theirs)
            assert set(shingles(words(greek), 4)) == set(theirs)
            doubled = "".join(re.sub(r"\b([A-Za-z]+)\b", r"\1 \1", p) if i % 2 == 0 else p
                              for i, p in enumerate(pieces))     # every word twice
            assert set(shingles(words(doubled), 4)) == set(theirs)
    others = list(HONEST.values())
    for a, b in zip(others, others[1:]):
        ours = set(shingles(words(a[WRITTEN_PARTS[0]]), 4))
        assert len(ours & set(shingles(words(b[WRITTEN_PARTS[0]]), 4))) <= 0.2 * len(ours)


def test_boxes_procedures_unpackings_and_first_declarations_read_as_the_assignments():
    """Round 24's carriers: a class that only holds a value read back at once, a
    function of no parameters that sets a ``nonlocal`` and is called once, a
    one-value unpacking with a starred or unread rest, a walrus in a decorator
    that chooses between two identities, and a constant declared first and
    given its value later: each reads as the plain assignment."""
    plain = normal("def feature_map(x):\n    y = np.sqrt(x)\n    z = 2 * y\n    return z\n")
    for written in (
            "def feature_map(x):\n    class _C:\n        v = np.sqrt(x)\n    y = _C.v\n"
            "    class _C:\n        v = 2 * y\n    z = _C.v\n    return z\n",
            "def feature_map(x):\n    y = None\n    z = None\n    def _s1():\n"
            "        nonlocal y\n        y = np.sqrt(x)\n    _s1()\n    def _s2():\n"
            "        nonlocal z\n        z = 2 * y\n    _s2()\n    return z\n",
            "def feature_map(x):\n    y, *_r = (np.sqrt(x),)\n    z, _u = (2 * y, None)\n"
            "    return z\n",
            "def feature_map(x):\n    @(lambda f: f) if (y := np.sqrt(x)) is None else lambda f: f\n"
            "    def _d():\n        pass\n    z = 2 * y\n    return z\n"):
        assert normal(written) == plain, written


def test_what_a_box_an_unpacking_or_a_first_value_does_stays():
    """A value read before it is replaced, a swap, an honest unpacking of used
    names, a constant set in a ``try`` whose handler may read it, a class with a
    method, a class attribute set from outside, and a procedure called twice
    all stay as written."""
    read_first = normal("def feature_map(x):\n    y = 0\n    y = y + x\n    return y\n")
    assert "v=0" in read_first
    assert "v,v=(v,v)" in normal("def feature_map(x, y):\n    x, y = y, x\n    return x - y\n")
    assert "v,v=(v,v)" in normal("def feature_map(x):\n    a, b = np.sin(x), np.cos(x)\n"
                                 "    return a * b\n")
    guarded = normal("def feature_map(x):\n    y = None\n    try:\n        y = np.log(x)\n"
                     "    except ValueError:\n        return y\n    return y\n")
    assert "v=None" in guarded
    assert "class" in normal("def feature_map(x):\n    class K:\n        a = 2\n"
                             "        def f(self):\n            return 1\n    return K.a * x\n")
    assert "class" in normal("def feature_map(x):\n    class K:\n        a = 2\n    K.a = 3\n"
                             "    return K.a * x\n")
    twice = normal("def feature_map(x):\n    y = []\n    def _s():\n        y.append(x)\n"
                   "    _s()\n    _s()\n    return y\n")
    assert twice.count("\n v()") == 2, twice


def test_a_used_class_keeps_the_attributes_its_body_sets():
    """``class Config: scale = 2.0`` read as ``Config.scale`` from a method keeps
    its value (it was read as a name nobody reads, and dropped)."""
    kept = normal("class Config:\n    scale = np.sqrt(2.0)\n    def f(self, x):\n"
                  "        return self.scale * x\n\ndef feature_map(x):\n    return Config().f(x)\n")
    assert "np.sqrt(2.0)" in kept, kept


def test_the_fingerprints_are_the_same_in_every_process(tmp_path):
    """A pair's code share does not depend on the process's string hashing
    (``PYTHONHASHSEED``): copydetect's own k-gram hash did, and one pair of
    honest answers read 0.474 in one run and 0.502 in another."""
    script = tmp_path / "prints.py"
    script.write_text(
        "from coursegrader.similarity.fingerprints import Fingerprint\n"
        "from copydetect import compare_files\n"
        "a = Fingerprint('def f(v):\\n v=v*v\\n v=np.sqrt(v)\\n return v+1\\n' * 20, 12, 8)\n"
        "b = Fingerprint('def f(v):\\n v=v*2\\n v=np.sqrt(v)\\n return v-1\\n' * 20, 12, 8)\n"
        "print(sorted(a.hashes)[:5], compare_files(a, b)[1])\n")
    seen = {subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
            for seed in ("1", "2", "3")}
    assert len(seen) == 1, seen


def test_a_fingerprint_counts_a_repeated_run_once_and_leaves_the_release_out():
    """What copydetect's fingerprint does with ``remove_duplicates=False`` and a
    boilerplate: a run of characters repeated counts at its last place only, and
    a run the released code holds is not counted at all."""
    from copydetect import compare_files

    from coursegrader.similarity.fingerprints import Fingerprint, kgram_hashes
    line = " v=np.sqrt(v*v+1)\n"
    once, many = Fingerprint(line, 8, 4), Fingerprint(line * 5, 8, 4)
    assert all(len(where) == 1 for where in many.hash_idx.values())
    assert len(many.hashes) <= len(set(kgram_hashes(line * 2, 8).tolist()))
    released = "def f(v):\n return v\n"
    boiler = kgram_hashes(released, 8)
    both = Fingerprint(released + line, 8, 4, boilerplate=boiler)
    assert both.hashes == Fingerprint(released + line, 8, 4).hashes - set(boiler.tolist())
    assert compare_files(once, Fingerprint(line, 8, 4))[1] == (1.0, 1.0)


def test_independent_statements_moved_read_as_the_original():
    """Each honest answer's code, every operation in a temporary and every two
    neighbouring assignments that share no name swapped, reads as the original
    in temporaries: a straight run of statements is read in the one order its
    dependences allow."""
    moved = 0
    for answers in HONEST.values():
        spread = into_temporaries(answers)
        copy = reordered(spread)
        moved += sum(copy[p] != spread[p] for p in CODE_PARTS)
        assert normal_code([ast.parse(copy[p]) for p in CODE_PARTS], keep=PS1_KEEP) \
            == normal_code([ast.parse(answers[p]) for p in CODE_PARTS], keep=PS1_KEEP)
    assert moved >= 20, moved
    # what depends on what stays in its order; a statement made for what it
    # does keeps its place among those
    assert normal("def feature_map(x):\n    b = np.sin(x)\n    a = np.cos(x)\n    return a * b\n") \
        == normal("def feature_map(x):\n    a = np.cos(x)\n    b = np.sin(x)\n    return a * b\n")
    for first, second in ((2, 1), (1, 2)):
        steps = normal(f"def feature_map(x):\n    out = [x]\n    out.append({first})\n"
                       f"    out[0] = 3\n    out.append({second})\n    return out\n")
        assert steps.index(f"v.append({first})") < steps.index("v[0]=3") \
            < steps.index(f"v.append({second})"), steps


def test_a_helper_called_once_reads_where_it_is_called():
    """A function cut into helpers, each called once (``X = _prep(X)``, ``return
    _total(out)``, ``acc.append(_row(a, b, k))``), reads as the function written
    whole; a helper called on a branch, called twice, or called with a keyword,
    stays a function."""
    whole = normal("def feature_map(X, c):\n    X = np.asarray(X, dtype=float)\n"
                   "    out = X * np.sqrt(2 * c)\n    return out.sum(axis=1)\n")
    cut = normal("def _prep(A):\n    return np.asarray(A, dtype=float)\n\n"
                 "def _scaled(Y, k):\n    \"Y times sqrt(2k).\"\n    s = np.sqrt(2 * k)\n"
                 "    return Y * s\n\n"
                 "def _total(Z):\n    return Z.sum(axis=1)\n\n"
                 "def feature_map(X, c):\n    X = _prep(X)\n    out = _scaled(X, c)\n"
                 "    return _total(out)\n")
    assert cut == whole, cut
    rows = normal("def feature_map(X, c):\n    out = []\n    for a, b in X:\n"
                  "        out.append([1, np.sqrt(2 * c) * a, a * b])\n    return np.array(out)\n")
    nested = normal("def _row(p, q, k):\n    return [1, np.sqrt(2 * k) * p, p * q]\n\n"
                    "def _rows(Y, k):\n    acc = []\n    for a, b in Y:\n"
                    "        acc.append(_row(a, b, k))\n    return acc\n\n"
                    "def feature_map(X, c):\n    return np.array(_rows(X, c))\n")
    assert nested.replace(" v=v\n", "") == rows, nested
    branch = normal("def _row(p):\n    return p * 2\n\n"
                    "def feature_map(X, c):\n    return _row(X) if c else X\n")
    assert branch.count("def ") == 2, branch
    twice = normal("def _prep(A):\n    return np.asarray(A, dtype=float)\n\n"
                   "def feature_map(X, c):\n    X = _prep(X)\n    c = _prep(c)\n    return X * c\n")
    assert twice.count("def ") == 2, twice
    keyed = normal("def _prep(A):\n    return np.asarray(A, dtype=float)\n\n"
                   "def feature_map(X, c):\n    X = _prep(A=X)\n    return X * c\n")
    assert keyed.count("def ") == 2, keyed


def test_a_fingerprint_is_taken_of_the_code_without_its_indentation():
    """A copy whose every line stands one level deeper (its functions' bodies in a
    block the normal form keeps) shares every run of its original, and the shared
    passages are found in the code as it is shown."""
    from copydetect import compare_files

    from coursegrader.similarity.fingerprints import Fingerprint
    body = "".join(f" v=np.sqrt(v*{i})\n v=v+{i}\n" for i in range(12))
    original = "def f(v):\n" + body + " return v\n"
    deeper = ("def f(v):\n with np.errstate(all='S')as v:\n"
              + "".join(" " + line for line in body.splitlines(keepends=True)) + " return v\n")
    a, b = Fingerprint(original, 25, 8), Fingerprint(deeper, 25, 8)
    overlap, (share_a, _), (slices_a, slices_b) = compare_files(a, b)
    assert share_a >= 0.9, share_a     # all but the runs across the line put in
    starts, ends = b.in_code(slices_b)
    shown = [deeper[s:e] for s, e in zip(starts, ends)]
    assert all(piece.replace(" ", "") in original.replace(" ", "") for piece in shown), shown
    assert any("\n  v=" in piece for piece in shown), shown


def test_a_function_body_in_a_try_with_only_a_finally_is_read():
    """``try:`` with a ``finally`` and no handler round a body: the checks' reading
    took the missing handlers for a count and the normal form failed."""
    assert "v=v+1" in normal("def feature_map(x):\n    try:\n        y = x + 1\n"
                             "    finally:\n        print('done')\n    return y\n")


def test_a_test_of_what_the_code_does_not_compute_round_every_line_is_read_through():
    """``if os.getpid() > 0:``, ``if abs:``, ``if math.pi > 3:``, ``if id(a) > 0:``
    of the line before's value, or ``while a is not None: ...; break`` (round 26),
    round nearly every statement of a block read as the statements; a test now
    and then stays."""
    plain = normal(STRAIGHT)
    tests = ["os.getpid() > 0", "abs", "math.pi > 3", "len(sys.argv) >= 0"]
    lines = STRAIGHT.splitlines(keepends=True)
    carried = lines[0] + "".join(f"    if {tests[i % 4]}:\n    " + line
                                 for i, line in enumerate(lines[1:-1])) + lines[-1]
    assert normal("import os, math, sys\n" + carried).endswith(plain.split("\n", 1)[1])
    names = ["X", "a", "b", "c"]                 # each test reads the line before's
    computed = lines[0] + "".join(f"    if id({names[i]}) > 0:\n    " + line
                                  for i, line in enumerate(lines[1:-1])) + lines[-1]
    assert normal(computed) == plain
    once = lines[0] + "".join(f"    while {names[i]} is not None:\n    " + line + "        break\n"
                              for i, line in enumerate(lines[1:-1])) + lines[-1]
    assert normal(once) == plain
    now_and_then = STRAIGHT.replace("    c = ", "    if os.getpid() > 0:\n        c = ")
    assert "if" in normal("import os\n" + now_and_then)
