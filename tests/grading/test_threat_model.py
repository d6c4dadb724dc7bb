"""The threat model in assignments/README.md names, for every input of every
route, the test that plays the attack: each row names at least one, and each
test it names exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "assignments" / "README.md"


def threat_model_rows():
    text = README.read_text()
    section = text[text.index("## Threat model: every route"):]
    section = section[:section.index("\n## ", 1)]
    return [line for line in section.splitlines()
            if line.startswith("| ") and not line.startswith(("| route", "| ---"))]


def test_every_row_names_tests_that_exist():
    rows = threat_model_rows()
    assert len(rows) >= 20
    missing = []
    for row in rows:
        named, current = 0, None
        for path, name in re.findall(r"`(tests/[\w/]+\.py)?(?:::(\w+))?", row):
            if path:
                current = ROOT / path
                assert current.exists(), path
                named += 1
            if name:
                if current is None or f"def {name}(" not in current.read_text():
                    missing.append(f"{current}::{name}")
                named += 1
        assert named, "a row names no test: " + row[:120]
    assert missing == []
