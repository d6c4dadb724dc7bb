"""Branches chosen by a constant, read as the branch chosen.

``n if 1 else 0`` and ``0 or n`` are ``n`` whatever ``n`` is: the test decides
nothing. :func:`inline_constant_picks` reads as the branch taken

- a conditional expression of a constant test (``n if 1 else 0`` is ``n``);
- ``or`` and ``and`` after constants that decide nothing (``0 or n``, ``1 and n``
  are ``n``).

An element taken out of what holds it (``(n,)[0]``, ``next(iter((n,)))``) is
read by :mod:`.round_trips`; :func:`.wrappers.see_through_wrappers` runs
both until neither finds anything more.

Not read: a test that is a name or a call (``n if k else 0``), which decides.
"""

import ast

__all__ = ["inline_constant_picks"]


class _Picks(ast.NodeTransformer):
    def __init__(self):
        self.changed = False

    def found(self, node):
        self.changed = True
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return self.found(node.body if node.test.value else node.orelse)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        decides = (lambda v: bool(v)) if isinstance(node.op, ast.Or) else (lambda v: not v)
        values = list(node.values)
        while len(values) > 1 and isinstance(values[0], ast.Constant) \
                and not decides(values[0].value):
            values.pop(0)
        if len(values) == len(node.values):
            return node
        self.changed = True
        if len(values) == 1:
            return values[0]
        node.values = values
        return node


def inline_constant_picks(module):
    """``module`` (an ast.Module, changed in place) with every expression that picks
    one of its parts by a constant read as that part; (module, whether any was)."""
    picks = _Picks()
    module = picks.visit(module)
    return module, picks.changed
