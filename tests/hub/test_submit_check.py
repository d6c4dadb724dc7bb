"""deploy/submit_check.py without a hub: which notebooks it checks.  The hub
tests play the Assignments tab and the terminal (test_hub.py,
test_hub_course_open.py)."""

import sys
from pathlib import Path

import nbformat
from traitlets.config import Config

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy"))

from submit_check import digest, submitted_notebooks  # noqa: E402


def test_jupyterlabs_checkpoints_are_neither_checked_nor_named(tmp_path):
    """JupyterLab keeps a copy of each notebook in .ipynb_checkpoints, which
    nbgrader does not submit: the check reads the notebooks nbgrader submits."""
    nb = nbformat.v4.new_notebook()
    for name in ("ps1.ipynb", "extra/notes.ipynb", ".ipynb_checkpoints/ps1-checkpoint.ipynb",
                 "extra/.ipynb_checkpoints/notes-checkpoint.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, tmp_path / name)
    assert submitted_notebooks(str(tmp_path), Config()) == ["extra/notes.ipynb", "ps1.ipynb"]
    before = digest(str(tmp_path), Config())
    (tmp_path / ".ipynb_checkpoints" / "ps1-checkpoint.ipynb").write_text("{}")
    assert digest(str(tmp_path), Config()) == before   # an autosave is no change
