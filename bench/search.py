"""Benchmark: search over the whole shipped bank (quizbank.search.rank).

Target: a query answers within 50 ms on the whole bank, every question's id, prompt,
answers and explanation in both languages. Prints the time of each query (the median of --repeat
runs), the slowest, and its ratio to the 50 ms goal; it asserts nothing (see tests/quizbank/test_search.py
for correctness). Building the index (math converted to text, once per loaded bank, in a worker
thread in the app) is timed separately.

    .venv/bin/python bench/search.py
    .venv/bin/python bench/search.py --repeat 20

`--screen` also types queries into the app's Search screen (Pilot, 80x24) and times each key until
the screen has handled it (results listed): what a user feels while typing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

GOAL_S = 0.050
QUERIES = [
    "r",
    "rope",
    "rope base",
    "yarn temperature",
    "context-extension.yarn-temperature",
    "ntk aware scaling factor",
    "the",
    "旋转",
    "位置 插值",
    "a b c d e",
    "no-such-word-anywhere",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--screen", action="store_true", help="also time keys on the Search screen")
    args = parser.parse_args()

    from quizbank.loader import load_banks
    from quizbank.search import question_documents, rank
    from tui.richtext import plain

    bankset = load_banks(include_user=False)
    start = time.perf_counter()
    documents = question_documents(bankset, plain)
    built = time.perf_counter() - start
    print(f"index: {len(documents)} questions in {built * 1000:.0f} ms (once per loaded bank)")
    worst = 0.0
    for lang in ("en", "zh"):
        for query in QUERIES:
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                found = rank(documents, query, lang)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            worst = max(worst, median)
            print(f"  {lang} {query!r:42} {len(found):4d} hits  {median * 1000:6.2f} ms")
    print(f"slowest query: {worst * 1000:.2f} ms = {worst / GOAL_S:.2f} x the {GOAL_S * 1000:.0f} ms goal")
    if args.screen:
        import asyncio

        asyncio.run(screen_keys(["yarn temp", "rope base", "旋转"]))


async def screen_keys(queries: list[str]) -> None:
    """Time every key typed into the Search screen, from the press until the app is idle again."""
    import asyncio
    import tempfile

    from textual import events
    from textual.widgets import Input

    from quizbank.search import question_index_ready
    from tui.app import PosencApp

    app = PosencApp(data_dir=tempfile.mkdtemp(prefix="posenc-bench-"))
    per_key: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        while app.bank_view is None or (app.warm_torch and not app.torch_ready):
            await asyncio.sleep(0.01)  # torch warms in the background first, as after a real start
        await pilot.press("slash")
        while not question_index_ready(app.bank_view):
            await asyncio.sleep(0.01)
        await pilot.pause()
        screen = app.screen
        field = screen.query_one("#search-input", Input)
        for query in queries:
            field.value = ""
            await pilot.pause()
            for char in query:
                start = time.perf_counter()
                app.post_message(events.Key("space" if char == " " else char, char))
                while field.value[-1:] != char:
                    await asyncio.sleep(0.001)
                await pilot.pause()
                per_key.append(time.perf_counter() - start)
    per_key.sort()
    print(
        f"Search screen: {len(per_key)} keys, median {statistics.median(per_key) * 1000:.1f} ms, "
        f"slowest {per_key[-1] * 1000:.1f} ms (key to the list redrawn, Pilot overhead included)"
    )


if __name__ == "__main__":
    main()
