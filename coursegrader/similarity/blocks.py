"""The lists of statements a node holds: the one reading of "a block" that the
passes which work a block at a time share."""

import ast

__all__ = ["statement_lists"]

#: Fields of a node that may hold a list of statements
_FIELDS = ("body", "orelse", "finalbody")


def statement_lists(node):
    """(field, list of statements) of each non-empty block ``node`` holds
    (``body``, ``orelse``, ``finalbody``; not an expression's ``body``)."""
    for field in _FIELDS:
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield field, block
