"""The first thing the grader's processes do: leave out an import that costs seconds.

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
"""

import sys

__all__ = ["skip_slow_imports", "SLOW_IMPORTS"]

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
