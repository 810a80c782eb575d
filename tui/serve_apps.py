"""The app processes behind `posenc serve`'s tabs: one per tab (`TabApp`) and one started ahead (`SpareApp`).

Each runs `python -I -m tui ...` in a session (process group) of its own, so one signal to the group reaches
the app and its demo host, and with `quizbank.proclife.die_with_parent` as its `preexec_fn`, so the kernel
kills it when the server dies, however it dies (SIGKILL, the OOM killer); the app's demo host does the same
with the app (tui/demo_host.py). The server's own settings (POSENC_SERVE_*, its token among them) never reach
an app; `extra_env` (the tab's drill folder, code off) does. Imported by tui/serve.py only when it serves.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService

__all__ = ["SPARE_SIZE", "SpareApp", "TabApp", "end_process_group"]

QUIT_GRACE_S = 3.0  # the longest a closing tab waits for its app's output to end
TERM_GRACE_S = 3.0  # how long a process group gets after SIGTERM before SIGKILL
# The spare runs at a size no page asks for: sizes are clamped to at least 2 columns (xterm.js's fit never
# proposes fewer either).
SPARE_SIZE = (1, 24)
# Terminal modes an app sets (DECSET/DECRST such as the alternate screen, mouse, cursor, paste) and its
# DECRQM query (synchronized output): what a spare's dropped output leaves a new xterm without.
TERMINAL_MODE = re.compile(rb"\x1b\[\?([0-9;]+)(h|l|\$p)")
CURSOR_MOVE = re.compile(rb"\x1b\[[0-9]+;[0-9]+H")  # Textual writes a frame as lines, each after a move
SERVER_ENV_PREFIX = "POSENC_SERVE_"


def _group_alive(pgid: int) -> bool:
    """Whether the group has a live member. Zombies do not count: an orphan that exited waits for a
    reaper that a container's init may never be."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc"):
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def end_process_group(pgid: int, grace: float = TERM_GRACE_S) -> bool:
    """SIGTERM every process in the group, SIGKILL what is left after `grace` seconds.
    Returns True when the group had to be killed."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return False
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def _die_with_server() -> Callable[[], None]:
    from quizbank.proclife import die_with_parent

    server = os.getpid()

    def preexec() -> None:
        die_with_parent(expected_parent=server)

    return preexec


class TabApp(AppService):
    """One tab's app process, in a session (and process group) of its own, dying with the server."""

    def __init__(self, *args: Any, groups: set[int], extra_env: Callable[[], dict[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._groups = groups
        self._extra_env = extra_env

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = super()._build_environment(width=width, height=height)
        for name in [name for name in env if name.startswith(SERVER_ENV_PREFIX)]:
            del env[name]
        env.update(self._extra_env())
        return env

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        pipe = asyncio.subprocess.PIPE
        # started from the event loop's thread (the main one, which lives as long as the server)
        self._process = process = await asyncio.create_subprocess_exec(
            *shlex.split(self.command),
            stdin=pipe,
            stdout=pipe,
            stderr=pipe,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
            preexec_fn=_die_with_server(),
        )
        self._groups.add(process.pid)
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        # SIGTERM to the group reaches the app (Textual's web driver quits cleanly on it, as on
        # textual-serve's quit message) and its demo host at once; what is left later is killed.
        process = self._process
        ending = None
        if process is not None and process.pid in self._groups:
            ending = asyncio.ensure_future(asyncio.to_thread(end_process_group, process.pid))
        if self._task is not None:
            try:
                await asyncio.wait_for(AppService.stop(self), QUIT_GRACE_S)
            except (TimeoutError, OSError, RuntimeError):
                pass
            self._task = None
        if ending is not None and process is not None:
            await ending
            self._groups.discard(process.pid)


class SpareApp(TabApp):
    """A tab's app started before its tab exists. A cold tab waits one whole process start (interpreter,
    imports, banks: ~0.4 s) after its websocket connects; the spare has done that while the server was idle.

    It runs at SPARE_SIZE, which no page asks for, so the resize to the tab's size at hand-over is a real
    change: Textual lays out and repaints the whole screen into the tab's new, empty xterm (a resize to the
    size an app already has repaints nothing). Until then its output is read (so the pipe never fills) and
    dropped, except the terminal modes it set, which go to the tab first. `ready` is set at its first frame:
    its age counts from then. After the hand-over it is a TabApp: AppService.run, reading since the start,
    forwards every frame to the tab. Beyond TabApp's hooks it uses AppService's `_task` (that reader) and
    swaps the remote_* callbacks the reader calls."""

    def __init__(
        self,
        command: str,
        *,
        download_manager: Any,
        groups: set[int],
        extra_env: Callable[[], dict[str, str]],
    ) -> None:
        super().__init__(
            command,
            write_bytes=self._write_bytes,
            write_str=self._drop,
            close=self._drop,
            download_manager=download_manager,
            groups=groups,
            extra_env=extra_env,
        )
        self.ready = asyncio.Event()  # it wrote a frame: it has its size, the tab's resize comes after
        self.taken = asyncio.Event()
        self.exited = asyncio.Event()  # its output ended
        self._modes: dict[tuple[bytes, bytes], bytes] = {}  # (mode, h/l or query) -> the sequence
        self._websocket: web.WebSocketResponse | None = None
        self._replay = b""

    @staticmethod
    async def _drop(*_: Any) -> None:
        pass

    async def start(self, width: int, height: int) -> None:
        await super().start(width, height)
        assert self._task is not None
        self._task.add_done_callback(lambda _: self.exited.set())

    async def _write_bytes(self, data: bytes) -> None:
        if self._websocket is None:
            for match in TERMINAL_MODE.finditer(data):
                kind = b"hl" if match[2] in (b"h", b"l") else match[2]
                self._modes.pop((match[1], kind), None)  # the latest setting of a mode comes last
                self._modes[(match[1], kind)] = match[0]
            if CURSOR_MOVE.search(data) is not None:
                self.ready.set()
            return
        # the modes go out in front of the first frame, in the same websocket message
        data, self._replay = self._replay + data, b""
        await self._websocket.send_bytes(data)

    def can_serve(self, width: int, height: int) -> bool:
        alive = self._process is not None and self._process.returncode is None and not self.exited.is_set()
        return alive and self.ready.is_set() and (width, height) != SPARE_SIZE

    async def hand_over(self, websocket: web.WebSocketResponse, width: int, height: int) -> bool:
        """From now on the app is the tab's: its next frame (the repaint at the tab's size) and all after.
        False when the app is gone (it exited just now): the tab then starts its own."""
        self.taken.set()
        self._replay = b"".join(self._modes.values())
        self._websocket = websocket
        self.remote_write_str = websocket.send_str
        self.remote_close = websocket.close  # type: ignore[assignment]  # (its bool is never read)
        # what textual-serve's set_terminal_size sends (the web driver's "resize" meta), with its result
        if await self.send_meta({"type": "resize", "width": width, "height": height}):
            return True
        # gone: let go of the tab before it is stopped, so its end can never close the tab's socket
        self._websocket = None
        self.remote_write_str = self.remote_close = self._drop
        return False
