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
  installed module's name, which would pass its code off as that module's);
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
must either record it where the process cannot take it back or raise, so
that it does not run.
"""

import ast
import collections
import dataclasses
import functools
import os
import re
import sys
import timeit
import typing

__all__ = ["adds_no_code", "watch"]

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


def _written_out(sources):
    """The strings written out in ``sources`` (texts, as bytes) that add no code of
    their own (:func:`adds_no_code`), as UTF-8 bytes without the spaces around."""
    found = set()
    for text in sources:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) \
                    and adds_no_code(n.value):
                found.add(n.value.strip().encode("utf-8", "surrogatepass"))
    return frozenset(found)


def _found(cls, name):
    """``cls``'s attribute ``name`` as its classes hold it, without running any
    descriptor (something put there could run code)."""
    for k in cls.__mro__:
        if name in k.__dict__:
            return k.__dict__[name]
    return None


def _identifiers(names):
    return all(type(n) is str and n.isidentifier() for n in names)


def watch(sources, own_dirs, report):
    """Install the audit hook (permanent for the life of the process).

    ``sources``: the texts handed in (the code cells as sent, the modules'
    bytes), read before any student code runs; ``own_dirs``: the folders
    that hold the submission's files or that the process can write;
    ``report(description)`` is called for each piece of code that was not
    handed in (``description`` says which event, through which module), before
    it runs.
    """
    known = frozenset(b for b in map(_text_bytes, sources) if b is not None)
    written = _written_out(known)
    timer_code = timeit.Timer.__init__.__code__
    own_dirs = tuple(os.path.realpath(d) for d in own_dirs)
    installed = tuple(p for p in (os.path.realpath(d) for d in sys.path if d)
                      if os.path.isdir(p) and not _under(p, own_dirs)
                      and not any(_under(d, (p,)) for d in own_dirs))
    namedtuple_code = collections.namedtuple.__code__
    create_fn_code = dataclasses._create_fn.__code__
    process_class_code = dataclasses._process_class.__code__
    forward_ref_code = typing.ForwardRef.__init__.__code__
    import importlib._bootstrap_external as external
    compile_bytecode_code = external._compile_bytecode.__code__
    get_code_codes = (external.SourceLoader.get_code.__code__,
                      external.SourcelessFileLoader.get_code.__code__)
    get_codes = (external.SourceLoader.get_code, external.SourcelessFileLoader.get_code)
    loaders = (external.SourceFileLoader, external.SourcelessFileLoader)
    exec_module_code = external._LoaderBasics.exec_module.__code__
    with_frames_removed_code = external._bootstrap._call_with_frames_removed.__code__
    get_data = external.FileLoader.get_data
    # a path names the same file for the part's life, but for links it made in its
    # own folders, which count as its own whatever they point to
    realpath = functools.lru_cache(maxsize=4096)(os.path.realpath)
    isfile, getframe = os.path.isfile, sys._getframe

    def own_name(filename):
        """Whether ``filename`` is a name the submission's own code is compiled under:
        a cell's (``<cell N>``, as the runner names them) or a file of its own.  Its
        text under any other name (an installed module's, say) is not its own."""
        if type(filename) is not str:
            return False
        if filename.startswith("<cell "):
            return True
        return not filename.startswith("<") and _under(realpath(filename), own_dirs)

    def students(frame):
        """Whether ``frame`` runs code of the submission (a cell, or a file of its own)."""
        name = frame.f_code.co_filename
        if name.startswith("<cell "):
            return True
        return not name.startswith("<") and _under(realpath(name), own_dirs)

    def entry(frame):
        """Where the code came in (``file: function``): the outermost library frame
        the student's code called, or the student's own frame."""
        last = frame
        while frame is not None and not students(frame):
            last, frame = frame, frame.f_back
        return f"{os.path.basename(last.f_code.co_filename)}: {last.f_code.co_name}"

    def installed_file(path):
        """Whether ``path`` (resolved) is a file the part did not write: outside its
        folders, and under the import path or not writable by it (an editable
        install, the course's own package in the sandbox, both read-only)."""
        return not _under(path, own_dirs) and isfile(path) and (
            _under(path, installed) or not os.access(path, os.W_OK))

    def file_text(filename, text):
        """Whether ``filename`` is an installed file whose text is ``text``."""
        if type(filename) is not str or filename.startswith("<"):
            return False
        try:
            path = realpath(filename)
            if not installed_file(path) or not isfile(path):
                return False
            with open(path, "rb") as f:
                return f.read(len(text) + 1) == text
        except (OSError, ValueError):
            return False

    def generated(frame, text):
        """Whether ``frame`` is the standard library compiling ``text`` it generated
        from identifiers, or a type written as text."""
        code = frame.f_code
        if code is namedtuple_code:
            return True     # it checks every name is an identifier before generating
        if code is timer_code:
            return all(callable(v) or type(v) is str and (
                v == "pass" or _text_bytes(v).strip() in written)   # "pass": its default
                       for v in (frame.f_locals.get("stmt"), frame.f_locals.get("setup")))
        if code is forward_ref_code:
            return text is not None and _TYPE_TEXT.fullmatch(
                text.decode("utf-8", "replace")) is not None
        if code is not create_fn_code:
            return False
        up = frame.f_back
        while up is not None and up.f_code is not process_class_code:
            up = up.f_back
        if up is None:
            return False
        cls = up.f_locals.get("cls")
        if type(cls) is not type:   # a metaclass could answer differently each time
            return False
        annotations = cls.__dict__.get("__annotations__", {})
        return type(annotations) is dict and _identifiers(annotations)

    def standard(loader):
        """Whether ``loader`` is the import system's own, unchanged, for a file
        installed outside the submission."""
        if type(loader) not in loaders:     # nothing of the student's runs in the hook
            return False
        path = vars(loader).get("path")
        return not {"get_data", "get_code"} & set(vars(loader)) \
            and _found(type(loader), "get_data") is get_data \
            and any(_found(type(loader), "get_code") is f for f in get_codes) \
            and type(path) is str and installed_file(realpath(path))

    def importing_installed(frame):
        """Whether ``frame`` runs for an installed module's own code, as the import
        system runs it, called by no code of the submission's in between."""
        while frame is not None and not students(frame):
            if frame.f_code.co_name == "<module>":
                up = frame.f_back
                runs = up.f_back if up is not None else None
                if up is not None and up.f_code is with_frames_removed_code \
                        and runs is not None and runs.f_code is exec_module_code \
                        and runs.f_locals.get("code") is frame.f_code \
                        and standard(runs.f_locals.get("self")) \
                        and realpath(frame.f_code.co_filename) \
                        == realpath(vars(runs.f_locals["self"])["path"]):
                    return True
            frame = frame.f_back
        return False

    def imported_pyc(frame):
        """Whether ``frame`` (the caller of marshal.loads) is the import system
        reading a ``.pyc`` file outside the submission."""
        if frame.f_code is not compile_bytecode_code:
            return False
        up = frame.f_back
        if up is None or not any(up.f_code is c for c in get_code_codes):
            return False
        read = up.f_locals.get("bytecode_path" if up.f_code is get_code_codes[0] else "path")
        return standard(up.f_locals.get("self")) and type(read) is str \
            and installed_file(realpath(read))

    def hook(event, args):
        if event == "compile":
            frame = getframe(1)
            source, filename = args[0], args[1]
            text = _text_bytes(source)
            if text is not None and (text in known and own_name(filename)
                                     or text.strip() in written):
                return
            if generated(frame, text) or text is not None and file_text(filename, text) \
                    or importing_installed(frame):
                return
            what = "source text compiled" if text is not None else "a syntax tree compiled"
            report(f"{what} ({entry(frame)})")
        elif event in ("marshal.loads", "marshal.load"):
            frame = getframe(1)
            if event == "marshal.loads" and imported_pyc(frame):
                return
            report(f"compiled code loaded ({entry(frame)})")
        elif event == "code.__new__":
            report(f"a code object built by hand ({entry(getframe(1))})")

    sys.addaudithook(hook)
