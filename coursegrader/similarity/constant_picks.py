"""Expressions that pick one of their parts by a constant, read as that part.

Writing every name a copy reads as an element of a literal picked out again
(``(n,)[0]``, ``{0: n}[0]``) changes every line and nothing the code does.
:func:`inline_constant_picks` reads as the part picked:

- a subscript of a literal tuple or list by a constant index in range
  (``(n,)[0]``, ``[n][0]``, ``[a, n][1]``, ``(n,)[-1]``, ``(0, n)[True]``:
  ``True`` is the index 1), and of a literal dict by a constant key it holds
  (``{0: n}[0]``, ``{"k": n}["k"]``; of a repeated key, the last value, as
  Python keeps it), when the literal's other elements (and the dict's keys)
  are constants or names, so that building it does nothing besides;
- a one-element list comprehension picked at ``0`` or ``-1``
  (``[n for _ in "x"][0]``): its one loop runs over a constant of length one
  (``"x"``, ``(0,)``), has no condition, and the element does not read the loop's
  name (``[n for n in "x"][0]`` is ``"x"``, left alone);
- a conditional expression of a constant test (``n if 1 else 0`` is ``n``);
- ``or`` and ``and`` after constants that decide nothing (``0 or n``, ``1 and n``
  are ``n``).

A lambda called where it stands (``(lambda: n)()``) is a call, read by
:mod:`.identity_calls`; :func:`.wrappers.see_through_wrappers` runs both until
neither finds anything more (``{0: _i}[0](n)``).

Not read (what is picked depends on more than constants, or building the
literal does more): an index or key that is a name (``(a, n)[k]``), an element
with a call or an operation (``(f(), n)[1]``, ``(a + b, n)[1]``: each is
evaluated, and may raise or change something), a starred element or a
``**`` in the dict, a slice (``(a, n)[1:]`` is a tuple), a subscript of a
string or other constant, ``getattr`` and ``operator.itemgetter``.
"""

import ast

__all__ = ["inline_constant_picks"]


def _plain(node):
    return isinstance(node, (ast.Constant, ast.Name))


def _index(node):
    """The constant index or key ``node`` is, as (True, value), or (False, None)."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, bool)):
        return True, -node.operand.value
    return False, None


def _pick_sequence(elts, index):
    if type(index) not in (int, bool) or not -len(elts) <= index < len(elts):
        return None
    chosen = elts[int(index)]
    if any(isinstance(e, ast.Starred) for e in elts):
        return None
    if any(not _plain(e) for e in elts if e is not chosen):
        return None
    return chosen


def _pick_dict(node, key):
    if any(k is None or not isinstance(k, ast.Constant) for k in node.keys):
        return None
    try:
        where = {k.value: i for i, k in enumerate(node.keys)}
        i = where.get(key)
    except TypeError:                   # an unhashable key: Python raises
        return None
    if i is None:
        return None
    chosen = node.values[i]
    if any(not _plain(v) for j, v in enumerate(node.values) if j != i):
        return None
    return chosen


def _one_element(comp):
    """The element of ``[e for v in "x"]`` (one loop over a constant of length one,
    no condition, ``e`` not reading ``v``), or None."""
    if not isinstance(comp, ast.ListComp) or len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
        return None
    it = gen.iter
    if isinstance(it, ast.Constant) and isinstance(it.value, (str, bytes)):
        length = len(it.value)
    elif isinstance(it, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant)
                                                       for e in it.elts):
        length = len(it.elts)
    else:
        return None
    if length != 1:
        return None
    if any(isinstance(n, ast.Name) and n.id == gen.target.id for n in ast.walk(comp.elt)):
        return None
    if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await))
           for n in ast.walk(comp.elt)):
        return None
    return comp.elt


class _Picks(ast.NodeTransformer):
    def __init__(self):
        self.changed = False

    def found(self, node):
        self.changed = True
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        constant, key = _index(node.slice)
        if not constant:
            return node
        value = node.value
        chosen = None
        if isinstance(value, (ast.Tuple, ast.List)):
            chosen = _pick_sequence(value.elts, key)
        elif isinstance(value, ast.Dict):
            chosen = _pick_dict(value, key)
        elif type(key) in (int, bool) and key in (0, -1):
            chosen = _one_element(value)
        return node if chosen is None else self.found(chosen)

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
