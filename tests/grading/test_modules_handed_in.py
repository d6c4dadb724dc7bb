"""Modules handed in beside the notebook, through `make autograde` and `make similarity`.

A class of ps1 graded with the instructor's commands: bob hands in the
reference solution; alice, honestly, moves her second function (the first
that does not read her variant's ``V``) into ``helper.py`` and imports it (``from helper import ...``, which runs in her
JupyterLab, where the notebook's folder is on ``sys.path``); mallory hands in
bob's code as ``helper.py`` written in UTF-7 (a PEP 263 coding cookie: to any
reader but Python's import the whole module is one comment line); carol hands
in bob's code as a plain ``helper.py`` behind 100 one-line modules, more than
the record keeps. The grader runs each as the notebook runs it, and the
similarity check compares what runs or says what it could not compare.
"""

import copy
import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coursegrader.tools.course import Course, fill_answers

from grading.ps1_copies import CODE_PARTS, WRITTEN_PARTS, into_module

COURSE = Path(__file__).resolve().parents[2] / "assignments"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _notebook(released, answers):
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
    return nb


def utf7(module):
    """``module`` as a UTF-7 file Python imports: after the cookie, one comment
    line holding every line of it ("+AAo-" is a newline, "+-" a plus)."""
    data = ("# coding: utf-7\n# notes for ps1 +AAo-"
            + module.replace("+", "+-").replace("\n", "+AAo-") + "\n").encode("ascii")
    assert data.decode("utf-7").split("\n", 2)[2] == module + "\n"   # what Python reads
    return data


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("modules_handed_in")
    c = Course.copy_of(COURSE, tmp / "course", exchange=tmp / "exchange",
                       assignments=["ps1"])
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", "ps1")
    c.nbgrader("generate_assignment", "ps1")
    released, source = c.released("ps1"), c.source("ps1")
    scaffold = {_grade_id(cell): cell.source for cell in released.cells}
    reference = {_grade_id(cell): cell.source
                 for cell in fill_answers(released, source).cells}
    blank_written = {part: scaffold[part] for part in WRITTEN_PARTS}
    c.hand_in("bob", "ps1", _notebook(released, reference))

    first = CODE_PARTS[1]
    moved = {**reference, first: "from helper import multinomial_feature_map\n"}
    folder = c.hand_in("alice", "ps1", _notebook(released, moved))
    (folder / "helper.py").write_text(
        "import itertools\nimport math\n\nimport numpy as np\n\n\n" + reference[first])

    cells, module = into_module({**reference, **blank_written})
    module = "import itertools\n" + module           # the setup cell's, which bob's code uses
    folder = c.hand_in("mallory", "ps1", _notebook(released, cells))
    (folder / "helper.py").write_bytes(utf7(module))

    folder = c.hand_in("carol", "ps1", _notebook(released, cells))
    (folder / "helper.py").write_text(module)
    for i in range(100):
        (folder / f"note{i:03}.py").write_text(f"N = {i}\n")

    make = ["make", f"PYTHON={sys.executable}", "PS=ps1"]
    done = subprocess.run(make + ["autograde"], cwd=c.root, capture_output=True,
                          text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    scores = c.code_scores("ps1")
    done = subprocess.run(make + ["similarity"], cwd=c.root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(c.root / "report" / "ps1-similarity.csv", newline="") as f:
        rows = {frozenset((r["student_a"], r["student_b"])): r for r in csv.DictReader(f)}
    page = (c.root / "report" / "ps1-similarity.html").read_text()
    section = page.partition("Flagged on their own")[2].split("</ul>")[0]
    alone = dict(re.findall(r"<li>([^:<]+): ([^<]*)</li>", section))
    return scores, rows, alone, done.stdout


def test_an_honest_helper_module_imported_as_in_jupyterlab_scores_full_marks(graded):
    scores, _, alone, _ = graded
    assert scores["bob"] == (10.0, 10.0)
    assert scores["alice"] == scores["bob"]      # not 7: "No module named 'helper'"
    assert "alice" not in alone                  # an honest helper flags nothing


def test_a_module_in_utf7_is_compared_as_it_runs_and_flagged_on_its_own(graded):
    scores, rows, alone, said = graded
    assert scores["mallory"] == scores["bob"]    # working code is working code
    row = rows[frozenset(("bob", "mallory"))]
    assert row["flagged"] == "true" and float(row["code"]) >= 0.9, row
    assert "helper.py: declares the encoding utf-7" in alone["mallory"]
    assert "flagged on its own: mallory: code no comparison reads" in said


def test_modules_beyond_what_the_record_keeps_flag_the_submission(graded):
    scores, _, alone, said = graded
    assert scores["carol"] == scores["bob"]
    assert alone["carol"].startswith("modules not all compared: ")
    assert "1 more module(s)" in alone["carol"]
    assert "flagged on its own: carol: code no comparison reads" in said
    assert set(alone) == {"mallory", "carol"}
