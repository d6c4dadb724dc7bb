"""The two base classes of the course's preprocessors.

* :class:`ConfinedPreprocessor` -- one that runs student code: the
  confinement mode and the line the autograde log shows;
* :class:`FeedbackPreprocessor` -- one run by ``generate_feedback``, under
  nbconvert's HTML exporter.
"""

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum, List

from .. import sandbox

__all__ = ["ConfinedPreprocessor", "FeedbackPreprocessor"]


class ConfinedPreprocessor(NbGraderPreprocessor):
    """A preprocessor that runs student code: the confinement mode and the log line."""

    confinement = Enum(
        list(sandbox.MODES), default_value="bubblewrap",
        help="'bubblewrap' (refuse to grade where the sandbox cannot be built) or "
             "'unconfined' (weaker: no namespaces; an explicit opt-in)."
    ).tag(config=True)

    def check_confinement(self, resources):
        """Check the mode (or raise ConfinementUnavailable); log it per submission."""
        sandbox.check_mode(self.confinement)
        info = resources.get("nbgrader", {})
        line = (f"{info.get('student')}/{info.get('assignment')} "
                f"{type(self).__name__} {sandbox.describe(self.confinement)}")
        (self.log.info if self.confinement == "bubblewrap" else self.log.warning)(line)


class FeedbackPreprocessor(NbGraderPreprocessor):
    """A preprocessor run by ``generate_feedback``, under nbconvert's HTML exporter."""

    # The HTML exporter configures this for every preprocessor; nbgrader's base
    # class declares it without config=True, so traitlets would warn "Config
    # option `display_data_priority` not recognized" (nbgrader's GetGrades
    # declares it the same way).
    display_data_priority = List(
        NbGraderPreprocessor.display_data_priority.default_value,
        help="Output types in the order an exporter prefers them (unused here).",
    ).tag(config=True)
