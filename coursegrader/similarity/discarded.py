"""Statements whose work goes nowhere: a library's function called for a result
nobody keeps, and a value put on a module.

A copy padded with one such line after every line of the original
(``id(t3)``, ``isinstance(t3, object)``, ``np.asarray(t3, dtype=object)``,
``logging.debug("%r", t3)``, ``np.seterr(**saved)``, ``np._last = t3``) reads as
the original once they are gone. What stays:

- a call of the student's own functions, methods or anything of theirs (``out.append(x)``,
  ``rng.shuffle(idx)``), and of names neither Python nor an import gives (the
  setup cell's);
- a library function known to change what it is given or the state the code goes
  on with (``np.fill_diagonal``, ``random.shuffle``, ``heapq.heappush``,
  ``operator.setitem``, ``next``, ``setattr``, ...), any special method
  (``np.ndarray.__setitem__``), or a call with ``out=`` or ``overwrite_...=``;
- a method called on a built-in type (``list.append(xs, x)``);
- a call with any call in it that is not such an idle one (``any(out.append(x)
  for x in xs)``), or that stores a value (a walrus);
- a value put on a module that the code reads back (``np._cache = K`` ...
  ``np._cache``), or that is computed by anything but idle calls.

What a dropped line reads of the student's work stays: dropping the line that
passes a function on (``list(map(step, xs))``) or asks an object for its text
(``str(obj)``, which may run a method of the student's) does not drop what it does.
"""

import ast
import builtins

from .bindings import binding_counts
from .dropping import Dropping

__all__ = ["CHANGES", "RUNS_CODE", "drop_discarded"]

_BUILTINS = frozenset(dir(builtins))

#: What a library call changes beyond its result: its arguments, a generator's
#: or iterator's position, the random state, attributes, code run from text
CHANGES = frozenset({
    "fill_diagonal", "copyto", "put", "place", "putmask", "put_along_axis", "shuffle",
    "seed", "set_state", "at", "heappush", "heappop", "heapify", "heapreplace",
    "heappushpop", "insort", "insort_left", "insort_right", "setattr", "delattr", "next",
    "exec", "eval", "compile", "__import__", "sort", "append", "extend", "update",
    "insert", "setdefault", "fill", "resize", "pop", "remove", "clear", "add", "discard",
    "popitem", "reverse", "rotate", "appendleft", "extendleft", "popleft", "send",
    "throw", "close", "write", "writelines", "save", "savez", "savetxt", "dump", "exit",
    "quit", "input", "open", "breakpoint",
    # the operator module's that change their first argument
    "setitem", "delitem", "iadd", "isub", "imul", "imatmul", "itruediv", "ifloordiv",
    "imod", "ipow", "iand", "ior", "ixor", "ilshift", "irshift", "iconcat",
})
#: What runs code given as text, constants or not
RUNS_CODE = frozenset({"exec", "eval", "compile", "__import__", "import_module",
                        "run_path", "run_module", "system", "run", "Popen", "call",
                        "check_call", "check_output", "load", "loads"})
#: What in a value does something besides the calls in it
_STEPS = (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)


def _imported(module):
    imported = {}
    for node in ast.walk(module):
        if isinstance(node, ast.alias):
            name = node.asname or node.name.split(".")[0]
            imported[name] = imported.get(name, 0) + 1
    return imported


class _Library:
    """Which names a program's library calls go to: names bound by nothing but
    imports, and Python's built-ins it does not bind."""

    def __init__(self, module, imports):
        imported = _imported(module)
        counts = binding_counts(module)
        self.modules = (frozenset(n for n, c in counts.items() if c == imported.get(n, 0))
                        | (imports - frozenset(counts)))
        self.builtins = _BUILTINS - frozenset(counts)
        #: names the program binds otherwise than by importing them
        self.own = frozenset(n for n, c in counts.items() if c > imported.get(n, 0))

    def idle(self, call):
        """True for a call of the library's whose result is all it gives: called
        with constants alone (``gc.collect()``, ``np.random.seed(0)``), or not one
        known to change anything."""
        func = call.func
        parts = call.args + [k.value for k in call.keywords]
        if all(isinstance(p, ast.Constant) for p in parts) and isinstance(func, ast.Attribute):
            root = _root_name(func)        # anything's but the student's own
            return root is not None and root not in self.own and func.attr not in RUNS_CODE
        if isinstance(func, ast.Name) and (func.id in self.modules or func.id in self.builtins):
            name = func.id
        elif isinstance(func, ast.Attribute) and _root_name(func) in self.modules:
            name = func.attr               # not the student's object, nor a built-in type's
        else:
            return False
        if name in RUNS_CODE or (name.startswith("__") and name.endswith("__")):
            return False                   # ``np.ndarray.__setitem__(a, i, v)``
        if all(isinstance(p, ast.Constant) for p in parts):
            return name not in CHANGES
        return name not in CHANGES and not any(
            k.arg is not None and (k.arg == "out" or k.arg.startswith("overwrite"))
            for k in call.keywords)

    def idle_value(self, value):
        """A value whose every call is an idle one (or which calls nothing), and which
        binds no name: ``str(type(x))``."""
        return all(self.idle(n) if isinstance(n, ast.Call) else not isinstance(n, _STEPS)
                   for n in ast.walk(value))


def _root_name(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _read_back(module, modules):
    """``(module, attribute)`` of each attribute of an imported module the code
    reads (``np._cache`` in ``return np._cache``)."""
    stored = set()                         # ``os.environ`` of ``os.environ["K"] = v``
    for node in ast.walk(module):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            inner = node.value
            while isinstance(inner, (ast.Subscript, ast.Attribute)):
                stored.add(id(inner))
                inner = inner.value
    read = set()
    for node in ast.walk(module):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and isinstance(node.ctx, ast.Load)
                and id(node) not in stored):
            read.add((node.value.id, node.attr))
    return read


def _module_slot(target, modules):
    """``(module, attribute)`` a target stores into (``np._last``, ``os.environ["K"]``),
    or None for any other target."""
    node = target
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return (node.value.id, node.attr) if node.value.id in modules else None
        node = node.value
    return None


class _Discard(Dropping):

    def __init__(self, library, read_back):
        self.library, self.read_back = library, read_back
        self.dropped = []

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call) and self.library.idle_value(node.value):
            self.dropped.append(node)
            return None
        return node

    def visit_Assign(self, node):
        slots = [_module_slot(t, self.library.modules) for t in node.targets]
        if (all(s is not None and s not in self.read_back for s in slots)
                and self.library.idle_value(node.value)):
            self.dropped.append(node)
            return None
        return self.generic_visit(node)


def _working(module, library):
    """Names bound to work of the student's: a function or class, or a value that
    calls anything not idle (``obj = Steps(X)``, ``f = lambda r: out.append(r)``)."""
    names = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and not library.idle_value(node.value):
            names.update(n.id for t in node.targets for n in ast.walk(t)
                         if isinstance(n, ast.Name))
    return names


def drop_discarded(module, imports=frozenset()):
    """``module`` without the statements :mod:`this module <.discarded>` drops;
    returns it, the names of the student's work the dropped lines read (a
    function ``list(map(step, xs))`` passes on, an object ``str(obj)`` asks for),
    which must stay, and whether a value does nothing but give itself (for
    assignments nobody reads). ``imports``: names code run before it imported (the setup
    cell's ``np``), which are the library's unless ``module`` binds them."""
    library = _Library(module, imports)
    working = _working(module, library)
    discard = _Discard(library, _read_back(module, library.modules))
    module = discard.visit(module)
    read = {n.id for stmt in discard.dropped for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return module, frozenset(read & working), library.idle_value
