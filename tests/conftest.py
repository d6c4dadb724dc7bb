"""What several test modules share: the browser, free ports, a copy of the course, PostgreSQL.

Fixtures: ``chromium`` (the browser's path; a test that needs it fails in CI
and is skipped elsewhere when it is missing), ``course_copy`` (a throw-away
copy of the course with its own exchange), ``postgres`` (a throw-away
PostgreSQL server: call it as a context manager for the URL of a new
database).  Plain helpers, for module-level code: :func:`free_port`,
:func:`postgres_server`, :data:`CHROMIUM` and :data:`CHROMIUM_ARGS`.

The PostgreSQL server uses Debian's binaries, on the loopback and a free
port.  PostgreSQL refuses to run as root, so when the tests run as root the
server runs as the ``postgres`` user (created by Debian's package) through
``runuser``; its folder is a fresh temporary one that user owns.  It listens
on 127.0.0.1 only, asks for a random password, and is stopped and deleted
afterwards.

``pytest -m "not slow"`` leaves out the tests marked ``slow`` (whole classes
graded, browsers, the book's build, fresh virtual environments): marked on the
test or its module, or by a fixture of theirs that requests the fixture
``slow``.  A test left unmarked fails when it takes more than a few seconds.
"""

import contextlib
import csv
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

#: The shared hub (tests/hubs.py) and graded classes (tests/graded_classes.py), seen
#: by every module as one; how the suite is shared between xdist's workers
#: (tests/workers.py).
pytest_plugins = ["hubs", "graded_classes", "workers"]

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "assignments"
#: A book of one chapter with a self-check of each kind, built with the book's own
#: extensions (tests/book/small_book).
SMALL_BOOK = Path(__file__).resolve().parent / "book" / "small_book"

def within_a_quarter_of_the_check(compare, got, expected, case):
    """Whether a shipped public answer ``got`` is close enough to ``expected``, what
    this machine computes: numbers as long as ``compare`` (the part's check) would
    still pass them were their difference four times as large, so that a table made
    on a CPU whose BLAS rounds otherwise still passes every right answer and a
    stale one (another problem, another width) fails; anything else (indices,
    labels) equal."""
    import numpy as np
    if isinstance(expected, dict):
        return isinstance(got, dict) and got.keys() == expected.keys() and all(
            np.array_equal(got[k], expected[k]) for k in expected)
    got, expected = np.asarray(got), np.asarray(expected)
    if expected.dtype.kind != "f" or got.shape != expected.shape:
        return got.shape == expected.shape and np.array_equal(got, expected)
    return compare(expected + 4 * (got - expected), expected, case) is None


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def in_ci():
    """True in continuous integration, where a missing tool fails instead of skipping."""
    return os.environ.get("CI", "").lower() == "true"


def variant_value_pairs(course, ps):
    """Run ``make similarity PS=ps`` in ``course`` (a dry-run course, given the
    course's Makefile) and return {frozenset((a, b)): what they share} for the
    pairs whose cells hold values of each other's variants."""
    (course.root / "Makefile").write_text((COURSE / "Makefile").read_text())
    done = subprocess.run(["make", "similarity", f"PS={ps}", f"PYTHON={sys.executable}"],
                          cwd=course.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with open(course.root / "report" / f"{ps}-similarity.csv", newline="") as f:
        return {frozenset((r["student_a"], r["student_b"])): r["variant_values"]
                for r in csv.DictReader(f) if r["variant_values"]}


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc, grace=30):
    """Stop ``proc`` (a Popen): SIGTERM, then SIGKILL if it is still there after
    ``grace`` seconds; returns once it has ended."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def require_chromium():
    """The browser's path; fails the test in CI, skips it elsewhere, when it is missing."""
    if not Path(CHROMIUM).exists():
        if in_ci():
            pytest.fail(f"Chromium not found at {CHROMIUM}; it is required in CI")
        pytest.skip(f"Chromium not found at {CHROMIUM}; browser test skipped")
    return CHROMIUM


@pytest.fixture(scope="session")
def chromium():
    return require_chromium()


def copy_course(tmp, assignments, **kwargs):
    """A throw-away copy of the course in ``tmp/course``, its exchange in ``tmp/exchange``."""
    from coursegrader.tools.course import Course
    return Course.copy_of(COURSE, Path(tmp) / "course", exchange=Path(tmp) / "exchange",
                          assignments=assignments, **kwargs)


@pytest.fixture(scope="session")
def course_copy():
    return copy_course


def build_small_book(out, builder=None):
    """Build :data:`SMALL_BOOK` into ``out`` (warnings are errors); its ``_build`` folder."""
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
           "build", "-W", "-n", "--keep-going", "--path-output", str(out)]
    if builder:
        cmd += ["--builder", builder]
    done = subprocess.run(cmd + [str(SMALL_BOOK)], capture_output=True, text=True,
                          timeout=600, cwd=SMALL_BOOK)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    assert "WARNING" not in log, log[-4000:]
    return Path(out) / "_build"


@pytest.fixture(scope="session")
def small_book_site(slow, tmp_path_factory):
    """The small book's website, built once per run for every test that opens it
    (the hub's tests and the book's, on either worker)."""
    from workers import made_once   # imported once registered, so pytest rewrites its asserts

    with made_once(tmp_path_factory, "small-book") as (folder, ready):
        if not ready:
            build_small_book(folder)
    return folder / "_build" / "html"


#: Where deploy/install.sh installs the course server's environments for the hub tests.
HUB_PREFIX = Path(os.environ.get("KERNEL_COURSE_PREFIX", "/opt/kernel-course"))


def _hub_missing():
    if os.geteuid() != 0:
        return "the hub test must run as root (it creates Unix accounts)"
    if not shutil.which("npm"):
        return "npm is missing (configurable-http-proxy is installed with it)"
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM}"
    return None


@pytest.fixture(scope="session")
def installed(slow, tmp_path_factory):
    """The course server's environments under :data:`HUB_PREFIX`, installed (or
    refreshed) once per run by deploy/install.sh, for every hub the tests start
    and the services they run alone (on either worker)."""
    from workers import made_once   # imported once registered, so pytest rewrites its asserts

    why = _hub_missing()
    if why:
        if in_ci():
            pytest.fail(f"{why}; it is required in CI")
        pytest.skip(why)
    with made_once(tmp_path_factory, "hub-installed") as (_, ready):
        if not ready:
            done = subprocess.run(
                ["bash", str(REPO / "deploy" / "install.sh"), str(HUB_PREFIX)],
                capture_output=True, text=True, timeout=3000)
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return HUB_PREFIX


def postgres_bindir():
    """Folder of initdb/postgres: $POSTGRES_BINDIR, Debian's newest, or the PATH's."""
    if os.environ.get("POSTGRES_BINDIR"):
        return Path(os.environ["POSTGRES_BINDIR"])
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                    key=lambda p: int(Path(p).parts[-3]))
    if debian:
        return Path(debian[-1]).parent
    found = shutil.which("postgres") or shutil.which("initdb")
    return Path(found).resolve().parent if found else None


@contextlib.contextmanager
def postgres_server(database="gradebook"):
    """Start a server; yield the SQLAlchemy URL (psycopg 3) of a new empty database."""
    bindir = postgres_bindir()
    if bindir is None or not (bindir / "initdb").exists():
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is missing: scripts/test.sh installs Debian's postgresql")
        pytest.skip("PostgreSQL binaries not found (apt-get install postgresql)")
    as_user = []
    top = Path(tempfile.mkdtemp(prefix="pgtest-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chmod(top, 0o700)
        os.chown(top, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    password = secrets.token_hex(16)
    pwfile = top / "pw"
    pwfile.write_text(password + "\n")
    if as_user:
        os.chown(pwfile, user.pw_uid, user.pw_gid)
    data = top / "data"
    subprocess.run(as_user + [str(bindir / "initdb"), "-D", str(data), "-U", "grader",
                              "--pwfile", str(pwfile), "--auth", "scram-sha-256",
                              "--encoding", "UTF8", "--locale", "C"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port = free_port()
    log = open(top / "server.log", "wb")
    proc = subprocess.Popen(
        as_user + [str(bindir / "postgres"), "-D", str(data), "-h", "127.0.0.1",
                   "-p", str(port), "-k", str(top), "-c", "fsync=off",
                   "-c", "max_connections=100"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        import psycopg
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = psycopg.connect(host="127.0.0.1", port=port, user="grader",
                                       password=password, dbname="postgres", autocommit=True)
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("PostgreSQL did not start: "
                                       + (top / "server.log").read_text()[-2000:])
                time.sleep(0.2)
        with conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        yield f"postgresql+psycopg://grader:{password}@127.0.0.1:{port}/{database}"
    finally:
        stop_process(proc)
        log.close()
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres(slow):
    """:func:`postgres_server`: ``with postgres() as url:`` (or ``postgres("name")``)."""
    return postgres_server


# -- slow tests ------------------------------------------------------------------
# A test is slow when it is marked so (``@pytest.mark.slow``, or ``pytestmark``
# for a whole module) or when it uses a fixture that requests ``slow``: a class
# graded by nbgrader, the book built, a browser, a fresh virtual environment, a
# database server, the hub.  ``pytest -m "not slow"`` runs the others, and
# each of those fails when it takes longer than a fast test may (below), so a
# test that grows slow is marked, not hidden in the fast part.

#: CPU seconds an unmarked test may take, set-up included: this process's and
#: those of the processes it started and waited for.  CPU time, not the clock,
#: so that a busy machine does not fail a fast test.
FAST_CPU_SECONDS = 5.0
#: Seconds on the clock an unmarked test may take, for a test that mostly waits
#: (on a server, a sleep): far above what a fast test takes on a busy machine.
FAST_WALL_SECONDS = 60.0

_COST = pytest.StashKey[list]()


@pytest.fixture(scope="session")
def slow():
    """Requested by a fixture that takes minutes: every test that uses it is ``slow``."""


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test that uses a fixture requesting :func:`slow`."""
    for item in items:
        if "slow" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def _cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@contextlib.contextmanager
def _counted(item):
    cpu, wall = _cpu_seconds(), time.monotonic()
    try:
        yield
    finally:
        cost = item.stash.setdefault(_COST, [0.0, 0.0])
        cost[0] += _cpu_seconds() - cpu
        cost[1] += time.monotonic() - wall


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    with _counted(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with _counted(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Fail an unmarked test that took longer than :data:`FAST_CPU_SECONDS` of CPU
    or :data:`FAST_WALL_SECONDS` on the clock (set-up and call together)."""
    report = yield
    if call.when == "call" and report.passed and item.get_closest_marker("slow") is None:
        cpu, wall = item.stash.get(_COST, (0.0, 0.0))
        if cpu > FAST_CPU_SECONDS or wall > FAST_WALL_SECONDS:
            report.outcome = "failed"
            report.longrepr = (
                f"{item.nodeid} is not marked slow but took {cpu:.1f} s of CPU and "
                f"{wall:.1f} s on the clock (a fast test may take {FAST_CPU_SECONDS:g} s "
                f"of CPU and {FAST_WALL_SECONDS:g} s): mark it @pytest.mark.slow, or "
                "let a slow fixture of its own request the fixture `slow`")
    return report
