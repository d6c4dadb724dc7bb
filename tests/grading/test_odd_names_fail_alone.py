"""A name no later step can read, or a folder nbgrader submit did not make, fails
that one submission, never the class: collect leaves the student's previous
submission as it was, autograde and the release of feedback go on for everyone
else and name what they left out.

One account plays every student (the owner check off, as in a dry run)."""

import os
from pathlib import Path

import pytest

from coursegrader import dating
from coursegrader.tools import batch
from coursegrader.tools.course import Course

COURSE = Path(__file__).resolve().parents[2] / "assignments"
PS = "ps1"
NOT_UTF8 = os.fsdecode(b"\xff\xfe")


@pytest.fixture
def collected(slow, tmp_path):
    c = Course.copy_of(COURSE, tmp_path / "course", exchange=tmp_path / "exchange",
                       assignments=[PS])
    c.nbgrader("generate_assignment", PS)
    c.nbgrader("release_assignment", PS)
    for student in ("ada", "bob", "cy"):
        c.student(student, "fetch_assignment", PS)
        c.student(student, "submit", PS)
    inbound = c.exchange / c.course_id / "inbound"
    bob, = inbound.glob(f"bob+{PS}+*")
    (bob / NOT_UTF8).write_text("hi")                 # a file no later step can name
    assert c.nbgrader("collect", PS, check=False) == 0
    return c, inbound


def test_a_file_whose_name_is_not_utf8_is_left_out_and_the_rest_collected(collected):
    c, _ = collected
    assert sorted(p.name for p in (c.root / "submitted").iterdir()) == ["ada", "bob", "cy"]
    assert os.listdir(c.root / "submitted" / "bob" / PS).count(NOT_UTF8) == 0
    # and one that got there another way does not stop the grader's bookkeeping
    (c.root / "submitted" / "ada" / PS / NOT_UTF8).write_text("hi")
    assert len(batch._digest(c.root / "submitted" / "ada" / PS)) == 16


def test_a_later_folder_with_a_name_not_utf8_keeps_the_previous_submission(collected, capfd):
    c, inbound = collected
    before = dating.read(c.root / "submitted" / "cy" / PS)
    cy, = inbound.glob(f"cy+{PS}+*")
    late = inbound / f"cy+{PS}+2026-01-01 00:00:00.000000 UTC+{NOT_UTF8}"
    late.mkdir()
    (late / f"{PS}.ipynb").write_bytes((cy / f"{PS}.ipynb").read_bytes())
    capfd.readouterr()
    assert c.nbgrader("collect", PS, "--update", check=False) != 0
    said = capfd.readouterr().err
    assert "its name is not UTF-8" in said
    kept = c.root / "submitted" / "cy" / PS
    assert dating.read(kept) == before and (kept / f"{PS}.ipynb").is_file()
    assert not [p for p in kept.parent.iterdir() if p.name.startswith(".")]


def test_feedback_is_released_to_everyone_but_a_folder_made_by_hand(collected, capfd):
    c, _ = collected
    for student in ("ada", "bob", "cy"):
        page = c.root / "feedback" / student / PS
        page.mkdir(parents=True)
        (page / f"{PS}.html").write_text(f"<p>feedback for {student}</p>")
        for name in ("timestamp.txt", "submission_secret.txt"):
            if not (student == "ada" and name == "submission_secret.txt"):
                (page / name).write_bytes(
                    (c.root / "submitted" / student / PS / name).read_bytes())
    capfd.readouterr()
    assert c.nbgrader("release_feedback", PS, check=False) != 0
    said = capfd.readouterr().err
    assert "feedback not released for 'ada'" in said
    released = list((c.exchange / c.course_id / "feedback").glob("*.html"))
    assert len(released) == 2           # bob's and cy's, whichever order they came in
    assert sorted(p.read_text() for p in released) == ["<p>feedback for bob</p>",
                                                        "<p>feedback for cy</p>"]


def test_a_folder_nested_a_thousand_deep_fails_alone(collected, capfd):
    """A student's inbound folder with folders nested 1100 deep (deeper than
    Python's recursion limit) is refused, naming it; the class is collected."""
    c, inbound = collected
    bob, = inbound.glob(f"bob+{PS}+*")
    deep = bob
    for _ in range(1100):            # one level at a time: os.makedirs recurses
        deep = deep / "d"
        deep.mkdir()
    (c.root / "submitted").rename(c.root / "submitted-before")
    capfd.readouterr()
    try:
        status = c.nbgrader("collect", PS, check=False)
    finally:   # removed level by level: shutil.rmtree recurses, as collect once did
        while deep != bob:
            os.rmdir(deep)
            deep = deep.parent
    assert status != 0
    said = capfd.readouterr().err
    assert f"'{bob.name}': refused" in said and "nested deeper than" in said
    assert "Traceback" not in said
    assert sorted(p.name for p in (c.root / "submitted").iterdir()) == ["ada", "cy"]
