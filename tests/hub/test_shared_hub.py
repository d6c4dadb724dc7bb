"""The hub of the shared-folder exchange stays one per run.

``folder_hub`` (tests/hubs.py) is a session fixture, so every module that asks
for it shares one hub; a module that defined a fixture of that name, or
imported it into its own namespace, would get a hub of its own and silently
start another (pytest keeps one instance per place a fixture is defined).
"""

import ast
from pathlib import Path

import hubs

TESTS = Path(__file__).resolve().parents[1]
SHARED = ("folder_hub",)


def _defined_or_imported(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in SHARED:
            found.add(f"defines {node.name} (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in SHARED or alias.name == "*":
                    found.add(f"imports {alias.name} from {node.module} (line {node.lineno})")
    return found


def test_the_shared_hub_is_defined_once_and_imported_nowhere():
    home = Path(hubs.__file__).resolve()
    others = {str(path.relative_to(TESTS)): found
              for path in sorted(TESTS.rglob("*.py")) if path.resolve() != home
              for found in [_defined_or_imported(path)] if found}
    assert others == {}, others
    assert [f for f in _defined_or_imported(home) if f.startswith("defines folder_hub")]


def test_each_group_of_own_students_has_names_of_its_own():
    """The suffixes of the shared hub's user names differ, so no two modules' students
    are one account."""
    suffixes = [who[0] for who in hubs.FULL_NAMES] + [
        spec[0] for own in hubs.OWN_STUDENTS.values() for spec in own.values()]
    assert len(suffixes) == len(set(suffixes)), suffixes
    # and "t" is the instructor's
    assert "t" not in suffixes
