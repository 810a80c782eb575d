"""The grading child: `python -I -B worker.py REQUEST_FD REPLY_FD PARENT_PID`, started by `grader.Supervisor`.

Two processes, one file. The *supervisor* starts here: it becomes a child subreaper, ends with the grader
(``PR_SET_PDEATHSIG`` sends it SIGTERM, and it kills every descendant before it exits), imports torch (so a
warm one is ready before Ctrl+R) and says ``ready``. It reads the one grade request (the candidate's source, the limits) and forks the *worker*, which cuts itself off (a new user
and network namespace where the kernel allows it, hard and soft rlimits, no new privileges, death with the
supervisor), executes the source and then answers calls: the grader sends inputs, the worker runs the function
and sends back what it returned. The worker never sees a reference, a tolerance or a verdict.

The supervisor never runs the candidate's code. When the worker exits, or the grader says ``stop`` (or closes
the control pipe, or dies), it kills every descendant, setsid() and double forks included, and reports how the
worker ended.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # -I leaves the project off sys.path

from quizbank import proclife  # noqa: E402
from quizbank.drills import wire  # noqa: E402

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
EXTRA_PROCESSES = 16  # how many processes a solution may start (a fork bomb stops there)
OPEN_FILES = 256
FILE_BYTES = 64 * 2**20


def main(argv: list[str]) -> int:
    request_fd, reply_fd, parent = int(argv[1]), int(argv[2]), int(argv[3])
    subreaper = proclife.become_subreaper()
    signal.signal(
        signal.SIGTERM, _end_everything
    )  # the grader died (a closed tab, kill -9): clean up, then go
    proclife.die_with_parent(signal.SIGTERM, expected_parent=parent)
    import numpy  # noqa: F401  - warm: the worker is forked with these already imported
    import torch  # noqa: F401

    from quizbank.drills import judging, loading  # noqa: F401

    wire.send(reply_fd, {"event": "ready", "pid": os.getpid(), "subreaper": subreaper})
    reader = wire.Reader()
    try:
        item = wire.recv_blocking(request_fd, reader)
    except wire.WireError:
        item = None
    if item is None or item[0].get("op") != "load":
        return 0
    request, source = item
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        code = 70
        try:
            code = _work(request, source, request_fd, reply_fd, reader)
        finally:
            os._exit(code)
    os.close(request_fd)
    status = _supervise(pid)
    killed = proclife.kill_descendants()
    wire.send(reply_fd, {"event": "exit", **status, "killed": killed})
    return 0


def _end_everything(signum: int, frame: Any) -> None:
    proclife.kill_descendants()
    os._exit(0)


def _supervise(pid: int) -> dict[str, Any]:
    """Wait for the worker to end, or for `stop` / end of file on stdin (then kill it). How it ended."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    stopped = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        watch = [0] + ([pidfd] if pidfd is not None else [])
        ready, _, _ = select.select(watch, [], [], 1.0 if pidfd is not None else 0.02)
        if 0 in ready:
            data = os.read(0, 64)
            if not data or b"stop" in data:
                stopped = True
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                status = 0
                break
    if pidfd is not None:
        os.close(pidfd)
    if stopped:
        return {"stopped": True}
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"code": os.waitstatus_to_exitcode(status)}


# -- the worker ------------------------------------------------------------------------------------------
def _user_processes() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count


def _libc() -> Any:
    import ctypes.util

    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _cut_network() -> bool:
    """A new user namespace (no capability outside it: hard limits cannot be raised again, even by root)
    holding a new network namespace (no interface but a down loopback). False where the kernel refuses."""
    if not sys.platform.startswith("linux"):
        return False
    uid, gid = os.getuid(), os.getgid()
    try:
        if _libc().unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
            return False
    except (OSError, AttributeError):
        return False
    for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
        try:
            Path(f"/proc/self/{name}").write_text(text)
        except OSError:
            pass
    return True


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))  # soft and hard: the program cannot raise either


def _contain(request: dict[str, Any], supervisor: int) -> bool:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    processes = _user_processes()
    cut = _cut_network()
    if cut:
        processes = 1  # counted per user namespace: only this worker is in the new one
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
    proclife.die_with_parent(signal.SIGKILL, expected_parent=supervisor)
    return cut


def _work(request: dict[str, Any], source: bytes, request_fd: int, reply_fd: int, reader: wire.Reader) -> int:
    import torch

    from quizbank.drills.loading import load_function

    cut = _contain(request, os.getppid())
    torch.set_num_threads(1)
    fn, problem = load_function(str(request["path"]), str(request["function"]), source)
    if fn is None:
        wire.send(reply_fd, {"event": "fatal", "message": problem})
        return 0
    wire.send(reply_fd, {"event": "loaded", "network": "cut" if cut else "open"})
    while True:
        item = wire.recv_blocking(request_fd, reader)
        if item is None:
            return 0
        header, blob = item
        args = wire.decode(header["args"], blob)
        kwargs = wire.decode(header["kwargs"], blob)
        started = time.perf_counter()
        try:
            out = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - reported to the grader, which judges it
            reply = {"ok": False, "exc": _describe(exc, str(request["path"]))}
            wire.send(reply_fd, {**reply, "ms": (time.perf_counter() - started) * 1000})
            continue
        ms = (time.perf_counter() - started) * 1000
        try:
            tree, data = wire.encode((out, args, kwargs))
        except Exception:  # noqa: BLE001 - a result that cannot be described travels as its type
            tree, data = wire.encode((wire.Opaque(), args, kwargs))
        wire.send(reply_fd, {"ok": True, "value": tree, "ms": ms}, data)


def _describe(exc: BaseException, path: str) -> dict[str, Any]:
    import traceback

    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    return {
        "types": [k.__name__ for k in type(exc).__mro__][:20],
        "message": _text(exc)[:2000],
        "line": lines[-1] if lines else 0,
    }


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__
        return ""


if __name__ == "__main__":
    code = main(sys.argv)
    os._exit(code)  # skip the interpreter's teardown (torch's takes seconds under load); nothing to flush
