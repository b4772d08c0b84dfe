"""Process confinement: the site generator's child sees only the tree it renders, and the
process that holds a secret cannot be read through ``/proc``.

Two walls, both Linux kernel features reached through ``ctypes`` (no new dependency):

- **Landlock** (kernel 5.13+, ``Documentation/userspace-api/landlock.rst``): an unprivileged
  process restricts itself, for good and for every process it then execs, to the file
  hierarchies it names. ``python -m builder.render.confinement --read DIR --write DIR -- CMD…``
  drops every capability, sets ``no_new_privs``, restricts itself and execs ``CMD``. A
  Landlock domain also refuses ``ptrace`` access to any process outside it, which is what
  ``/proc/<pid>/environ`` and ``/proc/<pid>/mem`` check: an ancestor's entries are closed
  even to a root child. Where the kernel has TCP rules (ABI 4) the child may neither
  connect nor bind; where it has scopes (ABI 6), it may not signal or reach abstract
  sockets outside its domain.
- **Non-dumpable** (``prctl(PR_SET_DUMPABLE, 0)``): ``hold_secrets`` marks the calling
  process so that ``/proc/<pid>/environ``, ``mem`` and ``ptrace`` are closed to every other
  process of the same user without ``CAP_SYS_PTRACE``; the confined child has no
  capabilities at all, so this holds even when the build runs as root.

``landlock_abi`` says whether the first wall stands on this kernel; ``render/generator.py``
refuses to run a generator without it unless an operator sets the loudly named
``SEALBOARD_INSECURE_NO_SANDBOX=1``.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

# linux/prctl.h
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# The syscall numbers every architecture shares since 5.13 (asm-generic/unistd.h).
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
# linux/landlock.h
LANDLOCK_CREATE_RULESET_VERSION = 1 << 0
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_ALL_V1 = (1 << 13) - 1  # EXECUTE … MAKE_SYM
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
# Rights a rule on a regular file may carry (the rest apply to directories only).
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
LIST = FS_READ_DIR
CAP_LAST_CAP = 63  # prctl(PR_CAPBSET_DROP) of an unknown capability fails with EINVAL: ignored
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class ConfinementError(OSError):
    """The kernel refused a confinement step. Raised by this module; the launcher turns it
    into an exit status the generator run reports (render/generator.py)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in linux/landlock.h
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise ConfinementError(err, f"{what}: {os.strerror(err)}")
    return result


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, too old a
    kernel, Landlock not among the LSMs, or a seccomp filter that hides it)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        abi = _libc().syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(abi), 0)


def hold_secrets() -> None:
    """Mark this process non-dumpable: from now on no other process of its user without
    CAP_SYS_PTRACE (the confined generator has none) reads its ``/proc/<pid>/environ`` or
    ``mem``, or attaches to it. Called by the build when it holds an identity or the build key."""
    if sys.platform.startswith("linux"):
        _check(_libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(PR_SET_DUMPABLE, 0)")


def is_dumpable() -> bool:
    return not sys.platform.startswith("linux") or _libc().prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1


def drop_capabilities() -> None:
    """Give up every capability, now and across exec (the bounding set), so that a child run
    as root gains nothing from being root: no CAP_SYS_PTRACE past ``hold_secrets``, no
    CAP_DAC_* past file modes."""
    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(CAP_LAST_CAP + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last cap; EPERM without CAP_SETPCAP (then none to drop)
    number = SYS_CAPSET.get(os.uname().machine)
    if number is not None:
        header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
        data = (_CapData * 2)()
        _check(libc.syscall(number, ctypes.byref(header), data), "capset (drop all)")


def _rule_paths(paths: Iterable[str | Path]) -> list[Path]:
    return [Path(p) for p in dict.fromkeys(os.fspath(p) for p in paths) if os.path.exists(p)]


def restrict(read: Iterable[str | Path], write: Iterable[str | Path], list_only: Iterable[str | Path] = ()) -> int:
    """Restrict this process (and whatever it execs) to reading ``read``, listing
    ``list_only`` (names, not contents) and reading and writing ``write``; return the ABI used.
    Paths that do not exist are skipped. Raise ConfinementError if the kernel refuses."""
    abi = landlock_abi()
    if abi < 1:
        raise ConfinementError(0, "Landlock is not available on this kernel")
    libc = _libc()
    handled_fs = FS_ALL_V1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0) | (FS_IOCTL_DEV if abi >= 5 else 0)
    attr = _RulesetAttr(
        handled_fs, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    )
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(
        libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)), "landlock_create_ruleset"
    )
    try:
        for paths, access in ((list_only, LIST), (read, READ), (write, handled_fs)):
            for path in _rule_paths(paths):
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    allowed = access & handled_fs
                    if not os.path.isdir(path):
                        allowed &= FS_FILE_RIGHTS
                    if allowed:
                        rule = _PathBeneathAttr(allowed, fd)
                        _check(
                            libc.syscall(
                                SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)
                            ),
                            f"landlock_add_rule {path}",
                        )
                finally:
                    os.close(fd)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def launcher(read: Sequence[str | Path], write: Sequence[str | Path], list_only: Sequence[str | Path], cmd: Sequence[str]) -> list[str]:
    """The argv that runs ``cmd`` confined (this module as ``__main__``)."""
    argv = [sys.executable, "-P", "-m", "builder.render.confinement"]
    for flag, paths in (("--read", read), ("--write", write), ("--list", list_only)):
        for p in paths:
            argv += [flag, os.fspath(p)]
    return [*argv, "--", *cmd]


# The exit status of a launcher that could not confine itself (nothing was run).
EXIT_UNCONFINED = 70


def main(argv: Sequence[str]) -> None:
    if "--" not in argv:
        sys.exit("usage: python -m builder.render.confinement [--read P] [--write P] [--list P] -- CMD...")
    cut = list(argv).index("--")
    opts, cmd = list(argv[:cut]), list(argv[cut + 1 :])
    paths: dict[str, list[str]] = {"--read": [], "--write": [], "--list": []}
    for flag, value in zip(opts[::2], opts[1::2], strict=True):
        paths[flag].append(value)
    try:
        drop_capabilities()
        restrict(paths["--read"], paths["--write"], paths["--list"])
    except ConfinementError as exc:
        print(f"sealboard: could not confine the site generator: {exc.strerror}", file=sys.stderr)
        sys.exit(EXIT_UNCONFINED)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
