"""A function of no parameters called once, read as what it does where it is called.

A copy can give each statement a function of its own: ``def _s1(): return 2 *
c`` then ``t1 = _s1()``, or ``@_call`` over ``def t1(): return 2 * c`` where
``def _call(f): return f()``, or ``def _s1(): nonlocal t1; t1 = 2 * c`` then
``_s1()``. Such a function (bound once, called once, with no arguments) is its
value where it is called, the decorated one is an assignment of its value, and
one that returns nothing, called as a statement, is its statements (its
``nonlocal`` and ``global`` declarations gone). A name given to such a function
again and again (``def _s(): ...`` then ``_s()`` or ``x = _s()``, for every
statement) is read as a name for each, when nothing else reads it.
"""

import ast
from collections import Counter

from .bindings import binding_counts
from .blocks import statement_lists

__all__ = ["own_nodes", "thunks_inlined"]


def _value(node):
    """``e`` of ``def f(): return e`` (no parameters, no decorators), else None."""
    a = node.args
    if (isinstance(node, ast.FunctionDef) and not node.decorator_list
            and not (a.args or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg)
            and len(node.body) == 1 and isinstance(node.body[0], ast.Return)
            and node.body[0].value is not None):
        return node.body[0].value
    return None


def own_nodes(body):
    """The nodes of the statements ``body``, not those of the functions, classes
    and lambdas it defines."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _statements(node):
    """The statements of ``def f(): ...`` (no parameters, no decorators) that
    returns nothing, without its docstring and declarations, else None."""
    a = node.args
    if (not isinstance(node, ast.FunctionDef) or node.decorator_list
            or a.args or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg
            or any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await))
                   for n in own_nodes(node.body))):
        return None
    body = node.body[1:] if (isinstance(node.body[0], ast.Expr)
                             and isinstance(node.body[0].value, ast.Constant)) else node.body
    return [s for s in body if not isinstance(s, (ast.Global, ast.Nonlocal))] or [ast.Pass()]


def _callers(nodes):
    """Names of the functions among ``nodes`` whose body is ``return f()`` of their
    one parameter ``f``."""
    names = set()
    for node in nodes:
        if (isinstance(node, ast.FunctionDef) and not node.decorator_list
                and len(node.args.args) == 1 and len(node.body) == 1
                and isinstance(node.body[0], ast.Return)
                and isinstance(node.body[0].value, ast.Call)
                and isinstance(node.body[0].value.func, ast.Name)
                and node.body[0].value.func.id == node.args.args[0].arg
                and not node.body[0].value.args and not node.body[0].value.keywords):
            names.add(node.name)
    return names


class _Inline(ast.NodeTransformer):

    def __init__(self, thunks, callers, procedures):
        self.thunks, self.callers, self.procedures = thunks, callers, procedures

    def visit_FunctionDef(self, node):
        if node.name in self.thunks or node.name in self.procedures:
            return None                    # read where it is called
        if (len(node.decorator_list) == 1 and isinstance(node.decorator_list[0], ast.Name)
                and node.decorator_list[0].id in self.callers):
            plain = ast.FunctionDef(node.name, node.args, node.body, [], None, None)
            value = _value(plain)
            if value is not None:          # ``@_call def t(): return e`` is ``t = e``
                return ast.copy_location(ast.Assign(
                    targets=[ast.Name(node.name, ast.Store())],
                    value=self.visit(value)), node)
        return self.generic_visit(node)

    def visit_Expr(self, node):
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in self.procedures and not call.args and not call.keywords):
            out = []
            for stmt in self.procedures[call.func.id]:
                stmt = self.visit(stmt)
                out.extend(stmt if isinstance(stmt, list) else [stmt] if stmt else [])
            return out or None
        return self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in self.thunks \
                and not node.args and not node.keywords:
            return self.visit(self.thunks[node.func.id])
        return self.generic_visit(node)


def _called_right_after(nodes, counts, mentions):
    """Name apart (``_s__1``, ``_s__2``) each function that a statement right after
    it calls (``def _s(): ...`` then ``_s()``, ``x = _s()`` or ``return _s()``)
    where its name is bound again and
    again and read nowhere else, so that each is called once; ``nodes``: those of
    the program, ``counts``: its bindings, ``mentions``: {name: how many
    ``Name`` nodes it has}, both brought up to date."""
    called = {}
    for node in nodes:
        for _, body in statement_lists(node):
            for stmt, after in zip(body, body[1:]):
                call = getattr(after, "value", None)
                if (isinstance(stmt, ast.FunctionDef) and counts.get(stmt.name, 0) > 1
                        and isinstance(after, (ast.Expr, ast.Assign, ast.Return))
                        and isinstance(call, ast.Call)
                        and isinstance(call.func, ast.Name) and call.func.id == stmt.name
                        and not call.args and not call.keywords):
                    called.setdefault(stmt.name, []).append((stmt, call.func))
    for name, found in called.items():
        if len(found) == counts[name] == mentions[name]:
            for i, (stmt, call) in enumerate(found, 1):
                stmt.name = call.id = f"{name}__{i}"
                counts[stmt.name] = mentions[stmt.name] = 1
            del counts[name], mentions[name]


def thunks_inlined(module):
    """``module`` with each such function read as its value where it is called."""
    nodes = list(ast.walk(module))
    counts = binding_counts(module)
    mentions = Counter(n.id for n in nodes if isinstance(n, ast.Name))
    _called_right_after(nodes, counts, mentions)
    loads = Counter(n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    calls = {n.func.id for n in nodes if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and not n.args and not n.keywords}
    statements = {n.value.func.id for n in nodes if isinstance(n, ast.Expr)
                  and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                  and not n.value.args and not n.value.keywords}
    thunks, procedures = {}, {}
    for node in nodes:
        if isinstance(node, ast.FunctionDef) and counts.get(node.name) == 1 \
                and loads.get(node.name) == 1 and node.name in calls:
            value = _value(node)
            if value is not None and not any(
                    isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr))
                    for n in ast.walk(value)):
                thunks[node.name] = value
            elif node.name in statements and (body := _statements(node)) is not None:
                procedures[node.name] = body
    callers = _callers(nodes)
    if thunks or callers or procedures:
        module = _Inline(thunks, callers, procedures).visit(module)
    return module
