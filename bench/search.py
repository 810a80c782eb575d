"""Benchmark: search over the whole shipped bank (quizbank.search.rank).

Target (issue 21): a query answers within 50 ms on the whole bank, every question's id, prompt,
answers and explanation in both languages. Prints the time of each query (the median of --repeat
runs), the slowest, and its ratio to the 50 ms goal; it asserts nothing (see tests/quizbank/test_search.py
for correctness). Building the index (math converted to text, once per loaded bank, in a worker
thread in the app) is timed separately.

    .venv/bin/python bench/search.py
    .venv/bin/python bench/search.py --repeat 20
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


if __name__ == "__main__":
    main()
