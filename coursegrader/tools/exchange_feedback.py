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

import os

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

__all__ = ["ReadableReleaseFeedback"]


class ReadableReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's folder-exchange release of feedback, pages readable by their student."""

    def copy_files(self):
        super().copy_files()
        mode = 0o664 if self.coursedir.groupshared else 0o644
        with os.scandir(self.dest_path) as entries:
            for entry in entries:
                if (entry.is_file(follow_symlinks=False) and entry.name.endswith(".html")
                        and entry.stat(follow_symlinks=False).st_uid == os.geteuid()):
                    os.chmod(entry.path, mode)
