"""Screen latencies as a user feels them, timed through Textual's Pilot on the shipped bank.

Measured (median of N, wall time from the key to the moment the screen shows the result):
1. Browse `n`: until the next question's prompt is on screen, and until its demo panel has a result
   (the question text must come first; goal <= 150 ms on a quiet machine).
2. Study: from pressing `s` on Home until the first card's prompt is on screen.
3. Reload `r`: until the banks are in again (`banks_version` moves) and the screen repainted.
4. Quiz setup: from `z` on Home until the setup screen lists its topics.

Run: `.venv/bin/python bench/screens.py [--runs N]`. Prints a table; never fails a build. Progress goes
to a temporary folder. Real demos run (torch is imported in the background first, as the app does).
Timings include Pilot's own overhead (a few ms per key), the same for every row.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# tests/support: the fixture app helpers; ROOT keeps tui the package (not the folder tests/tui)
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

SIZE = (120, 40)
POLL = 0.002


async def _until(predicate, timeout: float = 30.0) -> float:
    """Poll `predicate` (every 2 ms, letting the app run) and return the time it first held."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if predicate():
            return time.perf_counter()
        await asyncio.sleep(POLL)
    raise TimeoutError("condition never held")


def _text(app) -> str:
    from support.apps import screen_text

    return screen_text(app)


def _prompt_start(question, lang: str = "en") -> str:
    from tui.richtext import plain

    words = plain(question.prompt.get(lang)).split()
    return " ".join(words[:3])


async def bench(runs: int) -> dict[str, list[float]]:
    from tui.app import PosencApp
    from tui.screens.browse import BrowseScreen
    from tui.screens.quiz import QuizSetupScreen
    from tui.screens.study import StudyScreen

    data = Path(tempfile.mkdtemp(prefix="posenc-bench-"))
    os.environ["POSENC_DATA_DIR"] = str(data / "data")
    os.environ["POSENC_BANK_DIR"] = str(data / "banks")
    os.environ.setdefault("POSENC_CACHE_DIR", str(data / "cache"))
    app = PosencApp(data_dir=str(data / "data"), include_user=False, seed=1, cursor_blink=False)
    out: dict[str, list[float]] = {
        "browse_text": [],
        "browse_demo": [],
        "study_open": [],
        "reload": [],
        "setup": [],
    }
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: app.bankset is not None and app.store is not None, 60)
        await pilot.pause()
        bankset = app.bankset
        topic = next(
            t
            for t in bankset.topics
            if sum(bankset.questions[q].demo is not None for q in t.question_ids) >= 4
        )
        ids = topic.question_ids
        app.open_question(ids[0])
        await _until(lambda: isinstance(app.screen, BrowseScreen))
        await pilot.pause(0.5)
        for _ in range(runs):
            screen = app.screen
            nxt = bankset.questions[ids[(ids.index(screen.question_id) + 1) % len(ids)]]
            want = _prompt_start(nxt)
            panel = screen.query_one("#browse-demo")
            t0 = time.perf_counter()
            await pilot.press("n")
            t_text = await _until(lambda want=want: want in " ".join(_text(app).split()))
            if nxt.demo is not None:
                name = nxt.demo.name
                t_demo = await _until(
                    lambda panel=panel, name=name: panel.result is not None and panel.demo_name == name
                )
                out["browse_demo"].append(t_demo - t0)
            out["browse_text"].append(t_text - t0)
            await pilot.pause(0.3)
        await pilot.press("q")
        await _until(lambda: not isinstance(app.screen, BrowseScreen))
        for _ in range(runs):
            t0 = time.perf_counter()
            await pilot.press("s")
            await _until(
                lambda: (
                    isinstance(app.screen, StudyScreen)
                    and app.screen.view is not None
                    and app.screen.view.is_mounted
                    and getattr(app.screen.view, "_ready", True)
                )
            )
            await _until(lambda: "Space" in _text(app) or "Enter" in _text(app))
            out["study_open"].append(time.perf_counter() - t0)
            await pilot.press("q")
            await _until(lambda: not isinstance(app.screen, StudyScreen))
            await pilot.pause(0.2)
        for _ in range(runs):
            version = app.banks_version
            t0 = time.perf_counter()
            await pilot.press("r")
            await _until(lambda version=version: app.banks_version != version, 60)
            await pilot.pause(0)
            out["reload"].append(time.perf_counter() - t0)
            await pilot.pause(0.3)
        for _ in range(runs):
            t0 = time.perf_counter()
            await pilot.press("z")
            await _until(
                lambda: (
                    isinstance(app.screen, QuizSetupScreen)
                    and app.screen.is_mounted
                    and "Topics" in _text(app)
                )
            )
            out["setup"].append(time.perf_counter() - t0)
            await pilot.press("q")
            await _until(lambda: not isinstance(app.screen, QuizSetupScreen))
            await pilot.pause(0.2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = asyncio.run(bench(args.runs))
    labels = {
        "browse_text": "Browse n -> next question's text",
        "browse_demo": "Browse n -> its demo result",
        "study_open": "Home s -> first Study card",
        "reload": "r -> banks reloaded",
        "setup": "Home z -> quiz setup listed",
    }
    print(f"{'what':40} {'median':>9} {'min':>9} {'max':>9}  n")
    for key, label in labels.items():
        values = results[key]
        if not values:
            continue
        print(
            f"{label:40} {statistics.median(values) * 1000:8.0f}ms {min(values) * 1000:8.0f}ms"
            f" {max(values) * 1000:8.0f}ms  {len(values)}"
        )


if __name__ == "__main__":
    main()
