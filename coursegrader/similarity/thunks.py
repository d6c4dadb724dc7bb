"""A function of no parameters that only returns a value, called once where it is
defined, read as the value.

A copy can give each statement a function of its own: ``def _s1(): return 2 *
c`` then ``t1 = _s1()``, or ``@_call`` over ``def t1(): return 2 * c`` where
``def _call(f): return f()``. Such a function (bound once, called once, with no
arguments) is its value where it is called, and the decorated one is an
assignment of its value.
"""

import ast

from .bindings import binding_counts

__all__ = ["thunks_inlined"]


def _value(node):
    """``e`` of ``def f(): return e`` (no parameters, no decorators), else None."""
    a = node.args
    if (isinstance(node, ast.FunctionDef) and not node.decorator_list
            and not (a.args or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg)
            and len(node.body) == 1 and isinstance(node.body[0], ast.Return)
            and node.body[0].value is not None):
        return node.body[0].value
    return None


def _callers(module):
    """Names of functions whose body is ``return f()`` of their one parameter ``f``."""
    names = set()
    for node in ast.walk(module):
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

    def __init__(self, thunks, callers):
        self.thunks, self.callers = thunks, callers

    def visit_FunctionDef(self, node):
        if node.name in self.thunks:
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

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in self.thunks \
                and not node.args and not node.keywords:
            return self.visit(self.thunks[node.func.id])
        return self.generic_visit(node)


def thunks_inlined(module):
    """``module`` with each such function read as its value where it is called."""
    counts = binding_counts(module)
    loads = {}
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads[n.id] = loads.get(n.id, 0) + 1
    calls = {n.func.id for n in ast.walk(module) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and not n.args and not n.keywords}
    thunks = {}
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and counts.get(node.name) == 1 \
                and loads.get(node.name) == 1 and node.name in calls:
            value = _value(node)
            if value is not None and not any(
                    isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr))
                    for n in ast.walk(value)):
                thunks[node.name] = value
    callers = _callers(module)
    if thunks or callers:
        module = _Inline(thunks, callers).visit(module)
    return module
