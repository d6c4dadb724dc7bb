"""The one way the normal form's passes drop statements: a block left empty holds
``pass``, so the tree stays a program."""

import ast

__all__ = ["Dropping"]


class Dropping(ast.NodeTransformer):
    """A transformer that may return None (or a list) for a statement; a body it
    empties holds ``pass``."""

    def generic_visit(self, node):
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(body, list) and not body and not isinstance(node, ast.Module):
            body.append(ast.Pass())
        return node
