"""ngshare's collect: each student alone, plain file paths only, dated by the service.

ngshare dates a submission itself, when it receives it, and its collect writes
that time as ``timestamp.txt``, after the student's files, so in place of any
the student sent. :class:`DatedNgshareCollect` records that the time is the
service's (:mod:`coursegrader.dating`). The hub's instructor environment
selects it when its exchange is ngshare (``deploy/user_nbgrader_config.py``).

ngshare stores any relative path a student sends, and ngshare_exchange's own
collect writes one student after another with nothing caught: a submission
holding a folder ``timestamp.txt/`` made it raise at that student, every time,
and nobody after her was collected. Here each student is collected alone, into
a staging folder put in place whole; a submission with a path that is not a
plain relative file path (:func:`coursegrader.plain_paths.path_problem`) is
refused before anything is written (JupyterLab's checkpoints are left out);
and the command collects everyone it can, then fails (a non-zero exit) naming
each student not collected and why.
"""

import os
import shutil
import tempfile

from ngshare_exchange.collect import ExchangeCollect as NgshareCollect

from .. import dating
from .. import plain_paths
from ..plain_paths import path_problem
from .exchange_collect import service_dating

__all__ = ["DatedNgshareCollect"]


class DatedNgshareCollect(NgshareCollect):
    """ngshare's collect, one student at a time; each collected folder says its time
    is the service's."""

    def copy_files(self):
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
        refused = []
        for record in self.src_records:
            student = record["student_id"]
            try:
                self._collect(record)
            except Exception as exc:   # this student's submission only, never the class
                refused.append(f"{student!r}: not collected ({type(exc).__name__}: {exc})")
        if refused:
            for line in refused:
                self.log.error("%s", line)
            self.fail(f"collect of {self.coursedir.assignment_id}: everyone else was "
                      f"collected; {len(refused)} submission(s) were not:\n  "
                      + "\n  ".join(refused))

    def _collect(self, record):
        student, assignment = record["student_id"], self.coursedir.assignment_id
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student,
                                          assignment)
        if os.path.isdir(dest):
            if not (self.update and dating.newer_than_collected(dest, record["timestamp"])):
                self.log.info("No newer submission to collect (use --update): %s %s",
                              student, assignment)
                return
            self.log.info("Updating submission: %s %s", student, assignment)
        else:
            self.log.info("Collecting submission: %s %s", student, assignment)
        submission = self._get_submission(self.coursedir.course_id, assignment, student)
        if submission is None:
            raise ValueError("ngshare did not send the submission")
        # the last file is the service's time, appended by ngshare_exchange;
        # JupyterLab's checkpoints, which its submit sends, are left out
        files = [entry for entry in submission["files"][:-1]
                 if not plain_paths.left_out(entry.get("path"))] + submission["files"][-1:]
        for entry in files[:-1]:
            problem = path_problem(entry.get("path"))
            if problem:
                raise ValueError(f"refused: file {entry.get('path')!r}: {problem}")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        # written beside, then put in place whole: a submission that fails half-way
        # leaves nothing of itself, and the student's previous one as it was
        staging = tempfile.mkdtemp(prefix=f".{assignment}-collecting-",
                                   dir=os.path.dirname(dest))
        try:
            self.do_copy(files, staging)
            if os.path.isdir(dest):
                shutil.rmtree(dest)
            os.rename(staging, dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            try:
                os.rmdir(os.path.dirname(dest))   # a first submission that failed
            except OSError:
                pass

    def do_copy(self, src, dest):
        super().do_copy(src, dest)
        dating.write(dest, service_dating(src), timestamp=False)
