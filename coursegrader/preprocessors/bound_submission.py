"""BoundSubmission: a notebook far larger than any honest one is not graded."""

import json
import os

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Int

__all__ = ["BoundSubmission", "NotebookTooLarge", "refusal"]


def refusal(setting, limit, found):
    """Why a notebook over the bound ``setting`` was not graded, and what to do: the
    one text the grader's log and the student's feedback page both give."""
    what = {"max_bytes": f"the file has {found:,} bytes",
            "max_cells": f"it has {found:,} cells",
            "max_outputs": f"its cells have {found:,} outputs"}[setting]
    return (f"{what}, more than the {limit:,} a notebook of this course may have "
            f"(c.BoundSubmission.{setting}). Hand in the problem set's notebook with your "
            "answers in its cells, without added cells or large outputs, and ask the "
            "instructor to grade it again.")


class NotebookTooLarge(ValueError):
    """A notebook refused by a bound: ``setting`` (``max_bytes``, ``max_cells``,
    ``max_outputs``), the ``limit`` and what was ``found``, as numbers, so that
    what comes after (the feedback page saying why) reads them, not the message."""

    def __init__(self, message, setting, limit, found):
        super().__init__(message)
        self.setting, self.limit, self.found = setting, limit, found


class BoundSubmission(NbGraderPreprocessor):
    """Refuse a submitted notebook over :attr:`max_bytes`, :attr:`max_cells` or
    :attr:`max_outputs`.

    Every step outside the sandbox (reading and validating the notebook,
    nbgrader's preprocessors, cleaning what the student wrote, the record,
    the feedback) costs time that grows with the number of cells (nbconvert
    validates the whole notebook after each preprocessor): a notebook of
    50,000 empty Markdown cells (3 to 5 MB) held a grader for 48 to 78 s
    against about 1.3 s for an honest one, and one of 100 MB would hold it
    for most of an hour, every class-mate behind
    it waiting; so does one of a few cells holding 170,000 outputs of one letter
    each (8 MB: 53 s against 2.4 s). Such a notebook is refused before it is read: the course's
    autograde (:mod:`coursegrader.apps.autograde`) calls :meth:`check_file`
    on the file, and this preprocessor, first in
    ``Autograde.sanitize_preprocessors``, checks again where nbgrader reads
    the notebook itself (Formgrader's autograde). The submission fails alone,
    with a message that names the bound; the rest of the class is graded.
    """

    max_bytes = Int(
        10 * 1024**2,
        help="Largest submitted notebook file, in bytes, that is graded (default 10 MiB; "
             "the course's solved notebooks are about 25 kB before their outputs)."
    ).tag(config=True)
    max_cells = Int(
        1000,
        help="Most cells a submitted notebook may have to be graded (default 1,000; "
             "the course's notebooks have 14 to 20).").tag(config=True)
    max_outputs = Int(
        2000,
        help="Most outputs, all cells together, a submitted notebook may have to be graded "
             "(default 2,000; a cell of the course's notebooks has a few).").tag(config=True)

    def _refuse(self, name, setting, limit, found):
        raise NotebookTooLarge(f"{name} was not graded: {refusal(setting, limit, found)}",
                        setting, limit, found)

    def check_file(self, path):
        """Refuse the notebook at ``path`` by its size, then its number of cells,
        reading no more of it than :attr:`max_bytes`."""
        name = os.path.basename(path)
        size = os.stat(path).st_size
        if size > self.max_bytes:
            self._refuse(name, "max_bytes", self.max_bytes, size)
        try:
            with open(path, "rb") as f:
                cells = json.loads(f.read(self.max_bytes + 1)).get("cells")
        except (ValueError, AttributeError):
            return          # not a notebook: nbgrader's own reading says so
        if isinstance(cells, list):
            self.check_cells(name, cells)

    def check_cells(self, name, cells):
        """Refuse a notebook named ``name`` whose list of cells is ``cells``, by their
        number and by the number of their outputs."""
        if len(cells) > self.max_cells:
            self._refuse(name, "max_cells", self.max_cells, len(cells))
        outputs = sum(len(c["outputs"]) for c in cells
                      if isinstance(c, dict) and isinstance(c.get("outputs"), list))
        if outputs > self.max_outputs:
            self._refuse(name, "max_outputs", self.max_outputs, outputs)

    def preprocess(self, nb, resources):
        meta = resources.get("metadata", {})
        name = (meta.get("name") or "the notebook") + ".ipynb"
        path = os.path.join(meta.get("path") or os.getcwd(), name)
        if os.path.isfile(path) and os.stat(path).st_size > self.max_bytes:
            self.check_file(path)
        self.check_cells(name, nb.cells)
        return nb, resources
