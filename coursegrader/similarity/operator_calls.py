"""Calls of the standard library's ``operator`` functions read as the operators.

``operator.mul(a, b)`` is ``a * b``, ``operator.getitem(x, i)`` is ``x[i]`` and
``operator.lt(a, b)`` is ``a < b``: a copier who spells every operator as a
call changes nothing the code does. :func:`as_operators` writes such calls
back as the operators, where ``operator`` is the module imported under any
name (``import operator as op``) or the function is imported from it
(``from operator import mul as m``), and the name is bound by that import
alone. A call with other arguments than the operator takes (``*args``, a
keyword) stays as it is.
"""

import ast

from .bindings import binding_counts

__all__ = ["as_operators"]

_BINARY = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div,
           "floordiv": ast.FloorDiv, "mod": ast.Mod, "pow": ast.Pow, "matmul": ast.MatMult,
           "lshift": ast.LShift, "rshift": ast.RShift, "and_": ast.BitAnd,
           "or_": ast.BitOr, "xor": ast.BitXor}
_UNARY = {"neg": ast.USub, "pos": ast.UAdd, "invert": ast.Invert, "inv": ast.Invert,
          "not_": ast.Not}
_COMPARE = {"lt": ast.Lt, "le": ast.LtE, "gt": ast.Gt, "ge": ast.GtE, "eq": ast.Eq,
            "ne": ast.NotEq, "is_": ast.Is, "is_not": ast.IsNot, "contains": None}
_KNOWN = {*_BINARY, *_UNARY, *_COMPARE, "getitem"}


def _bindings(module):
    """``(module names, {function name: operator function})`` bound by imports of
    ``operator`` and by nothing else."""
    modules, functions, by_operator = set(), {}, {}
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "operator":
                    modules.add(alias.asname or "operator")
                    by_operator[alias.asname or "operator"] = \
                        by_operator.get(alias.asname or "operator", 0) + 1
        elif isinstance(node, ast.ImportFrom) and node.module == "operator" and node.level == 0:
            for alias in node.names:
                if alias.name in _KNOWN:
                    name = alias.asname or alias.name
                    # a name imported as two functions is neither
                    functions[name] = alias.name if functions.get(name, alias.name) == \
                        alias.name else None
                    by_operator[name] = by_operator.get(name, 0) + 1
    counts = binding_counts(module)
    alone = {name for name, n in by_operator.items() if counts.get(name) == n}
    functions = {k: v for k, v in functions.items() if k in alone and v is not None}
    return modules & alone, functions


class _Operators(ast.NodeTransformer):
    def __init__(self, modules, functions):
        self.modules, self.functions = modules, functions

    def function(self, func):
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in self.modules and func.attr in _KNOWN:
            return func.attr
        if isinstance(func, ast.Name):
            return self.functions.get(func.id)
        return None

    def visit_Call(self, node):
        self.generic_visit(node)
        name = self.function(node.func)
        args = node.args
        if name is None or node.keywords or any(isinstance(a, ast.Starred) for a in args):
            return node
        if len(args) == 1 and name in _UNARY:
            new = ast.UnaryOp(_UNARY[name](), args[0])
        elif len(args) == 2 and name in _BINARY:
            new = ast.BinOp(args[0], _BINARY[name](), args[1])
        elif len(args) == 2 and name == "getitem":
            new = ast.Subscript(args[0], args[1], ast.Load())
        elif len(args) == 2 and name == "contains":      # contains(a, b) is b in a
            new = ast.Compare(args[1], [ast.In()], [args[0]])
        elif len(args) == 2 and name in _COMPARE:
            new = ast.Compare(args[0], [_COMPARE[name]()], [args[1]])
        else:
            return node
        return ast.copy_location(new, node)


def as_operators(module):
    """``module`` (changed in place) with calls of ``operator``'s functions written
    as the operators they are."""
    modules, functions = _bindings(module)
    if modules or functions:
        module = _Operators(modules, functions).visit(module)
    return module
