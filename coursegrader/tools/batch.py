"""Grade a whole class: many submissions at once, resumable, with a progress bar.

``python -m coursegrader.tools.batch ps1 ps2 --jobs 4`` (what ``make
autograde`` runs) grades every submission in ``submitted/`` with nbgrader's
own autograde (the preprocessors of the course's ``nbgrader_config.py``:
JudgeSubmission, ...), one submission per task::

    submitted/<student>/<ps>/  ->  grade_submission()  ->  autograded/ (the notebook and
                                                           its record) + gradebook
                                                       ->  gradelog/<ps>.jsonl

* **Settings.** The course's ``nbgrader_config.py`` is read once per process
  (:func:`coursegrader.settings.course_config`); the Dask scheduler is
  ``c.CourseSettings.scheduler`` there (or ``$DASK_SCHEDULER``), and
  ``--scheduler`` overrides it for one run.
* **Graders.** ``--jobs N`` graders (default: the number of cores): this
  process and ``N - 1`` long-lived worker processes, each grading submission
  after submission in-process with nbgrader's ``Autograde``
  (:func:`coursegrader.apps.autograde.autograde`), so the seconds nbgrader
  takes to import are paid once per process, not once per submission.  This
  process does its start-up (:func:`warm_up`) and then makes the workers from
  itself (``fork``), so they start warm at once; each grader takes the next
  submission as soon as it is free, so a slow submission holds up only its
  own grader; a worker that dies (killed from outside, out of memory) fails
  only the submission it held, which the next run grades again.  ``--jobs 1``
  grades in this process alone.  A Dask scheduler gets the same tasks
  instead (the course folder on a shared filesystem, the gradebook on a
  database server).
* **Start-up.** Every nbgrader process pays seconds for jsonschema's ``iri``
  format checker; the grader's processes leave it out
  (:mod:`coursegrader.startup`).
* **Same grades.** A submission's grade depends only on its files, the course
  secret and the student (hidden cases are drawn from them), never on which
  worker graded it or in what order.
* **Log and resume.** Each finished submission appends one JSON line to
  ``gradelog/<ps>.jsonl``: student, a digest of the submitted files, status,
  seconds, the worker, and either the submission's record (each notebook's
  :class:`~coursegrader.record.SubmissionResult`, as the judge wrote it
  beside the autograded notebook) or why it could not be graded (the
  exception, as data; for a notebook over a bound of ``BoundSubmission``,
  ``bound``: its setting, limit and what was found, which ``make feedback``
  reads to tell the student, :mod:`coursegrader.tools.refused_feedback`).  A later run skips every submission whose last line
  says ``graded`` for the same digest (and whose autograded notebook is
  there), so a run stopped halfway grades only what is left, a resubmission
  is graded again, and a run over a finished class changes nothing.
  ``--force`` regrades all.
* **A failed submission has no grade.**  Whatever failed it (a bound, an
  encoding error, a crash, its grader dying), the gradebook keeps no grade of
  the student's earlier submission of the problem set: it keeps why this one
  failed, dated as it was handed in
  (:func:`coursegrader.gradebook.record_failure`), so the export, the LMS's
  scores, the feedback and the similarity check all describe the submission
  now collected, and a later graded submission takes its place.
* **Gradebook.** The course's (``c.CourseSettings.db_url``, SQLite in the
  course folder by default).  SQLite allows one writer at a time: nbgrader's
  transactions are short, the course's URL makes a writer wait up to 60 s for
  the lock, and a submission that still meets a locked database is graded
  again (up to :data:`LOCK_RETRIES` times), so parallel workers never lose a
  write.
"""

import argparse
import collections
import contextlib
import dataclasses
import datetime
import glob
import hashlib
import json
import logging
import os
import queue
import signal
import socket
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from .. import dating, record
from ..settings import CONFIG_FILE, CourseSettings, course_config, private_files
from ..startup import frozen, settle, skip_slow_imports

__all__ = ["Submission", "find_submissions", "pending", "grade_submission", "grade_one",
           "read_log",
           "latest", "log_path", "submission_results", "run", "main", "LOCK_RETRIES"]

LOCK_RETRIES = 5
LOG_DIR = "gradelog"


@dataclass(frozen=True)
class Submission:
    """One student's hand-in of one problem set, and a digest of its files."""

    assignment: str
    student: str
    digest: str


# -- the course ---------------------------------------------------------------
def _config(course_root, db_url=None):
    """The course's configuration (read once per process), the gradebook ``db_url``
    this run resolved given to nbgrader."""
    try:
        config = course_config(course_root)
    except ValueError as exc:
        raise ValueError(f"course_root: {exc}") from None
    if db_url:
        config.CourseDirectory.db_url = db_url
    return config


def _coursedir(config):
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config)


def _digest(folder):
    h = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        h.update(os.fsencode(path.relative_to(folder)) + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


def find_submissions(coursedir, assignments):
    """Every submission of ``assignments`` in the course's submitted/ folder, sorted."""
    found = []
    for ps in assignments:
        pattern = coursedir.format_path(coursedir.submitted_directory, "*", ps)
        for folder in map(Path, sorted(glob.glob(pattern))):
            if folder.is_dir():
                found.append(Submission(ps, folder.parent.name, _digest(folder)))
    return found


def log_path(course_root, assignment):
    return Path(course_root).resolve() / LOG_DIR / f"{assignment}.jsonl"


def read_log(course_root, assignment):
    """The records of ``gradelog/<assignment>.jsonl``, oldest first (torn lines skipped)."""
    path = log_path(course_root, assignment)
    records = []
    if path.exists():
        for line in path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                records.append(json.loads(line))
    return records


def latest(records):
    """{student: the last record of that student}."""
    return {r["student"]: r for r in records}


def submission_results(entry):
    """The :class:`~coursegrader.record.SubmissionResult` of each notebook of a graded
    submission's log ``entry`` (none for a failed one)."""
    return [record.SubmissionResult.from_json(r) for r in entry.get("records", [])]


def pending(coursedir, submissions, force=False):
    """The submissions not yet graded (all of them with ``force``)."""
    if force:
        return list(submissions)
    done = {}
    todo = []
    for sub in submissions:
        if sub.assignment not in done:
            done[sub.assignment] = latest(read_log(coursedir.root, sub.assignment))
        last = done[sub.assignment].get(sub.student)
        graded = Path(coursedir.format_path(coursedir.autograded_directory, sub.student,
                                            sub.assignment))
        if not (last and last["status"] == "graded" and last["digest"] == sub.digest
                and graded.is_dir() and any(graded.glob("*.ipynb"))):
            todo.append(sub)
    return todo


# -- grading one submission (in a worker) -------------------------------------
_APIS = {}


def _api(course_root, db_url):
    """One NbGraderAPI per course and database, kept for the life of the process
    (a new one once the course's configuration changed: a server grades for days)."""
    root = Path(course_root).resolve()
    stat = (root / CONFIG_FILE).stat()
    key = (str(root), db_url, stat.st_mtime_ns, stat.st_size)
    if key not in _APIS:
        for old in [k for k in _APIS if k[:2] == key[:2]]:
            del _APIS[old]
        import warnings
        from nbgrader.apps import NbGraderAPI
        from sqlalchemy.exc import SAWarning
        # nbgrader's gradebook trips SQLAlchemy autoflush warnings on every submission
        warnings.filterwarnings("ignore", category=SAWarning)
        log = logging.getLogger(f"coursegrader.batch.nbgrader.{len(_APIS)}")
        log.propagate = False
        log.addHandler(logging.NullHandler())
        log.setLevel(logging.INFO)
        api = NbGraderAPI(config=_config(course_root, db_url))
        api.log = log
        _APIS[key] = api
    return _APIS[key]


def warm_up(course_root, db_url=None, assignments=()):
    """A grader's start-up: everything its first submission would otherwise pay for.

    nbgrader is imported and the course's configuration read, the graders of
    ``assignments`` are loaded (with kernlab, for the problem sets that
    compare with it), IPython's input transformer (the judge turns magics into
    Python with it) is imported and the sandbox's mounts and checks are
    worked out.
    """
    _api(course_root, db_url)
    from IPython.core import inputtransformer2  # noqa: F401

    from .. import sandbox
    from ..judging.problem_sets import graded_parts
    for assignment in assignments:
        graded_parts(course_root, assignment)
    sandbox.prepare()
    return os.getpid()


def _local_worker(conn, course_root, db_url, assignments, siblings=()):
    """A worker process on this machine: grades each submission it is sent on ``conn``.

    It says it is ready (``None``) once warmed up (already, when it is made
    from a warm process), then answers each task with its record, until it is
    sent ``None`` or this machine's main process is gone.  Its output goes to
    its own file.  Ctrl-C reaches the whole process group; a worker lets it
    pass, and the main process stops the workers.  A handler rather than
    SIG_IGN: the kernels a worker starts must still be interruptible.
    ``siblings`` are this process's copies of other workers' connections.
    """
    for other in siblings:
        other.close()
    skip_slow_imports()
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    folder = Path(course_root) / LOG_DIR / "workers"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{socket.gethostname()}-{os.getpid()}.log",
                 os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        warm_up(course_root, db_url, assignments)
    except Exception:   # a broken set-up fails each submission with its reason instead
        traceback.print_exc()
    try:
        conn.send(None)
        while (task := conn.recv()) is not None:
            try:
                entry = grade_submission(*task)
            except Exception as exc:
                entry = _failure(task, f"the worker failed: {type(exc).__name__}: {exc}")
            conn.send(entry)
    except (EOFError, OSError):  # the main process is gone
        pass


def _failure(task, error):
    """The log entry of a submission that could not be graded at all."""
    _, assignment, student, _, digest = task
    return {"assignment": assignment, "student": student, "digest": digest,
            "status": "failed", "seconds": 0.0, "error": error}


def grade_submission(course_root, assignment, student, db_url=None, digest=""):
    """Autograde one submission with nbgrader (in this process); return its log entry.

    Runs nbgrader's autograde of ``assignment`` for ``student`` with the
    course's configuration, then reads back the record the judge wrote beside
    each autograded notebook.  Never raises for a failed submission: the entry
    says why, from the exception that failed it.
    """
    return _graded(course_root, assignment, student, db_url, digest)[0]


def _graded(course_root, assignment, student, db_url, digest):
    """:func:`grade_submission`'s entry, and what nbgrader logged meanwhile."""
    from ..apps.autograde import autograde
    api = _api(course_root, db_url)
    started = time.time()
    entry = {"assignment": assignment, "student": student, "digest": digest,
             "host": socket.gethostname(), "pid": os.getpid(),
             "started": datetime.datetime.fromtimestamp(started).isoformat(timespec="seconds")}
    attempts = 0
    while True:
        attempts += 1
        failure, log = autograde(api, assignment, student)
        if failure is None or not failure.locked or attempts > LOCK_RETRIES:
            break
        time.sleep(0.5 * attempts)
    entry["attempts"] = attempts
    if failure is None:
        coursedir = api.coursedir
        folder = Path(coursedir.format_path(coursedir.autograded_directory, student,
                                            assignment))
        try:
            # the log keeps the verdicts; the student's cells stay in the record
            # beside the notebook (up to record.ANSWER_BYTES each), not in every line
            entry["records"] = [
                dataclasses.replace(record.load(folder, p.name[:-len(record.SUFFIX)]),
                                    answers=None).to_json()
                for p in sorted(folder.glob(record.IGNORE))]
            entry["status"] = "graded"
        except (OSError, ValueError) as exc:
            entry.update(status="failed", error=f"reading the record back: {exc!r}")
    else:
        entry.update(status="failed", error=str(failure), log_tail=log.splitlines()[-20:])
        if failure.bound:
            entry["bound"] = failure.bound
    entry["seconds"] = round(time.time() - started, 3)
    return entry, log


def grade_one(course_root, assignment, student, db_url=None):
    """Grade ``student``'s submission to ``assignment`` as ``make autograde`` grades
    each (Formgrader's autograde button runs this): in this process, its line added
    to ``gradelog/``, and, when it fails, no earlier grade of it kept
    (:func:`coursegrader.gradebook.record_failure`).  Returns the log entry and
    what nbgrader logged."""
    course_root = str(Path(course_root).resolve())
    coursedir = _coursedir(_config(course_root, db_url))
    _check_gradebook(coursedir, [assignment])
    folder = coursedir.format_path(coursedir.submitted_directory, student, assignment)
    if not Path(folder).is_dir():
        raise ValueError(f"student: {student!r} has no submission of {assignment!r} "
                         f"in {coursedir.submitted_directory}/")
    entry, log = _graded(course_root, assignment, student, coursedir.db_url, _digest(folder))
    _settle(coursedir, course_root, entry)
    return entry, log


# -- running many -------------------------------------------------------------
def _append(course_root, entry):
    path = log_path(course_root, entry["assignment"])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _settle(coursedir, course_root, entry):
    """What follows a submission's grading, whoever graded it: a failed one keeps no
    earlier grade, and its line goes to the log."""
    if entry["status"] != "graded":
        _forget_grade(coursedir, entry)
    _append(course_root, entry)


def _forget_grade(coursedir, entry):
    """Record in the gradebook that the submission of the failed log ``entry`` was not
    graded, in place of any earlier grade; if that fails too, the entry says so."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    from ..gradebook import record_failure
    folder = coursedir.format_path(coursedir.submitted_directory, entry["student"],
                                   entry["assignment"])
    handed_in, _ = dating.collected(folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
                record_failure(gb, entry["assignment"], entry["student"], entry["error"],
                               handed_in)
    except Exception as exc:
        entry["error"] += (f"; and the gradebook still holds its earlier grade, if any "
                           f"({type(exc).__name__}: {exc}): run again")


def _check_gradebook(coursedir, assignments):
    """Create the gradebook's tables (nbgrader's and the course's) if needed and
    check every problem set is registered."""
    from nbgrader.api import Gradebook, MissingEntry

    from ..gradebook import create_tables
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        create_tables(gb)
        for ps in assignments:
            try:
                gb.find_assignment(ps)
            except MissingEntry:
                raise ValueError(f"assignments: {ps!r} is not in the gradebook; run "
                                 f"'make db generate PS={ps}' first") from None


class _Local:
    """This process and ``jobs - 1`` worker processes on this machine grade together.

    This process first does its own start-up (:func:`warm_up`: the imports and
    checks its first submission would otherwise pay for), then makes the
    workers from itself (``fork``), so they start warm, at once, and at no
    cost in imports.  A thread of this process hands each worker a submission
    as soon as it is up, and its next one as soon as it sends a grade back,
    while this process grades too; a slow submission holds up only its own
    grader.  A worker that dies (killed from outside, out of memory) fails
    only the submission it held, with the reason, and the others grade the
    rest.
    """

    def __init__(self, jobs, course_root, db_url, assignments=()):
        self.todo = collections.deque()
        self.lock = threading.Lock()
        self.results = queue.SimpleQueue()
        self.given = 0          # submissions handed to the workers
        self.workers = {}       # connection: [process, the task it holds or None]
        self.idle = []          # connections of workers up and waiting for a submission
        warm_up(course_root, db_url, assignments)
        if jobs > 1:
            import multiprocessing
            context = multiprocessing.get_context("fork")
            # No thread runs yet here, and every gradebook connection is
            # closed: the workers start from a clean copy of this process.
            with frozen():
                self._start(context, jobs - 1, course_root, db_url, assignments)
            threading.Thread(target=self._supervise, daemon=True).start()

    def _start(self, context, count, course_root, db_url, assignments):
        """Make ``count`` workers from this process."""
        for _ in range(count):
            mine, theirs = context.Pipe()
            # A worker closes its copies of the earlier workers' pipes, so
            # that each sees the end of its own when this process is gone.
            process = context.Process(target=_local_worker, daemon=True,
                                      args=(theirs, course_root, db_url, tuple(assignments),
                                            tuple(self.workers)))
            process.start()
            theirs.close()
            self.workers[mine] = [process, None]

    def _give(self, conn):
        """Send the next submission, if any, to the worker at ``conn`` (it is free)."""
        with self.lock:
            if conn not in self.workers:
                return
            if not self.todo:
                self.idle.append(conn)
                return
            task = self.todo.popleft()
            self.given += 1
            self.workers[conn][1] = task
        try:
            conn.send(task)
        except OSError:   # it has died: _supervise fails the task
            pass

    def _supervise(self):
        """Take the workers' grades, hand out submissions, and notice a worker's death."""
        from multiprocessing.connection import wait
        while self.workers:
            sentinels = {process.sentinel: conn for conn, (process, _) in self.workers.items()}
            ready = wait([*self.workers, *sentinels])
            dead = [sentinels[s] for s in ready if s in sentinels]
            for conn in [c for c in ready if c in self.workers]:
                try:
                    self._take(conn, conn.recv())
                except (EOFError, OSError):
                    continue                                 # seen by its sentinel
                if conn not in dead:
                    self._give(conn)
            for conn in dead:
                with contextlib.suppress(EOFError, OSError):
                    while conn.poll():                       # sent before it died
                        self._take(conn, conn.recv())
                with self.lock:
                    process, task = self.workers.pop(conn)
                    if conn in self.idle:
                        self.idle.remove(conn)
                process.join()
                conn.close()
                if task is not None:
                    code = process.exitcode
                    how = (f"killed by {signal.Signals(-code).name}" if code and code < 0
                           else f"exit status {code}")
                    self.results.put(_failure(task, f"its grader (process {process.pid}) died "
                                                    f"({how}); run again to grade it"))

    def _take(self, conn, message):
        """A worker's message: a log entry, or ``None`` (it is up); either way it holds
        nothing now."""
        with self.lock:
            self.workers[conn][1] = None
        if message is not None:
            self.results.put(message)

    def map(self, fn, tasks):
        with self.lock:
            self.todo.extend(tasks)
            idle, self.idle = self.idle, []
        for conn in idle:
            self._give(conn)
        taken = 0
        while True:
            while True:                          # grades the workers handed back
                try:
                    entry = self.results.get_nowait()
                except queue.Empty:
                    break
                taken += 1
                yield entry
            with self.lock:
                task = self.todo.popleft() if self.todo else None
            if task is None:
                break
            yield fn(*task)
        while taken < self.given:                # nothing left to take: wait for theirs
            taken += 1
            yield self.results.get()

    def close(self):
        """Stop the workers (each is idle, unless the run was interrupted)."""
        from multiprocessing.connection import wait
        with self.lock:
            processes = [process for process, _ in self.workers.values()]
        if not processes:   # (wait() on nothing would sleep its whole timeout)
            return
        for process in processes:
            process.terminate()
        # Their ends are awaited, not joined: _supervise reaps them.
        stopped = wait([process.sentinel for process in processes], timeout=10)
        for process in processes:
            if process.sentinel not in stopped:
                process.kill()


class _Dask:
    """Tasks on a Dask distributed cluster; each task grades one whole submission."""

    def __init__(self, address):
        from distributed import Client
        self.client = Client(address)

    def map(self, fn, tasks):
        import uuid
        from distributed import as_completed
        run_id = uuid.uuid4().hex[:8]
        futures = {self.client.submit(fn, *task, pure=False, retries=1,
                                      key=f"grade-{task[1]}-{task[2]}-{run_id}"): task
                   for task in tasks}
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as exc:  # e.g. the worker died twice (KilledWorker)
                    yield _failure(futures[future],
                                   f"the cluster gave up: {type(exc).__name__}: {exc}")
        finally:
            self.client.cancel(list(futures))

    def close(self):
        self.client.close()


def run(course_root, assignments, *, jobs=None, scheduler=None, force=False, progress=True):
    """Grade what is pending of ``assignments``; return the log entries of this run.

    ``jobs`` graders on this machine (this process and ``jobs - 1`` workers;
    default: the number of cores), or the workers of the Dask scheduler at
    ``scheduler`` (default: the course's ``CourseSettings.scheduler``).
    """
    course_root = str(Path(course_root).resolve())
    if not assignments:
        raise ValueError("assignments: name at least one problem set (e.g. ps1)")
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs: expected a whole number of workers >= 1, got {jobs!r}")
    config = _config(course_root)
    scheduler = scheduler or CourseSettings(config=config).scheduler or None
    coursedir = _coursedir(config)
    _check_gradebook(coursedir, assignments)
    db_url = coursedir.db_url
    if scheduler and db_url.startswith("sqlite"):
        raise ValueError("db_url: grading on a cluster needs a gradebook on a database server "
                         "(set NBGRADER_DB_URL=postgresql+psycopg://...); SQLite is for one "
                         "machine")
    todo = pending(coursedir, find_submissions(coursedir, assignments), force=force)
    # Workers get the URL this machine resolved (a cluster's workers may not
    # have NBGRADER_DB_URL in their environment).
    tasks = [(course_root, s.assignment, s.student, db_url, s.digest) for s in todo]
    entries = []
    if not tasks:
        return entries
    autograded = Path(coursedir.root, coursedir.autograded_directory)
    autograded.mkdir(parents=True, exist_ok=True)
    # The engine first: local workers are made from this process, before any
    # thread (the progress bar's) starts.
    engine = (_Dask(scheduler) if scheduler else
              _Local(min(jobs, len(tasks)), course_root, db_url, assignments))
    try:
        from tqdm import tqdm
        bar = tqdm(total=len(tasks), unit="submission", disable=not progress,
                   dynamic_ncols=True, desc="autograde", file=sys.stderr)
        try:
            # Every submission is open to every grader at once (one slow
            # submission must not hold up the class). What is shared is made
            # before, or safely by whoever comes first: the gradebook's tables
            # and course row (_check_gradebook), the autograded folder (above)
            # and the course secret (written whole, then linked into place).
            for entry in engine.map(grade_submission, tasks):
                _settle(coursedir, course_root, entry)
                entries.append(entry)
                bar.update(1)
                if entry["status"] != "graded":
                    bar.write(f"FAILED {entry['assignment']}/{entry['student']} "
                              f"({entry['seconds']:.1f} s): {entry['error']}",
                              file=sys.stderr)
        finally:
            bar.close()
    finally:
        engine.close()
    return entries


def _summary(entries, out=sys.stderr):
    failed = [r for r in entries if r["status"] != "graded"]
    seconds = sum(r["seconds"] for r in entries)
    print(f"graded {len(entries) - len(failed)} submission(s), {len(failed)} failed"
          + (f"; {seconds / len(entries):.2f} s of work per submission" if entries else ""),
          file=out)
    for r in failed:
        print(f"  {r['assignment']}/{r['student']}: {r['error']}", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m coursegrader.tools.batch",
        description="Autograde every submission of the given problem sets, in parallel; "
                    "resumable (see gradelog/<ps>.jsonl).")
    parser.add_argument("assignments", nargs="+", help="problem sets, e.g. ps1 ps2")
    parser.add_argument("--course", default=".", help="course folder (default: here)")
    parser.add_argument("-j", "--jobs", type=int, default=None,
                        help="graders: this process and N-1 workers (default: the number of cores)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a Dask scheduler to grade on, e.g. tcp://host:8786 "
                             "(default: the course's CourseSettings.scheduler)")
    parser.add_argument("--force", action="store_true",
                        help="grade every submission again, not only what is pending")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    skip_slow_imports()
    try:
        entries = run(args.course, args.assignments, jobs=args.jobs, scheduler=args.scheduler,
                      force=args.force, progress=not args.no_progress)
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        print("stopped; run again to grade what is left", file=sys.stderr)
        return 130
    _summary(entries)
    return 1 if any(r["status"] != "graded" for r in entries) else 0


if __name__ == "__main__":
    private_files()   # what the command creates is the instructor's alone
    status = main()
    settle()    # every grade is written: the exit need not walk the modules' objects
    sys.exit(status)
