"""A part's process reports the code it runs that the submission did not hand in as
source, whatever library runs it; honest work reports nothing.

Each part runs in the real sandbox (:class:`PartSession`): the copy is
``double`` built from hex text at run time, as a disguised copy hides it.
"""

import subprocess
import sys

import pytest

from attacks import DISABLE_GUARD
from coursegrader.judging.judge import PartSession
from coursegrader import sandbox
from coursegrader.runners.protocol import PartEnd, StopReason, encode

DOUBLE = "def double(xs):\n    return [2 * x for x in xs]\n"
HEX = DOUBLE.encode().hex()
TEXT = f"bytes.fromhex('{HEX}').decode()"
DEFINITION = "global double\n" + DOUBLE

#: name: (the cell that runs the copy, what the report must name)
HIDDEN = {
    "code.InteractiveInterpreter": (
        f"import code as _c\n_c.InteractiveInterpreter(locals()).runsource({TEXT}, "
        "'<cell>', 'exec')\n", "source text compiled (code.py: runsource)"),
    "code.InteractiveConsole": (
        f"import code\nconsole = code.InteractiveConsole(globals())\n"
        f"for line in {TEXT}.splitlines() + ['']:\n    console.push(line)\n",
        "(code.py: push)"),
    "timeit.Timer": (
        f"import timeit\ntimeit.Timer('global double\\n' + {TEXT}, globals=globals()).timeit(1)\n",
        "source text compiled (timeit.py: __init__)"),
    "doctest": (
        "import doctest\n"
        f"doctest.run_docstring_examples('>>> exec(' + repr({TEXT}) + ')', globals())\n",
        "(doctest.py: run_docstring_examples)"),
    "exec": (f"exec({TEXT})\n", "source text compiled (<cell 1>: <module>)"),
    # written out, but as a string, which the similarity check does not read
    "exec of the copy written out": (f"exec({DOUBLE!r})\n",
                                     "source text compiled (<cell 1>: <module>)"),
    "timeit of a definition written out": (
        f"import timeit\ntimeit.Timer({DEFINITION!r}, globals=globals()).timeit(1)\n",
        "source text compiled (timeit.py: __init__)"),
    "a file written, then imported": (
        f"open('mine.py', 'w').write({TEXT})\nfrom mine import double\n",
        "source text compiled ("),
    "marshal": (
        "import marshal\n"
        f"exec(marshal.loads(bytes.fromhex('{{blob}}')))\n", "compiled code loaded"),
    "a code object rewritten": (
        "def double(xs):\n    return xs\n\ndef twice(xs):\n    return [2 * x for x in xs]\n\n"
        "double.__code__ = twice.__code__.replace(co_name='double')\n",
        "a code object built by hand"),
    # the import system pointed at a .pyc of the part's own (a module not yet
    # imported; hash-based and unchecked, so that the import takes it)
    "the import system's cache path changed": (
        "import importlib._bootstrap_external as b\n"
        "open('c.pyc', 'wb').write(bytes.fromhex('{pyc}'))\n"
        "b.cache_from_source = lambda path, *a, **k: 'c.pyc'\n"
        "from colorsys import double\n", "compiled code loaded"),
    # the text of a cell (double's, below) compiled under an installed module's name
    "a cell passed off as an installed module": (
        DOUBLE + f"import colorsys\nexec(compile({DOUBLE!r}, colorsys.__file__, 'exec'))\n",
        "source text compiled"),
    "ast": (f"import ast\nexec(compile(ast.Module(ast.parse({TEXT}).body, []), 'x', 'exec'))\n",
            "source text compiled"),
}


def _cell(name):
    """The cells of the hidden run ``name``, its compiled copies filled in."""
    import importlib.util
    import marshal
    cell, _ = HIDDEN[name]
    blob = marshal.dumps(compile(DOUBLE, "x", "exec"))
    if "{blob}" in cell:
        cell = cell.replace("{blob}", blob.hex())
    if "{pyc}" in cell:
        pyc = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + blob
        cell = cell.replace("{pyc}", pyc.hex())
    if name == "a cell passed off as an installed module":
        return [DOUBLE, cell[len(DOUBLE):]]
    return [cell]


@pytest.fixture(scope="module")
def session():
    with PartSession() as s:
        yield s


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_code_not_handed_in_is_reported_whatever_runs_it(session, name):
    run = session.run(_cell(name), "double", [([1, 2],)], timeout=30)
    if name != "doctest":     # doctest's debugger is refused: the copy earns nothing
        assert run.values == [(True, [2, 4])], run     # it earns the marks...
    assert run.ran and HIDDEN[name][1] in run.ran[0], run.ran    # ...and is named


def test_honest_work_reports_nothing(tmp_path):
    """Imports, the standard library's generated code (namedtuple, dataclasses, a
    type in quotes), numpy and scipy, timing written out, and a module handed in
    beside the notebook."""
    (tmp_path / "helper.py").write_text("def triple(x):\n    return 3 * x\n")
    cells = ["import numpy as np\nimport scipy.linalg\nimport timeit\n"
             "from collections import namedtuple\nfrom dataclasses import dataclass, field\n"
             "import typing\nfrom typing import NamedTuple\nfrom helper import triple\n",
             "P = namedtuple('P', 'x y')\n\nclass Q(NamedTuple):\n    a: int\n\n"
             "@dataclass(frozen=True)\nclass D:\n    lam: float = 1.0\n"
             "    xs: list = field(default_factory=list)\n\n"
             "def double(xs: 'list[float] | None') -> 'typing.List[float]':\n"
             "    K = np.outer(xs, xs) + D().lam * np.eye(len(xs))\n"
             "    scipy.linalg.cho_factor(K)\n"
             "    timeit.timeit('1 + 1', number=2)\n"
             "    return [2 * x for x in xs] if P(1, 2).x == Q(1).a == triple(1) // 3 else []\n"]
    cells.append("hints = typing.get_type_hints(double)\n")
    with PartSession(files_from=tmp_path) as own:
        run = own.run(cells, "double", [([1, 2],), ([3],)], timeout=30)
    assert run.values == [(True, [2, 4]), (True, [6])], run
    assert run.ran == ()


@pytest.mark.slow
def test_a_large_module_no_part_imports_costs_no_part_its_time(tmp_path):
    """12 MB of module beside the notebook, imported by no part: its strings are
    not read (parsing it held each part past its time, every part scoring 0), and
    those of a small module are, once for all the parts."""
    (tmp_path / "table.py").write_text("x = 'a'\n" * (12 * 1024**2 // 8))
    (tmp_path / "helper.py").write_text("ONES = '[1, 1, 1]'\n")
    cell = "from helper import ONES\nassert eval(ONES) == [1, 1, 1]\n" + DOUBLE
    with PartSession(files_from=tmp_path) as own:
        runs = [own.run([cell], "double", [([k],)], timeout=20) for k in range(3)]
    assert [r.values for r in runs] == [[(True, [2 * k])] for k in range(3)], runs
    assert all(r.ran == () for r in runs), [r.ran for r in runs]


def test_a_dataclass_whose_field_names_are_code_is_reported(session):
    """dataclasses writes its fields' names into the code it generates: only
    names that are identifiers are the standard library's own."""
    cell = ("import dataclasses\n"
            "C = type('C', (), {'__annotations__': {'a=1,**k': int}})\n"
            "try:\n    dataclasses.dataclass(C)\nexcept Exception:\n    pass\n" + DOUBLE)
    run = session.run([cell], "double", [([1],)], timeout=30)
    assert run.values == [(True, [2])]
    assert run.ran and "dataclasses.py" in run.ran[0], run.ran


def _utf7(text):
    """``text`` as UTF-7 with its line breaks written ``+AAo-``: one line."""
    return "+AAo-".join(line.encode("utf-7").decode("ascii") for line in text.split("\n"))


#: A cell that every reader but Python's takes for two comment lines: from a
#: file, under its coding cookie, it defines ``double``.
UTF7_CELL = "# coding: utf-7\n# my notes. " + _utf7("\n" + DOUBLE) + "\n"
#: name: the cell that writes UTF7_CELL's text to a file and runs it as Python reads it
FROM_A_FILE = {
    "import": f"open('notes.py', 'w').write({UTF7_CELL!r})\nfrom notes import double\n",
    "importlib": ("import importlib, pathlib\n"
                  f"pathlib.Path('notes2.py').write_text({UTF7_CELL!r})\n"
                  "double = importlib.import_module('notes2').double\n"),
    "compile of its bytes": (f"exec(compile({UTF7_CELL!r}.encode(), '<cell 1>', 'exec'))\n"),
}


@pytest.mark.parametrize("how", sorted(FROM_A_FILE))
def test_a_cell_that_python_reads_otherwise_from_a_file_is_not_the_cells_code(session, how):
    """A cell's own text, compiled from a file (or as bytes), under a coding cookie
    that makes Python read another text than the cell's (``# coding: utf-7``):
    not the cell's code, though its bytes are the cell's.  The cell itself, run as
    the notebook runs it (its cookie unread: two comment lines), reports nothing."""
    run = session.run([UTF7_CELL, FROM_A_FILE[how]], "double", [([1, 2],)], timeout=30)
    assert run.values == [(True, [2, 4])], run
    assert run.ran and "source text in an unusual encoding (utf-7)" in run.ran[0], run.ran
    alone = session.run([UTF7_CELL, DOUBLE], "double", [([1, 2],)], timeout=30)
    assert alone.values == [(True, [2, 4])] and alone.ran == (), alone


def test_code_does_not_run_unreported_with_the_answer_channel_closed(session):
    """A part that puts another file in place of its answer channel before running
    hidden code: the code does not run (nothing it built answers)."""
    cell = ("import os\nfds = [int(f) for f in os.listdir('/proc/self/fd')]\n"
            "saved = {fd: os.dup(fd) for fd in fds if fd > 2}\n"
            "null = os.open(os.devnull, os.O_WRONLY)\n"
            "for fd in saved:\n    os.dup2(null, fd)\n"
            "try:\n"
            f"    exec({TEXT})\n"
            "finally:\n"
            "    for fd, copy in saved.items():\n        os.dup2(copy, fd)\n")
    run = session.run([cell], "double", [([1, 2],)], timeout=30)
    ok, message = run.values[0]
    assert not ok and "double is not defined" in message, run


#: The part's code turning the report off from inside its own interpreter, then
#: running the copy from hex text, as a student wrote it.
SWITCH_OFF = {
    # the runner's encoder replaced by one that drops the reports and passes
    # the answers on (found by what its module holds, not by its name)
    "the runner's encode rebound": (
        "import sys\nfor _mod in list(sys.modules.values()):\n"
        "    _d = getattr(_mod, '__dict__', {})\n"
        "    if '_reporter' in _d and 'encode' in _d:\n"
        "        _d['encode'] = (lambda _e: (lambda obj: b'' if type(obj).__name__ == 'Ran'"
        " else _e(obj)))(_d['encode'])\n"
        "import builtins\n_run = vars(builtins)[''.join(reversed('cexe'))]\n"
        f"_run({TEXT}, globals())\n"),
    # the same, then the copy written as a module at run time and imported
    "the runner's encode rebound, a module imported": (
        "import sys\nfor _mod in list(sys.modules.values()):\n"
        "    _d = getattr(_mod, '__dict__', {})\n"
        "    if '_reporter' in _d and 'encode' in _d:\n"
        "        _d['encode'] = (lambda _e: (lambda obj: b'' if type(obj).__name__ == 'Ran'"
        " else _e(obj)))(_d['encode'])\n"
        f"with open('impl.py', 'w') as _f:\n    _f.write({TEXT})\n"
        "from impl import double\n"),
    # every name the report and the watch look up: os.write, the protocol's and
    # the watch's functions, the path functions, builtins; the copy compiled
    # under the first cell's name with the watch told its text is that cell's
    "the watch's and the report's names rebound": (
        "import sys, os, builtins, posixpath\n_w = os.write\n"
        "os.write = lambda fd, b: len(b) if b'ran' in bytes(b) else _w(fd, b)\n"
        "for _mod in list(sys.modules.values()):\n"
        "    _d = getattr(_mod, '__dict__', {})\n"
        "    if 'adds_no_code' in _d:\n"
        "        _d['_text_bytes'] = lambda s: b'X = [1, 2]\\n'\n"
        "        _d['_under'] = lambda p, r: True\n"
        "    if 'ran_line' in _d:\n        _d['ran_line'] = lambda d: b''\n"
        "posixpath.realpath = lambda p, *a, **k: p\n"
        "builtins.any = lambda it: True\n"
        f"exec(compile({TEXT}, '<cell 1>', 'exec'))\n"),
    # the guard's names switched off through a traceback, then the hooks' state
    # changed through gc and ctypes, and a trace function set
    "the hooks reached through gc, ctypes and a trace function": (
        DISABLE_GUARD + "_disable_guard()\nimport gc, sys\n"
        "try:\n    sys.settrace(lambda *a: None)\nexcept Exception:\n    pass\n"
        "try:\n    import ctypes\n    ctypes.c_long.from_address(id(0)).value\n"
        "except Exception:\n    pass\n"
        "for _o in gc.get_objects():\n"
        "    if type(_o).__name__ == 'function' and 'runner' in _o.__code__.co_filename:\n"
        "        for _c in _o.__closure__ or ():\n"
        "            if type(_c.cell_contents) is list:\n"
        "                _c.cell_contents[:] = [0]\n"
        "        try:\n"
        "            _o.__defaults__ = (None,) * len(_o.__defaults__ or ())\n"
        "        except Exception:\n            pass\n"
        f"exec({TEXT})\n"),
}


@pytest.mark.parametrize("name", sorted(SWITCH_OFF))
def test_the_report_cannot_be_switched_off_from_inside(session, name):
    """Whatever the part's code rebinds or reaches in its own interpreter, the copy
    it then runs is reported (and earns its marks, as working code does), or, where
    it broke the report's own parts, the part ends as tampered with: no marks."""
    run = session.run(["X = [1, 2]\n", SWITCH_OFF[name]], "double",
                      [([1, 2],), ([3],)], timeout=30)
    if run.stop is not None and run.stop.reason is StopReason.TAMPERED:
        assert all(not ok and "tampered" in message for ok, message in run.values), run
    else:
        assert run.values == [(True, [2, 4]), (True, [6])], run
        assert run.ran and "compiled" in run.ran[0], run.ran


def test_a_part_that_replaces_its_answer_channel_scores_nothing(session):
    """Another pipe put in place of the answer channel before the copy runs: the
    part's process ends there, and none of its answers counts."""
    cell = ("import os, stat\nr, w = os.pipe()\n"
            "for fd in range(3, 64):\n"
            "    try:\n"
            "        if fd not in (r, w) and stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
            "            os.dup2(w, fd)\n"
            "    except OSError:\n        pass\n"
            f"exec({TEXT})\n")
    run = session.run(["X = [1, 2]\n", cell], "double", [([1, 2],), ([3],)], timeout=30)
    assert run.stop is not None and run.stop.reason is StopReason.TAMPERED, run
    assert all(not ok and "tampered" in message for ok, message in run.values), run
    honest = session.run(["X = [1, 2]\n", DOUBLE], "double", [([1, 2],)], timeout=30)
    assert honest.values == [(True, [2, 4])] and honest.ran == (), honest


def test_the_watch_looks_up_no_name_at_run_time():
    """The hook and every function of the grader's it calls (the report and its
    encoder among them) take all they use as defaults: no global, builtin or
    closed-over name in their code, which the part's code could rebind (a
    module's dict, ``builtins``, a closure's cells).  The import system's
    functions it holds are only compared, never called."""
    import dis
    import types

    from coursegrader.runners import code_origin, part_runner

    hook = code_origin._hook(frozenset(), frozenset(), (), (), part_runner._reporter(1),
                             ((b"# coding: utf-7\n", "utf-7"),))
    runners = code_origin.__name__.rpartition(".")[0]
    seen, todo = set(), [hook]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        assert f.__closure__ is None and not f.__kwdefaults__, f
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            looked_up = [i.argval for i in dis.get_instructions(code)
                         if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF",
                                         "LOAD_CLASSDEREF")]
            assert not looked_up, (f.__qualname__, looked_up)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for d in f.__defaults__ or ():
            d = getattr(d, "__wrapped__", d)     # the cache around the path resolver
            if isinstance(d, types.FunctionType) and d.__module__.startswith(runners):
                todo.append(d)
    assert len(seen) >= 17


def test_a_report_named_in_escaped_characters_is_still_read(session):
    """The report names the frame the code came in from, whose file name the
    student chose: the longest it can be is still read as a report, not as an
    answer (which would fail a case and lose the report)."""
    hidden = f"exec({TEXT})\n"
    renamed = (f"exec(compile({hidden!r}, '<cell ' + '\\U0001F600' * 400 + '>', 'exec'))\n")
    run = session.run([renamed, hidden], "double", [([1, 2],)], timeout=30)
    assert run.values == [(True, [2, 4])], run
    assert run.ran and "\U0001F600" in run.ran[0], run.ran


#: Strings of code written out in a cell and handed to a runner of source text:
#: whether each runs code of its own (``adds_no_code``'s rule, which the watch
#: and the similarity check both apply).
STRINGS = {
    "double([1, 2])": False,                               # timing the answer: honest
    "double(X)": False,
    "1 + 1": False,
    "pass": False,
    f"exec(bytes.fromhex('{HEX}'))": True,                 # a copy hidden in a string
    "global double\nY = double([3])": True,                # two statements
    "Y = double([3])": True,
    "[double([v]) for v in X]": True,
}
#: A runner of each kind, given the string written out.
RUNNERS = {
    "timeit.Timer": "import timeit\ntimeit.Timer({s!r}, globals=globals()).timeit(1)\n",
    "timeit.timeit": "import timeit\ntimeit.timeit({s!r}, globals=globals(), number=1)\n",
    "exec": "exec({s!r})\n",
    "code": "import code\ncode.InteractiveInterpreter(globals()).runsource({s!r}, 'x', 'exec')\n",
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_the_watch_and_the_similarity_check_judge_a_string_by_one_rule(session, runner):
    """Each string run by each runner: the part's watch reports it exactly when the
    similarity check's static scan flags it, and honest timing
    (``timeit.timeit("double(X)", globals=...)``) is neither reported nor flagged."""
    from coursegrader.record import AnswerCode
    from coursegrader.similarity.material import (Scaffold, SimilarityCheck, boilerplate,
                                                  material_of)

    check = SimilarityCheck()
    scaffold = Scaffold.of([])
    boiler = boilerplate(scaffold, check)
    for string, hidden in STRINGS.items():
        cell = DOUBLE + "X = [1, 2]\n" + RUNNERS[runner].format(s=string)
        run = session.run([cell], "double", [([1, 2],)], timeout=30)
        assert run.values == [(True, [2, 4])], (string, run)
        m = material_of("m", [AnswerCode(None, cell)], scaffold, check, boiler)
        flagged = [f for f in m.flags if "of its own" in f or "not written out" in f]
        assert bool(run.ran) == bool(flagged) == hidden, (string, run.ran, m.flags)


def test_a_runners_report_of_tampering_is_read_before_its_end():
    """The part runner reports a part's process as tampered with on its control
    pipe, then exits (code 3). On a busy machine the end of its output and the
    report are ready at once; read in either order, the part is tampered with,
    never merely "exited with code 3"."""
    report = encode(PartEnd(0, tampered=True)).decode()
    for first in ("report", "silence"):
        script = ("import os, sys, time\n"
                  f"os.write(2, {report!r}.encode())\n"
                  + ("" if first == "report" else "time.sleep(0.2)\n")
                  + "os._exit(3)\n")
        proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=30)              # both pipes hold what they will hold
            channel = sandbox.Channel(sandbox.Run(proc, None, None))
            channel.expect(30, 1000)
            with pytest.raises(sandbox.Stopped) as stopped:
                channel.receive()
            assert stopped.value.reason is StopReason.TAMPERED, stopped.value
            channel.close()
        finally:
            proc.kill()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                pipe.close()
