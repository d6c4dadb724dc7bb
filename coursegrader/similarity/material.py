"""What of a submission is compared: its code and its written answers, within bounds.

The code is every code cell the student wrote or changed: the answer cells
and any cell the student added, wherever it is, and every Python module
handed in beside the notebook (``helper.py``, imported or put on
``sys.path``), since all of it runs before the parts' tests (a cell or a
module exactly as released is the course's, not the student's). Modules are
put in the same normal form as cells and share their bounds. A cell whose
text declares an encoding (PEP 263) under which Python, reading it from a
file, reads other text (``# coding: utf-7``: a program in what every other
reader takes for one comment line) is compared as Python reads it, and flags
the submission, as such a module does. The written answers are every
Markdown cell that is not exactly as released: the written answer cells and
any the student added. Each is read up to a bound
(:class:`SimilarityCheck`: bytes and statements of code, bytes of text), so
that no submission makes the check slow or its page large; what is cut is
said, per submission, in :attr:`Material.notes`.
"""

import ast
import builtins
import importlib
import re
from dataclasses import dataclass, field

import numpy as np
from traitlets import Float, Integer
from traitlets.config import Configurable

from ..judging.cells import parse_cell, shares
from ..judging.modules import COMPILED, MODULE, UNREAD
from ..runners.code_origin import adds_no_code
from ..runners.source_encoding import decoded, unusual_in_a_file
from .code import lexical_form, normal_code
from .fingerprints import Fingerprint
from .letters import cyrillic_letters
from .rendered import styled_markup, without_comments
from .text import Reading, mixed_script_words, words
from .values import literals, variant_reads

__all__ = ["SimilarityCheck", "Scaffold", "Material", "boilerplate", "material_of",
           "uncomparable"]


class SimilarityCheck(Configurable):
    """How submissions are compared, what flags a pair, and the bounds on each."""

    threshold = Float(
        0.6, min=0.0, max=1.0,
        help="A pair is flagged when at least this share of one submission's code "
             "(in normal form, after boilerplate) is found in the other.").tag(config=True)
    written_threshold = Float(
        0.5, min=0.0, max=1.0,
        help="A pair is flagged when at least this share of the runs of words of "
             "one submission's written answers is found in the other's.").tag(config=True)
    noise = Integer(
        25, min=5,
        help="Matches shorter than this many characters of normal-form code are "
             "ignored (copydetect's noise threshold).").tag(config=True)
    guarantee = Integer(
        30, min=5,
        help="Matches at least this long are always found (copydetect's guarantee "
             "threshold; at least noise).").tag(config=True)
    shingle_words = Integer(
        4, min=2, help="Written answers are compared as runs of this many words."
    ).tag(config=True)
    skipped_words = Integer(
        2, min=0,
        help="A run of words of one submission's written answers is found in "
             "another's also with at most this many words put between its words "
             "there (a word added after every second or third hides nothing)."
    ).tag(config=True)
    min_code_chars = Integer(
        60, min=0,
        help="Code with fewer characters of normal form (after boilerplate) than this "
             "is too short to flag.").tag(config=True)
    min_written_runs = Integer(
        15, min=1,
        help="Written answers with fewer runs of words (after the prompt's) than this "
             "are too short to flag.").tag(config=True)
    max_code_bytes = Integer(
        100_000, min=1000,
        help="Of each submission, at most this many bytes of code are compared "
             "(the smallest cells first; the rest is cut and the page says so)."
    ).tag(config=True)
    max_statements = Integer(
        3000, min=10,
        help="Of each submission, at most this many statements of code are compared."
    ).tag(config=True)
    max_written_bytes = Integer(
        100_000, min=1000,
        help="Of each submission, at most this many bytes of written answers are "
             "compared.").tag(config=True)
    max_values = Integer(
        5000, min=10,
        help="Of each submission, at most this many numbers and arrays of numbers "
             "(beyond trivially common ones) are compared with the class's variants."
    ).tag(config=True)
    common_share = Float(
        0.05, min=0.0, max=1.0,
        help="A value that more than this share of the class's variants (and at least "
             "common_min of them), or of common_draws variants, hold is common, and never "
             "evidence of a copy."
    ).tag(config=True)
    common_draws = Integer(
        200, min=10,
        help="How many variants of the problem set (drawn for made-up students) tell "
             "which values are common: one that more than common_share of them hold "
             "is never evidence.").tag(config=True)
    verdict_min = Integer(
        5, min=1,
        help="Two students of different variants are flagged when they hand in the same "
             "verdicts (Part.verdict) on at least this many of the cases where their "
             "variants' right verdicts differ, and at least verdict_share of them."
    ).tag(config=True)
    verdict_share = Float(
        1.0, min=0.0, max=1.0,
        help="See verdict_min: the share of the cases where two variants' right verdicts "
             "differ on which the two students must hand in the same verdict."
    ).tag(config=True)
    common_min = Integer(
        3, min=2,
        help="A value held by fewer variants of the class than this is never common."
    ).tag(config=True)
    names_as_data = Integer(
        6, min=2,
        help="A submission whose strings name this many functions or more of Python's "
             "builtins or of the standard modules and NumPy (\"np.asarray\", "
             "\"operator.mul\", \"len\") holds a program as data, run by an "
             "interpreter of its own, which no comparison reads: it is flagged on its "
             "own.").tag(config=True)
    other_variants = Integer(
        3, min=2,
        help="For a problem set whose variants are finitely many (Variation.space), a "
             "submission that holds the public answers of at least this many variants "
             "other than its own (a table of the student package's answers, right on "
             "every variant's public checks) is flagged on its own.").tag(config=True)
    page_chars = Integer(
        20_000, min=1000,
        help="The report page shows at most this many characters of each side of a "
             "flagged pair.").tag(config=True)
    page_pairs = Integer(
        100, min=1,
        help="The report page shows at most this many flagged pairs side by side "
             "(the CSV lists every pair).").tag(config=True)


@dataclass(frozen=True)
class Scaffold:
    """What the course wrote: the released cells (a submitted cell that is one of
    them, unchanged, is not the student's), the names the release binds (the
    graded functions: they keep their names), and the released code and words,
    which never count as shared."""

    released: frozenset
    keep: frozenset
    code: str
    text: tuple
    numbers: tuple = ()
    prose: tuple = ()          # the released words, each formula one word
    imports: frozenset = frozenset()   # the names the release's imports bind (``np``)

    @classmethod
    def of(cls, released_cells, released_modules=()):
        """The scaffold of a problem set from its released notebook's cells and the
        sources of the Python modules released beside it."""
        trees = [t for t in (parse_cell(c.source) for c in released_cells
                             if c.cell_type == "code") if t is not None]
        trees += [t for t in map(parse_cell, released_modules) if t is not None]
        keep = frozenset(n for t in trees for n in _top_names(t))
        code = normal_code(trees, keep)
        markdown = "\n".join(c.source for c in released_cells if c.cell_type == "markdown")
        text = tuple(words(markdown))
        released = {(c.cell_type, c.source.strip()) for c in released_cells}
        released |= {(MODULE, source.strip()) for source in released_modules}
        cells = list(released_cells) + [_Cell(MODULE, s) for s in released_modules]
        numbers, _ = literals(cells, limit=100_000)
        imports = frozenset(a.asname or a.name.split(".")[0] for t in trees for s in t.body
                            if isinstance(s, (ast.Import, ast.ImportFrom)) for a in s.names)
        return cls(frozenset(released), keep, code, text, tuple(numbers),
                   tuple(words(markdown, formulas=False)), imports)


@dataclass(frozen=True)
class _Cell:
    """A released module, read as a cell."""

    cell_type: str
    source: str
    cell: str = "the release"


def _top_names(tree):
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield stmt.name
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    yield t.id
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for a in stmt.names:
                yield a.asname or a.name.split(".")[0]


@dataclass(eq=False)
class Material:
    """One submission's compared material: its code in normal form, the words of
    its written answers, what the bounds cut (``notes``), and why it is flagged
    on its own (``flags``: code no comparison reads: code its parts ran that it
    did not hand in as source, built from data, handed in compiled, a module or
    a cell in an encoding only Python should read, or modules the bounds left out; ``tables``: it holds the public answers of many variants other
    than its own)."""

    student: str
    code: str
    text: list
    notes: list = field(default_factory=list)
    prints: object = None      # the fingerprint of ``code`` (:mod:`.fingerprints`)
    #: its written answers read with their formulas as written and with each
    #: formula one word (:class:`~.text.Reading`), compared reading by reading
    readings: tuple = ()
    flags: list = field(default_factory=list)
    numbers: list = field(default_factory=list)   # its values.Literal s
    variant: str = None        # the label of the variant its record was judged on
    verdicts: dict = field(default_factory=dict)   # {part: {case: verdict}} handed in
    tables: list = field(default_factory=list)   # why it holds other variants' answers
    #: words of its written answers that mix Latin and Cyrillic letters (with the
    #: Cyrillic ones named), which flag it on its own
    mixed_scripts: list = field(default_factory=list)
    #: tags of its written answers that may style or hide text (as written), which
    #: flag it on its own: the comparison cannot know how they show
    styled_markup: list = field(default_factory=list)
    #: why it could not be compared at all (what it holds broke the check), which
    #: flags it on its own and fails ``make similarity``; None when it was compared
    failed: str = None
    #: the keys of the variant ``V`` its code reads (:func:`~.values.variant_reads`)
    reads: frozenset = frozenset()

    @property
    def code_chars(self):
        return int(self.prints.token_coverage) if self.prints is not None else 0


def _kb(n):
    return f"{n / 1000:.0f} kB" if n < 1000**2 else f"{n / 1000**2:.1f} MB"


#: Names through which code made from data runs (an encoded copy, say), which no
#: comparison sees: the builtins that run or load code, the modules that decode or
#: load it, and the ways to reach a builtin by a computed name.
_RUNTIME_CODE = frozenset({"exec", "eval", "compile", "__import__", "builtins",
                           "__builtins__", "importlib", "base64", "codecs", "marshal",
                           "pickle", "zlib", "runpy", "globals", "vars", "setattr",
                           "CodeType", "FunctionType"})


def _runtime_code(tree):
    """The names in ``tree`` through which it may run code it builds or code it
    handed in beside the notebook: any of :data:`_RUNTIME_CODE`, ``sys.path``, and
    ``getattr`` with a name that is not written out."""
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in _RUNTIME_CODE:
            found.add(n.id)
        elif isinstance(n, ast.Attribute) and n.attr in _RUNTIME_CODE:
            found.add(n.attr)
        elif isinstance(n, ast.alias) and n.name.split(".")[0] in _RUNTIME_CODE:
            found.add(n.name.split(".")[0])
        elif (isinstance(n, ast.Attribute) and n.attr == "path"
              and isinstance(n.value, ast.Name) and n.value.id == "sys"):
            found.add("sys.path (a module of its own files)")
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "getattr" and len(n.args) >= 2
              and not (isinstance(n.args[1], ast.Constant)
                       and isinstance(n.args[1].value, str))):
            found.add("getattr with a computed name")
    return found


def _literal(node):
    """Whether ``node`` is code written out: a string constant (an f-string is
    text built as it runs)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _runs_code_of_its_own(node):
    """Whether ``node`` is a string written out that runs code of its own, by the
    rule the parts' runner applies as the code runs
    (:func:`~coursegrader.runners.code_origin.adds_no_code`)."""
    return _literal(node) and not adds_no_code(node.value)


def _called(node):
    """The name a call's function is written as (``loads`` of ``marshal.loads``)."""
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
        else None


#: What loads code from a file of any name, or from compiled or archived code,
#: outside the import of a ``.py`` file (which the check reads).
_LOADERS = frozenset({"SourceFileLoader", "SourcelessFileLoader", "ExtensionFileLoader",
                      "spec_from_file_location", "spec_from_loader", "run_path",
                      "load_source", "load_compiled", "load_dynamic", "load_module",
                      "zipimporter"})


#: A function's code, globals and cells: what building a function by hand starts from.
_FUNCTION_INSIDES = frozenset({"__code__", "__globals__", "__closure__", "func_code"})


def _builtin(func):
    """Whether a call's function is written as a builtin (``compile``,
    ``builtins.compile``), not as a method of something else (``re.compile``)."""
    return isinstance(func, ast.Name) or (isinstance(func, ast.Attribute)
                                          and isinstance(func.value, ast.Name)
                                          and func.value.id in ("builtins", "__builtins__"))


def _built_from_data(tree):
    """What in ``tree`` runs code made from data no comparison reads (bytes,
    an encoded string, a file): marshal, a code or function object built by
    hand, ``exec``, ``eval`` or ``compile`` of anything but code written out,
    and a module loaded by hand (from a file of any name, compiled or archived).
    Honest answers to a problem set have no use for these; a disguised copy
    does."""
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.alias) and n.name.split(".")[0] == "marshal" \
                or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "marshal":
            found.add("marshal")
        elif isinstance(n, ast.Attribute) and n.attr in _FUNCTION_INSIDES:
            found.add(f"a function's insides ({n.attr})")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id == "type" and n.args and isinstance(n.args[0], ast.Lambda):
            found.add("the type of a function, to build functions by hand")
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id == "marshal":
            found.add("marshal")
        elif isinstance(n, ast.Call):
            name = _called(n)
            if name in ("CodeType", "FunctionType", "LambdaType", "MethodType"):
                found.add(f"a {name} built by hand")
            elif name == "replace" and any(k.arg and k.arg.startswith("co_")
                                           for k in n.keywords):
                found.add("a code object rewritten")
            elif name in ("exec", "eval", "compile") and _builtin(n.func) and n.args \
                    and not _literal(n.args[0]):
                found.add(f"{name} of code that is not written out")
            elif name in ("exec", "eval", "compile") and _builtin(n.func) and n.args \
                    and _runs_code_of_its_own(n.args[0]):
                found.add(f"{name} of a string that runs code of its own")
            elif name in _LOADERS:
                found.add(f"a module loaded by hand ({name})")
    return found


#: The modules whose functions a program held as data would name: a string naming
#: one of their attributes (``"np.column_stack"``, ``"operator.mul"``) is a name
#: held as data. Only these are imported, whatever a submission imports.
_NAMED_MODULES = frozenset({"numpy", "math", "cmath", "operator", "itertools",
                            "functools", "builtins", "statistics", "scipy",
                            "scipy.linalg", "numpy.linalg"})
#: The names a submission may use for them without importing them (the setup cell's).
_USUAL_NAMES = {"np": "numpy", "numpy": "numpy", "math": "math", "operator": "operator",
                "itertools": "itertools", "functools": "functools", "la": "numpy.linalg",
                "scipy": "scipy", "builtins": "builtins"}
#: Builtins whose names are everyday words of data (a key "id", a label "max").
_WORDS = frozenset({"id", "min", "max", "sum", "all", "any", "abs", "input", "format",
                    "hash", "open", "round", "filter", "print", "help", "next", "iter",
                    "map", "zip", "range", "vars", "dir", "exit", "quit", "copyright",
                    "credits", "license", "bin", "hex", "oct", "pow", "len"})
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _docstrings(tree):
    """The string constants of ``tree`` that are docstrings (prose, never data)."""
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                              ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}


def _named_attribute(modules, dotted):
    """Whether ``dotted`` (``"np.column_stack"``) names an attribute of one of
    ``modules`` ({name in the code: module})."""
    head, _, rest = dotted.partition(".")
    value = modules.get(head)
    if value is None or not rest:
        return False
    for part in rest.split("."):
        value = getattr(value, part, None)
        if value is None:
            return False
    return True


def _function(value):
    """Whether ``value`` is a function (not a type, which ``isinstance`` takes)."""
    return callable(value) and not isinstance(value, type)


def _names_as_data(trees):
    """The functions of Python's builtins, NumPy and the standard modules that
    ``trees`` name in strings (``"np.asarray"``, ``"operator.mul"``, ``"repr"``,
    and a table ``{"asarray": np.asarray}``) or hold, uncalled, in a literal
    (``[np.column_stack, ...]``, ``[G, "X", 1]`` with ``G = operator.getitem``):
    the functions a program held as data calls, for an interpreter written in
    the submission to run. Honest code names a function in a string seldom
    (a dtype, a label); everyday words are not counted."""
    imported = dict(_USUAL_NAMES)
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    imported[a.asname or a.name.split(".")[0]] = \
                        a.name if a.asname else a.name.split(".")[0]
    modules = {}
    for name, module in imported.items():
        if module in _NAMED_MODULES:
            try:
                modules[name] = importlib.import_module(module)
            except ImportError:
                continue
    found = set()
    aliases = {}     # a name bound to a module's function: G = operator.getitem
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Attribute) \
                    and isinstance(n.value.value, ast.Name) and n.value.value.id in modules \
                    and _function(getattr(modules[n.value.value.id], n.value.attr, None)):
                aliases[n.targets[0].id] = f"{n.value.value.id}.{n.value.attr}"
    for tree in trees:
        docstrings = _docstrings(tree)
        for n in ast.walk(tree):
            if isinstance(n, _CONTAINERS):   # functions held, not called: [np.stack, ...]
                for item in (n.values if isinstance(n, ast.Dict) else n.elts):
                    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) \
                            and item.value.id in modules \
                            and _function(getattr(modules[item.value.id], item.attr, None)):
                        found.add(f"{item.value.id}.{item.attr}")
                    elif isinstance(item, ast.Name) and item.id in aliases:
                        found.add(aliases[item.id])
            if isinstance(n, ast.Dict):      # a table of functions keyed by their names
                for k, v in zip(n.keys, n.values):
                    if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                        continue
                    if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) \
                            and v.value.id in modules and v.attr == k.value:
                        found.add(f"{v.value.id}.{v.attr}")
                    elif isinstance(v, ast.Name) and v.id == k.value \
                            and callable(getattr(builtins, v.id, None)):
                        found.add(v.id)
            if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) \
                    or id(n) in docstrings:
                continue
            text = n.value.strip()
            if not _DOTTED_NAME.fullmatch(text):
                continue
            if "." in text:
                if _named_attribute(modules, text):
                    found.add(text)
            elif text not in _WORDS and not text.startswith("_") \
                    and callable(getattr(builtins, text, None)) \
                    and not isinstance(getattr(builtins, text), type):
                found.add(text)
    return found


#: Literals and strings nested this deep hold a program, not data: honest
#: answers' deepest are 4 (a list of pairs of arrays).
_PROGRAM_DEPTH = 8
_CONTAINERS = (ast.List, ast.Tuple, ast.Dict, ast.Set)


def _depth(node):
    """How deep containers nest in the literal ``node`` (``[1, [2]]``: 2)."""
    if not isinstance(node, _CONTAINERS):
        return 0
    depth, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        depth = max(depth, d)
        for k in (n.values if isinstance(n, ast.Dict) else n.elts):
            if isinstance(k, _CONTAINERS):
                stack.append((k, d + 1))
    return depth


def _bracket_depth(text):
    """How deep brackets nest in ``text`` (``"(f (g x))"``: 2)."""
    depth = deepest = 0
    for c in text:
        if c in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]}":
            depth = max(depth - 1, 0)
    return deepest


def _program_as_data(trees):
    """A program held as data in ``trees``: a literal of lists (or tuples,
    dicts) nested :data:`_PROGRAM_DEPTH` deep with strings in it, or a string of
    brackets nested as deep (an expression tree to be parsed at run time), for an
    interpreter of the submission's to run. None when there is none."""
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, _CONTAINERS) and _depth(n) >= _PROGRAM_DEPTH and any(
                    isinstance(x, ast.Constant) and isinstance(x.value, str)
                    for x in ast.walk(n)):
                return f"a literal nested {_depth(n)} deep holding strings (line {n.lineno})"
            if isinstance(n, ast.Constant) and isinstance(n.value, str) \
                    and _bracket_depth(n.value) >= _PROGRAM_DEPTH:
                return (f"a string of brackets nested {_bracket_depth(n.value)} deep "
                        f"(line {n.lineno})")
    return None


#: The standard library's runners of source text (``code.InteractiveInterpreter
#: (...).runsource(text)``, ``timeit.Timer(stmt)``, ``cProfile.runctx(text, ...)``,
#: ``doctest.run_docstring_examples(text, ...)``...) and the calls that take the
#: code to run: those whose name says so, wherever they are called...
_SOURCE_RUNNERS = frozenset({"code", "codeop", "timeit", "pdb", "bdb", "cProfile",
                             "profile", "trace", "doctest"})
_RUNNER_METHODS = frozenset({"runsource", "runcode", "push", "compile_command", "Compile",
                             "CommandCompiler", "Timer", "runctx", "runeval",
                             "run_docstring_examples", "testsource",
                             "script_from_examples", "debug_src", "debug_script"})
#: ...and those with a common name, only as a function of such a module
#: (``timeit.timeit(...)``, ``from cProfile import run as r``) or as a method of
#: an object made in the call (``pdb.Pdb().run(...)``).
_RUNNER_FUNCTIONS = frozenset({"run", "timeit", "repeat"})
#: The keywords through which these calls take the code to run.
_CODE_KEYWORDS = frozenset({"stmt", "setup", "source", "cmd", "statement", "src"})
#: An argument that may be a function (``timeit.timeit(f)``, ``runcall(f)``), a
#: container or a name of text, rather than text built in the call: left to the
#: runner's own watch, which sees its value (a string written out is judged
#: here by the watch's rule).
_NOT_TEXT = (ast.Name, ast.Attribute, ast.Lambda, ast.List, ast.Tuple, ast.Dict,
             ast.Set, ast.Constant)


def _runs_source_text(trees):
    """The standard library's runners of source text that ``trees`` (all of a
    submission's code) call on text that is not written out (a call, an
    operation, a subscript, an f-string: a literal or a name is not flagged,
    so ``import timeit`` and ``timeit.timeit("f(X)")`` or
    ``timeit.timeit(f)`` are honest) or on a string written out that runs code
    of its own (the parts' runner's rule), in a submission that imports one of
    :data:`_SOURCE_RUNNERS`; and ``load`` with pickles allowed
    (``np.load(..., allow_pickle=True)``: a pickle can run anything)."""
    modules, functions = set(), {}     # names bound to the modules; to their functions
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                modules.update(a.asname or a.name.split(".")[0] for a in n.names
                               if a.name.split(".")[0] in _SOURCE_RUNNERS)
            elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] \
                    in _SOURCE_RUNNERS:
                functions.update((a.asname or a.name, a.name) for a in n.names)
    found = set()
    for tree in trees:
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            name, f = _called(n), n.func
            if name == "load" and any(k.arg == "allow_pickle" and not (
                    isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in n.keywords):
                found.add("a pickle loaded (load with allow_pickle)")
                continue
            if not (modules or functions):
                continue
            if isinstance(f, ast.Name) and f.id in functions:
                name = functions[f.id]      # imported from the module, under any name
            runner = name in _RUNNER_METHODS or name in _RUNNER_FUNCTIONS and (
                isinstance(f, ast.Name) and f.id in functions
                or isinstance(f, ast.Attribute) and (
                    isinstance(f.value, ast.Name) and f.value.id in modules
                    or isinstance(f.value, ast.Call)))     # pdb.Pdb().run(text)
            code = n.args[:1] + [k.value for k in n.keywords if k.arg in _CODE_KEYWORDS]
            if runner and any(not isinstance(a, _NOT_TEXT) for a in code):
                found.add(f"{name} of code that is not written out")
            elif runner and any(_runs_code_of_its_own(a) for a in code):
                # a string is never compared: what runs from one must add no code
                # of its own ("f(X)")
                found.add(f"{name} of a string that runs code of its own")
    return found


def _within(source, budget):
    """``source`` cut to at most ``budget`` bytes, at a line's end."""
    data = source.encode("utf-8")
    if len(data) <= budget:
        return source
    cut = data[:budget].decode("utf-8", "ignore")
    return cut[:cut.rfind("\n") + 1] if "\n" in cut else ""


def _parse_cut(part):
    """The tree of a cell cut short: without its last top-level statement if that
    was cut in the middle."""
    tree = parse_cell(part)
    if tree is None:
        starts = [m.start() for m in re.finditer(r"\n(?=\S)", part)]
        if starts:
            tree = parse_cell(part[:starts[-1] + 1])
    return tree


def _code(cells, check, scaffold, notes, flags, modules=None, broken=None):
    """The normal form of the code ``cells`` (sources), within the bounds: bytes
    and statements go to the smallest cells first, so that padding in one cell
    cannot push the others out. ``modules``: the names of the cells that are
    modules, {index: path}; one the bounds cut flags the submission."""
    sizes = [len(s.encode("utf-8")) for s in cells]
    modules, cut = modules or {}, set()
    total = sum(sizes)
    trees, lexical = [None] * len(cells), [None] * len(cells)
    statements = used = 0
    cut_statements = False
    rooms = shares(sizes, check.max_code_bytes)
    for i in sorted(range(len(cells)), key=lambda i: sizes[i]):
        source, size, room = cells[i], sizes[i], rooms[i]
        if room < size:
            cut.add(i)
        if not room or statements >= check.max_statements:
            cut_statements = cut_statements or bool(room)
            cut.add(i)
            continue
        part = _within(source, room)
        used += len(part.encode("utf-8"))
        tree = parse_cell(part) if room == size else _parse_cut(part)
        if tree is None:
            lexical[i] = lexical_form(part, scaffold.keep)
            continue
        kept = []
        for stmt in tree.body:
            n = sum(isinstance(x, ast.stmt) for x in ast.walk(stmt))
            if statements + n > check.max_statements:
                cut_statements = True
                cut.add(i)
                statements = check.max_statements
                break
            kept.append(stmt)
            statements += n
        tree.body = kept
        trees[i] = tree
    trees = [t for t in trees if t is not None]
    lexical = [t for t in lexical if t is not None]
    flags.extend(sorted(set().union(*(_built_from_data(t) for t in trees),
                                    _runs_source_text(trees))))
    named = sorted(_names_as_data(trees))
    if len(named) >= check.names_as_data:
        flags.append(f"holds {len(named)} functions as data (named in strings or uncalled "
                     "in literals), a program held as data that no comparison reads: "
                     + ", ".join(named[:8])
                     + (", ..." if len(named) > 8 else ""))
    program = _program_as_data(trees)
    if program:
        flags.append(f"a program held as data, which no comparison reads: {program}")
    cut_modules = [modules[i] for i in sorted(cut, key=lambda i: -sizes[i])
                   if i in modules and sizes[i]]
    if cut_modules:
        flags.append(f"modules not all compared: {len(cut_modules)} cut at the bounds on "
                     "code, the largest first: " + ", ".join(cut_modules)[:500])
    built = sorted(set().union(*(_runtime_code(t) for t in trees)))
    if built:
        notes.append(f"uses {', '.join(built)}: code built while it runs is not "
                     "compared, read it")
    if used < total:
        notes.append(f"code cut at {_kb(check.max_code_bytes)}: {_kb(total - used)} of "
                     f"{_kb(total)} in its code cells and modules not compared (its "
                     "largest cells and modules)")
    if cut_statements:
        notes.append(f"code cut at {check.max_statements} statements: the statements "
                     "after that not compared")
    if lexical:
        notes.append(f"{len(lexical)} code cell(s) do not parse as Python: compared "
                     "token by token")
    try:
        code = normal_code(trees, scaffold.keep, unread=flags, imports=scaffold.imports)
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError) as exc:
        # compared token by token, which matches no classmate's normal form: what
        # broke it may be there to hide a copy (a dead sum of 600 terms)
        flags.append(f"code could not be put in normal form ({type(exc).__name__}), "
                     "so no comparison reads it as the others: read it")
        if broken is not None:
            broken.append(f"its code could not be put in normal form ({type(exc).__name__})")
        code = "\n".join(lexical_form(c, scaffold.keep) for c in cells)
    return "\n".join([code] + lexical).strip()


def _text(cells, check, flags):
    """The written answers ``cells`` within the bound, as one text, their HTML
    comments aside; a cut flags the submission (honest answers are far within)."""
    whole = without_comments("\n\n".join(cells)) + "\n"
    total = len(whole.encode("utf-8"))
    text = _within(whole, check.max_written_bytes)
    if len(text.encode("utf-8")) < total:
        flags.append(f"written answers cut at {_kb(check.max_written_bytes)} of "
                     f"{_kb(total)} (comments aside): what is beyond is not compared, "
                     "read it")
    return text


def _fingerprint(code, check, boilerplate=None):
    return Fingerprint(code, check.noise, max(1, check.guarantee - check.noise + 1),
                       boilerplate)


def _as_python_reads(cell):
    """The text of a code ``cell`` that declares an unusual encoding, as Python reads
    its bytes from a file (its cookie honoured): what such a cell hides."""
    text, _ = decoded(cell.source.encode("utf-8", "surrogatepass"), whole=not getattr(cell, "omitted", 0))
    return text


def boilerplate(scaffold, check):
    """Fingerprints of the released code, which never count as shared."""
    return np.array(sorted(_fingerprint(scaffold.code, check).hashes), dtype=np.int64)


def material_of(student, cells, scaffold, check, boiler, *, omitted=0, unsubmitted=(),
                variant=None, verdicts=None):
    """The :class:`Material` of ``student``'s submission, whose cells are ``cells``
    (each with ``cell_type`` and ``source``, in notebook order; a record's
    :class:`~coursegrader.record.AnswerCode`); ``boiler``: :func:`boilerplate`;
    ``omitted``: bytes of the cells the record did not keep (a module's are
    read from the module's own answer); ``unsubmitted``: the code its parts ran
    that it did not hand in as source, as the record keeps it
    (:class:`~coursegrader.record.UnsubmittedCode`), which flags it;
    ``variant``: the label of the variant its record was judged on (its numbers
    are then read, for :func:`~.values.evidence`); ``verdicts``: the verdicts it
    handed in ({part: {case: verdict}}, :func:`~.verdicts.handed_in`)."""
    notes = [f"{_kb(omitted)} of its cells beyond what the record keeps not compared"
             ] if omitted else []
    flags = []
    if unsubmitted:
        flags.append("ran code it did not hand in as source: "
                     + "; ".join(f"{u.part}: {u.how}" for u in unsubmitted)[:500])
    modules = [c for c in cells if c.cell_type == MODULE]
    module_omitted = sum(c.omitted for c in modules)
    if module_omitted:
        # Whatever order the record keeps them in, what it left out may be the
        # copy (100 one-line modules once pushed a copied helper.py out): flagged.
        cut = [c.cell for c in modules if c.omitted]
        flags.append(f"modules not all compared: {_kb(module_omitted)} beyond what the "
                     "record keeps (" + ", ".join(cut)[:500] + ")")
    own = [c for c in cells if (c.cell_type, c.source.strip()) not in scaffold.released]
    compared = [c.cell for c in own if c.cell_type == MODULE and c.source]
    if compared:
        notes.append("its modules compared with its cells: " + ", ".join(compared)[:500])
    coded = [c for c in own if c.cell_type in ("code", MODULE)]
    read_otherwise = [(c, unusual_in_a_file(c.source)) for c in coded if c.cell_type == "code"]
    read_otherwise = {id(c): encoding for c, encoding in read_otherwise if encoding}
    if read_otherwise:
        flags.append("a cell only Python reads as it runs, from a file: " + "; ".join(
            f"{getattr(c, 'cell', None) or 'a cell it added'}: declares the encoding {read_otherwise[id(c)]} "
            "(PEP 263)" for c in coded if id(c) in read_otherwise)[:500])
    code = [_as_python_reads(c) if id(c) in read_otherwise else c.source for c in coded]
    text = [c.source for c in own if c.cell_type == "markdown"]
    compiled = [c.cell for c in own if c.cell_type == COMPILED]
    if compiled:
        flags.append("code handed in compiled: " + ", ".join(compiled)[:500])
    unread = [c.cell for c in own if c.cell_type == UNREAD]
    if unread:
        flags.append("a module only Python reads as it runs: " + "; ".join(unread)[:500])
    broken = []
    normal = _code(code, check, scaffold, notes, flags,
                   {i: c.cell for i, c in enumerate(coded) if c.cell_type == MODULE}, broken)
    written = _text(text, check, flags)
    ws = words(written)
    readings = (Reading.of(ws, scaffold.text, check.shingle_words, check.skipped_words),
                Reading.of(words(written, formulas=False), scaffold.prose,
                           check.shingle_words, check.skipped_words))
    numbers, reads = [], frozenset()
    if variant is not None:
        reads = variant_reads(code)
        numbers, cut = literals(own, limit=check.max_values)
        if cut:
            notes.append(f"numbers beyond the first {check.max_values} not compared with "
                         "the class's variants")
    mixed = [f"{w} (Cyrillic {' '.join(cyrillic_letters(w))})" for w in mixed_script_words(ws)]
    return Material(student, normal, ws, notes, _fingerprint(normal, check, boiler), readings,
                    flags, numbers, variant, dict(verdicts or {}), mixed_scripts=mixed,
                    styled_markup=styled_markup(written), failed="; ".join(broken) or None,
                    reads=reads)


def uncomparable(student, exc, check, boiler):
    """The :class:`Material` of ``student``'s submission that :func:`material_of` could
    not read (``exc``): nothing of it compared, and flagged on its own, so that a
    submission made to break the check is read by a person, not passed over."""
    why = f"{type(exc).__name__}: {exc}"[:300]
    return Material(student, "", [], [], _fingerprint("", check, boiler),
                    flags=[f"could not be compared ({why}): read it yourself"], failed=why)

