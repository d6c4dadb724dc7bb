"""Grading a class with ``make autograde`` (coursegrader.tools.batch): parallel, resumable, logged.

One throw-away course with four submissions of ps1: alice hands in the
reference solutions, bob the blank release, carol two right answers and an
``is_kernel`` that never returns, eve a file that is not a notebook. They
are graded by the real ``make autograde`` (nbgrader's autograde with the
course's preprocessors) with two workers, stopped with Ctrl-C halfway and
started again; then regraded by one worker in this process, which must give
the same grades. ``make report`` then writes the page an instructor reads.
"""

import contextlib
import datetime
import html
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import nbformat
import pytest

from coursegrader import record
from coursegrader.tools import batch
from coursecheck.parts import describe
from coursecheck.variants import bind
from coursegrader.tools.course import answer_cell_ids, fill_answers
from coursegrader.judging.problem_sets import graded_parts
from coursegrader.judging.variants import submission_variant
from conftest import COURSE, copy_course

PS = "ps1"
STUDENTS = ["alice", "bob", "carol", "eve"]
LOOP = "def is_kernel(name):\n    while True:\n        pass\n"

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def make_course(tmp, **kw):
    """A copy of the course with ps1 generated and the four submissions in submitted/."""
    c = copy_course(tmp, [PS], secret="batch-test-secret", part_timeout=3, **kw)
    (c.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    c.nbgrader("db assignment add", PS)
    c.nbgrader("generate_assignment", PS)
    released, source = c.released(PS), c.source(PS)
    ids = answer_cell_ids(released)
    c.hand_in("alice", PS, fill_answers(released, source))
    c.hand_in("bob", PS, released)
    carol = fill_answers(released, source, ids=ids[:2])
    for cell in carol.cells:
        if "def is_kernel" in cell.source:
            cell.source = LOOP
    c.hand_in("carol", PS, carol)
    (c.hand_in("eve", PS, released) / f"{PS}.ipynb").write_text("{ this is not a notebook")
    return c


def make(course, *args, **kw):
    env = dict(os.environ, PYTHON=sys.executable)
    return subprocess.Popen(["make", *args], cwd=course.root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, **kw)


def logged(course):
    return batch.read_log(course.root, PS)


@pytest.fixture(scope="module")
def graded(slow, tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("batch"))
    runs = []
    # Run 1: stopped with Ctrl-C once the first submission is in the log.
    proc = make(course, "autograde", f"PS={PS}", "JOBS=2")
    deadline = time.monotonic() + 240
    while not logged(course) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    runs.append({"records": logged(course), "code": proc.returncode, "stderr": err})
    # Run 2: grades what is left. Run 3: nothing is left but eve's broken file.
    for _ in range(2):
        before = len(logged(course))
        proc = make(course, "autograde", f"PS={PS}", "JOBS=2")
        out, err = proc.communicate(timeout=400)
        runs.append({"records": logged(course)[before:], "code": proc.returncode,
                     "stderr": err, "scores": course.cell_scores(PS)})
    return course, runs


def test_a_stopped_run_resumes_with_what_is_left(graded):
    course, (first, second, third) = graded
    done_first = {r["student"] for r in first["records"] if r["status"] == "graded"}
    assert 1 <= len(done_first) < len(STUDENTS), first["records"]
    # the second run grades exactly the submissions the first did not finish
    assert sorted(r["student"] for r in second["records"]) == sorted(
        set(STUDENTS) - done_first)
    assert second["code"] != 0          # eve's submission failed: make fails
    assert re.search(rf"{len(STUDENTS) - len(done_first)}/{len(STUDENTS) - len(done_first)}",
                     second["stderr"]), "no progress bar"
    # a run over a finished class tries only the failed submission and changes no grade
    assert [r["student"] for r in third["records"]] == ["eve"]
    assert third["scores"] == second["scores"]


def test_grades_and_log_of_each_submission(graded):
    course, runs = graded
    last = batch.latest(logged(course))
    parts = graded_parts(COURSE, PS)
    full = sum(p.points for p in parts.values())
    judged = {s: [p for r in batch.submission_results(last[s]) for p in r.parts]
              for s in ("alice", "bob", "carol")}
    totals = {s: sum(p.score for p in judged[s]) for s in judged}
    assert totals["alice"] == pytest.approx(full)
    assert totals["bob"] == 0
    carol = {p.part: p for p in judged["carol"]}
    assert carol["quadratic_map"].score == parts["quadratic_map"].points
    assert carol["kernel_verdicts"].score == 0
    assert "timed out after 3 s" in carol["kernel_verdicts"].report
    # eve's file is not a notebook: logged as failed, with nbgrader's reason
    assert last["eve"]["status"] == "failed"
    assert "Notebook does not appear to be JSON" in last["eve"]["error"], last["eve"]
    for student in STUDENTS:
        assert last[student]["seconds"] > 0
    # the gradebook holds the same scores as the log
    scores = course.cell_scores(PS)
    for student in ("alice", "bob", "carol"):
        for p in judged[student]:
            assert scores[(student, p.part)] == pytest.approx(p.score)


def test_one_worker_gives_exactly_the_grades_of_two(graded):
    course, runs = graded
    parallel = course.cell_scores(PS)
    records = batch.run(course.root, [PS], jobs=1, force=True, progress=False)
    assert sorted(r["student"] for r in records) == STUDENTS
    assert {r["pid"] for r in records} == {os.getpid()}    # JOBS=1: in this process
    assert course.cell_scores(PS) == parallel
    # the log keeps the verdicts, not the student's cells: those stay in the record
    alice = next(r for r in records if r["student"] == "alice")
    assert alice["records"] and all(rec.get("answers") is None for rec in alice["records"])
    kept = record.load(course.root / "autograded" / "alice" / PS, PS)
    assert kept.answers and any(a.source.strip() for a in kept.answers)


def test_report_page(graded):
    course, _ = graded
    subprocess.run(["make", "report", f"PS={PS}"], cwd=course.root, check=True,
                   env=dict(os.environ, PYTHON=sys.executable), capture_output=True,
                   timeout=300)
    page = (course.root / "report" / f"{PS}.html").read_text()
    # offline: plots inline, nothing fetched
    assert page.count("<svg") >= 2
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script" not in page and "<link" not in page
    text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", "", page,
                                                           flags=re.S)))
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    cells = [[html.unescape(c)
              for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
             for row in rows]
    # bob failed every public case of every part, carol those of parts 3 and 4:
    # the table of failed checks shows the 20 most failed, each with its inputs
    # (those of a part that varies on the student's own variant), and no check
    # that is not one of theirs
    failed = set()
    for student in ("bob", "carol"):
        variant = submission_variant("batch-test-secret", PS, student)
        for part_id, part in graded_parts(COURSE, PS).items():
            if part.varies:
                part = bind(part, variant.params)
            failed |= {(part_id, case.label, ", ".join(describe(a) for a in case.args))
                       for case in part.public()}
    shown = [tuple(r[:3]) for r in cells if len(r) == 5 and re.fullmatch(r"\d+ of \d+", r[3])]
    assert len(failed) > 20 and len(shown) == 20
    assert set(shown) <= failed, set(shown) - failed
    assert "timed out" in text and "carol" in text     # the stopped part
    assert "eve" in text.split("Crashed or timed out")[1]
    assert "Grading time" in text


def test_sqlite_writer_waits_for_a_locked_gradebook(graded):
    course, _ = graded
    holding = threading.Event()

    def hold_lock(seconds=8):
        con = sqlite3.connect(course.root / "gradebook.db", isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        holding.set()
        time.sleep(seconds)
        con.execute("COMMIT")
        con.close()

    thread = threading.Thread(target=hold_lock)
    thread.start()
    holding.wait()
    started = time.monotonic()
    record = batch.grade_submission(str(course.root), PS, "bob", digest="x")
    thread.join()
    # longer than sqlite's default 5 s wait: the course's URL makes writers wait
    assert time.monotonic() - started >= 8
    assert record["status"] == "graded" and record["attempts"] == 1, record
    assert course.cell_scores(PS)[("bob", "quadratic_map")] == 0


def test_bad_arguments_are_named(graded, tmp_path):
    course, _ = graded
    with pytest.raises(ValueError, match="jobs"):
        batch.run(course.root, [PS], jobs=0)
    with pytest.raises(ValueError, match="ps9.*not in the gradebook"):
        batch.run(course.root, ["ps9"], jobs=1)
    with pytest.raises(ValueError, match="db_url.*database server"):
        batch.run(course.root, [PS], scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="course_root"):
        batch.run(tmp_path / "nowhere", [PS])


def test_a_slow_submission_holds_up_only_its_own_grader(graded):
    """A slow submission holds up only its own grader, and this process grades too.

    aaron (first in the class) hands in the reference solutions with a cell
    that sleeps 20 s (within the course's budget for a notebook's run):
    whichever grader takes him is busy with him for 20 s whatever the
    machine's load, and the other grades his classmates meanwhile. The two graders are this process and one worker.
    """
    course, _ = graded
    before = course.cell_scores(PS)
    released, source = course.released(PS), course.source(PS)
    slow = fill_answers(released, source)
    slow.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(20)"))
    course.hand_in("aaron", PS, slow)
    records = {r["student"]: r
               for r in batch.run(course.root, [PS], jobs=2, force=True, progress=False)}
    assert sorted(records) == ["aaron"] + STUDENTS
    assert os.getpid() in {r["pid"] for r in records.values()}
    assert len({r["pid"] for r in records.values()}) == 2
    aaron = records.pop("aaron")
    assert aaron["seconds"] >= 20, aaron
    started = datetime.datetime.fromisoformat(aaron["started"]).timestamp()
    # the other grader graded classmates while aaron was being graded
    others = [r for r in records.values() if r["pid"] != aaron["pid"]]
    assert others, records
    assert min(datetime.datetime.fromisoformat(r["started"]).timestamp()
               for r in others) < started + aaron["seconds"] - 5, (aaron, others)
    # the same grades as ever, and aaron's are full marks
    scores = course.cell_scores(PS)
    assert {k: v for k, v in scores.items() if k[0] != "aaron"} == before
    full = {part: p.points for part, p in graded_parts(COURSE, PS).items()}
    assert {part: scores[("aaron", part)] for part in full} == pytest.approx(full)


def test_a_worker_killed_mid_submission_fails_only_that_submission(graded):
    """An instructor's run survives a grader killed from outside (say, by the OOM killer).

    The worker process is killed with SIGKILL while it grades (it has a
    sandbox running); its submission is reported failed with the reason, this
    process grades the rest, the run ends, and the next run grades the
    failed submission with the grade it always gets.
    """
    import psutil

    course, _ = graded
    before = course.cell_scores(PS)
    me = psutil.Process()
    run = {}
    thread = threading.Thread(target=lambda: run.update(records=batch.run(
        course.root, [PS], jobs=2, force=True, progress=False)))
    thread.start()
    victim, deadline = None, time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and thread.is_alive():
        for child in me.children():
            with contextlib.suppress(psutil.Error):
                # the forked worker, busy with a submission in its sandbox
                if child.cmdline() == me.cmdline() and any(
                        "bwrap" in d.name() for d in child.children(recursive=True)):
                    victim = child
        time.sleep(0.05)
    assert victim is not None, "no worker was seen grading"
    victim.kill()
    thread.join(300)
    assert not thread.is_alive(), "the run waits for the killed worker"
    records = run["records"]
    assert sorted(r["student"] for r in records) == sorted(
        p.name for p in (course.root / "submitted").iterdir())   # each once
    died = [r for r in records if "died" in r.get("error", "")]
    assert len(died) == 1, records
    assert f"process {victim.pid}) died (killed by SIGKILL)" in died[0]["error"]
    others = [r for r in records if r is not died[0] and r["student"] != "eve"]
    assert all(r["status"] == "graded" and r["pid"] == os.getpid() for r in others), others
    # the next run grades what failed, and every grade is what it always was
    again = batch.run(course.root, [PS], jobs=2, progress=False)
    assert died[0]["student"] in {r["student"] for r in again if r["status"] == "graded"} | {"eve"}
    assert course.cell_scores(PS) == before
