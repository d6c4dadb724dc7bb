"""The judge's runner: a student's code cells, then their function, one case at a time.

It runs inside the sandbox of :mod:`coursegrader.sandbox` (there it is the
module ``sandboxrunner.part_runner``), once per submission, and grades each
part in a child process of its own, forked before any student code runs
(see :func:`main`).  What it reads and writes is :mod:`.protocol`; the
grader's side is :mod:`coursegrader.judging.judge`.

A part's process holds only its stdin (the grader's pipe, which it reads),
its private answer channel and /dev/null: every other descriptor is closed
when it is forked, and the runner makes itself non-dumpable before any part
starts (:mod:`.private`), so that ``/proc/<runner>/fd`` (and its memory and
environment) cannot be opened by a part, which holds no capability in the
sandbox's user namespace.  A pipe can be reopened for writing through
``/proc/self/fd/0``; what a part writes that way is found, unread, once it
has ended: the runner then reports the part as tampered with and ends, so
that nothing a part wrote is ever read as the next part's header.

A case is sent only once the previous one is answered, so the process never
holds the cases still to come, and never the expected answers (those stay in
the grader).

The boundary is the sandbox (nothing of the course, the grader or the network
exists in it).  Inside, where the Linux kernel offers Landlock
(:mod:`.landlock`), the process also gives up writing outside the part's own
folder; and an audit hook (:mod:`.audit_hook`) turns the usual attempts into
a message that says what is not allowed.

Before any student code runs, a second audit hook (:mod:`.code_origin`)
watches every piece of code the part compiles, loads compiled or builds by
hand, and reports on the answer channel, before it runs, each one whose text
is not one of the cells the grader sent or the files handed in (a
:class:`~.protocol.Ran` line): the judge keeps these in the record, and the
similarity check flags the submission on its own.  Neither the watch nor its
report looks up a name the part's code could rebind (see :mod:`.code_origin`);
a part whose answer channel is not the grader's when it has code to report
ends there, reported as tampered with.
"""

import os
import shutil
import signal
import sys
import tempfile

from . import code_origin
from .audit_hook import ESCAPE_MODULES, FORBIDDEN_MODULES, Forbidden, install_guard, \
    module_dirs
from .private import make_private
from .protocol import END, TAMPERED_EXIT, Answer, Case, End, PartEnd, ProtocolError, decode, \
    encode, ran_line, read_header, write_all

__all__ = ["main"]


class _Shell:
    """Stands in for IPython's get_ipython(): magics and shell commands do nothing."""

    def run_line_magic(self, *args, **kwargs):
        return None

    def run_cell_magic(self, *args, **kwargs):
        return None

    def system(self, *args, **kwargs):
        return None

    getoutput = system

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _unread(fd):
    """How many bytes wait unread in the pipe ``fd``."""
    import array
    import fcntl
    import termios
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count, True)
    return count[0]


def _input_left_alone(fd):
    """True unless something other than the end marker was left in the grader's pipe.

    Called once a part's process (and all it started) is gone: the grader has
    then written nothing after the end marker, so anything else there was
    written by the part through ``/proc/self/fd/0``.  At most the end marker
    (shorter than any case) is read.
    """
    left = _unread(fd)
    if left == 0:
        return True
    if left != len(END):
        return False
    return os.read(fd, left) == END


def _next_header():
    """The next part's header from the grader (stdin), or None at the end."""
    try:
        return read_header(0)
    except ProtocolError:
        return None


def main():
    """Start once per submission; grade each part in a fresh forked child.

    The runner imports what every part needs, then reads one header per part
    and forks a child that confines itself and runs the part in a folder of
    its own.  The child reads the part's cases from stdin and answers on the
    private channel until the end marker; the runner only waits for it, then
    kills whatever it started, removes its folder and writes its
    ``part_end`` line (the child's exit status, ``-signal`` if it was
    killed).  The grader sends the next header only after that line, so a
    part never sees another part's cases, and the runner -- whose memory every
    child copies -- never holds a case at all.  Starting Python and importing
    numpy is paid once per submission instead of once per part.
    """
    # Private channels: the parts' answers (stdout) and the runner's own
    # part_end lines (stderr); the student's prints go nowhere.
    make_private()
    out_fd, control = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)

    import numpy  # noqa: F401  (imported before forking, as every notebook needs it)

    from .from_coursecheck import serial  # noqa: F401
    try:
        from . import landlock  # noqa: F401
    except ImportError:
        pass

    base = os.getcwd()
    files = sorted(e.name for e in os.scandir(base) if e.is_file(follow_symlinks=False))
    handed_in = []      # the files' texts, as read before any student code runs
    for name in files:
        with open(os.path.join(base, name), "rb") as f:
            handed_in.append(f.read())
    # their strings, once for every part: a module of a few MB takes seconds to parse
    written = code_origin.written_out(handed_in, code_origin.FILES_READ_BYTES)
    number = 0
    while (header := _next_header()) is not None:
        number += 1
        work = os.path.join(base, f".part{number}")
        os.mkdir(work, 0o700)
        for name in files:
            shutil.copyfile(os.path.join(base, name), os.path.join(work, name))
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            _grade_part(header, work, out_fd, handed_in, written)   # never returns
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        try:
            os.killpg(pid, signal.SIGKILL)     # anything the part started
        except OSError:
            pass
        if header.sweep:   # alone in the sandbox's PID namespace: kill the rest
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)
        clean = _input_left_alone(0)
        tampered = not clean or status == TAMPERED_EXIT
        write_all(control, encode(PartEnd(status, tampered=tampered)))
        if not clean:
            os._exit(3)       # what the part wrote must never be read as a header
    os._exit(0)


def _reporter(out_fd):
    """``report(description)`` for :func:`code_origin.watch`: a :class:`Ran` line on
    the answer channel, written before the code runs, every time.

    If the channel is not the one the grader reads (closed, or another file put
    in its place), or cannot be written, the part's process ends at once with
    :data:`~.protocol.TAMPERED_EXIT`, which its runner reports as tampering
    (the part scores nothing), so that the code never runs unreported.  Like
    the watch's own functions, it takes all it uses as default arguments bound
    here (the descriptor, functions of the interpreter's in C,
    :func:`~.protocol.ran_line`) and holds no state: the part's code cannot
    change what it writes by rebinding ``encode`` or ``os.write``, nor count its
    reports down (the judge keeps a few; see :mod:`coursegrader.judging.judge`).
    """
    pipe = os.fstat(out_fd)

    def report(description, _fd=out_fd, _identity=(pipe.st_dev, pipe.st_ino),
               _fstat=os.fstat, _write=os.write, _line=ran_line, _exit=os._exit,
               _tampered=TAMPERED_EXIT, _Exception=Exception):
        try:
            now = _fstat(_fd)
            if (now.st_dev, now.st_ino) != _identity:
                _exit(_tampered)
            # after a newline of its own: a line the code left unfinished ends first
            data = b"\n" + _line(description[:200])
            while data:
                data = data[_write(_fd, data):]
        except _Exception:
            _exit(_tampered)
    return report


def _grade_part(request, work, out_fd, handed_in, written):
    """In the forked child: confine this process, run the cells, answer the cases."""
    # Only its own descriptors: the grader's pipe (stdin), /dev/null (1, 2) and
    # its answer channel; the runner's channel and anything else are closed.
    os.closerange(3, out_fd)
    os.closerange(out_fd + 1, os.sysconf("SC_OPEN_MAX"))
    os.chdir(work)
    os.environ.update(HOME=work, TMPDIR=work)
    tempfile.tempdir = work

    from .from_coursecheck import serial

    os_exit = os._exit
    readline = sys.stdin.buffer.readline

    def emit(index, **answer):
        write_all(out_fd, encode(Answer(index, **answer)))

    forbidden = list(request.forbidden) + module_dirs(FORBIDDEN_MODULES)
    writable = [work]
    allowed = list(request.allowed) + writable
    try:
        from . import landlock
        landlock.restrict(denied=forbidden, writable=allowed)
    except (ImportError, OSError):
        pass  # no Landlock in this kernel: the sandbox alone confines the code
    # The raw process launcher raises no audit event: load it now (so that
    # importing it later is an import of a loaded module) and disable it.
    import _posixsubprocess

    def fork_exec(*args, **kwargs):
        raise Forbidden("starting processes is not allowed in graded code")
    _posixsubprocess.fork_exec = fork_exec
    # first: the guard refuses every audit hook added after it
    code_origin.watch(list(request.cells), files=handed_in, files_written=written,
                      own_dirs=[work, os.path.dirname(work)] + list(request.allowed),
                      report=_reporter(out_fd), cells_run_by=_grade_part.__code__)
    install_guard(forbidden, allowed, writable)
    for name in [m for m in sys.modules
                 if m.split(".")[0] in FORBIDDEN_MODULES + ESCAPE_MODULES
                 and m != "_posixsubprocess"]:
        del sys.modules[name]

    # As in the notebook's kernel, its folder comes first on the path, so that
    # ``from helper import f`` finds the student's helper.py (the sandbox holds
    # only the submission's files: nothing of the course can be found there).
    # Only now, once confined: a file of the student's named like a module the
    # runner imports above must never be imported in its place.
    sys.path.insert(0, work)
    namespace = {"__name__": "__main__", "get_ipython": _Shell}
    cell_errors = []
    cells, func_name = request.cells, request.func
    del request
    for i, source in enumerate(cells):
        try:
            # from the str ``source``: a coding cookie unread, as in the notebook
            # (the watch knows this compile by its frame and that variable)
            exec(compile(source, f"<cell {i + 1}>", "exec"), namespace)
        except BaseException as exc:  # a failing cell must not stop grading
            cell_errors.append(f"cell {i + 1}: {type(exc).__name__}: {exc}")
    del cells

    func = namespace.get(func_name)
    while True:
        line = readline()
        try:
            message = decode(line, Case, End)
        except ProtocolError:
            break
        if type(message) is End:
            break
        i = message.index
        if not callable(func):
            hint = f" (a cell failed: {cell_errors[-1]})" if cell_errors else ""
            emit(i, error=f"the function {func_name} is not defined{hint}"[:500])
            continue
        try:
            args = serial.decode(message.args)
            del line, message
            result = func(*args)
        except NotImplementedError:
            emit(i, error="not implemented (raises NotImplementedError)")
            continue
        except BaseException as exc:
            emit(i, error=f"raised {type(exc).__name__}: {exc}"[:500])
            continue
        try:
            emit(i, value=serial.encode(result))
        except serial.UnsupportedValue as exc:
            emit(i, error=f"returned an unsupported type: {exc}"[:500])
        except BaseException as exc:
            emit(i, error=f"its result could not be sent: {type(exc).__name__}")
    os_exit(0)


if __name__ == "__main__":
    main()
