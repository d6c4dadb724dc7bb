"""The grader's side of per-student variants: each student's code and variant.

A student's *variant code* is a keyed digest (HMAC-SHA256) of the course and
the student id under the course secret (:func:`variant_code`); the variant of
a problem set is drawn from the course, the problem set, the student id and
that code (:func:`coursecheck.variants.draw_variant`).  The grader computes
both again from the student id its route established (the exchange folder's
owner, ngshare's user, the LMS's name of a zip member) and never reads either
from the notebook: :func:`variant_cell_source` is what the judge runs in place
of the notebook's locked cell ``V = variant("psN")``, in the kernel and in
every part's process, where ``coursecheck`` cannot be imported.
"""

import hashlib
import hmac
import json

from coursecheck.problems import COURSE_ID
from coursecheck.variants import draw_variant

__all__ = ["variant_code", "submission_variant", "variant_cell_source", "graded_on"]


def variant_code(secret, course, student):
    """The variant code of ``student`` in ``course``: 16 hex digits in groups of four."""
    if not secret:
        raise ValueError("secret must be a non-empty string")
    for name, value in (("course", course), ("student", student)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    digest = hmac.new(secret.encode(), "\x1f".join(("variant-code", course, student)).encode(),
                      hashlib.sha256).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


def submission_variant(secret, assignment, student):
    """The :class:`~coursecheck.variants.Variant` ``student`` is graded on, or None
    when ``assignment`` has no variants.

    The course is the one the student package names
    (``coursecheck.problems.COURSE_ID``), so that a student's own computation
    of their variant and the grader's agree.
    """
    return draw_variant(assignment, student, variant_code(secret, COURSE_ID, student),
                        course=COURSE_ID)


def variant_cell_source(variant):
    """The code run in place of the variant cell: ``V`` as the grader drew it."""
    data = json.dumps(variant.params, allow_nan=False, sort_keys=True)
    said = f"Variant for {variant.student} ({variant.label}), as the grader drew it."
    return (f"import json as _json\nV = _json.loads({data!r})\ndel _json\n"
            f"print({said!r})\n")


def graded_on(variant):
    """The line a varying part's report ends with."""
    return f"Graded on the variant of {variant.student} ({variant.label})."
