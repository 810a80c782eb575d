"""Start-up in instructions: the ratios of `bench/startup.py`, counted by valgrind instead of timed.

A shared 2-core box times the same launch at 230 to 390 ms from one minute to the next, so a 9-run median
of `bench/startup.py` moves by about 0.1 of a ratio. The instructions a launch executes hardly move: under
valgrind's callgrind, the same launch counts the same to within 0.1% on a quiet machine (within 1% beside
another load, whose slowdown lets the app's timers fire at other points). This counts, in a 120x40
pseudo-terminal:

- a bare Textual app (one Label) to its first paint;
- `posenc` (as `posenc` starts: the garbage collector held off, then the app) to Home's first paint;
- `posenc` to Home listing the topics from the cached banks' preview;

and prints the two ratios against the bare app (targets: first paint <= 1.3, topics <= 1.5). An instruction
is not a nanosecond (hashing, say, uses CPU extensions valgrind does not run), but a change that removes
work shows here at once, where the timed bench needs many paired runs to see it.

Valgrind runs the app about 70 times slower, so its waits for the first paint and for the preview are
stretched, to keep the order in which the work happens natively. Run:
`.venv/bin/python bench/startup_instructions.py` (about a minute; needs `valgrind`; never fails a build).
"""

from __future__ import annotations

import compileall
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import BARE_APP, ROOT, TOPICS_SIZE, Terminal, base_env

POSENC_TO = """
import os, sys
from tui import collector
collector.hold()  # as `posenc` does before it imports the app (tui.cli)
import tui.app, tui.screens.home, tui.startup
tui.startup.PREVIEW_PAINT_WAIT_S = tui.screens.home.BODY_WAIT_S = 600.0  # valgrind is ~70x slower
stop = os.environ["POSENC_BENCH_STOP"]
logged = tui.app.PosencApp.bench_event

def bench_event(self, event, **fields):
    logged(self, event, **fields)
    if event == stop:
        os._exit(0)

tui.app.PosencApp.bench_event = bench_event
from tui.cli import main
sys.exit(main([]))
"""

RUNS = {
    "bare Textual app, first paint": (BARE_APP, None),
    "posenc, first paint": (POSENC_TO, "first_paint"),
    "posenc, topics listed": (POSENC_TO, "topics_listed"),
}


def instructions(code: str, stop: str | None, workdir: Path, tag: str) -> int | None:
    """The instructions one launch executes to its end (the bare app exits at its first paint, posenc at
    `stop`), or None."""
    out = workdir / f"callgrind-{tag}.out"
    env = base_env(workdir, workdir / f"log-{tag}.jsonl", TOPICS_SIZE)
    env["PYTHONHASHSEED"] = "0"
    if stop is not None:
        env["POSENC_BENCH_STOP"] = stop
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code]
    term = Terminal(argv, env, TOPICS_SIZE)
    try:
        if term.wait(600) is None or not out.exists():
            return None
    finally:
        term.close()
    found = re.search(r"^summary: (\d+)", out.read_text(errors="replace"), re.M)
    return int(found.group(1)) if found else None


def main() -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing counted (apt-get install valgrind)")
        return 0
    for package in ("tui", "quizbank", "posenc_ref"):  # as an installed package's modules are
        compileall.compile_dir(ROOT / package, quiet=1)
    with tempfile.TemporaryDirectory(prefix="posenc-bench-") as tmp:
        workdir = Path(tmp)
        # the bank cache (and its preview) that Home lists the topics from
        subprocess.run(
            [sys.executable, "-c", "from quizbank.loader import load_banks; load_banks(use_cache=True)"],
            env=base_env(workdir, workdir / "warm.jsonl"),
            cwd=ROOT,
            check=True,
        )
        with ThreadPoolExecutor(max_workers=2) as pool:  # two at a time: a count does not depend on the load
            futures = {
                name: pool.submit(instructions, code, stop, workdir, str(i))
                for i, (name, (code, stop)) in enumerate(RUNS.items())
            }
            counts = {name: future.result() for name, future in futures.items()}
    cols, rows = TOPICS_SIZE
    print(f"Start-up in instructions (callgrind, {cols}x{rows} pty):")
    for name, count in counts.items():
        print(f"  {name:<32} {'failed' if count is None else f'{count / 1e6:9.1f} M'}")
    bare, paint, topics = counts.values()
    if bare and paint and topics:
        print(f"  first-paint ratio posenc / bare = {paint / bare:.2f}  (target <= 1.30)")
        print(f"  time-to-topics ratio posenc / bare = {topics / bare:.2f}  (target <= 1.50)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
