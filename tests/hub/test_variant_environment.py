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
