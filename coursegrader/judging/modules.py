"""The Python modules a student hands in beside the notebook, as the record keeps them.

Code in ``helper.py`` beside the notebook runs before a part's tests as
surely as code in a cell (``import helper``, or through ``sys.path``), so
the record keeps it too, for the similarity check to compare as the
student's: every regular ``.py`` (or ``.pyw``) file under the submission's
folder, links never followed, at most :data:`MAX_MODULES` of them and
``max_bytes`` of source in all, the smallest first (so that a large one,
padding say, cannot push the others out); what is not kept is counted in
``omitted``.
"""

import os
import stat

from ..record import AnswerCode
from .cells import shares

__all__ = ["MODULE", "MAX_MODULES", "student_modules"]

#: The ``cell_type`` of a module in the record.
MODULE = "module"
#: Modules kept of one submission; the rest are counted, not kept.
MAX_MODULES = 100
_SUFFIXES = (".py", ".pyw")
_MAX_DEPTH = 16
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _modules(folder):
    """[(relative path, size)] of the regular Python files under ``folder``."""
    found, folders = [], [("", 0)]
    while folders:
        rel, depth = folders.pop()
        try:
            entries = list(os.scandir(os.path.join(folder, rel)))
        except OSError:
            continue
        for entry in entries:
            path = os.path.join(rel, entry.name)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and depth < _MAX_DEPTH:
                folders.append((path, depth + 1))
            elif stat.S_ISREG(info.st_mode) and entry.name.endswith(_SUFFIXES):
                found.append((path, info.st_size))
    return sorted(found)


def _read(folder, rel, size):
    try:
        fd = os.open(os.path.join(folder, rel), _FLAGS)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        chunks, left = [], size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def student_modules(folder, max_bytes):
    """The Python modules under ``folder`` as the record keeps them: an
    :class:`~coursegrader.record.AnswerCode` each (``cell``: its path in the
    folder, ``cell_type``: :data:`MODULE`), in the order of their paths."""
    found = _modules(folder)
    by_size = sorted(found, key=lambda m: (m[1], m[0]))
    kept, dropped = by_size[:MAX_MODULES], by_size[MAX_MODULES:]
    room = dict(zip([m[0] for m in kept], shares([m[1] for m in kept], max_bytes)))
    out = []
    for rel, size in found:
        if rel not in room:
            continue
        raw = _read(folder, rel, room[rel])
        text = raw.decode("utf-8", "ignore")
        out.append(AnswerCode(rel, text, MODULE, size - len(text.encode("utf-8"))))
    if dropped:
        out.append(AnswerCode(f"{len(dropped)} more module(s)", "", MODULE,
                              sum(size for _, size in dropped)))
    return tuple(out)
