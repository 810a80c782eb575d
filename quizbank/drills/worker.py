"""The grading child: `python -I -B worker.py REQUEST_FD REPLY_FD PARENT_PID`, started by `grader.Supervisor`.

Two processes, one file. The *supervisor* starts here: it becomes a child subreaper, ends with the grader
(``PR_SET_PDEATHSIG`` sends it SIGTERM, and it kills every descendant before it exits), imports torch (so a
warm one is ready before Ctrl+R) and says ``ready``. It reads the one grade request (the candidate's source,
the limits) and forks the *worker*, which cuts itself off (`confinement.py`: another uid when root, new network
and pid namespaces, hard and soft rlimits, no new privileges, death with the supervisor), executes the source
and then answers calls: the grader sends inputs, the worker runs the function
and sends back what it returned. The worker never sees a reference, a tolerance or a verdict.

The supervisor never runs the candidate's code. When the worker exits, or the grader says ``stop`` (or closes
the control pipe, or dies), it kills every descendant, setsid() and double forks included, and reports how the
worker ended.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # -I leaves the project off sys.path

from quizbank import proclife
from quizbank.drills import confinement, wire


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
def _work(request: dict[str, Any], source: bytes, request_fd: int, reply_fd: int, reader: wire.Reader) -> int:
    import torch

    from quizbank.drills.loading import load_function

    cut = confinement.confine(request, os.getppid()).network_cut
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
