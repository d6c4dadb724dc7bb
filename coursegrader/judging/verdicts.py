"""Verdicts: the answers of a part whose cases each ask for a yes or no, or a name.

A part declared ``Part(verdict=True)`` (ps1's "which of these are kernels",
say) is judged like any other; the judge also keeps, for each public case,
the student's answer as a verdict (:func:`verdict_of`), in the record's
:class:`~coursegrader.record.CaseResult`.  In a problem set with variants the
similarity check compares them with each classmate's variant's right verdicts
(:func:`right_verdicts`): a student of another variant who hands in the same
verdicts where the two variants' right ones differ is evidence for a person.
"""

import numpy as np

from coursecheck.variants import bind

__all__ = ["VERDICT_CHARS", "verdict_of", "right_verdicts", "known_verdicts"]

#: A name longer than this is no verdict (it is not kept).
VERDICT_CHARS = 64


def verdict_of(value):
    """``value`` as a verdict: ``"yes"`` or ``"no"`` for a bool, a short name as it is
    written (stripped); None for anything else (a number, a long text, a list)."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if bool(value) else "no"
    if isinstance(value, str):
        name = value.strip()
        if 0 < len(name) <= VERDICT_CHARS and name.isprintable():
            return name
    return None


def right_verdicts(part, params):
    """{case label: the right verdict} of ``part``'s public cases on the variant with
    parameters ``params`` (its ``reference``'s answers), or {} for a part without
    verdicts or judged without a reference (by ``verify``).

    ``part`` is the grader's (:func:`~coursegrader.judging.problem_sets.graded_parts`):
    a part whose public half withholds its reference (``Part.withheld``, ps1's
    verdicts) has it there, from the course's hidden half.
    """
    if not part.verdict or (part.reference is None and not part.withheld):
        return {}
    if part.reference is None:
        raise ValueError(f"the part of {part.func!r} gives verdicts but has no reference: "
                         "pass the grader's part (graded_parts), which holds the one its "
                         "public half withholds")
    bound = bind(part, params)
    return {case.label: verdict_of(bound.reference(*case.args)) for case in bound.public()}


def known_verdicts(part, params):
    """The labels of ``part``'s public cases whose right verdict the variant with
    parameters ``params`` shows in its own public checks (``Part.known_verdicts``),
    or an empty set."""
    if not part.verdict or part.known_verdicts is None:
        return frozenset()
    return frozenset(part.known_verdicts(params))
