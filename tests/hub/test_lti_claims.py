"""LTI 1.3 launches whose claims are malformed: each refused by name, none a crash.

The platform of ``test_lti.py`` signs a launch whose claims were changed: a
claim the login reads (``iss``, ``sub``, the deployment id, the roles, the
names, the SIS id) of another JSON type than LTI 1.3 gives it, or a SIS id
with stray whitespace, a control character or a look-alike letter. Each launch
gets a 403 page that says what was wrong (no traceback), the hub's log names
the claim and why, and a classmate's account stays theirs.
"""

import contextlib
import html
import json
import re

import jwt
import pytest

from test_lti import (  # noqa: F401  (the module's fixtures: hub, platform)
    CLAIM, LEARNER, hub, hub_groups, hub_prefix, launch, lti_login, platform, refusals)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

CUSTOM, ROLES, DEPLOYMENT_ID = CLAIM + "custom", CLAIM + "roles", CLAIM + "deployment_id"


@contextlib.contextmanager
def claims_changed(platform, change):
    """The platform signs its next launches with ``change(claims)`` applied."""
    original = platform.id_token

    def id_token(hint, nonce, target):
        claims = jwt.decode(original(hint, nonce, target),
                            options={"verify_signature": False})
        change(claims)
        # signed as the JSON it is (PyJWT's encode would refuse some of these types)
        return jwt.api_jws.encode(json.dumps(claims).encode(), platform.key,
                                  algorithm="RS256", headers={"kid": platform.kid})

    platform.id_token = id_token
    try:
        yield
    finally:
        del platform.id_token


def set_claim(key, value):
    def change(claims):
        claims[key] = value
    return change


def set_sis_id(value):
    def change(claims):
        claims[CUSTOM] = {"sis_id": value}
    return change


def drop(key):
    def change(claims):
        del claims[key]
    return change


# what the platform sends -> what the hub's log says (the page says it too)
MALFORMED = [
    (set_sis_id(12345), "the claim custom_sis_id is a number, not a string"),
    (set_sis_id(["bob"]), "the claim custom_sis_id is a list, not a string"),
    (set_sis_id({"id": "bob"}), "the claim custom_sis_id is an object, not a string"),
    (set_sis_id(None), "the claim custom_sis_id is null, not a string"),
    (set_sis_id(True), "the claim custom_sis_id is a boolean, not a string"),
    (set_claim(CUSTOM, "bob"), "the claim custom is a string, not an object"),
    (set_claim(CUSTOM, ["bob"]), "the claim custom is a list, not an object"),
    # PyJWT checks sub's type itself, in the authenticator's validation
    (set_claim("sub", 42), "did not pass validation (Subject must be a string)"),
    (set_claim("sub", None), "did not pass validation (Subject must be a string)"),
    (set_claim("sub", ["b2e1d4c3-bob"]),
     "did not pass validation (Subject must be a string)"),
    (set_claim("sub", ""), "the claim 'sub' is empty"),
    (drop("sub"), "the claim 'sub' is missing"),
    (drop(CUSTOM), ("sent no 'custom_sis_id'", "it carries no student id (SIS id)")),
    (set_claim("iss", 42), "did not pass validation (Payload Issuer (iss) must be a string"),
    (set_claim(CLAIM + "context", "course-7"), "the claim context is a string, not an object"),
    (set_claim(CLAIM + "resource_link", ["link-1"]),
     "the claim resource_link is a list, not an object"),
    (set_claim(CLAIM + "message_type", 1), "the claim message_type is a number, not a string"),
    (set_claim(DEPLOYMENT_ID, ["deployment-1"]),
     "the claim deployment_id is a list, not a string"),
    (set_claim(DEPLOYMENT_ID, 1), "the claim deployment_id is a number, not a string"),
    (set_claim(ROLES, LEARNER), "the claim roles is a string, not a list"),
    (set_claim(ROLES, {"role": LEARNER}), "the claim roles is an object, not a list"),
    (set_claim(ROLES, [LEARNER, 7]), "the claim roles has a number at position 1"),
    (set_claim(ROLES, None), "the claim roles is null, not a list"),
    (set_claim("name", {"first": "Eve"}), "the claim 'name' is an object, not a string"),
    (set_claim("given_name", 3), "the claim 'given_name' is a number, not a string"),
    (set_claim("email", ["bob@uni.example"]),
     "the claim 'email' is a list, not a string"),
]
# SIS ids that are not a roster id as they are (bob's, disguised)
DISGUISED = [
    (" bob", "has whitespace at its start or end"),
    ("bob\n", "has whitespace at its start or end"),
    ("bo b", "has whitespace inside it (U+0020)"),
    ("bo\x07b", "has a control or invisible character (U+0007)"),
    ("bob\u200b", "has a control or invisible character (U+200B)"),
    ("b\u043eb", "has a character outside ASCII (U+043E CYRILLIC SMALL LETTER O)"),
    ("\uff42ob", "has a character outside ASCII (U+FF42 FULLWIDTH LATIN SMALL LETTER B)"),
]


@pytest.fixture(scope="module")
def bob_bound(hub, platform):
    """bob launched once: his account is bound to his platform user."""
    assert launch(hub, platform, "hint-bob")[1].status_code == 302
    return hub_groups(hub)


def refused_with(hub, platform, change, reason):
    """eve's launch with ``change``: refused (403) by a page and a log line with
    ``reason`` (or ``(the log's reason, the page's)``)."""
    reason, shown = reason if isinstance(reason, tuple) else (reason, reason)
    seen = len(refusals(hub))
    with claims_changed(platform, change):
        browser, done = launch(hub, platform, "hint-eve")
    assert done.status_code == 403, (reason, done.status_code, done.text[-500:])
    page = html.unescape(done.text)
    assert shown in page, (shown, page[-1500:])
    assert "Traceback" not in page
    assert browser.get(hub["url"] + "/hub/api/user").status_code == 403
    new = refusals(hub)[seen:]
    assert len(new) == 1 and reason in new[0], (reason, new)


@pytest.mark.parametrize("change, reason", MALFORMED,
                         ids=[f"{i}" for i in range(len(MALFORMED))])
def test_a_malformed_claim_is_refused_by_name(hub, platform, bob_bound, change, reason):
    refused_with(hub, platform, change, reason)


@pytest.mark.parametrize("sis_id, problem", DISGUISED, ids=[repr(s) for s, _ in DISGUISED])
def test_a_disguised_sis_id_is_refused_with_its_reason(hub, platform, bob_bound,
                                                        sis_id, problem):
    reason = f"sent custom_sis_id {sis_id!r}, which {problem}"
    seen = len(refusals(hub))
    with claims_changed(platform, set_sis_id(sis_id)):
        browser, done = launch(hub, platform, "hint-eve")
    assert done.status_code == 403, (sis_id, done.status_code)
    page = html.unescape(done.text)
    assert problem in page and "Traceback" not in page, page[-1500:]
    new = refusals(hub)[seen:]
    assert len(new) == 1 and reason in new[0], (reason, new)
    # the log line is one line: the id's control characters are escaped in it
    assert "\x07" not in (hub["state"] / "hub.log").read_text(errors="replace")


def test_no_malformed_launch_crashed_the_hub_or_touched_a_classmate(hub, platform,
                                                                    bob_bound):
    log = (hub["state"] / "hub.log").read_text(errors="replace")
    assert "Traceback" not in log and not re.search(r"\b500 (GET|POST)\b", log), \
        log[-3000:]
    assert hub_groups(hub) == bob_bound          # nobody new, bob's group as it was
    browser, done = launch(hub, platform, "hint-bob")
    assert done.status_code == 302
    assert browser.get(hub["url"] + "/hub/api/user").json()["name"] == "bob"
