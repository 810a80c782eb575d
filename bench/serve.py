"""Startup of `posenc serve` in a browser against the terminal, measured in one run.

1. Terminal (pseudo-terminal, 120x40): launch `python -m tui`, time to the first paint and to Home with
   its topics (the app's `banks_loaded` event). The first paint is the process start: interpreter,
   imports, first frame.
2. Browser: one `posenc serve` stays up; each run opens the page in headless Chromium (a fresh profile) and
   times, from just before navigation: the page's load event, the tab's app process painting its first
   frame, and the topic titles appearing in xterm's buffer (Home as the user sees it).
3. Websocket only (no browser): the same, from opening the page's websocket to the topics in the stream.

Runs alternate (terminal, browser, websocket) and medians are printed. The target (issue 12): page-to-Home
is no slower than launch-to-Home in the terminal by more than one process start.
Run: `.venv/bin/python bench/serve.py [--runs N]`. Needs Chromium at /usr/bin/chromium for part 2
(skipped, with a note, without it). Progress and user banks go to a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import ROOT, Terminal, base_env, read_events, wait_for  # noqa: E402

from tui.testing import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

COLS, ROWS = 120, 40
ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b."
)
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    if (value && value.buffer && typeof value.onData === "function") { window.posencTerm = value; }
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
NAVIGATION_LOADED_AT = (
    "() => performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventStart"
)
TOPICS_SHOWN_AT = """needles => {
  const term = window.posencTerm;
  if (!term) return false;
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) { const line = buffer.getLine(i); if (line) lines.push(line.translateToString(true)); }
  const text = lines.join("\\n");
  return needles.every(n => text.includes(n)) ? performance.timeOrigin + performance.now() : false;
}"""


def topic_titles() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from quizbank.loader import load_banks

    return [topic.title.get("en") for topic in load_banks(include_user=False).topics]


def terminal_run(workdir: Path) -> tuple[float, float] | None:
    """(first paint, topics shown) in seconds after launch."""
    log = workdir / f"term-{time.monotonic_ns()}.jsonl"
    env = base_env(workdir, log)
    env.update({"COLUMNS": str(COLS), "LINES": str(ROWS)})
    term = Terminal([sys.executable, "-m", "tui"], env)
    try:
        paint = wait_for(log, "first_paint", 30, term.process)
        loaded = wait_for(log, "banks_loaded", 30, term.process)
        term.send("\x11")  # ctrl+q
        term.wait(10)
        if paint is None or loaded is None:
            return None
        return paint["t"] - term.started, loaded["t"] - term.started
    finally:
        term.close()


def new_paints(log: Path, seen: int) -> list[dict]:
    return [e for e in read_events(log) if e.get("event") == "first_paint"][seen:]


def browser_run(
    playwright, port: int, log: Path, titles: list[str], workdir: Path
) -> tuple[float, ...] | None:
    """(page load, app first paint, topics shown) in seconds after navigation starts."""
    seen = len(new_paints(log, 0))
    context = playwright.chromium.launch_persistent_context(
        str(workdir / f"profile-{time.monotonic_ns()}"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 800},
    )
    try:
        context.add_init_script(KEEP_TERMINAL)
        page = context.pages[0] if context.pages else context.new_page()
        started = time.time()
        page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
        loaded = page.evaluate(NAVIGATION_LOADED_AT) / 1000
        handle = page.wait_for_function(TOPICS_SHOWN_AT, arg=titles, timeout=60_000, polling="raf")
        shown = handle.json_value() / 1000
        paints = new_paints(log, seen)
        if not paints:
            return None
        return loaded - started, paints[0]["t"] - started, shown - started
    finally:
        context.close()


async def websocket_run(port: int, log: Path, titles: list[str]) -> tuple[float, float] | None:
    """(app first paint, topics in the stream) in seconds after the websocket opens."""
    import aiohttp

    seen = len(new_paints(log, 0))
    raw = bytearray()
    async with aiohttp.ClientSession() as session:
        started = time.time()
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws?width={COLS}&height={ROWS}") as ws:
            await ws.send_json(["resize", {"width": COLS, "height": ROWS}])
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                message = await ws.receive(timeout=deadline - time.monotonic())
                if message.type != aiohttp.WSMsgType.BINARY:
                    return None
                raw += message.data
                text = ANSI.sub("", raw.decode("utf-8", "replace"))
                if all(t in text for t in titles):
                    shown = time.time()
                    break
            else:
                return None
    paints = new_paints(log, seen)
    return (paints[0]["t"] - started, shown - started) if paints else None


def websocket_timing(port: int, log: Path, titles: list[str]) -> tuple[float, float] | None:
    """`websocket_run` on a thread of its own (Playwright's sync API keeps an event loop on this one)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, websocket_run(port, log, titles)).result()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ms(values: list[float]) -> str:
    if not values:
        return "   no data"
    return f"{statistics.median(values) * 1000:7.0f} ms  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="alternating runs of each measurement")
    args = parser.parse_args()
    titles = topic_titles()
    have_browser = os.access(CHROMIUM, os.X_OK)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        have_browser = False

    with tempfile.TemporaryDirectory(prefix="posenc-bench-serve-") as tmp:
        workdir = Path(tmp)
        log = workdir / "serve.jsonl"
        env = base_env(workdir, log)
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "tui", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        terminal: list[tuple[float, float]] = []
        browser: list[tuple[float, ...]] = []
        websocket: list[tuple[float, float]] = []
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            terminal_run(workdir)  # warm the file cache
            websocket_timing(port, log, titles)
            playwright = sync_playwright().start() if have_browser else None
            try:
                for _ in range(args.runs):
                    if (result := terminal_run(workdir)) is not None:
                        terminal.append(result)
                    if playwright is not None and (
                        result := browser_run(playwright, port, log, titles, workdir)
                    ):
                        browser.append(result)
                    if (result := websocket_timing(port, log, titles)) is not None:
                        websocket.append(result)
                    time.sleep(0.5)  # let the closed tabs' processes go
            finally:
                if playwright is not None:
                    playwright.stop()
        finally:
            server.terminate()
            server.wait(30)

    print(f"posenc serve startup ({COLS}x{ROWS} for the terminal; {args.runs} alternating runs, medians)")
    print("Terminal (pty), from launch:")
    print(f"  first paint (= process start)       {ms([t[0] for t in terminal])}")
    print(f"  Home with its topics                {ms([t[1] for t in terminal])}")
    if browser:
        print("Browser (headless Chromium), from navigation:")
        print(f"  page load event                     {ms([b[0] for b in browser])}")
        print(f"  the tab's app paints its first frame{ms([b[1] for b in browser])}")
        print(f"  Home with its topics in xterm       {ms([b[2] for b in browser])}")
    else:
        print(f"Browser: skipped (no Chromium at {CHROMIUM} or no playwright package)")
    print("Websocket client (no browser), from opening the socket:")
    print(f"  the tab's app paints its first frame{ms([w[0] for w in websocket])}")
    print(f"  Home with its topics in the stream  {ms([w[1] for w in websocket])}")
    if browser and terminal:
        start = statistics.median(t[0] for t in terminal)
        extra = statistics.median(b[2] for b in browser) - statistics.median(t[1] for t in terminal)
        verdict = "within" if extra <= start else "over"
        print(
            f"Page-to-Home minus launch-to-Home = {extra * 1000:.0f} ms; one process start = {start * 1000:.0f} ms"
            f" ({verdict} the target)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
