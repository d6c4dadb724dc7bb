"""Grading on a Dask cluster: a real ``dask scheduler`` and two ``dask worker`` processes.

The scheduler and the workers run on 127.0.0.1 (free ports), the course
folder is shared by all of them (here: the same disk), the gradebook is on a
real PostgreSQL server. ``make autograde SCHEDULER=...`` sends one task per
submission; each worker grades whole submissions with nbgrader's autograde.
"""

import json
import os
import subprocess
import sys
import time

import pytest

from coursegrader.tools import batch
from coursegrader.tools.course import answer_cell_ids, fill_answers
from coursegrader.judging.problem_sets import graded_parts
from conftest import COURSE, copy_course, stop_process

PS = "ps1"

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


@pytest.fixture(scope="module")
def cluster(slow, tmp_path_factory):
    """(scheduler address, [worker pids]) of a scheduler and two single-threaded workers."""
    pytest.importorskip("distributed")
    from distributed import Client
    tmp = tmp_path_factory.mktemp("dask")
    info = tmp / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]   # the `dask` command of this Python
    procs = []
    try:
        procs.append(subprocess.Popen(
            dask + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(info)],
            stdout=subprocess.DEVNULL, stderr=open(tmp / "scheduler.log", "wb")))
        deadline = time.monotonic() + 120
        while not info.exists() or not info.read_text().strip():
            assert procs[0].poll() is None, (tmp / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(info.read_text())["address"]
        for name in ("grader-1", "grader-2"):
            procs.append(subprocess.Popen(
                dask + ["worker", address, "--name", name, "--nthreads", "1",
                        "--host", "127.0.0.1", "--no-dashboard",
                        "--local-directory", str(tmp / name)],
                stdout=subprocess.DEVNULL, stderr=open(tmp / f"{name}.log", "wb")))
        with Client(address) as client:
            client.wait_for_workers(2, timeout=120)
            pids = sorted(client.run(os.getpid).values())
        yield address, pids
    finally:
        for proc in reversed(procs):
            stop_process(proc, grace=10)


def test_two_dask_workers_grade_the_class_into_postgresql(tmp_path, cluster, postgres):
    address, worker_pids = cluster
    with postgres() as db_url:
        course = copy_course(tmp_path, [PS], secret="dask-test-secret", db_url=db_url)
        course.nbgrader("db assignment add", PS)
        course.nbgrader("generate_assignment", PS)
        released, source = course.released(PS), course.source(PS)
        course.hand_in("alice", PS, fill_answers(released, source))
        course.hand_in("bob", PS, released)
        course.hand_in("carol", PS, fill_answers(released, source,
                                                 ids=answer_cell_ids(released)[:1]))

        records = batch.run(course.root, [PS], scheduler=address, progress=False)
        assert sorted(r["student"] for r in records) == ["alice", "bob", "carol"]
        assert all(r["status"] == "graded" for r in records), records
        # graded by the two dask workers, not here
        assert {r["pid"] for r in records} == set(worker_pids)

        scores = course.code_scores(PS)
        top = sum(p.points for p in graded_parts(COURSE, PS).values())
        assert scores["alice"] == (top, top)
        assert scores["bob"][0] == 0
        assert 0 < scores["carol"][0] < top
        assert not (course.root / "gradebook.db").exists()
        # the log resumes on the cluster too: nothing left to grade
        assert batch.run(course.root, [PS], scheduler=address, progress=False) == []
