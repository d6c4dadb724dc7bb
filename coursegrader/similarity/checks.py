"""Checks that only raise, read at the top of their block when they stand after
nearly every line of it; and a block of nearly all statements in a ``try`` that
gives up, read as those statements.

``if t3 is ...: raise ValueError("bad input")`` after every line of a copy breaks
each run of its lines in two; dropping such checks erased what honest answers
check of their input and brought two of them closer than any copy needs
(0.48 to 0.54). Read first in their block, in their order, they are still read, and
the lines between them are again the runs they were. A block checked now and then
stays as written. In the same way, ``try: s`` ``except ZeroDivisionError: return
0`` round each statement of a copy is read as the statements; a ``try`` now and
then stays; and so is an ``if`` with no ``else`` round each statement or two
(``if abs:``, ``if os.getpid() > 0:``, ``if id(t3) > 0:``, ``if X is not
None:``, a test true whatever the code computes, but not a constant the normal
form could work out; a ``while`` that breaks at the end of its one pass is
such an ``if``): an ``if`` now and then stays.
"""

import ast

__all__ = ["checks_first"]


def _only_raises(stmt):
    """``if test: raise E`` (names bound on the way: ``msg = ...; raise E(msg)``)."""
    return (isinstance(stmt, ast.If) and not stmt.orelse and bool(stmt.body)
            and isinstance(stmt.body[-1], ast.Raise)
            and all(isinstance(s, ast.Assign) for s in stmt.body[:-1]))


#: How many checks among a block's other statements, and at least two for every
#: three of them, make it padded: honest code checks its input first, or now and
#: then on the way (four checks among seven lines), and a copy with a check after
#: every second line is found without this reading
SPREAD = 3


def _guarded(stmt):
    """``try: s`` ``except E: return 0``: statements whose handlers only give up
    (``return`` a constant, ``continue``, ``break``, ``pass``)."""
    return (isinstance(stmt, ast.Try) and bool(stmt.handlers) and not stmt.orelse
            and not stmt.finalbody
            and all(len(h.body) == 1 and (
                isinstance(h.body[0], (ast.Continue, ast.Break, ast.Pass))
                or (isinstance(h.body[0], ast.Return)
                    and isinstance(h.body[0].value, (ast.Constant, type(None)))))
                for h in stmt.handlers))


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _carrying(stmt):
    """``if test: s`` (no ``else``; one or two simple statements)."""
    return (isinstance(stmt, ast.If) and not stmt.orelse and 1 <= len(stmt.body) <= 2
            and all(isinstance(s, _SIMPLE) for s in stmt.body))


class _ChecksFirst(ast.NodeVisitor):

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                continue
            guarded = sum(map(_guarded, block))
            if guarded >= SPREAD and 3 * guarded >= 2 * len(block):
                # every statement in a try that gives up: the statements are the code
                block[:] = [t for s in block for t in (s.body if _guarded(s) else [s])]
            carrying = sum(map(_carrying, block))
            if carrying >= SPREAD and 3 * carrying >= 2 * len(block):
                # nearly every statement under a test of its own
                block[:] = [t for s in block for t in (s.body if _carrying(s) else [s])]
            lead = next((i for i, s in enumerate(block) if not _only_raises(s)), len(block))
            between = sum(map(_only_raises, block[lead:]))
            others = len(block) - lead - between
            if between >= SPREAD and 3 * between >= 2 * others:
                block[:] = ([s for s in block if _only_raises(s)]
                            + [s for s in block if not _only_raises(s)])
        super().generic_visit(node)


def checks_first(module):
    """``module`` with each block's checks that only raise moved to its top, where
    they stand after nearly every line, and a block of statements each in a
    ``try`` that gives up, or under a test of its own, read as the statements."""
    _ChecksFirst().visit(module)
    return module
