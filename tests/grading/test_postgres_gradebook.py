"""The whole nbgrader cycle with the gradebook on a real PostgreSQL server, graded in parallel.

A throw-away PostgreSQL server (see pgserver.py) holds the gradebook; the
course reads its URL from ``NBGRADER_DB_URL`` as an instructor would set it.
Three students fetch, fill in and submit ps1 through nbgrader's exchange; the
instructor collects, grades with two worker processes at once
(coursegrader.tools.batch), writes feedback and exports the grades.
"""

import csv
import os

import nbformat
import pytest
import sqlalchemy

from coursegrader.tools import batch
from coursegrader.tools.course import answer_cell_ids, fill_answers
from coursegrader.judging.problem_sets import graded_parts
from conftest import COURSE, copy_course

PS = "ps1"
STUDENTS = {"alice": "solution", "bob": "blank", "carol": "partial"}

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


@pytest.fixture(scope="module")
def db_url(slow, postgres):
    with postgres() as url:
        yield url


def submit_all(course, kinds):
    for student, kind in kinds.items():
        course.student(student, "fetch_assignment", PS)
        path = course.student_notebook_path(student, PS)
        fetched = nbformat.read(path, as_version=4)
        if kind == "solution":
            nb = fill_answers(fetched, course.source(PS))
            # graded for 20 s whatever the load: the other grader grades the
            # others meanwhile, so both write at once
            nb.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(20)"))
        elif kind == "partial":
            nb = fill_answers(fetched, course.source(PS), ids=answer_cell_ids(fetched)[:1])
        else:
            nb = fetched
        nbformat.write(nb, path)
        course.student(student, "submit", PS)


def test_whole_cycle_in_parallel_on_postgresql(tmp_path, db_url, monkeypatch):
    monkeypatch.setenv("NBGRADER_DB_URL", db_url)   # read by nbgrader_config.py
    course = copy_course(tmp_path, [PS], secret="postgres-test-secret")
    course.db_url = db_url
    course.nbgrader("db assignment add", PS)
    course.nbgrader("generate_assignment", PS)
    course.nbgrader("release_assignment", PS)
    submit_all(course, STUDENTS)
    course.nbgrader("collect", PS)

    records = batch.run(course.root, [PS], jobs=2, progress=False)
    assert sorted(r["student"] for r in records) == sorted(STUDENTS)
    assert all(r["status"] == "graded" for r in records), records
    # two graders at once, this process and a worker: while alice's 20 s ran,
    # the other grader graded bob or carol
    by = {r["student"]: r["pid"] for r in records}
    assert os.getpid() in by.values() and len(set(by.values())) == 2, by
    assert {by["bob"], by["carol"]} != {by["alice"]}, by

    course.nbgrader("generate_feedback", PS, "--RefuseHalfGraded.allow_ungraded=True")
    course.nbgrader("export", "--to=grades.csv")

    # nothing went to SQLite; PostgreSQL holds the grades
    assert not (course.root / "gradebook.db").exists()
    scores = course.code_scores(PS)
    top = sum(p.points for p in graded_parts(COURSE, PS).values())
    assert scores["alice"] == (top, top)
    assert scores["bob"][0] == 0
    assert 0 < scores["carol"][0] < top
    engine = sqlalchemy.create_engine(db_url)
    try:
        with engine.connect() as con:
            assert con.execute(sqlalchemy.text(
                "select count(*) from submitted_assignment")).scalar() == len(STUDENTS)
    finally:
        engine.dispose()
    with open(course.root / "grades.csv", newline="") as f:
        exported = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert exported == pytest.approx({s: v[0] for s, v in scores.items()})
    assert (course.root / "feedback" / "carol" / PS / f"{PS}.html").is_file()

    # a second grader started over the finished class finds nothing to do
    assert batch.run(course.root, [PS], jobs=2, progress=False) == []
    assert course.code_scores(PS) == scores
