"""What a test made of constants alone comes to: ``not True``, ``None is not None``,
``0 > 1``, ``() == []``, worked out without running anything.

A copy can put each statement in the branch such a test chooses (``if not True:
pass`` / ``else: stmt``) or behind a loop's ``else`` that always runs (``while
None is not None: break`` / ``else: stmt``). :func:`truth` gives the test's truth,
or None when it reads anything but constants or is more than a small expression.
"""

import ast
import operator

__all__ = ["truth"]

_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub}
#: the most nodes and the longest constant a test worked out may have
_NODES, _LONGEST = 64, 256


class _NotConstant(Exception):
    pass


def _value(node):
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, (str, bytes)) and len(v) > _LONGEST:
            raise _NotConstant
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**9:
            raise _NotConstant
        return v
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return frozenset(_value(e) for e in node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if not all(isinstance(v, (int, float)) for v in (left, right)):
            raise _NotConstant             # numbers only: no growing of texts
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        result = None
        for v in node.values:
            result = _value(v)
            if isinstance(node.op, ast.And) != bool(result):
                return result
        return result
    if isinstance(node, ast.Compare):
        left = _value(node.left)
        for op, right in zip(node.ops, node.comparators):
            right = _value(right)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    raise _NotConstant


def truth(test):
    """True or False for a test of constants alone, else None."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if sum(1 for _ in ast.walk(test)) > _NODES:
        return None
    try:
        return bool(_value(test))
    except (_NotConstant, TypeError, ValueError, ArithmeticError):
        return None
