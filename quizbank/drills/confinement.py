"""How the grading worker cuts itself off before it runs a candidate's code. Linux; elsewhere each step that the
kernel lacks is skipped and said so. Standard library only (imported by `worker.py` under ``python -I``).

Three things must hold whether posenc runs as root or as a normal user:

- **A bounded number of processes.** ``RLIMIT_NPROC`` is what bounds them, but the kernel exempts the kernel
  uid 0 (``INIT_USER``) from it, even inside a user namespace where uid 0 outside is mapped to 1000 inside:
  such a worker forked 300 children against a cap of 17. So as root the worker first *becomes* another user,
  ``UID_BASE`` + its own pid (a uid no account uses, one per grade so that two grades do not share a count),
  and the limit applies: 16 children, then ``fork`` fails with EAGAIN. As a normal user the limit applies as it
  always did, counted in the worker's own user namespace.
- **No network.** A new network namespace: as root directly (``CAP_SYS_ADMIN``), as a normal user inside a new
  user namespace.
- **Nothing outlives the supervisor.** The candidate runs as pid 1 of a new pid namespace, below a small
  *shim* (the worker before the fork) that only waits for it. The shim dies with the supervisor
  (``PR_SET_PDEATHSIG``), pid 1 dies with the shim, and when pid 1 of a namespace dies the kernel kills every
  process in it, ``setsid()`` and double forks included. Inside, the supervisor and the grader have no pid, so
  they cannot be signalled. Where no pid namespace can be made, every process the candidate forks from Python
  dies with its parent (``os.register_at_fork``), which a program calling ``fork`` through ctypes escapes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizbank import proclife

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_KEEPCAPS = 8
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 47, 2
CAP_DAC_READ_SEARCH = 2
_CAP_VERSION_3 = 0x20080522
EXTRA_PROCESSES = 16  # how many processes a solution may start (a fork bomb stops there)
OPEN_FILES = 256
FILE_BYTES = 64 * 2**20
UID_BASE = (
    0x7E000000  # root's worker runs as UID_BASE + its pid: above every account and container range in use
)


@dataclass(frozen=True)
class Confinement:
    network_cut: bool  # a new network namespace: no interface but a down loopback
    pid_namespace: bool  # the code runs as pid 1 of its own pid namespace
    uid: int  # the uid the code runs as, outside every namespace
    processes_bounded: bool  # RLIMIT_NPROC holds: the code does not run as the kernel's uid 0


def confine(request: dict[str, Any], supervisor: int) -> Confinement:
    """Cut the calling worker off, set its limits and, where a pid namespace was made, fork: only the child
    returns (pid 1 of the namespace); the parent waits for it and exits as it did."""
    _libc()  # both loads of libc before any namespace: each may start a child (see _libc)
    proclife.die_with_parent(signal.SIGKILL, expected_parent=supervisor)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        os.setsid()  # out of the supervisor's process group: kill(0, ...) does not reach it
    except OSError:
        pass
    cut = pids = userns = False
    if os.geteuid() == 0 and sys.platform.startswith("linux"):
        cut = pids = _unshare(CLONE_NEWNET | CLONE_NEWPID)
        if not cut:
            cut = _unshare(CLONE_NEWNET)
        _become(UID_BASE + os.getpid())
    if not cut:
        uid, gid = os.getuid(), os.getgid()
        for flags, with_pids in (
            (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID, True),
            (CLONE_NEWUSER | CLONE_NEWNET, False),
        ):
            if _unshare(flags):
                cut = userns = True
                pids = pids or with_pids
                _map_ids(uid, gid)
                break
    # RLIMIT_NPROC counts per user namespace: in a new one only this process (and the child to come) is there.
    processes = (1 if userns else _processes_of(os.getuid())) + (1 if pids else 0)
    if int(request["memory"]) > 0:
        _limit(resource.RLIMIT_AS, int(request["memory"]))
    _limit(resource.RLIMIT_CPU, int(request["cpu"]))
    _limit(resource.RLIMIT_NOFILE, OPEN_FILES)
    _limit(resource.RLIMIT_NPROC, processes + EXTRA_PROCESSES)
    _limit(resource.RLIMIT_FSIZE, FILE_BYTES)
    _limit(resource.RLIMIT_CORE, 0)
    try:
        _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    # Last: a change of user clears the parent-death signal.
    proclife.die_with_parent(signal.SIGKILL, expected_parent=supervisor)
    outside = os.getuid() if not userns else _outside_uid()
    if pids:
        _fork_pid_one()
    else:
        os.register_at_fork(after_in_child=_die_with_parent)
    return Confinement(cut, pids, outside, outside != 0)


def _die_with_parent() -> None:
    proclife.die_with_parent(signal.SIGKILL)


def _fork_pid_one() -> None:
    """Fork pid 1 of the new pid namespace, which returns; this process waits for it and exits as it did."""
    child = os.fork()
    if child == 0:
        proclife.die_with_parent(signal.SIGKILL)  # its parent, the shim, is outside: getppid() says 0
        return
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:
            os._exit(70)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        except (OSError, ValueError):
            pass
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def _become(uid: int) -> None:
    """Root gives its grade's folders to `uid`, then becomes it (no groups), keeping one capability:
    ``CAP_DAC_READ_SEARCH`` (read any file, also after exec: an interpreter under /root still starts), which
    neither raises a limit nor signals another user's process. Left as root if refused."""
    for folder in {os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")}:
        if folder:
            try:
                os.chown(folder, uid, uid)
            except OSError:
                pass
    libc = _libc()
    try:
        last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        last = 40
    try:
        for cap in range(last + 1):
            if cap != CAP_DAC_READ_SEARCH:
                libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except (OSError, AttributeError):
        return
    keep = 1 << CAP_DAC_READ_SEARCH
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)(keep, keep, keep, 0, 0, 0)  # effective, permitted, inheritable; caps 32-63
    try:
        if libc.capset(header, data) == 0:
            libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0)
        libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _unshare(flags: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        return _libc().unshare(flags) == 0
    except (OSError, AttributeError):
        return False


def _map_ids(uid: int, gid: int) -> None:
    for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
        try:
            Path(f"/proc/self/{name}").write_text(text)
        except OSError:
            pass


def _outside_uid() -> int:
    """This process's uid as the first user namespace sees it (its uid_map's outside column)."""
    try:
        first = Path("/proc/self/uid_map").read_text().split()
        return int(first[1]) + os.getuid() - int(first[0])
    except (OSError, IndexError, ValueError):
        return os.getuid()


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return max(count, 1)


_LIBC: Any = None


def _libc() -> Any:
    """libc, loaded once: find_library runs ldconfig in a child, and after unshare(CLONE_NEWPID) that child
    would become pid 1 of the new namespace and, exiting, leave it unable to fork."""
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return _LIBC


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))  # soft and hard: the program cannot raise either
