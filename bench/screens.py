"""Screen latencies as a user feels them, timed through Textual's Pilot on the shipped bank.

Measured (median of N): the wall time from the key to the first frame the app paints that shows
the result (`PaintClock`: the moment a terminal would get it), and the app's main-thread CPU time
over the same span (steadier than wall time when the machine is shared; compare runs by it).
1. Browse `n`: the next question's prompt painted (goal <= 150 ms on a quiet machine); every message
   the key caused handled (Pilot's own wait: the explanation and the panel rebuilt); its demo's result.
2. Study: from `s` on Home until the first card's prompt is painted; then, once it is revealed, from
   the rating key `3` until the next card's prompt is painted.
3. Reload `r`: until the banks are in again (`banks_version` moves) and a frame is painted.
4. Quiz setup: from `z` on Home until the setup screen is painted with its topics listed.

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


class PaintClock:
    """Times the frames the app paints: `app._display` is called once per frame it would write to
    the terminal (headless, it writes nothing). `expect(probe)` arms it; the first frame painted
    while `probe()` holds is recorded: `seen` (wall clock) and `seen_cpu` (the main thread's CPU
    time, the app's own work: steadier than wall time on a loaded machine)."""

    def __init__(self, app) -> None:
        self.probe = None
        self.seen: float | None = None
        self.seen_cpu: float | None = None
        original = app._display

        def display(screen, renderable) -> None:
            original(screen, renderable)
            if renderable is not None and self.probe is not None and self.seen is None and self.probe():
                self.seen, self.seen_cpu = time.perf_counter(), time.thread_time()

        app._display = display

    def expect(self, probe) -> tuple[float, float]:
        """Arm the clock; returns the start (wall, main-thread CPU)."""
        self.probe, self.seen, self.seen_cpu = probe, None, None
        return time.perf_counter(), time.thread_time()

    async def wait(self, start: tuple[float, float], timeout: float = 60.0) -> tuple[float, float]:
        """(wall, CPU) seconds from `start` to the first frame painted with the probe holding."""
        await _until(lambda: self.seen is not None, timeout)
        return self.seen - start[0], self.seen_cpu - start[1]


def _shows_prompt(view, want: str | None = None) -> bool:
    """Whether `view` (a QuestionView) is on screen with its prompt (one starting with `want`)."""
    from textual.widgets import Static

    if view is None or not view.is_mounted or not getattr(view, "_ready", True):
        return False
    prompt = view.query_one(".qv-prompt", Static)
    text = " ".join(str(prompt.content).split())
    return prompt.region.area > 0 and (want in text if want is not None else bool(text))


async def bench(runs: int) -> dict[str, list[float]]:
    from textual.widgets import SelectionList

    from tui.app import PosencApp
    from tui.screens.browse import BrowseScreen
    from tui.screens.quiz import QuizSetupScreen
    from tui.screens.study import StudyScreen

    data = Path(tempfile.mkdtemp(prefix="posenc-bench-"))
    os.environ["POSENC_DATA_DIR"] = str(data / "data")
    os.environ["POSENC_BANK_DIR"] = str(data / "banks")
    os.environ.setdefault("POSENC_CACHE_DIR", str(data / "cache"))
    app = PosencApp(data_dir=str(data / "data"), include_user=False, seed=1, cursor_blink=False)
    clock = PaintClock(app)
    out: dict[str, list[float]] = {key: [] for key in LABELS}

    def record(key: str, wall_cpu: tuple[float, float]) -> None:
        out[key].append(wall_cpu[0])
        out[key + "_cpu"].append(wall_cpu[1])

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
            start = clock.expect(lambda want=want, screen=screen: _shows_prompt(screen.view, want))
            await pilot.press("n")
            out["browse_settled"].append(time.perf_counter() - start[0])
            record("browse_text", await clock.wait(start))
            if nxt.demo is not None:
                name = nxt.demo.name
                t_demo = await _until(
                    lambda panel=panel, name=name: panel.result is not None and panel.demo_name == name
                )
                out["browse_demo"].append(t_demo - start[0])
            # the whole screen, once: the prompt is really there for a reader
            assert want in " ".join(_text(app).split()), want
            await pilot.pause(0.3)
        await pilot.press("q")
        await _until(lambda: not isinstance(app.screen, BrowseScreen))
        for _ in range(runs):
            start = clock.expect(
                lambda: isinstance(app.screen, StudyScreen) and _shows_prompt(app.screen.view)
            )
            await pilot.press("s")
            record("study_open", await clock.wait(start))
            # reveal, then rate: until the next card's prompt is painted (a fresh view is mounted)
            study = app.screen
            shown = study.view.question.id
            await pilot.press("enter")
            await _until(lambda study=study: study.revealed)
            await pilot.pause(0.2)
            start = clock.expect(
                lambda study=study, shown=shown: (
                    study.view is not None and study.view.question.id != shown and _shows_prompt(study.view)
                )
            )
            await pilot.press("3")
            record("study_next", await clock.wait(start))
            await pilot.pause(0.2)
            app.pop_screen()  # (q would type into the next card's field, if it has one)
            await _until(lambda: not isinstance(app.screen, StudyScreen))
            await pilot.pause(0.2)
        for _ in range(runs):
            version = app.banks_version
            start = clock.expect(lambda version=version: app.banks_version != version)
            await pilot.press("r")
            record("reload", await clock.wait(start))
            await pilot.pause(0.3)
        for _ in range(runs):
            start = clock.expect(
                lambda: (
                    isinstance(app.screen, QuizSetupScreen)
                    and app.screen.is_mounted
                    and app.screen.query_one("#setup-topics", SelectionList).option_count > 0
                    and app.screen.query_one("#setup-topics", SelectionList).region.area > 0
                )
            )
            await pilot.press("z")
            record("setup", await clock.wait(start))
            assert "Topics" in _text(app)
            await pilot.press("q")
            await _until(lambda: not isinstance(app.screen, QuizSetupScreen))
            await pilot.pause(0.2)
    return out


LABELS = {
    "browse_text": "Browse n -> next question's text painted",
    "browse_text_cpu": "  (main-thread CPU)",
    "browse_settled": "Browse n -> every message handled",
    "browse_demo": "Browse n -> its demo result",
    "study_open": "Home s -> first Study card painted",
    "study_open_cpu": "  (main-thread CPU)",
    "study_next": "Study 3 (rated) -> next card painted",
    "study_next_cpu": "  (main-thread CPU)",
    "reload": "r -> banks reloaded, painted",
    "reload_cpu": "  (main-thread CPU)",
    "setup": "Home z -> quiz setup painted",
    "setup_cpu": "  (main-thread CPU)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results = asyncio.run(bench(args.runs))
    print(f"load average (1 min) {load:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs")
    print(f"{'what':40} {'median':>9} {'min':>9} {'max':>9}  n")
    for key, label in LABELS.items():
        values = results[key]
        if not values:
            continue
        print(
            f"{label:40} {statistics.median(values) * 1000:8.0f}ms {min(values) * 1000:8.0f}ms"
            f" {max(values) * 1000:8.0f}ms  {len(values)}"
        )


if __name__ == "__main__":
    main()
