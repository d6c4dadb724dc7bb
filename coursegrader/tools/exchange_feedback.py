"""``nbgrader release_feedback`` that leaves each released page readable by its student.

The course's commands create every file as the instructor's alone
(:func:`coursegrader.settings.private_files`), the feedback pages in
``feedback/`` too. nbgrader's folder exchange releases a page with
``shutil.copy``, which copies that mode: the student could then not read
their own feedback. :class:`ReadableReleaseFeedback` gives each released page
the mode nbgrader means it to have (``0644``; ``0664`` for a group-shared
course), as nbgrader does itself for a released assignment. The page is named
by a hash of the student's submission secret in a folder that cannot be
listed, so only its student can find it. Selected in ``nbgrader_config.py``
through nbgrader's exchange factory (``c.ExchangeFactory.release_feedback``).
"""

import glob
import os

from nbgrader.exchange.abc.exchange import ExchangeError
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

__all__ = ["ReadableReleaseFeedback"]


class ReadableReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's folder-exchange release of feedback, pages readable by their student."""

    def copy_files(self):
        # nbgrader stops at the first page whose folder lacks the submission's
        # secret or time (a folder made by hand, not by nbgrader submit), and every
        # student after it gets nothing: such a student is left out and named
        unreleasable = self._without_secret()
        if unreleasable:
            kept = [s for s in (self.coursedir.student_id_exclude or "").split(",") if s]
            self.coursedir.student_id_exclude = ",".join(kept + unreleasable)
        super().copy_files()
        self._readable()
        if unreleasable:
            message = ("feedback not released for " + ", ".join(map(repr, unreleasable)) +
                       " (no submission_secret.txt or timestamp.txt beside the page: the "
                       "submission was not made by nbgrader submit); everyone else's "
                       "was released")
            self.log.error("%s", message)
            raise ExchangeError(message)

    def _without_secret(self):
        missing = set()
        for page in glob.glob(os.path.join(self.src_path, "*.html")):
            folder = os.path.dirname(page)
            if not all(os.path.isfile(os.path.join(folder, name))
                       for name in ("submission_secret.txt", "timestamp.txt")):
                missing.add(os.path.basename(os.path.dirname(folder)))
        return sorted(missing)

    def _readable(self):
        mode = 0o664 if self.coursedir.groupshared else 0o644
        with os.scandir(self.dest_path) as entries:
            for entry in entries:
                if (entry.is_file(follow_symlinks=False) and entry.name.endswith(".html")
                        and entry.stat(follow_symlinks=False).st_uid == os.geteuid()):
                    os.chmod(entry.path, mode)
