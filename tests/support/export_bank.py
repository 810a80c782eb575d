"""The bank of the progress and export tests: one question of every type, markup-like and HTML-like text,
inline and display math (also used by the Study/Stats screen tests), and `main`, a `posenc` with only the
progress/export subcommands.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from quizbank.loader import load_banks
from quizbank.progress import cli as progress_cli
from quizbank.progress.store import open_store

__all__ = [
    "FIXTURE_BANK_YAML",
    "FIXTURE_QUESTION_COUNT",
    "load_fixture_bankset",
    "main",
    "write_fixture_bank",
]

FIXTURE_BANK_YAML = r"""
topics:
  - topic: fx-rope
    title: {en: "Fixture RoPE", zh: "测试 RoPE"}
    description: {en: "Rotations for tests.", zh: "测试用的旋转。"}
    order: 1
    questions:
      - id: fx.mcq
        type: mcq
        difficulty: 1
        prompt: {en: "Which pairs does RoPE rotate by $m\\theta_i$?", zh: "RoPE 按 $m\\theta_i$ 旋转哪些维度对？"}
        choices:
          - {text: {en: "Pairs $(2i, 2i+1)$", zh: "维度对 $(2i, 2i+1)$"}, correct: true, why: {en: "Each pair is a plane.", zh: "每对是一个平面。"}}
          - {text: {en: "The [bold]whole[/bold] vector", zh: "整个 [bold]向量[/bold]"}}
          - {text: {en: "Only <script>x</script> values", zh: "只有 <script>x</script>"}}
        explanation: {en: "With $$\\theta_i = b^{-2i/d}$$ each pair turns at its own speed.", zh: "$$\\theta_i = b^{-2i/d}$$，每对转速不同。"}
        sources: ["https://arxiv.org/abs/2104.09864", "Su et al. 2021"]
        follow_ups: [fx.open]
      - id: fx.multi
        type: multi
        prompt: {en: "Which are relative schemes?", zh: "哪些是相对位置编码？"}
        choices:
          - {text: {en: "T5 bias", zh: "T5 偏置"}, correct: true}
          - {text: {en: "ALiBi", zh: "ALiBi"}, correct: true}
          - {text: {en: "Sinusoidal", zh: "正弦"}}
        explanation: {en: "T5 and ALiBi add a bias to logits.", zh: "T5 和 ALiBi 在 logit 上加偏置。"}
      - id: fx.tf
        type: truefalse
        correct: true
        prompt: {en: "RoPE preserves norms.", zh: "RoPE 保持范数不变。"}
        explanation: {en: "Rotations are orthogonal.", zh: "旋转是正交变换。"}
      - id: fx.numeric
        type: numeric
        value: 0.00390625
        tolerance: 1.0e-6
        prompt: {en: "Slope of the last of 8 ALiBi heads?", zh: "8 个头时最后一个头的 ALiBi 斜率？"}
        explanation: {en: "$2^{-8}$.", zh: "$2^{-8}$。"}
        checks:
          - {demo: alibi-slopes, params: {n_heads: 8}, path: values.last_slope, expect: 0.00390625, tolerance: 1.0e-9}
      - id: fx.cloze
        type: cloze
        prompt: {en: "RoPE rotates {{1}} and {{2}}, never V.", zh: "RoPE 旋转 {{1}} 和 {{2}}，不旋转 V。"}
        blanks:
          - {accept: [Q, query]}
          - {accept: [K, key]}
        explanation: {en: "Only the logit needs positions.", zh: "只有 logit 需要位置。"}
      - id: fx.open
        type: open
        difficulty: 3
        prompt: {en: "Why does RoPE not extrapolate?", zh: "为什么 RoPE 不能外推？"}
        answer: {en: "Unseen angles at long range.", zh: "远距离出现没见过的角度。"}
        key_points:
          - {en: "Low frequencies never complete a turn in training.", zh: "低频在训练中转不满一圈。"}
        explanation: {en: "See PI, NTK and YaRN.", zh: "参见 PI、NTK 和 YaRN。"}
  - topic: fx-alibi
    title: {en: "Fixture ALiBi", zh: "测试 ALiBi"}
    order: 2
    questions:
      - id: fx.alibi-tf
        type: truefalse
        correct: false
        prompt: {en: "ALiBi adds position embeddings to the input.", zh: "ALiBi 在输入上加位置向量。"}
        explanation: {en: "It biases the logits instead.", zh: "它在 logit 上加偏置。"}
"""

FIXTURE_QUESTION_COUNT = 7


def main(argv: list[str]) -> int:
    """`posenc` with only the progress/export subcommands (the same global options as tui/cli.py)."""
    import argparse

    parser = argparse.ArgumentParser(prog="posenc")
    parser.add_argument("--bank", action="append", default=[])
    parser.add_argument("--data-dir")
    sub = parser.add_subparsers(dest="command")
    progress_cli.add_parser(sub)
    progress_cli.add_export_parser(sub)
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


def write_fixture_bank(folder: Path) -> Path:
    path = folder / "fixture_bank.yaml"
    path.write_text(FIXTURE_BANK_YAML, encoding="utf-8")
    return path


def load_fixture_bankset(folder: Path):
    bankset = load_banks([write_fixture_bank(folder)], include_shipped=False, include_user=False)
    assert not bankset.skipped and not bankset.errors, bankset.problems
    return bankset


def seeded_data_dir(tmp_path: Path) -> Path:
    """A data folder whose progress store holds one review (q.one, Good, 2025-03-01)."""
    folder = tmp_path / "data"
    with open_store(folder) as store:
        store.review("q.one", 3, datetime(2025, 3, 1, tzinfo=UTC), duration_ms=1000)
    return folder
