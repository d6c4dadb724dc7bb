"""How the grader's processes start and end: what they leave out, and what the collector skips.

nbgrader reads every notebook with nbformat, which validates with jsonschema,
and jsonschema's format checkers import ``rfc3987_syntax`` for the ``iri``
formats.  That package builds about 35 Earley parsers when it is imported:
2 to 3 seconds of every process that imports nbgrader, more than the rest of
nbgrader's imports together (python-jsonschema/jsonschema#1428).  No schema of
nbformat or nbgrader uses those formats, so ``make autograde`` and its
workers mark the module as absent before anything imports jsonschema, which
then leaves out those two checks, as it does when the package is not
installed.  Nothing else changes: every other format and every validation
stays as it is.

Once a grader has started (imported nbgrader, the problem sets' graders and
kernlab: about 2000 modules and 170,000 objects the collector tracks, which
live as long as the process), its workers are made from it inside
:func:`frozen`, which keeps those objects out of the garbage collector's reach
(``gc.freeze``), as Python's documentation advises before a ``fork``: the
workers then share those pages instead of copying them when their collector
walks them, and no collection of theirs walks them again.  At exit
:func:`settle` does the same for good, which keeps the interpreter from
walking every module once more (0.35 s of each ``make autograde``).
"""

import contextlib
import gc
import sys

__all__ = ["skip_slow_imports", "frozen", "settle", "SLOW_IMPORTS"]

SLOW_IMPORTS = ("rfc3987_syntax",)


def skip_slow_imports():
    """Make the modules of :data:`SLOW_IMPORTS` absent in this process.

    Returns True if it took effect, False if jsonschema was already imported
    (then it is too late, and nothing is changed).
    """
    if "jsonschema" in sys.modules:
        return False
    for name in SLOW_IMPORTS:
        sys.modules.setdefault(name, None)
    return True


@contextlib.contextmanager
def frozen():
    """Keep the objects that exist now out of the collector's work while inside.

    Processes forked inside keep them so for good; this process gets them
    back on leaving.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def settle():
    """Keep every object that exists now out of the collector's work, for good (at exit).

    Nothing that needs a finaliser run by the collector (a cycle holding an
    open file, say) may still be waiting for one.
    """
    gc.freeze()
