"""A child process that runs posenc_ref demos, so the UI process never imports torch.

Importing torch costs about a second of CPU, nearly all of it holding the GIL; in the UI process
that would freeze rendering and input while it happens. Instead the app starts this host right
after its first paint: a separate, isolated Python process (`python -I`, see `host_command`) imports torch on
another core, picks the device, and then serves `run_demo(name, params)` requests over its
stdin/stdout with pickled messages. Demo computations run there too, so a heavy demo never
stalls the UI, and a crash in native code cannot take the app down.

Protocol (each message is a pickled tuple written with `_send`, length-prefixed):
    request  ("warm",)                      reply ("ok", device)
    request  ("run", name, params)          reply ("ok", DemoResult) | ("error", kind, message)
    EOF on stdin                            the host exits

`DemoHost.run` is thread-safe (requests are serialized) and restarts a host that died.
Results are sanitized in the child (tensor and numpy scalars become Python numbers), so
unpickling a result never imports torch or numpy in the UI process.
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import struct
import subprocess
import sys
import threading
from typing import IO, Any, BinaryIO

__all__ = ["DemoHost", "RemoteDemoError"]

_HEADER = struct.Struct("!Q")


class RemoteDemoError(Exception):
    """A demo failed in the host process; `kind` is the original exception's class name."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _recv(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the demo process closed its output")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the demo process closed its output")
    return pickle.loads(data)


def _plain(value: Any) -> Any:
    """Python scalars and lists only (no numpy/torch objects cross the pipe)."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if hasattr(value, "item"):
        return _plain(value.item())
    return str(value)


def _sanitize(result: Any) -> Any:
    result.params = _plain(result.params)
    result.values = {k: float(v) for k, v in result.values.items()}
    for table in result.tables:
        table.columns = [str(c) for c in table.columns]
        table.rows = _plain(table.rows)
    for check in result.checks:
        check.max_abs_error = float(check.max_abs_error)
        check.tolerance = float(check.tolerance)
        check.passed = bool(check.passed)
    result.notes = [str(n) for n in result.notes]
    return result


def _warm() -> str:
    import torch

    from posenc_ref.device import pick_device

    device = str(pick_device("auto"))
    torch.zeros(8, device=device).sum().item()
    return device


def serve(stdin: BinaryIO, stdout: BinaryIO, *, warm_first: bool = True) -> None:
    """The host's loop (runs in the child process). With `warm_first`, torch is imported before
    the first request is read, so it loads while the UI process is still painting."""
    from posenc_ref.demos import run_demo

    device: str | None = None
    warm_error: Exception | None = None
    if warm_first:
        try:
            device = _warm()
        except Exception as exc:  # noqa: BLE001 - reported on the first "warm" request
            warm_error = exc

    while True:
        try:
            request = _recv(stdin)
        except EOFError:
            return
        kind = request[0]
        try:
            if kind == "warm":
                if warm_error is not None:
                    raise warm_error
                if device is None:
                    device = _warm()
                _send(stdout, ("ok", device))
            elif kind == "run":
                _name, params = request[1], request[2]
                _send(stdout, ("ok", _sanitize(run_demo(_name, params))))
            else:
                _send(stdout, ("error", "ValueError", f"unknown request {kind!r}"))
        except Exception as exc:  # noqa: BLE001 - reported to the UI as one line
            lines = str(exc).strip().splitlines()
            _send(stdout, ("error", type(exc).__name__, lines[0] if lines else ""))


# The child runs isolated (`-I`: no current folder or script folder on sys.path, no PYTHON* variables, no
# user site) from the project's own folder, so a `torch.py` or `struct.py` wherever posenc was started never
# runs. It gets the parent's import path (minus the current folder) so it finds the same packages.
_BOOT = "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); from tui.demo_host import main; main()"


def _project_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def host_command() -> tuple[list[str], str]:
    """(argv, working folder) that start the host process."""
    root = _project_root()
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = ""
    paths = [root]
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue  # "" and relative entries mean the current folder
        if os.path.realpath(entry) == cwd and cwd != os.path.realpath(root):
            continue
        if entry not in paths:
            paths.append(entry)
    return [sys.executable, "-I", "-c", _BOOT, json.dumps(paths)], root


def _die_with_this_thread() -> Any:
    """A `preexec_fn` that makes the host die with the app, SIGKILL and the OOM killer included
    (`quizbank.proclife.die_with_parent`). The kernel signals a child when the *thread* that started it ends,
    so only a host started on the main thread gets it; one restarted from a worker thread relies on its
    stdin, which ends (and the host with it) when the app dies."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    from quizbank.proclife import die_with_parent

    parent = os.getpid()
    return lambda: die_with_parent(expected_parent=parent) and None


class DemoHost:
    """Client side: starts the host process and sends it requests (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self.device: str | None = None
        self._atexit_registered = False

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the host process if it is not running (returns at once)."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if self.alive:
            return
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        if not self._atexit_registered:
            atexit.register(self.close)
            self._atexit_registered = True
        argv, cwd = host_command()
        self._process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            close_fds=True,
            preexec_fn=_die_with_this_thread(),
        )

    def _request(self, message: tuple[Any, ...]) -> Any:
        with self._lock:
            self._start_locked()
            process = self._process
            assert process is not None and process.stdin is not None and process.stdout is not None
            try:
                _send(process.stdin, message)
                reply = _recv(process.stdout)
            except (EOFError, BrokenPipeError, OSError):
                code = process.poll()
                self._process = None
                raise RemoteDemoError(
                    "DemoProcessError", f"the demo process stopped unexpectedly (exit code {code})"
                ) from None
        if reply[0] == "ok":
            return reply[1]
        raise RemoteDemoError(reply[1], reply[2])

    def warm(self) -> str:
        """Import torch in the host and pick the device; returns the device name."""
        self.device = self._request(("warm",))
        return self.device

    def run(self, name: str, params: dict[str, Any] | None = None) -> Any:
        """`posenc_ref.demos.run_demo(name, params)` in the host; raises RemoteDemoError."""
        return self._request(("run", name, dict(params or {})))

    def close(self) -> None:
        """Stop the host (closing its stdin ends its loop)."""
        process = self._process
        self._process = None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=2)
        except Exception:  # noqa: BLE001 - any failure to stop it politely: kill it
            process.kill()


def main() -> None:
    """Entry point of the host process: the protocol gets its own copy of stdout, and fd 1 is
    pointed at stderr so a stray print() in a demo cannot corrupt the stream."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    from posenc_ref.heap import release_freed_memory

    release_freed_memory()  # a demo's resident memory stays within its estimate (the memory budget)
    try:
        serve(sys.stdin.buffer, protocol_out)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
