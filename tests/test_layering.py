"""kernlab is layered: no import cycles, no module using another's private names.

The imports are read from the source with ``ast`` (so that an import inside
a function counts too), and each module is also imported alone in a fresh
interpreter, which fails on a cycle that Python cannot resolve.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

import kernlab

PACKAGE = pathlib.Path(kernlab.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _imports(module):
    """(imported kernlab module, names taken from it) for every import in ``module``."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:  # from .x import a, b
                found.append((node.module.split(".")[0], [a.name for a in node.names]))
            elif node.level == 1:  # from . import x
                found.extend((a.name, []) for a in node.names)
            elif node.module and node.module.startswith("kernlab."):
                found.append((node.module.split(".")[1], [a.name for a in node.names]))
            elif node.module == "kernlab":
                found.extend((a.name, []) for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.Import):
            found.extend((a.name.split(".")[1], []) for a in node.names
                         if a.name.startswith("kernlab."))
    return found


GRAPH = {m: sorted({target for target, _ in _imports(m) if target in MODULES}) for m in MODULES}


def test_the_import_graph_is_read():
    assert "kernels" in GRAPH["_estimator"] and "_linalg" in GRAPH["kernels"]
    assert GRAPH["_validation"] == []


def test_no_import_cycles():
    state = {}

    def visit(module, path):
        if state.get(module) == "done":
            return
        assert state.get(module) != "open", "import cycle: " + " -> ".join(path + [module])
        state[module] = "open"
        for target in GRAPH[module]:
            visit(target, path + [module])
        state[module] = "done"

    for module in MODULES:
        visit(module, [])


@pytest.mark.parametrize("module", MODULES)
def test_no_module_imports_another_modules_private_names(module):
    private = [f"{target}.{name}" for target, names in _imports(module)
               for name in names if name.startswith("_")]
    assert private == [], f"kernlab.{module} imports private names {private}"


def test_svm_does_not_build_on_ridge():
    assert "ridge" not in GRAPH["svm"] and "svm" not in GRAPH["ridge"]


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone_in_a_fresh_interpreter(module):
    code = f"import matplotlib; matplotlib.use('Agg'); import kernlab.{module}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr


def test_each_helper_has_one_home():
    """The small helpers that used to be copied exist once, in their module."""
    definitions = {}
    for module in MODULES:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                definitions.setdefault(node.name.lstrip("_"), []).append(module)
    for helper in ("take", "n_samples", "n_rows", "holds_objects", "check_kernel",
                   "cholesky_solve", "gram", "compute_gram", "is_psd"):
        assert len(definitions.get(helper, [])) <= 1, (helper, definitions[helper])
