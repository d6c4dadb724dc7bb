"""A constant put in a name that is given another value before anything reads it.

A copy can declare every name first (``c = None``, ``out = None``, ``_t1 =
None`` ...) and only then do the work: each declaration is read, later, so
dropping unread names keeps it. :func:`drop_dead_stores` drops an assignment
of a constant (``None``, a number, a string, an empty ``[]``, ``()`` or
``{}``) to a name when a later statement of the same block assigns the name
again without reading it, and no statement in between reads it, binds it
another way, or declares it ``global`` or ``nonlocal`` (a function defined in
between that reads it counts as reading it). Blocks of a ``try`` are left as
they are: a handler may read the first value.
"""

import ast

from .blocks import statement_lists
from .dropping import Dropping

__all__ = ["drop_dead_stores"]


def _constant(node):
    return isinstance(node, ast.Constant) or (
        isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set))
        and not getattr(node, "elts", None) and not getattr(node, "keys", None))


def _mentioned(stmt):
    """The names ``stmt`` reads, binds or declares, anywhere in it."""
    names = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
    return names


def _rebound(stmt):
    """The names ``stmt`` assigns without reading (``name = e``)."""
    if not isinstance(stmt, ast.Assign):
        return set()
    read = _mentioned(stmt.value)
    for t in stmt.targets:
        if not isinstance(t, ast.Name):
            read |= _mentioned(t)
    return {t.id for t in stmt.targets if isinstance(t, ast.Name)} - read


def _declaration(stmt):
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and _constant(stmt.value))


def _live(body):
    """``body`` without its dead stores of constants, in one pass from its end."""
    if not any(_declaration(stmt) for stmt in body):
        return body
    after, kept = {}, []           # name: whether its next mention rebinds it
    for stmt in reversed(body):
        if _declaration(stmt) and after.get(stmt.targets[0].id):
            continue                       # given another value before it is read
        rebound = _rebound(stmt)
        for name in _mentioned(stmt):
            after[name] = name in rebound
        kept.append(stmt)
    return kept[::-1]


class _Drop(Dropping):

    def generic_visit(self, node):
        if not isinstance(node, (ast.Try, ast.TryStar)):
            for field, body in list(statement_lists(node)):
                setattr(node, field, _live(body))
        return super().generic_visit(node)


def drop_dead_stores(module):
    """``module`` without constants put in names that are given another value first."""
    return _Drop().visit(module)
