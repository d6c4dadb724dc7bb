"""The hub gives a student's server their variant code, read from the course
folder's ``variant_codes.csv`` (no hub runs here: the spawner's function alone)."""

import os
import pwd
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

import roles  # noqa: E402


def _settings(course):
    me = pwd.getpwuid(os.getuid()).pw_name
    return {"course_dirs": {me: str(course)}}


def test_a_students_code_reaches_their_server_and_no_one_elses(tmp_path):
    (tmp_path / "variant_codes.csv").write_text(
        "student_id,code,notebook_cell\n"
        "alice,0123-4567-89ab-cdef,\"set_student('alice', '0123-4567-89ab-cdef')\"\n"
        "bob,not-a-code,x\n")
    settings = _settings(tmp_path)
    assert roles.variant_environment(settings, "alice") == {
        "COURSECHECK_STUDENT": "alice", "COURSECHECK_VARIANT_CODE": "0123-4567-89ab-cdef"}
    assert roles.variant_environment(settings, "bob") == {}      # a malformed code
    assert roles.variant_environment(settings, "carol") == {}    # not in the file


def test_a_link_or_a_missing_file_gives_no_code(tmp_path):
    assert roles.variant_environment(_settings(tmp_path), "alice") == {}
    real = tmp_path / "elsewhere.csv"
    real.write_text("student_id,code\nalice,0123-4567-89ab-cdef\n")
    (tmp_path / "variant_codes.csv").symlink_to(real)
    assert roles.variant_environment(_settings(tmp_path), "alice") == {}


def test_every_problem_set_shows_the_hub_users_own_variant(tmp_path, monkeypatch, capsys):
    """The code the hub gives alice's server, from the file ``make variant_codes``
    writes, makes each problem set's variant cell show alice's variant, the one the
    grader draws for her from the course secret, and bob's server bob's."""
    from coursecheck.problems import COURSE_ID
    from coursecheck.variants import variant
    from coursegrader.judging.variants import submission_variant, variant_code

    secret = "hub-variants-secret"
    (tmp_path / "variant_codes.csv").write_text("student_id,code,notebook_cell\n" + "".join(
        f"{s},{variant_code(secret, COURSE_ID, s)},\n" for s in ("alice", "bob")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    shown = {}
    for who in ("alice", "bob"):
        env = roles.variant_environment(_settings(tmp_path), who)
        assert env["COURSECHECK_STUDENT"] == who
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
            graders = submission_variant(secret, ps, who)
            assert variant(ps) == graders.params, (who, ps)
            said = capsys.readouterr().out
            assert said.startswith(f"Variant for {who} ({graders.label}), as set in "
                                   "this server's settings."), said
            shown[(who, ps)] = graders.label
    assert all(shown[("alice", ps)] != shown[("bob", ps)]
               for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"))
