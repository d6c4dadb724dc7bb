"""How a problem set describes its auto-graded parts, as the student sees them.

A problem set ``psN`` is a module ``coursecheck.problems.psN`` with a dict
``PARTS`` mapping each part id (the nbgrader ``grade_id`` of its test cell) to
a :class:`Part`.  A part names the student's function, its points, a one-line
description, its public test cases and how an answer is judged: either against
a ``reference`` computed with kernlab (compared by ``compare``), or by a
``verify`` function for questions without a single right answer.  These are
the only declarations of a part's function, points and description: the
problem set's notebook and the grader read them from here.

The problem sets are the course's own (``assignments/problems/``, installed as
``coursecheck.problems``).  The grader (``coursegrader``, instructor only) adds
each part's generator of hidden cases from the course folder; the student
package has none.  The same judging code runs in the
student's notebook (:func:`coursecheck.check`) and in the grader; only the
grader's verdict counts.
"""

import functools
import importlib
import importlib.resources
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

__all__ = [
    "Case", "Part", "allclose", "same_set", "custom", "equal", "case_answer",
    "get_part", "get_parts", "problem_module", "judge_case", "public_answers", "variant_answers",
    "variant_key", "describe", "scored_cases", "PUBLIC_UNSCORED",
    "float_array", "witness_fault", "log_uniform",
]

_PS_NAME = re.compile(r"^ps[0-9]+$")
#: A label of a section of the book, as MyST writes it above the heading: ``(label)=``.
_LABEL = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")


@dataclass(frozen=True)
class Case:
    """One test input: the positional arguments of the student's function and a label.

    ``separately``: further tuples of arguments, each given to the function in
    a call of its own after ``args`` (the grader makes these calls in a fresh
    process, so that nothing the function kept from earlier calls is there);
    the answer judged is then the tuple of what the calls returned, in order
    (see :func:`case_answer`).  Only a part
    judged by ``verify`` has such cases: what it checks is how the calls'
    answers agree, which no single call shows (a feature map's rows for two
    sets of points, whose inner products must be the kernel between them:
    an array built from the points of one call alone passes every check made
    within that call).
    """

    args: tuple
    label: str
    separately: tuple = ()

    def __post_init__(self):
        if not isinstance(self.args, tuple):
            raise TypeError(f"Case.args must be a tuple, got {type(self.args).__name__}")
        if not isinstance(self.label, str) or not self.label:
            raise TypeError("Case.label must be a non-empty string")
        if not (isinstance(self.separately, tuple)
                and all(isinstance(a, tuple) for a in self.separately)):
            raise TypeError("Case.separately must be a tuple of tuples of arguments")

    @property
    def calls(self):
        """The arguments of each call the case makes, in order: ``args`` first."""
        return (self.args,) + self.separately


def case_answer(case, answers):
    """``(True, got)`` or ``(False, message)`` for ``case`` from ``answers``, the
    ``(True, value)`` or ``(False, message)`` of each of its calls in order.

    A case of one call answers what the call returned; a case of several, the
    tuple of what they returned.  A call that failed fails the case, its
    message naming the call.
    """
    answers = list(answers)
    if len(answers) != len(case.calls):
        raise ValueError(f"case {case.label!r} makes {len(case.calls)} calls, "
                         f"got {len(answers)} answers")
    if len(answers) == 1:
        return answers[0]
    for n, (ok, value) in enumerate(answers, 1):
        if not ok:
            return False, f"call {n} of {len(answers)}: {value}"
    return True, tuple(value for _, value in answers)


@dataclass(frozen=True)
class Part:
    """An auto-graded part of a problem set.

    Exactly one of ``reference`` (a function of the case arguments returning
    the expected value, computed with kernlab), ``answers`` (the expected
    value of each public case by its label, for a part whose reference is
    worked out here rather than in kernlab and so would give the solution
    away: see :func:`public_answers`) and ``verify`` (a function
    ``verify(got, case)`` returning ``None`` when the answer is acceptable and
    a message otherwise) must be given.  ``compare(got, expected, case)``
    returns ``None`` or a message; it defaults to :func:`allclose`.
    ``hidden`` (a generator of hidden cases from a random stream) is left
    ``None`` here; only the grader's copy of a part has one.  ``sections``
    names the sections of the book the part exercises, by the labels written
    above their headings (``(kt-when-kernel)=``); the feedback on a failed
    part sends the student there, and the class report adds up how the class
    did on each.  ``varies``: the answer depends on the student's variant, and
    ``public``, ``hidden``, ``reference`` and ``verify`` take the variant's
    parameters first (see :mod:`coursecheck.variants`); such a part may be
    judged by ``answers`` only when the variants are finitely many, each with
    its own table: ``answers(params)`` gives that variant's (see
    :func:`variant_answers`).  ``verdict``: the answer
    to each case is a verdict (a yes or no, a kernel's name): the grader keeps
    the student's verdict on each public case, and the similarity check flags
    two students of different variants who hand in the same verdicts where
    their variants' right verdicts differ (a part that varies and gives a
    verdict needs a ``reference``, which says each variant's right verdicts, or
    withholds it: the grader's reference then says them).
    ``withheld``: the reference is the whole answer (a verdict), so it is the
    grader's alone (``REFERENCES`` of the course's ``hidden/psN.py``, compared
    by ``compare``); here ``verify`` checks only the form of an answer.
    ``known_verdicts`` (a part with ``verdict``): a function of the variant's
    parameters giving the labels of the public cases whose right verdict the
    variant's own public checks show (ps1: the candidates part 4 samples as
    never kernels); a student who hands in a classmate's sheet can set those
    right at no cost, so the similarity check does not count such a
    difference against the sheet being one.
    ``public_points``: whether the public cases count towards the points
    (:func:`scored_cases`).  It is derived, never to be remembered: a part
    judged by a table per variant (``answers`` callable) has every variant's
    public expected values in the student package, so a table of them would
    be right on every variant; its public cases are feedback only and its
    points come from its hidden cases.  It stays with the part when the
    grader swaps the table for its reference and when the part is bound to a
    variant; an author may turn it off for another part, never on for such a
    one.
    """

    func: str
    points: float
    public: Callable[[], list]
    hidden: Optional[Callable[[np.random.Generator], list]] = None
    reference: Optional[Callable[..., Any]] = None
    compare: Optional[Callable[[Any, Any, Case], Optional[str]]] = None
    verify: Optional[Callable[[Any, Case], Optional[str]]] = None
    varies: bool = False
    timeout: float = 20.0
    description: str = field(default="", compare=False)
    answers: Optional[dict] = field(default=None, compare=False)
    sections: tuple = field(default=(), compare=False)
    verdict: bool = field(default=False, compare=False)
    withheld: bool = False
    public_points: Optional[bool] = field(default=None, compare=False)
    known_verdicts: Optional[Callable[[dict], set]] = field(default=None, compare=False)

    def __post_init__(self):
        if not isinstance(self.func, str) or not self.func.isidentifier():
            raise ValueError(f"Part.func must be a Python identifier, got {self.func!r}")
        if not (isinstance(self.points, (int, float)) and self.points > 0):
            raise ValueError(f"Part.points must be a positive number, got {self.points!r}")
        given = [self.reference is not None, self.answers is not None, self.verify is not None]
        if sum(given) != 1:
            raise ValueError("give exactly one of Part.reference, Part.answers and Part.verify")
        if self.verify is not None and self.compare is not None and not self.withheld:
            raise ValueError("Part.compare is only used with Part.reference")
        if self.withheld and self.verify is None:
            raise ValueError("a part whose reference is withheld checks the form of its "
                             "answers with Part.verify")
        if self.varies and self.answers is not None and not callable(self.answers):
            raise ValueError("a part that varies is judged by Part.reference, Part.verify or "
                             "a table per variant (variant_answers); a dict of Part.answers "
                             "holds one set of public answers for the class")
        if not self.varies and callable(self.answers):
            raise ValueError("Part.answers is a table per variant only for a part that varies")
        if self.verdict and self.varies and self.reference is None and not self.withheld:
            raise ValueError("a part that varies and gives a verdict is judged by "
                             "Part.reference, which says each variant's right verdicts "
                             "(or withholds it: Part.withheld, the grader's reference)")
        if self.known_verdicts is not None and not self.verdict:
            raise ValueError("Part.known_verdicts is for a part that gives verdicts "
                             "(Part.verdict)")
        tabled = self.varies and callable(self.answers)
        if self.public_points is None:
            object.__setattr__(self, "public_points", not tabled)
        elif not isinstance(self.public_points, bool):
            raise ValueError(f"Part.public_points must be a bool, got {self.public_points!r}")
        elif self.public_points and tabled:
            raise ValueError("a part judged by a table per variant (variant_answers) gives "
                             "its public cases no points: the student package holds every "
                             "variant's public answers")
        if not self.timeout > 0:
            raise ValueError(f"Part.timeout must be positive, got {self.timeout!r}")
        if not (isinstance(self.sections, tuple)
                and all(isinstance(s, str) and _LABEL.fullmatch(s) for s in self.sections)):
            raise ValueError("Part.sections must be a tuple of the book's section labels "
                             f"such as ('kt-when-kernel',), got {self.sections!r}")


# ----------------------------------------------------------------------------
# comparators: (got, expected, case) -> None when fine, else a message
# ----------------------------------------------------------------------------

def _fmt(value, limit=300):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=6, threshold=20, edgeitems=3,
                               max_line_width=100, suppress_small=True)
        text = f"array of shape {value.shape}: {text}"
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_numeric_array(value):
    """Return a numeric ndarray for numbers / arrays / nested lists of numbers, else None."""
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(value)
    if isinstance(value, (int, float, complex, np.number, np.ndarray, list, tuple)):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return None
        if arr.dtype.kind in "biufc":
            return arr
    return None


def allclose(rtol=1e-7, atol=1e-9):
    """Compare numerically: same shape first, then entries within ``atol + rtol*|expected|``."""
    if rtol < 0 or atol < 0:
        raise ValueError("allclose: rtol and atol must be non-negative")

    def compare(got, expected, case=None):
        exp = np.asarray(expected)
        arr = _as_numeric_array(got)
        if arr is None:
            kind = "nothing (None)" if got is None else f"a {type(got).__name__}: {_fmt(got)}"
            return f"expected {_fmt(expected)}, got {kind}"
        if arr.shape != exp.shape:
            return f"expected shape {exp.shape}, got {arr.shape}"
        if exp.size == 0:
            return None
        arr_f = arr.astype(complex if arr.dtype.kind == "c" or exp.dtype.kind == "c" else float)
        exp_f = exp.astype(arr_f.dtype)
        bad_nan = np.isnan(arr_f) & ~np.isnan(exp_f)
        if bad_nan.any():
            idx = tuple(int(i) for i in np.argwhere(bad_nan)[0])
            return f"got nan at index {idx} where {_fmt(exp_f[idx])} was expected"
        ok = np.isclose(arr_f, exp_f, rtol=rtol, atol=atol, equal_nan=True)
        if ok.all():
            return None
        err = np.where(ok, 0.0, np.abs(arr_f - exp_f))
        idx = np.unravel_index(int(np.argmax(np.nan_to_num(err, nan=np.inf))), err.shape)
        where = f" at index {tuple(int(i) for i in idx)}" if exp.ndim else ""
        msg = (f"{int((~ok).sum())} of {ok.size} entries differ; largest difference{where}: "
               f"expected {_fmt(exp_f[idx])}, got {_fmt(arr_f[idx])}")
        if exp.size > 1:
            msg += f"\n      expected {_fmt(exp)}\n      got      {_fmt(arr)}"
        return msg

    compare.__name__ = f"allclose(rtol={rtol}, atol={atol})"
    return compare


def _normalise_item(v):
    if isinstance(v, np.ndarray):
        return tuple(_normalise_item(x) for x in v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return tuple(_normalise_item(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(_normalise_item(x) for x in v)
    return v


def same_set():
    """Compare as collections without order or repetition (lists, tuples, sets, 1-D arrays)."""

    def compare(got, expected, case=None):
        if not isinstance(got, (list, tuple, set, frozenset, np.ndarray)):
            return f"expected a collection like {_fmt(expected)}, got {_fmt(got)}"
        try:
            g = {_normalise_item(v) for v in got}
        except TypeError as exc:
            return f"the items returned cannot be compared ({exc})"
        e = {_normalise_item(v) for v in expected}
        if g == e:
            return None
        missing, extra = sorted(map(repr, e - g)), sorted(map(repr, g - e))
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing[:10]))
        if extra:
            parts.append("unexpected " + ", ".join(extra[:10]))
        return "; ".join(parts)

    compare.__name__ = "same_set()"
    return compare


def equal():
    """Exact equality of plain values (bools, ints, strings, tuples of those)."""

    def compare(got, expected, case=None):
        if type(got) is np.bool_:
            got = bool(got)
        if isinstance(expected, bool) and type(got) is not bool:
            return f"expected the bool {expected!r}, got {_fmt(got)}"
        if _normalise_item(got) == _normalise_item(expected):
            return None
        return f"expected {_fmt(expected)}, got {_fmt(got)}"

    compare.__name__ = "equal()"
    return compare


def custom(fn, message="the answer is not right"):
    """Wrap ``fn(got, expected, case)`` returning True/False/None or a message string."""

    def compare(got, expected, case=None):
        result = fn(got, expected, case)
        if result is None or result is True:
            return None
        if result is False:
            return f"{message}: expected {_fmt(expected)}, got {_fmt(got)}"
        return str(result)

    compare.__name__ = f"custom({getattr(fn, '__name__', 'fn')})"
    return compare


# ----------------------------------------------------------------------------
# problem sets, random streams, judging
# ----------------------------------------------------------------------------

PROBLEMS = "coursecheck.problems"   # the package of the problem sets, one module psN each


def problem_module(assignment):
    """The module ``coursecheck.problems.<assignment>`` (e.g. ``"ps1"``)."""
    if not isinstance(assignment, str) or not _PS_NAME.match(assignment):
        raise ValueError(f"assignment must be a name like 'ps1', got {assignment!r}")
    try:
        return importlib.import_module(f"{PROBLEMS}.{assignment}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{PROBLEMS}.{assignment}":
            raise
        raise ValueError(f"no problem set named {assignment!r}") from exc


def get_parts(assignment):
    """Return the ``PARTS`` dict of problem set ``assignment`` (e.g. ``"ps1"``)."""
    return problem_module(assignment).PARTS


def get_part(assignment, part_id):
    """Return the :class:`Part` ``part_id`` of problem set ``assignment`` (see :func:`get_parts`)."""
    parts = get_parts(assignment)
    if part_id not in parts:
        raise ValueError(f"problem set {assignment!r} has no part {part_id!r}; "
                         f"its parts are {sorted(parts)}")
    return parts[part_id]


def scored_cases(part, outcomes):
    """The outcomes ``[(case, is_hidden, message)]`` that count towards ``part``'s points.

    Every case counts, except the public cases of a part whose public cases
    carry no points (``Part.public_points``: a part judged by a table per
    variant), whose points come from its hidden cases alone.
    """
    return [o for o in outcomes if part.public_points or o[1]]


#: What the check and the report say of a part whose public cases carry no points.
PUBLIC_UNSCORED = ("the public checks carry no points (every variant's public answers "
                   "are in the course package); the grade comes from hidden cases")


def judge_case(part, case, got):
    """Return ``None`` if ``got`` is right for ``case``, else a message saying what is wrong."""
    if part.verify is not None:
        return part.verify(got, case)
    if case.separately:   # a bug in the problem set
        raise ValueError(f"case {case.label!r} makes calls of its own (Case.separately), "
                         "which only a part judged by Part.verify can judge")
    if part.reference is not None:
        expected = part.reference(*case.args)
    elif case.label in part.answers:
        expected = part.answers[case.label]
    else:
        raise ValueError(f"no expected value for case {case.label!r} (only the public "
                         "cases are checked in the notebook)")
    compare = part.compare if part.compare is not None else allclose()
    return compare(got, expected, case)


#: The public expected values, a data file of the problem sets' package.
ANSWERS_FILE = "answers.json"


def public_answers(assignment, part_id):
    """Expected values of a part's public cases, by label, as the grader computed them.

    ``answers.json``, beside the problem sets, is written by the instructor's
    ``python -m coursegrader.tools.answers`` from the grader's reference; only
    public cases are in it.  Missing entries give an empty dict (the check then
    says so).
    """
    from .serial import decode
    try:
        table = json.loads(importlib.resources.files(PROBLEMS).joinpath(ANSWERS_FILE)
                           .read_text())
    except FileNotFoundError:
        return {}
    return {label: decode(value)
            for label, value in table.get(assignment, {}).get(part_id, {}).items()}


def variant_key(params):
    """The key of a variant's parameters in a table per variant: their JSON, keys sorted."""
    return json.dumps(params, sort_keys=True, allow_nan=False)


def variant_answers(assignment, part_id):
    """``answers(params)``: the expected values of a varying part's public cases on the
    variant ``params``, by label, for a problem set whose variants are finitely many.

    ``answers.json`` holds, for such a part, one table per variant (keyed by
    :func:`variant_key`), written as :func:`public_answers`' from the grader's
    reference.  A variant without a table gives an empty dict (the check then
    says so).
    """
    from .serial import decode

    @functools.cache
    def tables():
        try:
            table = json.loads(importlib.resources.files(PROBLEMS).joinpath(ANSWERS_FILE)
                               .read_text())
        except FileNotFoundError:
            return {}
        return table.get(assignment, {}).get(part_id, {})

    def answers(params):
        found = tables().get(variant_key(params), {})
        return {label: decode(value) for label, value in found.items()}

    answers.__name__ = f"variant_answers({assignment!r}, {part_id!r})"
    return answers


def describe(value):
    """Short readable text for a value in a report."""
    return _fmt(value)


# ---------------------------------------------------------------- for problem modules


def float_array(got, what, *, ndim=None, shape=None):
    """Return ``(array, None)`` when ``got`` is a finite float array of the given
    ``ndim`` or ``shape``, else ``(None, message)`` saying what is wrong."""
    if got is None:
        return None, f"expected {what}, got None (did you forget to return?)"
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return None, f"expected {what} as a numpy array of floats, got {type(got).__name__}"
    if ndim is not None and arr.ndim != ndim:
        return None, f"expected {what} with {ndim} axes, got shape {arr.shape}"
    if shape is not None and arr.shape != tuple(shape):
        return None, f"expected {what} of shape {tuple(shape)}, got shape {arr.shape}"
    if not np.all(np.isfinite(arr)):
        return None, f"{what} contains nan or inf"
    return arr, None


def witness_fault(got, K, name, *, tolerance):
    """``None`` when ``got`` is a unit vector a making ``a @ K @ a`` smallest (up to
    ``tolerance`` times K's largest eigenvalue), else a message saying what is
    wrong: the witness that ``name``, whose Gram matrix on a sample is ``K``, is
    not a kernel (ps1's and ps3's parts that ask for one)."""
    a, message = float_array(got, f"a vector of {len(K)} coefficients", shape=(len(K),))
    if message:
        return message
    if not abs(np.linalg.norm(a) - 1.0) <= 1e-6:
        return f"a must be a unit vector, got one of length {np.linalg.norm(a):.6g}"
    values = np.linalg.eigvalsh(K)
    value = float(a @ K @ a)
    if not value <= values[0] + tolerance * np.abs(values).max():
        return (f"sum_ij a_i a_j k(p_i, p_j) for {name} (your variant's) on these points is "
                f"{value:.6g}; a unit vector a makes it as small as {values[0]:.6g}")
    return None


def log_uniform(rng, lo, hi):
    """A number drawn uniformly on a logarithmic scale between ``lo`` and ``hi``."""
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
