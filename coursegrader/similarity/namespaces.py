"""A class used only as a box of values, read as the values.

A copy can put each value of the original in a class of its own and read it
back at once (``class _C1: v = np.array(X)`` then ``X = _C1.v``): every
statement becomes three lines of another shape. :func:`namespaces_opened`
reads a class whose body only assigns names (``a = e``, after a docstring or
``pass``), with no bases, keywords or decorators, as the assignments its body
makes, when its name is read nowhere but as ``C.a`` of one of those names:
either by the assignment that stands right after the class (``X = C.a``),
which then assigns the value itself (``X = e``), wherever a class of that name
is so defined and read (``_C`` again and again), or anywhere, when the program
binds the name once; ``C.a`` is then a name of its own.
"""

import ast

from .bindings import binding_counts
from .blocks import statement_lists

__all__ = ["namespaces_opened"]

def _values(node):
    """{name: value} of the assignments that are all a class's body does, else None."""
    if node.bases or node.keywords or node.decorator_list:
        return None
    values = {}
    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr)
                                          and isinstance(stmt.value, ast.Constant)):
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)) or stmt.targets[0].id in values:
            return None
        values[stmt.targets[0].id] = stmt.value
    return values


def _taken(box, after):
    """``a`` where ``after`` is ``x = C.a`` of the box class ``C`` it follows."""
    value = getattr(after, "value", None)
    if (isinstance(after, ast.Assign) and len(after.targets) == 1
            and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
            and value.value.id == box.name and value.attr in _values(box)):
        return value.attr
    return None


class _Open(ast.NodeTransformer):

    def __init__(self, opened):
        self.opened = opened               # names of the box classes read as values

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.opened:
            return ast.copy_location(ast.Name(f"{node.value.id}__{node.attr}", ast.Load()),
                                     node)
        return self.generic_visit(node)

    def generic_visit(self, node):
        for field, body in list(statement_lists(node)):
            setattr(node, field, self.block(body))
        return super().generic_visit(node)

    def block(self, body):
        out, i = [], 0
        while i < len(body):
            stmt = body[i]
            if not (isinstance(stmt, ast.ClassDef) and stmt.name in self.opened):
                out.append(stmt)
                i += 1
                continue
            after = body[i + 1] if i + 1 < len(body) else None
            taken = _taken(stmt, after)
            for name, value in _values(stmt).items():
                target = after.targets[0] if name == taken else ast.Name(
                    f"{stmt.name}__{name}", ast.Store())
                out.append(ast.copy_location(ast.Assign(targets=[target], value=value), stmt))
            i += 1 if taken is None else 2
        return out


def namespaces_opened(module):
    """``module`` with each class used only as a box of values read as the values."""
    counts = binding_counts(module)
    boxes = {}                             # name: [its box classes]
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and _values(node):
            boxes.setdefault(node.name, []).append(node)
    boxes = {name: found for name, found in boxes.items() if counts.get(name) == len(found)}
    if not boxes:
        return module
    taken = set()                          # ``x = C.a`` right after ``class C``
    for body in (b for n in ast.walk(module) for _, b in statement_lists(n)):
        for stmt, after in zip(body, body[1:]):
            if isinstance(stmt, ast.ClassDef) and stmt.name in boxes \
                    and _taken(stmt, after) is not None:
                taken.add(id(after.value.value))
    reads = {}                             # name: whether each read is of a box's value
    for n in ast.walk(module):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id in boxes:
            ok = id(n.value) in taken or (
                len(boxes[n.value.id]) == 1 and isinstance(n.ctx, ast.Load)
                and n.attr in _values(boxes[n.value.id][0]))
            reads.setdefault(n.value.id, set()).add(id(n.value) if ok else None)
    opened = set()
    for name in boxes:
        mentions = {id(n) for n in ast.walk(module) if isinstance(n, ast.Name) and n.id == name}
        if None not in reads.get(name, {None}) and mentions == reads[name]:
            opened.add(name)               # read nowhere but as one of its values
    return _Open(opened).visit(module) if opened else module
