"""Startup and responsiveness of the study app, measured in real terminals (pseudo-terminals).

1. First paint: `posenc` (the real entry point, `python -m tui`) against a bare Textual app that
   shows one Label, in the same run, alternating, N times each; medians and their ratio
   (target <= 1.3). Both apps log the wall time of their first repaint (`on_mount` +
   `call_after_refresh`) and exit; the time is counted from just before the process starts.
   The app's own first paint is also measured without the CLI dispatcher (`run_app` directly).
   Time to topics: the same launch, timed until Home lists the topics (tree painted, from the
   cached banks' preview: every topic, prompt, answer and explanation, so the whole bank is
   searchable from then), at 120x40 against the bare app's first paint at 120x40 (target <= 1.5).
   Also printed: when the full bank (pydantic models: quiz, study, browse) is in, and both without
   the cache.
2. First demo result: launch `posenc`, press `d` (Demo lab) as soon as Home has painted, and
   time until the first demo result is on screen (target <= 1.5 s after launch).
3. Keypress latency during a quiz: start a quiz and press answer / check / next keys; the app
   logs, for each key, the time from the key event to the repaint after it (target <= 50 ms).

On a shared machine the 9-run ratios move by about 0.1 from one minute to the next: `bench/startup_instructions.py`
counts the first two in instructions (valgrind), which do not move.

Run: `.venv/bin/python bench/startup.py [--runs N] [--sections paint,topics,demo,keys]`. Prints a table;
never fails a build. Sections 1 (paint, topics) take about a minute; 2 and 3 (demo, keys) several more.
posenc's own modules are byte-compiled first, as an installed package's are (with PYTHONDONTWRITEBYTECODE
set, every launch would otherwise compile them again, which the bare app, all site-packages, never pays).
Progress and user banks go to a temporary folder, never to the real user directories.
"""

from __future__ import annotations

import argparse
import compileall
import fcntl
import json
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLS, ROWS = 100, 30
TOPICS_SIZE = (120, 40)  # the terminal the time-to-topics figure is measured in

BARE_APP = """
import json, os, time
from textual.app import App
from textual.widgets import Label

class Bare(App):
    def compose(self):
        yield Label("posenc")

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        with open(os.environ["POSENC_BENCH_LOG"], "a") as fh:
            fh.write(json.dumps({"event": "first_paint", "t": time.time()}) + "\\n")
        self.exit()

Bare().run()
"""

DIRECT_APP = "from tui.app import run_app; raise SystemExit(run_app([], None))"


class Terminal:
    """A child process on a pseudo-terminal of COLS x ROWS (or `size`), with its output drained."""

    def __init__(self, argv: list[str], env: dict[str, str], size: tuple[int, int] | None = None) -> None:
        cols, rows = size or (COLS, ROWS)
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.started = time.time()
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True
        )
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self, timeout: float) -> int | None:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        try:
            os.close(self.master)
        except OSError:
            pass


def read_events(log: Path) -> list[dict]:
    if not log.exists():
        return []
    events = []
    for line in log.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events


def wait_for(log: Path, event: str, timeout: float, process: subprocess.Popen | None = None) -> dict | None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        for record in read_events(log):
            if record.get("event") == event:
                return record
        if process is not None and process.poll() is not None:
            return None
        time.sleep(0.005)
    return None


def base_env(workdir: Path, log: Path, size: tuple[int, int] | None = None) -> dict[str, str]:
    cols, rows = size or (COLS, ROWS)
    env = dict(os.environ)
    env.update(
        {
            "TERM": "xterm-256color",
            "COLUMNS": str(cols),
            "LINES": str(rows),
            "POSENC_BENCH_LOG": str(log),
            "POSENC_DATA_DIR": str(workdir / "data"),
            "POSENC_BANK_DIR": str(workdir / "user-banks"),
            "POSENC_CACHE_DIR": str(workdir / "cache"),  # the loaded-bank cache (built by the warm-up run)
            "POSENC_LANG": "en",
        }
    )
    env.pop("TEXTUAL_HEADLESS", None)
    return env


def first_paint_seconds(
    argv: list[str], workdir: Path, tag: str, size: tuple[int, int] | None = None
) -> float | None:
    log = workdir / f"paint-{tag}-{time.monotonic_ns()}.jsonl"
    env = base_env(workdir, log, size)
    env["POSENC_BENCH_EXIT"] = "paint"
    term = Terminal(argv, env, size)
    try:
        record = wait_for(log, "first_paint", 30, term.process)
        term.wait(10)
        return None if record is None else record["t"] - term.started
    finally:
        term.close()


def topics_seconds(
    argv: list[str], workdir: Path, size: tuple[int, int], *, cache: bool = True
) -> tuple[float | None, float | None]:
    """Launch to the Home topics on screen (`topics_listed`) and to the full bank loaded
    (`banks_loaded`); `cache=False` parses the YAML banks instead of reading the bank cache."""
    log = workdir / f"topics-{time.monotonic_ns()}.jsonl"
    env = base_env(workdir, log, size)
    if not cache:
        env["POSENC_BANK_CACHE"] = "0"
    term = Terminal(argv, env, size)
    try:
        topics = wait_for(log, "topics_listed", 30, term.process)
        loaded = wait_for(log, "banks_loaded", 30, term.process)
        term.send("\x11")  # ctrl+q
        term.wait(10)
        return (
            None if topics is None else topics["t"] - term.started,
            None if loaded is None else loaded["t"] - term.started,
        )
    finally:
        term.close()


def first_demo_seconds(workdir: Path) -> tuple[float | None, float | None, str]:
    log = workdir / f"demo-{time.monotonic_ns()}.jsonl"
    term = Terminal([sys.executable, "-m", "tui"], base_env(workdir, log))
    try:
        if wait_for(log, "first_paint", 30, term.process) is None:
            return None, None, "no first paint"
        term.send("d")
        record = wait_for(log, "demo_result", 30, term.process)
        warm = wait_for(log, "torch_warm", 5, term.process)
        term.send("\x11")  # ctrl+q
        term.wait(10)
        if record is None:
            return None, None, "no demo result"
        note = record.get("name", "") + ("" if record.get("ok") else f" (failed: {record.get('error')})")
        warm_s = None if warm is None else warm["t"] - term.started
        return record["t"] - term.started, warm_s, note
    finally:
        term.close()


def quiz_key_latencies(workdir: Path, questions: int = 12) -> list[dict]:
    log = workdir / f"keys-{time.monotonic_ns()}.jsonl"
    term = Terminal([sys.executable, "-m", "tui"], base_env(workdir, log))
    try:
        if wait_for(log, "banks_loaded", 30, term.process) is None:
            return []
        wait_for(log, "torch_warm", 10, term.process)
        time.sleep(0.3)
        term.send("z")  # quiz setup
        time.sleep(0.6)
        term.send("s")  # start (10 questions)
        time.sleep(0.8)
        for _ in range(questions):
            for key, pause in (("1", 0.35), ("\x1b", 0.25), (" ", 0.6), ("n", 0.5)):
                term.send(key)
                time.sleep(pause)
        time.sleep(0.5)
        term.send("\x11")
        term.wait(10)
        return [e for e in read_events(log) if e.get("event") == "key"]
    finally:
        term.close()


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="first-paint runs per app (alternating)")
    parser.add_argument("--demo-runs", type=int, default=3, help="launches timed to the first demo result")
    parser.add_argument(
        "--sections",
        default="paint,topics,demo,keys",
        help="comma-separated: paint (first paint), topics (time to topics), demo (first demo), keys (latency)",
    )
    args = parser.parse_args()
    sections = {name.strip() for name in args.sections.split(",")}

    for package in ("tui", "quizbank", "posenc_ref"):  # see the module docstring
        compileall.compile_dir(ROOT / package, quiet=1)
    with tempfile.TemporaryDirectory(prefix="posenc-bench-") as tmp:
        workdir = Path(tmp)
        bare_file = workdir / "bare_app.py"
        bare_file.write_text(BARE_APP)
        apps = {
            "bare Textual app (one Label)": [sys.executable, str(bare_file)],
            "posenc (python -m tui)": [sys.executable, "-m", "tui"],
            "posenc app without CLI (run_app)": [sys.executable, "-c", DIRECT_APP],
        }
        # warm the OS file cache once per app (and the bank cache) so the first run is not an outlier
        for argv in apps.values():
            first_paint_seconds(argv, workdir, "warm")
        topics_seconds(apps["posenc (python -m tui)"], workdir, TOPICS_SIZE)
        if "paint" in sections:
            first_paint_table(apps, workdir, args.runs)
        if "topics" in sections:
            topics_table(apps, workdir, args.runs)
        if "demo" in sections:
            demo_table(workdir, args.demo_runs)
        if "keys" in sections:
            keys_table(workdir)
    return 0


def first_paint_table(apps: dict[str, list[str]], workdir: Path, runs: int) -> None:
    times: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(runs):
        for name, argv in apps.items():
            seconds = first_paint_seconds(argv, workdir, str(len(times[name])))
            if seconds is not None:
                times[name].append(seconds)

    print(f"First paint ({COLS}x{ROWS} pty, {runs} alternating runs each, median):")
    bare = median(times["bare Textual app (one Label)"])
    for name, values in times.items():
        m = median(values)
        spread = f"min {min(values) * 1000:.0f} / max {max(values) * 1000:.0f} ms" if values else "no data"
        print(f"  {name:<34} {m * 1000:7.0f} ms   ratio {m / bare:4.2f}   ({spread})")
    ratio = median(times["posenc (python -m tui)"]) / bare
    print(f"  first-paint ratio posenc / bare = {ratio:.2f}  (target <= 1.30)")


def topics_table(apps: dict[str, list[str]], workdir: Path, runs: int) -> None:
    cols, rows = TOPICS_SIZE
    bare_big: list[float] = []
    found: dict[str, list[float]] = {"topics": [], "full": [], "topics_nc": [], "full_nc": []}
    paired: list[float] = []  # each run's topics over the bare app's first paint just before it
    for _ in range(runs):
        seconds = first_paint_seconds(apps["bare Textual app (one Label)"], workdir, "bare-big", TOPICS_SIZE)
        if seconds is not None:
            bare_big.append(seconds)
        for suffix, cache in (("", True), ("_nc", False)):
            topics, full = topics_seconds(apps["posenc (python -m tui)"], workdir, TOPICS_SIZE, cache=cache)
            if topics is not None:
                found["topics" + suffix].append(topics)
                if cache and seconds is not None:
                    paired.append(topics / seconds)
            if full is not None:
                found["full" + suffix].append(full)
    print(f"\nTime to topics ({cols}x{rows} pty, {runs} alternating runs each, median):")
    if not bare_big or not found["topics"]:
        print("  no data")
        return
    bare = median(bare_big)
    print(f"  bare Textual app first paint                 {bare * 1000:7.0f} ms")
    rows_out = (
        ("topics", "posenc Home topics listed (cache preview)"),
        ("full", "  full bank loaded (quiz, study ready)"),
        ("topics_nc", "without the cache: topics listed"),
        ("full_nc", "  full bank loaded"),
    )
    for key, label in rows_out:
        values = found[key]
        if values:
            print(
                f"  {label:<44} {median(values) * 1000:7.0f} ms   ratio {median(values) / bare:4.2f}"
                f"   (min {min(values) * 1000:.0f} / max {max(values) * 1000:.0f} ms)"
            )
    print(f"  time-to-topics ratio posenc / bare = {median(found['topics']) / bare:.2f}  (target <= 1.50)")
    # A shared machine's speed drifts within a run; a launch and the bare one just before it share the drift.
    print(
        f"  paired: median of the {len(paired)} runs' own ratios = {median(paired):.2f}"
        f"   (min {min(paired, default=float('nan')):.2f} / max {max(paired, default=float('nan')):.2f})"
    )


def demo_table(workdir: Path, demo_runs: int) -> None:
    print(f"\nLaunch to first demo result (press d at Home; {demo_runs} launches):")
    demo_times = []
    for _ in range(demo_runs):
        seconds, warm, note = first_demo_seconds(workdir)
        if seconds is not None:
            demo_times.append(seconds)
            warm_text = f"torch warm at {warm:.2f} s" if warm is not None else "torch warm not logged"
            print(f"  {seconds:.2f} s  ({note}; {warm_text})")
        else:
            print(f"  failed: {note}")
    if demo_times:
        print(f"  median {median(demo_times):.2f} s  (target <= 1.50 s)")


def keys_table(workdir: Path) -> None:
    print("\nKeypress latency during a quiz (key event -> repaint):")
    logged = quiz_key_latencies(workdir)
    keys = [k for k in logged if k.get("screen") == k.get("shown") == "QuizScreen"]
    for k in logged:
        if k.get("screen") != k.get("shown") and "QuizScreen" in (k.get("screen"), k.get("shown")):
            # entering or leaving the quiz switches screens (Textual waits 50 ms for that)
            print(f"  (screen switch {k.get('screen')} -> {k.get('shown')}: {k['ms']:.1f} ms, not counted)")
    if not keys:
        print("  no key events logged")
        return
    values = sorted(k["ms"] for k in keys)
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    print(
        f"  {len(values)} keys: median {median(values):.1f} ms, p95 {p95:.1f} ms, max {values[-1]:.1f} ms"
        "  (target <= 50 ms)"
    )
    by_key: dict[str, list[float]] = {}
    for k in keys:
        by_key.setdefault(k["key"], []).append(k["ms"])
    for key, ms in sorted(by_key.items()):
        print(f"    {key:<8} n={len(ms):<3} median {median(ms):6.1f} ms   max {max(ms):6.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
