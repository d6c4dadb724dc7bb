"""What of a submission the similarity check compares, and the bounds on it.

A small problem set stands in for a real one (a released notebook of a
prompt, a setup cell and an answer cell): what is released never counts, the
student's own cells do, the bounds give their bytes and statements to the
smallest cells first, and every cut is said for that submission.
"""

import itertools
import re
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from coursegrader.similarity.compare import compare
from coursegrader.similarity.material import (Scaffold, SimilarityCheck, boilerplate,
                                              material_of)
from grading.ps1_honest import HONEST

RELEASED = [new_markdown_cell("## Part 1\n\nWrite `double(xs)`, each element twice."),
            new_code_cell("import numpy as np\n\ndef helper_given(x):\n    return x\n"),
            new_code_cell("def double(xs):\n    # YOUR CODE HERE\n"
                          "    raise NotImplementedError()\n"),
            new_markdown_cell("YOUR ANSWER HERE")]
ANSWER = '''\
def double(xs):
    out = []
    for x in xs:
        if x is None:
            raise ValueError("no element may be None")
        out.append(2 * np.asarray(x, dtype=float))
    return np.stack(out) if out else np.zeros((0,))
'''
PADDING = "".join(f"def unused_{i}(a):\n    return a + {i}\n\n" for i in range(4000))


def cell(cell_type, source, omitted=0):
    return SimpleNamespace(cell_type=cell_type, source=source, omitted=omitted)


def material(student, cells, **settings):
    check = SimilarityCheck(**settings)
    scaffold = Scaffold.of(RELEASED)
    return material_of(student, cells, scaffold, check, boilerplate(scaffold, check)), check


def test_released_cells_never_count_and_the_students_do():
    blank, _ = material("blank", [cell(c.cell_type, c.source) for c in RELEASED])
    assert blank.code == "" and blank.text == [] and blank.notes == []
    own, _ = material("own", [cell("code", RELEASED[1].source), cell("code", ANSWER),
                              cell("markdown", "Each element *doubled*.")])
    assert own.code.startswith("def double(v):") and "helper_given" not in own.code
    assert own.text == ["each", "element", "doubled"]


def test_padding_cannot_push_the_answer_out_of_the_bounds():
    """Bytes and statements go to the smallest cells first, whatever the order."""
    for cells in ([cell("code", PADDING), cell("code", ANSWER)],
                  [cell("code", ANSWER), cell("code", PADDING)]):
        padded, check = material("padded", cells, max_code_bytes=20_000, max_statements=500)
        plain, _ = material("plain", [cell("code", ANSWER)])
        assert compare(padded, plain, check).code == 1.0
        assert padded.notes[0].startswith("code cut at 20 kB: ")
        assert "in its code cells and modules not compared (its largest cells and " \
            "modules)" in padded.notes[0]
        assert "unused_" not in padded.code                  # dead code, gone


def test_statements_past_the_bound_are_cut_and_said():
    many = "\n".join(f"x{i} = {i}\nprint(x{i})" for i in range(400))
    cut, _ = material("cut", [cell("code", ANSWER), cell("code", many)], max_statements=100)
    assert any(n.startswith("code cut at 100 statements") for n in cut.notes)
    assert cut.code.startswith("def double(v):")


def test_what_the_record_did_not_keep_is_said():
    m, _ = material("m", [cell("code", ANSWER)], )
    assert m.notes == []
    m = material_of("m", [cell("code", ANSWER)], Scaffold.of(RELEASED), SimilarityCheck(),
                    boilerplate(Scaffold.of(RELEASED), SimilarityCheck()), omitted=7_500_000)
    assert m.notes == ["7.5 MB of its cells beyond what the record keeps not compared"]


@pytest.mark.parametrize("hidden, names", [
    ("import base64\nexec(base64.b64decode('ZGVmIGRvdWJsZSh4cyk6IHJldHVybiB4cw=='))\n",
     "base64, exec"),
    # exec reached by a computed name, the encoded copy reversed
    ("import builtins\ncode = 'c2VsZg=='[::-1]\n"
     "getattr(builtins, 'xe'[::-1] + 'ce'[::-1])(code, globals())\n",
     "builtins, getattr with a computed name, globals"),
    ("run = getattr(__builtins__, ''.join(['e', 'v', 'a', 'l']))\nrun('1 + 1')\n",
     "__builtins__, getattr with a computed name"),
    # the answers in a module handed in beside the notebook
    ("import sys, os\nsys.path.insert(0, os.getcwd())\nfrom helper import gram\n",
     "sys.path (a module of its own files)"),
])
def test_code_built_at_run_time_is_said_to_be_unread(hidden, names):
    m, _ = material("m", [cell("code", hidden)])
    assert m.notes == [f"uses {names}: code built while it runs is not compared, read it"]


def test_code_that_does_not_parse_is_compared_token_by_token_and_said():
    m, _ = material("m", [cell("code", ANSWER), cell("code", "def broken(:\n  pass\n")])
    assert m.notes == ["1 code cell(s) do not parse as Python: compared token by token"]
    assert m.code.startswith("def double(v):") and "def V(:" in m.code


def test_written_answers_are_cut_at_their_bound_and_flagged():
    """Honest answers are far within the bound: a cut flags the submission on its own,
    and a comment, which shows nothing, counts for nothing (110 kB of comment in
    front of a copy pushed the copy past the bound)."""
    long = " ".join(f"word{i}" for i in range(5000))
    m, _ = material("m", [cell("markdown", long)], max_written_bytes=1000)
    assert m.flags[0].startswith("written answers cut at 1 kB of ")
    assert len(m.text) < 200
    copy = "<!-- " + "x" * 5000 + " -->" + "the kernel is positive semi-definite"
    m, _ = material("m", [cell("markdown", copy)], max_written_bytes=1000)
    assert m.text == ["the", "kernel", "is", "positive", "semi", "definite"] and not m.flags


def test_a_module_handed_in_is_compared_as_the_students_code():
    """The answer moved into helper.py (the record's module) is the same code as the
    answer in a cell; a module exactly as released is the course's."""
    check = SimilarityCheck()
    scaffold = Scaffold.of(RELEASED, ["def given_module(x):\n    return x + 1\n"])
    boiler = boilerplate(scaffold, check)
    in_cell = material_of("a", [cell("code", ANSWER)], scaffold, check, boiler)
    moved = material_of("b", [cell("code", "from helper import double\n"),
                              SimpleNamespace(cell_type="module", source=ANSWER, omitted=0,
                                              cell="helper.py")], scaffold, check, boiler)
    assert compare(in_cell, moved, check).code > 0.95
    assert "its modules compared with its cells: helper.py" in moved.notes
    released = material_of("c", [SimpleNamespace(
        cell_type="module", source="def given_module(x):\n    return x + 1\n", omitted=0,
        cell="given.py")], scaffold, check, boiler)
    assert released.code == "" and released.notes == []
    cut = material_of("d", [SimpleNamespace(cell_type="module", source="", omitted=9000,
                                            cell="3 more module(s)")], scaffold, check, boiler)
    assert cut.flags == ["modules not all compared: 9 kB beyond what the record keeps "
                         "(3 more module(s))"]


def test_a_module_the_bounds_cut_flags_the_submission():
    """Whatever order the bounds take modules in, one they leave out (or cut) may be
    the copy: the submission is flagged on its own, naming it."""
    many = [SimpleNamespace(cell_type="module", source=f"N = {i:04}\n", omitted=0,
                            cell=f"note{i:03}.py") for i in range(200)]
    helper = SimpleNamespace(cell_type="module", source=ANSWER, omitted=0, cell="helper.py")
    m, _ = material("m", many + [helper], max_code_bytes=1000)
    assert len(m.flags) == 1 and m.flags[0].startswith(
        "modules not all compared: 90 cut at the bounds on code, the largest first: "
        "helper.py, note")
    cells, _ = material("c", [cell("code", "N = 1000\n")] * 200 + [cell("code", ANSWER)],
                        max_code_bytes=1000)
    assert cells.flags == []          # a cell cut is said (notes), as before


ENCODED = "ZGVmIGRvdWJsZSh4cyk6IHJldHVybiB4cw=="


@pytest.mark.parametrize("hidden, flag", [
    ("import base64, marshal\nexec(marshal.loads(base64.b64decode(b'Qk=')), globals())\n",
     "marshal"),
    ("from marshal import loads as l\nf = l(open('data.bin', 'rb').read())\n", "marshal"),
    ("import types\ndouble = types.FunctionType(code, globals())\n",
     "a FunctionType built by hand"),
    ("from types import CodeType\nc = CodeType(*args)\n", "a CodeType built by hand"),
    ("double.__code__ = other.__code__.replace(co_consts=(1,))\n", "a code object rewritten"),
    (f"import base64\nexec(base64.b64decode('{ENCODED}'))\n",
     "exec of code that is not written out"),
    (f"import codecs\nc = compile(codecs.decode('{ENCODED}', 'base64'), 'x', 'exec')\n",
     "compile of code that is not written out"),
    ("exec(open('helper.txt').read())\n", "exec of code that is not written out"),
    ("from importlib.machinery import SourceFileLoader\n"
     "helper = SourceFileLoader('helper', 'helper.dat').load_module()\n",
     "a module loaded by hand (SourceFileLoader)"),
    ("import runpy\nns = runpy.run_path('answers.txt')\n",
     "a module loaded by hand (run_path)"),
    # the types reached through type(), not named: a copy rebuilt from literal bytes
    ("K = type((lambda: 0).__code__)\nF = type(lambda: 0)\n"
     "double = F(K(*T), (lambda: 0).__globals__)\n", "a function's insides (__code__)"),
    ("F = type(lambda: 0)\n", "the type of a function, to build functions by hand"),
    ("import builtins\nbuiltins.exec(data)\n", "exec of code that is not written out"),
    # the standard library's other runners of source text
    (f"import code as _c\n_c.InteractiveInterpreter(locals()).runsource("
     f"bytes.fromhex('{ENCODED.encode().hex()}').decode(), '<cell>', 'exec')\n",
     "runsource of code that is not written out"),
    ("import code\ncode.InteractiveConsole(locals()).push(data.decode())\n",
     "push of code that is not written out"),
    ("import codeop\nc = codeop.compile_command(s.decode(), 'x', 'exec')\n",
     "compile_command of code that is not written out"),
    ("import timeit\ntimeit.Timer(stmt=s.decode(), globals=locals()).timeit(1)\n",
     "Timer of code that is not written out"),
    ("from timeit import timeit as t\nt(''.join(parts), number=1)\n",
     "timeit of code that is not written out"),
    # a copy written out as one line of statements in a string, run by timeit:
    # a string is never compared, so it may do no more than call a function
    ("import timeit\ng = dict(globals(), _a=X, _r=[])\ntimeit.Timer(\"X = np.asarray(_a); "
     "_r.append(np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2]))\", globals=g).timeit(1)\n",
     "Timer of a string that runs code of its own"),
    ("import timeit\ntimeit.timeit('[double(v) for v in range(3)]', number=1)\n",
     "timeit of a string that runs code of its own"),
    # a call in the arguments, as the parts' runner judges it too
    ("import timeit\ntimeit.Timer(\"exec(bytes.fromhex('6465662066287829'))\", "
     "globals=globals()).timeit(1)\n", "Timer of a string that runs code of its own"),
    ("import timeit\ntimeit.timeit('Y = double(X)', globals=globals(), number=1)\n",
     "timeit of a string that runs code of its own"),
    ("import timeit\ntimeit.Timer(f'{s}', globals=globals()).timeit(1)\n",
     "Timer of code that is not written out"),
    # written out, but as a string, which no comparison reads
    ("exec('def double(xs):\\n    return [2 * x for x in xs]')\n",
     "exec of a string that runs code of its own"),
    ("import cProfile\ncProfile.runctx(s.decode(), globals(), locals())\n",
     "runctx of code that is not written out"),
    ("import profile\nprofile.Profile().runctx(s.decode(), globals(), locals())\n",
     "runctx of code that is not written out"),
    ("import trace\ntrace.Trace().runctx(s.decode(), globals(), locals())\n",
     "runctx of code that is not written out"),
    ("import pdb\npdb.run(s.decode(), globals())\n", "run of code that is not written out"),
    ("import bdb\nbdb.Bdb().run(s.decode(), globals())\n", "run of code that is not written out"),
    ("import doctest\ndoctest.run_docstring_examples('>>> ' + s, locals())\n",
     "run_docstring_examples of code that is not written out"),
    ("import numpy as np\nw = np.load('w.bin', allow_pickle=True)\n",
     "a pickle loaded (load with allow_pickle)"),
])
def test_code_built_from_data_flags_the_submission(hidden, flag):
    m, _ = material("m", [cell("code", ANSWER), cell("code", hidden)])
    assert flag in m.flags


def test_honest_answers_are_not_flagged_on_their_own():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    for student, answers in HONEST.items():
        m, _ = material(student, [cell("code", v) for v in answers.values()])
        assert m.flags == [], student
    # a string that adds no code of its own runs nothing hidden (the parts'
    # runner lets it run unreported, by the same rule)
    m, _ = material("m", [cell("code", ANSWER + "\nexec('double(X)')\nv = eval('2 + 2')\n")])
    assert m.flags == []
    # a method named compile is not the builtin: an honest spectrum kernel's pattern
    m, _ = material("m", [cell("code", ANSWER + "\nimport re\n"
                                        "p = re.compile('(?=' + re.escape(w) + ')')\n")])
    assert m.flags == []
    # timing or profiling written out, or of a function, runs nothing hidden
    m, _ = material("m", [cell("code", ANSWER + "\nimport timeit\nimport cProfile\n"
                                        "import numpy as np\n"
                                        "t = timeit.timeit('double([1, 2])', globals=globals())\n"
                                        "t = timeit.timeit('double(X)', globals=globals())\n"
                                        "t = timeit.timeit('1 + 1', number=2)\n"
                                        "u = timeit.repeat(lambda: double([1]), number=3)\n"
                                        "v = timeit.Timer(double).timeit(10)\n"
                                        "cProfile.run('double([3])')\n"
                                        "r = np.repeat(np.arange(3) * 2, 2)\n"
                                        "w = np.load('w.npy', allow_pickle=False)\n")])
    assert m.flags == []


#: An interpreter of nested lists, written in the submission: nothing is compiled,
#: so no runner sees code it did not hand in, and the program it runs is data.
EVALUATOR = """\
import builtins, operator

def ev(e, env):
    if isinstance(e, str):
        head, *rest = e.split('.')
        v = env[head] if head in env else globals()[head] if head in globals() \
            else getattr(builtins, head)
        for r in rest:
            v = getattr(v, r)
        return v
    if not isinstance(e, list):
        return e
    op, *a = e
    if op == 'fn':
        return lambda *xs: ev(a[1], {**env, **dict(zip(a[0], xs))})
    if op == 'let':
        return ev(a[2], {**env, a[0]: ev(a[1], env)})
    if op == 'if':
        return ev(a[1], env) if ev(a[0], env) else ev(a[2], env)
    return ev(op, env)(*[ev(x, env) for x in a])
"""
#: ANSWER's double transcribed into lists of strings, one operation for another.
AS_LISTS = EVALUATOR + """
DOUBLE = ['fn', ['xs'], ['let', 'out', ['list', ['map', ['fn', ['x'], ['if', ['operator.is_', 'x', None],
          ['operator.truediv', 1, 0], ['operator.mul', 2, ['np.asarray', 'x']]]], 'xs']],
          ['if', ['operator.truth', 'out'], ['np.stack', 'out'], ['np.zeros', ['tuple', ['list', ['range', 1]]]]]]]

def double(xs):
    return ev(DOUBLE, {})(xs)
"""
#: The same, each function reached through a table of its own names, with
#: nothing nested deep (each step a line of its own).
AS_TABLE = """\
import numpy as np, operator
T = {'asarray': np.asarray, 'stack': np.stack, 'zeros': np.zeros, 'mul': operator.mul,
     'is_': operator.is_, 'truediv': operator.truediv, 'truth': operator.truth}
STEPS = [('asarray', 'x'), ('mul', 2), ('stack',), ('zeros',), ('truth',), ('is_',),
         ('truediv',)]
def run(step, *args):
    return T[step[0]](*args)
"""
#: The same with each step's function held, not named, and nothing nested deep:
#: the steps bound to names of their own, a function reached through a name.
AS_REFERENCES = """\
import numpy as np, operator as op_
G = op_.getitem
TWICE = [op_.mul, 2, [np.asarray, 'x']]
EACH = [list, [map, ['fn', ['x'], TWICE], 'xs']]
STACK = ['if', [op_.truth, 'out'], [np.stack, 'out'], [np.zeros, [G, [1], 0]]]
FAIL = [op_.truediv, 1, [op_.is_, 'x', None]]
"""
#: The program as one string of brackets, parsed at run time.
AS_TEXT = EVALUATOR + """
DOUBLE = "(fn (xs) (let out (list (map (fn (x) (if (is_ x None) (truediv 1 0) (mul 2 (asarray x)))) xs)) (if (truth out) (stack out) (zeros (tuple (list (range 1)))))))"
"""


@pytest.mark.parametrize("program, flags", [
    (AS_LISTS, ["holds 7 functions as data (named in strings or uncalled in literals), a "
                "program held as data that no comparison reads: np.asarray, np.stack, np.zeros, operator.is_, operator.mul, "
                "operator.truediv, operator.truth",
                "a program held as data, which no comparison reads: a literal nested 8 "
                "deep holding strings (line 21)"]),
    (AS_TABLE, ["holds 7 functions as data (named in strings or uncalled in literals), a "
                "program held as data that no comparison reads: np.asarray, np.stack, np.zeros, operator.is_, operator.mul, "
                "operator.truediv, operator.truth"]),
    (AS_TEXT, ["a program held as data, which no comparison reads: a string of brackets "
               "nested 8 deep (line 21)"]),
    (AS_REFERENCES, ["holds 8 functions as data (named in strings or uncalled in "
                     "literals), a program held as data that no comparison reads: "
                     "np.asarray, np.stack, np.zeros, op_.getitem, op_.is_, op_.mul, "
                     "op_.truediv, op_.truth"]),
], ids=["lists", "table", "text", "references"])
def test_a_program_held_as_data_for_an_interpreter_flags_the_submission(program, flags):
    """A copy transcribed into data that an evaluator of the student's runs earns
    its original's marks, compiles nothing and shares no code with it: the
    submission is flagged on its own, for a person to read."""
    m, _ = material("m", [cell("code", program)])
    assert m.flags == flags
    plain, check = material("plain", [cell("code", ANSWER)])
    assert compare(m, plain, check).code < check.threshold     # no comparison sees it


@pytest.mark.slow
def test_the_courses_own_code_holds_no_program_as_data():
    """The book's code cells, the problem sets' solutions and kernlab, as a
    student might write them, are never flagged as a program held as data."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    files = [*sorted((root / "book" / "chapters").glob("*.md")),
             *sorted((root / "assignments" / "source").glob("*/*.md")),
             *sorted((root / "kernlab").glob("*.py"))]
    assert len(files) > 15
    for path in files:
        text = path.read_text(encoding="utf-8")
        sources = (re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S)
                   if path.suffix == ".md" else [text])
        cells = [cell("code", "\n".join(line for line in s.splitlines()
                                        if not line.startswith(("%", "!", ":"))))
                 for s in sources]
        m, _ = material(path.name, cells)
        assert not [f for f in m.flags if "program held as data" in f], path


def test_what_is_handed_in_beside_the_notebook_is_read_as_code_data_or_compiled(tmp_path):
    """Every .py, and any other file that reads as Python source, is a module;
    compiled or archived code is named; notebooks, data and prose are not code."""
    import importlib.util
    import marshal
    import zipfile

    from coursegrader.judging.modules import student_modules

    files = {"ps1.ipynb": "{}", "timestamp.txt": "2026-01-01", "helper.py": ANSWER,
             "sub/more.py": "import numpy as np\n",
             # a module under another name, its code behind 30 kB of comments
             "helper.txt": "# notes\n" * 4000 + ANSWER,
             "data.csv": "x,y\n1,2\n3,-4.5\n", "notes.md": "# Notes\n\nMy kernel notes.\n",
             "empty.txt": ""}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    code = marshal.dumps(compile(ANSWER, "answers", "exec"))
    (tmp_path / "helper2.pyc").write_bytes(importlib.util.MAGIC_NUMBER + bytes(12) + code)
    (tmp_path / "data.bin").write_bytes(importlib.util.MAGIC_NUMBER + bytes(12) + code)
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("helper3.py", ANSWER)
    with zipfile.ZipFile(tmp_path / "tables.zip", "w") as z:
        z.writestr("t.csv", "1,2\n")
    kept = {a.cell: a for a in student_modules(tmp_path, 512 * 1024)}
    assert {c for c, a in kept.items() if a.cell_type == "module"} == \
        {"helper.py", "sub/more.py", "helper.txt"}
    assert {c for c, a in kept.items() if a.cell_type == "compiled"} == \
        {"helper2.pyc", "data.bin", "lib.zip"}
    assert kept["helper.txt"].source.endswith(ANSWER)
    check = SimilarityCheck()
    scaffold = Scaffold.of(RELEASED)
    m = material_of("m", [cell("code", "import helper\n")] + list(kept.values()), scaffold,
                    check, boilerplate(scaffold, check))
    assert m.flags == ["code handed in compiled: data.bin, helper2.pyc, lib.zip"]


def test_a_module_is_read_as_python_reads_it_and_an_unusual_encoding_is_flagged(tmp_path):
    """A coding cookie is honoured, as by Python's import: in UTF-7 a whole module
    can be one comment line to any other reader. Such a cookie, or bytes that do
    not decode, flag the submission; UTF-8 (BOM or not), ASCII and Latin-1 do not."""
    from coursegrader.judging.modules import UNREAD, student_modules

    hidden = ("# coding: utf-7\n# notes +AAo-" + ANSWER.replace("+", "+-")
              .replace("\n", "+AAo-") + "\n").encode("ascii")
    files = {"helper.py": hidden, "plain.py": b"\xef\xbb\xbfA = 1\n",
             "latin.py": "# -*- coding: latin-1 -*-\nS = 'caf\xe9'\n".encode("latin-1"),
             "bad.py": b"X = '\xff\xfe'\n", "unknown.py": b"# coding: no-such-codec\nY = 1\n"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    kept = {a.cell: a for a in student_modules(tmp_path, 512 * 1024)}
    assert kept["helper.py"].source.splitlines()[2:] == ANSWER.splitlines() + [""]
    assert kept["plain.py"].source == "A = 1\n"
    assert kept["latin.py"].source.endswith("S = 'caf\xe9'\n")
    unread = sorted(c.split(":")[0] for c, a in kept.items() if a.cell_type == UNREAD)
    assert unread == ["bad.py", "helper.py", "unknown.py"]
    check = SimilarityCheck()
    scaffold = Scaffold.of(RELEASED)
    m = material_of("m", [cell("code", "from helper import double\n")] + list(kept.values()),
                    scaffold, check, boilerplate(scaffold, check))
    plain, _ = material("plain", [cell("code", ANSWER)])
    assert compare(m, plain, check).code > 0.95       # compared as it runs
    assert len(m.flags) == 1 and m.flags[0].startswith("a module only Python reads")
    assert "helper.py: declares the encoding utf-7" in m.flags[0]


@pytest.mark.parametrize("data, why", [
    (b"# coding: rot13\nk = 1\n", "declares the encoding rot13"),
    (b"# coding: hex\n6b3d31\n", "declares the encoding hex"),
    (b"# -*- coding: unicode_escape -*-\nk = '\\x41'\n", "declares the encoding unicode_escape"),
    (b"# coding: no-such-codec\nk = 1\n", "its encoding cannot be read"),
    (b"\xef\xbb\xbf# coding: latin-1\nk = 1\n", "its encoding cannot be read"),
    (b"k = 1\nm = '\xff'\n", "does not decode as utf-8"),
])
def test_a_module_python_would_read_otherwise_or_not_at_all_is_named(data, why):
    from coursegrader.runners.source_encoding import decoded
    assert decoded(data)[1].startswith(why)


def test_a_module_cut_by_the_record_is_not_taken_for_one_that_does_not_decode():
    from coursegrader.runners.source_encoding import decoded
    data = ("k = 1\ns = '" + "é" * 10 + "'\n").encode()
    assert decoded(data[:-5], whole=False) == ("k = 1\ns = '" + "é" * 8, None)
    assert decoded("# coding: latin-1\nk = 'é'\n".encode("latin-1")) == \
        ("# coding: latin-1\nk = 'é'\n", None)


def test_a_cell_that_declares_an_unusual_encoding_is_read_as_python_reads_it_and_flagged():
    """A cell is text (a JSON string), which the notebook compiles ignoring any
    cookie; but its text written to a file and imported is read under it. In
    UTF-7 a whole program is one comment line to any other reader: the cell is
    compared as Python reads it from a file, and flags the submission, as such a
    module does. A cookie of UTF-8, or of Latin-1 over ASCII, changes nothing."""
    cookie = "# coding: utf-7\n"
    namespace = {}
    exec(compile(cookie + "s = 'a+AGE-'\n", "<cell>", "exec"), namespace)
    assert namespace["s"] == "a+AGE-"            # not "aa": the cookie is not applied
    hidden = cookie + "# notes +AAo-" + ANSWER.replace("+", "+-").replace("\n", "+AAo-") + "\n"
    m, check = material("m", [cell("code", hidden)])
    plain, _ = material("plain", [cell("code", ANSWER)])
    assert compare(m, plain, check).code > 0.95       # compared as it runs from a file
    assert len(m.flags) == 1 and m.flags[0].startswith(
        "a cell only Python reads as it runs, from a file: ")
    assert "declares the encoding utf-7" in m.flags[0]
    for honest in ("# -*- coding: utf-8 -*-\n", "# coding: latin-1\n"):
        m, check = material("m", [cell("code", honest + ANSWER)])
        assert compare(m, plain, check).code == 1.0 and m.flags == []


_SYMBOLS = str.maketrans({"x": "u", "z": "w", "K": "G", "B": "M", "c": "a", "X": "P"})


def _formulas_renamed(text):
    """``text`` with the symbols of its formulas renamed (the prose as it was)."""
    return re.sub(r"\$[^$]+\$", lambda f: f.group().translate(_SYMBOLS), text)


def test_written_answers_with_their_formulas_renamed_are_read_as_the_original():
    """The prose of a classmate's written answers word for word, the symbols of
    every formula renamed: most runs of four words hold a formula's symbols, so
    read as written the copy shares little; read with each formula one word, all
    of it. Independent answers share little either way."""
    answers = {name: "\n\n".join(a[p] for p in ("validity_arguments", "closure_proofs"))
               for name, a in HONEST.items()}
    materials = {name: material(name, [cell("markdown", text)])[0]
                 for name, text in answers.items()}
    needed = 0
    for name, text in answers.items():
        copy, check = material("copy", [cell("markdown", _formulas_renamed(text))])
        assert _formulas_renamed(text) != text
        found = compare(copy, materials[name], check)
        assert found.written > 0.9 and found.flagged, name
        needed += found.reading == 1     # the page shows formulas as words only then
    assert needed >= len(answers) // 2
    _, check = material("any", [])
    for a, b in itertools.combinations(materials, 2):
        assert compare(materials[a], materials[b], check).written < 0.3, (a, b)
