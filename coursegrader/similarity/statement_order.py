"""Statements that do not depend on each other, put in one order.

A copy can reorder the statements of its original wherever one does not need
another (``n = X.shape[0]`` before or after ``c = V["c"]``), and once every
operation has a line of its own (:mod:`.three_address`) most lines are free
to move: the copy does what its original does and shares fewer runs of
characters with it. :func:`in_one_order` puts each straight run of simple
statements (assignments, calls as statements; a compound statement, a
``return`` or anything else stands where it is and nothing moves across it)
in the one order its dependences allow that reads first what is first
alphabetically, line by line, names aside: so any order of the same
statements reads the same.

A statement depends on the statement that last bound a name it reads (``y =
f(x)`` on ``x = ...``) and, where both may do more than give a value (a call
of a function or class of the program's own, or of one that changes its
arguments or state, :data:`.discarded.CHANGES`, a call made as a statement,
an item or attribute set), on the one before it that may: such
statements keep their order, and one that may do more counts as binding every
name it reads. Each binding is read as a name of its own (as if every
assignment had a fresh name), so that a copy that names each value afresh
and its original, which binds one name again and again, have the same
dependences: a statement may then move above one that binds again a name it
reads, which changes no line of the normal form, where every name is ``v``.
"""

import ast
import heapq

from .blocks import statement_lists
from .discarded import CHANGES, RUNS_CODE

__all__ = ["in_one_order"]

_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
#: What in a statement does something besides giving a value
_STEPS = (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)


def _shape(stmt):
    """A statement's text with every name ``v``: its place in the order."""
    names = [n for n in ast.walk(stmt) if isinstance(n, ast.Name)]
    given = [n.id for n in names]
    for n in names:
        n.id = "v"
    try:
        return ast.unparse(stmt)
    finally:
        for n, name in zip(names, given):
            n.id = name


def _uses(stmt, own):
    """(names read, names bound, whether it may do more than give a value);
    ``own``: the functions and classes the program defines."""
    read, bound = set(), set()
    effect = isinstance(stmt, ast.Expr)    # a call made for what it does
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name):
            (read if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
            effect = True                  # ``out[:, 1] = t``: the object changes
        elif isinstance(n, ast.Call):
            name = getattr(n.func, "id", None) or getattr(n.func, "attr", None)
            if name in own or name in CHANGES or name in RUNS_CODE:
                effect = True              # ``step(X)``, ``out.pop()``, ``next(it)``
        elif isinstance(n, _STEPS):
            effect = True
    if isinstance(stmt, ast.AugAssign):
        read |= bound
    if effect:
        bound |= read                      # it may change what it reads
    return read, bound, effect


def _ordered(run, own):
    """The statements of ``run`` in the one order (see the module's docstring)."""
    deps = [set() for _ in run]
    last_bound, last_effect = {}, None
    for j, stmt in enumerate(run):
        read, bound, effect = _uses(stmt, own)
        deps[j].update(last_bound[name] for name in read if name in last_bound)
        if effect and last_effect is not None:
            deps[j].add(last_effect)
        for name in bound:
            last_bound[name] = j
        if effect:
            last_effect = j
    waiting = [len(d) for d in deps]
    after = [[] for _ in run]
    for j, d in enumerate(deps):
        for i in d:
            after[i].append(j)
    shapes = [_shape(s) for s in run]
    ready = [(shapes[j], j) for j in range(len(run)) if not waiting[j]]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(run[i])
        for j in after[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (shapes[j], j))
    return out


def _block(body, own):
    out, run = [], []
    for stmt in body:
        if isinstance(stmt, _SIMPLE):
            run.append(stmt)
            continue
        out += _ordered(run, own) if len(run) > 1 else run
        run = []
        for field, inner in list(statement_lists(stmt)):
            setattr(stmt, field, _block(inner, own))
        for part in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            part.body = _block(part.body, own)
        out.append(stmt)
    return out + (_ordered(run, own) if len(run) > 1 else run)


def in_one_order(module):
    """``module`` (changed in place) with each straight run of simple statements
    in the one order."""
    own = {n.name for n in ast.walk(module)
           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own |= {t.id for n in ast.walk(module) if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Lambda) for t in n.targets if isinstance(t, ast.Name)}
    module.body = _block(module.body, own)
    return module
