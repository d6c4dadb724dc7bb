"""One operation a line: every operation nested in another is given a name of its own.

A copier can move each call, operator and subscript of a copied line into a
temporary of its own (``t1 = 2 * c``, ``t2 = t1 ** 0.5``, ``t3 = t2 * a``)
without changing what the code does; the copy then shares few runs of
characters with its original. :func:`one_operation_a_line` writes every
program that way, so that the original and such a copy read the same: each
operation nested in a statement, in the order Python evaluates it (the
innermost first, left to right), becomes an assignment to a fresh name, and
the statement reads that name. Lists, tuples, sets and dictionaries written
out as operands (``np.hstack([a, b])``) count as operations.

The outermost operation of a statement stays in it: ``return f(x)`` is not
``t = f(x); return t``. A copy that names every returned value and tested
condition too shares fewer runs with its original (0.78 to 0.88 of its code on
ps1's nine honest answers so rewritten), but independent answers, whose
returns and tests read alike once named, share little more than they did: the
closest pair of ps1's twelve honest answers shares 0.31 of its code, against
0.28 before this reading and 0.36 with the outermost operations named too.

What Python evaluates only on a condition, or again and again, stays where it
is: the branches of ``a if c else b`` and of ``and``/``or``, the bodies of
lambdas and comprehensions, the test of a ``while``, the message of an
``assert``. Names are given by the renaming that follows (every one a student
binds is ``v``), so the fresh names never show.
"""

import ast

__all__ = ["one_operation_a_line"]

#: Operations given a line of their own when nested in another.
_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Compare,
               ast.List, ast.Tuple, ast.Set, ast.Dict)
#: What is evaluated on a condition or again and again: never taken apart.
_KEPT_WHOLE = (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp,
               ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.NamedExpr)
_BLOCKS = ("body", "orelse", "finalbody")


def _literal(node):
    """A constant, or a negated one (``-1``): a value, not an operation."""
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))


def _position(node):
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


class _Lines:
    """Lifts the operations of one statement into assignments before it."""

    def __init__(self, fresh):
        self.fresh = fresh          # an iterator of fresh names, shared by the program
        self.before = []

    def named(self, node):
        name = next(self.fresh)
        self.before.append(ast.Assign(targets=[ast.Name(name, ast.Store())], value=node))
        return ast.Name(name, ast.Load())

    def parts(self, node):
        """``node`` with every operation inside it lifted out (``node`` itself stays)."""
        if isinstance(node, _KEPT_WHOLE) or _literal(node):
            return node
        if isinstance(node, ast.Compare):
            # in the order written: the normal form spells ``a > b`` as ``b < a``
            operands = [node.left, *node.comparators]
            written = sorted(range(len(operands)), key=lambda i: _position(operands[i]))
            for i in written:
                operands[i] = self.operand(operands[i])
            node.left, node.comparators = operands[0], operands[1:]
            return node
        if isinstance(node, ast.Dict):
            pairs = [(k if k is None else self.operand(k), self.operand(v))
                     for k, v in zip(node.keys, node.values)]
            node.keys, node.values = [k for k, _ in pairs], [v for _, v in pairs]
            return node
        for field, value in ast.iter_fields(node):
            if field == "slice" and isinstance(value, ast.Tuple):
                value.elts = [self.index(e) for e in value.elts]   # ``X[:, f(i)]``
            elif field == "slice":
                setattr(node, field, self.index(value))
            elif isinstance(value, ast.expr):
                setattr(node, field, self.operand(value))
            elif isinstance(value, list):
                value[:] = [self.operand(v) if isinstance(v, ast.expr) else self.keyword(v)
                            for v in value]
        return node

    def keyword(self, node):
        if isinstance(node, ast.keyword):
            node.value = self.operand(node.value)
        return node

    def index(self, node):
        """A subscript's index: a slice keeps its colons, its bounds are operands."""
        if isinstance(node, ast.Slice):
            for field in ("lower", "upper", "step"):
                if getattr(node, field) is not None:
                    setattr(node, field, self.operand(getattr(node, field)))
            return node
        return self.operand(node)

    def operand(self, node):
        """``node`` as an operand of another: named on a line of its own if an operation."""
        node = self.parts(node)
        if isinstance(node, _OPERATIONS) and not _literal(node) \
                and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return self.named(node)
        return node

    def target(self, node):
        """An assignment's target: ``X[f(i)] = ...`` and ``f(o).a = ...`` lift their parts."""
        if isinstance(node, (ast.Tuple, ast.List)):
            node.elts = [self.target(e) for e in node.elts]
        elif isinstance(node, ast.Starred):
            node.value = self.target(node.value)
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            return self.parts(node)
        return node


def _statement(stmt, fresh):
    """``stmt`` with its operations lifted: the list of statements it becomes."""
    lines = _Lines(fresh)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        if stmt.value is not None:
            stmt.value = lines.parts(stmt.value)
        if isinstance(stmt, ast.Assign):
            stmt.targets = [lines.target(t) for t in stmt.targets]
        else:
            stmt.target = lines.target(stmt.target)
    elif isinstance(stmt, ast.Expr):
        stmt.value = lines.parts(stmt.value)
    elif isinstance(stmt, (ast.Return, ast.Raise, ast.If, ast.For, ast.AsyncFor, ast.Match)):
        field = {ast.Return: "value", ast.Raise: "exc", ast.If: "test",
                 ast.Match: "subject"}.get(type(stmt), "iter")
        if getattr(stmt, field) is not None:
            setattr(stmt, field, lines.parts(getattr(stmt, field)))
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            item.context_expr = lines.parts(item.context_expr)
    for s in lines.before:
        ast.copy_location(s, stmt)
    return lines.before + [stmt]


def _blocks(node, fresh):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.excepthandler, ast.match_case)) or \
                isinstance(child, ast.stmt):
            _blocks(child, fresh)
    for field in _BLOCKS:
        body = getattr(node, field, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            setattr(node, field, [s for stmt in body for s in _statement(stmt, fresh)])


def one_operation_a_line(module):
    """``module`` (an :class:`ast.Module`, changed in place) with every operation
    nested in another on a line of its own, assigned to a fresh name."""
    taken = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    fresh = (f"_t{k}" for k in range(10**9) if f"_t{k}" not in taken)
    _blocks(module, fresh)
    return ast.fix_missing_locations(module)
