"""The grader's end of a runner in the sandbox: the one way the host talks to either runner.

A :class:`Channel` sends the runner messages of :mod:`coursegrader.runners.protocol`
on its stdin and reads what comes back, bounded in time (a deadline the
caller sets) and in bytes (a budget per exchange): the answers on its stdout,
and with the judge's runner its own :class:`~coursegrader.runners.protocol.PartEnd`
lines on its stderr, a channel no part's process can write to.  Whatever makes
the runner stop answering -- the deadline, the byte budget, a process that
ended -- raises :class:`Stopped` with a
:class:`~coursegrader.runners.protocol.StopReason` and the exit status when
there is one; nothing the runner writes is read as text to find out why.
"""

import os
import selectors
import signal
import time

from ..runners.protocol import PartEnd, StopReason, decode, encode

__all__ = ["Channel", "Stopped", "stop_for_exit"]


class Stopped(Exception):
    """The runner stopped answering: ``reason`` (a StopReason) and ``code``, the exit
    status (``-signal`` when killed) of what ended, when known."""

    def __init__(self, reason, code=None):
        super().__init__(reason.value if code is None else f"{reason.value} ({code})")
        self.reason, self.code = reason, code


def stop_for_exit(code):
    """The StopReason of a process that ended with ``code`` (``-signal`` when killed)."""
    if code == -signal.SIGXFSZ:
        return StopReason.FILE_LIMIT
    if code == -signal.SIGXCPU:
        return StopReason.CPU_LIMIT
    if code < 0:
        return StopReason.KILLED
    return StopReason.EXITED


class Channel:
    """Messages to and from a started runner (a :class:`~coursegrader.sandbox.launch.Run`).

    :meth:`expect` sets the deadline and the byte budget of the exchange that
    follows; :meth:`send` writes a message; :meth:`receive` reads the next line
    the runner writes, :meth:`receive_all` everything until it closes its
    output; :meth:`part_end` waits for the judge's runner to report a part's
    process gone.
    """

    def __init__(self, run):
        self.run = run
        proc = run.proc
        self.deadline, self.left = 0.0, 0
        self.buffer, self.control, self.ended = b"", b"", None
        self.fds = {"in": proc.stdin.fileno(), "out": proc.stdout.fileno()}
        if proc.stderr is not None:
            self.fds["control"] = proc.stderr.fileno()
        for fd in self.fds.values():
            os.set_blocking(fd, False)
        self.sel = selectors.DefaultSelector()

    def expect(self, seconds, max_bytes):
        """Allow ``seconds`` from now and ``max_bytes`` read for the exchange that follows."""
        self.deadline = time.monotonic() + seconds
        self.left = max_bytes

    def close(self):
        self.sel.close()

    # -- the runner's end ---------------------------------------------------------
    def _runner_ended(self):
        """Stopped for a runner (the whole sandbox) that closed a pipe: tampering, if
        its last report on the control pipe said so, else its exit status.  (The
        runner reports a part as tampered with, then exits: both pipes are ready
        at once, and the report must not be lost to the end of its output.)"""
        self._drain_control()
        if self.ended is not None and self.ended.tampered:
            return Stopped(StopReason.TAMPERED, self.ended.status)
        try:
            code = self.run.proc.wait(timeout=5)
        except Exception:
            return Stopped(StopReason.VANISHED)
        if code > 128:      # bwrap reports a signal as 128 + its number
            code = -(code - 128)
        return Stopped(stop_for_exit(code), code)

    def _wait(self, fds, event):
        """The descriptors of ``fds`` that are ready before the deadline (maybe none)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise Stopped(StopReason.TIMEOUT)
        for fd in fds:
            self.sel.register(fd, event)
        try:
            return {key.fd for key, _ in self.sel.select(remaining)}
        finally:
            for fd in fds:
                self.sel.unregister(fd)

    # -- writing --------------------------------------------------------------------
    def send(self, message):
        """Write ``message`` to the runner's stdin before the deadline."""
        data, fd = encode(message), self.fds["in"]
        while data:
            if not self._wait([fd], selectors.EVENT_WRITE):
                continue
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except OSError:
                raise self._runner_ended() from None

    def close_input(self):
        """Close the runner's stdin: nothing more will be sent."""
        self.run.proc.stdin.close()

    # -- reading --------------------------------------------------------------------
    def _read_out(self):
        """Read what is there to read; False if nothing was."""
        try:
            chunk = os.read(self.fds["out"], 1 << 20)
        except BlockingIOError:
            return False
        if not chunk:
            raise self._runner_ended()
        self.left -= len(chunk)
        if self.left < 0:
            raise Stopped(StopReason.OUTPUT_LIMIT)
        self.buffer += chunk
        return True

    def _drain_control(self):
        """Take whatever the control pipe still holds, without waiting."""
        while "control" in self.fds:
            try:
                chunk = os.read(self.fds["control"], 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            self._take_control(chunk)

    def _read_control(self):
        try:
            chunk = os.read(self.fds["control"], 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            raise self._runner_ended()
        self._take_control(chunk)

    def _take_control(self, chunk):
        self.control = (self.control + chunk)[-(1 << 16):]
        while b"\n" in self.control:
            line, self.control = self.control.split(b"\n", 1)
            try:
                self.ended = decode(line, PartEnd)
            except ValueError:
                pass    # what the interpreter wrote before the runner took its stderr

    def receive(self):
        """The next line the runner's stdout carries (bytes, without its newline).

        With the judge's runner, a part's process that ends before writing it
        raises :class:`Stopped` with its exit status, and one its runner reports
        as tampered with raises it (``TAMPERED``) whatever it wrote.
        """
        while b"\n" not in self.buffer:
            if self.ended is not None:   # it ended: read what it wrote before
                while b"\n" not in self.buffer and self._read_out():
                    pass
                if self.ended.tampered:
                    raise Stopped(StopReason.TAMPERED, self.ended.status)
                if b"\n" not in self.buffer:
                    raise Stopped(stop_for_exit(self.ended.status), self.ended.status)
                break
            fds = [self.fds["out"]] + ([self.fds["control"]] if "control" in self.fds else [])
            ready = self._wait(fds, selectors.EVENT_READ)
            if self.fds["out"] in ready:
                self._read_out()
            if "control" in self.fds and self.fds["control"] in ready:
                self._read_control()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def receive_all(self):
        """Everything the runner writes on its stdout until it closes it (bytes)."""
        fd = self.fds["out"]
        while True:
            if fd in self._wait([fd], selectors.EVENT_READ):
                try:
                    chunk = os.read(fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not chunk:
                    data, self.buffer = self.buffer, b""
                    return data
                self.left -= len(chunk)
                if self.left < 0:
                    raise Stopped(StopReason.OUTPUT_LIMIT)
                self.buffer += chunk

    def part_end(self):
        """Wait for the judge's runner to report the part's process gone; drop what it
        left unread.  Returns its :class:`~coursegrader.runners.protocol.PartEnd`."""
        while self.ended is None:
            if self.fds["control"] in self._wait([self.fds["control"]], selectors.EVENT_READ):
                self._read_control()
        ended, self.ended = self.ended, None
        while True:       # the process is gone: everything it wrote is in the pipe
            try:
                if not os.read(self.fds["out"], 1 << 20):
                    break
            except BlockingIOError:
                break
        self.buffer = b""
        return ended
