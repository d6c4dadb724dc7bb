"""The course secret: the key of the hidden cases' streams and of the students' variant codes.

:func:`course_secret` returns ``CourseSettings.secret`` (``$COURSEGRADER_SECRET``)
when set, else the content of the secret file (``.grader_secret`` in the
course folder), which it creates on first use.  Grades and variants depend on
it: keep it.
"""

import logging
import os
import secrets

__all__ = ["SECRET_FILE", "course_secret"]

#: The file holding the course secret, in the course folder.
SECRET_FILE = ".grader_secret"


def course_secret(settings, path, log=None):
    """The course secret of ``settings`` (a ``CourseSettings``), else of the file ``path``."""
    if settings.secret:
        return settings.secret
    path = os.path.abspath(path)
    if not os.path.exists(path):
        # Written whole under another name, then linked into place: workers
        # grading their first submissions at once all end up reading one secret.
        tmp = f"{path}.{os.getpid()}-{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            os.link(tmp, path)
            (log or logging.getLogger(__name__)).info(
                "Created the course secret %s (keep it; grades depend on it)", path)
        except FileExistsError:
            pass          # another worker made it first: use theirs
        finally:
            os.unlink(tmp)
    with open(path) as f:
        value = f.read().strip()
    if not value:
        raise ValueError(f"the course secret file {path} is empty")
    return value
