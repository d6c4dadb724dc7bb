"""Expressions that hand back one of their parts, read as that part.

A copier who writes every name a copy reads as a value put into something and
taken out again (``(n,)[0]``, ``next(iter((n,)))``, ``[n].pop()``,
``dict(k=n)["k"]``, ``(lambda _x=n: _x)()``) changes every line and nothing
the code does. There are as many such spellings as a student has patience,
so :func:`inline_round_trips` does not list them: it runs the expression.

Every part of the expression that is not plain building and taking apart
(a name the student binds, ``np.dot(a, b)``, ``a + b``) is set aside as a
*part* and replaced by a stand-in, an object that supports nothing. What is
left is run with only the builtins that build and take apart containers
(``iter``, ``next``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``,
``reversed``, ``sorted``, ``min``, ``max``, ``zip``, ``enumerate``), the methods that take elements out (``pop``, ``get``,
``setdefault``, ``popitem``, ``copy``, ``keys``, ``values``, ``items``),
literals, subscripts, unpacking, comprehensions and lambdas. When what it gives back is a stand-in itself, the expression is
that part, and reads as it: the result cannot depend on what the part is,
since nothing was done to the stand-in but to carry it.

What may run is kept small enough to finish at once and touch nothing: no
attribute but those methods; a builtin's name only as the function of a call
(anywhere else it is a part: ``(min,)[0]`` is ``min``, carried, never
called); one-argument ``iter`` (``iter(f, stop)`` may never stop); nothing
that calls a function it is given (no ``map``, ``filter`` or ``key=``), and no
call of what a lambda's parameter or a loop's name holds, so that no lambda
is reached twice in one call and nothing calls itself; at most two loops of
comprehensions, 256 nodes, literals of at most 64 elements and strings of at
most 64 characters. A name the student binds anywhere is a part even when it
is a builtin's (``next = lambda x: 0``), and after ``from m import *`` every
name is.

Not read: an expression that drops another part with a call in it
(``(f(), n)[1]`` runs ``f``), a part that reads a name the expression
binds (``[x.y for x in xs][0]``), and what runs through the student's own
functions (:mod:`.identity_calls` reads a function that returns its argument).
"""

import ast
import builtins

from .bindings import binding_counts

__all__ = ["inline_round_trips"]

#: Builtins that build or take apart containers: each finishes on what it is
#: given and calls nothing of the student's.
_BUILTINS = ("iter", "next", "list", "tuple", "dict", "set", "frozenset", "reversed",
             "sorted", "min", "max", "zip", "enumerate")
#: Methods that take an element out of a container, or copy it.
_METHODS = frozenset({"pop", "get", "setdefault", "popitem", "copy", "keys", "values",
                      "items"})
_MAX_ELEMENTS = 64
_MAX_LOOPS = 2
#: Nodes of building and taking apart at most (the parts aside): more is no wrapper.
_MAX_NODES = 256


def _one_argument_iter(obj):
    return iter(obj)


_ENVIRONMENT = {name: getattr(builtins, name) for name in _BUILTINS}
_ENVIRONMENT["iter"] = _one_argument_iter


class _StandIn:
    """What a part is while the expression runs: supports nothing."""
    __slots__ = ()


class _NotARoundTrip(Exception):
    pass


_SIDE_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


class _StandInForm:
    """The expression with its parts replaced by names of stand-ins."""

    def __init__(self, builtin_names):
        self.builtin_names = builtin_names
        self.parts = []                      # (node, the names bound where it stands)
        self.loops = 0
        self.size = 0

    def part(self, node, local):
        self.parts.append((node, local))
        return ast.Name(f"_part{len(self.parts) - 1}", ast.Load())

    def many(self, nodes, local):
        if len(nodes) > _MAX_ELEMENTS:
            raise _NotARoundTrip
        return [self.form(n, local) for n in nodes]

    def form(self, node, local, called=False):
        self.size += 1
        if self.size > _MAX_NODES:
            raise _NotARoundTrip
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, bytes)) and len(node.value) > _MAX_ELEMENTS:
                raise _NotARoundTrip
            return ast.Constant(node.value)
        if isinstance(node, ast.Name):
            if node.id in local:
                return ast.Name(node.id, ast.Load())
            if node.id in self.builtin_names and called:
                return ast.Name(node.id, ast.Load())
            return self.part(node, local)    # a builtin carried is carried, not called
        if isinstance(node, ast.Starred):
            return ast.Starred(self.form(node.value, local), ast.Load())
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return type(node)(elts=self.many(node.elts, local), ctx=ast.Load())
        if isinstance(node, ast.Dict):
            if len(node.keys) > _MAX_ELEMENTS:
                raise _NotARoundTrip
            keys = [None if k is None else self.form(k, local) for k in node.keys]
            return ast.Dict(keys, self.many(node.values, local))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            return ast.Subscript(self.form(node.value, local), self.form(node.slice, local),
                                 ast.Load())
        if isinstance(node, ast.Slice):
            return ast.Slice(*(None if p is None else self.form(p, local)
                               for p in (node.lower, node.upper, node.step)))
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
                and isinstance(node.operand, ast.Constant)):
            return ast.UnaryOp(ast.USub(), ast.Constant(node.operand.value))
        if isinstance(node, ast.Call):
            return self.call(node, local)
        if isinstance(node, ast.Lambda):
            return self.lambda_(node, local)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node, local)
        return self.part(node, local)

    def call(self, node, local):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            func = ast.Attribute(self.form(func.value, local), func.attr, ast.Load())
        elif isinstance(func, ast.Name) and func.id in self.builtin_names \
                and func.id not in local:
            func = self.form(func, local, called=True)
        elif isinstance(func, ast.Lambda) or (
                isinstance(func, (ast.Subscript, ast.Call))
                and not (local and _reads(func, local))):
            func = self.form(func, local)    # nothing called reaches a lambda twice
        else:
            return self.part(node, local)
        if any(k.arg == "key" for k in node.keywords):
            raise _NotARoundTrip             # ``sorted(key=f)`` would call ``f``
        args = self.many(node.args, local)
        keywords = [ast.keyword(k.arg, self.form(k.value, local)) for k in node.keywords]
        return ast.Call(func, args, keywords)

    def lambda_(self, node, local):
        a = node.args
        inner = local | {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        inner |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        args = ast.arguments(
            posonlyargs=[ast.arg(p.arg) for p in a.posonlyargs],
            args=[ast.arg(p.arg) for p in a.args],
            vararg=a.vararg and ast.arg(a.vararg.arg),
            kwonlyargs=[ast.arg(p.arg) for p in a.kwonlyargs],
            kw_defaults=[None if d is None else self.form(d, local) for d in a.kw_defaults],
            kwarg=a.kwarg and ast.arg(a.kwarg.arg),
            defaults=[self.form(d, local) for d in a.defaults])
        return ast.Lambda(args, self.form(node.body, frozenset(inner)))

    def comprehension(self, node, local):
        generators = []
        for gen in node.generators:
            self.loops += 1
            if self.loops > _MAX_LOOPS or gen.is_async:
                raise _NotARoundTrip
            it = self.form(gen.iter, local)
            targets = [n for n in ast.walk(gen.target)]
            if not all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store))
                       for n in targets):
                raise _NotARoundTrip
            local = local | {n.id for n in targets if isinstance(n, ast.Name)}
            target = ast.parse(ast.unparse(gen.target), mode="eval").body
            target = _as_store(target)
            generators.append(ast.comprehension(target, it, [self.form(c, local)
                                                             for c in gen.ifs], 0))
        if isinstance(node, ast.DictComp):
            return ast.DictComp(self.form(node.key, local), self.form(node.value, local),
                                generators)
        return type(node)(self.form(node.elt, local), generators)


def _reads(node, names):
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _is_candidate(node, builtin_names):
    """Whether ``node`` may hand back a part: a subscript, or a call of a builtin,
    a method, a lambda or what a call or subscript gives."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.ctx, ast.Load)
    func = node.func
    return (isinstance(func, (ast.Lambda, ast.Call, ast.Subscript))
            or (isinstance(func, ast.Attribute) and func.attr in _METHODS)
            or (isinstance(func, ast.Name) and func.id in builtin_names))


def _as_store(target):
    for n in ast.walk(target):
        if hasattr(n, "ctx"):
            n.ctx = ast.Store()
    return target


def _handed_back(node, builtin_names):
    """The part ``node`` hands back, or None."""
    if not _is_candidate(node, builtin_names):
        return None
    form = _StandInForm(builtin_names)
    try:
        expression = form.form(node, frozenset())
    except _NotARoundTrip:
        return None
    if not form.parts or expression.__class__ is ast.Name:
        return None                          # ``node`` is a part: nothing around it
    stand_ins = [_StandIn() for _ in form.parts]
    environment = {"__builtins__": {}, **_ENVIRONMENT,
                   **{f"_part{i}": s for i, s in enumerate(stand_ins)}}
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(expression)),
                       "<round trip>", "eval")
        result = eval(code, environment)     # noqa: S307 (stand-ins and builtins only)
    except Exception:                        # noqa: BLE001 (it does something else)
        return None
    chosen = next((i for i, s in enumerate(stand_ins) if s is result), None)
    if chosen is None:
        return None
    for i, (part, local) in enumerate(form.parts):
        if local and _reads(part, local):
            return None                      # it reads a name the expression binds
        if any(isinstance(n, ast.NamedExpr) for n in ast.walk(part)):
            return None                      # moving it would move a binding
        if i != chosen and any(isinstance(n, _SIDE_EFFECTS) for n in ast.walk(part)):
            return None                      # what it drops runs
    return form.parts[chosen][0]


class _Inline(ast.NodeTransformer):
    def __init__(self, builtin_names):
        self.builtin_names = builtin_names
        self.changed = False

    def visit_round_trip(self, node):
        part = _handed_back(node, self.builtin_names)
        if part is None:
            return self.generic_visit(node)
        self.changed = True
        return self.visit(part)

    visit_Call = visit_Subscript = visit_round_trip


def inline_round_trips(module, keep=frozenset()):
    """``module`` (an ast.Module, changed in place) with every expression that
    hands back one of its parts read as that part; ``keep``: the release's
    names. (module, whether any was.)"""
    bound = set(binding_counts(module)) | set(keep)
    builtin_names = frozenset() if "*" in bound else frozenset(_BUILTINS) - bound
    inline = _Inline(builtin_names)
    module = inline.visit(module)
    return module, inline.changed
