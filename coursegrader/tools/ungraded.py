"""The parts of submissions still to be graded by hand, before anything leaves.

``make feedback`` runs this first: while a submission of the problem sets has
a part nbgrader marks ``needs_manual_grade`` (a written answer nobody has
graded in Formgrader yet), it lists them all (student, problem set, part) and
exits with status 1, so no feedback is written or released; ``FORCE=1`` skips
it. ``make export`` and ``make lti_scores`` refuse the same way, with the
same list (:func:`coursegrader.gradebook.half_graded_refusal`).

    python -m coursegrader.tools.ungraded [ps1 ps2 ...]
"""

import argparse
import sys

from ..gradebook import half_graded_refusal, open_gradebook, ungraded_parts
from ..settings import private_files
from .command_input import InputError, load_config

__all__ = ["main"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.ungraded",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="*", help="problem sets (default: all)")
    parser.add_argument("--what", default="nothing done",
                        help="what the refusal stops, for its message")
    parser.add_argument("--force", default="add FORCE=1 to go ahead anyway",
                        help="how to go ahead anyway, for its message")
    args = parser.parse_args(argv)
    try:
        with open_gradebook(load_config()) as gb:
            parts = ungraded_parts(gb, args.assignments or None)
    except InputError as exc:
        exc.report()
        return 2
    if parts:
        print(half_graded_refusal(parts, args.what, args.force), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
