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
never), does not yield, and that the program reads once: called with as many
positional arguments as it has parameters, outside its own body, where the
statement always calls it (``x = h(a, b)``, ``return h(a, b)``, ``h(a, b)``,
``out.append(h(a, b))``; not in a lambda, a branch of ``if``/``else``,
``and``/``or`` or a comprehension). A call inside a statement is read as a
name given the helper's value just before the statement. The graded functions
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


#: Fields of a statement that hold statements, read in their own blocks
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
#: What Python evaluates on a condition or again and again: a call in it is not
#: lifted out
_CONDITIONAL = (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp, ast.DictComp,
                ast.GeneratorExp, ast.JoinedStr)


def _plain_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args))


def _calls(stmt):
    """The calls ``h(a, b)`` of names that ``stmt``'s own expressions always make
    (not in its blocks, a lambda, a branch or a loop of a comprehension)."""
    stack = [v for f, v in ast.iter_fields(stmt) if f not in _BLOCKS]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, ast.AST) and not isinstance(node, _CONDITIONAL + (ast.stmt,)):
            if _plain_call(node):
                yield node
            stack.extend(ast.iter_child_nodes(node))


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node)
        return node


class _Lift(ast.NodeTransformer):
    """Puts a name for each helper's call in a statement's own expressions."""

    def __init__(self, named):
        self.named = named                 # id of a call: its name

    def visit_Call(self, node):
        if id(node) in self.named:
            return ast.copy_location(ast.Name(self.named[id(node)], ast.Load()), node)
        return self.generic_visit(node)


class _Inline(ast.NodeTransformer):

    def __init__(self, helpers):
        self.helpers = helpers             # name: (function, statements, value)
        self.fresh = 0

    def visit_FunctionDef(self, node):
        if node.name in self.helpers:
            return None                    # read where it is called
        return self.generic_visit(node)

    def expanded(self, call):
        """(the statements of the helper ``call`` calls, as called, and the value
        it returns or None)."""
        function, body, value = self.helpers.pop(call.func.id)
        stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)
                  and not isinstance(n.ctx, ast.Load)}
        same, out = {}, []
        for param, arg in zip((p.arg for p in function.args.args), call.args):
            if isinstance(arg, ast.Name) and param not in stored:
                same[param] = arg.id       # ``h(X)`` for ``def h(A)``: ``A`` reads as ``X``
            else:
                out.append(ast.Assign(targets=[ast.Name(param, ast.Store())],
                                      value=self.visit(arg), lineno=0))
        rename = _Rename(same)
        for s in body:
            s = self.visit(rename.visit(s))
            out.extend(s if isinstance(s, list) else [s] if s is not None else [])
        return out, None if value is None else self.visit(rename.visit(value))

    def visit(self, node):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef,
                                                              ast.AsyncFunctionDef)):
            return super().visit(node)
        value = getattr(node, "value", None)
        if (isinstance(node, (ast.Assign, ast.Return, ast.Expr)) and _plain_call(value)
                and value.func.id in self.helpers
                and (not isinstance(node, ast.Assign) or len(node.targets) == 1)):
            out, result = self.expanded(value)      # ``x = h(a)``, ``return h(a)``, ``h(a)``
            if result is not None or isinstance(node, ast.Return):
                node.value = result
                out.append(node)
            return out or None
        named, before = {}, []
        for call in _calls(node):
            if call.func.id in self.helpers:
                out, result = self.expanded(call)
                self.fresh += 1
                named[id(call)] = name = f"_h{self.fresh}"
                before += out + [ast.Assign(targets=[ast.Name(name, ast.Store())],
                                            value=result or ast.Constant(None), lineno=0)]
        node = super().visit(_Lift(named).visit(node) if named else node)
        return before + (node if isinstance(node, list) else [node] if node else []) \
            if before else node


def helpers_inlined(module, keep=frozenset()):
    """``module`` with each helper called once read where it is called; ``keep``:
    the graded names, never helpers."""
    nodes = list(ast.walk(module))
    loads = Counter(n.id for n in nodes if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load))
    if not any(isinstance(n, ast.FunctionDef) and loads.get(n.name) == 1 for n in nodes):
        return module
    counts = binding_counts(module)
    sites = {}
    for node in nodes:
        if isinstance(node, ast.stmt):
            for call in _calls(node):
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
