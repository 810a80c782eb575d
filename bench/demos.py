"""Benchmark: every live demo at its default parameters on the CPU, cold and warm.

"Cold" is a demo's first run in a fresh process in which torch is already imported and one other
tiny demo has run (so torch's own start-up is not counted, but the demo's first-call work is: its
lazy imports, first-use kernels, table builds). "Warm" is its second run in that process. Each
round runs in a fresh child process; the medians over rounds are printed, slowest first, against
the 100 ms cold target (a demo is a live answer in the app: it should feel instant). The CPU time of
the cold run (all threads of the process) is printed too: on a loaded machine it is the steadier number.

Usage: python bench/demos.py [--rounds N] [--device cpu] [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 100.0

CHILD = r"""
import json, sys, time
import torch
from posenc_ref.demos import list_demos, run_demo
names, device = json.loads(sys.argv[1]), sys.argv[2]
run_demo("alibi-slopes", device=device)  # torch and the registry warm; not timed
out = {}
for name in names or [d.name for d in list_demos()]:
    cpu = time.process_time()
    cold = run_demo(name, device=device)
    cpu = (time.process_time() - cpu) * 1000.0
    warm = run_demo(name, device=device)
    out[name] = [cold.elapsed_ms, warm.elapsed_ms, cold.passed and warm.passed, cpu]
print(json.dumps(out))
"""


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="demos to time (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes (default 3)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    rounds: list[dict[str, list]] = []
    for _ in range(args.rounds):
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(args.names), args.device],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        if proc.returncode:
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        rounds.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    names = list(rounds[0])
    rows = []
    for name in names:
        cold = statistics.median(r[name][0] for r in rounds)
        warm = statistics.median(r[name][1] for r in rounds)
        cpu = statistics.median(r[name][3] for r in rounds)
        rows.append((cold, warm, name, all(r[name][2] for r in rounds), cpu))
    rows.sort(reverse=True)
    print(
        f"{len(names)} demos on {args.device}, medians of {args.rounds} fresh processes (target: cold <= 100 ms)"
    )
    print(f"  {'demo':<28} {'cold ms':>8} {'warm ms':>8} {'cold CPU ms':>12}")
    over = 0
    for cold, warm, name, passed, cpu in rows:
        flag = "" if cold <= TARGET_MS else "  over"
        over += cold > TARGET_MS
        print(f"  {name:<28} {cold:8.1f} {warm:8.1f} {cpu:12.1f}{flag}{'' if passed else '  CHECK FAILED'}")
    print(f"{over} of {len(names)} demos over {TARGET_MS:.0f} ms cold")
    return 0 if all(row[3] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
