"""Process lifetime on Linux: children that die with their parent, and a supervisor that reaps every descendant.

`posenc serve` and the drill grader start child processes from untrusted input (a browser tab, a candidate's
solution). Two kernel facilities keep them from outliving the process that started them:

- ``PR_SET_PDEATHSIG`` (prctl(2)): the kernel sends a signal to a process when the *thread* that forked it
  exits, SIGKILL and the OOM killer included. Call :func:`die_with_parent` in the child right after fork (a
  ``preexec_fn``), then check that the parent did not already die (the race the man page describes).
- ``PR_SET_DUMPABLE`` 0: a process that judges untrusted code (the drill grader) keeps that code, running as
  the same user, from reading or writing its memory through ptrace or ``/proc/PID/mem``.
- ``PR_SET_CHILD_SUBREAPER``: orphaned descendants (double forks, ``setsid()``) are re-parented to the
  subreaper instead of init, so :func:`descendants` still finds them and the supervisor can kill them all.

Everything here is a no-op returning ``False`` where the facility is missing (macOS, Windows, a libc without
``prctl``); callers say so in their documentation rather than pretending. Standard library only, no torch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36

_libc = None


def _prctl(option: int, arg: int) -> bool:
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        except OSError:
            return False
    try:
        return _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) == 0
    except (AttributeError, OSError):
        return False


def die_with_parent(sig: int = signal.SIGKILL, expected_parent: int | None = None) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies.

    Meant for a ``preexec_fn`` (async-signal-safe enough: one syscall). If ``expected_parent`` is given and the
    parent is already gone (we were re-parented before the prctl took effect), the process kills itself.
    """
    ok = _prctl(PR_SET_PDEATHSIG, int(sig))
    if ok and expected_parent is not None and os.getppid() != expected_parent:
        os.kill(os.getpid(), sig)
    return ok


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux 3.4+)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def forbid_ptrace() -> bool:
    """Make this process non-dumpable (``PR_SET_DUMPABLE`` 0): a process of the same user without
    ``CAP_SYS_PTRACE`` can no longer attach to it or open ``/proc/PID/mem``. Also turns off its core dumps."""
    return _prctl(PR_SET_DUMPABLE, 0)


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` from ``/proc/PID/task/*/children`` (empty where /proc lacks it)."""
    out: list[int] = []
    tasks = Path(f"/proc/{pid}/task")
    try:
        entries = list(tasks.iterdir())
    except OSError:
        return out
    for task in entries:
        try:
            text = (task / "children").read_text()
        except OSError:
            continue
        out.extend(int(tok) for tok in text.split())
    return out


def descendants(pid: int | None = None) -> list[int]:
    """Every live descendant of ``pid`` (default: this process), parents before children."""
    root = os.getpid() if pid is None else pid
    seen: list[int] = []
    stack = children(root)
    while stack:
        child = stack.pop()
        if child in seen:
            continue
        seen.append(child)
        stack.extend(children(child))
    return [p for p in seen if not _is_zombie(p)]


def kill_descendants(pid: int | None = None, sig: int = signal.SIGKILL) -> int:
    """Send ``sig`` to every descendant of ``pid`` (repeating until none is left, so a child that forks while
    being killed is caught too) and reap those that were re-parented to us. Returns how many were signalled.

    Only pids found below ``pid`` are waited for, never ``waitpid(-1)``, so a ``subprocess.Popen`` elsewhere in
    the process keeps its exit status."""
    total = 0
    signalled: set[int] = set()
    for _ in range(50):
        found = descendants(pid)
        if not found:
            break
        for child in found:
            try:
                os.kill(child, sig)
                total += child not in signalled
                signalled.add(child)
            except ProcessLookupError:
                pass
        _reap(signalled, block=sig == signal.SIGKILL)
    _reap(signalled, block=False)
    return total


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] in ("Z", "X")


def _reap(pids: set[int], block: bool) -> None:
    for child in pids:
        try:
            os.waitpid(child, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pass
