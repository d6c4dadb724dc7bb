"""Accounts bound to their LMS users before term, from the LMS's own roster.

Without it the first launch binds an account (trust on first use): a learner
who puts a classmate's SIS id in the field before the classmate's first launch
takes the account. Here the instructor saves the LMS course's members with
``make lti_roster`` (Names and Role Provisioning, fetched from the platform of
``test_lti.py`` with the tool's key), the hub's administrator binds the accounts
with ``deploy/hub.py lti-bind``, and the impostor who launches first with a
classmate's SIS id is refused; the classmate then logs in.
"""

import json
import subprocess
import sys

import pytest

from test_lti import (  # noqa: F401  (the module's fixtures: hub, platform, graded_course)
    DEPLOY, PEOPLE, course, graded_course, hub, hub_groups, hub_prefix, launch,
    lti_login, make, platform, refusals)

pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]
SETTINGS = {"course_id": "kernel-methods", "instructors": ["teacher"],
            "students": ["ada", "bob"],
            "lti": {"issuer": "https://lms.example.edu", "deployment_id": ["deployment-1"]}}


def lti_bind(hub, roster, *args):
    return subprocess.run([sys.executable, str(DEPLOY / "hub.py"), "lti-bind",
                           str(hub["state"]), str(roster), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_prebound_account_refuses_the_impostor_who_launches_first(hub, platform,
                                                                    course):
    keys = make(course, "lti_key")
    assert keys.returncode == 0, keys.stderr
    platform.tool_jwks = json.loads(keys.stdout[keys.stdout.index("{"):])
    saved = make(course, "lti_roster")
    assert saved.returncode == 0, saved.stdout + saved.stderr
    roster = course / "lti-roster.json"
    assert oct(roster.stat().st_mode & 0o077) == "0o0"        # the instructor's alone
    members = json.loads(roster.read_text())
    assert members["issuer"] == platform.url
    assert {m["user_id"] for m in members["members"]} == {
        sub for sub, *_ in PEOPLE.values()}

    done = lti_bind(hub, roster)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bound 3 account(s)" in done.stdout, done.stdout
    # dan is a learner of the LMS course with no account on this server
    assert "with no account here: dan" in done.stdout
    assert not any(hub_groups(hub).values())    # nobody has launched yet

    # eve launches first, with bob's SIS id in her field
    before = len(refusals(hub))
    browser, done = launch(hub, platform, "hint-eve")
    assert done.status_code == 403
    assert browser.get(hub["url"] + "/hub/api/user").status_code == 403
    assert ("account 'bob' belongs to the platform user 'b2e1d4c3-bob'"
            in refusals(hub)[before]), refusals(hub)[before:]
    assert not hub_groups(hub)["bob"]       # the account has not logged in
    # bob then logs in, and the log has no first-launch binding for him
    browser, done = launch(hub, platform, "hint-bob")
    assert done.status_code == 302, done.text
    assert browser.get(hub["url"] + "/hub/api/user").json()["name"] == "bob"
    assert hub_groups(hub)["bob"] == {"kernel-methods-students"}
    log = (hub["state"] / "hub.log").read_text(errors="replace")
    assert "LTI first launch of 'bob'" not in log

    # again: nothing changes, the bindings are the LMS's already
    again = lti_bind(hub, roster)
    assert again.returncode == 0 and "3 were bound to them already" in again.stdout


def test_a_roster_file_from_the_lms_binds_what_it_can_and_lists_the_rest(lti_login,
                                                                         tmp_path):
    """A CSV export (user_id, sis_id): each row bound or listed with its reason."""
    settings = SETTINGS
    record = lti_login.LaunchRecord(tmp_path / "launches.sqlite")
    record.bind("teacher", settings["lti"]["issuer"], "deployment-1", "someone-else")
    roster = tmp_path / "roster.csv"
    roster.write_text("user_id,sis_id,name\n"
                      "sub-ada,ada,Ada\n"
                      "sub-bob, bob,Bob\n"                 # stray space
                      "sub-x,b\u043eb,Bob look-alike\n"    # Cyrillic o
                      "sub-carol,carol,Carol\n"            # no account here
                      "sub-tea,teacher,Tea\n"              # bound to another already
                      ",ada,No id\n", encoding="utf-8")
    bound, already, absent, problems = lti_login.prebind(settings, roster, record)
    assert bound == ["ada"] and already == []
    assert absent == ["carol (the platform user 'sub-carol')"]
    text = "\n".join(problems)
    assert len(problems) == 4, text
    assert "SIS id ' bob' of the platform user 'sub-bob' has whitespace" in text
    assert "U+043E CYRILLIC SMALL LETTER O" in text
    assert "account 'teacher' belongs to the platform user 'someone-else'" in text
    assert "user_id '' is not the platform's user id" in text
    with pytest.raises(ValueError, match="belongs to the platform user 'sub-ada'"):
        record.bind("ada", settings["lti"]["issuer"], "deployment-1", "sub-eve")
    # a file that is not a roster is named, and nothing is bound
    (tmp_path / "bad.csv").write_text("id,name\nada,Ada\n")
    with pytest.raises(ValueError, match="bad.csv: expected a CSV file with the "
                                         "columns user_id"):
        lti_login.prebind(settings, tmp_path / "bad.csv", record)
    other = {"issuer": "https://elsewhere.example", "members": []}
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="the roster is from the platform "
                                         "'https://elsewhere.example'"):
        lti_login.prebind(settings, tmp_path / "other.json", record)
    record.close()


def test_an_sis_id_two_members_hold_binds_neither_and_roles_must_match(lti_login,
                                                                       tmp_path):
    """eve typed bob's SIS id into her LMS profile before the roster was saved,
    and comes first in it: neither she nor bob is bound (bob's first launch
    binds bob). A learner holding the instructor's SIS id, and an instructor
    holding a student's, are not bound either: the account's role here must be
    the member's role in the LMS course."""
    learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    instructor = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
    members = [("sub-eve", "bob", learner), ("sub-bob", "bob", learner),
               ("sub-ada", "ada", instructor), ("sub-mal", "teacher", learner),
               ("sub-tea", "teacher", instructor)]
    roster = tmp_path / "lti-roster.json"
    roster.write_text(json.dumps({"issuer": SETTINGS["lti"]["issuer"], "members": [
        {"user_id": sub, "lis_person_sourcedid": sis, "roles": [role], "status": "Active"}
        for sub, sis, role in members]}))
    record = lti_login.LaunchRecord(tmp_path / "launches.sqlite")
    bound, already, absent, problems = lti_login.prebind(SETTINGS, roster, record)
    text = "\n".join(problems)
    assert bound == [] and already == [] and absent == [], (bound, text)
    assert "SIS id 'bob' is held by 2 platform users ('sub-eve', 'sub-bob'): none bound" in text
    assert "SIS id 'teacher' is held by 2 platform users" in text
    assert ("the platform user 'sub-ada' is an instructor in the LMS course, and account "
            "'ada' is a student here; not bound") in text
    # bob's own first launch binds him; eve's is refused
    assert record.bind("bob", SETTINGS["lti"]["issuer"], "deployment-1", "sub-bob")
    with pytest.raises(ValueError, match="belongs to the platform user 'sub-bob'"):
        record.bind("bob", SETTINGS["lti"]["issuer"], "deployment-1", "sub-eve")
    record.close()
