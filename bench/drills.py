"""Benchmark: how long a candidate waits for a grade, measured in one run (median of --repeat).

Targets, as figures measured in this run:
- a syntax error, reported by `posenc drill check` before torch is imported:  <= 0.3 s (whole CLI process);
- a warm grade in the app (the Drill screen's pre-started child, torch already imported here and there),
  from the call to the report:                                                <= 0.5 s;
- the cold CLI figure beside it: `posenc drill check` on the model solution, process start to exit.
The ratio warm / cold is the point: it is what pre-starting buys on this machine, whatever its load.
Asserts nothing (see tests/ for correctness).

    .venv/bin/python bench/drills.py                  # rope-half, 5 runs each
    .venv/bin/python bench/drills.py --drill t5-bucket --repeat 7
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SYNTAX_TARGET_S = 0.3
WARM_TARGET_S = 0.5
CLI = "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))"


def cli_seconds(name: str, path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-I", "-c", CLI, "drill", "check", name, str(path)], cwd=REPO, capture_output=True
    )
    return time.perf_counter() - start, done.returncode


def main(argv: list[str] | None = None) -> int:
    from quizbank.drills import WarmGrader, get_drill, grade_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--drill", default="rope-half", help="the drill graded (default rope-half)")
    args = parser.parse_args(argv)
    name = args.drill
    with tempfile.TemporaryDirectory(prefix="posenc-bench-drills-") as folder:
        good = Path(folder) / "good.py"
        good.write_text(get_drill(name).solution, encoding="utf-8")
        bad = Path(folder) / "bad.py"
        bad.write_text(get_drill(name).solution.replace("def ", "def (", 1), encoding="utf-8")

        syntax = [cli_seconds(name, bad) for _ in range(args.repeat)]
        assert all(code == 1 for _, code in syntax)
        cold = [cli_seconds(name, good) for _ in range(args.repeat)]
        assert all(code == 0 for _, code in cold), "the model solution failed"

        warm_grader = WarmGrader()
        WarmGrader.warm_parent()
        warm, cases_ms = [], []
        try:
            for _ in range(args.repeat):
                warm_grader.refill()
                supervisor = warm_grader.take()
                assert supervisor is not None
                supervisor.wait_ready()  # as when the candidate has been typing for a while
                start = time.perf_counter()
                report = grade_file(name, good, supervisor=supervisor)
                warm.append(time.perf_counter() - start)
                cases_ms.append(sum(c.elapsed_ms for c in report.cases))
                assert report.passed, report.to_json()
        finally:
            warm_grader.close()

    def row(label: str, times: list[tuple[float, int]] | list[float], target: float | None) -> float:
        seconds = [t[0] if isinstance(t, tuple) else t for t in times]
        median = statistics.median(seconds)
        verdict = "" if target is None else f"  {'ok' if median <= target else 'OVER'} (target {target:g} s)"
        print(f"{label:<44} {median:>7.3f} {min(seconds):>7.3f}{verdict}")
        return median

    print(f"drill {name}, median and min of {args.repeat} runs, seconds")
    print(f"{'':<44} {'median':>7} {'min':>7}")
    row("syntax error, `posenc drill check` process", syntax, SYNTAX_TARGET_S)
    cold_median = row("cold grade, `posenc drill check` process", cold, None)
    warm_median = row("warm grade (the Drill screen's Ctrl+R)", warm, WARM_TARGET_S)
    print(f"{'  of which judging the cases':<44} {statistics.median(cases_ms) / 1000:>7.3f}")
    print(f"warm / cold: {warm_median / cold_median:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
