"""How often a program binds each name, anywhere in it."""

import ast

__all__ = ["binding_counts", "bound_once_at_the_top"]


def binding_counts(tree):
    """{name: how many times ``tree`` binds it}, anywhere in the program."""
    count = {}

    def bind(name):
        count[name] = count.get(name, 0) + 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bind(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name)
        elif isinstance(node, ast.arg):
            bind(node.arg)
        elif isinstance(node, ast.alias):
            bind(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name)
    return count


def bound_once_at_the_top(module, counts=None):
    """(name, value) of each plain assignment at the top level of ``module``
    (``name = value``) whose name the program binds nowhere else; ``counts``:
    :func:`binding_counts` of it, if already counted."""
    counts = binding_counts(module) if counts is None else counts
    for stmt in module.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and counts.get(stmt.targets[0].id) == 1):
            yield stmt.targets[0].id, stmt.value
