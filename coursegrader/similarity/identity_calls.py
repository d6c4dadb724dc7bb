"""Calls of functions that give back their argument, read as the argument.

Wrapping every name a copy reads in a function that returns it unchanged
(``_i(np).asarray(_i(X))``) changes every line and nothing the code does.
:func:`inline_identity_calls` reads such a call as its argument, for:

- a function of the top level whose body (after a docstring, ``pass`` and bare
  constants) is ``return p`` of its first parameter ``p`` (``def _i(x): return
  x``; more parameters with defaults, ``*args`` and ``**kwargs`` may follow),
  also after copies of it (``y = x; return y``, ``(y,) = (x,)``, ``for y in
  (x,): return y``) and inside a ``try`` whose handlers only raise again,
  or ``return a[0]`` / ``return a[-1]`` of its only ``*a``
  (``def _i(*a): return a[0]``);
- a name of the top level given such a ``lambda`` (``_i = lambda x: x``), or
  given another such name (``_j = _i``);
- a ``lambda`` of that kind called where it stands (``(lambda x: x)(np)``;
  other lambdas called where they stand are read by :mod:`.round_trips`);

called with one positional argument and nothing else (``_i(X)``; ``_i(*xs)``
or ``_i(x, y)`` stay); and ``next(_g(X))`` of a generator of the top level that
yields its argument (``def _g(x): yield x``), when ``next`` is the builtin. What is left, ``x = x`` for ``x = _i(x)`` and the
function no longer called, the normal form drops as it drops any no-op and
dead code. Every binding of such a name in the whole program must give
such a function (``def _i`` written twice is still one; a second ``def``
that does something else, an assignment, a parameter or an import of the
same name anywhere, and it is left alone: which one a call reaches is then a
matter of scope and order), and it must not be a name of the release. An identity used as a
decorator (``@_i``) is dropped, and so is a choice between two identities by a
test that only compares (``@(lambda f: f) if x is None else _i``).

Not seen through (each returns something else, or is not a plain function
of the submission): a method (``self._i(x)``), a function whose body does
more (``return x if True else 0`` is one once
:mod:`.constant_picks` reads its body as ``return x``, and
:func:`.wrappers.see_through_wrappers` runs the two in turn), ``copy.copy`` and
other library calls, ``operator.itemgetter``, a class whose ``__call__``
returns its argument, a dictionary of names (``_m("np")``), ``getattr``,
``builtins.id`` (which returns a number, not its argument), and one defined in a
module handed in and imported by name (``from helper import _i`` binds ``_i`` a
second time; ``helper._i(x)`` is a method-like call).
"""

import ast

from .bindings import binding_counts

__all__ = ["inline_identity_calls"]


def _is_constant_padding(stmt):
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr)
                                          and isinstance(stmt.value, ast.Constant))


def _returns_its_argument(args, body):
    """Whether a function of parameters ``args`` whose statements are ``body``
    returns its one positional argument when called with just that."""
    return _gives_back(args, body) == "return"


def _reraises(handler):
    """Whether an ``except`` clause only raises again what it caught."""
    body = [s for s in handler.body if not _is_constant_padding(s)]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].cause is None and (
        body[0].exc is None or (isinstance(body[0].exc, ast.Name) and handler.name
                                and body[0].exc.id == handler.name))


def _straight(body, depth=0):
    """``body`` as the straight line of statements it runs, where that is plain:
    padding left out, ``try`` whose handlers only raise again read as its body,
    ``for w in (x,):`` as ``w = x`` and its body, ``(a, b) = (x, y)`` of names as
    ``a = x; b = y`` (no name both read and bound)."""
    out = []
    for stmt in body:
        if _is_constant_padding(stmt):
            continue
        if (depth < 8 and isinstance(stmt, ast.Try) and not stmt.orelse
                and not stmt.finalbody and stmt.handlers
                and all(_reraises(h) for h in stmt.handlers)):
            out.extend(_straight(stmt.body, depth + 1))
        elif (depth < 8 and isinstance(stmt, ast.For) and not stmt.orelse
              and isinstance(stmt.target, ast.Name)
              and isinstance(stmt.iter, (ast.Tuple, ast.List)) and len(stmt.iter.elts) == 1
              and isinstance(stmt.iter.elts[0], ast.Name) and stmt.body
              and isinstance(stmt.body[-1], ast.Return)):
            out.append(ast.Assign([ast.Name(stmt.target.id, ast.Store())],
                                  stmt.iter.elts[0], lineno=0))
            out.extend(_straight(stmt.body, depth + 1))
        elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
              and isinstance(stmt.targets[0], (ast.Tuple, ast.List))
              and isinstance(stmt.value, (ast.Tuple, ast.List))
              and len(stmt.targets[0].elts) == len(stmt.value.elts)
              and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)
              and all(isinstance(v, ast.Name) for v in stmt.value.elts)
              and not ({t.id for t in stmt.targets[0].elts}
                       & {v.id for v in stmt.value.elts})):
            out.extend(ast.Assign([ast.Name(t.id, ast.Store())], v, lineno=0)
                       for t, v in zip(stmt.targets[0].elts, stmt.value.elts))
        else:
            out.append(stmt)
    return out


def _gives_back(args, body):
    """How a function of parameters ``args`` whose statements are ``body`` gives back
    its one positional argument when called with just that: ``"return"`` (``return
    x``, also after ``y = x``, ``z = y``), ``"yield"`` (a generator whose one item it
    is: ``yield x``), or None."""
    if isinstance(body, ast.expr):
        last, before = ast.Return(body), []
    else:
        body = _straight(body)
        if not body:
            return None
        last, before = body[-1], body[:-1]
    if isinstance(last, ast.Return) and last.value is not None:
        how, value = "return", last.value
    elif (isinstance(last, ast.Expr) and isinstance(last.value, ast.Yield)
          and last.value.value is not None):
        how, value = "yield", last.value.value
    else:
        return None
    positional = args.posonlyargs + args.args
    if positional:
        # the others must have defaults: one argument fills the first alone
        if len(positional) - 1 > len(args.defaults):
            return None
        if any(k_default is None for k_default in args.kw_defaults):
            return None
        aliases = {positional[0].arg}
        for stmt in before:                 # ``y = x`` of the argument, in turn
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Name) and stmt.value.id in aliases):
                return None
            aliases.add(stmt.targets[0].id)
        return how if isinstance(value, ast.Name) and value.id in aliases else None
    if before or args.vararg is None or args.kwonlyargs and None in args.kw_defaults:
        return None
    star = args.vararg.arg
    picked = (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
              and value.value.id == star and isinstance(value.slice, ast.Constant)
              and type(value.slice.value) is int and value.slice.value in (0, -1))
    return how if picked else None


#: What a test may do besides giving a value
_ACTS = (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)


def _is_identity_lambda(node):
    return isinstance(node, ast.Lambda) and _returns_its_argument(node.args, node.body)


def _top_level(body):
    """The statements of the top level, through ``if``, ``try`` and ``with`` blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(stmt, field, []))


def _identities(module, keep, counts):
    """The names of the top level of ``module`` every binding of which, anywhere in
    the program, gives a function that returns its argument, and those that give a
    generator that yields it: (returns, yields)."""
    found, generators = set(), set()
    statements = list(_top_level(module.body))
    # ``_j = _i`` after ``_i = lambda x: x``: a chain in order is read in one pass,
    # one bound out of order in another
    for _ in range(len(statements) + 1):
        identities, seen = {}, set(found)
        for stmt in statements:
            name = None
            if isinstance(stmt, ast.FunctionDef):
                how = _gives_back(stmt.args, stmt.body)
                if not stmt.decorator_list and how is not None:
                    name = stmt.name
                    if how == "yield":
                        generators.add(name)
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], ast.Name)):
                value = stmt.value
                if _is_identity_lambda(value) or (isinstance(value, ast.Name)
                                                  and value.id in seen):
                    name = stmt.targets[0].id
            if name is not None:
                identities[name] = identities.get(name, 0) + 1
                if identities[name] == counts.get(name) and name not in keep:
                    seen.add(name)
        now = {name for name, n in identities.items()
               if n == counts.get(name) and name not in keep}
        if now == found:
            break
        found = now
    returns = {name for name in found if name not in generators}
    yields = {name for name in found if name in generators}
    return returns, yields


class _Inline(ast.NodeTransformer):
    def __init__(self, identities, generators, next_is_builtin):
        self.identities, self.generators = identities, generators
        self.next_is_builtin = next_is_builtin
        self.changed = False

    def is_identity(self, func):
        if isinstance(func, ast.IfExp):    # ``(lambda f: f) if t else _i``: either way
            return (not any(isinstance(n, _ACTS) for n in ast.walk(func.test))
                    and self.is_identity(func.body) and self.is_identity(func.orelse))
        return ((isinstance(func, ast.Name) and func.id in self.identities)
                or _is_identity_lambda(func))

    def visit_Call(self, node):
        self.generic_visit(node)
        if (self.is_identity(node.func) and len(node.args) == 1 and not node.keywords
                and not isinstance(node.args[0], ast.Starred)):
            self.changed = True
            return node.args[0]
        inner = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if (self.next_is_builtin and isinstance(node.func, ast.Name)
                and node.func.id == "next" and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name) and inner.func.id in self.generators
                and len(inner.args) == 1 and not inner.keywords
                and not isinstance(inner.args[0], ast.Starred)):
            self.changed = True                # ``next(_g(x))`` of ``def _g(v): yield v``
            return inner.args[0]
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        kept = [d for d in node.decorator_list if not self.is_identity(d)]
        self.changed |= len(kept) != len(node.decorator_list)
        node.decorator_list = kept
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef


def inline_identity_calls(module, keep=frozenset(), counts=None):
    """``module`` (an ast.Module, changed in place) with every call of a function
    that returns its argument read as the argument; ``keep``: the release's
    names, never taken for such a function; ``counts``: its
    :func:`.bindings.binding_counts`, if already counted (inlining binds no
    name). (module, whether any call was.)"""
    counts = binding_counts(module) if counts is None else counts
    returns, yields = _identities(module, keep, counts)
    inline = _Inline(returns, yields, "next" not in counts and "*" not in counts)
    module = inline.visit(module)
    return module, inline.changed
