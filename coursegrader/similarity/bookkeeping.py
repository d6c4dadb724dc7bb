"""Bookkeeping: names whose values reach nothing but their own updates and tests.

A copy can be spread thin with updates that are live: after every statement a
counter moves on (``_k = _k + 1``, ``_seen.append(3)``), and a test that is
always true reads it (``return out if _k >= 0 else None``). Each update is
read, so dropping unread names leaves it, and an update between every two
statements breaks every run of the original a comparison could find.

:func:`drop_bookkeeping` finds the names the student binds only by plain
assignment (``n = ...``, ``n[i] = ...``, ``n.append(...)``) that count
rather than compute: some update starts from the name's own value (``n = n +
len(x)``, ``n.append(x)``, ``next(n)``), or every update reads other such
names and nothing else but constants (``_j = _k * 2``; a constant that only
starts counters off; but a value worked out from data once, ``t = x.ndim !=
2`` before ``if t:``, is not, nor is a constant a test reads itself, a flag
or a table of names tested against); a name bound by a tuple of values, a
walrus, a ``for`` over a literal or a parameter's default is bound from
that value; and whose values go nowhere but into their own
updates (and those of other such names) and into tests: of an ``if``, a
``while``, an ``assert`` or a conditional expression (a test that chooses
what runs; a comparison whose yes or no is itself a value, ``return n > 0``,
is no such test). It removes
their updates (an assignment, or a method called on one as a statement,
``_seen.append(3)``), and what a test of such names alone decides, it reads
as undecided no longer where that cannot hide what the code does:

- ``e if test else c`` with a constant ``c`` (or ``c if test else e``) is ``e``;
- ``if test:`` with no ``else`` and nothing in its body that leaves the block
  early (``return``, ``raise``, ``break``, ``continue``) is its body; a branch
  that only raises is taken never (``if test: ... else: raise E``);
- ``assert test`` is nothing.

Honest code keeps a counter of iterations for a test (``it = it + 1`` ...
``if it > 100: break``): its updates go the same way, and the test stays.
"""

import ast
import builtins
from collections import defaultdict

from .dropping import Dropping

__all__ = ["bookkeeping_names", "drop_bookkeeping"]

_TEST = "test"
_OTHER = "other"
_BUILTINS = frozenset(dir(builtins))
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _updated(target):
    """The name a plain assignment's target updates (``n``, ``n[i]``), or None."""
    if isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _method_update(stmt):
    """The name ``stmt`` moves on as a statement: calls a method of (``n.append(3)``)
    or the next of (``next(n)``); None for any other statement."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    func, args = stmt.value.func, stmt.value.args
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    if (isinstance(func, ast.Name) and func.id == "next" and len(args) == 1
            and isinstance(args[0], ast.Name) and not stmt.value.keywords):
        return args[0].id
    return None


def _pairs(stmt):
    """An assignment as (target, value) pairs, element by element (``a, b = 0, x``
    is ``a = 0`` and ``b = x``), or None where it cannot be read so (``a, b = f()``)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
                and len(target.elts) == len(value.elts)
                and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)):
            return list(zip(target.elts, value.elts))
    return None


def _fresh(value, students):
    """True if ``value`` makes an object of its own (a constant, a literal, arithmetic,
    a library's or a builtin's call), not one another name may hold
    (``merged.setdefault(k, [])``, ``rows[0]``, ``other``); ``students``: the names
    the program binds other than by imports."""
    if isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
                          ast.SetComp, ast.DictComp, ast.BinOp, ast.UnaryOp, ast.Compare,
                          ast.BoolOp, ast.JoinedStr)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        while isinstance(func, ast.Attribute):
            func = func.value
        return isinstance(func, ast.Name) and func.id not in students and (
            isinstance(value.func, ast.Attribute) or func.id in _BUILTINS)
    return False


def _literal_loop(stmt):
    """{name: the values it takes} of a ``for`` over a literal (``for n in (n + 1,):``,
    ``for a, b in [(0, 0)]:``), or None for any other statement."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.iter, (ast.Tuple, ast.List))
            and not any(isinstance(e, ast.Starred) for e in stmt.iter.elts)):
        return None
    target, elts = stmt.target, stmt.iter.elts
    if isinstance(target, ast.Name):
        return {target.id: elts}
    if (isinstance(target, (ast.Tuple, ast.List))
            and all(isinstance(t, ast.Name) for t in target.elts)
            and all(isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == len(target.elts)
                    and not any(isinstance(x, ast.Starred) for x in e.elts) for e in elts)):
        return {t.id: [e.elts[i] for e in elts] for i, t in enumerate(target.elts)}
    return None


def _with_defaults(args):
    """(parameter, default) of each parameter of ``args`` (an ``ast.arguments``)."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return pairs


class _Flows(ast.NodeVisitor):
    """Where the value of each name read goes: into a test, into the updates of
    other names, or anywhere else; and how each name is bound."""

    def __init__(self, counters=frozenset()):
        #: names moved on from their own value (a first reading's ``moved_on``): a
        #: comparison of these alone is a yes or no wherever it stands
        self.counters = counters
        self.sinks = defaultdict(set)      # name -> {_TEST, _OTHER, frozenset(names)}
        self.plain = defaultdict(bool)     # name -> bound only by plain assignment so far
        self.bound = set()
        self.assigned = set()              # names bound by ``n = ...`` or ``n += ...``
        self.moved_on = set()              # names an update of which starts from their value
        self.sources = defaultdict(set)    # name -> the names its updates read
        self.in_place = set()              # names updated in place
        self.values = defaultdict(list)    # name -> the values it is bound to
        self.imported = set()              # names an import binds
        self.sink = _OTHER

    def into(self, sink, *nodes):
        before, self.sink = self.sink, sink
        for node in nodes:
            if isinstance(node, list):
                for item in node:
                    self.visit(item)
            elif node is not None:
                self.visit(node)
        self.sink = before

    def bind(self, name, plain):
        self.plain[name] = (self.plain[name] if name in self.bound else True) and plain
        self.bound.add(name)

    def update(self, names, *values, moved_on=()):
        """Names updated from ``values``; ``moved_on``: those updated in place (an
        item set, a method called), which only a fresh object of their own allows:
        ``t = merged.setdefault(k, [])`` then ``t.append(f)`` fills ``merged``."""
        sink = frozenset(names)
        read = {n.id for v in values if v is not None for n in ast.walk(v)
                if isinstance(n, ast.Name)}
        for name in names:
            self.bind(name, True)
            self.sources[name] |= read
            if name in moved_on:
                self.in_place.add(name)
            elif values and values[0] is not None:
                self.values[name].append(values[0])
            if name in read or name in moved_on:
                self.moved_on.add(name)
        self.into(sink, *values)

    def visit_Assign(self, node):
        pairs = _pairs(node)
        if pairs is not None:
            for target, value in pairs:
                name = _updated(target)
                if name is None:
                    self.visit(target)
                    self.into(_OTHER, value)
                    continue
                if isinstance(target, ast.Name):
                    self.assigned.add(name)
                self.update([name], value, getattr(target, "slice", None),
                            moved_on={name} if isinstance(target, ast.Subscript) else ())
            return
        names = [_updated(t) for t in node.targets]
        self.assigned.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if all(names):
            self.update(names, node.value, *[t.slice for t in node.targets
                                             if isinstance(t, ast.Subscript)],
                        moved_on={n for t, n in zip(node.targets, names)
                                  if isinstance(t, ast.Subscript)})
        else:
            self.generic_visit(node)

    def visit_AugAssign(self, node):
        name = _updated(node.target)
        if name is None:
            return self.generic_visit(node)
        if isinstance(node.target, ast.Name):
            self.assigned.add(name)
        self.update([name], node.value, getattr(node.target, "slice", None),
                    moved_on={name})

    def visit_Expr(self, node):
        if isinstance(node.value, ast.NamedExpr):      # ``(n := n + 1)`` as a statement
            self.assigned.add(node.value.target.id)
            return self.update([node.value.target.id], node.value.value)
        name = _method_update(node)
        if name is None:
            return self.generic_visit(node)
        call = node.value
        if isinstance(call.func, ast.Attribute):
            self.update([name], *call.args, *[k.value for k in call.keywords],
                        moved_on={name})
            self.into(frozenset([name]), call.func.value)
        else:
            self.update([name], moved_on={name})
            self.into(frozenset([name]), call.args)

    def visit_NamedExpr(self, node):
        """``(n := e)``: ``n`` updated from ``e``, and read where the expression goes."""
        self.assigned.add(node.target.id)
        self.sinks[node.target.id].add(self.sink)
        self.update([node.target.id], node.value)

    def visit_For(self, node):
        taken = _literal_loop(node)
        if taken is None:
            return self.generic_visit(node)
        for name, values in taken.items():
            self.assigned.add(name)
            self.update([name], *values)
        self.into(_OTHER, node.body, node.orelse)

    def visit_arguments(self, node):
        defaults = dict((id(a), d) for a, d in _with_defaults(node))
        for arg in node.posonlyargs + node.args + node.kwonlyargs:
            if id(arg) in defaults:        # a parameter with a default: bound from it
                self.assigned.add(arg.arg)
                self.update([arg.arg], defaults[id(arg)])
            else:
                self.bind(arg.arg, False)
        for arg in (node.vararg, node.kwarg):
            if arg is not None:
                self.bind(arg.arg, False)

    def visit_If(self, node):
        self.into(_TEST, node.test)
        self.into(_OTHER, node.body, node.orelse)

    visit_While = visit_If

    def visit_Compare(self, node):
        """``len(_seen) > -1`` as a value (``out * (_k > -1)``): a test, where it
        compares counters and constants alone."""
        read = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
        if read and all(n in self.counters or n in _BUILTINS for n in read):
            return self.into(_TEST, node.left, node.comparators)
        return self.generic_visit(node)

    def visit_IfExp(self, node):
        self.into(_TEST, node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def visit_Assert(self, node):
        self.into(_TEST, node.test, node.msg)

    def visit_scope(self, node):
        if not isinstance(node, ast.Lambda):
            self.bind(node.name, False)
        self.into(_OTHER, *[v for _, v in ast.iter_fields(node)
                            if isinstance(v, (ast.AST, list))])

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_scope

    def visit_arg(self, node):
        self.bind(node.arg, False)

    def visit_alias(self, node):
        self.imported.add(node.asname or node.name.split(".")[0])
        self.bind(node.asname or node.name.split(".")[0], False)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.bind(node.name, False)
        self.generic_visit(node)

    def visit_Global(self, node):
        """``global n`` binds nothing: it says where ``n`` lives."""

    visit_Nonlocal = visit_Global

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.sinks[node.id].add(self.sink)
        else:
            self.bind(node.id, False)      # a loop's target, ``with ... as``, ``del``


def bookkeeping_names(module, keep=frozenset()):
    """The names of ``module`` kept only for show (see the module's docstring)."""
    return _kept_for_show(_flows(module), keep)


def _flows(module):
    first = _Flows()
    first.visit(module)
    flows = _Flows(frozenset(first.moved_on))
    flows.visit(module)
    return flows


def _kept_for_show(flows, keep):
    names = {n for n in flows.assigned if flows.plain[n] and n not in keep}
    others = frozenset(flows.bound - flows.imported)   # objects of the student's

    def kept(n):
        sinks = flows.sinks.get(n, ())
        if n in flows.in_place and not all(_fresh(v, others) for v in flows.values[n]):
            return False                   # changed in place, it may be data's object
        # a constant counts when it only starts counters off; tested itself, it is data
        counting = n in flows.moved_on or (names >= flows.sources[n] and (
            flows.sources[n] or (sinks and all(isinstance(s, frozenset) for s in sinks))))
        return counting and all(s == _TEST or (isinstance(s, frozenset) and s <= names)
                                for s in sinks)

    # a name that leaves may take others with it: those it flows into or from
    affected = defaultdict(set)
    for n in names:
        for m in (() if n in flows.moved_on else flows.sources[n]):
            affected[m].add(n)
        for s in flows.sinks.get(n, ()):
            for m in (s if isinstance(s, frozenset) else ()):
                affected[m].add(n)
    check = list(names)
    while check:
        n = check.pop()
        if n in names and not kept(n):
            names.discard(n)
            check.extend(affected[n])
    return frozenset(names)


def _decided_by(test, names, bound):
    """True if ``test`` reads some of ``names`` and nothing else but constants and
    builtins the student does not rebind."""
    read = [n.id for n in ast.walk(test) if isinstance(n, ast.Name)]
    return (any(n in names for n in read)
            and all(n in names or (n in _BUILTINS and n not in bound) for n in read)
            and not any(isinstance(n, (ast.NamedExpr, ast.Attribute, ast.Lambda) + _SCOPES)
                        for n in ast.walk(test)))


def _within(body, apart):
    """The nodes of ``body``, not looking inside those of the types ``apart``."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, apart):
            stack.extend(ast.iter_child_nodes(node))


def _leaves_early(body):
    return any(isinstance(n, _LEAVES) for n in _within(body, _SCOPES))


def _doing(body):
    return [s for s in body if not isinstance(s, ast.Pass)]


def _this_loop(body):
    """The nodes of ``body`` outside the loops and functions inside it."""
    return _within(body, (ast.For, ast.While, ast.AsyncFor) + _SCOPES)


def _only_raises(body):
    return len(body) == 1 and isinstance(body[0], ast.Raise)


class _Drop(Dropping):
    def __init__(self, names, bound):
        self.names, self.bound = names, bound

    def visit_Assign(self, node):
        pairs = _pairs(node)
        if pairs is not None:
            kept = [(t, v) for t, v in pairs if _updated(t) not in self.names]
            if not kept:
                return None
            if len(kept) == 1:
                node.targets, node.value = [kept[0][0]], kept[0][1]
            elif len(kept) < len(pairs):
                node.targets = [ast.Tuple([t for t, _ in kept], ast.Store())]
                node.value = ast.Tuple([v for _, v in kept], ast.Load())
            return self.generic_visit(node)
        if all(_updated(t) in self.names for t in node.targets):
            return None
        return self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.generic_visit(node)
        return node.value if node.target.id in self.names else node

    def visit_For(self, node):
        self.generic_visit(node)
        taken = _literal_loop(node)
        if taken is None or not set(taken) <= self.names:
            return node
        body = _doing(node.body)
        if not body and not node.orelse:
            return None
        once = len(node.iter.elts) == 1 and not node.orelse and not any(
            isinstance(n, (ast.Break, ast.Continue)) for n in _this_loop(body))
        return body if once else node

    def visit_arguments(self, node):
        gone = {id(a) for a, _ in _with_defaults(node) if a.arg in self.names}
        if not gone:
            return node
        positional = node.posonlyargs + node.args
        defaults = [None] * (len(positional) - len(node.defaults)) + node.defaults
        keep = [(a, d) for a, d in zip(positional, defaults) if id(a) not in gone]
        n_only = sum(id(a) not in gone for a in node.posonlyargs)
        node.posonlyargs = [a for a, _ in keep[:n_only]]
        node.args = [a for a, _ in keep[n_only:]]
        node.defaults = [d for _, d in keep if d is not None]
        kw = [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if id(a) not in gone]
        node.kwonlyargs, node.kw_defaults = [a for a, _ in kw], [d for _, d in kw]
        return node

    def visit_AugAssign(self, node):
        if _updated(node.target) in self.names:
            return None
        return self.generic_visit(node)

    def visit_Expr(self, node):
        if _method_update(node) in self.names:
            return None
        if isinstance(node.value, ast.NamedExpr) and node.value.target.id in self.names:
            return None
        return self.generic_visit(node)

    def visit_Assert(self, node):
        return None if _decided_by(node.test, self.names, self.bound) else node

    def visit_If(self, node):
        self.generic_visit(node)
        body, orelse = _doing(node.body), _doing(node.orelse)
        if not body and not orelse and not any(isinstance(n, ast.Call)
                                               for n in ast.walk(node.test)):
            return None                    # ``if VERBOSE: _log.append(x)``, its update gone
        if not _decided_by(node.test, self.names, self.bound):
            return node
        if _only_raises(orelse):
            orelse = []                    # a branch that can only fail: never taken
        elif _only_raises(body):
            body, orelse = orelse, []
        if not orelse and not _leaves_early(body):
            return body or None
        return node

    def visit_BinOp(self, node):
        """``out * (_k > -1)``: the comparison is true (it decides nothing), and ``e *
        True`` is ``e``."""
        self.generic_visit(node)
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if (isinstance(node.op, ast.Mult) and isinstance(side, ast.Compare)
                    and _decided_by(side, self.names, self.bound)):
                return other
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if _decided_by(node.test, self.names, self.bound):
            if isinstance(node.orelse, ast.Constant):
                return node.body
            if isinstance(node.body, ast.Constant):
                return node.orelse
        return node


def drop_bookkeeping(module, keep=frozenset()):
    """``module`` without the updates of its bookkeeping names, and with the
    expressions and blocks their tests alone choose read as chosen."""
    flows = _flows(module)
    names = _kept_for_show(flows, keep)
    if not names:
        return module
    module = _Drop(names, frozenset(flows.bound)).visit(module)
    return _DropIdleCalls(_idle_functions(module)).visit(module)


def _idle_functions(module):
    """Functions bound once that do nothing once their bookkeeping is gone (a
    ``_tick()`` that only moved a counter on)."""
    counts = defaultdict(int)
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
    return frozenset(
        f.name for f in ast.walk(module)
        if isinstance(f, ast.FunctionDef) and counts[f.name] == 1 and not f.decorator_list
        and all(isinstance(s, (ast.Pass, ast.Global, ast.Nonlocal)) for s in f.body))


class _DropIdleCalls(Dropping):
    """A call, as a statement, of a function that does nothing, with arguments that
    call nothing, is nothing."""

    def __init__(self, idle):
        self.idle = idle

    def visit_Expr(self, node):
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in self.idle
                and not any(isinstance(n, ast.Call) for a in call.args + call.keywords
                            for n in ast.walk(a))):
            return None
        return node
