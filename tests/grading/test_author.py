"""coursegrader.tools.author: one MyST source per problem set, one tool to make its notebook."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursecheck.parts import get_parts
from coursegrader.tools.author import build_notebook, main

ASSIGNMENTS = Path(__file__).resolve().parents[2] / "assignments"
PS1 = ASSIGNMENTS / "source" / "ps1" / "ps1.md"

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

"""


def _ps1_with(tmp_path, old, new):
    text = PS1.read_text()
    assert old in text
    path = tmp_path / "ps1.md"
    path.write_text(text.replace(old, new, 1))
    return path


def test_ps1_notebook_has_nbgrader_cells_in_order():
    nb = build_notebook(PS1)
    kinds = [(c.metadata.nbgrader["grade_id"], c.metadata.nbgrader["grade"],
              c.metadata.nbgrader["solution"], c.metadata.nbgrader["locked"]) for c in nb.cells]
    assert kinds[:7] == [("title", False, False, True), ("setup", False, False, True),
                         ("variant", False, False, True), ("candidates", False, False, True),
                         ("part1_task", False, False, True),
                         ("quadratic_map_answer", False, True, False),
                         ("quadratic_map", True, False, True)]
    check = nb.cells[6]
    assert check.metadata.nbgrader["points"] == get_parts("ps1")["quadratic_map"].points
    assert check.source.split("\n")[1:3] == [
        "from coursecheck import check",
        'check("ps1", "quadratic_map", quadratic_feature_map)']
    assert "check_hidden" in check.source.split("### BEGIN HIDDEN TESTS")[1]
    assert "| 1 | `quadratic_feature_map(X)` | 2 |" in nb.cells[0].source
    assert "| | total | 16 |" in nb.cells[0].source
    assert nb.cells[4].source.startswith("## Part 1: the feature map of")
    assert "(2 points)" in nb.cells[4].source.split("\n")[0]
    assert [c.id for c in nb.cells] == [c.metadata.nbgrader["grade_id"] for c in nb.cells]


def test_points_change_in_one_place(tmp_path):
    path = _ps1_with(tmp_path, '"written": "validity_arguments", "points": 4',
                     '"written": "validity_arguments", "points": 5')
    nb = build_notebook(path, "ps1")
    cell = next(c for c in nb.cells if c.metadata.nbgrader["grade_id"] == "validity_arguments")
    assert cell.metadata.nbgrader["points"] == 5
    assert "| | total | 17 |" in nb.cells[0].source
    assert any(c.source.startswith("## Part 5 (written, 5 points)") for c in nb.cells)


@pytest.mark.parametrize("old, new, message", [
    (":answer: quadratic_map", ":answer: quadratic", "answer must name an auto-graded part"),
    (":answer: counterexample", ":name: counterexample_answer",
     "no answer cell for the auto-graded parts ['counterexample']"),
    ('"written": "closure_proofs", "points": 2', '"written": "closure_proofs"',
     "written, points and title"),
    ("{{points:quadratic_map}}", "{{points:quadratc_map}}", "names no part of ps1"),
    (":name: setup", ":nmae: setup", "unknown metadata ['nmae']"),
    ('+++ {"name": "part2_task"}', '+++ {"name": "part1_task"}', "grade id 'part1_task' is used twice"),
])
def test_mistakes_in_the_source_are_named(tmp_path, old, new, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        build_notebook(_ps1_with(tmp_path, old, new), "ps1")


def test_a_read_only_cell_needs_a_name(tmp_path):
    path = tmp_path / "ps1.md"
    path.write_text(HEADER + "# A title\n")
    with pytest.raises(ValueError, match="a read-only cell needs a name"):
        build_notebook(path, "ps1")


@pytest.mark.slow   # a fresh interpreter: seconds
def test_command_line_writes_the_notebook_next_to_its_source(tmp_path, capsys):
    folder = tmp_path / "source" / "ps1"
    folder.mkdir(parents=True)
    (folder / "ps1.md").write_text(PS1.read_text())
    assert main(["--course", str(tmp_path)]) == 0
    assert nbformat.read(folder / "ps1.ipynb", as_version=4) == build_notebook(PS1)
    assert "ps1.ipynb" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--course", str(tmp_path), "ps9"])
    done = subprocess.run([sys.executable, "-m", "coursegrader.tools.author", "--help"],
                          capture_output=True, text=True, check=True)
    assert "psN.md" in done.stdout


def test_validate_reports_a_notebook_older_than_its_source(tmp_path):
    from coursegrader.tools.validation import validate_course
    folder = tmp_path / "source" / "ps1"
    folder.mkdir(parents=True)
    (folder / "ps1.md").write_text(PS1.read_text())
    assert validate_course(tmp_path, ["ps1"], run=False) == [
        "ps1: no source notebook (run make generate)"]
    main(["--course", str(tmp_path), "ps1"])
    assert validate_course(tmp_path, ["ps1"], run=False) == ["release/ps1/ps1.ipynb: not generated"]
    (folder / "ps1.md").write_text(PS1.read_text().replace('"points": 4', '"points": 5'))
    assert "source/ps1/ps1.ipynb: older than ps1.md (run make generate)" in \
        validate_course(tmp_path, ["ps1"], run=False)
