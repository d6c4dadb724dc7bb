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
``reversed``, ``sorted``, ``min``, ``max``, ``zip``, ``enumerate``, ``len``,
``abs``, ``int``, ``float``, ``bool``; ``hash`` of a constant, ``range`` of at
most 4,096 numbers), ``__debug__`` and the parts of a number (``(0).real``), the methods that take elements out (``pop``, ``get``,
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
is a builtin's (``next = lambda x: 0``), and so is a builtin's name that
``from m import *`` may bind: the names ``m`` exports when it is one of a few
modules of the standard library and NumPy (``math``, ``numpy``: NumPy's
``min``, ``max`` and ``abs``), every one for any other (a module handed in).

Not read: an expression that drops another part with a call in it
(``(f(), n)[1]`` runs ``f``), a part that reads a name the expression
binds (``[x.y for x in xs][0]``), and what runs through the student's own
functions (:mod:`.identity_calls` reads a function that returns its argument).
"""

import ast
import builtins
import importlib
import operator

from .bindings import binding_counts

__all__ = ["inline_round_trips", "names_of"]

#: Builtins that build or take apart containers: each finishes on what it is
#: given and calls nothing of the student's.
_BUILTINS = ("iter", "next", "list", "tuple", "dict", "set", "frozenset", "reversed",
             "sorted", "min", "max", "zip", "enumerate", "len", "abs", "int", "float",
             "bool", "hash", "range", "isinstance", "callable", "ord", "chr", "sum",
             "round", "divmod", "str", "complex", "all", "any", "issubclass", "pow")
#: those that look at what their argument is (a stand-in would answer for itself).
#: Not here: ``type`` and ``object`` (a class of one's own, whose methods the
#: expression would call), ``bytes`` (``bytes(2**40)`` allocates as much).
_LOOKING = ("isinstance", "callable", "str", "round", "divmod", "complex")
#: Methods that take an element out of a container, or copy it.
_METHODS = frozenset({"pop", "get", "setdefault", "popitem", "copy", "keys", "values",
                      "items"})
_MAX_ELEMENTS = 64
#: builtins that are values too (``isinstance(0, str)``)
_TYPES = frozenset({"int", "float", "bool", "str", "list", "tuple", "dict", "set",
                    "frozenset", "complex"})
_MAX_LOOPS = 2
#: Nodes of building and taking apart at most (the parts aside): more is no wrapper.
_MAX_NODES = 256


def _one_argument_iter(obj):
    return iter(obj)


class _StandIn:
    """What a part is while the expression runs: supports nothing, not even being
    true or equal to something else (what a test of it picks depends on the
    value). It may be a key, found only as itself (:func:`_method`)."""
    __slots__ = ()
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("a stand-in has no truth value")

    def __eq__(self, other):
        raise TypeError("a stand-in equals nothing known")

    __ne__ = __eq__


#: Numbers arithmetic may give at most (in absolute value), and the largest
#: exponent and shift: nothing that runs here takes long or much memory.
_MAX_NUMBER = 2**64
_MAX_EXPONENT = 64


def _number(x):
    return type(x) in (int, float, bool)


def _binop(op, a, b):
    """``a <op> b`` for numbers (and ``+`` of two short strings), within bounds."""
    if op == "Add" and type(a) is str and type(b) is str and len(a) + len(b) <= 128:
        return a + b
    if not (_number(a) and _number(b)):
        raise TypeError("arithmetic of what is not a number")
    if op in ("Pow", "LShift", "RShift") and not (abs(b) <= _MAX_EXPONENT
                                                 and abs(a) <= _MAX_NUMBER):
        raise OverflowError("too large")
    result = _OPERATORS[op](a, b)
    if abs(result) > _MAX_NUMBER:
        raise OverflowError("too large")
    return result


def _compare(op, a, b):
    """``a <op> b`` for numbers, strings and None, and whether a stand-in is itself
    (``n is n``; whether it is another is not known)."""
    if op in ("Is", "IsNot") and (a is b or not (isinstance(a, _StandIn)
                                                 or isinstance(b, _StandIn))):
        return (a is b) == (op == "Is")
    plain = (int, float, bool, str, type(None))
    if type(a) not in plain or type(b) not in plain:
        raise TypeError("a comparison of what is not a constant")
    return _OPERATORS[op](a, b)


def _unary(op, a):
    if not _number(a):
        raise TypeError("arithmetic of what is not a number")
    return _OPERATORS[op](a)


_OPERATORS = dict(
    Add=operator.add, Sub=operator.sub, Mult=operator.mul, FloorDiv=operator.floordiv,
    Mod=operator.mod, Pow=operator.pow, LShift=operator.lshift, RShift=operator.rshift,
    BitOr=operator.or_, BitXor=operator.xor, BitAnd=operator.and_,
    Div=operator.truediv, Eq=operator.eq, NotEq=operator.ne, Lt=operator.lt,
                  LtE=operator.le, Gt=operator.gt, GtE=operator.ge, Is=operator.is_,
                  IsNot=operator.is_not, USub=operator.neg, UAdd=operator.pos,
                  Invert=operator.invert)
def _method(obj, name, *args, **kwargs):
    """``obj.<name>(*args)``, one of :data:`_METHODS`; a lookup of a stand-in that
    is not itself a key is refused (``{0: a}.get(k, n)`` gives ``n`` here, ``a``
    when ``k`` is 0)."""
    if (name in _LOOKUPS and args and isinstance(args[0], _StandIn)
            and not any(key is args[0] for key in obj)):
        raise TypeError("a lookup that depends on what a stand-in is")
    return getattr(obj, name)(*args, **kwargs)


#: methods that look up their first argument
_LOOKUPS = frozenset({"get", "pop", "setdefault"})


def _hash(x):
    """``hash`` of a constant (a stand-in's would be its address)."""
    if type(x) not in (int, float, bool, str, type(None)):
        raise TypeError("hash of what is not a constant")
    return hash(x)


def _range(*args):
    """``range`` of at most :data:`_MAX_RANGE` numbers (it may be listed)."""
    numbers = range(*args)
    if len(numbers) > _MAX_RANGE:
        raise OverflowError("too long")
    return numbers


def _not_of_stand_ins(function):
    """``function``, refusing to look at a stand-in (``isinstance(n, int)``,
    ``str(n)``: what it says of the stand-in is not what it says of the value)."""
    def guarded(*args, **kwargs):
        if any(isinstance(a, _StandIn) for a in (*args, *kwargs.values())):
            raise TypeError(f"{function.__name__} of a stand-in")
        if function is str and args and not isinstance(args[0], (int, float, bool, str)):
            raise TypeError(f"{function.__name__} of what is not a constant")
        return function(*args, **kwargs)
    return guarded


_MAX_RANGE = 4096
#: what an attribute of a number is (``(0).real``)
_NUMBER_ATTRIBUTES = frozenset({"real", "imag", "numerator", "denominator"})
#: the builtins that look at what their argument is, and their guarded versions
_GUARDED = {getattr(builtins, name): _not_of_stand_ins(getattr(builtins, name))
            for name in _LOOKING}


def _apply(function, *args, **kwargs):
    """``function(*args, **kwargs)``: every call the expression makes goes here, so
    that a builtin that looks at what its argument is refuses a stand-in however it
    was reached (``{0: str}[0](n)``)."""
    return _GUARDED.get(function, function)(*args, **kwargs)


#: What an expression may name when it runs: the builtins above, those that could
#: loop without end, hash a stand-in or allocate without bound in guarded versions,
#: and the helpers its operations, comparisons, methods and calls are rewritten to.
_ENVIRONMENT = {**{name: getattr(builtins, name) for name in _BUILTINS},
                "iter": _one_argument_iter, "hash": _hash, "range": _range,
                "pow": lambda a, b: _binop("Pow", a, b),
                "_binop": _binop, "_compare": _compare, "_unary": _unary,
                "_method": _method, "_apply": _apply}


class _NotARoundTrip(Exception):
    pass


_SIDE_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


class _StandInForm:
    """The expression with its parts replaced by names of stand-ins."""

    def __init__(self, builtin_names, modules=None):
        self.builtin_names = builtin_names
        self.modules = modules or {}        # {name: a known module it is bound to}
        self.parts = []                      # (node, the names bound where it stands)
        self.carried = set()                 # builtin types handed on as values
        self.loops = 0
        self.size = 0

    def part(self, node, local):
        if isinstance(node, ast.Name):        # one name, one stand-in: ``n is n``
            for i, (seen, _) in enumerate(self.parts):
                if isinstance(seen, ast.Name) and seen.id == node.id:
                    return ast.Name(f"_part{i}", ast.Load())
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
        if isinstance(node, ast.Name) and node.id == "__debug__":
            return ast.Constant(__debug__)       # a constant no program rebinds
        if (isinstance(node, ast.Attribute) and node.attr in _NUMBER_ATTRIBUTES
                and isinstance(node.value, ast.Constant)
                and type(node.value.value) in (int, float, bool, complex)):
            return ast.Constant(getattr(node.value.value, node.attr))
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in self.modules and node.value.id not in local):
            value = getattr(self.modules[node.value.id], node.attr, None)
            if type(value) in (int, float, bool, str):
                return ast.Constant(value)      # ``math.pi``, ``np.e``
        if isinstance(node, ast.Name):
            if node.id in local:
                return ast.Name(node.id, ast.Load())
            if node.id in self.builtin_names and (called or node.id in _TYPES):
                if not called:
                    self.carried.add(node.id)   # a type handed on: it may be the result
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
        identity = isinstance(node, ast.Compare) and all(
            isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare)) and not identity \
                and not self.computed(node, local):
            return self.part(node, local)    # arithmetic of the submission's values
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
            return self.guarded("_binop", node.op, node.left, node.right, local=local)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return ast.UnaryOp(ast.Not(), self.form(node.operand, local))
            return self.guarded("_unary", node.op, node.operand, local=local)
        if isinstance(node, ast.Compare) and not any(
                isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            operands = [node.left, *node.comparators]
            tests = [self.guarded("_compare", op, a, b, local=local)
                     for op, a, b in zip(node.ops, operands, operands[1:])]
            return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.form(node.test, local), self.form(node.body, local),
                             self.form(node.orelse, local))
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(type(node.op)(), self.many(node.values, local))
        if isinstance(node, ast.Call):
            return self.call(node, local)
        if isinstance(node, ast.Lambda):
            return self.lambda_(node, local)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node, local)
        return self.part(node, local)

    def computed(self, node, local):
        """Whether ``node`` reads no name but the expression's own and the builtins:
        arithmetic of constants, worked out here (``0 * 1``, ``len(()) + 1``)."""
        return all(n.id in local or n.id in self.builtin_names or n.id == "__debug__"
                   or n.id in self.modules
                   for n in ast.walk(node) if isinstance(n, ast.Name))

    def guarded(self, function, op, *operands, local):
        """A call of the bounded ``function`` (:func:`_binop`, :func:`_compare`,
        :func:`_unary`) for the operator ``op`` on ``operands``."""
        return ast.Call(ast.Name(function, ast.Load()),
                        [ast.Constant(type(op).__name__),
                         *(self.form(o, local) for o in operands)], [])

    def call(self, node, local):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            if any(k.arg is None for k in node.keywords):
                raise _NotARoundTrip
            return ast.Call(ast.Name("_method", ast.Load()),
                            [self.form(func.value, local), ast.Constant(func.attr),
                             *self.many(node.args, local)],
                            [ast.keyword(k.arg, self.form(k.value, local))
                             for k in node.keywords])
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
        return ast.Call(ast.Name("_apply", ast.Load()), [func, *args], keywords)

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
    """Whether ``node`` may hand back a part: a subscript, a conditional, ``and`` or
    ``or``, or a call of a builtin, a method, a lambda or what a call or subscript
    gives."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.IfExp, ast.BoolOp)):
        return True
    func = node.func
    return (isinstance(func, (ast.Lambda, ast.Call, ast.Subscript))
            or (isinstance(func, ast.Attribute) and func.attr in _METHODS)
            or (isinstance(func, ast.Name) and func.id in builtin_names))


def _as_store(target):
    for n in ast.walk(target):
        if hasattr(n, "ctx"):
            n.ctx = ast.Store()
    return target


def _handed_back(node, builtin_names, modules):
    """The part ``node`` hands back, or None; ``modules``: {name: the known module
    the name is bound to}."""
    if not _is_candidate(node, builtin_names):
        return None
    form = _StandInForm(builtin_names, modules)
    try:
        expression = form.form(node, frozenset())
    except _NotARoundTrip:
        return None
    if not (form.parts or form.carried) or expression.__class__ is ast.Name:
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
        carried = [name for name in form.carried if _ENVIRONMENT[name] is result]
        if not carried or any(isinstance(n, _SIDE_EFFECTS)
                              for p, _ in form.parts for n in ast.walk(p)):
            return None
        return ast.Name(carried[0], ast.Load())     # ``(0, float)[True]`` is ``float``
    for i, (part, local) in enumerate(form.parts):
        if local and _reads(part, local):
            return None                      # it reads a name the expression binds
        if any(isinstance(n, ast.NamedExpr) for n in ast.walk(part)):
            return None                      # moving it would move a binding
        if i != chosen and any(isinstance(n, _SIDE_EFFECTS) for n in ast.walk(part)):
            return None                      # what it drops runs
    return form.parts[chosen][0]


#: Modules whose ``from m import *`` is read for the builtins' names it binds;
#: after any other (a module handed in), every one of them may be the student's.
_KNOWN_MODULES = ("math", "cmath", "numpy", "numpy.linalg", "itertools", "functools",
                  "operator", "statistics", "random", "collections")


def _star_bound(module):
    """The builtins' names that ``from m import *`` in ``module`` may bind."""
    bound = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if node.level or node.module not in _KNOWN_MODULES:
                return set(_BUILTINS)
            known = importlib.import_module(node.module)
            names = getattr(known, "__all__", None)
            if names is None:
                names = [n for n in vars(known) if not n.startswith("_")]
            bound |= set(_BUILTINS) & set(names)
    return bound


def _known_modules(module, counts, keep):
    """{name: module} of the names ``module`` binds once, by importing one of
    :data:`_KNOWN_MODULES` (``import numpy as np``): their numbers are constants
    (``np.pi``)."""
    found = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else alias.name.split(".")[0]
                if (target in _KNOWN_MODULES and counts.get(name) == 1
                        and name not in keep):
                    found[name] = importlib.import_module(target)
    return found


class _Inline(ast.NodeTransformer):
    def __init__(self, builtin_names, modules):
        self.builtin_names, self.modules = builtin_names, modules
        self.changed = False

    def visit_round_trip(self, node):
        part = _handed_back(node, self.builtin_names, self.modules)
        if part is None:
            return self.generic_visit(node)
        self.changed = True
        return self.visit(part)

    visit_Call = visit_Subscript = visit_IfExp = visit_BoolOp = visit_round_trip


def names_of(module, keep=frozenset(), counts=None):
    """What the reading needs to know of ``module``'s names: (the builtins' names it
    leaves the builtins', {name: the known module it is bound to}); ``counts``:
    :func:`.bindings.binding_counts` of it, if already counted. Inlining binds no
    name, so one reading serves every round of :func:`.wrappers.see_through_wrappers`."""
    counts = binding_counts(module) if counts is None else counts
    bound = set(counts) | set(keep) | _star_bound(module)
    return frozenset(_BUILTINS) - bound, _known_modules(module, counts, keep)


def inline_round_trips(module, keep=frozenset(), names=None):
    """``module`` (an ast.Module, changed in place) with every expression that
    hands back one of its parts read as that part; ``keep``: the release's
    names; ``names``: :func:`names_of` the module, if already read. (module,
    whether any was.)"""
    builtin_names, modules = names if names is not None else names_of(module, keep)
    inline = _Inline(builtin_names, modules)
    module = inline.visit(module)
    return module, inline.changed
