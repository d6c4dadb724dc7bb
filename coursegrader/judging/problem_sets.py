"""The grader's view of a problem set: public parts plus their hidden cases.

A problem set's public half (function, points, description, public cases,
judging) is ``coursecheck.problems.psN``; ``coursegrader.problems.psN`` adds
the generator of each part's hidden cases with :func:`with_hidden`.  Hidden
cases are drawn from a stream seeded by the course secret, the student and the
part (:func:`hidden_rng`), so each student gets their own.
"""

import dataclasses
import hashlib
import hmac

import numpy as np

import coursecheck.parts

__all__ = ["with_hidden", "get_parts", "get_part", "hidden_rng", "local_hidden_rng",
           "part_score"]

def with_hidden(parts, hidden, **replace):
    """Copy of the public ``parts`` with ``hidden[part_id]`` as each part's hidden cases.

    ``replace`` maps a part id to a dict of further fields to replace (for a
    reference that must not ship, such as an answer key).  Every part needs a
    generator, and no generator may name an unknown part.
    """
    if set(hidden) != set(parts):
        missing, extra = sorted(set(parts) - set(hidden)), sorted(set(hidden) - set(parts))
        raise ValueError(f"hidden cases must be given for exactly the parts {sorted(parts)}; "
                         f"missing {missing}, unknown {extra}")
    unknown = sorted(set(replace) - set(parts))
    if unknown:
        raise ValueError(f"replace names unknown parts {unknown}")
    return {pid: dataclasses.replace(part, hidden=hidden[pid], **replace.get(pid, {}))
            for pid, part in parts.items()}


def get_parts(assignment):
    """Return the grader's ``PARTS`` dict (with hidden cases) of problem set ``assignment``."""
    return coursecheck.parts.get_parts(assignment, package="coursegrader.problems")


def get_part(assignment, part_id):
    """Return the grader's part ``part_id`` of problem set ``assignment``."""
    return coursecheck.parts.get_part(assignment, part_id, package="coursegrader.problems")


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
