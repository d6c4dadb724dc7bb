"""Copies of a classmate's ps1 answers, disguised the ways students disguise them.

Each function takes the answers copied ({grade id: source}) and gives the
disguised ones; :data:`EXTRA_CELL` is code a copier moves out of the answer
cells into a cell of their own. Every disguise keeps the copied code working:
it is meant to score what the original scores.
"""

import ast
import itertools
import re

CODE_PARTS = ("quadratic_map_answer", "multinomial_map_answer", "kernel_verdicts_answer",
              "counterexample_answer")
WRITTEN_PARTS = ("validity_arguments", "closure_proofs")

#: Statements that do nothing, as a copier types them ({pad}: the indentation).
_NOOPS = ("pass", "assert True", "_unused_{n} = [{n}, {n} + 1, {n} * 2]",
          "'''step {n} checked against my notes'''",
          "if False:\n{pad}    print('debug', {n})", "None", "...",
          "while False:\n{pad}    break")


def noop_after_each_line(answers):
    """A statement that does nothing after every statement of every code answer."""
    out = dict(answers)
    counter = itertools.count()
    for part in CODE_PARTS:
        lines = answers[part].splitlines()
        after = {}                         # line number -> indents of no-ops to add
        for node in ast.walk(ast.parse(answers[part])):
            if isinstance(node, ast.stmt):
                after.setdefault(node.end_lineno, []).append(node.col_offset)
        result = []
        for number, line in enumerate(lines, 1):
            result.append(line)
            for indent in sorted(set(after.get(number, ())), reverse=True):
                n = next(counter)
                pad = " " * indent
                result.append(pad + _NOOPS[n % len(_NOOPS)].format(n=n, pad=pad))
        out[part] = "\n".join(result) + "\n"
    return out


def into_extra_cell(answers):
    """The code answers moved verbatim into one cell the student adds (above the
    first check), the answer cells emptied."""
    out = dict(answers)
    for part in CODE_PARTS:
        out[part] = "# my answers are in the cell above\n"
    extra = "\n\n".join(answers[part] for part in CODE_PARTS)
    return out, extra


def into_module(answers):
    """The code answers moved verbatim into ``helper.py``, handed in beside the
    notebook and imported from the first answer cell (the setup cell's names
    handed to it), the answer cells emptied: (answers, the module's source)."""
    out = dict(answers)
    for part in CODE_PARTS:
        out[part] = "# my answers are in helper.py\n"
    out[CODE_PARTS[0]] = ("import os\nimport sys\n\nsys.path.insert(0, os.getcwd())\n"
                          "import helper\n\n"
                          "helper.CANDIDATES, helper.gram, helper.V = CANDIDATES, gram, V\n"
                          "from helper import *\n")
    module = "import math\n\nimport numpy as np\n\n\n" + "\n\n".join(
        answers[part] for part in CODE_PARTS)
    return out, module


def renamed(answers, names):
    """Every name of ``names`` ({old: new}) renamed, comments and docstrings dropped,
    blank lines added: what a copier does by hand."""
    out = dict(answers)
    for part in CODE_PARTS:
        text = answers[part]
        text = re.sub(r'^\s*""".*?"""\s*\n', "", text, flags=re.M | re.S)
        text = re.sub(r"\s+#.*$", "", text, flags=re.M)
        for old, new in names.items():
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        out[part] = text.replace("\n    return", "\n\n    return")
    return out


def reworded(answers, edits):
    """The written answers ({grade id: source}) with a few words changed (``edits``:
    {grade id: [(old, new)]}, each applied once) and their paragraphs in another order."""
    out = {}
    for part in WRITTEN_PARTS:
        text = answers[part]
        for old, new in edits.get(part, ()):
            assert old in text, (part, old)
            text = text.replace(old, new, 1)
        paragraphs = [p for p in text.split("\n\n") if p.strip()]
        out[part] = "\n\n".join(paragraphs[1:] + paragraphs[:1]) + "\n"
    return out


class _ThroughIdentity(ast.NodeTransformer):
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Call(ast.Name("_i", ast.Load()), [node], []), node)
        return node


def through_identity(answers, identity="def _i(v):\n    return v\n\n"):
    """Every name the code reads passed through a function that returns it
    (``_i(np).asarray(_i(X))``), defined by ``identity`` at the top of the first answer."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.fix_missing_locations(_ThroughIdentity().visit(ast.parse(answers[part])))
        out[part] = ast.unparse(tree) + "\n"
    out[CODE_PARTS[0]] = identity + out[CODE_PARTS[0]]
    return out


class _Picked(ast.NodeTransformer):
    def __init__(self, literals):
        self.literals = itertools.cycle(literals)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            literal = next(self.literals)
            return ast.copy_location(ast.parse(literal.format(node.id), mode="eval").body,
                                     node)
        return node


def picked_from_literals(answers, *literals):
    """Every name the code reads written as an element of a literal picked out again,
    the ``literals`` in turn (``({},)[0]`` makes ``(np,)[0].asarray((X,)[0])``,
    ``{{0: {}}}[0]`` makes ``{0: np}[0]``, ``next(iter(({},)))`` makes
    ``next(iter((np,)))``)."""
    out = dict(answers)
    picked = _Picked(literals or ("({},)[0]",))
    for part in CODE_PARTS:
        tree = ast.fix_missing_locations(picked.visit(ast.parse(answers[part])))
        out[part] = ast.unparse(tree) + "\n"
    return out



class _LiveCounter:
    """Moves a counter of the function's own on after every statement, and makes
    every return depend on a test of it that is always true."""

    def __init__(self, as_list):
        self.as_list, self.count = as_list, itertools.count()

    def function(self, fn):
        name = f"_seen{next(self.count)}"
        start = f"{name} = []" if self.as_list else f"{name} = 0"
        fn.body = [ast.parse(start).body[0]] + self.block(fn.body, name)
        return fn

    def block(self, body, name):
        out = []
        for step, stmt in enumerate(body):
            if isinstance(stmt, ast.FunctionDef):
                out.append(self.function(stmt))
                continue
            for field in ("body", "orelse", "finalbody"):
                if getattr(stmt, field, None):
                    setattr(stmt, field, self.block(getattr(stmt, field), name))
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                test = f"len({name}) >= 0" if self.as_list else f"{name} > -1"
                stmt.value = ast.IfExp(ast.parse(test, mode="eval").body, stmt.value,
                                       ast.Constant(None))
            out.append(stmt)
            if not isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                move = (f"{name}.append({step})" if self.as_list
                        else f"{name} = {name} + {step % 3 + 1}")
                out.append(ast.parse(move).body[0])
        return out


def with_a_live_counter(answers, as_list=False):
    """In every function of every code answer, a counter moved on after each
    statement (``_seen0 = _seen0 + 2``, or a list appended to) and every return
    made to read it (``return out if _seen0 > -1 else None``): each update is
    used, and one stands between every two statements of the copy."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        counter = _LiveCounter(as_list)
        tree.body = [counter.function(s) if isinstance(s, ast.FunctionDef) else s
                     for s in tree.body]
        out[part] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out

#: A line a copier puts after every line that changes nothing the code goes on with
#: (``{}``: a name the line before binds), and what it needs imported
ONE_LINE_PADS = {
    "a built-in called for nothing": ("id({})", ""),
    "a type test called for nothing": ("isinstance({}, object)", ""),
    "the namespace asked for": ("vars()", ""),
    "a library function of names called for nothing": (
        "np.asarray({}, dtype=object)", ""),
    "a library function of the student's import called for nothing": (
        "sys.getrefcount({})", "import sys\n"),
    "a debug log": ('logging.debug("%r", {})', "import logging\n"),
    "settings put back as they were": ("np.seterr(**_saved)", "_saved = np.geterr()\n"),
    "a value put on a module": ("np._last = {}", ""),
    "a value put on an imported module": ("builtins._last = {}", "import builtins\n"),
    "a value put in the environment": (
        'os.environ["_K"] = str(type({}))', "import os\n"),
    "a name unpacked into itself": ("[{0}] = [{0}]", ""),
    "a loop that stops before it starts": ("while {} is None:\n    break", ""),
    "a loop over nothing": ("for _ in ():\n    _z = {}", ""),
}
#: A check after every line that only raises, which never happens
CHECK_PAD = "if {} is ...:\n    raise ValueError('bad input')"


#: Each assignment ``{x} = {e}`` of a copy carried by something else that does
#: its work, and what it needs above the first answer
CARRIERS = {
    "an assert of a walrus": ("assert ({x} := {e}) is not None", ""),
    "a loop's test holding a walrus": ("while ({x} := {e}) is None:\n    break", ""),
    "a walrus as a dead function's default": ("def _d(_a=({x} := {e})):\n    pass", ""),
    "a walrus as a lambda's default": ("(lambda _a=({x} := {e}): None)", ""),
    "a walrus printed to nowhere": ("print(({x} := {e}), end='', file=_SINK)",
                                    "import io\n_SINK = io.StringIO()\n"),
    "a walrus in any()": ("any(({x} := {e}) is None for _ in 'a')", ""),
    "a walrus in a counter's update": ("_k[0] = _k[0] + (({x} := {e}) is None)", "_k = [0]\n"),
    "a match that captures": ("match {e}:\n    case {x}:\n        pass", ""),
    "the else of a test of constants": ("if not True:\n    pass\nelse:\n    {x} = {e}", ""),
    "the else of a loop over nothing": ("for _ in ():\n    pass\nelse:\n    {x} = {e}", ""),
    "the else of a loop that stops at once": (
        "while None is not None:\n    break\nelse:\n    {x} = {e}", ""),
    "a loop over one letter": ("for _r in 'a':\n    {x} = {e}", ""),
    "a loop over a set of one": ("for _r in {{0}}:\n    {x} = {e}", ""),
    "a match of a constant": ("match 0:\n    case 0:\n        {x} = {e}", ""),
    "a walrus in a case's guard": (
        "match 0:\n    case 0 if ({x} := {e}) is None or True:\n        pass", ""),
    "a match of an object that captures": ("match {e}:\n    case object() as {x}:\n"
                                           "        pass", ""),
    "a match of a mapping that captures": ("match {{'k': {e}}}:\n    case {{'k': {x}}}:\n"
                                           "        pass", ""),
    "a handler of what is raised": (
        "try:\n    raise StopIteration\nexcept StopIteration:\n    {x} = {e}", ""),
    "a loop that breaks at its first value": ("for {x} in ({e}, None):\n    break", ""),
    "a one-value unpacking with a starred rest": ("{x}, *_r = ({e},)", ""),
    "an unpacking into a name nobody reads": ("{x}, _u = ({e}, None)", ""),
    "a walrus in a dead function's decorator": (
        "@(lambda _f: _f) if ({x} := {e}) is None else lambda _f: _f\ndef _d():\n    pass", ""),
    "a function of its own, declared first, that sets it": (
        "{x} = None\ndef _s():\n    nonlocal {x}\n    {x} = {e}\n_s()", ""),
    "a class that holds it": ("class _C:\n    _v = {e}\n{x} = _C._v", ""),
    "a function of one name for every value": ("def _s():\n    return {e}\n{x} = _s()", ""),
    "a test of the process's state": ("if os.getpid() > 0:\n    {x} = {e}", "import os\n"),
    "a test of a builtin's truth": ("if abs:\n    {x} = {e}", ""),
    "a loop that runs once while a test holds": (
        "while os.getpid() > 0:\n    {x} = {e}\n    break", "import os\n"),
}

#: A function's whole body put inside a block that runs it once and keeps it
#: as it is ({body}: the body, indented one level more; {first}: the first
#: parameter)
BODY_WRAPPERS = {
    "a context that binds a name": "with np.errstate(all='ignore') as _st:\n{body}",
    "a try that gives up": "try:\n{body}except ZeroDivisionError:\n    return 0\n",
    "a test of the first parameter": (
        "if {first} is not None:\n{body}else:\n    raise TypeError('no input')\n"),
}


def body_wrapped(answers, wrapper):
    """Each function of the code answers with its body inside ``wrapper``."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            body = "".join("    " + line + "\n" for stmt in function.body
                           for line in ast.unparse(stmt).splitlines())
            first = function.args.args[0].arg if function.args.args else "None"
            function.body = ast.parse(wrapper.format(body=body, first=first)).body
        out[part] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out

#: A whole code cell put inside something that runs it once ({cell}: the cell,
#: indented; {names}: the names it defines)
CELL_WRAPPERS = {
    "under if __debug__": "if __debug__:\n{cell}",
    "under a test of the variant, else raise": (
        "if V is not None:\n{cell}else:\n    raise RuntimeError('no variant')\n"),
    "in a class nobody uses": "class _Cell:\n    global {names}\n{cell}",
    "in a function called once": "def _cell():\n    global {names}\n{cell}\n_cell()\n",
    "in a factory": "def _make():\n{cell}    return ({names},)\n\n\n({names},) = _make()\n",
}


def cell_wrapped(answers, wrapper):
    """Each code answer as it is, indented inside ``wrapper``."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        names = [s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
        if not names:
            continue
        cell = "".join("    " + line + "\n" if line.strip() else "\n"
                       for line in answers[part].splitlines())
        out[part] = wrapper.format(cell=cell, names=", ".join(names))
    return out


def carried(answers, carrier, header=""):
    """Each assignment of one name in every function of the code answers written
    as ``carrier`` (``{x}``: the name, ``{e}``: the value), as a tool rewrites a
    copy; ``header`` above the first answer."""
    def carry(stmt, function):
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)):
            return ast.parse(carrier.format(x=stmt.targets[0].id,
                                            e=ast.unparse(stmt.value))).body
        return [stmt]
    return _each_statement(answers, carry, header)


def _each_statement(answers, rewrite, header=""):
    """The code answers with each statement of every function (in its blocks too)
    replaced by the statements ``rewrite(statement, function)`` gives; ``header``
    above the first answer."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            _rewrite_blocks(function, lambda stmt, f=function: rewrite(stmt, f))
        out[part] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    out[CODE_PARTS[0]] = header + out[CODE_PARTS[0]]
    return out


def _rewrite_blocks(node, rewrite):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if not block or not isinstance(block[0], ast.stmt):
            continue
        result = []
        for stmt in block:
            if not isinstance(stmt, ast.FunctionDef):
                _rewrite_blocks(stmt, rewrite)
            result += rewrite(stmt)
        block[:] = result


def padded(answers, pad, header=""):
    """A line of ``pad`` after every statement of every function of the code
    answers (``{}``: the name the statement binds, else the function's first
    argument), as a tool pads a copy: ``id(t3)``, ``if t3 is ...: raise ...``;
    ``header`` (``import logging``) above the first answer."""
    def pad_after(stmt, function):
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.FunctionDef)):
            return [stmt]
        bound = (stmt.targets[0].id if isinstance(stmt, ast.Assign)
                 and isinstance(stmt.targets[0], ast.Name) else
                 function.args.args[0].arg if function.args.args else "None")
        return [stmt] + ast.parse(pad.format(bound)).body
    return _each_statement(answers, pad_after, header)


#: What a copier moving operations into temporaries takes apart.
_SPLIT = (ast.Call, ast.BinOp, ast.Subscript, ast.Compare, ast.List, ast.Tuple, ast.Dict)
#: What runs on a condition or again and again: a working copy leaves it whole.
_WHOLE = (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp, ast.JoinedStr)


class _Temporaries:
    """Rewrites each simple statement as a copier would, one operation a line."""

    def __init__(self, returns):
        self.returns, self.count = returns, itertools.count()

    def lift(self, node, before, top):
        if isinstance(node, _WHOLE):
            return node
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr) and not isinstance(value, (ast.Name, ast.Constant)):
                # a subscript's index (``X[:, 0]``) keeps its shape: its parts are lifted
                setattr(node, field, self.lift(value, before, top=field == "slice"))
            elif isinstance(value, list):
                value[:] = [self.lift(v, before, top=False) if isinstance(v, ast.expr) else
                            self.keyword(v, before) for v in value]
        if not top and isinstance(node, _SPLIT) \
                and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            name = f"_t{next(self.count)}"
            before.append(ast.Assign(targets=[ast.Name(name, ast.Store())], value=node))
            return ast.Name(name, ast.Load())
        return node

    def keyword(self, node, before):
        if isinstance(node, ast.keyword):
            node.value = self.lift(node.value, before, top=False)
        return node

    def block(self, body):
        out = []
        for stmt in body:
            for field in ("body", "orelse", "finalbody"):
                if getattr(stmt, field, None):
                    setattr(stmt, field, self.block(getattr(stmt, field)))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self.block(handler.body)
            before = []
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)):
                stmt.value = self.lift(stmt.value, before, top=True)
            elif isinstance(stmt, ast.Return) and stmt.value is not None:
                stmt.value = self.lift(stmt.value, before, top=not self.returns)
            elif isinstance(stmt, ast.If):
                stmt.test = self.lift(stmt.test, before, top=not self.returns)
            elif isinstance(stmt, ast.For):
                stmt.iter = self.lift(stmt.iter, before, top=not self.returns)
            out += before + [stmt]
        return out


def into_temporaries(answers, returns=False):
    """Every call, operator, subscript and literal list, tuple or dictionary nested
    in a statement moved into a temporary of its own on the line before
    (``t1 = 2 * c``, ``t2 = t1 ** 0.5``), innermost first; with ``returns``, what is
    returned, tested or looped over too (``t9 = f(x)``, ``return t9``). Each
    temporary has a name of its own across the parts, as a tool makes them."""
    out = dict(answers)
    temporaries = _Temporaries(returns)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        tree.body = temporaries.block(tree.body)
        out[part] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out


def _plain(stmt):
    """The names an assignment of names reads and binds, if it only computes a value
    (no item or attribute set, no call that changes its arguments), else None."""
    if not (isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)):
        return None
    names = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in ("append", "pop", "extend", "sort", "update", "setdefault"):
            return None
    return names


def reordered(answers):
    """Every two neighbouring assignments that share no name swapped (the first
    with the second, the third with the fourth, ...), in every block of every
    function: the same work in another order, as a copier moves independent
    lines."""
    def swap(block):
        i = 0
        while i + 1 < len(block):
            a, b = _plain(block[i]), _plain(block[i + 1])
            if a is not None and b is not None and not a & b:
                block[i], block[i + 1] = block[i + 1], block[i]
                i += 2
            else:
                i += 1

    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        for node in ast.walk(tree):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(node, ast.FunctionDef) or not isinstance(node, ast.Module):
                    if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                        swap(block)
        out[part] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out


_OPERATOR_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
                   ast.Pow: "pow", ast.MatMult: "matmul", ast.FloorDiv: "floordiv",
                   ast.Mod: "mod", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
                   ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


class _OperatorCalls(ast.NodeTransformer):
    def call(self, name, args, node):
        func = ast.Attribute(ast.Name("operator", ast.Load()), name, ast.Load())
        return ast.copy_location(ast.Call(func, args, []), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return self.call(_OPERATOR_NAMES[type(node.op)], [node.left, node.right], node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _OPERATOR_NAMES:
            return self.call(_OPERATOR_NAMES[type(node.ops[0])],
                             [node.left, node.comparators[0]], node)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return self.call("getitem", [node.value, node.slice], node)
        return node


def operators_as_calls(answers):
    """Every operator, comparison and plain subscript written as a call of the
    ``operator`` module (``operator.mul(a, b)``, ``operator.getitem(s, 'k')``)."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.fix_missing_locations(_OperatorCalls().visit(ast.parse(answers[part])))
        out[part] = "import operator\n" + ast.unparse(tree) + "\n"
    return out


def _kept_on_a_namespace(function):
    """``function`` with its parameters and variables kept as attributes of one
    ``types.SimpleNamespace`` (those a nested function, lambda or comprehension
    reads stay names)."""
    nested = set()
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ListComp,
                                                       ast.SetComp, ast.DictComp,
                                                       ast.GeneratorExp)):
            nested |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            nested |= {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
            if isinstance(node, ast.FunctionDef):
                nested.add(node.name)
    params = [a.arg for a in function.args.args]
    kept = ({n.id for n in ast.walk(function) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)} | set(params)) - nested

    class Kept(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in kept:
                return ast.copy_location(ast.Attribute(ast.Name("_s", ast.Load()), node.id,
                                                       node.ctx), node)
            return node

    body = [Kept().visit(stmt) for stmt in function.body]
    start = ast.parse("_s = types.SimpleNamespace(" + ", ".join(
        f"{p}={p}" for p in params if p in kept) + ")").body
    function.body = start + body
    return function


def locals_on_a_namespace(answers):
    """Every graded function's variables kept as attributes of a namespace
    (``_s.X = np.asarray(_s.X)``) rather than as names."""
    out = dict(answers)
    for part in CODE_PARTS:
        tree = ast.parse(answers[part])
        tree.body = [_kept_on_a_namespace(s) if isinstance(s, ast.FunctionDef) else s
                     for s in tree.body]
        out[part] = "import types\n" + ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out


_MATH = re.compile(r"(\$\$[\s\S]*?\$\$|\$[^$\n]+\$)")


def _outside_formulas(text, change):
    """``text`` with ``change`` applied to the prose between formulas (inside one an
    entity or a tag shows as typed, so a copier leaves them be)."""
    pieces = _MATH.split(text)
    return "".join(change(p) if i % 2 == 0 else p for i, p in enumerate(pieces))


def _every_third_letter(mark):
    def change(text):
        return " ".join(mark.join(w[i:i + 3] for i in range(0, len(w), 3))
                        for w in text.split(" "))
    return change


#: Letters written as HTML character references, decimal and hexadecimal.
ENTITIES = str.maketrans({"e": "&#101;", "o": "&#x6f;", "a": "&#97;"})


def html_entities_and_comments(answers):
    """The written answers as the same page in other HTML: the first with ``e``,
    ``o`` and ``a`` written ``&#101;``, ``&#x6f;``, ``&#97;`` and a soft hyphen
    ``&shy;`` after every ``n``, the second with an empty comment ``<!---->`` after
    every third letter of a word."""
    first, second = WRITTEN_PARTS
    return {first: _outside_formulas(
                answers[first], lambda t: t.translate(ENTITIES).replace("n", "n&shy;")),
            second: _outside_formulas(answers[second], _every_third_letter("<!---->"))}


def empty_tags_and_emphasis(answers):
    """The written answers as the same page in other markup: the first with every
    space ``&nbsp;``, the middle of every longer word in Markdown bold (``ke**rn**el``)
    and ``<b></b>`` after every third letter, the second with ``<em></em>`` after
    every third letter."""
    first, second = WRITTEN_PARTS

    def bold_middles(text):
        text = re.sub(r"\b([A-Za-z]{2})([A-Za-z]+)([A-Za-z]{2})\b", r"\1**\2**\3", text)
        return _every_third_letter("<b></b>")(text).replace(" ", "&nbsp;")
    return {first: _outside_formulas(answers[first], bold_middles),
            second: _outside_formulas(answers[second], _every_third_letter("<em></em>"))}


def inside_words(answers, *marks):
    """The written answers with ``marks`` (one per written part, in turn) after every
    third letter of a word, outside formulas."""
    return {part: _outside_formulas(answers[part], _every_third_letter(mark))
            for part, mark in zip(WRITTEN_PARTS, itertools.cycle(marks))}


def hidden_inside_words(answers):
    """The written answers with text hidden inside words: the first in ``<span
    style="display:none">``, the second in ``<span hidden>``; each shows nothing."""
    return inside_words(answers, '<span style="display: none">zq</span>',
                        "<span hidden>qz</span>")


def shown_as_nothing_inside_words(answers):
    """The written answers with letters inside words that show as nothing: the first
    in ``<audio>`` (which shows none of its text), the second in a formula's
    ``\\vphantom``."""
    return inside_words(answers, "<audio>zq</audio>", "$\\vphantom{zq}$")


def spaced_by_formulas(answers):
    """The written answers with every space outside formulas a formula of a space
    (``$\\ $``), which shows as one."""
    return {part: _outside_formulas(answers[part], lambda t: t.replace(" ", "$\\ $"))
            for part in WRITTEN_PARTS}


def shrunk_inside_words(answers):
    """The written answers with letters inside words in ``<small>`` three deep, too
    small to read."""
    return inside_words(answers, "<small><small><small>zq</small></small></small>")


#: A dead cell Python's default recursion limit could not put in normal form (a sum
#: of 600 terms, 400 elifs): the whole submission was compared token by token.
TOO_DEEP = ("def _ones():\n    return " + " + ".join(["1"] * 600) + "\n\n\n"
            "def _tmp(P):\n    if P == 0:\n        return 0\n"
            + "".join(f"    elif P == {i}:\n        return {i}\n" for i in range(1, 400)))


#: Latin letters and the Cyrillic and Greek letters that look the same.
LOOK_ALIKES = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440",
                             "c": "\u0441", "x": "\u0445", "i": "\u0456", "K": "\u039a"})


def look_alike_letters(answers):
    """The written answers with Latin letters swapped for Cyrillic and Greek look-alikes."""
    return {part: answers[part].translate(LOOK_ALIKES) for part in WRITTEN_PARTS}


def zero_width_spaces(answers):
    """The written answers with a zero-width space after every third letter of a word."""
    def cut(word):
        return "\u200b".join(word[i:i + 3] for i in range(0, len(word), 3))
    return {part: " ".join(map(cut, answers[part].split(" "))) for part in WRITTEN_PARTS}


#: The reference answers with every loop written another way, by hand: ``for``
#: as counting ``while``, generators as loops, loops as comprehensions.
LOOPS_REWRITTEN = {
    "quadratic_map_answer": '''\
def quadratic_feature_map(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}")
    c = float(V["c"])
    x1, x2 = X[:, 0], X[:, 1]
    s = np.sqrt(2.0)
    return np.column_stack([np.full(len(X), c), np.sqrt(2 * c) * x1, np.sqrt(2 * c) * x2,
                            x1**2, x2**2, s * x1 * x2])
''',
    "multinomial_map_answer": '''\
def multinomial_feature_map(X, p):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {X.shape}")
    if int(p) != p or p < 0:
        raise ValueError(f"p must be a non-negative integer, got {p!r}")
    p = int(p)
    n, d = X.shape
    Z = np.column_stack([np.ones(n), X])
    combos = list(itertools.combinations_with_replacement(range(d + 1), p))
    columns = []
    k = 0
    while k < len(combos):
        combo = combos[k]
        counts = np.bincount(np.array(combo, dtype=int), minlength=d + 1)
        facts = []
        for c in counts:
            facts.append(math.factorial(int(c)))
        coef = math.factorial(p) / math.prod(facts)
        columns.append(math.sqrt(coef) * np.prod(Z[:, list(combo)], axis=1))
        k += 1
    return np.column_stack(columns)
''',
    "kernel_verdicts_answer": '''\
def is_kernel(name):
    specs = {}
    i = 0
    while i < len(V["candidates"]):
        specs[V["candidates"][i]["name"]] = V["candidates"][i]
        i += 1
    if name not in specs:
        raise ValueError(f"unknown candidate {name!r}")
    spec, kind = specs[name], specs[name]["kind"]
    positive = lambda key: spec[key] > 0
    rules = {
        "x^T B z": lambda: np.linalg.eigvalsh(np.array(spec["B"], dtype=float))[0] >= -1e-12,
        "exp(a x_i z_i)": lambda: positive("a"),
        "a x.z": lambda: positive("a"),
        "x.z + s (x.z)^2": lambda: positive("s"),
        "(x.z + s)^p": lambda: positive("s"),
        "x.z + s": lambda: positive("s"),
        "|x| |z| + s": lambda: positive("s"),
        "exp(-g |x - z|^2)": lambda: positive("g"),
        "cos(x_i + s z_i)": lambda: spec["s"] < 0,
        "min or max of |x_i|, |z_i|": lambda: spec["op"] == "min",
        "(x.z)^p": lambda: True,
    }
    return bool(rules.get(kind, lambda: False)())
''',
    "counterexample_answer": '''\
def witness(name, P):
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}")
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"P must have shape (m, 2), got {P.shape}")
    values, vectors = np.linalg.eigh(gram(name, P))
    best = 0
    i = 1
    while i < len(values):
        if values[i] < values[best]:
            best = i
        i += 1
    return vectors[:, best]
''',
}
