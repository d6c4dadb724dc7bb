"""The grader's view of a problem set: its public parts and the course's hidden half.

A problem set's public half (function, points, description, public cases,
judging) is ``coursecheck.problems.psN``, which students have too.  The
grader's half lives in the course folder, in ``hidden/psN.py``, and never in
an installed package: ``HIDDEN`` maps each part to the generator of its hidden
cases and ``REFERENCES`` gives the reference of each part whose public half
ships only the expected values of its public cases, or withholds its
reference (``Part.withheld``: a varying part's verdicts).  :func:`graded_parts`
joins the two halves; each course's hidden modules are read once per process.

Hidden cases are drawn from a stream seeded by the course secret, the student
and the part (:func:`hidden_rng`), so each student gets their own.
"""

import dataclasses
import functools
import hashlib
import hmac
import importlib.util
from pathlib import Path

import numpy as np

from coursecheck.parts import get_parts as public_parts

__all__ = ["HIDDEN_FOLDER", "public_parts", "graded_parts", "graded_part", "hidden_module",
           "hidden_rng", "local_hidden_rng", "part_score"]

#: The course's folder of hidden halves, one ``psN.py`` per problem set.
HIDDEN_FOLDER = "hidden"


@functools.cache
def _hidden_module(course, assignment):
    path = Path(course) / HIDDEN_FOLDER / f"{assignment}.py"
    if not path.is_file():
        raise ValueError(f"no hidden half of problem set {assignment!r} in the course folder "
                         f"{course} (expected {path})")
    spec = importlib.util.spec_from_file_location(f"{HIDDEN_FOLDER}.{assignment}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hidden_module(course, assignment):
    """The module ``hidden/<assignment>.py`` of the course folder ``course`` (read once)."""
    public_parts(assignment)          # a problem set's name, and one that exists
    return _hidden_module(str(Path(course).resolve()), assignment)


@functools.cache
def _graded_parts(course, assignment):
    parts = public_parts(assignment)
    module = _hidden_module(course, assignment)
    hidden, references = module.HIDDEN, module.REFERENCES
    where = f"{course}/{HIDDEN_FOLDER}/{assignment}.py"
    if set(hidden) != set(parts):
        missing, extra = sorted(set(parts) - set(hidden)), sorted(set(hidden) - set(parts))
        raise ValueError(f"{where}: HIDDEN must name exactly the parts {sorted(parts)}; "
                         f"missing {missing}, unknown {extra}")
    answered = {pid for pid, part in parts.items()
                if part.answers is not None or part.withheld}
    if set(references) != answered:
        raise ValueError(f"{where}: REFERENCES must name exactly the parts whose public "
                         f"half gives answers or withholds its reference, "
                         f"{sorted(answered)}; got {sorted(references)}")
    unscored = sorted(pid for pid, part in parts.items()
                      if not part.public_points and hidden[pid] is None)
    if unscored:
        raise ValueError(f"{where}: the parts {unscored} score only their hidden cases "
                         "(their public cases carry no points), so HIDDEN must give them some")
    return {pid: dataclasses.replace(part, hidden=hidden[pid],
                                     **({"reference": references[pid], "answers": None,
                                         "verify": None, "withheld": False}
                                        if pid in references else {}))
            for pid, part in parts.items()}


def graded_parts(course, assignment):
    """The parts of problem set ``assignment`` with their hidden halves, ``{part id: Part}``.

    ``course`` is the course folder, whose ``hidden/<assignment>.py`` holds the
    hidden half.
    """
    public_parts(assignment)
    return _graded_parts(str(Path(course).resolve()), assignment)


def graded_part(course, assignment, part_id):
    """The part ``part_id`` of :func:`graded_parts`."""
    parts = graded_parts(course, assignment)
    if part_id not in parts:
        raise ValueError(f"problem set {assignment!r} has no part {part_id!r}; "
                         f"its parts are {sorted(parts)}")
    return parts[part_id]


def _seed(key, *fields):
    msg = "\x1f".join(str(f) for f in fields).encode()
    digest = hmac.new(key, msg, hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "big")


def hidden_rng(secret, student, assignment, part_id):
    """The grader's random stream for a student's hidden cases (HMAC of the course secret)."""
    if not secret:
        raise ValueError("secret must be a non-empty string")
    return np.random.default_rng(_seed(secret.encode(), student, assignment, part_id))


def local_hidden_rng(assignment, part_id):
    """A fixed stream for the hidden-style cases a source notebook's hidden tests run."""
    return np.random.default_rng(_seed(b"coursegrader-local", assignment, part_id))


def part_score(part, n_passed, n_run):
    """Points earned: points * passed / run, rounded to 2 decimals."""
    if n_run <= 0:
        return 0.0
    return round(float(part.points) * n_passed / n_run, 2)
