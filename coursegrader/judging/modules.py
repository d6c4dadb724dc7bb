"""The Python modules a student hands in beside the notebook, as the record keeps them.

Code in ``helper.py`` beside the notebook runs before a part's tests as
surely as code in a cell (``import helper``, or through ``sys.path``), so
the record keeps it too, for the similarity check to compare as the
student's: every regular ``.py`` (or ``.pyw``) file under the submission's
folder, and every other file that reads as Python source (a module named
``helper.txt`` and loaded by hand), links never followed, at most
:data:`MAX_MODULES` of them and ``max_bytes`` of source in all, the smallest
first (so that a large one, padding say, cannot push the others out); what
is not kept is counted in ``omitted``. A module is read as Python reads it
when it imports it (:func:`~coursegrader.runners.source_encoding.decoded`:
its coding cookie and byte-order mark honoured), so that what is compared is what runs; one that declares an
unusual encoding, or does not decode, is named (``cell_type``
:data:`UNREAD`), for the check to flag. Code handed in compiled (``.pyc``,
an extension module, an archive holding either or Python source) cannot be
compared: the record names it (``cell_type`` :data:`COMPILED`), for the
check to flag.
"""

import ast
import importlib.util
import os
import re
import stat
import zipfile

from ..record import AnswerCode
from ..runners.source_encoding import decoded
from .cells import shares

__all__ = ["MODULE", "COMPILED", "UNREAD", "MAX_MODULES", "student_modules"]

#: The ``cell_type`` of a module in the record.
MODULE = "module"
#: The ``cell_type`` of code handed in compiled or archived (its source empty).
COMPILED = "compiled"
#: The ``cell_type`` of a module the check cannot read as Python does, or whose
#: encoding only Python should read (``cell``: its path and why; source empty).
UNREAD = "unread"
#: Files of a submission that are not the student's code: the notebooks and
#: what the course's tools write beside them.
_NOT_CODE = (".ipynb", "timestamp.txt", "submission_time.json", ".result.json")
_COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd")
_CODE_IN_ARCHIVE = (".py", ".pyw", ".pyc", ".pyo", ".so", ".pyd")
_MAX_ARCHIVE_BYTES = 16 * 1024**2
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
            elif stat.S_ISREG(info.st_mode) and not entry.name.endswith(_NOT_CODE):
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


def _compiled(folder, rel):
    """Whether file ``rel`` holds code handed in compiled: bytecode, an extension
    module, or an archive with code in it (Python imports from a zip on its path)."""
    if rel.endswith(_COMPILED_SUFFIXES):
        return True
    head = _read(folder, rel, 4)
    if head == importlib.util.MAGIC_NUMBER or head == b"\x7fELF":
        return True
    if head == b"PK\x03\x04":
        if os.lstat(os.path.join(folder, rel)).st_size > _MAX_ARCHIVE_BYTES:
            return True       # too large to list quickly: taken for code, and said
        try:
            with zipfile.ZipFile(os.path.join(folder, rel)) as z:
                return any(n.endswith(_CODE_IN_ARCHIVE) for n in z.namelist()[:10000])
        except (OSError, zipfile.BadZipFile, ValueError):
            return False
    return False


_DATA_NODES = (ast.Expr, ast.Constant, ast.Tuple, ast.List, ast.Name, ast.UnaryOp,
               ast.USub, ast.UAdd, ast.Load, ast.BinOp, ast.Sub, ast.Div)
_PREFIX = 16 * 1024


def _reads_as_python(text, whole):
    """Whether ``text``, the start of a file not named ``.py`` (``whole``: all of
    it), may be Python source: its whole lines parse (where the file goes on,
    its last top-level statement may be cut short), and are not only a table
    of numbers and words (which parses too, as expressions, and is data)."""
    if not whole and "\n" in text:
        text = text[:text.rfind("\n") + 1]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        starts = [m.start() for m in re.finditer(r"\n(?=\S)", text)]
        if whole or not starts:
            return False
        try:
            tree = ast.parse(text[:starts[-1] + 1])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    if not tree.body:                 # comments only, so far: read it whole
        return True
    return not all(isinstance(n, _DATA_NODES) for stmt in tree.body
                   for n in ast.walk(stmt))


def _is_module(folder, rel, size):
    if rel.endswith(_SUFFIXES):
        return True
    head = _read(folder, rel, min(size, _PREFIX))
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:       # not a character cut at the end: binary
            return False
        text = head[:exc.start].decode("utf-8")
    return "\0" not in text and _reads_as_python(text, whole=len(head) == size)


def student_modules(folder, max_bytes):
    """The Python modules under ``folder`` as the record keeps them: an
    :class:`~coursegrader.record.AnswerCode` each (``cell``: its path in the
    folder, ``cell_type``: :data:`MODULE`, or :data:`COMPILED` for code handed
    in compiled), in the order of their paths."""
    found, compiled = [], []
    for rel, size in _modules(folder):
        if _compiled(folder, rel):
            compiled.append(AnswerCode(rel, "", COMPILED, size))
        elif size and _is_module(folder, rel, size):
            found.append((rel, size))
    by_size = sorted(found, key=lambda m: (m[1], m[0]))
    kept, dropped = by_size[:MAX_MODULES], by_size[MAX_MODULES:]
    room = dict(zip([m[0] for m in kept], shares([m[1] for m in kept], max_bytes)))
    out, unread = [], []
    for rel, size in found:
        if rel not in room:
            continue
        data = _read(folder, rel, room[rel])
        text, why = decoded(data, whole=len(data) == size)
        out.append(AnswerCode(rel, text, MODULE, size - len(data)))
        if why:
            unread.append(AnswerCode(f"{rel}: {why}", "", UNREAD, 0))
    if dropped:
        out.append(AnswerCode(f"{len(dropped)} more module(s)", "", MODULE,
                              sum(size for _, size in dropped)))
    return tuple(out) + tuple(compiled[:MAX_MODULES]) + tuple(unread[:MAX_MODULES])
