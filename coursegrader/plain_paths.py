"""Which file paths a submission may hold: plain relative paths, nothing else.

One policy for every place a submission's file names arrive from the student:
the hub's ngshare refuses the others at submit (``deploy/ngshare_service.py``,
which loads this file by its path: the service's environment has no
``coursegrader``), and the instructor's ngshare collect refuses them again
(:mod:`coursegrader.tools.ngshare_collect`). Standard library only.

Names people give their files pass: spaces, apostrophes (``Ada's notes.txt``),
accented letters and any other script. Every place a submitted name is shown
treats it as text (ngshare answers JSON with ``nosniff`` and a CSP that runs
nothing; the course's pages escape it; no shell command is built from it), so
what is refused is refused as a second layer, for names no honest work needs:
``<``, ``>`` and ``"`` (a page's markup and its attribute quotes), ``\\`` (a
folder separator on Windows), control characters (with the line separators
and the marks of text direction, :data:`LAYOUT_CHARS`), a part starting with ``.``
(``..``; hidden files) and ``timestamp.txt`` (the collector writes the
submission's time there). A refusal names the character and a name to rename
the file to (:func:`refusal`).
"""

__all__ = ["path_problem", "refusal", "renamed", "left_out", "MAX_PATH_CHARS"]

#: The file the collector writes the route's time to (:data:`coursegrader.dating.TIMESTAMP`).
TIMESTAMP = "timestamp.txt"
MAX_PATH_CHARS = 255
#: Each character refused in a name, with what :func:`renamed` puts in its place.
REFUSED_CHARS = {"<": "(", ">": ")", '"': "'", "\\": "-"}
#: Folders JupyterLab writes beside every notebook a student opens, which
#: nbgrader means to leave out of a submission (``CourseDirectory.ignore``), but
#: ngshare_exchange's submit sends (it matches file names only): left out, not
#: refused, so that an honest submission goes in.
LEFT_OUT = frozenset({".ipynb_checkpoints"})


def left_out(path):
    """Whether a submitted file is JupyterLab's own, to be left out rather than taken."""
    return isinstance(path, str) and any(part in LEFT_OUT for part in path.split("/"))


#: Characters that are not C0 or C1 controls and still move what a reader sees: the
#: line and paragraph separators (a log or a listing shows a new line there, a
#: line the name forges) and the marks and overrides of text direction (a name
#: shown in another order than it is).
LAYOUT_CHARS = frozenset("\u2028\u2029\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                         "\u2066\u2067\u2068\u2069")


def _control(ch):
    return ord(ch) < 32 or ord(ch) == 127 or 0x80 <= ord(ch) < 0xA0 or ch in LAYOUT_CHARS


def _shown(chars):
    """The characters as a reader can tell them apart: ``'<'``, ``U+0009``."""
    names = [f"U+{ord(ch):04X}" if _control(ch) else f"'{ch}'" for ch in chars]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def path_problem(path):
    """What is wrong with a submitted file's path, or None for a plain one.

    Plain: a relative path of ``/``-separated parts, none empty, none that starts
    with ``.`` (so no ``.`` or ``..``), none named ``timestamp.txt`` (the collector
    writes the route's time there), no control character and none of ``<>"\\``,
    at most :data:`MAX_PATH_CHARS` characters.

    >>> path_problem("data/Ada's notes.txt") is None
    True
    >>> path_problem("a<b>.txt")
    "the characters '<' and '>' in its name, which no submitted file's name may hold"
    """
    if not isinstance(path, str) or not path:
        return "an empty name"
    if len(path) > MAX_PATH_CHARS:
        return f"longer than {MAX_PATH_CHARS} characters"
    control = sorted({ch for ch in path if _control(ch)})
    if control:
        return (f"the control character{'s' if len(control) > 1 else ''} "
                f"{_shown(control)} in its name")
    refused = [ch for ch in REFUSED_CHARS if ch in path]
    if refused:
        return (f"the character{'s' if len(refused) > 1 else ''} {_shown(refused)} in "
                f"its name, which no submitted file's name may hold")
    if path.startswith("/"):
        return "an absolute path"
    for part in path.split("/"):
        if not part:
            return "an empty folder name in its path"
        if part.startswith("."):
            return f"a name starting with '.' ({part!r}), as hidden files' names do"
        if part == TIMESTAMP:
            return (f"a file or folder named {TIMESTAMP} (the collector writes the "
                    f"submission's time there)")
    return None


def renamed(path):
    """A plain path to rename ``path`` to, as close to it as the policy allows.

    >>> renamed('a<b>.txt'), renamed('.notes/timestamp.txt'), renamed('x\\ty')
    ('a(b).txt', 'notes/my-timestamp.txt', 'x y')
    """
    text = "".join(" " if _control(ch) else REFUSED_CHARS.get(ch, ch) for ch in str(path))
    parts = []
    for part in text.split("/"):
        part = part.lstrip(".").strip()   # "..", "." and empty parts go
        if part == TIMESTAMP:
            part = "my-" + TIMESTAMP
        if part:
            parts.append(part)
    return "/".join(parts)[:MAX_PATH_CHARS] or "file"


def refusal(path):
    """The message a student is given for a submitted file ``path``, or None when
    it is plain: what is wrong with it and the name to rename it to."""
    problem = path_problem(path)
    if problem is None:
        return None
    suggestion = renamed(path)
    rename = (f"rename it to {suggestion!r} (or remove it)"
              if path_problem(suggestion) is None else "rename or remove it")
    return (f"file {path!r} refused: {problem}; {rename} in your problem set's folder, "
            f"then submit again")
