"""Startup of `posenc serve` in a browser against the terminal, measured in one run.

1. Terminal (pseudo-terminal, 120x40): launch `python -m tui`, time to the first paint and to Home with
   its topics listed (the app's `topics_listed` event). The first paint is one process start: interpreter,
   imports, first frame.
2. Browser, warm: one `posenc serve` stays up and keeps a spare app process started before any tab. Each run
   waits until the spare is idle (started, Home loaded, its demo host's torch import done), opens the page in
   headless Chromium (a fresh profile), and times, from just before navigation: the page's load event, the
   app's first frame in xterm's buffer and the topic titles there (Home as the user sees it).
3. Browser, cold: a first tab opens the page and takes the spare; as soon as it has, a second tab opens the
   page in the same browser, before a new spare can be ready, so it starts its own app process (as every tab
   did before the spare). The second tab is timed the same way.
4. Websocket only (no browser, warm): from opening the page's websocket to the first frame and to the topics
   in the stream.

The browser opens `/?token=T` as a user opens the printed address: the page's response sets the cookie and its
websocket carries it, so the token costs no extra round trip (the page's script only takes the token out of
the address bar).

The server logs which tabs took the spare (its `serve_tab` events); a run is counted under the path it
really took. Runs alternate and medians are printed. The targets: the browser's first frame trails
the terminal's first paint by at most one process start, and so does page-to-Home against launch-to-Home.
Run: `.venv/bin/python bench/serve.py [--runs N]` (posenc's modules are byte-compiled first, see
bench/startup.py). Needs Chromium at /usr/bin/chromium for parts 2-3
(skipped, with a note, without it). Progress, user banks and the bank cache go to a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
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
from startup import ROOT, Terminal, base_env, read_events, wait_for

# ROOT too: with only tests/ on the path, the folder tests/tui would stand in for the tui package
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
from support.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

COLS, ROWS = 120, 40
TOKEN = "bench-token-0123456789abcdef"  # the server's POSENC_SERVE_TOKEN: the page trades it for its cookie
ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b."
)
# Stamp (wall clock, ms) the page's websocket opening; keep the xterm Terminal that the page's script assigns
# to `this.terminal`, and stamp the first write that leaves text in its buffer and the first that leaves every
# topic title there.
WATCH_TERMINAL = """
window.posencStamps = {};
const PageSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new PageSocket(...args);
  socket.addEventListener("open", () => { window.posencStamps.open = performance.timeOrigin + performance.now(); });
  return socket;
};
window.WebSocket.prototype = PageSocket.prototype;
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    if (value && value.buffer && typeof value.onWriteParsed === "function") {
      window.posencTerm = value;
      value.onWriteParsed(() => {
        const stamps = window.posencStamps;
        if (stamps.topics) return;
        const now = performance.timeOrigin + performance.now(), buffer = value.buffer.active, lines = [];
        for (let i = 0; i < buffer.length; i++) { const line = buffer.getLine(i); if (line) lines.push(line.translateToString(true)); }
        const text = lines.join("\\n");
        if (!stamps.frame && text.trim()) stamps.frame = now;
        if ((window.posencNeedles || []).every(n => text.includes(n))) stamps.topics = now;
      });
    }
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
NAVIGATION_LOADED_AT = (
    "() => performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventStart"
)


def topic_titles() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from quizbank.loader import load_banks

    return [topic.title.get("en") for topic in load_banks(include_user=False).topics]


def terminal_run(workdir: Path) -> tuple[float, float] | None:
    """(first paint, topics listed) in seconds after launch."""
    log = workdir / f"term-{time.monotonic_ns()}.jsonl"
    term = Terminal([sys.executable, "-m", "tui"], base_env(workdir, log, (COLS, ROWS)), (COLS, ROWS))
    try:
        paint = wait_for(log, "first_paint", 30, term.process)
        topics = wait_for(log, "topics_listed", 30, term.process)
        wait_for(log, "banks_loaded", 30, term.process)
        term.send("\x11")  # ctrl+q
        term.wait(10)
        if paint is None or topics is None:
            return None
        return paint["t"] - term.started, topics["t"] - term.started
    finally:
        term.close()


# ---------------------------------------------------------------- the server's processes


def tab_events(log: Path) -> list[dict]:
    return [e for e in read_events(log) if e.get("event") == "serve_tab"]


def group_cpu_ticks(pgid: int) -> int | None:
    """User + system CPU ticks of the live processes in a group; None when none is left."""
    total, found = 0, False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found = True
            total += int(fields[11]) + int(fields[12])
    return total if found else None


def server_apps(server_pid: int) -> set[int]:
    """The app processes (`python -I -m tui ...`) the server started, tabs' and the spare."""
    apps = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2 :].split()[1]) == server_pid and cmdline[1:4] == [
            b"-I",
            b"-m",
            b"tui",
        ]:
            apps.add(int(entry))
    return apps


def wait_for_idle_spare(server_pid: int, log: Path, timeout: float = 60) -> int | None:
    """Wait until the server's spare (its app that no tab took) and its demo host have used no CPU for
    0.5 s (Home painted and loaded, torch imported); returns its pid."""
    deadline = time.monotonic() + timeout
    last: tuple[int, int | None] | None = None
    while time.monotonic() < deadline:
        spares = server_apps(server_pid) - {e["pid"] for e in tab_events(log)}
        if len(spares) == 1:
            (spare,) = spares
            now = (spare, group_cpu_ticks(spare))
            if now == last:
                return spare
            last = now
        time.sleep(0.5)
    return None


# ---------------------------------------------------------------- browser and websocket runs


def open_tab(context, port: int, titles: list[str]) -> tuple[float, object]:
    """Navigate a new page of `context`; returns (navigation start, page)."""
    page = context.new_page()
    page.add_init_script(f"window.posencNeedles = {json.dumps(titles)};")
    started = time.time()
    page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}", wait_until="load")  # the page sets the cookie
    return started, page


def tab_timings(page, started: float) -> tuple[float, ...]:
    """(page load, websocket open, first frame in xterm, topics in xterm) in seconds after `started`."""
    page.wait_for_function("() => window.posencStamps.topics", timeout=60_000, polling=50)
    stamps = page.evaluate("() => window.posencStamps")
    loaded = page.evaluate(NAVIGATION_LOADED_AT) / 1000
    return loaded - started, *(stamps[key] / 1000 - started for key in ("open", "frame", "topics"))


def browser_run(
    playwright, port: int, log: Path, titles: list[str], workdir: Path, cold: bool
) -> tuple | None:
    """Timings of one tab in a fresh browser profile, and whether it took the spare. `cold`: another tab opens
    the page first and this one right after that page's load event, before a new spare can be ready."""
    context = playwright.chromium.launch_persistent_context(
        str(workdir / f"profile-{time.monotonic_ns()}"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 800},
    )
    try:
        context.add_init_script(WATCH_TERMINAL)
        for blank in context.pages:
            blank.close()
        seen = len(tab_events(log))
        if cold:  # a first tab takes the spare: once its websocket has, the timed tab opens
            open_tab(context, port, titles)
            deadline = time.monotonic() + 30
            while len(tab_events(log)) == seen and time.monotonic() < deadline:
                time.sleep(0.005)
            seen += 1
        started, page = open_tab(context, port, titles)
        timings = tab_timings(page, started)
        took = tab_events(log)[seen:]
        return (timings, took[0]["spare"]) if len(took) == 1 else None
    finally:
        context.close()


async def websocket_run(port: int, log: Path, titles: list[str]) -> tuple[float, float, bool] | None:
    """(first frame, topics in the stream) in seconds after the websocket opens, and whether it took the spare."""
    import aiohttp

    seen = len(tab_events(log))
    raw = bytearray()
    first = None
    async with aiohttp.ClientSession() as session:
        started = time.time()
        url = f"http://127.0.0.1:{port}/ws?token={TOKEN}&width={COLS}&height={ROWS}"
        async with session.ws_connect(url) as ws:
            await ws.send_json(["resize", {"width": COLS, "height": ROWS}])
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                message = await ws.receive(timeout=deadline - time.monotonic())
                if message.type != aiohttp.WSMsgType.BINARY:
                    return None
                raw += message.data
                text = ANSI.sub("", raw.decode("utf-8", "replace"))
                if first is None and text.strip():
                    first = time.time()
                if all(t in text for t in titles):
                    shown = time.time()
                    break
            else:
                return None
    took = tab_events(log)[seen:]
    if first is None or len(took) != 1:
        return None
    return first - started, shown - started, took[0]["spare"]


def websocket_timing(port: int, log: Path, titles: list[str]) -> tuple[float, float, bool] | None:
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
    return f"{statistics.median(values) * 1000:7.0f} ms  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, n={len(values)})"


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

    for package in ("tui", "quizbank", "posenc_ref"):  # byte-compiled as installed, as bench/startup.py does
        compileall.compile_dir(ROOT / package, quiet=1)
    with tempfile.TemporaryDirectory(prefix="posenc-bench-serve-") as tmp:
        workdir = Path(tmp)
        log = workdir / "serve.jsonl"
        port = free_port()
        terminal_run(
            workdir
        )  # warm the file cache and build the bank cache, before the server's spare starts
        server = subprocess.Popen(
            [sys.executable, "-m", "tui", "serve", "--port", str(port)],
            cwd=ROOT,
            env={**base_env(workdir, log), "POSENC_SERVE_TOKEN": TOKEN},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        terminal: list[tuple[float, float]] = []
        browser: dict[str, list[tuple]] = {"spare": [], "cold": []}
        websocket: list[tuple[float, float]] = []
        no_idle_spare = 0
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={TOKEN}", timeout=2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            wait_for_idle_spare(server.pid, log)
            websocket_timing(port, log, titles)  # warm-up
            playwright = sync_playwright().start() if have_browser else None
            try:
                for _ in range(args.runs):
                    if (result := terminal_run(workdir)) is not None:
                        terminal.append(result)
                    for cold in (False, True) if playwright is not None else ():
                        no_idle_spare += wait_for_idle_spare(server.pid, log) is None
                        if result := browser_run(playwright, port, log, titles, workdir, cold):
                            timings, spare = result
                            browser["spare" if spare else "cold"].append(timings)
                            print(
                                f"browser, {'cold' if cold else 'warm'} run:",
                                *(f"{t * 1000:.0f}" for t in timings),
                                "" if spare is not cold else "(took the other path)",
                                file=sys.stderr,
                            )
                    no_idle_spare += wait_for_idle_spare(server.pid, log) is None
                    if (result := websocket_timing(port, log, titles)) is not None and result[2]:
                        websocket.append(result[:2])
            finally:
                if playwright is not None:
                    playwright.stop()
        finally:
            server.terminate()
            server.wait(30)

    print(f"posenc serve startup ({COLS}x{ROWS} for the terminal; {args.runs} alternating runs, medians)")
    print("Terminal (pty), from launch:")
    print(f"  first paint (= process start)           {ms([t[0] for t in terminal])}")
    print(f"  Home with its topics                    {ms([t[1] for t in terminal])}")
    if have_browser:
        for path, title in (
            ("spare", "warm: the tab takes the spare"),
            ("cold", "cold: a second tab at once"),
        ):
            runs = browser[path]
            print(f"Browser (headless Chromium), {title}, from navigation:")
            print(f"  page load event                         {ms([b[0] for b in runs])}")
            print(f"  the page's websocket open               {ms([b[1] for b in runs])}")
            print(f"  the app's first frame in xterm          {ms([b[2] for b in runs])}")
            print(f"  Home with its topics in xterm           {ms([b[3] for b in runs])}")
    else:
        print(f"Browser: skipped (no Chromium at {CHROMIUM} or no playwright package)")
    print("Websocket client (no browser, warm), from opening the socket:")
    print(f"  the app's first frame in the stream     {ms([w[0] for w in websocket])}")
    print(f"  Home with its topics in the stream      {ms([w[1] for w in websocket])}")
    if no_idle_spare:
        print(f"  ({no_idle_spare} waits for an idle spare timed out)")
    if terminal:
        start = statistics.median(t[0] for t in terminal)
        home = statistics.median(t[1] for t in terminal)
        for path in ("spare", "cold"):
            if runs := browser[path]:
                frame = statistics.median(b[2] for b in runs) - start
                extra = statistics.median(b[3] for b in runs) - home
                print(
                    f"{path:>5}: first frame - terminal first paint = {frame * 1000:.0f} ms, page-to-Home - "
                    f"launch-to-Home = {extra * 1000:.0f} ms; one process start = {start * 1000:.0f} ms "
                    f"({'within' if max(frame, extra) <= start else 'over'} the target)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
