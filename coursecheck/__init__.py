"""The checks students run in the course's problem-set notebooks.

``check("ps1", "quadratic_map", quadratic_feature_map)`` runs a function on
the public cases of a part and prints what passed and what did not.  The
package holds each part's public cases and how an answer is judged (see
:mod:`coursecheck.parts`), and the grader's policy on what graded code may
import (:mod:`coursecheck.policy`); it holds no solutions and no hidden cases.
``V = variant("ps1")`` prints whose variant of a problem set the notebook
shows and returns its parameters (:mod:`coursecheck.variants`).
"""

from .check import CheckFailed, check
from .parts import Case, Part, allclose, custom, equal, same_set
from .variants import Variation, set_student, variant

__all__ = ["check", "CheckFailed", "Part", "Case", "allclose", "same_set", "custom", "equal",
           "Variation", "variant", "set_student"]
