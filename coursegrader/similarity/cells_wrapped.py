"""A whole cell put inside something that runs it once, read as the cell.

The graded functions are defined at the top level of a notebook. A copy can
indent a classmate's cells one level, each under ``if __debug__:``, ``if V is
not None:`` (``else: raise ...``), in a class nobody uses (``class _Cell:
global f`` then the cell), or in a function called once (``def _cell(): global
f`` ... ``_cell()``; ``def _make(): ...; return (f,)`` then ``(f,) =
_make()``): every line of the normal form then starts one level deeper and no
run of it is the original's. At the top level, such a wrapper round a
definition of a graded function (or, for an ``if``, round any definition or
import) is read as what it holds.
"""

import ast

__all__ = ["cells_unwrapped"]

_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _only_raises(body):
    return all(isinstance(s, (ast.Raise, ast.Pass)) for s in body)


def _defines_graded(body, graded):
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and s.name in graded for s in body)


def _held(stmt, graded):
    """What ``stmt`` holds, if it is a wrapper round a cell, else None."""
    if isinstance(stmt, ast.If) and _only_raises(stmt.orelse) \
            and any(isinstance(s, _DEFINES) for s in stmt.body):
        return stmt.body
    if (isinstance(stmt, ast.ClassDef) and not stmt.bases and not stmt.keywords
            and not stmt.decorator_list and _defines_graded(stmt.body, graded)):
        return stmt.body
    if (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list
            and not (stmt.args.args or stmt.args.posonlyargs or stmt.args.kwonlyargs
                     or stmt.args.vararg or stmt.args.kwarg)
            and _defines_graded(stmt.body, graded)):
        body = stmt.body
        return body[:-1] if body and isinstance(body[-1], ast.Return) else body
    return None


def cells_unwrapped(module, graded):
    """``module`` with each top-level wrapper round a cell (of the graded
    functions ``graded``) replaced by what it holds, nested wrappers too."""
    body, changed = module.body, True
    for _ in range(8):                     # wrappers nested a few deep
        if not changed:
            break
        out, changed = [], False
        for stmt in body:
            held = _held(stmt, graded)
            if held is None:
                out.append(stmt)
            else:
                out += held
                changed = True
        body = out
    module.body = body
    return module
