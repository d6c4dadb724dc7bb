"""nbgrader's own command line, started without jsonschema's slow ``iri`` checker.

``python -m coursegrader.apps.nbgrader_command ARGS`` is ``nbgrader ARGS``, about
2.8 s sooner (:mod:`coursegrader.startup`): the Makefile runs its nbgrader
steps with it (``NBGRADER``), so ``make release``, ``make collect`` and
``make feedback`` no longer pay that import on every call.  What it creates is
the instructor's alone (:func:`coursegrader.settings.private_files`).
"""

import sys

from ..settings import private_files
from ..startup import skip_slow_imports

__all__ = ["main"]


def main(argv=None):
    """Run ``nbgrader`` with ``argv`` (default: this command's arguments)."""
    skip_slow_imports()
    private_files()
    from nbgrader.apps.nbgraderapp import main as nbgrader_main
    sys.argv = ["nbgrader", *(sys.argv[1:] if argv is None else argv)]
    return nbgrader_main()


if __name__ == "__main__":
    sys.exit(main())
