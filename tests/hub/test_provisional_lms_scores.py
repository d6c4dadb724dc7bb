"""`make lti_scores` with a written part not graded yet, against a real LTI platform.

The platform of ``tests/test_lti.py`` (an LTI 1.3 platform on 127.0.0.1 that
grants tokens for the tool's key and records the line items and scores it
receives) and its graded course; here bob's written answer is put back to
"needs grading by hand". Nothing may reach the LMS until it is graded or the
instructor says ``FORCE=1``; then bob's score goes as ``PendingManual`` (the
LMS shows it as not final) and ada's, graded in full, as ``FullyGraded``.
"""

import json

import pytest
from nbgrader.api import Gradebook

from test_lti import course, graded_course, make, platform  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def test_scores_wait_for_grading_by_hand_or_go_as_provisional(course, platform):  # noqa: F811
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        grade = gb.find_grade("answer", "ps1", "ps1", "bob")
        grade.manual_score, grade.needs_manual_grade = None, True
        gb.db.commit()
    keys = make(course, "lti_key")
    assert keys.returncode == 0, keys.stderr
    platform.tool_jwks = json.loads(keys.stdout[keys.stdout.index("{"):])
    platform.lineitems.clear()
    platform.scores.clear()

    done = make(course, "lti_scores", "PS=ps1")
    assert done.returncode != 0
    assert "  bob, ps1, answer" in done.stderr and "ada, ps1" not in done.stderr
    assert platform.scores == [] and platform.lineitems == []   # the LMS saw nothing

    done = make(course, "lti_scores", "PS=ps1", "FORCE=1")
    assert done.returncode == 0, done.stdout + done.stderr
    got = {s["userId"]: s for _, s in platform.scores}
    assert got["a1f0c3d2-ada"]["gradingProgress"] == "FullyGraded"
    assert got["a1f0c3d2-ada"]["scoreGiven"] == 8                # unchanged
    assert got["b2e1d4c3-bob"]["gradingProgress"] == "PendingManual"
    assert got["b2e1d4c3-bob"]["scoreGiven"] == 0
