"""Benchmark: loading question banks (quizbank.loader.load_banks).

Targets: the shipped bank loads in <= 100 ms; a synthetic 10,000-question bank loads in
<= 2 s and grows linearly. Prints the numbers and ratios; it asserts nothing (see tests/ for
correctness).

    .venv/bin/python bench/bank_load.py            # shipped + 1k / 5k / 10k
    .venv/bin/python bench/bank_load.py --sizes 1000 20000 --repeat 5

"Warm" is a load in a process that has already imported pydantic, PyYAML and the schema (the
app's second load, or any load after start-up); "cold" runs a fresh interpreter and includes
those imports.
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

QUESTIONS_PER_FILE = 1000  # keeps each synthetic file well under the 5 MiB cap


def _question(i: int) -> str:
    """One realistic bilingual question; the six types in turn, a third with a demo and a check."""
    kind = ("open", "mcq", "multi", "truefalse", "numeric", "cloze")[i % 6]
    head = f"""  - id: synth.q{i}
    type: {kind}
    difficulty: {1 + i % 3}
    tags: [synthetic, t{i % 7}]
    prompt:
      en: "Question {i}: why does RoPE rotate pair $i$ by $m\\\\theta_i$ and what follows from it?"
      zh: "第 {i} 题：RoPE 为什么把第 $i$ 对维度旋转 $m\\\\theta_i$？由此能得出什么？"
    explanation:
      en: |
        Rotating q at position m and k at position n leaves their dot product depending on m - n
        only, because rotations compose: $R_m^T R_n = R_{{n-m}}$. That is the whole trick.
      zh: |
        q 在位置 m、k 在位置 n 各自旋转后，点积只依赖 m - n，因为旋转可以合成：
        $R_m^T R_n = R_{{n-m}}$。这就是全部的技巧。
    sources: ["RoFormer, section 3.4"]
"""
    if kind == "open":
        body = """    answer: {en: Relative position falls out of the rotation., zh: 相对位置从旋转中自然得到。}
    key_points:
      - {en: rotations compose, zh: 旋转可以合成}
      - {en: only q and k are rotated, zh: 只旋转 q 和 k}
"""
    elif kind in ("mcq", "multi"):
        second = "true" if kind == "multi" else "false"
        body = f"""    choices:
      - {{text: {{en: RoPE, zh: RoPE}}, correct: true, why: {{en: It rotates q and k., zh: 它旋转 q 和 k。}}}}
      - {{text: {{en: ALiBi, zh: ALiBi}}, correct: {second}, why: {{en: A linear bias., zh: 线性偏置。}}}}
      - {{text: {{en: Learned absolute, zh: 可学习绝对位置}}, why: {{en: Added to inputs., zh: 加在输入上。}}}}
"""
    elif kind == "truefalse":
        body = "    correct: false\n"
    elif kind == "numeric":
        body = """    value: 0.5
    tolerance: 1.0e-9
    checks:
      - {demo: alibi-slopes, params: {n_heads: 8}, path: values.first_slope, expect: 0.5, tolerance: 1.0e-9}
"""
    else:
        body = """    prompt:
      en: "The RoFormer base is {{1}}."
      zh: "RoFormer 的底数是 {{1}}。"
    blanks:
      - accept: ["10000", "1e4"]
"""
        head = head.replace(head[head.index("    prompt:") : head.index("    explanation:")], "")
    if i % 3 == 0 and kind != "numeric":
        body += "    demo: {name: rope-relativity, params: {dim: 8, m: 5, n: 2}}\n"
    return head + body


def write_synthetic(folder: Path, n: int) -> None:
    for start in range(0, n, QUESTIONS_PER_FILE):
        stop = min(n, start + QUESTIONS_PER_FILE)
        text = "topic: synth\ntitle: {en: Synthetic, zh: 合成}\nquestions:\n"
        text += "".join(_question(i) for i in range(start, stop))
        (folder / f"synth_{start // QUESTIONS_PER_FILE:03d}.yaml").write_text(text, encoding="utf-8")


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """(median wall seconds, median CPU seconds of this process, last result)."""
    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        result = None  # free the previous load first: its objects would slow the collector
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def cold_shipped_ms() -> float:
    code = (
        "import time; t = time.perf_counter()\n"
        "from quizbank.loader import load_banks\n"
        "b = load_banks(include_user=False)\n"
        "print((time.perf_counter() - t) * 1000)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from quizbank.loader import load_banks

    load_banks(include_user=False)  # imports and schema build, not timed
    shipped_s, shipped_cpu, shipped = timed(lambda: load_banks(include_user=False), max(args.repeat, 5))
    n_shipped = len(shipped.questions)
    cold = cold_shipped_ms()
    from quizbank.yamlsafe import LIBYAML

    print(f"YAML parser: {'libyaml (C)' if LIBYAML else 'pure Python (PyYAML without libyaml)'}")
    print(f"shipped bank: {n_shipped} questions in {len(shipped.files)} files")
    print(
        f"  warm load  {shipped_s * 1000:8.1f} ms wall, {shipped_cpu * 1000:.1f} ms CPU   (target <= 100 ms)"
    )
    print(f"  cold load  {cold:8.1f} ms   (fresh interpreter, imports included)")
    if shipped.problems:
        print(f"  note: {len(shipped.problems)} problems reported")

    print("\nsynthetic banks (all six types, bilingual, a third with demos, numeric with checks)")
    print(
        f"  {'questions':>10} {'files':>6} {'MiB':>6} {'wall s':>8} {'CPU s':>7} {'us/question':>12} {'vs first':>9}"
    )
    base_per_q = None
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_synthetic(folder, n)
            mib = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
            seconds, cpu, bankset = timed(
                lambda folder=folder: load_banks([folder], include_shipped=False, include_user=False),
                args.repeat,
            )
            assert len(bankset.questions) == n and not bankset.problems, bankset.problems[:3]
            per_q = cpu / n * 1e6
            base_per_q = base_per_q or per_q
            print(
                f"  {n:>10} {len(bankset.files):>6} {mib:>6.1f} {seconds:>8.3f} {cpu:>7.3f} {per_q:>12.1f} "
                f"{per_q / base_per_q:>8.2f}x"
            )
    print("\nus/question is CPU time; 'vs first' compares it with the smallest size (~1.00x is linear).")
    print("Wall time includes waiting for a core: on a busy machine it exceeds CPU time.")
    print("target: 10,000 questions <= 2 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
