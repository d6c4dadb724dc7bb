"""Filesystem confinement enforced by the Linux kernel (Landlock, Linux >= 5.13).

The boundary around student code is the bubblewrap sandbox of
:mod:`coursegrader.sandbox`.  Inside it, the judge's runner
(:mod:`.part_runner`) also gives up, where the running kernel offers
Landlock, the rights it does not need, for itself and every process it
starts -- a cheap second layer -- and the unconfined mode (no sandbox) relies
on it to keep graded code out of the course folder:

* :func:`restrict` keeps read access to the whole file system except the
  ``denied`` folders and files (the course folder, the exchange, the
  libraries graded code may not use), read and write access to ``writable``
  folders, and nothing else: no writing anywhere else, no reading the denied
  paths, no tracing or reading the memory of processes outside the confined
  group, and (newer kernels) no signals to them and no TCP connections.

Rights granted on a folder hold for everything beneath it, so the denied
paths are carved out by granting each sibling on the way from ``/`` down to
them instead of ``/`` itself (symbolic links leading into a denied path, or to
a folder on the way to one, are left out; other aliases such as bind mounts
are not detected).  Entries created after :func:`restrict` in a
folder on such a way are not reachable; the writable folders are.
"""

import ctypes
import os
import stat
import sys

__all__ = ["abi_version", "available", "restrict", "LandlockError"]

_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446   # the same on every architecture
_PR_SET_NO_NEW_PRIVS = 38
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_TRUNCATE, _IOCTL_DEV = 1 << 14, 1 << 15
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class LandlockError(OSError):
    """Landlock could not be set up."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = None


def _syscall():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def abi_version():
    """Landlock ABI version of the running kernel, or 0 when Landlock is unavailable."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = _syscall()
        version = libc.syscall(ctypes.c_long(_SYS_CREATE), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def available():
    """True when the running kernel enforces Landlock."""
    return abi_version() > 0


def _fs_rights(abi):
    rights = (1 << 13) - 1                 # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= 1 << 13                  # refer
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def _real(path):
    path = os.path.abspath(os.fsdecode(path))
    return path if path.startswith("/proc/") else os.path.realpath(path)


def _under(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _read_rules(denied, rights):
    """[(path, rights)] granting ``rights`` on everything except the ``denied`` subtrees."""
    rules, pending = [], ["/"]
    while pending:
        folder = pending.pop()
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            if any(_under(path, d) for d in denied):
                continue                                  # carved out
            if os.path.islink(path):
                # A rule follows the link: skip links into a denied path or to a
                # folder on the way to one (that folder is handled where it is).
                target = os.path.realpath(path)
                if any(_under(target, d) or _under(d, target) for d in denied):
                    continue
                rules.append((path, rights))
            elif any(_under(d, path) for d in denied) and os.path.isdir(path):
                pending.append(path)                      # on the way to a denied path
            else:
                rules.append((path, rights))
    return rules


def restrict(denied=(), writable=(), readable=(), *, execute=False, network=False):
    """Confine this process and its future children (cannot be undone).

    Parameters
    ----------
    denied : iterable of str
        Folders and files that may not be read (nor written).
    writable : iterable of str
        Folders that may be read and written, even inside a denied folder.
    readable : iterable of str
        Folders that may be read, even inside a denied folder.
    execute : bool
        Whether programs outside the denied paths may still be started.
    network : bool
        Whether TCP connections stay allowed (only enforced from Landlock ABI 4).

    Returns the Landlock ABI version used. Raises :class:`LandlockError` when
    the kernel has no Landlock or the confinement cannot be applied.

    Examples
    --------
    >>> from coursegrader.runners import landlock
    >>> landlock.available() in (True, False)
    True
    """
    abi = abi_version()
    if abi <= 0:
        raise LandlockError("Landlock is not available in this kernel")
    libc = _syscall()
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if abi >= 4:
        size = 16
        if not network:
            attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
    if abi >= 6:
        size = 24
        attr.scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL
    ruleset = libc.syscall(ctypes.c_long(_SYS_CREATE), ctypes.byref(attr),
                           ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        # Other processes' /proc entries (environment, memory, open files):
        # root may read them regardless of Landlock's ptrace rules.
        me = str(os.getpid())
        procs = [os.path.join("/proc", n) for n in os.listdir("/proc") if n.isdigit() and n != me]
        denied = [_real(p) for p in denied] + procs
        writable = [_real(p) for p in writable]
        read = _READ_FILE | _READ_DIR | (_EXECUTE if execute else 0)
        rules = (_read_rules(denied, read) + [(_real(p), read) for p in readable]
                 + [(p, handled) for p in writable])
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue                                  # vanished, or a dangling link
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    rights &= _FILE_RIGHTS
                rule = _PathBeneathAttr(allowed_access=rights & handled, parent_fd=fd)
                # A rule that cannot be added (an odd file type) only means
                # less access, never more: leave it out.
                libc.syscall(ctypes.c_long(_SYS_ADD_RULE), ctypes.c_int(ruleset),
                             ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                             ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if libc.prctl(ctypes.c_int(_PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                      ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
            raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(ctypes.c_long(_SYS_RESTRICT), ctypes.c_int(ruleset),
                        ctypes.c_uint32(0)) < 0:
            raise LandlockError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi
