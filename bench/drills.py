"""Benchmark: grading a drill, cold process start included (quizbank.drills.grade_file).

Target (issue 9): <= 3 s per grade on this 2-core CPU machine; importing torch in the fresh child is
most of it. Each fixed drill's model solution is graded `--repeat` times in a new isolated child
(exactly what `posenc drill check` and the Drill screen do); the median is printed against the target,
with the child's own time spent running the cases. Asserts nothing (see tests/ for correctness).

    .venv/bin/python bench/drills.py                 # the ten fixed drills, 3 runs each
    .venv/bin/python bench/drills.py --repeat 5 --all
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGET_S = 3.0


def main(argv: list[str] | None = None) -> int:
    from quizbank.drills import DRILL_NAMES, FIXED_DRILL_NAMES, get_drill, grade_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="grades per drill (default 3)")
    parser.add_argument("--all", action="store_true", help="every drill, not only the ten fixed ones")
    args = parser.parse_args(argv)
    names = DRILL_NAMES if args.all else FIXED_DRILL_NAMES

    print(f"grading each model solution {args.repeat}x in a fresh isolated child; target <= {TARGET_S:.1f} s")
    print(f"{'drill':<24} {'median s':>9} {'min s':>7} {'cases ms':>9}  vs target")
    medians = []
    with tempfile.TemporaryDirectory(prefix="posenc-bench-drills-") as folder:
        for name in names:
            path = Path(folder) / f"{name}.py"
            path.write_text(get_drill(name).solution, encoding="utf-8")
            times, case_ms = [], []
            for _ in range(args.repeat):
                start = time.perf_counter()
                report = grade_file(name, path)
                times.append(time.perf_counter() - start)
                case_ms.append(sum(c.elapsed_ms for c in report.cases))
                if not report.passed:
                    print(f"  {name}: the model solution FAILED: {report.to_json()}")
            median = statistics.median(times)
            medians.append(median)
            verdict = "ok" if median <= TARGET_S else "OVER"
            print(
                f"{name:<24} {median:>9.2f} {min(times):>7.2f} {statistics.median(case_ms):>9.1f}  "
                f"{verdict} ({median / TARGET_S:.0%})"
            )
    print(
        f"{'all drills':<24} {statistics.median(medians):>9.2f} {min(medians):>7.2f}   worst {max(medians):.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
