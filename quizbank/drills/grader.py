"""Grade a candidate's file in a separate, isolated interpreter (the parent side).

The child is `python -I quizbank/drills/harness.py` in a fresh temporary working directory, in
its own process group (killed whole on timeout), with an address-space limit, one thread per
math library, and stdout/stderr captured, truncated and escaped. Results come back over a pipe
the candidate's code does not write to, tagged with a random token: a program that calls
`os._exit(0)` or prints a fake result fails. This guards against accidents, not against a
hostile program: it is not a sandbox.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from quizbank.safetext import escape_unsafe

from .catalogue import get_drill
from .model import CaseResult, DrillReport

HARNESS = Path(__file__).with_name("harness.py")
MEMORY_ENV = "POSENC_DRILL_MEMORY_MIB"  # the child's address-space limit, default 4096 (0: none)
DEFAULT_MEMORY_MIB = 4096
OUTPUT_LIMIT_CHARS = 4000
_RESULT_LIMIT_BYTES = 2 * 2**20


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
        finally:
            try:
                self.stream.close()
            except OSError:
                pass


def memory_limit_bytes() -> int:
    """The child's RLIMIT_AS: $POSENC_DRILL_MEMORY_MIB MiB (a CUDA build of torch may need more), 0 for none."""
    raw = os.environ.get(MEMORY_ENV, "").strip()
    try:
        mib = int(raw) if raw else DEFAULT_MEMORY_MIB
    except ValueError:
        mib = DEFAULT_MEMORY_MIB
    return max(0, mib) * 2**20


def _child_env(workdir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        POSENC_NO_COMPILE="1",
        TMPDIR=workdir,
        HOME=env.get("HOME", workdir),
    )
    return env


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _output_text(drains: list[_Drain]) -> str:
    parts = []
    for label, drain in zip(("stdout", "stderr"), drains):
        text = bytes(drain.data).decode("utf-8", errors="replace").strip()
        if not text:
            continue
        if len(text) > OUTPUT_LIMIT_CHARS:
            text = text[:OUTPUT_LIMIT_CHARS]
            drain.dropped += 1
        more = " [truncated]" if drain.dropped else ""
        parts.append(f"--- {label}{more} ---\n{escape_unsafe(text)}")
    return "\n".join(parts)


def _parse_events(raw: bytes, token: str) -> list[dict]:
    events = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("token") == token:
            events.append(event)
    return events


def _clean(text: object) -> str:
    return escape_unsafe(str(text), one_line=True)


def grade_file(name: str, path: str | Path, *, timeout_s: float = 10.0) -> DrillReport:
    """Grade `path` for drill `name` in an isolated child. Blocking.

    Raises KeyError for an unknown drill and OSError when `path` cannot be read; every problem of
    the program itself (syntax, import error, missing function, exception, hang, early exit, memory)
    is a failed report.
    """
    get_drill(name)
    source = Path(path).expanduser().resolve()
    with open(source, "rb"):  # unreadable: OSError, a usage error for callers
        pass
    if source.is_dir():
        raise IsADirectoryError(f"{source} is a folder, not a Python file")
    token = secrets.token_hex(16)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="posenc-drill-") as workdir:
        read_fd, write_fd = os.pipe()
        try:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-u",  # unbuffered: output printed before a crash or os._exit is still shown
                    str(HARNESS),
                    str(write_fd),
                    name,
                    str(source),
                    str(memory_limit_bytes()),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(write_fd,),
                cwd=workdir,
                env=_child_env(workdir),
                start_new_session=True,
            )
        finally:
            os.close(write_fd)
        results = _Drain(os.fdopen(read_fd, "rb"), _RESULT_LIMIT_BYTES, "drill-results")
        drains = [
            _Drain(proc.stdout, OUTPUT_LIMIT_CHARS * 4, "drill-stdout"),
            _Drain(proc.stderr, OUTPUT_LIMIT_CHARS * 4, "drill-stderr"),
        ]  # type: ignore[arg-type]
        for thread in (results, *drains):
            thread.start()
        try:
            assert proc.stdin is not None
            proc.stdin.write(f"{token}\n".encode())
            proc.stdin.close()
        except OSError:
            pass
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        _kill_group(proc)  # a hang, or children the program left behind
        proc.wait()
        for thread in (results, *drains):
            thread.join(timeout=2.0)
        elapsed = (time.perf_counter() - started) * 1000.0
        events = _parse_events(bytes(results.data), token)
        return _report(name, events, proc.returncode, timed_out, timeout_s, elapsed, _output_text(drains))


def _report(
    name: str,
    events: list[dict],
    returncode: int,
    timed_out: bool,
    timeout_s: float,
    elapsed: float,
    output: str,
) -> DrillReport:
    cases: list[CaseResult] = []
    plan: list[str] = []
    running: str | None = None
    done = False
    for event in events:
        kind = event.get("event")
        if kind == "plan":
            plan = [_clean(c) for c in event.get("cases", [])]
        elif kind == "start":
            running = _clean(event.get("case"))
        elif kind == "case":
            running = None
            cases.append(
                CaseResult(
                    name=_clean(event.get("case")),
                    passed=bool(event.get("passed")),
                    message=_clean(event.get("message", "")),
                    elapsed_ms=float(event.get("elapsed_ms", 0.0)),
                )
            )
        elif kind == "fatal":
            cases.append(CaseResult("load", False, _clean(event.get("message", "")), 0.0))
        elif kind == "done":
            done = True
    if not done:
        if timed_out:
            why = f"timed out after {timeout_s:g} s and was stopped (an endless loop, or far too slow)"
        elif returncode < 0:
            why = f"was killed by signal {-returncode} (out of memory?)"
        else:
            why = f"exited with code {returncode} before grading finished (os._exit, sys.exit or a crash?)"
        where = f"while running case {running!r}" if running else "while loading"
        cases.append(CaseResult(running or "process", False, f"the program {why} {where}.", 0.0))
        graded = {c.name for c in cases}
        cases.extend(CaseResult(n, False, "not run.", 0.0) for n in plan if n not in graded)
    passed = done and bool(cases) and all(c.passed for c in cases)
    return DrillReport(drill=name, passed=passed, cases=tuple(cases), elapsed_ms=elapsed, output=output)


def grade_source(name: str, source: str, *, timeout_s: float = 10.0) -> DrillReport:
    """Write `source` to a temporary file and grade it."""
    get_drill(name)
    with tempfile.TemporaryDirectory(prefix="posenc-drill-src-") as folder:
        path = Path(folder) / f"{name.replace('-', '_')}.py"
        path.write_text(source, encoding="utf-8")
        return grade_file(name, path, timeout_s=timeout_s)
