"""Names wrapped one by one at a scale that hides a copy, however it is spelt.

The readings of :mod:`.wrappers` see through the wrappers they know; a
spelling none knows (an identity through ``match``, ``typing.cast(object,
n)``, ``n | _p`` with a class whose ``__ror__`` gives back its operand) still
leaves its mark: the same few callables or objects around most of the names
the code reads. :func:`wrapping_flags` counts those marks on the code that is
compared (dead code dropped, so that a function nobody calls dilutes
nothing), against the names of its own the code reads, and says in words what
passes a bound, for a person to look at:

- more than :data:`WRAPPED_AT_SCALE` values picked out of a literal container;
- one callable of its own called on one value more than that many times and for
  more than a fifth of those names, or all of them more than three times that
  many and for more than a sixth (a value: the one argument that reads a name
  of its own, however often it is passed, ``_h(n, n)``; beside it, constants,
  builtins, a library's names and names bound once to what reads none of its
  own, ``_a = object()``, are padding);
- any one callable, a library's too, called on names (not constants alone)
  more than that many times and for more than half of those names;
- more such calls in all (over five times that many) than 1.25 times the names
  of its own it reads: many wrappers, each used a few times;
- more than that many operators, subscripts, attributes and tests on an
  object of a class of its own (``n | _p``, ``_g[n]``, ``_o.n``, ``_t and n``),
  for more than a third of those names;
- any one name (or call of one with no arguments, ``_P()``) in more than that
  many operators, subscripts and tests, for more than half of the other names
  of its own (``n | _p`` however ``_p`` is bound; ``_t and n`` whatever ``_t``
  is); and in its functions, names no function binds in more than three times
  that many, for more than a third of its names (ten objects taking turns);
- more than that many conditional expressions and boolean operations
  (``n if n is not None else 0``), or lookups by a name written as a string
  (``locals()["n"]``), for more than a third of its names.

Measured on honest work (the eight answers of ``tests/grading/ps1_honest.py``,
the three of ``tests/grading/ps1_styles.py``, helpers, casts to ``float``
everywhere and classes, three more such written to test these counts, the
problem sets' solutions, kernlab's modules and the book's chapters, each read
as a notebook whose functions are graded): none reaches a bound. The closest:
11 calls of a helper of its own (0.17 of its names), 41 such calls of all its
own callables (a chapter, under a sixth of its names) or 26 (0.36 of them),
one callable called for 0.34 of its names (``float``), 1.05 calls for each
name, no operator on an object of its own, one name in operators for 0.25 of
its names, 12 conditional expressions (0.18 of its names) and 17 lookups by a
string (0.22). Copies with every name wrapped
reach 0.56 and more calls of one callable, 1.6 and more calls for each name,
and 81 operations on one object.
"""

import ast
from dataclasses import dataclass, field

from .bindings import binding_counts, bound_once_at_the_top

__all__ = ["WRAPPED_AT_SCALE", "wrapping_flags"]

WRAPPED_AT_SCALE = 12
_LITERALS = (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
             ast.DictComp, ast.GeneratorExp)


def _reads(node, names):
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _padding(module, binds):
    """The names bound once, at the top level, to what reads no other name the
    program binds (``_a = 0``, ``_a = object()``, ``rng = np.random.default_rng(0)``):
    beside a value they add nothing of the program's own."""
    return {name for name, value in bound_once_at_the_top(module) if not _reads(value, binds)}


def _objects(module):
    """The names bound once, at the top level, to an instance of a class the program
    defines (``_p = _P()``) or builds (``type("P", (), {...})()``)."""
    classes = {s.name for s in module.body if isinstance(s, ast.ClassDef)}
    found = set()
    for name, value in bound_once_at_the_top(module):
        func = value.func if isinstance(value, ast.Call) else None
        if (isinstance(func, ast.Name) and func.id in classes) or (
                isinstance(func, ast.Call) and isinstance(func.func, ast.Name)
                and func.func.id == "type"):
            found.add(name)
    return found


def _operands(node):
    """The operands of an operator, a subscript or a test."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return node.values
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return [node.test]
    return []


def _operand_key(node, modules):
    """What an operand is, when it may be a wrapper: a name (not a module's), or a
    call of a name with no arguments (``_P()``, a fresh object each time)."""
    if isinstance(node, ast.Name) and node.id not in modules:
        return node.id
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and not node.args and not node.keywords):
        return node.func.id + "()"
    return None


def _bound_in_functions(module):
    """The names some function or lambda binds (its parameters and locals)."""
    found = set()
    for f in ast.walk(module):
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found.update(binding_counts(ast.Module(body=[f], type_ignores=[]))
                         if not isinstance(f, ast.Lambda)
                         else {a.arg for a in ast.walk(f.args) if isinstance(a, ast.arg)})
    return found


def _callee_root(func):
    while isinstance(func, ast.Attribute):
        func = func.value
    return func


@dataclass
class _Counts:
    """What :func:`_count` finds in the compared code (see the module's list)."""

    own: int = 0                       # loads of names of its own (values)
    picks: int = 0                     # picks out of a literal container
    tests: int = 0                     # conditional expressions, boolean operations
    by_name: int = 0                   # subscripts by a string
    carrying: dict = field(default_factory=dict)      # callee: calls on names
    lone: dict = field(default_factory=dict)          # own callee: calls on one value
    operations: dict = field(default_factory=dict)    # object of its own: uses
    operands: dict = field(default_factory=dict)      # name or ``_P()``: uses
    in_functions: dict = field(default_factory=dict)  # the same, inside functions
    loads: dict = field(default_factory=dict)         # name of its own: loads


def _add(counts, key):
    counts[key] = counts.get(key, 0) + 1


def _count(module, keep):
    imported = {a.asname or a.name.split(".")[0] for n in ast.walk(module)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    binds = frozenset(binding_counts(module)) - imported
    objects = _objects(module)
    values = binds - _padding(module, binds) - objects
    # a method called (``qm.row(x)``) is a call, counted as one; an attribute read
    # (``_o.n``) is an operation on the object
    methods = {id(n.func) for n in ast.walk(module) if isinstance(n, ast.Call)}
    inside = {id(x) for f in ast.walk(module)
              if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for x in ast.walk(f)}
    c = _Counts()
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in values:
            _add(c.loads, n.id)
        if isinstance(n, ast.Subscript) and isinstance(n.value, _LITERALS):
            c.picks += 1
        if isinstance(n, (ast.IfExp, ast.BoolOp)):
            c.tests += 1
        if (isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                and isinstance(n.slice.value, str)):
            c.by_name += 1
        for operand in ([] if id(n) in methods else _operands(n)):
            if isinstance(operand, ast.Name) and operand.id in objects:
                _add(c.operations, operand.id)
            key = None if isinstance(n, ast.Attribute) else _operand_key(operand, imported)
            if key is not None:
                _add(c.operands, key)
                if id(n) in inside:
                    _add(c.in_functions, key)
        if not isinstance(n, ast.Call):
            continue
        arguments = [*n.args, *(k.value for k in n.keywords)]
        if not any(isinstance(a, ast.Name) for arg in arguments for a in ast.walk(arg)):
            continue                            # of constants only: ``float(0.1)``
        callee = ast.unparse(n.func)
        _add(c.carrying, callee)
        carried = len({ast.dump(a) for a in arguments if _reads(a, values)})
        root = _callee_root(n.func)
        if carried == 1 and isinstance(root, ast.Name) and root.id in binds - keep:
            _add(c.lone, callee)
    c.own = sum(c.loads.values())
    return c


def _most(counts):
    return max(counts.items(), key=lambda item: item[1], default=(None, 0))


def wrapping_flags(module, keep=frozenset()):
    """What the compared code ``module`` (read through its wrappers, dead code
    dropped) says of names wrapped one by one, in words; ``keep``: the release's
    names (its graded functions are called as they are meant to be)."""
    c = _count(module, keep)
    own, flags = c.own, []
    if c.picks > WRAPPED_AT_SCALE:
        flags.append(f"{c.picks} values picked out of a literal container again "
                     "(names wrapped one by one, in a way the comparison does not read)")
    busiest, most = _most(c.carrying)
    if most > WRAPPED_AT_SCALE and most > own / 2:
        flags.append(f"{most} calls of {busiest}, one for every {own / most:.1f} names "
                     "of its own it reads (names passed one by one through what the "
                     "comparison does not read)")
    wrapper, calls = _most(c.lone)
    total = sum(c.lone.values())
    if (calls > WRAPPED_AT_SCALE and calls > own / 5) or (
            total > 3 * WRAPPED_AT_SCALE and total > own / 6):
        flags.append(f"{total} calls of its own callables on one value, {calls} of "
                     f"{wrapper} (values passed one by one through what the comparison "
                     "does not read)")
    every = sum(c.carrying.values())
    if every > 5 * WRAPPED_AT_SCALE and every > 1.25 * own:
        flags.append(f"{every} calls for {own} names of its own it reads (names "
                     "passed through calls one by one, in a way the comparison does "
                     "not read)")
    busiest, most = _most(c.operands)
    others = own - c.loads.get(busiest, 0)     # the names it stands beside
    if most > WRAPPED_AT_SCALE and most > others / 2:
        flags.append(f"{most} operators, subscripts or tests with {busiest}, one for every "
                     f"{others / most:.1f} other names of its own it reads (names passed one "
                     "by one through what the comparison does not read)")
    local = _bound_in_functions(module)
    outside = {k: v for k, v in c.in_functions.items()
               if k.rstrip("()") not in local and k.rstrip("()") not in keep}
    spread = sum(outside.values())
    if spread > 3 * WRAPPED_AT_SCALE and spread > own / 3:
        flags.append(f"{spread} operators, subscripts or tests in its functions with "
                     f"{len(outside)} names no function binds (names passed one by one "
                     "through what the comparison does not read)")
    if c.tests > WRAPPED_AT_SCALE and c.tests > own / 3:
        flags.append(f"{c.tests} conditional expressions and boolean operations for {own} "
                     "names of its own it reads (names passed one by one through tests "
                     "the comparison does not read)")
    if c.by_name > WRAPPED_AT_SCALE and c.by_name > own / 3:
        flags.append(f"{c.by_name} values looked up by a name written as a string "
                     "(``globals()['n']``; names passed one by one through what the "
                     "comparison does not read)")
    held, uses = _most(c.operations)
    if uses > WRAPPED_AT_SCALE and uses > own / 3:
        flags.append(f"{uses} operators, subscripts, attributes or tests with {held}, an "
                     "object of a class of its own (names passed one by one through what "
                     "the comparison does not read)")
    return flags
