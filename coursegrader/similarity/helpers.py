"""A helper function called once, read where it is called.

A copy can cut each function of its original into helpers, each called once
(``def _scale(X, c): ...; return out`` then ``out = _scale(X, c)`` where the
loop stood), and every line moves into another function: the copy shares few
runs with the original. :func:`helpers_inlined` reads such a helper where it
is called: its parameters are the arguments (a name passed for a parameter
the helper never rebinds is read as that name; any other argument is
assigned to the parameter first), its statements follow, and what it returns
is the value of the call.

A helper is a function bound once, with no decorators, whose parameters are
plain (no defaults, ``*args``, keywords), that returns only at its end (or
never), does not yield, and that the program reads once: in ``x = h(a, b)``,
``return h(a, b)`` or ``h(a, b)`` as a statement, with as many positional
arguments as it has parameters, outside its own body. The graded functions
(``keep``) are never helpers. An honest helper called once is read inline too,
as its author could have written it.
"""

import ast
from collections import Counter

from .bindings import binding_counts
from .thunks import own_nodes

__all__ = ["helpers_inlined"]


def _body(node):
    """(statements before the return, the returned value or None), for a helper."""
    a = node.args
    if (node.decorator_list or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg
            or a.defaults or not a.args):
        return None
    body = node.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]                    # the docstring
    value = None
    if body and isinstance(body[-1], ast.Return):
        value, body = body[-1].value, body[:-1]
        if value is None:
            return None
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
                          ast.Nonlocal)) for n in own_nodes(body)):
        return None
    return body, value


def _call(stmt):
    """The call ``h(a, b)`` that ``stmt`` is made of, if it is ``x = h(a, b)``,
    ``return h(a, b)`` or ``h(a, b)``."""
    value = getattr(stmt, "value", None)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and not value.keywords and not any(isinstance(a, ast.Starred) for a in value.args)):
        return None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], ast.Name):
        return value
    if isinstance(stmt, (ast.Return, ast.Expr)):
        return value
    return None


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node)
        return node


class _Inline(ast.NodeTransformer):

    def __init__(self, helpers):
        self.helpers = helpers             # name: (function, statements, value)

    def visit_FunctionDef(self, node):
        if node.name in self.helpers:
            return None                    # read where it is called
        return self.generic_visit(node)

    def inline(self, stmt):
        call = _call(stmt)
        if call is None or call.func.id not in self.helpers:
            return self.generic_visit(stmt)
        function, body, value = self.helpers.pop(call.func.id)
        params = [p.arg for p in function.args.args]
        stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)
                  and not isinstance(n.ctx, ast.Load)}
        same, out = {}, []
        for param, arg in zip(params, call.args):
            if isinstance(arg, ast.Name) and param not in stored:
                same[param] = arg.id       # ``h(X)`` for ``def h(A)``: ``A`` reads as ``X``
            else:
                out.append(ast.Assign(targets=[ast.Name(param, ast.Store())],
                                      value=self.visit(arg), lineno=0))
        rename = _Rename(same)
        for s in body:
            s = self.visit(rename.visit(s))
            out.extend(s if isinstance(s, list) else [s] if s is not None else [])
        if value is not None:
            value = rename.visit(value)
            if isinstance(stmt, ast.Assign):
                out.append(ast.Assign(targets=stmt.targets, value=value, lineno=0))
            elif isinstance(stmt, ast.Return):
                out.append(ast.Return(value=value, lineno=0))
            else:
                out.append(ast.Expr(value=value, lineno=0))
        elif isinstance(stmt, ast.Return):
            out.append(ast.Return(value=None, lineno=0))
        return out or None

    visit_Assign = visit_Return = visit_Expr = inline


def helpers_inlined(module, keep=frozenset()):
    """``module`` with each helper called once read where it is called; ``keep``:
    the graded names, never helpers."""
    nodes = list(ast.walk(module))
    counts = binding_counts(module)
    loads = Counter(n.id for n in nodes if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load))
    sites = {}
    for node in nodes:
        call = _call(node) if isinstance(node, ast.stmt) else None
        if call is not None:
            sites.setdefault(call.func.id, []).append(call)
    helpers = {}
    for node in nodes:
        if (isinstance(node, ast.FunctionDef) and node.name not in keep
                and counts.get(node.name) == 1 and loads.get(node.name) == 1
                and len(sites.get(node.name, ())) == 1
                and len(sites[node.name][0].args) == len(node.args.args)
                and not any(n is sites[node.name][0] for n in ast.walk(node))
                and (parts := _body(node)) is not None):
            helpers[node.name] = (node, *parts)
    if not helpers:
        return module
    return _Inline(helpers).visit(module)
