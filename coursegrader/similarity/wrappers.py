"""Code wrapped in what does nothing, read as the code it wraps.

The one place the normal form sees through no-op wrappers a copier puts
around every name: calls of a function that gives back its argument
(:mod:`.identity_calls`: ``_i(n)``, ``(lambda: n)()``) and expressions that
pick one of their parts by a constant (:mod:`.constant_picks`: ``(n,)[0]``,
``{0: n}[0]``, ``n if 1 else 0``). Each may uncover the other
(``{0: _i}[0](n)``), so both run until neither finds more.
"""

from .constant_picks import inline_constant_picks
from .identity_calls import inline_identity_calls

__all__ = ["see_through_wrappers"]

#: Rounds at most: each round removes a layer of wrapping; copiers nest a few.
_ROUNDS = 8


def see_through_wrappers(module, keep=frozenset()):
    """``module`` (an ast.Module, changed in place) with every no-op wrapper read as
    what it wraps; ``keep``: the release's names, never taken for an identity."""
    for _ in range(_ROUNDS):
        module, calls = inline_identity_calls(module, keep)
        module, picks = inline_constant_picks(module)
        if not (calls or picks):
            break
    return module
