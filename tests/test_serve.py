"""`posenc serve`: the real server as a subprocess, spoken to like the page's JavaScript does.

The page (textual-serve's) opens `ws://HOST:PORT/ws?width=W&height=H`, sends JSON text frames
(`["resize", {...}]`, `["stdin", keys]`) and receives the app's terminal output as binary frames.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tui.serve import app_command, is_loopback
from tui.testing import write_fixture_bank

ROOT = Path(__file__).resolve().parents[1]
COLS, ROWS = 120, 40
ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b."
)

pytestmark = pytest.mark.slow


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


def start_server(tmp_path: Path, *extra: str, port: int | None = None) -> tuple[subprocess.Popen[str], int]:
    """`posenc serve` on a free port with its data in tmp_path/data; returns once the page answers."""
    port = port or free_port()
    argv = [sys.executable, "-m", "tui", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")]
    server = subprocess.Popen(
        [*argv, *extra],
        cwd=ROOT,
        env=serve_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"server exited {server.returncode}: {server.stderr.read()}")
        try:
            with urllib.request.urlopen(
                urllib.request.Request(f"http://127.0.0.1:{port}/", method="HEAD"), timeout=2
            ):
                return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise AssertionError("the server never answered")


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
    async def open(cls, session: object, port: int, url: str | None = None) -> Tab:
        """The socket of `url` (from a page, see `page_socket_url`), or a plain `/ws` one."""
        url = url or f"ws://127.0.0.1:{port}/ws"
        ws = await session.ws_connect(f"{url}?width={COLS}&height={ROWS}")
        await ws.send_json(["resize", {"width": COLS, "height": ROWS}])
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
                message = await self.ws.receive(timeout=left)
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                raise AssertionError(f"the socket closed before {needles!r} appeared")
        return self.text()

    async def press(self, keys: str) -> None:
        self.mark = len(self.raw)
        await self.ws.send_json(["stdin", keys])


def get_page(port: int, host: str = "127.0.0.1") -> str:
    with urllib.request.urlopen(f"http://{host}:{port}/", timeout=10) as response:
        assert response.status == 200
        return response.read().decode()


def page_socket_url(page: str) -> str:
    match = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert match, page
    return match.group(1)


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
    return {pid for pid, row in descendants(server_pid).items() if "-I -m tui" in row[3]}


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
    bank = write_fixture_bank(tmp_path / "extra")
    server, port = start_server(tmp_path, "--bank", str(bank))
    try:
        page = get_page(port, "localhost")
        assert re.search(r"<title>\s*posenc\s*</title>", page)
        url = page_socket_url(page)
        assert url == f"ws://localhost:{port}/ws", url  # the address the browser used
        assert "fonts.googleapis.com" not in page  # nothing loads from other hosts

        async def home() -> str:
            import aiohttp

            async with aiohttp.ClientSession() as session:
                tab = await Tab.open(session, port, url)
                # the shipped topics, and the --bank topic: the option reached the app process
                return await tab.wait_for("posenc", "Fixture ALiBi", *shipped_topic_titles())

        screen = asyncio.run(home())
        assert "Fixture RoPE" in screen
        assert len(app_processes(server.pid)) == 1
    finally:
        assert stop_server(server) == 0


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
                urls = [page_socket_url(get_page(port)) for _ in range(2)]
                first, second = await asyncio.gather(*(Tab.open(session, port, url) for url in urls))
                await asyncio.gather(study(first, "3", "Good"), study(second, "2", "Hard"))
                assert len(app_processes(server.pid)) == 2  # one app process per tab

        asyncio.run(both())
    finally:
        assert stop_server(server) == 0

    from quizbank.progress.store import open_store

    with open_store(tmp_path / "data") as store:
        ratings = sorted(int(row.rating) for row in store.review_rows())
    assert ratings == [2, 3]


def test_sigterm_leaves_no_process_behind(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path, "--public", "--host", "0.0.0.0")

    async def run() -> tuple[set[int], set[int]]:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tabs = await asyncio.gather(Tab.open(session, port), Tab.open(session, port))
            await asyncio.gather(*(tab.wait_for(*titles[:3]) for tab in tabs))
            # both apps and both demo hosts (they start right after the first paint, and import torch)
            deadline = time.monotonic() + 30
            while True:
                tree = descendants(server.pid)
                hosts = [pid for pid, row in tree.items() if "tui.demo_host" in row[3]]
                if len(hosts) >= 2 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert len(hosts) == 2 and len(app_processes(server.pid)) == 2, tree
            server.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(server.wait, 30)
            assert code == 0
            return set(tree), {row[1] for row in tree.values()} - {os.getpgrp()}

    try:
        pids, pgids = asyncio.run(run())
    finally:
        stop_server(server)
    assert len(pids) >= 4
    deadline = time.monotonic() + 5  # a SIGKILLed leftover may need a moment to go
    while (left := live(pids, pgids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []
    stderr = server.stderr.read()
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "0.0.0.0" in warnings[0] and "same progress data" in warnings[0], stderr


# ---------------------------------------------------------------- terminal-only features in the browser


@pytest.mark.parametrize("web", [False, True])
def test_drill_hides_the_external_editor_in_a_browser(
    web: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Footer, TextArea

    from tui.app import PosencApp
    from tui.testing import make_app

    monkeypatch.setenv("POSENC_LANG", "en")
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))  # make_app sets these two: restored after
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    monkeypatch.setattr(PosencApp, "is_web", property(lambda self: web))
    app = make_app(tmp_path)

    async def run() -> tuple[list[str], bool]:
        async with app.run_test(size=(COLS, ROWS)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.press("c")  # Home: coding drills
            await pilot.pause()
            await app.workers.wait_for_complete()
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
