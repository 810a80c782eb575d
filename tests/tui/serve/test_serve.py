"""`posenc serve`: the real server as a subprocess, spoken to like the page's JavaScript does.

The page (textual-serve's) opens `ws://HOST:PORT/ws?width=W&height=H`, sends JSON text frames
(`["resize", {...}]`, `["stdin", keys]`) and receives the app's terminal output as binary frames.
The server keeps one app process (the spare) started before any tab; its events ("serve_tab": which tab
took the spare) and the apps' ("banks_loaded", ...) go to POSENC_BENCH_LOG, here tmp_path/events.jsonl.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from rich.cells import cell_len
from support.apps import write_fixture_bank
from support.paths import ROOT
from support.pilot import settle

from tui.serve import app_command
from tui.serve_apps import SPARE_SIZE
from tui.serve_settings import is_loopback

COLS, ROWS = 120, 40
ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b."
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"POSENC_BANK_DIR": str(tmp_path / "user-banks"), "POSENC_LANG": "en"})
    env.pop("POSENC_DATA_DIR", None)
    env.pop("POSENC_BENCH_LOG", None)
    return env


TOKEN = (
    "test-token-0123456789abcdef"  # every test server's (POSENC_SERVE_TOKEN); a real one is 256 random bits
)


def start_server(
    tmp_path: Path,
    *extra: str,
    port: int | None = None,
    env: dict[str, str] | None = None,
    token_file: bool = False,
) -> tuple[subprocess.Popen[str], int]:
    """`posenc serve` with the token TOKEN (in POSENC_SERVE_TOKEN, or with `token_file` in tmp_path/token for
    --token-file) on a free port with its data in tmp_path/data and its events in tmp_path/events.jsonl;
    returns once it printed its address (the port is bound then)."""
    port = port or free_port()
    argv = [sys.executable, "-m", "tui", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")]
    token: dict[str, str] = {"POSENC_SERVE_TOKEN": TOKEN}
    if token_file:
        (tmp_path / "token").write_text(TOKEN + "\n")
        argv += ["--token-file", str(tmp_path / "token")]
        token = {}
    server = subprocess.Popen(
        [*argv, *extra],
        cwd=ROOT,
        env={
            **serve_env(tmp_path),
            **token,
            "POSENC_BENCH_LOG": str(tmp_path / "events.jsonl"),
            **(env or {}),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    ready, _, _ = select.select([server.stdout], [], [], 60)
    line = server.stdout.readline() if ready else ""
    if f":{port}/?token={TOKEN}" not in line:
        server.kill()
        raise AssertionError(f"the server never said it was ready: {line!r} {server.stderr.read()}")
    return server, port


def stop_server(server: subprocess.Popen[str]) -> int:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        raise


class Tab:
    """One browser tab's websocket: keys in, the app's screen text (escape sequences removed) out."""

    def __init__(self, ws: object) -> None:
        self.ws = ws
        self.raw = bytearray()
        self.mark = 0

    @classmethod
    async def open(
        cls,
        session: object,
        port: int,
        url: str | None = None,
        size: tuple[int, int] = (COLS, ROWS),
        resize: bool = True,
    ) -> Tab:
        """The socket of `url` (default: `/ws` on 127.0.0.1) with the token, asking for `size` in the URL and,
        like the page, in a resize message (unless `resize` is False)."""
        url = url or f"ws://127.0.0.1:{port}/ws"
        ws = await session.ws_connect(f"{url}?token={TOKEN}&width={size[0]}&height={size[1]}")
        if resize:
            await ws.send_json(["resize", {"width": size[0], "height": size[1]}])
        return cls(ws)

    def text(self, since_mark: bool = True) -> str:
        raw = bytes(self.raw[self.mark if since_mark else 0 :])
        return ANSI.sub("", raw.decode("utf-8", "replace"))

    async def wait_for(self, *needles: str, timeout: float = 60) -> str:
        """Read frames until every needle has appeared since the last `press`."""
        import aiohttp

        deadline = time.monotonic() + timeout
        while not all(n in self.text() for n in needles):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw {needles!r}; last screen text:\n{self.text()[-3000:]}")
            try:
                # short waits: a ping from the server (every 15 s) starts receive's timeout over
                message = await self.ws.receive(timeout=min(left, 1.0))
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                raise AssertionError(f"the socket closed before {needles!r} appeared")
        return self.text()

    async def wait_for_frame(self, size: tuple[int, int], timeout: float = 60) -> None:
        """Read until a whole-screen frame of `size` has come since the last mark."""
        import aiohttp

        deadline = time.monotonic() + timeout
        while size not in [frame_size(frame) for frame in self.frames()]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw a {size} frame: {[frame_size(f) for f in self.frames()]}")
            try:
                message = await self.ws.receive(timeout=min(left, 1.0))
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data

    async def press(self, keys: str) -> None:
        self.mark = len(self.raw)
        await self.ws.send_json(["stdin", keys])

    async def settle(self, quiet: float = 0.5, timeout: float = 30) -> None:
        """Read frames until none came for `quiet` seconds (a frame may span several messages)."""
        import aiohttp

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = await self.ws.receive(timeout=quiet)
            except TimeoutError:
                return
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data
        raise AssertionError("the app never went quiet")

    async def resize(self, width: int, height: int) -> None:
        self.mark = len(self.raw)
        await self.ws.send_json(["resize", {"width": width, "height": height}])

    def frames(self) -> list[dict[int, str]]:
        """The whole-screen frames since the last mark, as {row: text}. Textual writes one (a LayoutUpdate)
        as every row from column 1, each after a cursor move (`ESC[row;1H`), all but the last ending in a
        newline, and every row as wide as the screen. A partial update moves to each changed piece and ends
        each row but its last with a newline too: one that repaints the title bar (the whole first row) and a
        piece of the second row from column 1 looks like the start of a frame, but its rows differ in width."""
        frames: list[dict[int, str]] = []
        frame: dict[int, str] | None = None
        parts = re.split(rb"\x1b\[(\d+);(\d+)H", bytes(self.raw[self.mark :]))
        for row, col, raw in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
            row, col, text = int(row), int(col), ANSI.sub("", raw.decode("utf-8", "replace"))
            if (row, col) == (1, 1):
                frame = {}
            elif frame is None or col != 1 or row != len(frame) + 1:
                frame = None  # a partial update
                continue
            frame[row] = text.removesuffix("\n")
            if not text.endswith("\n"):  # the last row (a lone row at (1, 1) is a partial update)
                if len(frame) > 1 and len({cell_len(row) for row in frame.values()}) == 1:
                    frames.append(frame)
                frame = None
        return frames


def frame_size(frame: dict[int, str]) -> tuple[int, int]:
    """(width, height) of a whole-screen frame: rows 1..height, each `width` cells wide."""
    assert sorted(frame) == list(range(1, len(frame) + 1)), sorted(frame)
    widths = {cell_len(text) for text in frame.values()}
    assert len(widths) == 1, {row: cell_len(text) for row, text in frame.items()}
    return widths.pop(), len(frame)


def test_a_partial_update_from_the_top_left_is_no_frame() -> None:
    """The tab's frame reader against Textual's two kinds of update, written as they are on the wire."""

    def at(row: int, col: int) -> bytes:
        return f"\x1b[{row};{col}H".encode()

    tab = Tab(ws=None)
    whole = at(1, 1) + b"title bar \n" + at(2, 1) + b"topics|men\n" + at(3, 1) + b"footer    "
    # a partial update: the title bar's whole row, then two pieces of row 2 (the first from column 1)
    partial = at(1, 1) + b"title bar2\n" + at(2, 1) + b"topics" + at(2, 8) + b"menu"
    tab.raw += partial + whole + partial
    assert [frame_size(frame) for frame in tab.frames()] == [(10, 3)]


def events(tmp_path: Path, name: str) -> list[dict]:
    """The events called `name` in the server's and its apps' log (see `start_server`)."""
    log = tmp_path / "events.jsonl"
    found = []
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        try:
            event = json.loads(line)
        except ValueError:  # a line still being written
            continue
        if event.get("event") == name:
            found.append(event)
    return found


def wait_until(condition, what: str, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return result


def ready_spare(server: subprocess.Popen[str], tmp_path: Path, nth: int = 1) -> int:
    """Wait until the server says its `nth` spare app process is ready (it painted its first frame, so a tab
    can take it); returns its pid."""
    spares = wait_until(lambda: events(tmp_path, "serve_spare")[nth - 1 :], f"spare {nth} to be ready")
    return spares[0]["pid"]


def tab_app_ready(tmp_path: Path, nth: int = 1, timeout: float = 300) -> int:
    """Wait until the `nth` tab has its app (the server's "serve_tab" event) and that app has listed the
    topics on Home (its "topics_listed" event: taken from the spare, it may still be loading the banks);
    returns its pid. A test's own time budget for what the tab shows starts here. The deadline is only
    there to fail a hung run: under a loaded machine an app's start can take a minute."""
    tabs = wait_until(lambda: events(tmp_path, "serve_tab")[nth - 1 :], f"tab {nth} to get its app", timeout)
    pid = tabs[0]["pid"]
    wait_until(
        lambda: [e for e in events(tmp_path, "topics_listed") if e.get("pid") == pid],
        f"tab {nth}'s app to list the topics",
        timeout,
    )
    return pid


def get_page(port: int, host: str = "127.0.0.1") -> str:
    with urllib.request.urlopen(f"http://{host}:{port}/?token={TOKEN}", timeout=10) as response:
        assert response.status == 200
        return response.read().decode()


def shipped_topic_titles() -> list[str]:
    from quizbank.loader import load_banks

    return [topic.title.get("en") for topic in load_banks(include_user=False).topics]


def process_table() -> dict[int, tuple[int, int, str, str]]:
    """pid -> (ppid, pgid, state, cmdline) for every process we can read."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = (
                Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0], cmdline)
    return table


def descendants(root: int) -> dict[int, tuple[int, int, str, str]]:
    table = process_table()
    found: dict[int, tuple[int, int, str, str]] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, row in table.items():
            if row[0] == parent and pid not in found:
                found[pid] = row
                frontier.append(pid)
    return found


def app_processes(server_pid: int) -> set[int]:
    """The server's app processes (tabs' and the spare): its own children that run the app. Not deeper: an app
    forking its demo host has for a few milliseconds (28 ms seen under load, until the exec) a child whose
    command line is the app's own, which is no app of the server's."""
    return {
        pid
        for pid, (ppid, _, state, cmdline) in process_table().items()
        if ppid == server_pid and state != "Z" and "-I -m tui" in cmdline
    }


def live(pids: set[int], pgids: set[int]) -> list[str]:
    """Processes (not zombies) that are among `pids` or in one of `pgids`."""
    return [
        f"{pid} {row[3]}"
        for pid, row in process_table().items()
        if row[2] != "Z" and (pid in pids or row[1] in pgids)
    ]


# ---------------------------------------------------------------- pure parts


def test_loopback_addresses() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.org", ""))


def test_app_command_is_isolated_and_quoted(tmp_path: Path) -> None:
    odd = tmp_path / "my banks; rm -rf ~" / "a'b.yaml"
    command = app_command([str(odd)], "~/posenc data")
    argv = shlex.split(command)
    assert argv[:4] == [sys.executable, "-I", "-m", "tui"]
    assert argv[4:6] == ["--bank", str(odd)]
    assert argv[6:] == ["--data-dir", str(Path("~/posenc data").expanduser())]


# ---------------------------------------------------------------- the server


def test_non_loopback_needs_public(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tui", "serve", "--host", "0.0.0.0", "--port", str(free_port())],
        cwd=ROOT,
        env=serve_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--public" in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def test_a_busy_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "tui", "serve", "--port", str(port)],
            cwd=ROOT,
            env=serve_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 1
    assert out.stderr.startswith(f"posenc serve: cannot listen on 127.0.0.1:{port}: ")
    assert len(out.stderr.strip().splitlines()) == 1 and out.stdout == ""


def test_page_and_home_over_the_websocket(tmp_path: Path) -> None:
    """The page, opened with the token, sets the cookie; its socket, with that cookie and the page's own
    origin, gets Home from the spare. Not marked slow: `make check` runs this one real server (the other
    server tests run in `make test`)."""
    bank = write_fixture_bank(tmp_path / "extra")
    server, port = start_server(tmp_path, "--bank", str(bank))
    try:

        async def home() -> str:
            import aiohttp

            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
                async with session.get(f"http://localhost:{port}/?token={TOKEN}") as response:
                    assert response.status == 200
                    page = await response.text()
                    cookie = response.cookies[f"posenc-serve-{port}"]
                assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie.value != TOKEN
                assert response.headers["Referrer-Policy"] == "no-referrer"
                assert re.search(r"<title>\s*posenc\s*</title>", page)
                assert "localhost" not in page and f":{port}" not in page  # nothing from the request
                assert "fonts.googleapis.com" not in page  # nothing loads from other hosts
                ws = await session.ws_connect(
                    f"ws://localhost:{port}/ws?width={COLS}&height={ROWS}", origin=f"http://localhost:{port}"
                )
                tab = Tab(ws)
                await ws.send_json(["resize", {"width": COLS, "height": ROWS}])
                # the shipped topics, and the --bank topic: the option reached the app process
                return await tab.wait_for("posenc", "Fixture ALiBi", *shipped_topic_titles())

        spare = ready_spare(server, tmp_path)
        screen = asyncio.run(home())
        assert "Fixture RoPE" in screen
        # the tab took the spare, started with the same command (the --bank topics above)...
        assert [(e["spare"], e["pid"]) for e in events(tmp_path, "serve_tab")] == [(True, spare)]
        # ...and a new spare started behind it (the closed tab's app ended)
        (new,) = wait_until(
            lambda: spare not in (found := app_processes(server.pid)) and found, "a new spare"
        )
        assert new != spare
    finally:
        assert stop_server(server) == 0


@pytest.mark.slow
def test_two_sessions_write_progress_into_one_store(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    try:

        async def study(tab: Tab, key: str, name: str) -> None:
            await tab.wait_for(*titles[:3])
            await tab.press("s")
            await tab.wait_for("Show answer")
            await tab.press(" ")
            await tab.wait_for("Good", "Hard")
            await tab.press(key)
            await tab.wait_for(f"Recorded {name}")

        async def both() -> None:
            import aiohttp

            async with aiohttp.ClientSession() as session:
                first, second = await asyncio.gather(Tab.open(session, port), Tab.open(session, port))
                await asyncio.gather(study(first, "3", "Good"), study(second, "2", "Hard"))
                # one app process per tab: at most one of them the spare, the other its own
                tabs = events(tmp_path, "serve_tab")
                assert len({e["pid"] for e in tabs}) == 2 and sum(e["spare"] for e in tabs) <= 1, tabs
                assert {e["pid"] for e in tabs} <= app_processes(server.pid)

        ready_spare(server, tmp_path)
        asyncio.run(both())
    finally:
        assert stop_server(server) == 0

    from quizbank.progress.store import open_store

    with open_store(tmp_path / "data") as store:
        ratings = sorted(int(row.rating) for row in store.review_rows())
    assert ratings == [2, 3]


@pytest.mark.slow
def test_sigterm_leaves_no_process_behind(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path, "--public", "--host", "0.0.0.0")

    async def run() -> tuple[set[int], set[int]]:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tabs = await asyncio.gather(Tab.open(session, port), Tab.open(session, port))
            await asyncio.gather(*(tab.wait_for(*titles[:3]) for tab in tabs))
            # both tabs' apps, the spare started after the first tab took the first one, and each app's
            # demo host (it starts right after the first paint, and imports torch)
            deadline = time.monotonic() + 30
            while True:
                tree = descendants(server.pid)
                hosts = [pid for pid, row in tree.items() if "tui.demo_host" in row[3]]
                apps = app_processes(server.pid)
                if len(hosts) >= 3 and len(apps) >= 3 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert len(hosts) == 3 and len(apps) == 3, tree
            tab_pids = {event["pid"] for event in events(tmp_path, "serve_tab")}
            assert len(tab_pids) == 2 and len(apps - tab_pids) == 1  # the spare
            server.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(server.wait, 30)
            assert code == 0
            return set(tree), {row[1] for row in tree.values()} - {os.getpgrp()}

    try:
        pids, pgids = asyncio.run(run())
    finally:
        stop_server(server)
    assert len(pids) >= 6
    deadline = time.monotonic() + 5  # a SIGKILLed leftover may need a moment to go
    while (left := live(pids, pgids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []
    stderr = server.stderr.read()
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "0.0.0.0" in warnings[0] and "same progress data" in warnings[0], stderr


# ---------------------------------------------------------------- the spare


@pytest.mark.slow
def test_the_spare_takes_the_tabs_size_and_repaints_it(tmp_path: Path) -> None:
    """A tab that asks for 100x30 in its URL alone (no resize message) gets the spare, started before it,
    painting whole 100x30 frames at once; a later resize is a whole new frame at the new size."""
    titles = [title for title in shipped_topic_titles() if len(title) <= 25]  # 90 columns cut the others
    server, port = start_server(tmp_path)
    try:
        spare = ready_spare(server, tmp_path)

        async def tab() -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
            import aiohttp

            async with aiohttp.ClientSession() as session:
                tab = await Tab.open(session, port, size=(100, 30), resize=False)
                await tab.wait_for(
                    *[title for title in titles if len(title) < 40]
                )  # 100 columns cut the rest
                assert tab.raw.startswith(b"\x1b[?1049h")  # the spare's terminal modes came first
                await tab.settle()
                first = [frame_size(frame) for frame in tab.frames()]
                await tab.resize(90, 26)
                await tab.wait_for_frame((90, 26))
                await tab.wait_for(*titles)
                await tab.settle()
                later = [frame_size(frame) for frame in tab.frames()]
                return first, later

        first, later = asyncio.run(tab())
        assert [(e["spare"], e["pid"]) for e in events(tmp_path, "serve_tab")] == [(True, spare)]
        # frames the spare wrote before the resize reached it may come first, at its own size; then the tab's
        assert (100, 30) in first and set(first[first.index((100, 30)) :]) == {(100, 30)}, first
        # (the spare's own frames are one column wide; one may be cut short by the hand-over)
        assert {size for size in first if size[0] != SPARE_SIZE[0]} == {(100, 30)}, first
        # a repaint already under way (Home's status once torch is warm) may still come at the old size
        assert (90, 26) in later and set(later[later.index((90, 26)) :]) == {(90, 26)}, later
        assert set(later) <= {(100, 30), (90, 26)}, later
        # the tab closed: its app (the old spare) ends with it; the new spare stays
        wait_until(lambda: spare not in app_processes(server.pid), "the closed tab's app to end")
        (new,) = wait_until(lambda: app_processes(server.pid), "the new spare")
        assert new != spare
    finally:
        assert stop_server(server) == 0


@pytest.mark.slow
def test_a_dead_spare_is_never_handed_out(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    try:
        spare = ready_spare(server, tmp_path)
        os.killpg(spare, signal.SIGKILL)
        wait_until(lambda: process_table().get(spare, (0, 0, "Z"))[2] == "Z", "the spare to die")

        async def home() -> None:
            import aiohttp

            async with aiohttp.ClientSession() as session:
                tab = await Tab.open(session, port)
                # the tab starts an app of its own: under a loaded machine that took over the 60 s
                # wait_for gives what the tab shows (a fresh-clone run), so wait for it as the other tests do
                await asyncio.to_thread(tab_app_ready, tmp_path)
                await tab.wait_for(*titles)

        asyncio.run(home())
        ((taken,),) = [[(e["spare"], e["pid"])] for e in events(tmp_path, "serve_tab")]
        assert taken[0] is False and taken[1] != spare  # the tab started its own app
    finally:
        assert stop_server(server) == 0


@pytest.mark.slow
def test_an_idle_spare_is_recycled_and_writes_no_progress(tmp_path: Path) -> None:
    server, _ = start_server(tmp_path, env={"POSENC_SERVE_SPARE_MAX_AGE_S": "4"})
    try:
        first = ready_spare(server, tmp_path)
        group = {pid for pid, row in process_table().items() if row[1] == first}
        second = ready_spare(server, tmp_path, nth=2)  # its replacement, with Home ready
        assert second != first
        wait_until(lambda: live(group, {first}) == [], "the old spare's group to end")
    finally:
        assert stop_server(server) == 0
    assert not events(tmp_path, "serve_tab")

    from quizbank.progress.store import open_store

    with open_store(tmp_path / "data") as store:
        assert store.review_rows() == []


# ---------------------------------------------------------------- terminal-only features in the browser


@pytest.mark.slow
@pytest.mark.parametrize("web", [False, True])
def test_drill_hides_the_external_editor_in_a_browser(
    web: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.apps import make_app
    from textual.widgets import Footer, TextArea

    from tui.app import PosencApp

    monkeypatch.setenv("POSENC_LANG", "en")
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))  # make_app sets these two: restored after
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    monkeypatch.setattr(PosencApp, "is_web", property(lambda self: web))
    app = make_app(tmp_path)

    async def run() -> tuple[list[str], bool]:
        async with app.run_test(size=(COLS, ROWS)) as pilot:
            await settle(pilot)
            await pilot.press("c")  # Home: coding drills
            await settle(pilot)
            if isinstance(app.focused, TextArea):
                await pilot.press("escape")  # out of the code editor, where `e` is a letter
                await pilot.pause()
            footer = app.screen.query_one(Footer)
            shown = [str(getattr(key, "description", "")) for key in footer.children]
            editor_bound = any(
                b.binding.action == "external_editor" for b in app.screen.active_bindings.values()
            )
            return shown, editor_bound

    shown, editor_bound = asyncio.run(run())
    assert ("$EDITOR" in shown) is (not web)
    assert editor_bound is (not web)
    assert "Grade" in shown and "Hint" in shown
