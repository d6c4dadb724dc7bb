"""Scores back to the LMS through LTI Assignment and Grade Services (pylti1p3).

Run by the instructor in the course folder, after grading (``make lti_scores
PS=ps1``). Each problem set becomes a line item of the LMS course (found by its
tag, the problem set's name, or created with the problem set's maximum), and
each student's score is the one ``make export`` writes: the gradebook's points
less the late penalty from the student's own due date
(:func:`coursegrader.gradebook.grade_lines`).

Students are found in the LMS course with the Names and Role Provisioning
Service: a gradebook student id is matched to a member's ``match`` field
(default ``lis_person_sourcedid``, the id the hub's LTI login uses as the user
name; or ``user_id``, or ``email``, matched to the gradebook's email). Members
who are learners but not in the gradebook, and gradebook students not in the
LMS course, are listed on the terminal and in ``lti-<ps>-unmatched.txt``; they
get no score.

The tool's settings are in ``lti.json`` in the course folder (``--config``)::

    {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
     "token_url": "https://canvas.example.edu/login/oauth2/token",
     "lineitems_url": "https://canvas.example.edu/api/lti/courses/7/line_items",
     "memberships_url":
         "https://canvas.example.edu/api/lti/courses/7/names_and_roles",
     "private_key": "lti-key.pem"}

optional: ``"token_audience"`` (the ``aud`` of the signed request for a token,
default ``token_url``), ``"match"``. The private key signs the tool's requests
for an access token; the LMS checks them with the tool's public key, printed
by ``python -m coursegrader.tools.lti_scores keygen`` (which writes the key first if
it does not exist).

Nothing is sent while a submission of the problem sets has parts still to be
graded by hand (they are listed); with ``--force`` (``make lti_scores
FORCE=1``) those scores go as provisional: grading progress ``PendingManual``,
which the LMS shows as not yet final.  A submission that failed to grade
goes as 0 with a comment saying why (never an earlier submission's grade);
each is listed, and the command exits 1.

    python -m coursegrader.tools.lti_scores send [--config lti.json] [--force] ps1 [ps2 ...]
    python -m coursegrader.tools.lti_scores keygen [--config lti.json]
    python -m coursegrader.tools.lti_scores roster [--config lti.json] [--out lti-roster.json]

``roster`` (``make lti_roster``) saves the LMS course's members as Names and
Role Provisioning gives them (each with the platform's ``user_id`` and the
``lis_person_sourcedid``), with the issuer they are from: the file the hub's
``deploy/hub.py lti-bind`` reads to bind each account to its LMS user before
term.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector

from ..gradebook import (GradeLine, grade_lines, half_graded_refusal, open_gradebook,
                         ungraded_parts)
from ..late_policy import LatePolicy
from ..settings import private_files
from .command_input import InputError, load_config
from .grade_export import report_not_graded, report_unmatched

__all__ = ["REQUIRED", "MATCH_FIELDS", "load_settings", "keygen", "public_jwks",
           "fetch_members", "send_scores", "main"]

REQUIRED = {
    "issuer": "the platform's issuer (iss)",
    "client_id": "the client id the LMS gave the tool",
    "token_url": "the LMS's OAuth2 access token URL",
    "lineitems_url": "the course's AGS line items URL",
    "memberships_url": "the course's Names and Role Provisioning URL",
    "private_key": "the tool's private key file (PEM), relative to the course folder",
}
OPTIONAL = ("token_audience", "match")
MATCH_FIELDS = ("lis_person_sourcedid", "user_id", "email")
AGS_SCOPES = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
              "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
              "https://purl.imsglobal.org/spec/lti-ags/scope/score"]
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def load_settings(path: Path) -> dict:
    """The tool's settings from ``path``; InputError names the file and field."""
    if not path.is_file():
        raise InputError([f"{path}: no such file (the LTI settings, see "
                          f"python -m coursegrader.tools.lti_scores --help)"])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError([f"{path}, line {exc.lineno}: not JSON ({exc.msg})"]) from None
    if not isinstance(data, dict):
        raise InputError([f"{path}: expected a JSON object with the fields "
                          f"{', '.join(REQUIRED)}"])
    problems = [f"{path}: field {field!r} missing or empty ({meaning})"
                for field, meaning in REQUIRED.items()
                if not isinstance(data.get(field), str) or not data[field].strip()]
    for field in ("token_url", "lineitems_url", "memberships_url", "token_audience"):
        value = data.get(field)
        if isinstance(value, str) and value and not value.startswith(("https://",
                                                                      "http://")):
            problems.append(f"{path}: field {field!r} is not an http(s) URL: {value!r}")
    data.setdefault("match", MATCH_FIELDS[0])
    if data["match"] not in MATCH_FIELDS:
        problems.append(f"{path}: field 'match' is {data['match']!r}; expected one of "
                        f"{', '.join(MATCH_FIELDS)}")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        problems.append(f"{path}: unknown field(s) {', '.join(unknown)} (known: "
                        f"{', '.join(list(REQUIRED) + list(OPTIONAL))})")
    if problems:
        raise InputError(problems)
    data["private_key"] = str(path.parent / data["private_key"])
    return data


def keygen(key_file: Path) -> None:
    """Write a new RSA private key to ``key_file`` (readable by its owner only)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM,
                            serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)


def _keys(settings: dict) -> tuple[str, str]:
    path = Path(settings["private_key"])
    if not path.is_file():
        raise InputError([f"{path}: no such file (field 'private_key'; "
                          f"python -m coursegrader.tools.lti_scores keygen writes one)"])
    pem = path.read_bytes()
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except ValueError:
        raise InputError([f"{path}: not an unencrypted PEM private key (field "
                          f"'private_key')"]) from None
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return pem.decode(), public.decode()


def _registration(settings: dict) -> Registration:
    private, public = _keys(settings)
    reg = (Registration().set_issuer(settings["issuer"])
           .set_client_id(settings["client_id"])
           .set_auth_token_url(settings["token_url"])
           .set_tool_private_key(private).set_tool_public_key(public))
    if settings.get("token_audience"):
        reg.set_auth_audience(settings["token_audience"])
    return reg


def public_jwks(settings: dict) -> dict:
    """The tool's public keyset (JWKS), as the LMS is given it."""
    return {"keys": _registration(settings).get_jwks()}


def _member_key(member: dict, match: str) -> str | None:
    value = member.get(match)
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower() if match == "email" else value.strip()


def _line_key(line: GradeLine, match: str) -> str | None:
    if match == "email":
        return line.email.strip().lower() if line.email else None
    return line.student_id


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def fetch_members(settings: dict) -> list[dict]:
    """The LMS course's members, as Names and Role Provisioning gives them."""
    connector = ServiceConnector(_registration(settings))
    return NamesRolesProvisioningService(
        connector, {"context_memberships_url": settings["memberships_url"]}
    ).get_members()


def send_scores(settings: dict, lines: list[GradeLine], assignments: list[str]
                ) -> dict[str, tuple[int, list[str], list[str]]]:
    """Send every matched student's score of ``assignments`` to the LMS.

    Returns, per problem set, (scores sent, learners in the LMS not in the
    gradebook, gradebook students not in the LMS).
    """
    connector = ServiceConnector(_registration(settings))
    match = settings["match"]
    members = fetch_members(settings)
    by_key = {}
    for m in members:
        key = _member_key(m, match)
        if key is not None and m.get("status", "Active") == "Active":
            by_key[key] = m
    ags = AssignmentsGradesService(connector, {"scope": AGS_SCOPES,
                                               "lineitems": settings["lineitems_url"],
                                               "lineitem": ""})
    now = _iso(dt.datetime.now(dt.timezone.utc))
    results = {}
    for ps in assignments:
        mine = [g for g in lines if g.assignment == ps]
        maximum = max((g.max_score for g in mine), default=0.0)
        item = ags.find_or_create_lineitem(
            LineItem().set_tag(ps).set_label(ps).set_resource_id(ps)
            .set_score_maximum(maximum))
        sent, absent, seen = 0, [], set()
        for g in mine:
            key = _line_key(g, match)
            member = by_key.get(key) if key else None
            if member is None:
                absent.append(f"{g.student_id} (no LMS member with {match} "
                              f"{key or '(none)'})")
                continue
            seen.add(key)
            progress = "Submitted" if g.timestamp else "Initialized"
            grade = (Grade().set_user_id(member["user_id"])
                     .set_score_given(round(g.score, 2)).set_score_maximum(maximum)
                     .set_timestamp(now).set_activity_progress(progress)
                     .set_grading_progress("PendingManual" if g.provisional
                                           else "FullyGraded"))
            if g.failed is not None:
                grade.set_comment(f"not graded: {g.failed}"[:1000])
            elif g.penalty:
                grade.set_comment(f"late penalty {round(g.penalty, 2):g} points "
                                  f"({g.days_late} day(s) late)")
            ags.put_grade(grade, item)
            sent += 1
        unknown = sorted(f"{m.get('name') or m['user_id']} ({match} {key})"
                         for key, m in by_key.items()
                         if key not in seen and LEARNER in (m.get("roles") or []))
        results[ps] = (sent, unknown, absent)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursegrader.tools.lti_scores",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    send = sub.add_parser("send", help="send the scores of problem sets to the LMS")
    send.add_argument("assignments", nargs="+", help="problem sets, e.g. ps1")
    send.add_argument("--force", action="store_true",
                      help="send even while parts still need grading by hand, as "
                           "provisional scores (PendingManual)")
    keys = sub.add_parser("keygen", help="write the tool's key if missing, print its "
                          "public keyset (JWKS) for the LMS")
    roster = sub.add_parser("roster", help="save the LMS course's members (Names and Role "
                            "Provisioning) for the hub's lti-bind")
    roster.add_argument("--out", type=Path, default=Path("lti-roster.json"))
    for p in (send, keys, roster):
        p.add_argument("--config", type=Path, default=Path("lti.json"))
    args = parser.parse_args(argv)
    try:
        settings = load_settings(args.config)
        if args.command == "keygen":
            if not Path(settings["private_key"]).exists():
                keygen(Path(settings["private_key"]))
                print(f"wrote {settings['private_key']}", file=sys.stderr)
            print(json.dumps(public_jwks(settings), indent=1))
            return 0
        if args.command == "roster":
            members = fetch_members(settings)
            args.out.write_text(json.dumps(
                {"issuer": settings["issuer"], "memberships_url": settings["memberships_url"],
                 "fetched": _iso(dt.datetime.now(dt.timezone.utc)), "members": members},
                indent=1))
            print(f"wrote {args.out}: {len(members)} member(s) of the LMS course; the hub's "
                  f"administrator binds the accounts with: python deploy/hub.py lti-bind "
                  f"STATE {args.out.resolve()}")
            return 0
        config = load_config()
        policy = LatePolicy(config=config)
        with open_gradebook(config) as gb:
            known = sorted(a.name for a in gb.assignments)
            wrong = [ps for ps in args.assignments if ps not in known]
            if wrong:
                raise InputError([f"PS: no problem set {ps!r} in the gradebook (it has "
                                  f"{', '.join(known) or 'none'})" for ps in wrong])
            ungraded = ungraded_parts(gb, args.assignments)
            if ungraded and not args.force:
                print(half_graded_refusal(ungraded, "no scores sent to the LMS",
                                          "send them as provisional with FORCE=1 "
                                          "(make lti_scores FORCE=1)"), file=sys.stderr)
                return 1
            lines = grade_lines(gb, policy, args.assignments)
        results = send_scores(settings, lines, args.assignments)
    except InputError as exc:
        exc.report()
        return 2
    except LtiServiceException as exc:
        print(f"error: the LMS refused a request: {exc}", file=sys.stderr)
        return 3
    except LtiException as exc:
        print(f"error: LTI: {exc}", file=sys.stderr)
        return 3
    for ps, (sent, unknown, absent) in results.items():
        report_unmatched(Path(f"lti-{ps}.txt"), unknown, absent, "the LMS course")
        print(f"{ps}: sent {sent} score(s) to the LMS's line item {ps!r}, after the "
              f"late policy")
    return 1 if report_not_graded(Path("lti-scores.txt"), lines) else 0


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    sys.exit(main())
