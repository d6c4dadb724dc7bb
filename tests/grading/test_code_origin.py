"""A part's process reports the code it runs that the submission did not hand in as
source, whatever library runs it; honest work reports nothing.

Each part runs in the real sandbox (:class:`PartSession`): the copy is
``double`` built from hex text at run time, as a disguised copy hides it.
"""

import pytest

from coursegrader.judging.judge import PartSession

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


def test_a_dataclass_whose_field_names_are_code_is_reported(session):
    """dataclasses writes its fields' names into the code it generates: only
    names that are identifiers are the standard library's own."""
    cell = ("import dataclasses\n"
            "C = type('C', (), {'__annotations__': {'a=1,**k': int}})\n"
            "try:\n    dataclasses.dataclass(C)\nexcept Exception:\n    pass\n" + DOUBLE)
    run = session.run([cell], "double", [([1],)], timeout=30)
    assert run.values == [(True, [2])]
    assert run.ran and "dataclasses.py" in run.ran[0], run.ran


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
