"""Branches chosen by a constant, or that are all the same, read as the branch.

``n if 1 else 0`` and ``0 or n`` are ``n`` whatever ``n`` is: the test decides
nothing; ``n if k else n`` and ``(n, n)[k]`` are ``n`` whatever ``k`` is: what it
decides between is the same. :func:`inline_constant_picks` reads as the branch

- a conditional expression of a constant test (``n if 1 else 0`` is ``n``);
- ``or`` and ``and`` after constants that decide nothing (``0 or n``, ``1 and n``
  are ``n``);
- a conditional expression whose two branches are the same name, constant or
  attribute of names (``n if k else n``), and a subscript of a literal tuple,
  list or dict whose elements all are (``(n, n)[len(V) % 2]``, ``{0: n, 1:
  n}[k]``), or that has one (``(n,)[k]``: ``n`` or an error), when the test or the
  index calls nothing but builtins that only compute (``len``, ``abs``, ...):
  it is evaluated, and may raise, but changes nothing.

An element taken out of what holds it (``(n,)[0]``, ``next(iter((n,)))``) is
read by :mod:`.round_trips`; :func:`.wrappers.see_through_wrappers` runs
both until neither finds anything more.

A name the program binds once, at the top level, to a constant (``_t = 1``) is
that constant in a test (``n if _t else None``, ``_t and n``, ``_f or n``):
nothing else can change it (:func:`named_constants`).

Not read: a test that is any other name or a call (``n if k else 0``), which
decides.
"""

import ast

from .bindings import bound_once_at_the_top

__all__ = ["inline_constant_picks", "named_constants"]


def _plain(node):
    """A name, a constant or an attribute of names (``n``, ``0``, ``np.pi``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


def _same_plain(nodes):
    """Whether ``nodes`` are all the same plain expression."""
    first = ast.dump(nodes[0])
    return _plain(nodes[0]) and all(ast.dump(n) == first for n in nodes[1:])


#: builtins that only compute (``len(V) % 2`` decides, but changes nothing)
_COMPUTE = frozenset({"len", "abs", "min", "max", "int", "float", "bool", "sum", "round",
                      "isinstance", "callable", "hash", "ord", "chr"})


def _runs(node):
    """Whether evaluating ``node`` may do something: a call (but of a builtin that
    only computes), a walrus, a yield."""
    for n in ast.walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name)
                                            and n.func.id in _COMPUTE):
            return True
    return False


def named_constants(module, keep, counts):
    """{name: value} of the names ``module`` binds once in all (``counts``, from
    :func:`.bindings.binding_counts`), at its top level, to a constant (a number, a
    string, ``True``, ``None``), but the release's names ``keep``."""
    return {name: value.value for name, value in bound_once_at_the_top(module, counts)
            if isinstance(value, ast.Constant) and name not in keep}


class _Picks(ast.NodeTransformer):
    def __init__(self, constants):
        self.changed = False
        self.constants = constants

    def constant(self, node):
        """``node`` as a constant node when it is one or names one, else None."""
        if isinstance(node, ast.Constant):
            return node
        if isinstance(node, ast.Name) and node.id in self.constants:
            return ast.Constant(self.constants[node.id])
        return None

    def found(self, node):
        self.changed = True
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        test = self.constant(node.test)
        if test is not None:
            return self.found(node.body if test.value else node.orelse)
        if _same_plain([node.body, node.orelse]) and not _runs(node.test):
            return self.found(node.body)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        value = node.value
        if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, ast.Slice) \
                or _runs(node.slice):
            return node
        if isinstance(value, (ast.Tuple, ast.List)) and value.elts and (
                len(value.elts) == 1 and _plain(value.elts[0]) or _same_plain(value.elts)):
            return self.found(value.elts[0])       # ``(n,)[k]``: n, or an error
        if (isinstance(value, ast.Dict) and value.values and None not in value.keys
                and all(_plain(k) for k in value.keys) and _same_plain(value.values)):
            return self.found(value.values[0])     # ``{0: n, 1: n}[k]``
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        decides = (lambda v: bool(v)) if isinstance(node.op, ast.Or) else (lambda v: not v)
        values = list(node.values)
        while len(values) > 1 and self.constant(values[0]) is not None \
                and not decides(self.constant(values[0]).value):
            values.pop(0)
        if len(values) == len(node.values):
            return node
        self.changed = True
        if len(values) == 1:
            return values[0]
        node.values = values
        return node


def inline_constant_picks(module, constants=None):
    """``module`` (an ast.Module, changed in place) with every expression that picks
    one of its parts by a constant read as that part; (module, whether any was).
    ``constants``: the names that are constants (:func:`named_constants`)."""
    picks = _Picks(constants or {})
    module = picks.visit(module)
    return module, picks.changed
