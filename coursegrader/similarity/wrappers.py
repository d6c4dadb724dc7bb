"""Code wrapped in what does nothing, read as the code it wraps.

The one place the normal form sees through no-op wrappers a copier puts
around every name: calls of the student's own functions that give back
their argument (:mod:`.identity_calls`: ``_i(n)`` after ``def _i(x): return
x``), expressions that hand back one of their parts, found by running them on
stand-ins (:mod:`.round_trips`: ``(n,)[0]``, ``next(iter((n,)))``,
``[n].pop()``, ``(lambda: n)()``), and branches chosen by a constant
(:mod:`.constant_picks`: ``n if 1 else 0``, ``0 or n``, ``_t and n`` after
``_t = 1``). Each may uncover
another (``{0: _i}[0](n)``; ``def _i(x): return [x].pop()``), so all run
until none finds more.
"""

from .bindings import binding_counts
from .constant_picks import inline_constant_picks, named_constants
from .identity_calls import inline_identity_calls
from .round_trips import inline_round_trips, names_of

__all__ = ["see_through_wrappers", "ROUNDS"]

#: Rounds at most: each round removes a layer of wrapping (a chain of wrappers
#: each defined through the one before takes a round a link); honest code
#: needs one or none.
ROUNDS = 32


def see_through_wrappers(module, keep=frozenset()):
    """``module`` (an ast.Module, changed in place) with every no-op wrapper read as
    what it wraps; ``keep``: the release's names, never taken for an identity.
    (module, whether the reading ended: False when the last of :data:`ROUNDS`
    still found a wrapper, so that more may be left.)"""
    counts = binding_counts(module)          # inlining binds no name: counted once
    names = names_of(module, keep, counts)
    constants = named_constants(module, keep, counts)
    for _ in range(ROUNDS + 1):             # the last only to see whether more is left
        module, trips = inline_round_trips(module, keep, names)
        module, calls = inline_identity_calls(module, keep, counts)
        module, picks = inline_constant_picks(module, constants)
        if not (trips or calls or picks):
            return module, True
    return module, False
