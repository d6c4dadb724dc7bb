"""A submission's time: from the route, within a sane range, shown in every zone.

The pieces of :mod:`coursegrader.dating` and the gradebook's use of them, on
real files and a real (SQLite) nbgrader gradebook; the routes themselves are
played end to end in ``test_folder_exchange_dating.py`` and
``test_lms_zip_dating.py``.
"""

import datetime as dt
import os
import time

import pytest
from nbgrader.api import Gradebook

from coursegrader import dating
from coursegrader.gradebook import create_tables, grade_lines, record_dating, submission_time
from coursegrader.late_policy import CourseCalendar, LatePolicy

pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

WEST = "America/Los_Angeles"
NOW = dt.datetime(2026, 11, 20, 12, 0)


@pytest.mark.parametrize("value", [dt.datetime(1, 1, 1), dt.datetime(1970, 1, 1),
                                   dt.datetime(1999, 12, 31, 23, 59),
                                   NOW + dt.timedelta(days=2), dt.datetime(9999, 12, 31)])
def test_an_implausible_time_is_refused_naming_it(value):
    with pytest.raises(ValueError, match="the LMS's time: .* is not a plausible"):
        dating.check_time(value, "the LMS's time", now=NOW)


def test_a_plausible_time_is_taken_and_an_aware_one_turned_to_utc():
    assert dating.check_time(NOW, "t", now=NOW) == NOW
    aware = dt.datetime(2026, 11, 20, 4, 0, tzinfo=dt.timezone(dt.timedelta(hours=-8)))
    assert dating.check_time(aware, "t", now=NOW) == NOW


@pytest.mark.parametrize("text", ["0001-01-01 00:00:00", "1970-01-01 00:00:00",
                                  "9999-12-31 23:59:59"])
def test_due_dates_outside_the_years_of_a_course_are_refused_in_a_zone_west_of_utc(text):
    with pytest.raises(ValueError, match="not in the years 2000 to 2099"):
        CourseCalendar(time_zone=WEST).parse(text)


def test_a_due_date_the_clocks_show_twice_or_skip_is_refused_not_guessed():
    """In New York the clocks go back at 02:00 on 2026-11-01 (01:30 happens twice,
    an hour apart) and forward at 02:00 on 2026-03-08 (02:30 never happens): either
    is refused, saying why, rather than taken as one of them; the times around
    them, and the same times in UTC, are taken."""
    york = CourseCalendar(time_zone="America/New_York")
    with pytest.raises(ValueError, match="happens twice in America/New_York"):
        york.parse("2026-11-01 01:30:00")
    with pytest.raises(ValueError, match="never happens in America/New_York"):
        york.parse("2026-03-08 02:30:00")
    assert york.parse("2026-11-01 00:59:59") == dt.datetime(2026, 11, 1, 4, 59, 59)
    assert york.parse("2026-11-01 02:00:00") == dt.datetime(2026, 11, 1, 7, 0, 0)
    assert york.parse("2026-03-08 03:00:00") == dt.datetime(2026, 3, 8, 7, 0, 0)
    assert CourseCalendar().parse("2026-11-01 01:30:00") == dt.datetime(2026, 11, 1, 1, 30)


def test_showing_a_time_at_the_end_of_the_calendar_never_fails():
    west = CourseCalendar(time_zone=WEST)
    assert west.show(dt.datetime(1, 1, 1)) == "0001-01-01 00:00:00 UTC"
    assert CourseCalendar(time_zone="Asia/Tokyo").show(dt.datetime(9999, 12, 31, 23)) \
        == "9999-12-31 23:00:00 UTC"
    assert west.show(NOW) == f"2026-11-20 04:00:00 {WEST}"


def test_a_student_cannot_date_their_folder_back(tmp_path):
    folder = tmp_path / "ada+ps1+1970-01-01 00:00:00 UTC+x"
    (folder / "sub").mkdir(parents=True)
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(seconds=2)
    for path in (folder / "ps1.ipynb", folder / "timestamp.txt", folder / "sub" / "a"):
        path.write_text("1970-01-01 00:00:00.000000 UTC")
        os.utime(path, (0, 0))          # touch -d 1970: sets atime and mtime only
    os.utime(folder, (0, 0))
    assert os.stat(folder / "ps1.ipynb").st_mtime == 0
    assert dating.folder_time(folder) >= before
    # a later change inside makes it later, never earlier
    time.sleep(0.05)
    first = dating.folder_time(folder)
    (folder / "sub" / "a").write_text("changed")
    assert dating.folder_time(folder) > first


def test_the_claim_is_read_as_text_only_from_a_regular_file(tmp_path):
    (tmp_path / "timestamp.txt").write_text("not a date\x1b[31m" + "9" * 500)
    claim = dating.claimed_text(tmp_path / "timestamp.txt")
    assert claim.startswith("not a date\\u001b[31m") and len(claim) <= 130
    (tmp_path / "link.txt").symlink_to(tmp_path / "timestamp.txt")
    assert dating.claimed_text(tmp_path / "link.txt") is None
    os.mkfifo(tmp_path / "pipe")
    assert dating.claimed_text(tmp_path / "pipe") is None
    assert dating.claimed_text(tmp_path / "missing") is None


def test_the_collectors_account_is_written_read_and_checked(tmp_path):
    found = dating.Dating(dating.Source.FOLDER, NOW, claimed="2026-01-01", detail="x")
    dating.write(tmp_path, found)
    assert dating.read(tmp_path) == found
    assert (tmp_path / "timestamp.txt").read_text() == "2026-11-20 12:00:00.000000 UTC"
    undated = dating.Dating(dating.Source.LMS_MARKER, None, lms_late=True)
    dating.write(tmp_path, undated)
    assert dating.read(tmp_path) == undated
    # no time: nbgrader's file (which it needs to return feedback) holds the collect's
    assert (tmp_path / "timestamp.txt").read_text() > "2026-11-20 12:00:00"
    assert undated.describe().endswith("the LMS marked it late")
    (tmp_path / dating.FILE).write_text('{"version": 1, "source": "folder", '
                                        '"time": "0001-01-01T00:00:00"}')
    with pytest.raises(ValueError, match="submission_time.json: time: .* not a plausible"):
        dating.read(tmp_path)
    (tmp_path / dating.FILE).write_text('{"version": 1, "source": "student"}')
    with pytest.raises(ValueError, match="source: 'student' is not one of"):
        dating.read(tmp_path)


@pytest.fixture
def gradebook(tmp_path):
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", course_id="c") as gb:
        create_tables(gb)
        gb.add_assignment("ps1", duedate=dt.datetime(2026, 10, 5, 23, 59))
        for sid in ("ada", "bob", "cy", "dee", "eve"):
            gb.add_student(sid)
        yield gb


@pytest.mark.slow
def test_the_gradebook_keeps_the_source_and_the_lms_marker_counts(gradebook):
    gb = gradebook
    late = dt.datetime(2026, 10, 8, 0, 0)
    gb.add_submission("ps1", "ada", timestamp=late)                 # folder: 3 days late
    record_dating(gb, "ps1", "ada", dating.Dating(dating.Source.FOLDER))
    gb.add_submission("ps1", "bob", timestamp=dt.datetime(2026, 11, 25))   # Canvas: LATE_,
    # no time: nbgrader's timestamp is when the zip was collected, never used
    record_dating(gb, "ps1", "bob", dating.Dating(dating.Source.LMS_MARKER, lms_late=True))
    gb.add_submission("ps1", "cy")                                  # Canvas: on time
    record_dating(gb, "ps1", "cy", dating.Dating(dating.Source.LMS_MARKER, lms_late=False))
    gb.add_submission("ps1", "dee", timestamp=dt.datetime(2026, 10, 1))
    record_dating(gb, "ps1", "dee", dating.Dating(dating.Source.NONE))   # nobody dated it
    lines = {g.student_id: g for g in grade_lines(gb, LatePolicy(), ["ps1"])}
    assert lines["ada"].days_late == 3 and lines["ada"].timestamp == late
    assert lines["ada"].dating.source is dating.Source.FOLDER
    assert lines["bob"].days_late == 1 and lines["bob"].dated
    assert lines["bob"].timestamp is None
    assert lines["cy"].days_late == 0 and lines["cy"].dated
    assert lines["dee"].timestamp is None and not lines["dee"].dated   # said, not used
    assert lines["eve"].dating is None and lines["eve"].dated          # never handed in
    found = submission_time(gb, "ps1", "ada")
    assert found.time == late and "ctime" in found.describe()
    assert submission_time(gb, "ps1", "eve") is None


def test_through_ngshare_the_time_is_the_services_not_a_file_of_the_students():
    import base64

    from coursegrader.tools.exchange_collect import service_dating

    def encoded(text):
        return base64.encodebytes(text.encode()).decode()
    # as ngshare's collect lists them: the student's files, then the service's time
    files = [{"path": "ps1.ipynb", "content": encoded("{}")},
             {"path": "timestamp.txt", "content": encoded("2026-10-01 00:00:00.000000 UTC")},
             {"path": "timestamp.txt", "content": encoded("2026-11-20 12:00:00.000000 UTC")}]
    found = service_dating(files)
    assert found.source is dating.Source.SERVICE and found.time == NOW
    assert service_dating(files[:1]).source is dating.Source.NONE


@pytest.mark.slow
def test_the_export_tells_the_instructor_what_its_route_did_not_date(gradebook, capsys):
    from coursegrader.tools.grade_export import report_undated
    gb = gradebook
    gb.add_submission("ps1", "dee", timestamp=dt.datetime(2026, 10, 1))
    record_dating(gb, "ps1", "dee", dating.Dating(dating.Source.NONE))
    gb.add_submission("ps1", "eve", timestamp=dt.datetime(2026, 10, 1))   # no record
    gb.add_submission("ps1", "ada", timestamp=dt.datetime(2026, 10, 1))
    record_dating(gb, "ps1", "ada", dating.Dating(dating.Source.FOLDER))
    report_undated(grade_lines(gb, LatePolicy(), ["ps1"]))
    said = capsys.readouterr().err
    assert "1 submission(s) not dated, counted on time" in said
    assert "  ps1 dee: not dated: no collector of the course recorded" in said
    assert "1 submission(s) dated by the gradebook alone" in said and "  ps1 eve" in said
    assert "ada" not in said
