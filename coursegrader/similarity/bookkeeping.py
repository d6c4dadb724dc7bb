"""Bookkeeping: names whose values reach nothing but their own updates and tests.

A copy can be spread thin with updates that are live: after every statement a
counter moves on (``_k = _k + 1``, ``_seen.append(3)``), and a test that is
always true reads it (``return out if _k >= 0 else None``). Each update is
read, so dropping unread names leaves it, and an update between every two
statements breaks every run of the original a comparison could find.

:func:`drop_bookkeeping` finds the names the student binds only by plain
assignment (``n = ...``, ``n[i] = ...``, ``n.append(...)``) that count
rather than compute: some update starts from the name's own value (``n = n +
len(x)``, ``n.append(x)``), or every update reads other such names and
nothing else but constants (``_j = _k * 2``; a value worked out from data
once, ``t = x.ndim != 2`` before ``if t:``, is not, nor is a constant, a
table of names tested against); and whose values go nowhere but into their own
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
    """The name ``stmt`` calls a method of, as a statement (``n.append(3)``), or None."""
    if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)):
        return stmt.value.func.value.id
    return None


class _Flows(ast.NodeVisitor):
    """Where the value of each name read goes: into a test, into the updates of
    other names, or anywhere else; and how each name is bound."""

    def __init__(self):
        self.sinks = defaultdict(set)      # name -> {_TEST, _OTHER, frozenset(names)}
        self.plain = defaultdict(bool)     # name -> bound only by plain assignment so far
        self.bound = set()
        self.assigned = set()              # names bound by ``n = ...`` or ``n += ...``
        self.moved_on = set()              # names an update of which starts from their value
        self.sources = defaultdict(set)    # name -> the names its updates read
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
        """Names updated from ``values``; ``moved_on``: those updated in place."""
        sink = frozenset(names)
        read = {n.id for v in values if v is not None for n in ast.walk(v)
                if isinstance(n, ast.Name)}
        for name in names:
            self.bind(name, True)
            self.sources[name] |= read
            if name in read or name in moved_on:
                self.moved_on.add(name)
        self.into(sink, *values)

    def visit_Assign(self, node):
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
        name = _method_update(node)
        if name is None:
            return self.generic_visit(node)
        call = node.value
        self.update([name], *call.args, *[k.value for k in call.keywords], moved_on={name})
        self.into(frozenset([name]), call.func.value)

    def visit_If(self, node):
        self.into(_TEST, node.test)
        self.into(_OTHER, node.body, node.orelse)

    visit_While = visit_If

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
        self.bind(node.asname or node.name.split(".")[0], False)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.bind(node.name, False)
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self.bind(name, False)

    visit_Nonlocal = visit_Global

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.sinks[node.id].add(self.sink)
        else:
            self.bind(node.id, False)      # a loop's target, ``with ... as``, ``del``


def bookkeeping_names(module, keep=frozenset()):
    """The names of ``module`` kept only for show (see the module's docstring)."""
    flows = _Flows()
    flows.visit(module)
    return _kept_for_show(flows, keep)


def _kept_for_show(flows, keep):
    names = {n for n in flows.assigned if flows.plain[n] and n not in keep}

    def kept(n):
        return ((n in flows.moved_on or names >= flows.sources[n] != set())
                and all(s == _TEST or (isinstance(s, frozenset) and s <= names)
                        for s in flows.sinks.get(n, ())))

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


def _leaves_early(body):
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _LEAVES):
            return True
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _doing(body):
    return [s for s in body if not isinstance(s, ast.Pass)]


def _only_raises(body):
    return len(body) == 1 and isinstance(body[0], ast.Raise)


class _Drop(ast.NodeTransformer):
    def __init__(self, names, bound):
        self.names, self.bound = names, bound

    def generic_visit(self, node):
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(body, list) and not body and not isinstance(node, ast.Module):
            body.append(ast.Pass())
        return node

    def visit_Assign(self, node):
        if all(_updated(t) in self.names for t in node.targets):
            return None
        return self.generic_visit(node)

    def visit_AugAssign(self, node):
        if _updated(node.target) in self.names:
            return None
        return self.generic_visit(node)

    def visit_Expr(self, node):
        if _method_update(node) in self.names:
            return None
        return self.generic_visit(node)

    def visit_Assert(self, node):
        return None if _decided_by(node.test, self.names, self.bound) else node

    def visit_If(self, node):
        self.generic_visit(node)
        if not _decided_by(node.test, self.names, self.bound):
            return node
        body, orelse = _doing(node.body), _doing(node.orelse)
        if _only_raises(orelse):
            orelse = []                    # a branch that can only fail: never taken
        elif _only_raises(body):
            body, orelse = orelse, []
        if not orelse and not _leaves_early(body):
            return body or None
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
    flows = _Flows()
    flows.visit(module)
    names = _kept_for_show(flows, keep)
    if not names:
        return module
    return _Drop(names, frozenset(flows.bound)).visit(module)
