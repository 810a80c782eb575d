"""`posenc serve`: the study app in a browser, through textual-serve.

    posenc serve [--host 127.0.0.1] [--port 8000] [--data-dir DIR] [--bank PATH ...] [--public]

Every browser tab (websocket) gets its own app process, `python -I -m tui [--bank ...] [--data-dir ...]`,
started in a session of its own, so one signal to its process group reaches the app and its demo-host
child. One such process, the spare, is started before any tab asks (see `SpareApp`): the next tab takes it,
and a new spare starts behind it. Closing a tab ends its group; Ctrl+C or SIGTERM closes every tab and the
spare the same way, and a last sweep ends any group still alive, so no process outlives the server.

Binding to anything but a loopback address needs `--public`: everyone who can reach the port can use
the app and writes into the same progress data. Exit status: 0 stopped, 1 could not listen, 2 bad usage.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["add_parser", "app_command", "end_process_group", "is_loopback"]

EXIT_LISTEN = 1
EXIT_USAGE = 2
QUIT_GRACE_S = 3.0  # the longest a closing tab waits for its app's output to end
TERM_GRACE_S = 3.0  # how long a process group gets after SIGTERM before SIGKILL
# The spare runs at a size no page asks for: xterm.js's fit never proposes fewer than 2 columns.
SPARE_SIZE = (1, 24)
SPARE_MAX_AGE_S = 600.0  # an idle spare is replaced after this long (so edited banks are seen)
SPARE_REFILL_DELAY_S = 1.0  # after a hand-over: the tab's app repaints first, then the next spare starts
SPARE_RETRY_S = 10.0  # after a spare exited on its own, before the next try
SPARE_MAX_AGE_ENV = "POSENC_SERVE_SPARE_MAX_AGE_S"  # tests shorten SPARE_MAX_AGE_S
BENCH_LOG_ENV = "POSENC_BENCH_LOG"  # the apps' event log (tui/app.py); the server adds its "serve_tab" events
# Terminal modes an app sets (DECSET/DECRST such as the alternate screen, mouse, cursor, paste) and its
# DECRQM query (synchronized output): what a spare's dropped output leaves a new xterm without.
TERMINAL_MODE = re.compile(rb"\x1b\[\?([0-9;]+)(h|l|\$p)")
CURSOR_MOVE = re.compile(rb"\x1b\[[0-9]+;[0-9]+H")  # Textual writes a frame as lines, each after a move


def _error(message: str) -> None:
    print(f"posenc serve: {message}", file=sys.stderr)


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def app_command(bank_paths: Sequence[str] = (), data_dir: str | None = None) -> str:
    """The shell-quoted command that starts one tab's app. `-I` keeps the current folder (and PYTHON*
    variables) out of the child's imports; paths are made absolute."""
    argv = [sys.executable, "-I", "-m", "tui"]
    for path in bank_paths:
        argv += ["--bank", os.path.abspath(os.path.expanduser(path))]
    if data_dir:
        argv += ["--data-dir", os.path.abspath(os.path.expanduser(data_dir))]
    return " ".join(shlex.quote(part) for part in argv)


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


def _bench_event(event: str, **fields: Any) -> None:
    """Append one JSON line to $POSENC_BENCH_LOG (bench/serve.py reads which tab took the spare)."""
    if path := os.environ.get(BENCH_LOG_ENV):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": event, "t": time.time(), **fields}) + "\n")


async def _any_event(*events: Any, timeout: float) -> None:
    """Return once one of the asyncio events is set, or after `timeout` seconds."""
    import asyncio  # not at the top: every `posenc` start imports this module for its parser

    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _page_template() -> str:
    """textual-serve's page with a <title> and without the web-font link (the page loads nothing from
    other hosts, so it works offline)."""
    from importlib.resources import files

    page = (files("textual_serve") / "templates" / "app_index.html").read_text(encoding="utf-8")
    page = page.replace("<head>", "<head>\n    <title>{{ application.name }}</title>", 1)
    start = page.find('<link\n      rel="stylesheet"\n      href="https://fonts.googleapis.com')
    if start != -1:
        page = page[:start] + page[page.index("/>", start) + 2 :]
    return page


def _make_server(command: str, host: str, port: int) -> Any:
    import asyncio

    import aiohttp_jinja2
    import jinja2
    from aiohttp import WSCloseCode, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    class TabApp(AppService):
        """One tab's app process, in a session (and process group) of its own."""

        def __init__(self, *args: Any, groups: set[int], **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._groups = groups

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            pipe = asyncio.subprocess.PIPE
            self._process = process = await asyncio.create_subprocess_exec(
                *shlex.split(self.command),
                stdin=pipe,
                stdout=pipe,
                stderr=pipe,
                env=self._build_environment(width=width, height=height),
                start_new_session=True,
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
        dropped, except the terminal modes it set, which go to the tab first. After the hand-over it is a
        TabApp: AppService.run, reading since the start, forwards every frame to the tab. Beyond TabApp's hooks
        it uses AppService's `_task` (that reader) and swaps the remote_* callbacks the reader calls."""

        def __init__(self, command: str, *, download_manager: Any, groups: set[int]) -> None:
            super().__init__(
                command,
                write_bytes=self._write_bytes,
                write_str=self._drop,
                close=self._drop,
                download_manager=download_manager,
                groups=groups,
            )
            self.painted = False  # it wrote a frame: it has its size, the tab's resize comes after
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
                self.painted = self.painted or CURSOR_MOVE.search(data) is not None
                return
            # the modes go out in front of the first frame, in the same websocket message
            data, self._replay = self._replay + data, b""
            await self._websocket.send_bytes(data)

        def can_serve(self, width: int, height: int) -> bool:
            alive = (
                self._process is not None and self._process.returncode is None and not self.exited.is_set()
            )
            return alive and self.painted and (width, height) != SPARE_SIZE

        async def hand_over(self, websocket: web.WebSocketResponse, width: int, height: int) -> bool:
            """From now on the app is the tab's: its next frame (the repaint at the tab's size) and all after.
            False when the app is gone (it exited just now): the tab then starts its own."""
            self.taken.set()
            self._replay = b"".join(self._modes.values())
            self._websocket = websocket
            self.remote_write_str = websocket.send_str
            self.remote_close = websocket.close
            # what textual-serve's set_terminal_size sends (the web driver's "resize" meta), with its result
            if await self.send_meta({"type": "resize", "width": width, "height": height}):
                return True
            # gone: let go of the tab before it is stopped, so its end can never close the tab's socket
            self._websocket = None
            self.remote_write_str = self.remote_close = self._drop
            return False

    class PosencServer(Server):
        def __init__(self) -> None:
            super().__init__(command, host=host, port=port, title="posenc")
            self.groups: set[int] = set()
            self.sockets: set[web.WebSocketResponse] = set()
            self.spare: SpareApp | None = None
            self.spare_keeper: asyncio.Task[None] | None = None
            self.closing = asyncio.Event()
            self.spare_max_age = float(os.environ.get(SPARE_MAX_AGE_ENV) or SPARE_MAX_AGE_S)

        def initialize_logging(self) -> None:
            import logging

            logging.basicConfig(level=logging.WARNING, format="posenc serve: %(message)s")

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": _page_template()}))
            return app

        async def on_startup(self, app: web.Application) -> None:
            pass  # textual-serve prints a banner here; `run` prints one line once the port is bound

        def announce(self, *_: Any, **__: Any) -> None:
            url_host = f"[{self.host}]" if ":" in self.host else self.host
            print(f"posenc serve: http://{url_host}:{self.port}/  (Ctrl+C stops)", flush=True)
            # the port is bound (aiohttp prints after listening): a server that cannot listen starts nothing
            self.spare_keeper = asyncio.get_running_loop().create_task(self.keep_spare())

        async def keep_spare(self) -> None:
            """Keep one SpareApp started until the server stops: a new one once a tab takes it, or once it
            exits or is too old; at shutdown, stop the idle one."""
            while not self.closing.is_set():
                spare = SpareApp(self.command, download_manager=self.download_manager, groups=self.groups)
                try:
                    await spare.start(*SPARE_SIZE)
                except OSError as error:
                    _error(f"cannot start the spare app process: {error}")
                    await _any_event(self.closing, timeout=SPARE_RETRY_S)
                    continue
                self.spare = spare
                await _any_event(spare.taken, spare.exited, self.closing, timeout=self.spare_max_age)
                if spare.taken.is_set():  # the tab's now: it stops with the tab
                    await _any_event(self.closing, timeout=SPARE_REFILL_DELAY_S)
                    continue
                self.spare = None
                exited = spare.exited.is_set()
                await spare.stop()
                if exited and not self.closing.is_set():
                    _error(f"the spare app process exited; the next one starts in {SPARE_RETRY_S:.0f} s")
                    await _any_event(self.closing, timeout=SPARE_RETRY_S)

        def take_spare(self, width: int, height: int) -> SpareApp | None:
            spare = self.spare
            if spare is None or not spare.can_serve(width, height):
                return None
            self.spare = None
            return spare

        async def on_shutdown(self, app: web.Application) -> None:
            import logging

            # every app stops now: a spare stopped before its first line is no "Application failed to start"
            logging.getLogger("textual-serve").setLevel(logging.CRITICAL)
            self.closing.set()  # the spare keeper stops the spare and returns
            closing = [s.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping") for s in self.sockets]
            if self.spare_keeper is not None:
                closing.append(self.spare_keeper)
            await asyncio.gather(*closing, return_exceptions=True)

        @aiohttp_jinja2.template("app_index.html")
        async def handle_index(self, request: web.Request) -> dict[str, Any]:
            # URLs follow the address the browser used (a --public server bound to 0.0.0.0 works too).
            scheme = "wss" if request.secure else "ws"
            return {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": f"{scheme}://{request.host}/ws",
                "config": {"static": {"url": f"{request.scheme}://{request.host}/static/"}},
                "application": {"name": self.title},
            }

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            websocket = web.WebSocketResponse(heartbeat=15)
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            tab: TabApp | None = None
            self.sockets.add(websocket)
            try:
                await websocket.prepare(request)
                tab = spare = self.take_spare(width, height)
                if spare is not None and not await spare.hand_over(websocket, width, height):
                    await spare.stop()
                    tab = spare = None
                if tab is None:
                    tab = TabApp(
                        self.command,
                        write_bytes=websocket.send_bytes,
                        write_str=websocket.send_str,
                        close=websocket.close,
                        download_manager=self.download_manager,
                        groups=self.groups,
                    )
                    await tab.start(width, height)
                assert tab._process is not None
                _bench_event("serve_tab", spare=spare is not None, pid=tab._process.pid)
                await self._process_messages(websocket, tab)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # one tab's failure never stops the server
                _error(f"a session failed: {type(error).__name__}: {error}")
            finally:
                self.sockets.discard(websocket)
                if tab is not None:
                    await asyncio.shield(tab.stop())
            return websocket

        def run(self) -> None:
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.add_signal_handler(signal.SIGINT, self.request_exit)
            loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            try:
                web.run_app(
                    self._make_app(),
                    host=self.host,
                    port=self.port,
                    handle_signals=False,
                    loop=loop,
                    print=self.announce,
                    access_log=None,
                    shutdown_timeout=QUIT_GRACE_S + TERM_GRACE_S + 1,
                )
            finally:
                for pgid in list(self.groups):  # anything the tabs' own shutdown missed
                    end_process_group(pgid)
                self.groups.clear()

    return PosencServer()


def cmd_serve(args: argparse.Namespace) -> int:
    host = args.host
    if not 1 <= args.port <= 65535:
        _error(f"--port must be 1-65535, not {args.port}")
        return EXIT_USAGE
    if not is_loopback(host) and not args.public:
        _error(f"{host} is not a loopback address; add --public to serve the app to your network")
        return EXIT_USAGE
    data_dir = args.serve_data_dir or getattr(args, "data_dir", None)
    banks = list(getattr(args, "bank", None) or []) + list(args.serve_bank)
    if not is_loopback(host):
        where = data_dir or "the default progress folder"
        _error(
            f"warning: serving on {host}:{args.port}: everyone who can reach this port can use the app "
            f"and writes into the same progress data ({where})"
        )
    server = _make_server(app_command(banks, data_dir), host, args.port)
    try:
        server.run()
    except OSError as exc:
        _error(f"cannot listen on {host}:{args.port}: {exc.strerror or exc}")
        return EXIT_LISTEN
    return 0


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    serve = subparsers.add_parser(
        "serve",
        help="serve the app to a web browser (one app process per tab)",
        description="Serve the study app to a web browser with textual-serve: each tab runs its own app.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--data-dir", dest="serve_data_dir", metavar="DIR", help="progress store folder for every tab"
    )
    serve.add_argument(
        "--bank",
        dest="serve_bank",
        action="append",
        default=[],
        metavar="PATH",
        help="extra question bank file or folder (repeatable)",
    )
    serve.add_argument(
        "--public",
        action="store_true",
        help="allow a non-loopback --host: everyone who can reach the port shares the progress data",
    )
    serve.set_defaults(func=cmd_serve)
    return serve
