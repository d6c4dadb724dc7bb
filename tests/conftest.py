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
graded, browsers, the book's build, fresh virtual environments).
"""

import contextlib
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

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "assignments"
#: A book of one chapter with a self-check of each kind, built with the book's own
#: extensions (tests/book/small_book).
SMALL_BOOK = Path(__file__).resolve().parent / "book" / "small_book"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def in_ci():
    """True in continuous integration, where a missing tool fails instead of skipping."""
    return os.environ.get("CI", "").lower() == "true"


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
def small_book_site(tmp_path_factory):
    """The small book's website, built once for every test that opens it."""
    return build_small_book(tmp_path_factory.mktemp("small-book")) / "html"


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
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    """:func:`postgres_server`: ``with postgres() as url:`` (or ``postgres("name")``)."""
    return postgres_server


#: Fixtures that take minutes: a class graded by nbgrader, the book built, a
#: browser session, a fresh virtual environment, a database server, the hub.
SLOW_FIXTURES = frozenset({
    "built_book", "site", "small_book_site",                # the book built
    "student_wheel", "student_env", "jupyterlab",           # test_student_package
    "course", "graded", "class_run", "cluster",             # classes graded
    "postgres", "db_url",                                   # a PostgreSQL server
    "installed", "ngshare_hub", "folder_hub",               # test_hub
})


#: Modules whose tests grade submissions through nbgrader or the sandbox with
#: fixtures of their own (collect, zip_collect, feedback, similarity, deadlines).
SLOW_MODULES = frozenset({
    "test_deadlines", "test_exchange_collect", "test_lms_zip", "test_lti",
    "test_report",
    "test_sandbox_boundary", "test_similarity", "test_student_html",
})


#: Single tests (a whole parametrised test, or one of its cases by its id) of
#: the fast modules that take several seconds each (measured
#: with ``pytest -m "not slow" --durations=30``): solvers on hard problems,
#: large Gram matrices, fresh interpreters and sandboxes.  The fast part
#: keeps other tests of each kind (a sandbox, a solver, the author's tool).
SLOW_TESTS = frozenset({
    "test_svm.py::test_small_C_with_more_of_one_class_matches_libsvm",
    "test_svm.py::test_features_on_a_scale_of_1e6_with_C_one_ask_for_scaling",
    "test_svm.py::test_hard_margin_and_margin",
    "test_ridge.py::test_random_features_approach_gaussian_kernel_ridge",
    "test_kernels.py::test_gaussian_gram_reads_no_uninitialised_memory[float64-2100-3]",
    "test_kernels.py::test_gaussian_gram_reads_no_uninitialised_memory[float32-2100-3]",
    "test_kernels.py::test_gaussian_gram_reads_no_uninitialised_memory[int64-2100-3]",
    "test_coursecheck.py::test_importing_coursecheck_never_imports_the_grader",
    "test_author.py::test_command_line_writes_the_notebook_next_to_its_source",
    "test_grading_unit.py::test_sandbox_output_is_capped",
    "test_grading_unit.py::"
    "test_kernel_run_is_confined_and_its_outputs_come_back_as_data",
    "test_grading_unit.py::"
    "test_sandbox_forbids_kernlab_sklearn_and_files_of_the_course",
    "test_grading_unit.py::test_sandbox_time_limit_and_crash_fail_only_remaining_cases",
    "test_grading_unit.py::"
    "test_parts_of_a_session_share_the_sandbox_but_never_a_process_or_a_file",
    "test_grading_unit.py::test_grade_part_full_zero_partial_and_reproducible",
})


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test that uses one of :data:`SLOW_FIXTURES`, lives
    in one of :data:`SLOW_MODULES` or is one of :data:`SLOW_TESTS`."""
    for item in items:
        file = Path(str(item.fspath)).name
        names = {f"{file}::{item.name}", f"{file}::{item.originalname or item.name}"}
        if (SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
                or item.module.__name__.rpartition(".")[2] in SLOW_MODULES
                or names & SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
