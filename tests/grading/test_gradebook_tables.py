"""Graders that start at once all add the course's own tables to a new gradebook.

Each grader process opens the gradebook and adds the course's tables where
they are missing (coursegrader.gradebook.create_tables).  Eight processes are
held at a barrier and then all do it together, on SQLite and on a real
PostgreSQL server: every one must finish without error and every table must
exist afterwards.  Before this was handled, one of ps1's 21 graders in a busy
class run failed with "table coursegrader_extension already exists".
"""

import multiprocessing

import pytest
import sqlalchemy
from nbgrader.api import Gradebook

from coursegrader.gradebook import create_tables

GRADERS = 8
COURSE_TABLES = {"coursegrader_extension", "coursegrader_submission_time"}


def _grader(url, barrier):
    with Gradebook(url, course_id="course") as gb:
        barrier.wait(timeout=60)
        create_tables(gb)


def all_at_once(url):
    """The exit codes of GRADERS processes adding the tables together to ``url``."""
    Gradebook(url, course_id="course").close()      # nbgrader's own tables first
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(GRADERS)
    graders = [context.Process(target=_grader, args=(url, barrier)) for _ in range(GRADERS)]
    for g in graders:
        g.start()
    for g in graders:
        g.join(120)
    return [g.exitcode for g in graders]


def tables(url):
    engine = sqlalchemy.create_engine(url)
    try:
        return set(sqlalchemy.inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(3))
def test_graders_starting_together_on_sqlite_all_succeed(tmp_path, trial):
    url = f"sqlite:///{tmp_path}/gradebook.db"
    assert all_at_once(url) == [0] * GRADERS
    assert COURSE_TABLES <= tables(url)


def test_graders_starting_together_on_postgresql_all_succeed(slow, postgres):
    with postgres() as url:
        assert all_at_once(url) == [0] * GRADERS
        assert COURSE_TABLES <= tables(url)
