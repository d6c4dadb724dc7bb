"""A submission's code in a normal form that disguises do not change.

:func:`normal_code` parses the code cells with :mod:`ast` and rewrites the
tree so that what a copier changes to hide a copy is gone before anything is
compared:

- walruses lifted to assignments of their own (:mod:`.walruses`), so that a
  statement carried by an ``assert``, a loop's test or a default is read; a
  cell indented whole inside a wrapper read as the cell (:mod:`.cells_wrapped`);
  a function made for one value read as the value (:mod:`.thunks`);
- comments, docstrings, layout and string contents (every string is ``'S'``);
- statements that do nothing: ``pass``, a bare expression without a call
  (``x``, ``3``, ``a + b``), ``print(...)``, ``assert`` (what ``python -O``
  leaves out: ``assert X is not None`` after every line), ``x = x``,
  ``x += 0``, ``x *= 1``, ``if False:`` / ``while False:``, ``del`` of a
  name, ``global`` and ``nonlocal``, an ``if`` whose test calls nothing and
  whose branches do nothing (``if VERBOSE: print(t1)``), a loop,
  a ``with`` (of no call), a ``match`` (of no call) or a ``try`` whose body
  does nothing (``for _ in (): pass``, ``try: pass`` ``except E: pass``), code after
  ``return``, ``raise``, ``break`` or ``continue``; ``[x] = [x]``, a loop over
  nothing, ``while x is None: break``; a test of constants alone
  (:mod:`.constant_tests`: ``not True``) decides its branch, or a loop's
  ``else``;
- a library's function or a built-in called for a result nobody keeps
  (``gc.collect()``, ``id(x)``, ``logging.debug("%r", x)``) and a value put on
  a module nothing reads back (``np._last = x``), :mod:`.discarded`;
- checks that only raise, after nearly every line of a block, read at its top
  (:mod:`.checks`);
- assignments to names nothing reads (``a, b = 0, 0`` of two such names too;
  ``(w := e)`` of such a name is ``e``; an import of such a name),
  and functions and classes nothing calls (except the names the released
  notebook defines: the graded functions; a class that is used keeps every
  method), repeated until none is left;
- a block put round a statement that runs it once is what it holds: ``try``
  whose handlers only let the error pass, ``while True: ...; break``, a loop
  over one value, a ``match`` of one wildcard case, a ``with`` that binds
  nothing (:class:`_Unwrap`);
- arithmetic that does nothing: ``e + 0``, ``e * 1`` and the like are ``e``;
- bookkeeping (:mod:`.bookkeeping`): the updates of a name whose value goes
  nowhere but into its own updates and into tests (a counter moved on after
  every statement), and what a test of such names alone chooses, read as
  chosen (``out if _k > -1 else None`` is ``out``);
- no-op wrappers are what they wrap (:mod:`.wrappers`): calls of a function
  that returns its argument unchanged (``_i(np)`` after ``def _i(x): return
  x``) are the argument (:mod:`.identity_calls`), an expression that hands
  back one of its parts (``(np,)[0]``, ``next(iter((np,)))``, ``[np].pop()``)
  is that part (:mod:`.round_trips`), and a branch chosen by a constant
  (``np if 1 else 0``) is the branch (:mod:`.constant_picks`);
- the spelling of a loop: ``x += e`` is ``x = x + e``; ``a > b`` is ``b < a``;
  a counting ``while`` (``i = a`` ... ``while i < b:`` ... ``i += s``) is
  ``for i in range(a, b, s)``, and ``for i in range(len(s)): x = s[i]`` is
  ``for x in s``; a comprehension is the loop that appends to a list, so
  ``[f(x) for x in xs]`` and ``for x in xs: out.append(f(x))`` read the same;
- calls of the ``operator`` module's functions are the operators they are
  (``operator.mul(a, b)`` is ``a * b``, :mod:`.operator_calls`);
- one operation a line: each operation nested in a statement is named on a
  line of its own, innermost first (:mod:`.three_address`), so that a copy
  with every call and operator moved into a temporary reads as its original;
- names: a name the student binds is replaced by its kind (``v`` inside a
  definition, ``G`` at the top level), and so is an attribute the code sets
  on an object it binds (``s.x`` after ``s.x = ...``); names the student does not bind
  (``np``, ``range``, the setup cell's ``gram``), attributes and keyword
  names stay, since they say what the code does.

The result is Python text, one statement a line, without spaces; a cell that
does not parse is reduced token by token instead (:func:`lexical_form`).
"""

import ast
import builtins
import contextlib
import io
import keyword
import re
import sys
import tokenize

from .bindings import binding_counts
from .bookkeeping import drop_bookkeeping
from .cells_wrapped import cells_unwrapped
from .checks import checks_first
from .constant_tests import truth
from .dead_stores import drop_dead_stores
from .discarded import drop_discarded
from .dropping import Dropping
from .helpers import helpers_inlined
from .namespaces import namespaces_opened
from .operator_calls import as_operators
from .thunks import thunks_inlined
from .statement_order import in_one_order
from .three_address import one_operation_a_line
from .unpacking import unpacked
from .walruses import lift_walruses
from .wrapped_at_scale import wrapping_flags
from .wrappers import ROUNDS, see_through_wrappers

__all__ = ["normal_code", "lexical_form"]

_NOOP_CALLS = {"print", "display"}
_STOPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_SWAP = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def _is_constant_false(node):
    return truth(node) is False


def _is_number(node, value):
    return (isinstance(node, ast.Constant) and type(node.value) in (int, float)
            and node.value == value)


def _has_call(node):
    return any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr))
               for n in ast.walk(node))


def _same_names(target, value):
    """``x`` and ``x``, or ``[x, y]`` and ``(x, y)``: a store of names into themselves."""
    if isinstance(target, ast.Name) and isinstance(value, ast.Name):
        return target.id == value.id
    return (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and all(_same_names(t, v) for t, v in zip(target.elts, value.elts)))


def _is_empty(node):
    """A literal with nothing in it: ``()``, ``[]``, ``{}``, ``""``."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) \
        and not node.value


def _is_noop(stmt):
    """True for a statement that changes nothing (a disguise's padding)."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in _NOOP_CALLS):
            return True
        return not _has_call(value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return _same_names(stmt.targets[0], stmt.value)     # ``x = x``, ``[x] = [x]``
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.value, ast.Constant):
        v = stmt.value.value
        return ((isinstance(stmt.op, (ast.Add, ast.Sub, ast.BitOr, ast.BitXor)) and v == 0
                 and not isinstance(v, str))
                or (isinstance(stmt.op, (ast.Mult, ast.Div, ast.FloorDiv, ast.Pow))
                    and v == 1 and not isinstance(v, bool)))
    if isinstance(stmt, ast.Assert):
        return True                        # a check, which ``python -O`` leaves out
    if isinstance(stmt, ast.While) and _is_constant_false(stmt.test):
        return not stmt.orelse
    if isinstance(stmt, ast.While):        # ``while x is None: break``
        body = stmt.body
        return (not _has_call(stmt.test) and not stmt.orelse and isinstance(body[-1], ast.Break)
                and all(_is_noop(s) for s in body[:-1]))
    if isinstance(stmt, ast.Delete):
        return all(isinstance(t, ast.Name) for t in stmt.targets)
    if isinstance(stmt, (ast.Global, ast.Nonlocal)):
        return True                        # where a name lives, not what is done
    if isinstance(stmt, ast.If):           # ``if VERBOSE: print(...)``, the print gone
        return (not _has_call(stmt.test)
                and all(_is_noop(s) for s in stmt.body + stmt.orelse))
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        # ``for _ in (): pass``; a loop over a literal of some values still binds its
        # target (a counter's, :mod:`.bookkeeping`)
        it = stmt.iter
        if _is_empty(it):                  # ``for _ in (): ...`` runs only its ``else``
            return all(_is_noop(s) for s in stmt.orelse)
        binds = isinstance(it, (ast.Tuple, ast.List)) and it.elts
        return not binds and all(_is_noop(s) for s in stmt.body + stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return (not any(_has_call(item.context_expr) for item in stmt.items)
                and all(_is_noop(s) for s in stmt.body))
    if isinstance(stmt, ast.Match):        # ``case x:`` binds ``x``: not nothing
        binds = any(getattr(n, "name", None) or getattr(n, "rest", None)
                    for case in stmt.cases for n in ast.walk(case.pattern))
        return (not _has_call(stmt.subject) and not binds
                and all(_is_noop(s) for case in stmt.cases for s in case.body))
    return False


class _Canonical(ast.NodeTransformer):
    """Drop no-ops and dead code; one spelling for augmented assignments,
    comparisons, counting loops and comprehensions."""

    def __init__(self):
        self.fresh = 0

    # -- blocks -----------------------------------------------------------------
    def block(self, body):
        out = []
        for stmt in body:
            decided = truth(stmt.test) if isinstance(stmt, (ast.If, ast.While)) else None
            if isinstance(stmt, ast.If) and decided is not None:
                out.extend(self.block(stmt.body if decided else stmt.orelse))
                continue
            if (decided is False or (isinstance(stmt, (ast.For, ast.AsyncFor))
                                     and _is_empty(stmt.iter))) and stmt.orelse:
                out.extend(self.block(stmt.orelse))   # a loop that never runs: its else
                continue
            if _is_noop(stmt):
                continue
            stmt = self.visit(stmt)
            for s in stmt if isinstance(stmt, list) else [stmt]:
                if s is None or _is_noop(s):
                    continue
                out.append(s)
            if out and isinstance(out[-1], _STOPS):
                break                      # what follows never runs
        return self.counting_loops(out)

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self.block(value))
        for field, value in ast.iter_fields(node):
            if field in ("body", "orelse", "finalbody") and isinstance(value, list) \
                    and (not value or isinstance(value[0], ast.stmt)):
                continue
            if isinstance(value, list):
                new = []
                for item in value:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if isinstance(item, list):
                            new.extend(item)
                            continue
                    new.append(item)
                value[:] = new
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Module(self, node):
        node.body = self.block(node.body)
        return node

    # -- expressions ----------------------------------------------------------
    def visit_Constant(self, node):
        if isinstance(node.value, (str, bytes)):
            return ast.copy_location(ast.Constant("S"), node)
        return node

    def visit_JoinedStr(self, node):
        """An f-string is text (``'S'``), but what its fields call still runs:
        ``f"{out.append(e)}"`` is ``(out.append(e),)``."""
        calls = [self.visit(v.value) for v in node.values
                 if isinstance(v, ast.FormattedValue) and _has_call(v.value)]
        if calls:
            return ast.copy_location(ast.Tuple(calls, ast.Load()), node)
        return ast.copy_location(ast.Constant("S"), node)

    def visit_BinOp(self, node):
        """``e + 0``, ``e - 0``, ``e * 1``, ``e / 1``, ``e ** 1``, ``0 + e`` and ``1 * e``
        are ``e``."""
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if _is_number(right, 0) and isinstance(op, (ast.Add, ast.Sub)):
            return left
        if _is_number(right, 1) and isinstance(op, (ast.Mult, ast.Div, ast.Pow)):
            return left
        if _is_number(left, 0) and isinstance(op, ast.Add):
            return right
        if _is_number(left, 1) and isinstance(op, ast.Mult):
            return right
        return node

    def visit_Try(self, node):
        """A ``try`` that catches nothing it does not raise again (every handler only
        binds names and raises: ``except E: raise``, ``raise e from None``,
        ``raise E``), with no ``else`` and nothing left to do ``finally``, is its
        body; one whose body does nothing is its ``else`` and ``finally``."""
        self.generic_visit(node)
        if all(_is_noop(s) for s in node.body):
            return node.orelse + node.finalbody
        if (not node.orelse and not node.finalbody
                and all(h.body and isinstance(h.body[-1], ast.Raise)
                        and all(isinstance(b, ast.Assign) for b in h.body[:-1])
                        for h in node.handlers)):
            return node.body
        return node

    visit_TryStar = visit_Try

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _SWAP:
            return ast.copy_location(ast.Compare(
                left=node.comparators[0], ops=[_SWAP[type(node.ops[0])]()],
                comparators=[node.left]), node)
        return node

    # -- statements -----------------------------------------------------------
    def visit_AugAssign(self, node):
        self.generic_visit(node)
        load = _as_load(node.target)
        return ast.copy_location(ast.Assign(
            targets=[node.target], value=ast.BinOp(load, node.op, node.value),
            lineno=node.lineno), node)

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]                # the docstring
        node.body = self.block(body) or [ast.Pass()]
        node.returns = None
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        node.body = self.block(body) or [ast.Pass()]
        node.bases = [self.visit(b) for b in node.bases]
        return node

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        self.generic_visit(node)
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value,
                                            lineno=node.lineno), node)

    def visit_stmt_with_comprehensions(self, node):
        """Hoist each comprehension of ``node`` into the loop that builds it."""
        self.generic_visit(node)
        hoisted = []

        class Hoist(ast.NodeTransformer):
            def visit_comp(inner, comp):
                acc = f"_acc{self.fresh}"
                self.fresh += 1
                for stmt in self.comprehension_loop(comp, acc):
                    stmt = self.visit(stmt)   # comprehensions inside, into the loop
                    hoisted.extend(stmt if isinstance(stmt, list) else [stmt])
                return ast.Name(acc, ast.Load())

            def visit_Lambda(inner, lam):
                return lam                 # a lambda's body runs later, not here

            visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_comp

        if isinstance(node, (ast.For, ast.While, ast.If, ast.With)):
            head = "iter" if isinstance(node, ast.For) else "test"
            if isinstance(node, ast.With):
                return node
            setattr(node, head, Hoist().visit(getattr(node, head)))
        else:
            node = Hoist().visit(node)
        return hoisted + [node]

    def visit_Assign(self, node):
        comps = (ast.ListComp, ast.SetComp, ast.DictComp)
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, comps)):
            out = []             # ``name = [...]`` builds ``name`` itself
            for stmt in self.comprehension_loop(node.value, node.targets[0].id):
                stmt = self.visit(stmt)
                out.extend(stmt if isinstance(stmt, list) else [stmt])
            return out
        return self.visit_stmt_with_comprehensions(node)

    visit_Return = visit_Expr = visit_stmt_with_comprehensions
    visit_For = visit_If = visit_stmt_with_comprehensions

    def visit_While(self, node):
        self.generic_visit(node)
        return node

    def comprehension_loop(self, comp, acc):
        """``acc = []`` and the loops of ``comp`` appending to it."""
        if isinstance(comp, ast.DictComp):
            inner = ast.Assign(targets=[ast.Subscript(ast.Name(acc, ast.Load()), comp.key,
                                                      ast.Store())],
                               value=comp.value, lineno=0)
        else:
            inner = ast.Expr(ast.Call(ast.Attribute(ast.Name(acc, ast.Load()), "append",
                                                    ast.Load()), [comp.elt], []))
        for gen in reversed(comp.generators):
            for cond in reversed(gen.ifs):
                inner = ast.If(cond, [inner], [])
            inner = ast.For(gen.target, gen.iter, [inner], [], lineno=0)
        start = ast.Dict([], []) if isinstance(comp, ast.DictComp) else ast.List([], ast.Load())
        return [ast.Assign(targets=[ast.Name(acc, ast.Store())], value=start, lineno=0), inner]

    @staticmethod
    def counting_loops(body):
        """``i = a; while i < b: ...; i = i + s`` as ``for i in range(a, b, s)``."""
        out = []
        for stmt in body:
            if (isinstance(stmt, ast.While) and not stmt.orelse and out
                    and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1
                    and isinstance(stmt.test.ops[0], (ast.Lt, ast.LtE))
                    and isinstance(stmt.test.left, ast.Name)
                    and isinstance(out[-1], ast.Assign) and len(out[-1].targets) == 1
                    and isinstance(out[-1].targets[0], ast.Name)
                    and out[-1].targets[0].id == stmt.test.left.id and stmt.body):
                name = stmt.test.left.id
                last = stmt.body[-1]
                if (isinstance(last, ast.Assign) and len(last.targets) == 1
                        and isinstance(last.targets[0], ast.Name) and last.targets[0].id == name
                        and isinstance(last.value, ast.BinOp)
                        and isinstance(last.value.op, ast.Add)
                        and isinstance(last.value.left, ast.Name)
                        and last.value.left.id == name
                        and not any(isinstance(n, ast.Name) and n.id == name
                                    and isinstance(n.ctx, ast.Store)
                                    for s in stmt.body[:-1] for n in ast.walk(s))
                        and not any(isinstance(n, (ast.Break, ast.Continue))
                                    for s in stmt.body[:-1] for n in ast.walk(s))):
                    start, step = out.pop().value, last.value.right
                    stop = stmt.test.comparators[0]
                    if isinstance(stmt.test.ops[0], ast.LtE):
                        if (isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub)
                                and isinstance(stop.right, ast.Constant)
                                and stop.right.value == 1):
                            stop = stop.left           # i <= n - 1 is i < n
                        else:
                            stop = ast.BinOp(stop, ast.Add(), ast.Constant(1))
                    args = [start, stop]
                    if not (isinstance(step, ast.Constant) and step.value == 1):
                        args.append(step)
                    if isinstance(start, ast.Constant) and start.value == 0 and len(args) == 2:
                        args = args[1:]
                    stmt = ast.For(ast.Name(name, ast.Store()),
                                   ast.Call(ast.Name("range", ast.Load()), args, []),
                                   stmt.body[:-1] or [ast.Pass()], [], lineno=0)
            if isinstance(stmt, ast.For):
                stmt = _Canonical.element_loop(stmt)
            out.append(stmt)
        return out

    @staticmethod
    def element_loop(loop):
        """``for i in range(len(s)): x = s[i]; ...`` (``i`` used for nothing else)
        as ``for x in s: ...``."""
        it, body = loop.iter, loop.body
        if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name) and it.func.id == "range"
                and len(it.args) == 1 and not it.keywords
                and isinstance(it.args[0], ast.Call)
                and isinstance(it.args[0].func, ast.Name) and it.args[0].func.id == "len"
                and len(it.args[0].args) == 1 and isinstance(it.args[0].args[0], ast.Name)
                and body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1
                and isinstance(body[0].targets[0], ast.Name)
                and isinstance(body[0].value, ast.Subscript)):
            return loop
        index, seq = loop.target.id, it.args[0].args[0].id
        sub = body[0].value
        if not (isinstance(sub.value, ast.Name) and sub.value.id == seq
                and isinstance(sub.slice, ast.Name) and sub.slice.id == index):
            return loop
        uses = sum(isinstance(n, ast.Name) and n.id == index
                   for s in body[1:] for n in ast.walk(s))
        if uses:
            return loop
        return ast.For(body[0].targets[0], ast.Name(seq, ast.Load()),
                       body[1:] or [ast.Pass()], loop.orelse, lineno=0)


def _as_load(target):
    node = ast.parse(ast.unparse(target), mode="eval").body
    return node


def _loaded_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.add(node.value.id)
    return names


def _exits_here(body):
    """True if ``body`` holds a ``break`` or ``continue`` of its own loop."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                                 ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _swallows(handler):
    """A handler that only lets the error pass (``pass``, ``return None``)."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Return) and (
        s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None)))
        for s in handler.body)


def _held(body):
    """What a block unwrapped holds, its ``pass`` gone (None if nothing)."""
    return [s for s in body if not isinstance(s, ast.Pass)] or None


_NO_VALUE = object()


def _evaluated(node):
    """``node`` as a statement of its own where working it out may do something
    (``match out.append(t): case _:``), else nothing."""
    return [ast.Expr(node, lineno=0)] if _has_call(node) else []


class _Unwrap(Dropping):
    """A block put round a statement to split the copy, read as what it holds:
    ``try: s`` ``except E: pass``; ``while True: s; break``; a loop over one value
    (``for _r in (0,): s`` is ``_r = 0; s``); ``match c: case _: s``; ``with
    np.errstate(): s``, a context that binds nothing; and values unpacked into
    names (``x, *_r = (e,)``), one assignment a name."""

    def visit_Try(self, node):
        """``try: raise E`` ``except E: s`` is ``s``; a try whose handlers only let
        the error pass is its body."""
        self.generic_visit(node)
        body = node.body
        if (len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None
                and not node.orelse and not node.finalbody):
            raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
            for handler in node.handlers:
                if handler.name is None and isinstance(handler.type, ast.Name) \
                        and isinstance(raised, ast.Name) and handler.type.id == raised.id:
                    return _held(handler.body)
        if node.handlers and all(_swallows(h) for h in node.handlers):
            return _held(node.body + node.orelse + node.finalbody)
        return node

    def visit_While(self, node):
        """``while True: s; break`` is ``s``; ``while t: s; break`` runs once at most:
        it is ``if t: s``."""
        self.generic_visit(node)
        body = node.body
        if (body and isinstance(body[-1], ast.Break) and not _exits_here(body[:-1])):
            if isinstance(node.test, ast.Constant) and node.test.value and not node.orelse:
                return _held(body[:-1])
            return ast.copy_location(ast.If(node.test, _held(body[:-1]) or [ast.Pass()],
                                            node.orelse), node)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        it = node.iter
        one = None
        if isinstance(it, (ast.Tuple, ast.List, ast.Set)) and len(it.elts) == 1 \
                and not isinstance(it.elts[0], ast.Starred):
            one = it.elts[0]
        elif isinstance(it, ast.Dict) and len(it.keys) == 1 and it.keys[0] is not None:
            one = it.keys[0]
        elif isinstance(it, ast.Constant) and isinstance(it.value, (str, bytes)) \
                and len(it.value) == 1:
            one = ast.Constant(it.value if isinstance(it.value, str) else it.value[0])
        elif (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
              and it.func.id == "range" and len(it.args) == 1 and not it.keywords
              and isinstance(it.args[0], ast.Constant) and it.args[0].value == 1):
            one = ast.Constant(0)
        body = node.body
        if (one is None and isinstance(it, (ast.Tuple, ast.List)) and it.elts
                and not isinstance(it.elts[0], ast.Starred) and body
                and isinstance(body[-1], ast.Break) and not _exits_here(body[:-1])
                and not node.orelse):      # ``for x in (e, None): break``: the first
            return [ast.Assign(targets=[node.target], value=it.elts[0], lineno=0)] \
                + (_held(body[:-1]) or [])
        if one is None or node.orelse or _exits_here(node.body):
            return node
        return [ast.Assign(targets=[node.target], value=one, lineno=0)] + (_held(node.body) or [])

    def visit_Match(self, node):
        """``match e: case _: s`` is ``s``; ``case x: s`` is ``x = e; s``; ``match 0:
        case 0: s`` (a constant the case matches) is ``s``."""
        self.generic_visit(node)
        if len(node.cases) != 1 or node.cases[0].guard is not None:
            return node
        case = node.cases[0]
        pattern, body = case.pattern, _held(case.body) or []
        if (isinstance(pattern, ast.MatchAs) and isinstance(pattern.pattern, ast.MatchClass)
                and isinstance(pattern.pattern.cls, ast.Name)
                and pattern.pattern.cls.id == "object" and not pattern.pattern.patterns
                and not pattern.pattern.kwd_patterns):
            pattern = ast.MatchAs(pattern=None, name=pattern.name)   # ``object() as x``
        if (isinstance(pattern, ast.MatchMapping) and isinstance(node.subject, ast.Dict)
                and pattern.rest is None
                and all(isinstance(p, ast.MatchAs) and p.pattern is None and p.name
                        for p in pattern.patterns)):
            given = {k.value: v for k, v in zip(node.subject.keys, node.subject.values)
                     if isinstance(k, ast.Constant)}
            keys = [getattr(k, "value", _NO_VALUE) for k in pattern.keys]
            if all(k in given for k in keys):   # ``match {'k': e}: case {'k': x}``
                return [ast.Assign(targets=[ast.Name(p.name, ast.Store())], value=given[k],
                                   lineno=0) for k, p in zip(keys, pattern.patterns)] + body
        if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
            if pattern.name is None:       # the subject is still worked out
                return _evaluated(node.subject) + body or None
            return [ast.Assign(targets=[ast.Name(pattern.name, ast.Store())],
                               value=node.subject, lineno=0)] + body
        if isinstance(pattern, ast.MatchSequence) and all(
                isinstance(p, ast.MatchAs) and p.pattern is None for p in pattern.patterns):
            names = ast.Tuple([ast.Name(p.name or "_", ast.Store()) for p in pattern.patterns],
                              ast.Store())
            return (unpacked(names, node.subject, self.read)
                    or [ast.Assign(targets=[names], value=node.subject, lineno=0)]) + body
        if (isinstance(pattern, (ast.MatchValue, ast.MatchSingleton))
                and isinstance(node.subject, ast.Constant)):
            value = pattern.value if isinstance(pattern, ast.MatchSingleton) else \
                getattr(pattern.value, "value", _NO_VALUE)
            if value is node.subject.value or (
                    isinstance(pattern, ast.MatchValue) and value == node.subject.value):
                return body or None
        return node

    def __init__(self, read):
        self.read = read                   # the names the program reads

    def visit_Assign(self, node):
        """``x, *_r = (e,)`` is ``x = e; _r = []`` (see :mod:`.unpacking`)."""
        self.generic_visit(node)
        if len(node.targets) == 1:
            return unpacked(node.targets[0], node.value, self.read) or node
        return node

    def visit_With(self, node):
        self.generic_visit(node)
        if all(item.optional_vars is None for item in node.items):
            return [s for item in node.items for s in _evaluated(item.context_expr)] \
                + (_held(node.body) or []) or None
        return node


class _DropUnused(Dropping):
    """Remove assignments to names nobody reads, and unused functions and classes."""

    def __init__(self, used, keep, idle=lambda value: True):
        self.used, self.keep, self.changed = used, keep, False
        self.idle = idle                   # whether a value does nothing but give itself

    def visit_Assign(self, node):
        """``_ = fill(F, X)`` whose ``_`` nobody reads is ``fill(F, X)``: the call may
        do the work; a value that only gives itself (``_z = np.sqrt(t3)``) goes."""
        if all(self.unused(t) for t in node.targets):
            self.changed = True
            if isinstance(node.value, (ast.Lambda, ast.GeneratorExp)) or self.idle(node.value):
                return None                # a lambda or a generator runs nothing yet
            return ast.copy_location(ast.Expr(node.value), node)
        return self.generic_visit(node)

    def visit_Import(self, node):
        """An import of names nobody reads (``import math as _m1`` again and again)
        is nothing."""
        names = [a for a in node.names
                 if not self.unused(ast.Name(a.asname or a.name.split(".")[0]))]
        if len(names) < len(node.names):
            self.changed = True
            if not names:
                return None
            node.names = names
        return node

    visit_ImportFrom = visit_Import

    def unused(self, target):
        """A target of names nobody reads (``n``, or ``a, b``)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            return all(self.unused(t) for t in target.elts)
        if isinstance(target, ast.Starred):
            return self.unused(target.value)
        return (isinstance(target, ast.Name) and target.id not in self.used
                and target.id not in self.keep)

    def visit_FunctionDef(self, node):
        """A function nobody calls goes, unless a decorator, which may register
        it where a name as text finds it, runs when it is defined; what its
        defaults call runs then too, and stays (``def _d(_a=fill(F)): pass``)."""
        if node.name not in self.used and node.name not in self.keep \
                and not node.decorator_list:
            self.changed = True
            defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            return [ast.Expr(d, lineno=0) for d in defaults if _has_call(d)] or None
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        """A class nobody uses is what its body does when it is defined, its methods
        gone (unless decorated, derived, or defining a graded function); one that
        is used keeps every method, which an attribute (``s.compute``), an
        operator or Python itself (``__init__``, ``__call__``, ``__str__``) may call,
        and every attribute its body binds (``scale = 2.0``, read as ``C.scale``)."""
        defines = {n.name for n in ast.walk(node)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        if (node.name not in self.used and node.name not in self.keep
                and not node.decorator_list and not node.bases
                and not defines & self.keep):  # ``global f`` then ``def f``: the graded one
            self.changed = True            # its body runs when it is defined: the body
            return [s for s in node.body
                    if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))] or None
        methods = frozenset(s.name for s in node.body
                            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
        methods |= {n.id for s in node.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                    for n in ast.walk(s) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Store)}   # attributes: ``C.scale``
        keep, self.keep = self.keep, self.keep | methods
        try:
            return self.generic_visit(node)
        finally:
            self.keep = keep

    def visit_NamedExpr(self, node):
        """``(w := e)`` whose ``w`` nobody reads is ``e``."""
        self.generic_visit(node)
        if node.target.id not in self.used and node.target.id not in self.keep:
            self.changed = True
            return node.value
        return node


class _Rename(ast.NodeTransformer):
    """Names the student binds become their kind: ``v`` inside a definition, ``G``
    at the top level (so that neither a new name nor one more variable shifts
    the others). An attribute the program itself sets, of a name it binds
    (``s.x`` after ``s.x = ...``: a variable kept on an object, ``self.w``),
    is such a name too: ``s.x = f(s.x)`` reads as ``x = f(x)``."""

    def __init__(self, bound, keep, set_attributes=frozenset()):
        self.bound, self.keep = bound, keep
        self.set_attributes = set_attributes
        self.inside = False

    def name(self, name):
        if name in self.keep or name not in self.bound:
            return name
        return "v" if self.inside else "G"


    def visit_Name(self, node):
        node.id = self.name(node.id)
        return node

    def visit_Attribute(self, node):
        if (node.attr in self.set_attributes and isinstance(node.value, ast.Name)
                and node.value.id in self.bound and node.value.id not in self.keep):
            return ast.copy_location(ast.Name("v" if self.inside else "G", node.ctx), node)
        return self.generic_visit(node)

    def visit_arg(self, node):
        node.arg = self.name(node.arg)
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        """A definition's own name is of where it stands; what it holds is inside
        a definition, wherever the definition stands (under ``if __debug__:`` too)."""
        node.name = self.name(node.name)
        inside, self.inside = self.inside, True
        try:
            return self.generic_visit(node)
        finally:
            self.inside = inside

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Global(self, node):
        node.names = [self.name(n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global

    def visit_alias(self, node):
        if node.asname:
            node.asname = self.name(node.asname)
        return node

    def visit_ExceptHandler(self, node):
        if node.name:
            node.name = self.name(node.name)
        return self.generic_visit(node)


_SPACE = re.compile(r"(?<=\W) +| +(?=\W)")


def _compact(text):
    lines = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if stripped:
            lines.append(" " * ((len(line) - len(stripped)) // 4) + _SPACE.sub("", stripped))
    return "\n".join(lines)


def normal_code(trees, keep=frozenset(), unread=None, imports=frozenset()):
    """The normal form of the parsed cells ``trees`` (ast.Module each, in order).

    ``keep``: names that stay as written even though the student binds them
    (the names the released notebook binds: the graded functions); ``unread``:
    a list, given a line when wrappers are nested deeper than the reading of
    :mod:`.wrappers` goes; ``imports``: names that code run before ``trees``
    imported (the setup cell's ``np``).
    """
    with _room_to_recurse():
        return _normal_code(trees, keep, unread, imports)


#: How deep the normal form may recurse: every tree Python's parser builds (its
#: own limit on nesting comes first; a sum of 2,000 terms, 2,000 ``elif``s) is
#: read, where Python's default of 1,000 failed on 600 (a dead cell of
#: that took the whole submission out of the normal form).
RECURSION = 20_000


@contextlib.contextmanager
def _room_to_recurse():
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, RECURSION))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


#: What finds a function by its name as text (``globals()["step"]``), so that no
#: function is known to be unused
_LOOKUPS = frozenset({"globals", "locals", "vars", "getattr", "eval", "exec", "compile",
                      "__import__", "__dict__", "modules", "import_module", "__builtins__"})


def _reached_by_name(module):
    """The functions and classes ``module`` may call by their name as text: those
    a string names (``globals()["step"]``), and all of them where it looks a name
    up (``getattr(sys.modules[__name__], "st" + "ep")``)."""
    defined, texts, lookup = set(), set(), False
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.update(re.findall(r"[^\W\d]\w*", node.value))
        elif isinstance(node, ast.Name) and node.id in _LOOKUPS:
            lookup = True
        elif isinstance(node, ast.Attribute) and node.attr in _LOOKUPS:
            lookup = True
    return frozenset(defined if lookup else defined & texts)


def _normal_code(trees, keep, unread, imports):
    module = ast.Module(body=[s for t in trees for s in t.body], type_ignores=[])
    reached = _reached_by_name(module)
    module = thunks_inlined(cells_unwrapped(lift_walruses(module), keep))
    module = helpers_inlined(module, keep)
    module = namespaces_opened(module)
    module, ended = see_through_wrappers(module, keep)
    if not ended and unread is not None:
        unread.append(f"no-op wrappers nested more than {ROUNDS} deep, which the "
                      "comparison does not read to the end")
    module = _Canonical().visit(as_operators(module))
    module = _Unwrap(_loaded_names(module)).visit(module)
    module, named, idle = drop_discarded(module, imports)
    module = drop_dead_stores(drop_bookkeeping(module, keep))
    module = checks_first(module)
    for _ in range(len(module.body) + 1):     # each round drops one link of a chain
        dropper = _DropUnused(_loaded_names(module), keep | named | reached, idle)
        module = dropper.visit(module)
        if not dropper.changed:
            break
    if unread is not None:
        unread.extend(wrapping_flags(module, keep))
    module = in_one_order(one_operation_a_line(module))
    set_attributes = frozenset(n.attr for n in ast.walk(module) if isinstance(n, ast.Attribute)
                               and isinstance(n.ctx, (ast.Store, ast.Del)))
    module = _Rename(frozenset(binding_counts(module)), keep, set_attributes).visit(module)
    return _compact(ast.unparse(ast.fix_missing_locations(module)))


_BUILTIN = frozenset(dir(builtins))


def lexical_form(source, keep=frozenset()):
    """``source`` reduced token by token (for code that does not parse): comments
    and layout dropped, strings ``'S'``, names other than ``keep`` and builtins ``V``."""
    out, line = [], []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                if line:
                    out.append("".join(line))
                    line = []
            elif tok.type == tokenize.NAME:
                text = tok.string
                if line and line[-1][-1:].isalnum():
                    line.append(" ")
                line.append(text if keyword.iskeyword(text) or text in keep
                            or text in _BUILTIN else "V")
            elif tok.type == tokenize.STRING:
                line.append("'S'")
            elif tok.type in (tokenize.OP, tokenize.NUMBER):
                line.append(tok.string)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    if line:
        out.append("".join(line))
    return "\n".join(out)
