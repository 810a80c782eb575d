"""`posenc serve`: the study app in a browser, through textual-serve.

    posenc serve [--host 127.0.0.1] [--port 8000] [--token-file FILE] [--allow-host NAME ...] [--max-tabs 8]
                 [--max-connections 64] [--max-peer-connections N] [--data-dir DIR] [--bank PATH ...]
                 [--public [--allow-code]]

Every browser tab (websocket) gets its own app process, `python -I -m tui [--bank ...] [--data-dir ...]`,
started in a session of its own, so one signal to its process group reaches the app and its demo-host
child, and with the kernel's parent-death signal (quizbank.proclife), so it dies with the server even when
the server is SIGKILLed. One such process, the spare, is started before any tab asks (see `SpareApp`): the
next tab takes it, and a new spare starts behind it. Closing a tab ends its group; Ctrl+C or SIGTERM closes
every tab and the spare the same way, and a last sweep ends any group still alive. Each app gets a drill
folder of its own (tui/appenv.py), so tabs never share a drill file.

Who gets in (a token, the Host allow-list, the page's own Origin) is tui/serve_guard.py, the connection caps
and timeouts tui/serve_connections.py, the app processes tui/serve_apps.py, their drill folders
tui/serve_workspaces.py, the checked options tui/serve_settings.py, the log tui/serve_log.py; docs/serve.md
has the threat model. The token comes from --token-file or POSENC_SERVE_TOKEN (or is made up), never from
the command line, and no app process sees it. At most --max-tabs tabs run at once, so at most --max-tabs + 1
app processes with the spare (a closed tab's slot is freed once its app has ended); a terminal size is clamped to
MAX_SIZE. Binding to anything but a loopback address needs `--public`, and then the apps run no user code
unless `--allow-code` is given too. Exit status: 0 stopped, 1 could not listen, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Awaitable, Sequence
from typing import Any, NoReturn

from .serve_settings import MAX_CONNECTIONS, MAX_TABS, ServeSettings, UsageError, settings_from_args

__all__ = ["add_parser", "app_command", "clamp_size"]

EXIT_LISTEN = 1
EXIT_USAGE = 2
MAX_SIZE = (500, 200)  # the largest terminal a tab gets (columns, rows); a bigger ask is clamped
MIN_COLUMNS = 2  # the spare's size (1 column) is never a tab's
MAX_MESSAGE_BYTES = 1 << 20  # the largest websocket message a page may send (a paste)
SPARE_START_LIMIT_S = 120.0  # a spare that has not painted after this long is replaced
SPARE_REFILL_DELAY_S = 1.0  # after a hand-over: the tab's app repaints first, then the next spare starts
SPARE_RETRY_S = 10.0  # after a spare exited on its own, before the next try
FULL_HOLD_S = 30.0  # a tab over --max-tabs keeps its "server full" message this long, then closes
LOG_WINDOW_S = 10.0  # repeated log lines are counted and printed once per window
BENCH_LOG_ENV = "POSENC_BENCH_LOG"  # the apps' event log (tui/app.py); the server adds its "serve_tab" events


def _error(message: str) -> None:
    print(f"posenc serve: {message}", file=sys.stderr, flush=True)


def app_command(bank_paths: Sequence[str] = (), data_dir: str | None = None) -> str:
    """The shell-quoted command that starts one tab's app. `-I` keeps the current folder (and PYTHON*
    variables) out of the child's imports; paths are made absolute."""
    argv = [sys.executable, "-I", "-m", "tui"]
    for path in bank_paths:
        argv += ["--bank", os.path.abspath(os.path.expanduser(path))]
    if data_dir:
        argv += ["--data-dir", os.path.abspath(os.path.expanduser(data_dir))]
    return " ".join(shlex.quote(part) for part in argv)


def _number(value: Any, default: int) -> int:
    """An int from what a page sent (a number or text), else `default`."""
    if isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def clamp_size(width: Any, height: Any) -> tuple[int, int]:
    """A tab's terminal size from what a page sent: 80x24 for what is not a number, otherwise clamped to
    MIN_COLUMNS..MAX_SIZE."""
    return (
        min(max(_number(width, 80), MIN_COLUMNS), MAX_SIZE[0]),
        min(max(_number(height, 24), 1), MAX_SIZE[1]),
    )


# ---------------------------------------------------------------- the server


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


# The page's own origin makes the websocket's address (nothing from the request is written into the page),
# and the token leaves the address bar once the cookie holds it.
PAGE_SCRIPT = """
    <script>
      (() => {
        const terminal = document.getElementById("terminal");
        const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
        terminal.dataset.sessionWebsocketUrl = scheme + window.location.host + "/ws";
        const url = new URL(window.location.href);
        if (url.searchParams.has("token")) {
          url.searchParams.delete("token");
          window.history.replaceState(null, "", url.pathname + url.search + url.hash);
        }
        // Keys go to the app without a click first: focus xterm once its websocket is open (a focus
        // before that is never told to the app, so its footer would stay empty and keys go nowhere).
        const focusTerminal = () => {
          const input = terminal.querySelector("textarea");
          if (!input) return;
          if (document.activeElement === input) input.blur();
          input.focus({preventScroll: true});
        };
        const watcher = new MutationObserver(() => {
          if (document.body.classList.contains("-loaded")) {
            watcher.disconnect();
            focusTerminal();
          }
        });
        watcher.observe(document.body, {attributes: true, attributeFilter: ["class"]});
      })();
    </script>
  </body>"""

FULL_PAGE = """<!DOCTYPE html>
<html><head><title>posenc: server full</title></head>
<body style="background:#0c181f;color:#eee;font-family:monospace;padding:2em">
<p>posenc serve: the server is full ({tabs} tabs are open). Close a tab, or try again later.</p>
</body></html>
"""


def _page_template() -> str:
    """textual-serve's page with a <title>, without the web-font link (the page loads nothing from other hosts,
    so it works offline), with relative static URLs and PAGE_SCRIPT."""
    from importlib.resources import files

    page = (files("textual_serve") / "templates" / "app_index.html").read_text(encoding="utf-8")
    page = page.replace("<head>", "<head>\n    <title>{{ application.name }}</title>", 1)
    start = page.find('<link\n      rel="stylesheet"\n      href="https://fonts.googleapis.com')
    if start != -1:
        page = page[:start] + page[page.index("/>", start) + 2 :]
    page = page.replace(
        'data-session-websocket-url="{{ app_websocket_url }}"', 'data-session-websocket-url=""'
    )
    page = page.replace('data-pingurl="{{ ping_url }}"', 'data-pingurl=""')
    return page.replace("{{ config.static.url }}", "/static/").replace("\n  </body>", PAGE_SCRIPT, 1)


def _make_server(settings: ServeSettings) -> Any:
    import asyncio

    import aiohttp_jinja2
    import jinja2
    from aiohttp import WSCloseCode, WSMsgType, web
    from textual_serve.server import Server

    from .appenv import CODE_OFF_ENV, WORKSPACE_ENV
    from .serve_apps import QUIT_GRACE_S, SPARE_SIZE, TERM_GRACE_S, SpareApp, TabApp, end_process_group
    from .serve_connections import ConnectionCap, capped_runner
    from .serve_guard import Guard
    from .serve_log import RepeatLog
    from .serve_workspaces import remove_stale_tab_folders, tab_folders, tabs_root

    tabs_folder = tabs_root(settings.data_dir)
    workspace = tab_folders(tabs_folder)

    def app_env() -> dict[str, str]:
        env = {WORKSPACE_ENV: workspace()}
        if settings.code_off:
            env[CODE_OFF_ENV] = "1"
        return env

    class PosencServer(Server):
        def __init__(self) -> None:
            command = app_command(settings.banks, settings.data_dir)
            super().__init__(command, host=settings.host, port=settings.port, title="posenc")
            self.log = RepeatLog(LOG_WINDOW_S)
            self.guard = Guard(settings.token, settings.port, settings.host, settings.allow_hosts)
            self.cap = ConnectionCap(settings.max_connections, settings.max_peer_connections)
            self.groups: set[int] = set()
            self.sockets: set[web.WebSocketResponse] = set()
            # Tabs whose app runs, starts or is still ending: a slot is freed only once its app is gone, so
            # there are never more than --max-tabs tab apps, plus the spare.
            self.tabs = 0
            self.ending_tabs = 0  # of those, tabs that closed and are ending their app
            self.slots = asyncio.Condition()  # notified when a tab's app has ended
            self.spare: SpareApp | None = None
            self.spare_keeper: asyncio.Task[None] | None = None
            self.closing = asyncio.Event()

        def initialize_logging(self) -> None:
            import logging

            root = logging.getLogger()
            root.handlers[:] = [self.log.handler()]
            root.setLevel(logging.WARNING)

        async def _make_app(self) -> web.Application:
            app = web.Application(
                middlewares=[self.guard.middleware(lambda why: self.log.report(why, f"refused {why}"))]
            )
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": _page_template()}))
            app.add_routes(
                [
                    web.get("/", self.handle_index, name="index"),
                    web.get("/ws", self.handle_websocket, name="websocket"),
                    web.get("/download/{key}", self.handle_download, name="download"),
                    web.static("/static", self.statics_path, show_index=False, name="static"),
                ]
            )
            app.on_shutdown.append(self.on_shutdown)
            return app

        def start_app(self, **kwargs: Any) -> TabApp:
            return TabApp(
                self.command,
                download_manager=self.download_manager,
                groups=self.groups,
                extra_env=app_env,
                **kwargs,
            )

        async def keep_spare(self) -> None:
            """Keep one SpareApp started until the server stops: a new one once a tab takes it, or once it
            exits or is too old (counted from its first frame); at shutdown, stop the idle one."""
            while not self.closing.is_set():
                spare = SpareApp(
                    self.command,
                    download_manager=self.download_manager,
                    groups=self.groups,
                    extra_env=app_env,
                )
                try:
                    await spare.start(*SPARE_SIZE)
                except OSError as error:
                    self.log.report("spare-start", f"cannot start the spare app process: {error}")
                    await _any_event(self.closing, timeout=SPARE_RETRY_S)
                    continue
                self.spare = spare
                await _any_event(spare.ready, spare.exited, self.closing, timeout=SPARE_START_LIMIT_S)
                if spare.ready.is_set():
                    assert spare._process is not None
                    _bench_event("serve_spare", pid=spare._process.pid)  # tests wait for it
                    await _any_event(
                        spare.taken, spare.exited, self.closing, timeout=settings.spare_max_age_s
                    )
                if spare.taken.is_set():  # the tab's now: it stops with the tab
                    await _any_event(self.closing, timeout=SPARE_REFILL_DELAY_S)
                    continue
                self.spare = None
                exited = spare.exited.is_set()
                await spare.stop()
                if exited and not self.closing.is_set():
                    self.log.report(
                        "spare-exit",
                        f"the spare app process exited; the next one starts in {SPARE_RETRY_S:.0f} s",
                    )
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
            closing: list[Awaitable[Any]] = [
                s.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping") for s in self.sockets
            ]
            if self.spare_keeper is not None:
                closing.append(self.spare_keeper)
            await asyncio.gather(*closing, return_exceptions=True)

        async def handle_index(self, request: web.Request) -> web.Response:
            if self.tabs - self.ending_tabs >= settings.max_tabs:  # (an ending tab's slot is soon free)
                return web.Response(
                    status=503, text=FULL_PAGE.format(tabs=self.tabs), content_type="text/html"
                )
            font_size = min(max(_number(request.query.get("fontsize"), 16), 6), 64)
            context = {"font_size": font_size, "application": {"name": self.title}}
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def _process_messages(self, websocket: web.WebSocketResponse, tab: Any) -> None:
            """textual-serve's message loop, with sizes clamped and malformed messages skipped."""
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = json.loads(message.data)
                except ValueError:
                    continue
                if not isinstance(envelope, list) or not envelope:
                    continue
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    await tab.send_bytes(data.encode("utf-8", "replace"))
                elif kind == "resize" and isinstance(data, dict):
                    await tab.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
                elif kind == "ping" and isinstance(data, str | int | float):
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await tab.blur()
                elif kind == "focus":
                    await tab.focus()

        async def refuse_tab(self, websocket: web.WebSocketResponse) -> None:
            """Over --max-tabs: a message in the tab's terminal and no process."""
            self.log.report("full", f"refused a tab: {settings.max_tabs} tabs are open (--max-tabs)")
            text = (
                f"\x1b[2J\x1b[H posenc serve: the server is full ({settings.max_tabs} tabs are open).\r\n"
                " Close a tab, or try again later.\r\n"
            )
            await websocket.send_bytes(text.encode())
            try:  # until the tab closes (or the server stops: on_shutdown closes it), at most FULL_HOLD_S
                async with asyncio.timeout(FULL_HOLD_S):
                    async for _ in websocket:
                        pass
            except TimeoutError:
                pass
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"server full")

        async def claim_slot(self) -> bool:
            """Take a tab slot: at once if one is free; if the tabs are all taken but one is closing, once its
            app has ended (a reloaded page waits for the old page's app, it is not refused); else False."""
            async with self.slots:
                if self.tabs >= settings.max_tabs and self.ending_tabs:
                    try:
                        async with asyncio.timeout(QUIT_GRACE_S + TERM_GRACE_S + 1):
                            await self.slots.wait_for(
                                lambda: self.tabs < settings.max_tabs or not self.ending_tabs
                            )
                    except TimeoutError:
                        pass
                if self.tabs >= settings.max_tabs:
                    return False
                self.tabs += 1  # the slot is this tab's before anything else is awaited
                return True

        async def free_slot(self, tab: TabApp | None) -> None:
            """End the tab's app (shielded: a cancelled handler still ends it), then give its slot back."""
            self.ending_tabs += 1
            try:
                if tab is not None:
                    await asyncio.shield(tab.stop())
            finally:
                async with self.slots:
                    self.ending_tabs -= 1
                    self.tabs -= 1
                    self.slots.notify_all()

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
            width, height = clamp_size(request.query.get("width"), request.query.get("height"))
            full = not await self.claim_slot()
            tab: TabApp | None = None
            self.sockets.add(websocket)
            try:
                await websocket.prepare(request)
                if full:
                    await self.refuse_tab(websocket)
                    return websocket
                tab = spare = self.take_spare(width, height)
                if spare is not None and not await spare.hand_over(websocket, width, height):
                    await spare.stop()
                    tab = spare = None
                if tab is None:
                    tab = self.start_app(
                        write_bytes=websocket.send_bytes, write_str=websocket.send_str, close=websocket.close
                    )
                    await tab.start(width, height)
                assert tab._process is not None
                _bench_event("serve_tab", spare=spare is not None, pid=tab._process.pid)
                await self._process_messages(websocket, tab)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # noqa: BLE001 - one tab's failure never stops the server
                self.log.report(
                    f"tab:{type(error).__name__}", f"a session failed: {type(error).__name__}: {error}"
                )
            finally:
                self.sockets.discard(websocket)
                if not full:
                    await self.free_slot(tab)
            return websocket

        def flush_refusals(self) -> None:
            for line in self.cap.refusal_lines(LOG_WINDOW_S):  # already one per address and window
                self.log.write(line)

        async def flush_log(self) -> None:
            while not self.closing.is_set():
                await _any_event(self.closing, timeout=LOG_WINDOW_S)
                self.flush_refusals()
                self.log.flush()

        async def clean_tab_folders(self) -> None:
            removed = await asyncio.to_thread(remove_stale_tab_folders, tabs_folder)
            if removed:
                self.log.report(
                    "stale-tabs",
                    f"removed {removed} tab drill folder(s) of stopped servers, unused for 7 days",
                )

        async def serve_until_stopped(self) -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGINT, stop.set)
            loop.add_signal_handler(signal.SIGTERM, stop.set)
            runner = capped_runner(
                await self._make_app(),
                self.cap,
                handle_signals=False,
                access_log=None,
                shutdown_timeout=QUIT_GRACE_S + TERM_GRACE_S + 1,
            )
            await runner.setup()
            try:
                await web.TCPSite(runner, settings.host.strip("[]"), settings.port).start()
                # the port is bound: a server that cannot listen starts nothing
                print(f"posenc serve: {settings.url}  (Ctrl+C stops)", flush=True)
                self.spare_keeper = loop.create_task(self.keep_spare())
                flusher = loop.create_task(self.flush_log())
                cleaner = loop.create_task(self.clean_tab_folders())
                await stop.wait()
            finally:
                await runner.cleanup()
                self.flush_refusals()
                self.log.flush()
            await flusher
            await cleaner

        def run(self) -> None:
            self.initialize_logging()
            try:
                asyncio.run(self.serve_until_stopped())
            finally:
                for pgid in list(self.groups):  # anything the tabs' own shutdown missed
                    end_process_group(pgid)
                self.groups.clear()

    return PosencServer()


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve_guard import TOKEN_ENV

    try:
        settings = settings_from_args(args)
    except UsageError as error:
        _error(str(error))
        return EXIT_USAGE
    # read: no child of the server inherits it (each app's environment is filtered too: tui/serve_apps.py)
    os.environ.pop(TOKEN_ENV, None)
    if settings.public:
        where = settings.data_dir or "the default progress folder"
        code = (
            "and anyone with the token can run programs on this machine as you (--allow-code)"
            if settings.allow_code
            else "drills are off (no code runs; --allow-code turns them on)"
        )
        _error(
            f"warning: serving on {settings.host}:{settings.port} (--public): everyone who can reach this port "
            f"and has the token can use the app and writes into the same progress data ({where}); {code}"
        )
    server = _make_server(settings)
    try:
        server.run()
    except OSError as exc:
        _error(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}")
        return EXIT_LISTEN
    return 0


def _one_line_error(parser: argparse.ArgumentParser) -> None:
    """Usage errors of `posenc serve` are one line, like every other check here."""

    def error(message: str) -> NoReturn:
        _error(message)
        sys.exit(EXIT_USAGE)

    parser.error = error  # type: ignore[method-assign]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    serve = subparsers.add_parser(
        "serve",
        help="serve the app to a web browser (one app process per tab)",
        description="Serve the study app to a web browser with textual-serve: each tab runs its own app. "
        "Open the address it prints: it carries the access token.",
    )
    _one_line_error(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--token-file",
        metavar="FILE",
        help="read the access token (16-256 letters, digits, - _ . ~) from FILE, or set POSENC_SERVE_TOKEN; "
        "default: a random one. There is no --token: every local user can read a command line",
    )
    serve.add_argument("--token", help=argparse.SUPPRESS)  # refused: tui/serve_settings.py NO_TOKEN_OPTION
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="one more host name browsers may use for this server (repeatable; localhost, 127.0.0.1, [::1] "
        "and --host always are)",
    )
    serve.add_argument(
        "--max-tabs", type=int, default=MAX_TABS, metavar="N", help=f"tabs open at once (default {MAX_TABS})"
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=MAX_CONNECTIONS,
        metavar="N",
        help=f"connections open at once (default {MAX_CONNECTIONS})",
    )
    serve.add_argument(
        "--max-peer-connections",
        type=int,
        metavar="N",
        help="connections open at once from one address (default: a quarter of --max-connections, at least "
        "--max-tabs + 6); behind a proxy every client has the proxy's address",
    )
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
        help="allow a non-loopback --host: everyone with the token shares the progress data; drills are off",
    )
    serve.add_argument(
        "--allow-code",
        action="store_true",
        help="with --public: drills on, so anyone with the token can run programs as you",
    )
    serve.set_defaults(func=cmd_serve)
    return serve
