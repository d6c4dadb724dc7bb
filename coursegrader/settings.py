"""The course's settings: where they are read, once, and the course folder they belong to.

The course folder is the folder of the course's ``nbgrader_config.py``
(:func:`find_course`); :func:`course_config` loads that file once per process
and hands every part of the grader the same settings.  Every setting is a
traitlet of the class that uses it, with its help (``python -m coursegrader
--help-all`` lists them all).  The few an instructor or a server sets per
machine come from environment variables, and only :class:`CourseSettings`
reads them: each is the default of one of its settings, and a line
``c.CourseSettings.<name> = ...`` in ``nbgrader_config.py`` wins over it.

========================== =================================================
variable                   setting
========================== =================================================
NBGRADER_EXCHANGE          :attr:`CourseSettings.exchange`
NBGRADER_COURSE_ID         :attr:`CourseSettings.course_id`
NBGRADER_DB_URL            :attr:`CourseSettings.db_url`
COURSEGRADER_SECRET        :attr:`CourseSettings.secret`
COURSEGRADER_CELL_TIMEOUT  :attr:`CourseSettings.cell_timeout`
COURSEGRADER_PART_TIMEOUT  :attr:`CourseSettings.part_timeout`
DASK_SCHEDULER             :attr:`CourseSettings.scheduler`
KERNEL_COURSE_EXCHANGE     :attr:`CourseSettings.hub_exchange`
COURSEGRADER_BOOK_URL      :attr:`CourseSettings.book_url`
========================== =================================================

nbgrader's own settings that follow from these -- the course folder, the
course id, the gradebook's URL, the exchange -- are set from them in one
place, :func:`nbgrader_settings`, which the course's ``nbgrader_config.py``
applies last.
"""

import copy
import os
import sys
import urllib.parse
from pathlib import Path

from traitlets import Float, Int, TraitError, Unicode, default, validate
from traitlets.config import Config, Configurable

__all__ = ["CourseSettings", "run_with_fixed_hash_seed", "CONFIG_FILE", "PRIVATE_UMASK", "find_course", "course_config",
           "nbgrader_settings", "private_files"]

#: The course's configuration; the folder that holds it is the course folder.
CONFIG_FILE = "nbgrader_config.py"
#: The collect of nbgrader's shared-folder exchange that takes regular files only.
NO_LINK_COLLECT = "coursegrader.tools.exchange_collect.NoLinkCollect"
#: The release of feedback of nbgrader's shared-folder exchange, pages readable by
#: their student whatever the instructor's umask.
READABLE_RELEASE_FEEDBACK = "coursegrader.tools.exchange_feedback.ReadableReleaseFeedback"


#: Every file a course command creates is the instructor's alone (0600, folders 0700).
PRIVATE_UMASK = 0o077


def private_files():
    """Make the files and folders this process creates from now on readable by
    its user alone: submissions, grades, feedback, logs and the gradebook are
    student records.  Every command of the course calls it when it starts as a
    command (not when a test calls its ``main``): the Makefile's nbgrader steps
    through :mod:`coursegrader.apps.nbgrader_command`, the course's tools in
    their ``__main__`` block, and ``make similarity`` with the shell's ``umask``.
    What nbgrader hands to students through the exchange gets its modes set
    explicitly there (:mod:`coursegrader.tools.exchange_feedback`)."""
    os.umask(PRIVATE_UMASK)


def find_course(start=None):
    """The course folder: the nearest folder at or above ``start`` (default: the
    current folder) that holds :data:`CONFIG_FILE`."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise ValueError(f"no course folder at or above {here}: none holds {CONFIG_FILE} "
                     "(run in the course folder, or name it)")


_LOADED = {}


def course_config(course):
    """The configuration in the course folder ``course``, read once per process.

    The file is read again only if it changed since.  Each call returns a copy,
    which the caller may change.
    """
    from traitlets.config.loader import PyFileConfigLoader
    folder = Path(course).resolve()
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise ValueError(f"course: no {CONFIG_FILE} in {folder}")
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        _LOADED[key] = PyFileConfigLoader(CONFIG_FILE, path=str(folder)).load_config()
    return copy.deepcopy(_LOADED[key])


def nbgrader_settings(config, course):
    """nbgrader's settings that follow from the course's: a Config to merge into ``config``.

    ``course`` is the course folder.  The gradebook is :attr:`CourseSettings.db_url`,
    by default SQLite in the course folder, whose writers wait up to 60 s for
    one another.  nbgrader's shared-folder exchange collects with
    :data:`NO_LINK_COLLECT` unless the course's JupyterHub chose the exchange,
    and releases feedback with :data:`READABLE_RELEASE_FEEDBACK` unless that
    exchange is ngshare.
    """
    settings = CourseSettings(config=config)
    course = os.path.abspath(course)
    nbgrader = Config()
    nbgrader.CourseDirectory.root = course
    nbgrader.CourseDirectory.course_id = settings.course_id
    nbgrader.CourseDirectory.db_url = (
        settings.db_url or f"sqlite:///{os.path.join(course, 'gradebook.db')}?timeout=60")
    nbgrader.Exchange.root = settings.exchange
    if not settings.hub_exchange:
        nbgrader.ExchangeFactory.collect = NO_LINK_COLLECT
    if settings.hub_exchange != "ngshare":
        nbgrader.ExchangeFactory.release_feedback = READABLE_RELEASE_FEEDBACK
    return nbgrader


def _env(name, fallback):
    value = os.environ.get(name, "")
    return value if value != "" else fallback


def _number(name, kind, fallback):
    value = _env(name, None)
    if value is None:
        return fallback
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or number <= 0:
        raise ValueError(f"environment variable {name}: expected a positive number of "
                         f"seconds, got {value!r}")
    return number


def _book_url(url, name):
    """``url`` when it is empty or the http(s) address of a site, else ValueError
    naming ``name``: it is written into the href of links on student pages."""
    parsed = urllib.parse.urlsplit(url)
    odd = any(c.isspace() or c in "\"'<>`\\" for c in url)
    if url and (parsed.scheme not in ("http", "https") or not parsed.netloc
                or parsed.query or parsed.fragment or odd):
        raise ValueError(f"{name}: expected the http(s) address of the published book, "
                         f"such as https://example.org/kernel-methods/, got {url!r}")
    return url


class CourseSettings(Configurable):
    """Settings read from the environment (see the table above)."""

    exchange = Unicode(
        help="Folder of nbgrader's shared-folder exchange ($NBGRADER_EXCHANGE, default "
             "the course's own, coursecheck.problems.EXCHANGE, which the student "
             "package uses too).").tag(config=True)
    course_id = Unicode(
        help="nbgrader's course id ($NBGRADER_COURSE_ID, default the course's own, "
             "coursecheck.problems.COURSE_ID, declared with the problem sets)."
    ).tag(config=True)
    db_url = Unicode(
        None, allow_none=True,
        help="The gradebook's database URL ($NBGRADER_DB_URL, e.g. "
             "postgresql+psycopg://grader:...@dbhost/kernel_methods); None: SQLite in "
             "the course folder.").tag(config=True)
    secret = Unicode(
        help="The course secret the hidden cases are drawn from "
             "($COURSEGRADER_SECRET); empty: the file JudgeSubmission.secret_file."
    ).tag(config=True)
    cell_timeout = Int(
        help="Seconds a notebook cell may run in the kernel run "
             "($COURSEGRADER_CELL_TIMEOUT, default 60).").tag(config=True)
    part_timeout = Float(
        None, allow_none=True,
        help="Seconds the judge gives each part ($COURSEGRADER_PART_TIMEOUT); None: "
             "the part's own limit.").tag(config=True)
    scheduler = Unicode(
        help="Address of a Dask scheduler that grades instead of local workers "
             "($DASK_SCHEDULER, e.g. tcp://host:8786); empty: local workers."
    ).tag(config=True)
    hub_exchange = Unicode(
        help="The exchange the course's JupyterHub chose ($KERNEL_COURSE_EXCHANGE, "
             "set by deploy/ on its servers); empty: not on the hub.").tag(config=True)

    book_url = Unicode(
        help="Address of the course's published website ($COURSEGRADER_BOOK_URL, e.g. "
             "https://example.org/kernel-methods/, the folder of its index.html): the "
             "feedback on a failed part links to the book's section on it that teaches "
             "what the part tests (coursegrader/book_sections.py). Empty: the feedback "
             "names the section by its chapter and title instead.").tag(config=True)

    @default("exchange")
    def _default_exchange(self):
        # the course's own, declared with its problem sets, which students have too
        from coursecheck.problems import EXCHANGE
        return _env("NBGRADER_EXCHANGE", EXCHANGE)

    @default("course_id")
    def _default_course_id(self):
        # the course's own, declared with its problem sets, which students have too
        from coursecheck.problems import COURSE_ID
        return _env("NBGRADER_COURSE_ID", COURSE_ID)

    @default("db_url")
    def _default_db_url(self):
        return _env("NBGRADER_DB_URL", None)

    @default("secret")
    def _default_secret(self):
        return _env("COURSEGRADER_SECRET", "")

    @default("cell_timeout")
    def _default_cell_timeout(self):
        return _number("COURSEGRADER_CELL_TIMEOUT", int, 60)

    @default("part_timeout")
    def _default_part_timeout(self):
        return _number("COURSEGRADER_PART_TIMEOUT", float, None)

    @default("scheduler")
    def _default_scheduler(self):
        return _env("DASK_SCHEDULER", "")

    @default("hub_exchange")
    def _default_hub_exchange(self):
        return _env("KERNEL_COURSE_EXCHANGE", "")

    @default("book_url")
    def _default_book_url(self):
        return _book_url(_env("COURSEGRADER_BOOK_URL", ""), "$COURSEGRADER_BOOK_URL")

    @validate("book_url")
    def _valid_book_url(self, proposal):
        try:
            return _book_url(proposal["value"], "CourseSettings.book_url")
        except ValueError as exc:
            raise TraitError(str(exc)) from None


def run_with_fixed_hash_seed(module):
    """Run ``python -m module`` with the same arguments again, with PYTHONHASHSEED
    set to 0, unless it already is: for a command whose output must not depend on
    the salt Python gives ``hash()`` in each process."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]],
                  {**os.environ, "PYTHONHASHSEED": "0"})
