"""Bank YAML used by the bank tests (tests/quizbank/), and every string of the shipped bank."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from support.paths import ROOT

SHIPPED = ROOT / "quizbank" / "data"

# One bilingual question of each type; line numbers matter to the tests that use them.
ALL_TYPES = textwrap.dedent(
    """\
    topic: basics
    title: {en: Basics, zh: 基础}
    description: {en: The basics., zh: 基础知识。}
    order: 5
    questions:
      - id: basics.open
        type: open
        difficulty: 1
        tags: [why]
        sources: ["Vaswani et al. 2017, section 3.5"]
        prompt: {en: 'Why positions?', zh: 为什么需要位置？}
        answer: {en: Attention is a set operation., zh: 注意力是集合运算。}
        key_points:
          - {en: permutation equivariance, zh: 排列等变}
        explanation: {en: 'Scores are $q_i \\cdot k_j$.', zh: '分数是 $q_i \\cdot k_j$。'}
        follow_ups: [basics.mcq]
        demo: {name: permutation-equivariance, params: {seq_len: 6, dim: 8}}
      - id: basics.mcq
        type: mcq
        prompt: {en: 'Which model uses ALiBi?', zh: 哪个模型用 ALiBi？}
        choices:
          - {text: {en: BLOOM, zh: BLOOM}, correct: true, why: {en: It does., zh: 是的。}}
          - {text: {en: GPT-2, zh: GPT-2}, why: {en: Learned absolute., zh: 可学习的绝对位置。}}
        explanation: {en: BLOOM uses ALiBi., zh: BLOOM 使用 ALiBi。}
      - id: basics.multi
        type: multi
        prompt: {en: 'Which are relative?', zh: 哪些是相对的？}
        choices:
          - {text: {en: T5, zh: T5}, correct: true}
          - {text: {en: ALiBi, zh: ALiBi}, correct: true}
          - {text: {en: learned absolute, zh: 可学习绝对}}
        explanation: {en: Both bias by offset., zh: 两者都按偏移加偏置。}
      - id: basics.tf
        type: truefalse
        prompt: {en: RoPE rotates V., zh: RoPE 旋转 V。}
        correct: false
        explanation: {en: Only q and k., zh: 只有 q 和 k。}
      - id: basics.numeric
        type: numeric
        prompt: {en: 'First ALiBi slope with 8 heads?', zh: 8 个头时第一个斜率？}
        value: 0.5
        tolerance: 1.0e-9
        unit: ""
        explanation: {en: '$2^{-8/8} = 0.5$.', zh: '$2^{-8/8} = 0.5$。'}
        demo: {name: alibi-slopes, params: {n_heads: 8}}
        checks:
          - demo: alibi-slopes
            params: {n_heads: 8}
            path: values.first_slope
            expect: 0.5
            tolerance: 1.0e-9
      - id: basics.cloze
        type: cloze
        prompt: {en: 'Base {{1}}, then {{2}}.', zh: '底数 {{1}}，之后 {{2}}。'}
        blanks:
          - accept: ["10000", "1e4"]
          - accept: ["500000"]
        explanation: {en: RoFormer then Llama 3., zh: 先是 RoFormer，后是 Llama 3。}
    """
)

# English-only user bank (plain strings), valid for user banks.
USER_BANK = textwrap.dedent(
    """\
    topic: mine
    title: My questions
    questions:
      - id: mine.one
        type: truefalse
        prompt: ALiBi has no learned position parameters.
        correct: true
        explanation: The slopes are fixed.
        follow_ups: [basics.open]
      - id: mine.two
        type: open
        prompt: Explain [bold]RoPE[/bold] in one line.
        answer: Rotate q and k by position-dependent angles.
        key_points: [rotation]
        explanation: '[red]Markup[/red] is shown literally.'
    """
)


@functools.cache
def shipped_bankset() -> Any:
    """The shipped bank alone (no user banks), loaded once per test process (conftest's `shipped`)."""
    from quizbank.loader import load_banks

    return load_banks(include_user=False)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def shipped_dir(tmp_path: Path, text: str = ALL_TYPES, name: str = "basics.yaml") -> Path:
    """A fake shipped bank folder holding one file."""
    folder = tmp_path / "shipped"
    write(folder, name, text)
    return folder


# the judge's data, never shown as bank text: patterns and example answers typed as candidates type
JUDGE_ONLY = frozenset({"accept", "match", "examples"})


def _strings(node: Any, shown_only: bool = False) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            if not (shown_only and key in JUDGE_ONLY):
                yield from _strings(value, shown_only)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value, shown_only)


def shipped_strings(*, shown_only: bool = False) -> list[str]:
    """Every string in the shipped bank's YAML files (quizbank/data/*.yaml), in file order; `shown_only`
    leaves out the judge's patterns and example answers, which the app never renders."""
    out: list[str] = []
    for path in sorted(SHIPPED.glob("*.yaml")):
        out += list(_strings(yaml.safe_load(path.read_text(encoding="utf-8")), shown_only))
    return out
