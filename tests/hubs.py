"""Throw-away course hubs (deploy/hub.py) for the tests of tests/hub/, and the one
they share.

:func:`course_hub` starts a hub on free loopback ports with its own accounts
(names start with "kh" and a random tag), state folder, exchange and a copy of
the book it serves, and removes all of it afterwards, also when a test fails.

Starting a hub costs minutes (accounts, the course folder, the proxy, the
users' servers), so the tests whose needs agree share one: ``folder_hub``, a hub
whose exchange is a shared folder and which serves the small book
(tests/book/small_book), started once per run by the first test that asks for it
and stopped at the end of the run.  Each module keeps to its own students, so
one module's fetches, edits and submissions are not another's (see
:data:`OWN_STUDENTS`).  A hub configured differently (ngshare on PostgreSQL, a
class of forty, LTI) is a fixture of its own module.

Registered as a plugin by tests/conftest.py, so that every module sees the same
``folder_hub``; a module that defined or imported it again would start a hub of
its own.
"""

import json
import os
import secrets
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import HUB_PREFIX, postgres_server

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
PREFIX = HUB_PREFIX
HUBPY = PREFIX / "hub" / "bin" / "python"
COURSE = "kernel-methods"
SHOTS = Path(os.environ.get("HUB_TEST_SCREENSHOTS", tempfile.gettempdir())) / "hub-test-shots"
#: The address the shared hub trusts as a front proxy's (``hub.py init --front-proxy``):
#: tests/hub/test_hub_front_proxy.py binds its nginx to it. No other test connects
#: from it, so to them the hub is as without one.
FRONT = "127.0.0.30"
#: Written into the index page of every hub's copy of its book: the page the hub
#: serves is this hub's book, not another server's.
BOOK_MARKER = "kernel-methods-book-" + secrets.token_hex(4)


def hubpy(*args, check=True, timeout=900):
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    done = subprocess.run([str(HUBPY), str(DEPLOY / "hub.py"), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=timeout)
    if check:
        assert done.returncode == 0, f"hub.py {' '.join(map(str, args))}:\n{done.stdout}\n{done.stderr}"
    return done


# ada answers honestly, bob hands in the blank notebook, eve attacks the grader's
# browser
FULL_NAMES = {"ada": ("Ada", "Lovelace"), "bob": ("Bob", "Marley"),
              "eve": ("Eve", "Mallory")}


@contextmanager
def course_hub(exchange, db=False, students=None, book=None, front_proxies=()):
    """A hub with an instructor and ``students`` ({who: (suffix of the user name,
    first name, last name)}; by default those of FULL_NAMES), serving a copy of
    ``book`` (a built site; by default a page of its own), marked with BOOK_MARKER,
    trusting the front proxies at ``front_proxies``.

    Yields ``names`` ({who: user name}, the instructor's ``teacher``),
    ``settings``, ``passwords``, ``url``, ``state``, ``book`` (the folder served),
    ``db_url`` and ``gradebook_url``."""
    students = students or {who: (who[0], *full) for who, full in FULL_NAMES.items()}
    tag = secrets.token_hex(2)
    names = {"teacher": f"kh{tag}t", **{who: f"kh{tag}{suffix}"
                                        for who, (suffix, _, _) in students.items()}}
    work = Path(tempfile.mkdtemp(prefix=f"hubtest-{exchange}-", dir="/tmp"))
    os.chmod(work, 0o755)
    served = work / "book"
    if book is None:
        served.mkdir()
        (served / "index.html").write_text(f"<html><body><h1>{BOOK_MARKER}</h1></body></html>")
        os.chmod(served / "index.html", 0o644)
    else:
        # a copy: a test may change the book the hub serves (a new edition of a
        # chapter) without changing the build other tests read
        shutil.copytree(book, served)
        with open(served / "index.html", "a") as index:
            index.write(f"\n<!-- {BOOK_MARKER} -->\n")
    state = work / "state"
    try:
        with (postgres_server("jupyterhub") if db else _none()) as db_url:
            # the students with their names, in the course's students.csv format
            roster = work / "students.csv"
            roster.write_text("id,first_name,last_name,email\n" + "".join(
                f"{names[who]},{first},{last},\n"
                for who, (_, first, last) in students.items()))
            args = ["init", state, "--prefix", PREFIX, "--instructor", names["teacher"],
                    "--students-file", roster, "--exchange", exchange,
                    "--exchange-root", work / "exchange", "--book", served,
                    *[arg for front in front_proxies for arg in ("--front-proxy", front)]]
            gradebook_url = None
            if db_url:
                gradebook_url = second_database(db_url, "gradebook")
                args += ["--db-url", db_url, "--gradebook-url", gradebook_url]
            hubpy(*args)
            try:
                hubpy("start", state, timeout=900)
                settings = json.loads((state / "settings.json").read_text())
                passwords = json.loads((state / "passwords.json").read_text())
                yield {"names": names, "settings": settings, "passwords": passwords,
                       "url": f"http://127.0.0.1:{settings['port']}", "state": state,
                       "book": served, "db_url": db_url, "gradebook_url": gradebook_url}
            finally:
                log = state / "hub.log"
                if log.exists():
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    os.chmod(SHOTS, 0o700)
                    shutil.copy(log, SHOTS / f"hub-{exchange}.log")
                hubpy("destroy", state, check=False)
    finally:
        for name in names.values():   # in case init failed half-way
            subprocess.run(["userdel", "--remove", name], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


@contextmanager
def _none():
    yield None


def second_database(url, name):
    """A new database on the server of ``url`` (a SQLAlchemy URL); its URL."""
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name


#: Students of the shared folder hub kept for one module: module -> {who (as that
#: module calls them): (suffix of the user name, first name, last name)}.  The
#: hub's own ``ada``, ``bob`` and ``eve`` (FULL_NAMES) are test_hub.py's and any
#: module's that asks for ``folder_hub`` itself; a module that needs students
#: nobody else touches adds a group here and reads it with :func:`students_of`.
OWN_STUDENTS = {
    "course_open": {"ada": ("oa", "Ada", "Byron"), "bob": ("ob", "Bob", "Dylan")},
    "user_servers": {"ada": ("ua", "Ada", "Yonath")},
    "variants": {"ada": ("va", "Ada", "Palmer"), "bob": ("vb", "Bob", "Kahn")},
    "server_limits": {"ada": ("la", "Ada", "Shamir"), "bob": ("lb", "Bob", "Tarjan")},
    "login_limits": {"ada": ("ga", "Ada", "Goldberg"), "bob": ("gb", "Bob", "Floyd"),
                     "eve": ("ge", "Eve", "Ritchie")},
    "front_proxy": {"ada": ("fa", "Ada", "Conway"), "bob": ("fb", "Bob", "Metcalfe")},
    "request_log": {"ada": ("ra", "Ada", "Yalow"), "bob": ("rb", "Bob", "Kahan")},
    "rates": {"ada": ("ta", "Ada", "Turing"), "bob": ("tb", "Bob", "Kernighan")},
}


@pytest.fixture(scope="session")
def folder_hub(slow, installed, small_book_site):
    """The hub with the shared-folder exchange, serving the small book, trusting a
    front proxy at :data:`FRONT`, one per run.

    ``names`` holds the instructor (``teacher``), ``ada``, ``bob`` and ``eve``, and
    the students of :data:`OWN_STUDENTS` (keyed ``group:who``)."""
    students = {who: (who[0], *full) for who, full in FULL_NAMES.items()}
    students.update({f"{group}:{who}": spec for group, own in OWN_STUDENTS.items()
                     for who, spec in own.items()})
    with course_hub("folder", students=students, book=small_book_site,
                    front_proxies=[FRONT]) as hub:
        yield hub


def students_of(hub, group):
    """``hub`` with the instructor and the students of ``group`` (OWN_STUDENTS) alone,
    by the names that group calls them."""
    names = {"teacher": hub["names"]["teacher"],
             **{who: hub["names"][f"{group}:{who}"] for who in OWN_STUDENTS[group]}}
    return {**hub, "names": names}
