"""kernlab is layered: no import cycles, no module using another's private names.

The imports are read from the source with ``ast`` (so that an import inside
a function counts too), without starting an interpreter per module: a cycle
of any kind fails, and every name a module takes from another must be
defined at the top level of that module (what importing each module alone
would otherwise find out).
"""

import ast
import pathlib

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


def _top_level_names(module):
    """Names bound at the top level of ``module`` (definitions, assignments)."""
    names = set()
    for node in ast.parse((PACKAGE / f"{module}.py").read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.FunctionDef, ast.ClassDef)):
                    names.add(inner.name)
                elif isinstance(inner, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0]
                                 for a in inner.names)
                elif isinstance(inner, ast.Assign):
                    for target in inner.targets:
                        names.update(n.id for n in ast.walk(target)
                                     if isinstance(n, ast.Name))
    return names


@pytest.mark.parametrize("module", MODULES)
def test_every_name_taken_from_a_module_is_defined_there(module):
    missing = [f"{target}.{name}" for target, names in _imports(module)
               for name in names
               if target in MODULES and name != "*"
               and name not in _top_level_names(target) and name not in MODULES]
    unknown = [target for target, _ in _imports(module) if target not in MODULES]
    assert missing == [] and unknown == [], (module, missing, unknown)


def test_the_name_check_reads_definitions_and_imports():
    kernels = _top_level_names("kernels")
    assert {"Kernel", "Gaussian", "Polynomial", "is_psd", "check_array"} <= kernels
    assert "no_such_name" not in kernels
    assert ("_linalg", ["is_psd"]) in _imports("kernels")
