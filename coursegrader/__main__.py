"""``python -m coursegrader --help-all`` lists every setting of the grader."""

import sys

from .apps.settings_help import main

if __name__ == "__main__":
    sys.exit(main())
