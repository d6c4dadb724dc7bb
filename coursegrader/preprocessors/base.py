"""The base class of the course's preprocessors that nbconvert's HTML exporter also runs.

:class:`HTMLExportablePreprocessor` is a preprocessor that ``generate_feedback``
runs under nbconvert's HTML exporter (and that autograde may run as well): the
exporter configures ``display_data_priority`` for every preprocessor it runs.
:func:`graded_record` finds, for the feedback's preprocessors and Formgrader's
grading page, the record of the submission being shown.
"""

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List

from .. import record

__all__ = ["HTMLExportablePreprocessor", "graded_record"]


class HTMLExportablePreprocessor(NbGraderPreprocessor):
    """A preprocessor nbconvert's HTML exporter may run (feedback), autograde too."""

    # The HTML exporter configures this for every preprocessor; nbgrader's base
    # class declares it without config=True, so traitlets would warn "Config
    # option `display_data_priority` not recognized" (nbgrader's GetGrades
    # declares it the same way).
    display_data_priority = List(
        NbGraderPreprocessor.display_data_priority.default_value,
        help="Output types in the order an exporter prefers them (unused here).",
    ).tag(config=True)


def graded_record(resources):
    """The record beside the autograded notebook being shown, or None (not graded by
    the judge).

    The notebook is the one nbgrader names (feedback), else Formgrader's
    ``notebook_id`` (its grading page).
    """
    folder = resources.get("metadata", {}).get("path")
    notebook = (resources.get("nbgrader", {}).get("notebook")
                or resources.get("notebook_id"))
    if not folder or not notebook or not record.path(folder, notebook).is_file():
        return None
    return record.load(folder, notebook)
