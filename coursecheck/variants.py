"""Each student's own variant of a problem set: whose it is, and its parameters.

A problem set with variants declares ``VARIANT`` in its module
(``coursecheck.problems.psN``), a :class:`Variation` whose ``draw(rng)``
returns the parameters of one variant as plain data (numbers, strings, lists
and dicts of those).  The variant of a student is drawn from a stream seeded by
:func:`variant_seed`: SHA-256 of the course, the problem set, the student id
and the student's *variant code*.  The code is a keyed digest of the course
and the student id under the course secret (the grader's
``coursegrader.judging.variants.variant_code``): this package cannot compute
it, so nobody can derive a classmate's variant from it, while a student who
has their own code computes their own variant here, offline.

Whose variant a notebook shows is established once, visibly
(:func:`current_student`): the variables ``COURSECHECK_STUDENT`` and
``COURSECHECK_VARIANT_CODE`` (which a course hub sets for its user's server),
else the file written by ``python -m coursecheck.variants ID CODE`` (or
:func:`set_student` in a cell).  In a problem set, the locked cell
``V = variant("ps1")`` prints whose variant it is and returns its parameters.

A part whose answer depends on the variant is declared ``varies=True``: its
``public``, ``reference`` or ``verify`` (and the grader's ``hidden``) take the
variant's parameters as their first argument; :func:`bind` gives the part for
one variant.  The grader never reads the variant from a notebook: it draws it
again from the student id its route established.
"""

import dataclasses
import functools
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from .parts import get_parts, problem_module

__all__ = ["Variation", "Variant", "variation", "variant_seed", "draw_variant", "bind",
           "bind_parts", "current_student", "set_student", "variant", "student_variant",
           "identity_file", "valid_student",
           "EXAMPLE", "VARIANT_CELL", "CODE_PATTERN", "plain", "outside"]

#: The grade id of the locked cell that loads the variant in a problem set.
VARIANT_CELL = "variant"
#: A variant code as students are given it: 16 hex digits in groups of four.
CODE_PATTERN = re.compile(r"^[0-9a-f]{4}(-[0-9a-f]{4}){3}$")
#: The id of the variant a notebook shows when no student has been set.
EXAMPLE = "example"
_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


@dataclass(frozen=True)
class Variation:
    """How a problem set varies: ``draw(rng)`` returns one variant's parameters.

    ``check(params)`` returns ``None`` when the intended reasoning and the
    reference hold for those parameters, else a message; the course's tests
    run it on every variant they enumerate or sample.  ``space()``, for a
    draw with finitely many outcomes, lists every variant's parameters: a
    part judged by a table per variant (``coursecheck.parts.variant_answers``)
    gets one table for each.
    """

    draw: Callable[[np.random.Generator], dict]
    check: Optional[Callable[[dict], Optional[str]]] = None
    space: Optional[Callable[[], list]] = None


@dataclass(frozen=True)
class Variant:
    """One student's variant: whose it is, its label and its parameters."""

    assignment: str
    student: str
    label: str
    params: dict


def outside(name, value, low, high):
    """None when ``value`` is a float in ``[low, high]``, else a message naming
    ``name`` (for a :class:`Variation`'s ``check``)."""
    if isinstance(value, float) and low <= value <= high:
        return None
    return f"{name} = {value!r} must be a number in [{low}, {high}]"


def plain(value, _where="the variant"):
    """``value`` as plain JSON data (NumPy numbers and arrays become floats and lists);
    raises ``TypeError`` naming where anything else was found."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float or isinstance(value, np.floating):
        value = float(value)
        if not np.isfinite(value):
            raise TypeError(f"{_where} holds {value!r}; variants hold finite numbers")
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return plain(value.tolist(), _where)
    if isinstance(value, (list, tuple)):
        return [plain(v, f"{_where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        for k in value:
            if type(k) is not str:
                raise TypeError(f"{_where} has a key {k!r}; variant keys are strings")
        return {k: plain(v, f"{_where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{_where} holds a {type(value).__name__}; a variant holds numbers, "
                    "strings, lists and dicts only")


def variation(assignment):
    """The :class:`Variation` of problem set ``assignment``, or None when it has none."""
    get_parts(assignment)
    found = getattr(problem_module(assignment), "VARIANT", None)
    if found is not None and not isinstance(found, Variation):
        raise TypeError(f"{assignment}: VARIANT must be a coursecheck.variants.Variation")
    return found


def variant_seed(course, assignment, student, code):
    """The 256-bit digest a variant is drawn from: SHA-256 of its four fields."""
    for name, value in (("course", course), ("assignment", assignment),
                        ("student", student), ("code", code)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return hashlib.sha256("\x1f".join(("variant", course, assignment, student, code))
                          .encode()).digest()


def draw_variant(assignment, student, code, *, course=None):
    """The :class:`Variant` of ``student`` (with variant code ``code``) for ``assignment``.

    Returns None when the problem set has no variants.
    """
    found = variation(assignment)
    if found is None:
        return None
    if course is None:
        from .problems import COURSE_ID as course
    digest = variant_seed(course, assignment, student, code)
    rng = np.random.default_rng(int.from_bytes(digest[:16], "big"))
    params = plain(found.draw(rng))
    if not isinstance(params, dict):
        raise TypeError(f"{assignment}: VARIANT.draw must return a dict")
    return Variant(assignment=assignment, student=student,
                   label=f"{assignment}-{digest.hex()[:8]}", params=params)


def bind(part, params):
    """``part`` for one variant: its callables with ``params`` as first argument.

    A part that does not vary is returned as it is.
    """
    if not part.varies:
        return part
    changes = {name: functools.partial(getattr(part, name), params)
               for name in ("public", "hidden", "reference", "verify")
               if getattr(part, name) is not None}
    if part.answers is not None:
        changes["answers"] = part.answers(params)
    return dataclasses.replace(part, varies=False, **changes)


def bind_parts(parts, variant):
    """Every part of ``parts`` ({id: Part}) bound to ``variant`` (a :class:`Variant`)."""
    return {pid: bind(p, variant.params) for pid, p in parts.items()}


# ----------------------------------------------------------------- whose variant


def identity_file():
    """Where :func:`set_student` keeps the student id and code (``$XDG_CONFIG_HOME``,
    else ``~/.config``, then ``coursecheck/student.json``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coursecheck" / "student.json"


def valid_student(student):
    """True when ``student`` can be a student id of the course (and is not the example's)."""
    return isinstance(student, str) and bool(_STUDENT_ID.fullmatch(student)) and student != EXAMPLE


def _checked(student, code):
    if not valid_student(student):
        raise ValueError(f"student must be your course id (letters, digits, . _ @ + -), "
                         f"got {student!r}")
    code = str(code).strip().lower()
    if not CODE_PATTERN.match(code):
        raise ValueError(f"code must be the variant code your instructor gave you, like "
                         f"'1a2b-3c4d-5e6f-7a8b', got {code!r}")
    return student, code


def set_student(student, code):
    """Remember, for this user, whose variants the notebooks show (once per course)."""
    student, code = _checked(student, code)
    path = identity_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"student": student, "code": code}, f)
    print(f"The problem sets now show the variants of {student}.")
    return student


def current_student():
    """``(student, code, where)``: whose variant to show and where that was read.

    ``(None, None, reason)`` when no student is set.
    """
    env_student = os.environ.get("COURSECHECK_STUDENT")
    env_code = os.environ.get("COURSECHECK_VARIANT_CODE")
    if env_student or env_code:
        student, code = _checked(env_student or "", env_code or "")
        return student, code, "this server's settings"
    path = identity_file()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None, None, "no student set"
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} cannot be read ({exc}); set your id again with "
                         "python -m coursecheck.variants ID CODE") from None
    student, code = _checked(data.get("student"), data.get("code", ""))
    return student, code, str(path)


def variant(assignment):
    """Print whose variant of ``assignment`` this notebook shows; return its parameters.

    The problem set's locked cell ``V = variant("psN")`` calls it.  With no
    student set, the example variant is shown, and said to be nobody's.
    """
    student, code, where = current_student()
    found = draw_variant(assignment, student or EXAMPLE, code or "")
    if found is None:
        raise ValueError(f"problem set {assignment!r} has no variants")
    if student is None:
        print(f"Variant: the example variant ({found.label}), nobody's.\n"
              "Your grade uses YOUR variant: set your id and the variant code you were\n"
              "given once, with  python -m coursecheck.variants ID CODE  in a terminal,\n"
              "then restart the kernel.")
    else:
        print(f"Variant for {student} ({found.label}), as set in {where}.")
    return found.params


def student_variant(assignment):
    """The :class:`Variant` the notebook shows (the example one when no student is set)."""
    student, code, _ = current_student()
    found = draw_variant(assignment, student or EXAMPLE, code or "")
    if found is None:
        raise ValueError(f"problem set {assignment!r} has parts that vary but no VARIANT")
    return found


def main(argv=None):
    """``python -m coursecheck.variants ID CODE``: set whose variants to show."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 0:
        student, _, where = current_student()
        print(f"Variants shown for {student} ({where})." if student else
              "No student set: python -m coursecheck.variants ID CODE")
        return 0
    if len(argv) != 2:
        print("usage: python -m coursecheck.variants ID CODE", file=sys.stderr)
        return 2
    try:
        set_student(*argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
