"""`posenc serve`: the study app in a browser, through textual-serve.

    posenc serve [--host 127.0.0.1] [--port 8000] [--data-dir DIR] [--bank PATH ...] [--public]

Every browser tab (websocket) gets its own app process, `python -I -m tui [--bank ...] [--data-dir ...]`,
started in a session of its own, so one signal to its process group reaches the app and its demo-host
child. Closing a tab ends its group; Ctrl+C or SIGTERM closes every tab the same way, and a last sweep ends
any group still alive, so no process outlives the server.

Binding to anything but a loopback address needs `--public`: everyone who can reach the port can use
the app and writes into the same progress data. Exit status: 0 stopped, 1 could not listen, 2 bad usage.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
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

    class PosencServer(Server):
        def __init__(self) -> None:
            super().__init__(command, host=host, port=port, title="posenc")
            self.groups: set[int] = set()
            self.sockets: set[web.WebSocketResponse] = set()

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

        async def on_shutdown(self, app: web.Application) -> None:
            closing = [s.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping") for s in self.sockets]
            await asyncio.gather(*closing)

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
                tab = TabApp(
                    self.command,
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,
                    download_manager=self.download_manager,
                    groups=self.groups,
                )
                await tab.start(width, height)
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
