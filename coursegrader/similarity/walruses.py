"""Walruses lifted out: ``(x := e)`` in a statement is ``x = e`` on the line before.

An assignment expression does the work wherever it stands, so a copy can carry
each statement of the original inside something the normal form reads as
nothing: ``assert (x := e) is not None``, ``while (x := e) is None: break``, a
dead function's default ``def _d(_a=(x := e)): pass``, ``print((x := e),
file=sink)``, a counter's update ``_k = _k + ((x := e) is None)``. Lifted first,
each is ``x = e`` followed by what does nothing.

Every walrus of a statement's own expressions (its test, what it loops over, its
defaults, its value: not the statements it holds, which are lifted in their own
block) becomes an assignment before it, innermost first, in the order Python
evaluates them; a walrus in a branch that may not run, or in a loop's test that
runs again, is lifted all the same: the normal form is read, not run. A walrus
whose name nothing reads (``(_w := n)`` round every name) is its value.
"""

import ast

__all__ = ["lift_walruses"]

#: Fields of a statement that hold statements (or handlers and cases), lifted in
#: their own blocks
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


class _Lift(ast.NodeTransformer):
    """Lifts the walruses of one statement's own expressions."""

    def __init__(self, read):
        self.lifted, self.read = [], read

    def generic_visit(self, node):
        for field, value in ast.iter_fields(node):
            if field in _BLOCKS and isinstance(node, (ast.stmt, ast.ExceptHandler,
                                                      ast.match_case)):
                continue
            if isinstance(value, list):
                value[:] = [self.visit(v) if isinstance(v, ast.AST) else v for v in value]
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_NamedExpr(self, node):
        self.generic_visit(node)           # an inner one first
        if node.target.id not in self.read:
            return node.value              # ``(_w := n)`` with ``_w`` read nowhere is ``n``
        self.lifted.append(ast.copy_location(ast.Assign(
            targets=[ast.Name(node.target.id, ast.Store())], value=node.value), node))
        return ast.copy_location(ast.Name(node.target.id, ast.Load()), node)


def _block(body, read):
    out = []
    for stmt in body:
        lift = _Lift(read)
        lift.visit(stmt)
        out += lift.lifted
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, _block(inner, read))
        for part in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            guard = getattr(part, "guard", None)
            if guard is not None:          # ``case 0 if (x := e) is None or True:``
                lift = _Lift(read)
                part.guard = lift.visit(guard)
                out += lift.lifted
            part.body = _block(part.body, read)
        out.append(stmt)
    return out


def lift_walruses(module):
    """``module`` with every walrus lifted to an assignment of its own."""
    if any(isinstance(n, ast.NamedExpr) for n in ast.walk(module)):
        read = {n.id for n in ast.walk(module)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        module.body = _block(module.body, read)
    return module
