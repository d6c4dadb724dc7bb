"""On the LMS zip route the student is the LMS account that handed the file in.

Canvas names each file ``<name>_[LATE_]<user id>_<submission id>_<file>``, where
``<name>`` is built from the student's display name. eve (Canvas user 11)
renames herself "Ada" and hands in a blank notebook; ada (Canvas user 10)
hands in her own work. With Canvas's gradebook CSV as the roster, each file is
its account's student; without it, the shared name takes neither file and
names them both, and a time in the names (which would pick the newest) does
not make eve's file ada's.
"""

import io
import zipfile

import pytest

from coursegrader.tools.command_input import InputError
from coursegrader.tools.lms_roster import canvas_accounts
from coursegrader.tools.lms_zip import LmsZipExtractor, plan
from lms_zips import canvas_roster, canvas_zip

CANVAS = LmsZipExtractor.named_regexp.default_value
OWNER = LmsZipExtractor.owner_regexp.default_value
LIMITS = dict(max_files=100, max_file_bytes=10 * 1024**2, max_total_bytes=50 * 1024**2)
STUDENTS = {"ada", "bob", "eve"}
ROSTER = [("Ada Example", 10, "S1", "ada"), ("Bob Example", 30, "S2", "bob"),
          ("Ada", 11, "S3", "eve")]
UPLOAD = [("ada_10_20_ps1.ipynb", b"ada's"), ("ada_11_21_ps1.ipynb", b"eve's"),
          ("ada_11_22_notes.txt", b"eve's attachment"), ("bob_30_40_ps1.ipynb", b"bob's")]


def planned(members, regexp=CANVAS, accounts=None):
    with zipfile.ZipFile(io.BytesIO(canvas_zip(members))) as zf:
        return {m.name: m for m in plan([("class.zip", zf)], named_regexp=regexp,
                                        notebooks={"ps1.ipynb"}, owner_regexp=OWNER,
                                        accounts=accounts, **LIMITS)}


@pytest.fixture
def roster(tmp_path):
    path = tmp_path / "canvas.csv"
    path.write_text(canvas_roster(ROSTER), encoding="utf-8")
    return path


def test_with_the_roster_each_file_is_its_accounts_student(roster):
    accounts, problems = canvas_accounts(roster, STUDENTS)
    assert accounts == {"10": "ada", "30": "bob", "11": "eve"} and problems == []
    got = planned(UPLOAD, accounts=accounts)
    assert {name: (m.student, m.why) for name, m in got.items()} == {
        "ada_10_20_ps1.ipynb": ("ada", ""),
        "ada_11_21_ps1.ipynb": ("eve", ""),
        "ada_11_22_notes.txt": ("eve", "does not follow the LMS's naming (named_regexp)"),
        "bob_30_40_ps1.ipynb": ("bob", ""),
    }


def test_without_the_roster_a_name_two_accounts_share_takes_neither():
    got = planned(UPLOAD)
    shared = ("the name ada is on files of 2 LMS accounts (user ids 10, 11): none taken; "
              "give the LMS's roster (ROSTER=) to tell them apart")
    assert got["ada_10_20_ps1.ipynb"].why == shared
    assert got["ada_11_21_ps1.ipynb"].why == shared
    assert got["bob_30_40_ps1.ipynb"].why == ""


def test_a_newer_time_in_the_name_does_not_make_eves_file_adas():
    stamped = (r"(?P<student_id>[^_]+)_(?P<user_id>\d+)_(?P<timestamp>\d{8}T\d{6})"
               r"_(?P<file_id>.+)\.ipynb")
    got = planned([("ada_10_20261001T120000_ps1.ipynb", b"ada's"),
                   ("ada_11_20261002T120000_ps1.ipynb", b"eve's")], regexp=stamped)
    assert all("2 LMS accounts" in m.why for m in got.values())


def test_an_account_not_in_the_roster_is_not_taken_and_is_named(roster):
    accounts, _ = canvas_accounts(roster, STUDENTS)
    got = planned([("ada_99_20_ps1.ipynb", b"?"), ("x" * 300 + "_98_1_ps1.ipynb", b"?")],
                  accounts=accounts)
    assert got["ada_99_20_ps1.ipynb"].why == "LMS user 99 (ada) is not a student of the roster"
    assert got["x" * 300 + "_98_1_ps1.ipynb"].why.startswith("LMS user 98 (xxx")


def test_without_the_roster_a_name_longer_than_the_gradebook_holds_is_skipped():
    got = planned([("x" * 300 + "_98_1_ps1.ipynb", b"?")])
    assert got["x" * 300 + "_98_1_ps1.ipynb"].why == (
        "a student id of 300 characters: longer than 128, the gradebook's limit")


def test_the_roster_names_each_row_it_cannot_use(tmp_path):
    path = tmp_path / "canvas.csv"
    path.write_text(canvas_roster([
        ("Ada Example", 10, "S1", "ada"),
        ("Ada Again", 10, "S9", "ada2"),          # one Canvas id twice
        ("Bob Example", 30, "S2", "bob"),
        ("Bob Second", 31, "bob", ""),            # bob under a second Canvas id
        ("Nobody", 40, "S4", "nobody"),           # not registered
        ("Both", 50, "eve", "ada"),               # SIS ids of two students
    ]), encoding="utf-8")
    accounts, problems = canvas_accounts(path, STUDENTS)
    assert accounts == {}
    text = "\n".join(problems)
    assert "Canvas user 10 is on lines 3, 4: none of them is used" in text
    assert "student bob is Canvas users 30, 31: none of them is used" in text
    assert "line 7: Canvas user 40 has SIS ids S4, nobody: no student of the gradebook" in text
    assert "two students of the gradebook (ada, eve)" in text


def test_a_file_that_is_not_canvass_gradebook_is_refused_naming_it(tmp_path):
    path = tmp_path / "students.csv"
    path.write_text("id,first_name\nada,Ada\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"students\.csv, line 1: no column ID"):
        canvas_accounts(path, STUDENTS)
    with pytest.raises(InputError, match="no such file"):
        canvas_accounts(tmp_path / "missing.csv", STUDENTS)
