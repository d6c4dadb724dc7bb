"""The suite on two workers (tests/workers.py): groups, their queue, set-ups made once,
and the limit on unmarked tests, which still holds in a worker."""

import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import workers
from workers import APART, FIRST, GROUPS, check_shared, group_of, made_once, queue_order

TESTS = Path(__file__).resolve().parent


def test_modules_that_share_a_set_up_are_one_group_and_the_others_their_own():
    assert group_of(TESTS / "hub" / "test_lti.py") == "hub"
    assert group_of(TESTS / "hub" / "test_lti_claims.py") == "hub"
    assert group_of(TESTS / "hub" / "test_hub.py") == "hub"
    assert group_of(TESTS / "book" / "test_book.py") == "book"
    assert group_of(TESTS / "grading" / "test_clean_class.py") == "ps1_class"
    assert group_of(TESTS / "grading" / "test_book_sections.py") == "ps1_class"
    assert group_of(TESTS / "book" / "test_selfcheck.py") == "book/test_selfcheck.py"
    assert group_of(TESTS / "grading" / "test_batch_grading.py") == "grading/test_batch_grading.py"
    # a module of the hub's folder that starts no hub is a group of its own
    assert group_of(TESTS / "hub" / "test_clients.py") == "hub/test_clients.py"
    assert group_of(TESTS / "hub" / "test_server_limits.py") == "hub"
    # every member of a group is a module or a folder of the suite
    for members in [*GROUPS.values(), APART]:
        for member in members:
            assert (TESTS / member).exists(), member
    assert set(FIRST) <= set(GROUPS)


def test_the_hub_and_the_book_are_queued_first_then_slow_groups_then_fast_ones():
    groups = ["book/test_selfcheck.py", "book", "grading/a.py", "grading/b.py", "hub",
              "kernlab/k.py", "grading/c.py"]
    slow = {"book", "hub", "grading/b.py", "book/test_selfcheck.py"}
    assert queue_order(groups, slow) == ["hub", "book", "book/test_selfcheck.py",
                                         "grading/b.py", "grading/a.py", "kernlab/k.py",
                                         "grading/c.py"]


def test_an_expensive_session_fixture_in_two_groups_is_refused_unless_made_once():
    complaints = check_shared({"ps1_class": {"grading/x.py", "grading/y.py"},
                               "installed": {"hub"},
                               "postgres": {"grading/x.py", "grading/z.py"},
                               "small_book_site": {"hub", "book/test_selfcheck.py"}})
    assert list(complaints) == ["ps1_class"], complaints
    assert "grading/x.py" in complaints["ps1_class"] and "grading/y.py" in complaints["ps1_class"]


class _Factory:
    """tmp_path_factory as a worker of one run sees it."""

    def __init__(self, run, worker):
        self.base = Path(run) / f"popen-{worker}"

    def getbasetemp(self):
        self.base.mkdir(parents=True, exist_ok=True)
        return self.base


def _make(run, worker, log):
    os.environ["PYTEST_XDIST_WORKER"] = worker
    with made_once(_Factory(run, worker), "thing") as (folder, ready):
        if not ready:
            with open(log, "a") as f:
                f.write(worker + "\n")
            time.sleep(1)   # the other worker asks meanwhile
            (folder / "made").write_text(worker)
    assert (folder / "made").exists()


def test_a_set_up_two_workers_ask_for_at_once_is_made_once(tmp_path):
    log = tmp_path / "log"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_make, args=(tmp_path, w, log)) for w in ("gw0", "gw1")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert len(log.read_text().split()) == 1, log.read_text()


def test_a_set_up_that_failed_is_made_again_by_the_next_worker(tmp_path):
    os.environ.pop("PYTEST_XDIST_WORKER", None)
    factory = _Factory(tmp_path, "gw0")
    with pytest.raises(RuntimeError):
        with made_once(factory, "thing") as (_, ready):
            assert not ready
            raise RuntimeError("the build failed")
    with made_once(factory, "thing") as (_, ready):
        assert not ready
    with made_once(factory, "thing") as (_, ready):
        assert ready


BURN = """
import time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_unmarked_and_slow():
    burn({seconds})

def test_unmarked_and_fast():
    pass

def test_blas_has_one_thread():
    import numpy  # noqa: F401  (loads BLAS)
    from threadpoolctl import threadpool_info
    assert {{lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}} == {{1}}
"""

SHARED = """
import pytest

@pytest.fixture(scope="session")
def expensive(slow):
    return 1
"""


def _pytest_in_workers(tmp_path, *args):
    """pytest -n 2 in ``tmp_path`` with the suite's conftest.py as a plugin."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(tmp_path)])}
    for name in ("PYTEST_XDIST_WORKER",) + workers.BLAS_THREADS:
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup",
         "--no-loadscope-reorder", "-p", "conftest", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), "-c", os.devnull, *args, str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow   # two runs of pytest with two workers each, one burning CPU
def test_in_workers_an_unmarked_slow_test_fails_and_a_twice_made_set_up_is_refused(tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    seconds = workers_limit() + 1
    (first / "test_burn.py").write_text(BURN.format(seconds=seconds))
    (first / "test_other.py").write_text("def test_other():\n    pass\n")
    done = _pytest_in_workers(first)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "created: 2/2 workers" in out, out
    assert "1 failed, 3 passed" in out, out
    assert "test_unmarked_and_slow" in out and "is not marked slow but took" in out, out

    second = tmp_path / "second"
    second.mkdir()
    (second / "shared_fixture.py").write_text(SHARED)
    for name in ("test_a.py", "test_b.py"):
        (second / name).write_text("def test_it(expensive):\n    assert expensive == 1\n")
    done = _pytest_in_workers(second, "-p", "shared_fixture")
    out = done.stdout
    assert done.returncode == 1 and "2 errors" in out, out + done.stderr
    groups = repr([str(second / "test_a.py"), str(second / "test_b.py")])
    # each test's error names the fixture and both groups (the short summary at the
    # end may repeat the message, cut or not to the terminal's width)
    errors = out.split("=== ERRORS ===")[1].split("short test summary info")[0]
    assert errors.count("ERROR at setup of test_it") == 2, out
    assert errors.count(f"the session fixture `expensive` is used by the groups {groups}") == 2, out


def workers_limit():
    """The CPU seconds an unmarked test may take (tests/conftest.py)."""
    import conftest
    return conftest.FAST_CPU_SECONDS


def test_the_readme_and_the_test_script_run_two_workers():
    script = (TESTS.parent / "scripts" / "test.sh").read_text()
    assert 'exec python3 -m pytest -n 2 "$@"' in script
    import tomllib
    opts = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())[
        "tool"]["pytest"]["ini_options"]["addopts"].split()
    assert "--dist" in opts and opts[opts.index("--dist") + 1] == "loadgroup"
    assert "--no-loadscope-reorder" in opts
    assert workers.__name__ in __import__("conftest").pytest_plugins
