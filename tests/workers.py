"""How the suite is shared between pytest-xdist's workers (``pytest -n 2``).

Most tests wait on one subprocess at a time (nbgrader, a sandbox, a browser, a
hub), so two workers use both cores.  Under ``--dist loadgroup`` (set in
pyproject.toml) each group of tests runs whole on one worker, and a set-up made
once per worker is still made once per run when all its users are in one group:

- a module is a group of its own, so its module-scoped set-ups are made once;
- the modules of :data:`GROUPS` share one group: they share a set-up made once
  per run (a session fixture), or a resource of the machine that only one of
  them may hold at a time;
- a session fixture that groups on both workers need is made by the first
  worker that asks for it and read by the other (:func:`made_once`).

:func:`check_shared` finds an expensive session fixture (one that requests
``slow``) used by more than one group without being made once: under two
workers it would be made twice, so every test that uses it fails, saying so,
before the fixture is made.

The schedule is deliberate.  xdist's loadgroup scheduler keeps a queue of
groups in the order it receives them (``--no-loadscope-reorder``; by default
it would sort them by their number of tests), gives each worker the first
group in the queue, and gives a worker the next group once two or fewer of its
tests are left.  So the groups are queued longest first: the hub and the book
(:data:`FIRST`, one on each worker), then every group with a slow test, then
the fast groups, which fill in at the end of the run.

Registered as a plugin by tests/conftest.py.
"""

import contextlib
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: Groups of modules (paths under tests/, a folder ending in "/") run on one worker.
GROUPS = {
    # every hub (tests/hubs.py's, the LTI tests'), the course server's environments
    # under one fixed prefix (`installed`), Unix accounts, ports below 1024, the
    # users' cgroups and /dev/shm: one test at a time, as in a serial run
    "hub": ("hub/",),
    # the whole book built once (`built_book`) and its pages measured once (`site_pages`)
    "book": ("book/test_book.py",),
    # the class of ps1 graded once (`ps1_class`, tests/graded_classes.py)
    "ps1_class": ("grading/test_clean_class.py", "grading/test_book_sections.py"),
}
#: Modules under a group's folder that start no hub and use no Unix account, cgroup
#: or fixed port: each is a group of its own, run on either worker beside the hub's
#: (those that need the hub's environments share `installed`, made once).
APART = ("hub/test_clients.py", "hub/test_course_open.py", "hub/test_fail2ban_filter.py",
         "hub/test_formgrader_csp.py",
         "hub/test_front_proxy_chain.py", "hub/test_install_checks.py",
         "hub/test_ngshare_service.py", "hub/test_open_files.py",
         "hub/test_proxy_pipelining.py",
         "hub/test_proxy_connections.py", "hub/test_proxy_stalled_writes.py",
         "hub/test_request_bodies.py", "hub/test_request_log.py",
         "hub/test_server_network.py",
         "hub/test_submit_check.py", "hub/test_variant_environment.py")
#: The longest groups, started first, one on each worker, in this order.
FIRST = ("hub", "book")
#: Session fixtures that request ``slow`` yet are cheap to have on both workers:
#: each call of ``postgres`` starts a server of its own.
PER_CALL = ("postgres",)
#: Session fixtures made once per run whichever workers use them (:func:`made_once`).
MADE_ONCE = ("small_book_site", "installed")


def group_of(path):
    """The group of the test module at ``path``: its entry in :data:`GROUPS` (unless
    it is one of :data:`APART`), or the module's own path under tests/."""
    path = Path(path).resolve()
    if TESTS not in path.parents:
        return str(path)
    rel = path.relative_to(TESTS).as_posix()
    if rel in APART:
        return rel
    for name, members in GROUPS.items():
        if any(rel.startswith(m) if m.endswith("/") else rel == m for m in members):
            return name
    return rel


def queue_order(groups, slow_groups):
    """``groups`` (in collection order) as the scheduler should queue them:
    :data:`FIRST`, then those in ``slow_groups``, then the others."""
    def rank(group):
        if group in FIRST:
            return (0, FIRST.index(group))
        return (1, 0) if group in slow_groups else (2, 0)
    return sorted(groups, key=rank)   # stable: collection order within a rank


def check_shared(users):
    """{fixture: complaint} for ``users`` ({session fixture: set of groups}): each
    expensive session fixture used by two groups that is not made once."""
    return {name: f"the session fixture `{name}` is used by the groups {sorted(groups)}: "
            "with two workers it would be made twice; put its modules in one group "
            "(GROUPS in tests/workers.py) or make it with made_once"
            for name, groups in sorted(users.items())
            if len(groups) > 1 and name not in MADE_ONCE and name not in PER_CALL}


def _expensive_session_fixtures(item):
    """The session fixtures ``item`` uses that request ``slow``, directly or not."""
    defs = item._fixtureinfo.name2fixturedefs
    found = {}

    def expensive(name):
        if name not in found:
            found[name] = False   # a cycle is not expensive by itself
            fixturedef = defs.get(name, [None])[-1]
            found[name] = fixturedef is not None and fixturedef.scope == "session" and (
                "slow" in fixturedef.argnames
                or any(expensive(arg) for arg in fixturedef.argnames))
        return found[name]
    return {name for name in item.fixturenames if name != "slow" and expensive(name)}


#: BLAS's thread pools, one thread each in a worker (see pytest_configure).
BLAS_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def in_worker(config):
    return hasattr(config, "workerinput")


def pytest_configure(config):
    """In a worker, BLAS on one thread (unless set otherwise), for the worker and
    what it starts: two workers on two cores each with a pool per core spin on
    each other's cores, doubling the CPU a run takes and failing fast tests on
    their CPU limit.  Set before any test module loads NumPy."""
    if in_worker(config):
        for name in BLAS_THREADS:
            os.environ.setdefault(name, "1")


@pytest.hookimpl(tryfirst=True)   # before xdist names each test's group after its mark
def pytest_collection_modifyitems(config, items):
    """Under xdist: mark each test with its group, check that no expensive set-up
    would be made twice, and queue the groups (see the module's docstring)."""
    if not in_worker(config):
        return
    groups, users, slow_groups = {}, {}, set()
    for item in items:
        group = group_of(item.path)
        groups.setdefault(group, []).append(item)
        item.add_marker(pytest.mark.xdist_group(group))
        if "slow" in item.fixturenames or item.get_closest_marker("slow"):
            slow_groups.add(group)
        for name in _expensive_session_fixtures(item):
            users.setdefault(name, set()).add(group)
    for name, complaint in check_shared(users).items():
        for item in items:
            if name in item.fixturenames:
                item.stash[_REFUSED] = complaint
    items[:] = [item for group in queue_order(list(groups), slow_groups)
                for item in groups[group]]


_REFUSED = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Fail, before its set-up is made, a test whose set-up would be made twice."""
    if _REFUSED in item.stash:
        pytest.fail(item.stash[_REFUSED], pytrace=False)


@contextlib.contextmanager
def made_once(tmp_path_factory, name):
    """A folder shared by the run's workers, and whether it is ready: ``with
    made_once(tmp_path_factory, "x") as (folder, ready):`` makes ``folder`` when
    not ``ready``; the other workers wait on a lock meanwhile.  The folder counts
    as made once the block ends without an error.  Without xdist, a folder of the
    run's own."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent   # the run's folder, above each worker's own
    folder, done = base / name, base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        ready = done.exists()
        if not ready:
            folder.mkdir(exist_ok=True)
        yield folder, ready
        done.touch()
