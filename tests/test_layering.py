"""kernlab and coursegrader are layered: no import cycles, no module using another's
private names; the grader's runner package reaches nothing outside itself.

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


def assert_no_cycle(graph):
    """Depth-first search of an import graph {module: [imported module]}: an
    import cycle fails the test, naming the modules on it."""
    state = {}

    def visit(module, path):
        if state.get(module) == "done":
            return
        assert state.get(module) != "open", "import cycle: " + " -> ".join(path + [module])
        state[module] = "open"
        for target in graph[module]:
            visit(target, path + [module])
        state[module] = "done"

    for module in graph:
        visit(module, [])


def test_no_import_cycles():
    assert_no_cycle(GRAPH)


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


# ---------------------------------------------------------------- coursegrader
# The grader is a package with subpackages (runners/, judging/, preprocessors/,
# tools/, ...); its modules are named by their dotted path inside it
# ("runners.protocol").

import coursegrader  # noqa: E402

GRADER = pathlib.Path(coursegrader.__file__).parent


def _dotted(path):
    parts = path.relative_to(GRADER).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


GRADER_MODULES = sorted(_dotted(p) for p in GRADER.rglob("*.py"))


def _grader_file(module):
    path = GRADER.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _package_of(module):
    """The dotted package a module's relative imports start from."""
    if _grader_file(module).name == "__init__.py":
        return module.split(".") if module != "__init__" else []
    return module.split(".")[:-1]


def _grader_imports(module):
    """(grader module, names taken from it) for every import in ``module``.

    Imports of grader modules that do not exist are returned too, so that a
    test can fail on them.
    """
    tree = ast.parse(_grader_file(module).read_text())
    package = _package_of(module)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 \
                    else package
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module and (node.module + ".").startswith("coursegrader."):
                parts = node.module.split(".")[1:]
            else:
                continue
            target = ".".join(parts) or "__init__"
            names = [a.name for a in node.names]
            subs = [f"{target}.{n}" if target != "__init__" else n for n in names]
            found.extend((s, []) for s in subs if s in GRADER_MODULES)
            kept = [n for n, s in zip(names, subs) if s not in GRADER_MODULES]
            if kept:
                found.append((target, kept))
        elif isinstance(node, ast.Import):
            found.extend((".".join(a.name.split(".")[1:]) or "__init__", [])
                         for a in node.names if a.name.startswith("coursegrader."))
    return found


GRADER_GRAPH = {m: sorted({t for t, _ in _grader_imports(m) if t in GRADER_MODULES
                           and t != m}) for m in GRADER_MODULES}


def test_the_graders_import_graph_is_read():
    assert {"runners", "runners.protocol", "preprocessors.judge_submission", "sandbox",
            "sandbox.channel", "judging.judge", "record"} <= set(GRADER_MODULES)
    assert "runners.protocol" in GRADER_GRAPH["judging.judge"]
    assert "judging.submission" in GRADER_GRAPH["preprocessors.judge_submission"]
    assert "preprocessors.base" in GRADER_GRAPH["preprocessors.clean_student_html"]
    # a multi-line import, read whole
    assert ("runners.protocol", ["END", "TAMPERED_EXIT", "Answer", "Case", "End", "PartEnd",
                                 "ProtocolError", "decode", "encode", "ran_line",
                                 "read_header", "write_all"]) \
        in _grader_imports("runners.part_runner")


def test_the_grader_has_no_import_cycles():
    assert_no_cycle(GRADER_GRAPH)


@pytest.mark.parametrize("module", GRADER_MODULES)
def test_no_grader_module_imports_another_modules_private_names(module):
    private = [f"{target}.{name}" for target, names in _grader_imports(module)
               for name in names if name.startswith("_") and target != module]
    assert private == [], f"coursegrader.{module} imports private names {private}"


@pytest.mark.parametrize("module", GRADER_MODULES)
def test_every_grader_module_it_imports_exists(module):
    missing = [t for t, _ in _grader_imports(module) if t not in GRADER_MODULES]
    assert missing == [], f"coursegrader.{module} imports missing modules {missing}"


RUNNER = sorted(m for m in GRADER_MODULES if m == "runners" or m.startswith("runners."))


@pytest.mark.parametrize("module", RUNNER)
def test_the_runner_imports_nothing_of_the_grader_outside_its_package(module):
    """Only the runner package is bound into the sandbox: it must not reach out."""
    outside = [t for t in GRADER_GRAPH[module] if not t.startswith("runners")]
    named = [n.module for n in ast.walk(ast.parse(_grader_file(module).read_text()))
             if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module
             and n.module.split(".")[0] in ("coursegrader", "coursecheck", "kernlab")]
    allowed = ["coursecheck"] if module == "runners.from_coursecheck" else []
    reached = [m for m in named if m not in allowed]
    assert outside == [] and reached == [], (outside, named)


def test_the_runner_imports_on_the_host():
    import importlib
    for module in RUNNER:
        importlib.import_module(f"coursegrader.{module}")
    from coursegrader.runners import protocol, from_coursecheck
    assert protocol.END == b'{"end": true}\n'
    assert from_coursecheck.serial.__name__ == "coursecheck.serial"


def test_every_package_is_listed_for_installation():
    """A non-editable install (the hub's instructor environment) gets only the
    packages pyproject.toml lists: a subpackage missing there is missing on
    the hub, though every test run from the checkout passes."""
    import tomllib

    root = pathlib.Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    setup = config["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = set()
    for top, folder in setup["package-dir"].items():
        base = root / folder
        for init in base.rglob("__init__.py"):
            parts = init.parent.relative_to(base).parts
            found.add(".".join((top, *parts)))
    assert found, "no package found under the folders pyproject.toml names"

    def folder(name):
        top, *rest = name.split(".")
        return root / setup["package-dir"][top] / pathlib.Path(*rest)

    # folders of data only (the templates) are listed too, or setuptools warns
    data_only = {name for name in listed - found
                 if folder(name).is_dir() and not list(folder(name).glob("*.py"))}
    assert found == listed - data_only, (
        f"missing from pyproject.toml: {sorted(found - listed)}; "
        f"listed but absent: {sorted(listed - found - data_only)}")


# ---------------------------------------------------------------- the grader's layers
# A submission goes down these once: the instructor's tools run nbgrader's
# apps and preprocessors, which hand the notebook to the judge, which runs
# student code in the sandbox, where the runners are; the record comes back up.
# Each module may import modules of lower layers and of its own layer, never of
# a higher one.  Lowest first.
LAYERS = [
    ("runners",),                                      # run inside the sandbox
    ("settings", "secret", "markers", "startup", "late_policy", "plain_paths", "dating",
     "student_html", "mathml", "selfcheck", "book_sections", "spreadsheet"),
    ("sandbox", "record", "gradebook", "student_outputs"),
    ("judging",),
    ("similarity",),                                   # what the similarity check compares
    ("preprocessors", "apps"),                         # nbgrader's side
    ("tools",),                                        # the instructor's commands
    ("__init__", "__main__"),                          # the package's face
]


def _layer(module):
    top = module.split(".")[0]
    found = [i for i, names in enumerate(LAYERS) if top in names]
    assert len(found) == 1, f"coursegrader.{module} is in no layer (or in two): add it"
    return found[0]


@pytest.mark.parametrize("module", GRADER_MODULES)
def test_each_grader_module_imports_only_its_layer_and_those_below(module):
    upward = [t for t in GRADER_GRAPH[module] if _layer(t) > _layer(module)]
    assert upward == [], (f"coursegrader.{module} (layer {_layer(module)}) imports "
                          f"{[(t, _layer(t)) for t in upward]}")


def test_the_layers_are_read():
    assert _layer("runners.protocol") < _layer("sandbox.channel") < _layer("judging.judge") \
        < _layer("preprocessors.judge_submission") < _layer("tools.batch")
    assert _layer("record") < _layer("judging.submission")
    assert "record" in GRADER_GRAPH["judging.submission"]
    assert "apps.autograde" in GRADER_GRAPH["tools.batch"]
    with pytest.raises(AssertionError, match="in no layer"):
        _layer("somewhere")


def test_the_judge_is_the_only_way_down_to_the_sandbox():
    """nbgrader's side and the instructor's tools reach student code through the
    judge only: none of them speaks to a runner or starts a sandbox itself (the
    sandbox's face says which confinement works here, and prepares it)."""
    above = [m for m in GRADER_MODULES if m.split(".")[0] in ("preprocessors", "apps", "tools")]
    assert "preprocessors.judge_submission" in above and "tools.batch" in above
    for module in above:
        reached = [t for t in GRADER_GRAPH[module]
                   if t == "runners" or t.startswith(("runners.", "sandbox."))]
        assert reached == [], (module, reached)
