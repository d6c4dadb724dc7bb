"""``make`` in a copy of the course, as an instructor runs each step (assignments/Makefile)."""

import subprocess
import sys

__all__ = ["make"]


def make(course, *args, check=True, timeout=1200):
    """``make *args`` in ``course``'s folder, with this Python; its completed process.
    A failure raises with what the step printed, unless ``check`` is false."""
    done = subprocess.run(["make", *args, f"PYTHON={sys.executable}"], cwd=course.root,
                          capture_output=True, text=True, timeout=timeout)
    if check and done.returncode:
        raise AssertionError(f"make {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done
