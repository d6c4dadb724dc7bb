"""Whether a part's process runs code the submission did not hand in as source.

Every piece of Python a process runs was compiled from source text, loaded
compiled, or built by hand, and each of these raises an audit event before
it happens: ``compile`` (for ``compile``, ``exec`` and ``eval`` of text,
``ast.parse``, and the import of a ``.py`` file without a cached ``.pyc``),
``marshal.loads`` / ``marshal.load`` (for every ``.pyc`` an import reads, and
for any other compiled code) and ``code.__new__`` (``types.CodeType``,
``code.replace``).  :func:`watch` installs the hook that judges each of them
against what the grader handed the process, so no list of the libraries
that run code (``code``, ``codeop``, ``timeit``, ``cProfile``, ``doctest``,
``pdb``, ``pickle``, ...) is needed: whatever runs it, it goes through one of
these events.

A compile counts (it is code not handed in) unless

* its text is one of the submission's own, under its own name: a code cell
  the grader sent (``<cell N>``), or a file handed in beside the notebook,
  byte for byte (a string written out in one, ``exec("...")``, is not: the
  similarity check reads no string; nor is a cell's text compiled under an
  installed module's name, which would pass its code off as that module's;
  nor a cell's text compiled from its bytes, by the import of a file it was
  written to, say, when they declare an encoding under which Python reads
  other text than the cell's: ``# coding: utf-7`` makes a line that every
  reader takes for a comment a whole program to Python
  (:func:`~.source_encoding.unusual_in_a_file`); the event shows a str's UTF-8
  bytes as it shows bytes, so only the runner's own compile of the cell from
  its text, its cookie unread, is the cell's);
* its text is a string written out in the submission (a constant of a cell or
  a module) that adds no code of its own (:func:`adds_no_code`: ``pass``, or
  one expression such as ``f(X)``, ``1 + 1``): ``exec("f(X)")``,
  ``code.InteractiveInterpreter().runsource("f(X)")``;
* it names a regular file outside the submission's folders, under a folder
  of the import path as it was when the hook was installed (the installed
  packages and the standard library) or not writable by the process, and
  its text is that file's: the import of an installed module from its source;
* it is the standard library generating code from names it checks are
  identifiers: :func:`collections.namedtuple`, and the methods of a
  :mod:`dataclasses` class whose fields are all named by identifiers;
* it happens while an installed module runs its own code at import (scipy
  generates ``from numpy import *`` for its array API, say): the module's
  code is the one the standard import system loaded from that installed file;
* it is :class:`timeit.Timer` compiling its template around statements that
  are functions, or strings written out in the submission that add no code
  of their own (``timeit.timeit("f(X)")``; not ``"y = f(X)"``, two statements,
  or a call in the arguments, ``"exec(bytes.fromhex('...'))"``);
* it is :class:`typing.ForwardRef` compiling a type written as text (an
  annotation in quotes, numpy's among them) that is only names, dots,
  subscripts and ``|``: no call, so no code of its own.

:func:`adds_no_code` is the one rule for a string of code: the similarity
check (:mod:`coursegrader.similarity.material`) flags a runner of source text
called on a string written out that it refuses, as this watch reports it.

Compiled code counts unless it is the standard import system, unchanged,
reading a ``.pyc`` file installed outside the submission's folders (the file
it read, not the one it was asked for); a code object built
by hand always counts.  Each one that counts is handed to ``report``, which
must either record it where the process cannot take it back or end the
process, so that it does not run.

Nothing the part's code can reach changes what the watch decides or what it
reports.  The part's code shares the interpreter: it can rebind any name of
any module (``sys.modules``), of ``builtins``, and read the frames of the
hook when one is on the stack (through a traceback, a signal handler, or an
object of its own the hook compares).  So the hook and every function it
calls (:func:`_hook`) look up no name at run time: each takes what it uses
as a default argument bound when the watch was installed -- functions of
the interpreter's written in C, frozen sets and tuples, code objects, and
functions of the same kind -- and closes over nothing (a closure's cells
can be rewritten); paths are resolved by the kernel (``/proc/self/fd``),
not by :func:`os.path.realpath`, whose module the part can change.  What a
frame shows of these is a copy that changes nothing, and the hook refuses
changing the code or the defaults of any of them (the ``object.__setattr__``
event), ``report`` included.  Whatever fails while the hook judges a piece
of code (an exception of any kind) reports it.
"""

import ast
import collections
import dataclasses
import functools
import os
import re
import stat
import sys
import timeit
import types
import typing

from .source_encoding import unusual_in_a_file

__all__ = ["adds_no_code", "watch", "written_out", "FILES_READ_BYTES"]

_IMPORT_SYSTEM = "<frozen importlib._bootstrap_external>"


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _text_bytes(source):
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    return None


#: A type written as text that calls nothing: ``"np.ndarray"``, ``"dict[str, int] | None"``.
_TYPE_TEXT = re.compile(r"[\w.\[\], |'\"]*")


#: What a string of code that adds no code of its own is made of, besides its
#: one call: names, attributes, constants, containers, subscripts, operators.
_PLAIN = (ast.Name, ast.Attribute, ast.Constant, ast.Load, ast.List, ast.Tuple, ast.Dict,
          ast.Set, ast.Subscript, ast.Slice, ast.Starred, ast.UnaryOp, ast.BinOp,
          ast.unaryop, ast.operator)


def adds_no_code(text):
    """Whether the string of code ``text`` adds no code of its own when a runner of
    source text (``timeit``, ``exec``, ``code``, ``doctest``...) runs it: ``pass``,
    or one expression of names, attributes, constants, containers, subscripts and
    operators that is itself at most one call of a named function
    (``"f(X)"``, ``"np.dot(A, B)"``, ``"f(X, lam=2 * c)"``, ``"1 + 1"``). What
    such a string runs is code compared elsewhere (the submission's function,
    a library's). Anything more is code no comparison reads, since strings are
    never compared: an assignment, a second statement, a call in the arguments
    (``"exec(bytes.fromhex('...'))"``), a comprehension, a lambda.

    >>> adds_no_code("f(X)"), adds_no_code("pass"), adds_no_code("y = f(X)")
    (True, True, False)
    >>> adds_no_code("f(X); g(X)"), adds_no_code("exec(bytes.fromhex('00'))")
    (False, False)
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, TypeError):
        return False
    if len(tree.body) != 1:
        return False
    statement = tree.body[0]
    if isinstance(statement, ast.Pass):
        return True
    if not isinstance(statement, ast.Expr):
        return False
    parts = [statement.value]
    if isinstance(statement.value, ast.Call):
        call = statement.value
        if not all(isinstance(x, (ast.Name, ast.Attribute, ast.Load))
                   for x in ast.walk(call.func)):
            return False
        parts = call.args + [k.value for k in call.keywords]
    return all(isinstance(x, _PLAIN) for part in parts for x in ast.walk(part))


#: Bytes of the files handed in whose strings :func:`written_out` reads, smallest
#: file first; Python parses a megabyte of source in one to five seconds, and a
#: module of 10 MB that no part imports held every part past its time.  A string
#: of the files beyond it that a part runs is reported, as code not handed in is.
FILES_READ_BYTES = 1024 * 1024


def written_out(sources, limit=None):
    """The strings written out in ``sources`` (texts, as str or bytes) that add no
    code of their own (:func:`adds_no_code`), as UTF-8 bytes without the spaces
    around; with ``limit``, of the smallest texts that hold ``limit`` bytes in
    all.  The part runner reads its files' once, before it forks its parts
    (:func:`watch`'s ``files_written``)."""
    found = set()
    if limit is not None:
        kept, total = [], 0
        for text in sorted(sources, key=len):
            total += len(text)
            if total > limit:
                break
            kept.append(text)
        sources = kept
    for text in sources:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) \
                    and adds_no_code(n.value):
                found.add(n.value.strip().encode("utf-8", "surrogatepass"))
    return frozenset(found)


def _roots(paths):
    """``(path, path + "/")`` for each of ``paths``, as :func:`_hook`'s ``under`` takes them."""
    return tuple((p, p.rstrip(os.sep) + os.sep) for p in paths)


def watch(sources, own_dirs, report, *, cells_run_by=None, files=(), files_written=None):
    """Install the audit hook (permanent for the life of the process).

    ``sources``: the texts handed in (the code cells as sent, the modules'
    bytes), read before any student code runs; ``own_dirs``: the folders
    that hold the submission's files or that the process can write;
    ``report(description)`` is called for each piece of code that was not
    handed in (``description`` says which event, through which module), before
    it runs; it must be built as the hook's functions are (see :func:`_hook`);
    ``cells_run_by``: the code of the runner's function that compiles each cell
    from its text, a str held in its variable ``source`` (a cell's coding cookie
    is then unread, as in the notebook); ``files``: the bytes of the files handed
    in, and ``files_written`` their :func:`written_out`, when worked out already
    (once for every part).
    """
    cells = [b for b in map(_text_bytes, sources) if b is not None]
    known = frozenset(cells) | frozenset(files)
    if files_written is None:
        files_written = written_out(files, FILES_READ_BYTES)
    # a cell's text (a str) read as Python reads it from a file: the same, or not
    unusual = tuple((_text_bytes(s), e) for s, e in
                    ((s, unusual_in_a_file(s)) for s in sources if isinstance(s, str))
                    if e is not None)
    own = tuple(os.path.realpath(d) for d in own_dirs)
    installed = tuple(p for p in (os.path.realpath(d) for d in sys.path if d)
                      if os.path.isdir(p) and not _under(p, own)
                      and not any(_under(d, (p,)) for d in own))
    sys.addaudithook(_hook(known, written_out(cells) | files_written, _roots(own),
                           _roots(installed), report, unusual, cells_run_by))


def _hook(known, written, own, installed, report, unusual=(), runs_cells=None):
    """The audit hook of :func:`watch`, and the functions it calls.

    Each function below takes all it uses as default arguments (the values
    they hold when it is defined: see the module's notes); none names a global
    or a variable of this function in its body, which
    ``tests/grading/test_code_origin.py`` checks.  ``unusual``: ``(bytes, encoding)``
    of each cell whose bytes, compiled as bytes, Python reads as other text than
    the cell's (:func:`~.source_encoding.unusual_in_a_file`); ``runs_cells``: the
    ``cells_run_by`` of :func:`watch`.
    """
    import importlib._bootstrap_external as external

    missing = object()

    def text_bytes(source, _type=type, _bytes=bytes, _str=str, _subclass=type.__subclasscheck__,
                   _str_encode=str.encode, _view=memoryview, _tobytes=memoryview.tobytes,
                   _buffers=(bytes, bytearray, memoryview)):
        """The bytes of source text ``source`` (None for a syntax tree); a subclass's
        methods are never called."""
        kind = _type(source)
        if kind is _bytes:
            return source
        if _subclass(_str, kind):
            return _str_encode(source, "utf-8", "surrogatepass")
        for buffer in _buffers:
            if _subclass(buffer, kind):
                return _tobytes(_view(source))
        return None

    def under(path, roots, _startswith=str.startswith):
        """Whether the resolved path ``path`` (a str) is one of ``roots`` or inside one."""
        for root, prefix in roots:
            if path == root or _startswith(path, prefix):
                return True
        return False

    def resolve(path, _open=os.open, _close=os.close, _readlink=os.readlink,
                _flags=os.O_PATH | os.O_CLOEXEC, _Exception=Exception):
        """The file the str ``path`` names, as the kernel resolves it; None if none."""
        try:
            fd = _open(path, _flags)
        except _Exception:
            return None
        try:
            return _readlink("/proc/self/fd/%d" % fd)
        except _Exception:
            return None
        finally:
            _close(fd)

    # a path names the same file for the part's life, but for links it made in its
    # own folders, which count as its own whatever they point to
    cached = functools.lru_cache(maxsize=4096)(resolve)

    def realpath(path, _type=type, _str=str, _cached=cached):
        """``resolve(path)`` for a str (never a subclass, whose hash is its own); else None."""
        return _cached(path) if _type(path) is _str else None

    def own_name(filename, _type=type, _str=str, _startswith=str.startswith,
                 _realpath=realpath, _under=under, _own=own):
        """Whether ``filename`` is a name the submission's own code is compiled under:
        a cell's (``<cell N>``, as the runner names them) or a file of its own.  Its
        text under any other name (an installed module's, say) is not its own."""
        if _type(filename) is not _str:
            return False
        if _startswith(filename, "<cell "):
            return True
        if _startswith(filename, "<"):
            return False
        path = _realpath(filename)
        return path is not None and _under(path, _own)

    def isfile(path, _stat=os.stat, _isreg=stat.S_ISREG, _Exception=Exception):
        try:
            return _isreg(_stat(path).st_mode)
        except _Exception:
            return False

    def installed_file(path, _under=under, _own=own, _installed=installed, _isfile=isfile,
                       _access=os.access, _W_OK=os.W_OK):
        """Whether ``path`` (resolved) is a file the part did not write: outside its
        folders, and under the import path or not writable by it (an editable
        install, the course's own package in the sandbox, both read-only)."""
        return path is not None and not _under(path, _own) and _isfile(path) and (
            _under(path, _installed) or not _access(path, _W_OK))

    def file_text(filename, text, _type=type, _str=str, _startswith=str.startswith,
                  _realpath=realpath, _installed_file=installed_file, _open=os.open,
                  _read=os.read, _close=os.close, _flags=os.O_RDONLY | os.O_CLOEXEC,
                  _len=len, _Exception=Exception):
        """Whether ``filename`` is an installed file whose text is ``text``."""
        if _type(filename) is not _str or _startswith(filename, "<"):
            return False
        path = _realpath(filename)
        if not _installed_file(path):
            return False
        try:
            fd = _open(path, _flags)
        except _Exception:
            return False
        try:
            data, want = b"", _len(text) + 1
            while _len(data) < want:
                chunk = _read(fd, want - _len(data))
                if not chunk:
                    break
                data += chunk
            return data == text
        except _Exception:
            return False
        finally:
            _close(fd)

    def entry(frame, _own_name=own_name, _type=type, _str=str, _rpartition=str.rpartition):
        """Where the code came in (``file: function``): the outermost library frame
        the student's code called, or the student's own frame."""
        last = frame
        while frame is not None and not _own_name(frame.f_code.co_filename):
            last, frame = frame, frame.f_back
        name, function = last.f_code.co_filename, last.f_code.co_name
        name = _rpartition(name, "/")[2] if _type(name) is _str else "?"
        return name + ": " + (function if _type(function) is _str else "?")

    def found(cls, name, _mro=type.__dict__["__mro__"].__get__,
              _vars=type.__dict__["__dict__"].__get__, _get=types.MappingProxyType.get,
              _missing=missing):
        """``cls``'s attribute ``name`` as its classes hold it, without running any
        descriptor (something put there could run code)."""
        for k in _mro(cls):
            value = _get(_vars(k), name, _missing)
            if value is not _missing:
                return value
        return None

    def locals_of(frame, _type=type, _dict=dict):
        """The variables of a function's ``frame`` (a dict; an empty one otherwise)."""
        variables = frame.f_locals
        return variables if _type(variables) is _dict else {}

    def read_otherwise(frame, text, _unusual=unusual, _texts=frozenset(b for b, _ in unusual),
                       _runs_cells=runs_cells, _locals=locals_of, _get=dict.get, _type=type,
                       _str=str):
        """The encoding a cell's bytes ``text`` declare, compiled by ``frame`` so that
        Python reads other text than the cell's: any compile of them but the runner
        compiling the cell from its text (a str: its cookie unread, as the notebook
        runs it; the audit event shows a str's bytes, so the frame tells); else None."""
        if text is None or text not in _texts:
            return None
        if frame.f_code is _runs_cells and _type(_get(_locals(frame), "source")) is _str:
            return None
        for cell, encoding in _unusual:
            if cell == text:
                return encoding
        return None

    def generated(frame, text, _namedtuple=collections.namedtuple.__code__,
                  _timer=timeit.Timer.__init__.__code__,
                  _forward=typing.ForwardRef.__init__.__code__,
                  _create_fn=dataclasses._create_fn.__code__,
                  _process_class=dataclasses._process_class.__code__,
                  _locals=locals_of, _get=dict.get, _type=type, _str=str, _dict=dict,
                  _callable=callable, _text_bytes=text_bytes, _strip=bytes.strip,
                  _written=written, _type_text=_TYPE_TEXT.fullmatch, _decode=bytes.decode,
                  _class_dict=type.__dict__["__dict__"].__get__,
                  _proxy_get=types.MappingProxyType.get, _isidentifier=str.isidentifier):
        """Whether ``frame`` is the standard library compiling ``text`` it generated
        from identifiers, or a type written as text."""
        code = frame.f_code
        if code is _namedtuple:
            return True     # it checks every name is an identifier before generating
        if code is _timer:
            variables = _locals(frame)
            for v in (_get(variables, "stmt"), _get(variables, "setup")):
                if _callable(v):
                    continue
                if _type(v) is not _str:
                    return False
                if v != "pass" and _strip(_text_bytes(v)) not in _written:   # "pass": its default
                    return False
            return True
        if code is _forward:
            return text is not None and _type_text(_decode(text, "utf-8", "replace")) is not None
        if code is not _create_fn:
            return False
        up = frame.f_back
        while up is not None and up.f_code is not _process_class:
            up = up.f_back
        if up is None:
            return False
        cls = _get(_locals(up), "cls")
        if _type(cls) is not _type:   # a metaclass could answer differently each time
            return False
        annotations = _proxy_get(_class_dict(cls), "__annotations__", {})
        if _type(annotations) is not _dict:
            return False
        for name in annotations:
            if _type(name) is not _str or not _isidentifier(name):
                return False
        return True

    def standard(loader, _type=type, _str=str, _dict=dict, _get=dict.get,
                 _loaders=(external.SourceFileLoader, external.SourcelessFileLoader),
                 _get_data=external.FileLoader.get_data,
                 _get_codes=(external.SourceLoader.get_code,
                             external.SourcelessFileLoader.get_code),
                 _instance_dict=object.__getattribute__, _found=found, _realpath=realpath,
                 _installed_file=installed_file, _Exception=Exception):
        """Whether ``loader`` is the import system's own, unchanged, for a file
        installed outside the submission."""
        kind = _type(loader)
        if kind is not _loaders[0] and kind is not _loaders[1]:
            return False    # nothing of the student's runs in the hook
        try:
            variables = _instance_dict(loader, "__dict__")
        except _Exception:
            return False
        if _type(variables) is not _dict or "get_data" in variables \
                or "get_code" in variables:
            return False
        get_code = _found(kind, "get_code")
        if _found(kind, "get_data") is not _get_data \
                or get_code is not _get_codes[0] and get_code is not _get_codes[1]:
            return False
        return _installed_file(_realpath(_get(variables, "path")))

    def importing_installed(frame, _own_name=own_name, _locals=locals_of, _get=dict.get,
                            _type=type, _str=str, _standard=standard, _realpath=realpath,
                            _instance_dict=object.__getattribute__,
                            _exec_module=external._LoaderBasics.exec_module.__code__,
                            _with_frames_removed=external._bootstrap
                            ._call_with_frames_removed.__code__):
        """Whether ``frame`` runs for an installed module's own code, as the import
        system runs it, called by no code of the submission's in between."""
        while frame is not None and not _own_name(frame.f_code.co_filename):
            code = frame.f_code
            if _type(code.co_name) is _str and code.co_name == "<module>":
                up = frame.f_back
                runs = up.f_back if up is not None else None
                if up is not None and up.f_code is _with_frames_removed \
                        and runs is not None and runs.f_code is _exec_module:
                    variables = _locals(runs)
                    loader = _get(variables, "self")
                    if _get(variables, "code") is code and _standard(loader):
                        path = _realpath(code.co_filename)
                        if path is not None and path == _realpath(
                                _get(_instance_dict(loader, "__dict__"), "path")):
                            return True
            frame = frame.f_back
        return False

    def imported_pyc(frame, _locals=locals_of, _get=dict.get, _standard=standard,
                     _realpath=realpath, _installed_file=installed_file,
                     _compile_bytecode=external._compile_bytecode.__code__,
                     _source_get_code=external.SourceLoader.get_code.__code__,
                     _sourceless_get_code=external.SourcelessFileLoader.get_code.__code__):
        """Whether ``frame`` (the caller of marshal.loads) is the import system
        reading a ``.pyc`` file outside the submission (the file it read)."""
        if frame.f_code is not _compile_bytecode:
            return False
        up = frame.f_back
        if up is None:
            return False
        if up.f_code is _source_get_code:
            read = "bytecode_path"
        elif up.f_code is _sourceless_get_code:
            read = "path"
        else:
            return False
        variables = _locals(up)
        return _standard(_get(variables, "self")) \
            and _installed_file(_realpath(_get(variables, read)))

    def hook(event, args, _getframe=sys._getframe, _report=report, _text_bytes=text_bytes,
             _known=known, _written=written, _strip=bytes.strip, _own_name=own_name,
             _generated=generated, _file_text=file_text,
             _importing_installed=importing_installed, _imported_pyc=imported_pyc,
             _entry=entry, _read_otherwise=read_otherwise, _id=id, _protected=frozenset(),
             _Refused=PermissionError, _BaseException=BaseException):
        if event == "compile":
            try:
                frame = _getframe(1)
                text = _text_bytes(args[0])
                encoding = _read_otherwise(frame, text)
                if encoding is not None:    # a cell's bytes, read as other text
                    what = "source text in an unusual encoding (" + encoding + ")"
                elif text is not None and (text in _known and _own_name(args[1])
                                           or _strip(text) in _written):
                    return
                elif _generated(frame, text) or text is not None and _file_text(args[1], text) \
                        or _importing_installed(frame):
                    return
                else:
                    what = "source text compiled" if text is not None \
                        else "a syntax tree compiled"
                description = what + " (" + _entry(frame) + ")"
            except _BaseException:
                description = "code compiled (where from could not be told)"
            _report(description)
        elif event == "marshal.loads" or event == "marshal.load":
            try:
                frame = _getframe(1)
                if event == "marshal.loads" and _imported_pyc(frame):
                    return
                description = "compiled code loaded (" + _entry(frame) + ")"
            except _BaseException:
                description = "compiled code loaded (where from could not be told)"
            _report(description)
        elif event == "code.__new__":
            try:
                description = "a code object built by hand (" + _entry(_getframe(1)) + ")"
            except _BaseException:
                description = "a code object built by hand (where from could not be told)"
            _report(description)
        elif event == "object.__setattr__" and _id(args[0]) in _protected:
            raise _Refused("changing the grader's own functions is not allowed in graded code")

    family = (text_bytes, under, resolve, realpath, own_name, isfile, installed_file,
              file_text, read_otherwise, entry, found, locals_of, generated, standard, importing_installed,
              imported_pyc, hook, report)
    hook.__defaults__ = hook.__defaults__[:-3] + (
        frozenset(id(f) for f in family), PermissionError, BaseException)
    return hook
