"""Which file paths a submission may hold: plain relative paths, nothing else.

One policy for every place a submission's file names arrive from the student:
the hub's ngshare refuses the others at submit (``deploy/ngshare_service.py``,
which loads this file by its path: the service's environment has no
``coursegrader``), and the instructor's ngshare collect refuses them again
(:mod:`coursegrader.tools.ngshare_collect`). Standard library only.
"""

__all__ = ["path_problem", "left_out", "MAX_PATH_CHARS"]

#: The file the collector writes the route's time to (:data:`coursegrader.dating.TIMESTAMP`).
TIMESTAMP = "timestamp.txt"
MAX_PATH_CHARS = 255
_REFUSED_CHARS = frozenset('<>"\'\\')
#: Folders JupyterLab writes beside every notebook a student opens, which
#: nbgrader means to leave out of a submission (``CourseDirectory.ignore``), but
#: ngshare_exchange's submit sends (it matches file names only): left out, not
#: refused, so that an honest submission goes in.
LEFT_OUT = frozenset({".ipynb_checkpoints"})


def left_out(path):
    """Whether a submitted file is JupyterLab's own, to be left out rather than taken."""
    return isinstance(path, str) and any(part in LEFT_OUT for part in path.split("/"))


def path_problem(path):
    """What is wrong with a submitted file's path, or None for a plain one.

    Plain: a relative path of ``/``-separated parts, none empty, none that starts
    with ``.`` (so no ``.`` or ``..``), none named ``timestamp.txt`` (the collector
    writes the route's time there), no control character and none of ``<>"'\\``,
    at most :data:`MAX_PATH_CHARS` characters.

    >>> path_problem("data/points.csv") is None
    True
    >>> path_problem("timestamp.txt/x")
    "a file or folder named timestamp.txt (the collector writes the submission's time there)"
    """
    if not isinstance(path, str) or not path:
        return "an empty name"
    if len(path) > MAX_PATH_CHARS:
        return f"longer than {MAX_PATH_CHARS} characters"
    if any(ord(ch) < 32 or ord(ch) == 127 or 0x80 <= ord(ch) < 0xA0 for ch in path):
        return "a control character in its name"
    if _REFUSED_CHARS & set(path):
        return "one of < > \" ' \\ in its name"
    if path.startswith("/"):
        return "an absolute path"
    for part in path.split("/"):
        if not part:
            return "an empty folder name in its path"
        if part.startswith("."):
            return f"a name starting with '.' ({part!r})"
        if part == TIMESTAMP:
            return (f"a file or folder named {TIMESTAMP} (the collector writes the "
                    f"submission's time there)")
    return None
