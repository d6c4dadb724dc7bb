"""The grader's processes leave out jsonschema's slow ``iri`` checker, and nothing else.

Each check runs in a fresh interpreter, as ``make autograde`` and its
workers start.
"""

import subprocess
import sys

import pytest

from conftest import COURSE, REPO


def fresh(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_grader_processes_skip_the_iri_checker_and_still_validate_notebooks():
    took, loaded, iri, uri, valid, invalid = fresh("""
import sys
from coursegrader.startup import skip_slow_imports
took = skip_slow_imports()
import nbformat
from jsonschema import FormatChecker
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
nbformat.validate(nb)
nb.cells[0]["cell_type"] = "spreadsheet"
try:
    nbformat.validate(nb)
    invalid = "accepted"
except nbformat.ValidationError:
    invalid = "refused"
checkers = FormatChecker().checkers
print(took, sys.modules.get("rfc3987_syntax") is not None, "iri" in checkers,
      "uri" in checkers, "valid", invalid)
""")
    assert (took, loaded, iri) == ("True", "False", "False")
    # every other checker is there, and notebooks are validated as before
    assert (uri, valid, invalid) == ("True", "valid", "refused")


@pytest.mark.slow
def test_too_late_changes_nothing():
    took, iri = fresh("""
import jsonschema
from jsonschema import FormatChecker
from coursegrader.startup import skip_slow_imports
print(skip_slow_imports(), "iri" in FormatChecker().checkers)
""")
    assert (took, iri) == ("False", "True")


def test_settle_keeps_start_up_objects_out_of_later_collections():
    """After ``settle`` a collection walks only what was made since; new garbage is still freed."""
    frozen, before, after, freed = fresh("""
import gc, weakref
from coursegrader.startup import settle
import nbformat, numpy                      # start-up's long-lived objects
before = len(gc.get_objects())
settle()
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a                     # a cycle made after start-up
gone = weakref.ref(a)
del a, b
gc.collect()
print(gc.get_freeze_count(), before, len(gc.get_objects()), gone() is None)
""")
    assert int(frozen) >= int(before) > 10 * int(after)
    assert freed == "True"


@pytest.mark.slow
def test_the_makefiles_nbgrader_is_nbgrader_without_the_iri_checker(tmp_path):
    """``make``'s nbgrader steps (the Makefile's NBGRADER) run nbgrader itself, minus the import."""
    import nbformat

    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]),
                   tmp_path / "a.ipynb")
    makefile = (COURSE / "Makefile").read_text()
    assert "NBGRADER ?= $(PYTHON) -m coursegrader.apps.nbgrader_command" in makefile
    out = fresh(f"""
import atexit, sys, runpy
atexit.register(lambda: print("iri-loaded", sys.modules.get("rfc3987_syntax") is not None))
sys.argv = ["x", "validate", {str(tmp_path / "a.ipynb")!r}]
runpy.run_module("coursegrader.apps.nbgrader_command", run_name="__main__")
""")
    assert " ".join(out).startswith("Success! Your notebook passes all the tests.")
    assert out[-2:] == ["iri-loaded", "False"]
