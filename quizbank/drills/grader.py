"""Grade a candidate's file: the verdict is computed here, never in the candidate's process.

`grade_file` compiles the file first (a syntax error or a missing function is reported before torch is
imported), then hands the source to a `Supervisor` (the grading child, see `worker.py`). The candidate's code
runs in the supervisor's forked worker, which only ever receives inputs and sends back what the function
returned (tensors as bytes with a dtype and a shape). The references, tolerances, known mistakes, the verdict
and the record all live in this process, so nothing the candidate's code can reach produces a pass except
returning the right numbers.

The time limit starts when the supervisor reports ready (torch imported), not at spawn. `WarmGrader` keeps one
supervisor started ahead of time for the app, so Ctrl+R does not wait for torch; each supervisor grades one
file and is then stopped, so no candidate's code ever shares a process with another's.

Every entry that could run code (`grade_file`, `grade_source`, `Supervisor`, `WarmGrader.refill`) first raises
`CodeOff` when running code is off (`codeoff.py`), before it writes, reads or starts anything. A reply from the
child is capped (`REPLY_LIMIT_BYTES`), so a huge returned tensor cannot grow the grader.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from quizbank import proclife
from quizbank.safetext import escape_unsafe

from . import wire
from .catalogue import get_drill
from .codeoff import refuse_when_off
from .limits import check_timeout, memory_limit_bytes
from .loading import precheck, read_source
from .model import CaseResult, DrillReport

WORKER = Path(__file__).with_name("worker.py")
OUTPUT_LIMIT_CHARS = 4000
START_LIMIT_S = 120.0  # importing torch on a loaded machine; not part of the candidate's time limit
STOP_LIMIT_S = 5.0
# One reply of the child (the result and the inputs sent back). The largest case's is about 1 MiB; a bigger one
# fails its case before its bytes are buffered (a 256 MiB tensor once grew the grader by 1 GiB).
REPLY_LIMIT_BYTES = 16 * 2**20


class GradeCancelled(Exception):
    """The grade was cancelled (a newer Ctrl+R, the screen closed) and its processes were killed."""


class _Stopped(BaseException):
    """The worker is gone or must stop: a timeout, an exit, garbage on the channel, a cancel.

    A BaseException, so the judging code's `except Exception` (a candidate that raised) lets it through."""

    def __init__(self, why: str, size: int = 0) -> None:
        super().__init__(why)
        self.why = why
        self.size = size  # the refused reply's bytes, for "too-large"


class _Drain(threading.Thread):
    """Reads a pipe to the end, keeping at most `limit` bytes (the rest is read and dropped)."""

    def __init__(self, stream: IO[bytes], limit: int, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.stream, self.limit = stream, limit
        self.data = bytearray()
        self.dropped = 0

    def run(self) -> None:
        try:
            while chunk := self.stream.read(65536):
                room = self.limit - len(self.data)
                self.data += chunk[:room] if room > 0 else b""
                self.dropped += max(0, len(chunk) - max(room, 0))
        except (OSError, ValueError):
            pass

    def text(self, label: str) -> str:
        text = bytes(self.data).decode("utf-8", errors="replace").strip()
        if not text:
            return ""
        dropped = self.dropped
        if len(text) > OUTPUT_LIMIT_CHARS:
            text, dropped = text[:OUTPUT_LIMIT_CHARS], dropped + 1
        return f"--- {label}{' [truncated]' if dropped else ''} ---\n{escape_unsafe(text)}"


def _child_env(folder: str) -> dict[str, str]:
    """Nothing inherited (no secrets): its own home and temporary folder, one thread per math library."""
    home, tmp = os.path.join(folder, "home"), os.path.join(folder, "tmp")
    os.makedirs(home, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "POSENC_NO_COMPILE": "1",
    } | {k: os.environ[k] for k in ("LD_LIBRARY_PATH",) if k in os.environ}  # some installs need it for torch


class Supervisor:
    """One grading child, good for one file. Start it from a thread that outlives it: the child dies with the
    thread that started it (``PR_SET_PDEATHSIG``)."""

    def __init__(self) -> None:
        refuse_when_off()  # before anything is started or written
        # The candidate runs as the same user: without this it could write a pass into our memory (/proc/PID/mem).
        proclife.forbid_ptrace()
        self.folder = tempfile.mkdtemp(prefix="posenc-drill-")
        request_read, self._request = os.pipe()
        self._reply, reply_write = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-B",
                    "-u",
                    str(WORKER),
                    str(request_read),
                    str(reply_write),
                    str(os.getpid()),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(request_read, reply_write),
                cwd=self.folder,
                env=_child_env(self.folder),
                start_new_session=True,
            )
        except BaseException:
            for fd in (self._request, self._reply):
                os.close(fd)
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        finally:
            os.close(request_read)
            os.close(reply_write)
        # Dropped without close(), it still ends: its request pipe closes and it exits at end of file.
        self._close_request = weakref.finalize(self, _close_fd, self._request)
        self._reader = wire.Reader(blob_limit=REPLY_LIMIT_BYTES)
        self._drains = [
            _Drain(self.proc.stdout, OUTPUT_LIMIT_CHARS * 4, "drill-stdout"),  # type: ignore[arg-type]
            _Drain(self.proc.stderr, OUTPUT_LIMIT_CHARS * 4, "drill-stderr"),  # type: ignore[arg-type]
        ]
        for drain in self._drains:
            drain.start()
        self.ready_at: float | None = None
        self.exit: dict[str, Any] | None = None
        self.network = ""
        self.closed = False
        self.used = False  # True once a candidate's source was sent: never hand it another

    @classmethod
    def start(cls) -> Supervisor:
        return cls()

    def alive(self) -> bool:
        return not self.closed and self.proc.poll() is None

    # -- the reply channel --------------------------------------------------------------------------------
    def _recv(
        self, deadline: float, cancel: threading.Event | None, why: str
    ) -> tuple[dict[str, Any], bytes]:
        while True:
            try:
                item = self._reader.next()
            except wire.FrameTooLarge as exc:
                raise _Stopped("too-large", exc.size) from None
            except wire.WireError:
                raise _Stopped("garbage") from None
            if item is not None:
                header, blob = item
                if header.get("event") == "exit":
                    self.exit = header
                    raise _Stopped("exit")
                return header, blob
            if cancel is not None and cancel.is_set():
                raise _Stopped("cancel")
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Stopped(why)
            ready, _, _ = select.select([self._reply], [], [], min(left, 0.05))
            if ready:
                chunk = os.read(self._reply, 1 << 20)
                if not chunk:
                    raise _Stopped("exit")
                self._reader.feed(chunk)

    def wait_ready(self, cancel: threading.Event | None = None, limit_s: float = START_LIMIT_S) -> None:
        if self.ready_at is not None:
            return
        header, _ = self._recv(time.monotonic() + limit_s, cancel, "start")
        if header.get("event") != "ready":
            raise _Stopped("garbage")
        self.ready_at = time.monotonic()

    def load(self, source: bytes, path: str, function: str, *, memory: int, cpu_s: int) -> None:
        self.used = True
        request = {"op": "load", "path": path, "function": function, "memory": memory, "cpu": cpu_s}
        try:
            wire.send(self._request, request, source)
        except OSError:
            raise _Stopped("exit") from None

    def next_event(self, deadline: float, cancel: threading.Event | None) -> dict[str, Any]:
        return self._recv(deadline, cancel, "timeout")[0]

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], deadline: float, cancel: Any) -> Any:
        tree, blob = wire.encode(args)
        kw_tree, kw_blob = wire.encode(kwargs)
        kw_tree = _shift(kw_tree, len(blob))
        try:
            wire.send(self._request, {"op": "call", "args": tree, "kwargs": kw_tree}, blob + kw_blob)
        except OSError:
            raise _Stopped("exit") from None
        return self._recv(deadline, cancel, "timeout")

    # -- the end ------------------------------------------------------------------------------------------
    def close(self) -> None:
        """End the grade: the supervisor kills every descendant and exits; the folder goes. Idempotent."""
        if self.closed:
            return
        self.closed = True
        self._close_request()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"stop\n")
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        if self.exit is None:
            try:
                while True:
                    self._recv(time.monotonic() + STOP_LIMIT_S, None, "stop")
            except _Stopped:
                pass
        try:
            self.proc.wait(timeout=STOP_LIMIT_S)
        except subprocess.TimeoutExpired:  # stopped or wedged by the program: kill the whole tree from here
            for pid in [*proclife.descendants(self.proc.pid), self.proc.pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
        os.close(self._reply)
        for drain in self._drains:
            drain.join(timeout=2.0)
        shutil.rmtree(self.folder, ignore_errors=True)

    def output(self) -> str:
        parts = [d.text(label) for d, label in zip(self._drains, ("stdout", "stderr"))]
        return "\n".join(p for p in parts if p)


def _close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _shift(tree: Any, by: int) -> Any:
    """`tree` with every blob offset moved by `by` (two encoded values sent in one frame)."""
    if isinstance(tree, dict):
        out = {k: _shift(v, by) for k, v in tree.items()}
        if "off" in tree:
            out["off"] = tree["off"] + by
        return out
    if isinstance(tree, list):
        return [_shift(v, by) for v in tree]
    return tree


class WarmGrader:
    """Keeps one supervisor started (torch imported) for the next grade. `refill` from a long-lived thread."""

    def __init__(self) -> None:
        self._spare: Supervisor | None = None
        self._lock = threading.Lock()
        self.closed = False

    def refill(self) -> None:
        """Start the spare supervisor if there is none. CodeOff when running code is off: none is started."""
        refuse_when_off()
        with self._lock:
            if self.closed or (self._spare is not None and self._spare.alive()):
                return
            stale, self._spare = self._spare, Supervisor.start()
        if stale is not None:
            stale.close()

    def take(self) -> Supervisor | None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and not spare.alive():
            spare.close()
            return None
        return spare

    def put_back(self, supervisor: Supervisor | None) -> None:
        """Keep a taken supervisor that ran no code (the file failed to compile) as the spare; else stop it."""
        if supervisor is None:
            return
        with self._lock:
            keep = not self.closed and self._spare is None and not supervisor.used and supervisor.alive()
            if keep:
                self._spare = supervisor
        if not keep:
            supervisor.close()

    def close(self) -> None:
        with self._lock:
            self.closed = True
            spare, self._spare = self._spare, None
        if spare is not None:
            spare.close()

    @staticmethod
    def warm_parent() -> None:
        """Import what judging needs here (torch, the references); blocking: call it from a worker thread."""
        from . import specs  # noqa: F401


# -- grading -----------------------------------------------------------------------------------------------
class _Remote:
    """The candidate's function as the judge sees it: each call travels to the worker and back."""

    def __init__(self, sup: Supervisor, deadline: float, cancel: threading.Event | None) -> None:
        self.sup, self.deadline, self.cancel = sup, deadline, cancel

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        header, blob = self.sup.call(args, kwargs, self.deadline, self.cancel)
        if not header.get("ok"):
            info = header.get("exc")
            raise _rebuild(info if isinstance(info, dict) else {})
        try:
            out, after, after_kw = wire.decode(header.get("value"), blob)
        except Exception:  # noqa: BLE001 - anything malformed, whatever it trips over
            raise _Stopped("garbage") from None
        _write_back(args, after)
        _write_back(tuple(kwargs.values()), tuple(after_kw.values()) if isinstance(after_kw, dict) else ())
        return out


def _write_back(given: tuple[Any, ...], after: Any) -> None:
    """Copy what the worker's function did to its inputs onto ours, so the judge sees an in-place edit."""
    import torch

    if not isinstance(after, tuple | list):
        return
    for mine, theirs in zip(given, after):
        if (
            isinstance(mine, torch.Tensor)
            and isinstance(theirs, torch.Tensor)
            and mine.shape == theirs.shape
            and mine.dtype == theirs.dtype
            and not torch.equal(mine, theirs)
        ):
            mine.copy_(theirs)


_BUILTIN_ERRORS = {
    name: value
    for name, value in vars(__import__("builtins")).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _rebuild(info: dict[str, Any]) -> Exception:
    """The exception the candidate raised, as an exception of the same name and builtin base here."""
    types = info.get("types")
    names = [str(n) for n in types[:20]] if isinstance(types, list) and types else ["Exception"]
    message = escape_unsafe(str(info.get("message", "")), one_line=True)
    base = next((_BUILTIN_ERRORS[n] for n in names if n in _BUILTIN_ERRORS), Exception)
    if not issubclass(base, Exception):  # SystemExit, KeyboardInterrupt: a failure to report, not to obey
        base = Exception
    cls = base if names[0] == base.__name__ else type(names[0][:100], (base,), {})
    try:
        exc = cls(message) if message else cls()
    except Exception:  # noqa: BLE001 - a builtin with a stricter constructor
        exc = type(names[0][:100], (Exception,), {})(message)
    line = info.get("line")
    exc.candidate_line = line if isinstance(line, int) else 0
    return exc


def _explain_stop(stop: _Stopped, sup: Supervisor, timeout_s: float, running: str | None) -> str:
    status = sup.exit or {}
    if stop.why == "timeout":
        why = f"timed out after {timeout_s:g} s and was stopped (an endless loop, or far too slow)"
    elif stop.why == "too-large":
        why = (
            f"returned {stop.size / 2**20:.0f} MiB in one reply, more than the grader accepts "
            f"({REPLY_LIMIT_BYTES // 2**20} MiB), and was stopped"
        )
    elif stop.why == "garbage":
        why = "wrote into the grader's private channel, which only the grader may use"
    elif stop.why == "start":
        why = f"could not be graded: the grading process did not start within {START_LIMIT_S:g} s"
    elif status.get("signal") == signal.SIGXCPU:
        why = "used up its CPU time and was stopped"
    elif "signal" in status:
        why = f"was killed by signal {status['signal']} (out of memory?)"
    elif "code" in status:
        why = f"exited with code {status['code']} before grading finished (os._exit, sys.exit or a crash?)"
    else:
        why = "stopped before grading finished"
    where = f"while running case {running!r}" if running else "while loading"
    return f"the program {why} {where}."


def grade_file(
    name: str,
    path: str | Path,
    *,
    timeout_s: float = 10.0,
    supervisor: Supervisor | None = None,
    cancel: threading.Event | None = None,
) -> DrillReport:
    """Grade `path` for drill `name`. Blocking.

    Raises CodeOff when running code is off (nothing is read or started), KeyError for an unknown drill,
    OSError when `path` cannot be read (`SourceFileError`: not a regular file, or over 256 KiB), ValueError for
    a bad $POSENC_DRILL_MEMORY_MIB or a time limit outside (0, 600] s and GradeCancelled when `cancel` is set;
    every problem of the program itself (syntax, import error, missing function, exception, hang, early exit,
    memory, a reply over 16 MiB) is a failed report. A given
    `supervisor` is used for this grade and stopped (it never runs a second file), unless the file failed
    before any code ran (`supervisor.used` is False); without one, one is started.
    """
    refuse_when_off()
    drill = get_drill(name)
    check_timeout(timeout_s)
    source_path = Path(path).expanduser().resolve()
    source = read_source(source_path)  # unreadable, not a file, too large: OSError, a usage error for callers
    memory = memory_limit_bytes()
    started = time.perf_counter()
    problem = precheck(source, str(source_path), drill.function)
    if problem:  # a given supervisor ran nothing: it stays the caller's (WarmGrader.put_back)
        return DrillReport(name, False, (CaseResult("load", False, problem, 0.0),), _ms(started))
    sup = supervisor or Supervisor.start()
    try:
        return _grade(name, drill.function, source, str(source_path), sup, memory, timeout_s, cancel, started)
    finally:
        sup.close()


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _grade(
    name: str,
    function: str,
    source: bytes,
    path: str,
    sup: Supervisor,
    memory: int,
    timeout_s: float,
    cancel: threading.Event | None,
    started: float,
) -> DrillReport:
    from .judging import Grader, timed
    from .specs import spec_for

    cases: list[CaseResult] = []
    plan: list[str] = []
    running: str | None = None
    try:
        spec = spec_for(name)  # imports torch here while the supervisor imports it there
        sup.wait_ready(cancel)
        deadline = time.monotonic() + timeout_s
        sup.load(source, path, function, memory=memory, cpu_s=math.ceil(timeout_s) + 1)
        event = sup.next_event(deadline, cancel)
        if event.get("event") == "fatal":
            cases.append(
                CaseResult("load", False, escape_unsafe(str(event.get("message")), one_line=True), 0.0)
            )
        elif event.get("event") != "loaded":
            raise _Stopped("garbage")
        else:
            sup.network = str(event.get("network", ""))
            grader = Grader(spec, _Remote(sup, deadline, cancel), path)
            steps = list(grader.run())
            plan = [n for n, _ in steps]
            for case_name, step in steps:
                running = case_name
                passed, message, ms = _judge(step, timed)
                cases.append(CaseResult(case_name, passed, message, ms, grader.diagnoses.get(case_name, "")))
                running = None
    except _Stopped as stop:
        if stop.why == "cancel":
            raise GradeCancelled(name) from None
        sup.close()
        cases.append(
            CaseResult(running or "process", False, _explain_stop(stop, sup, timeout_s, running), 0.0)
        )
        graded = {c.name for c in cases}
        cases.extend(CaseResult(n, False, "not run.", 0.0) for n in plan if n not in graded)
    sup.close()
    passed = bool(cases) and all(c.passed for c in cases)
    return DrillReport(name, passed, tuple(cases), _ms(started), sup.output(), sup.network)


def _judge(step: Callable[[], tuple[bool, str]], timed: Any) -> tuple[bool, str, float]:
    try:
        return timed(step)
    except _Stopped:
        raise
    except Exception as exc:  # noqa: BLE001 - a fault in the grader itself, not in the candidate's code
        return False, f"internal grader error ({type(exc).__name__}: {exc}); please report it.", 0.0


def grade_source(name: str, source: str, *, timeout_s: float = 10.0, **kwargs: Any) -> DrillReport:
    """Write `source` to a temporary file and grade it. CodeOff, before anything is written, when code is off."""
    refuse_when_off()
    get_drill(name)
    with tempfile.TemporaryDirectory(prefix="posenc-drill-src-") as folder:
        path = Path(folder) / f"{name.replace('-', '_')}.py"
        path.write_text(source, encoding="utf-8")
        return grade_file(name, path, timeout_s=timeout_s, **kwargs)
