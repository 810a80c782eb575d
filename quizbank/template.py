"""`posenc bank new TOPIC`: a commented starter file with one question of each type.

The template validates as written (tests load it and run its checks), so a new author starts
from something green and edits it.
"""

from __future__ import annotations

import re

from .schema import ID_PATTERN

TOPIC_MAX_LENGTH = 80

_TEMPLATE = r"""# A posenc question bank: one topic, one question of each type.
# Full format: docs/bank-format.md. Check this file (every line with a problem is named):
#     posenc bank validate {filename}
#
# Text is localized: {{en: ..., zh: ...}}. A plain string means English only, which is fine
# for your own banks (the shipped bank has both languages everywhere).
# Math is LaTeX between $...$ (inline) or $$...$$ (display). Write LaTeX in plain text,
# 'single quotes' or a block (|); inside "double quotes" a backslash starts an escape.
# Text is shown literally: [bold] or [red] stays as written.
# Ids are stable keys for your progress: edit the text freely, but keep the id.

topic: {topic_yaml}                 # topic id: lowercase letters, digits, '.', '_' or '-'
title: {{en: "{title}", zh: "{title}"}}
description:
  en: My own questions about {title}.
  zh: 我自己整理的「{title}」题目。
order: 100                       # topics are listed by order, then by English title

questions:
  # open: a model answer plus key points to grade yourself against.
  - id: {topic}.why-positions
    type: open
    difficulty: 1                # 1 easy, 2 medium (the default), 3 hard
    tags: [basics]
    prompt:
      en: Why does a Transformer need position information at all?
      zh: Transformer 为什么需要位置信息？
    answer:
      en: |
        Self-attention treats its input as a set: permuting the tokens permutes the outputs in
        the same way, so without positions "dog bites man" and "man bites dog" look alike.
      zh: |
        自注意力把输入当成集合处理：打乱 token 的顺序，输出只会跟着同样打乱，
        所以没有位置信息时，「狗咬人」和「人咬狗」在模型眼里没有区别。
    key_points:
      - {{en: attention is permutation-equivariant, zh: 注意力对排列是等变的}}
      - {{en: order must be injected by a position encoding, zh: 顺序只能靠位置编码注入}}
    explanation:
      en: |
        Each output is $\sum_j \mathrm{{softmax}}_j(q_i \cdot k_j)\, v_j$, a weighted sum over a set
        of keys. Nothing in it depends on where key $j$ sits, so position has to be added,
        either to the inputs (absolute encodings) or to the scores (relative ones).
      zh: |
        每个输出都是 $\sum_j \mathrm{{softmax}}_j(q_i \cdot k_j)\, v_j$，即对一组键的加权求和，
        其中没有任何一项和键 $j$ 所在的位置有关。位置要么加到输入上（绝对编码），
        要么加到注意力分数上（相对编码）。
    sources: ["Vaswani et al. 2017, section 3.5"]
    follow_ups: [{topic}.alibi-users]
    demo:                        # a live posenc_ref demo shown beside the answer
      name: permutation-equivariance
      params: {{seq_len: 6, dim: 8}}

  # mcq: exactly one correct choice; every choice may explain itself with `why`.
  - id: {topic}.alibi-users
    type: mcq
    prompt:
      en: Which of these models uses ALiBi?
      zh: 下面哪个模型使用 ALiBi？
    choices:
      - text: {{en: BLOOM, zh: BLOOM}}
        correct: true
        why: {{en: BLOOM adds ALiBi biases to its attention scores., zh: BLOOM 在注意力分数上加 ALiBi 偏置。}}
      - text: {{en: GPT-2, zh: GPT-2}}
        why: {{en: GPT-2 learns an absolute position embedding., zh: GPT-2 使用可学习的绝对位置嵌入。}}
      - text: {{en: Llama 2, zh: Llama 2}}
        why: {{en: Llama 2 uses RoPE., zh: Llama 2 使用 RoPE。}}
    explanation:
      en: ALiBi (Press et al. 2022) was adopted by BLOOM and MPT; most later LLMs use RoPE.
      zh: ALiBi（Press 等，2022）被 BLOOM 和 MPT 采用；之后的大模型大多改用 RoPE。

  # multi: any number of correct choices (at least one).
  - id: {topic}.relative-schemes
    type: multi
    prompt:
      en: Which of these put relative position into the attention scores?
      zh: 下面哪些方法把相对位置放进了注意力分数？
    choices:
      - {{text: {{en: T5 relative bias, zh: T5 相对位置偏置}}, correct: true}}
      - {{text: {{en: ALiBi, zh: ALiBi}}, correct: true}}
      - {{text: {{en: Shaw et al. relative embeddings, zh: Shaw 等人的相对位置嵌入}}, correct: true}}
      - {{text: {{en: GPT-2 learned absolute embeddings, zh: GPT-2 的可学习绝对位置嵌入}}}}
    explanation:
      en: T5 and ALiBi add a bias that depends on $i - j$; Shaw et al. add learned vectors per clipped offset.
      zh: T5 和 ALiBi 加的偏置只依赖 $i - j$；Shaw 等人为每个（截断后的）偏移学习一个向量。

  # truefalse
  - id: {topic}.rope-values
    type: truefalse
    prompt:
      en: RoPE rotates the value vectors as well as the queries and keys.
      zh: RoPE 除了旋转 query 和 key，也会旋转 value。
    correct: false
    explanation:
      en: RoPE only rotates $q$ and $k$, so that $q_m \cdot k_n$ depends on $m - n$; values are left alone.
      zh: RoPE 只旋转 $q$ 和 $k$，让 $q_m \cdot k_n$ 只依赖 $m - n$；value 保持不变。

  # numeric: a value with a tolerance; it must be backed by a check that recomputes it.
  - id: {topic}.alibi-first-slope
    type: numeric
    prompt:
      en: With 8 heads, what slope does ALiBi give the first head?
      zh: 8 个头时，ALiBi 给第一个头的斜率是多少？
    value: 0.5
    tolerance: 1.0e-9
    explanation:
      en: For $n$ heads (a power of two) the slopes are $2^{{-8h/n}}$, $h = 1..n$; with $n = 8$ the first is $2^{{-1}} = 0.5$.
      zh: 头数 $n$ 是 2 的幂时，斜率为 $2^{{-8h/n}}$（$h = 1..n$）；$n = 8$ 时第一个是 $2^{{-1}} = 0.5$。
    demo: {{name: alibi-slopes, params: {{n_heads: 8}}}}
    checks:                      # re-run a demo and compare one number of its result
      - demo: alibi-slopes
        params: {{n_heads: 8}}
        path: values.first_slope # or tables[0].rows[0][1], checks[0].max_abs_error, ...
        expect: 0.5
        tolerance: 1.0e-9

  # cloze: numbered blanks {{{{1}}}}, {{{{2}}}} in the prompt (in every language), with accepted answers.
  - id: {topic}.rope-base
    type: cloze
    prompt:
      en: 'RoPE uses $\theta_i = b^{{-2i/d}}$ with base $b$ = {{{{1}}}} in RoFormer; Llama 3 raised it to {{{{2}}}}.'
      zh: 'RoPE 取 $\theta_i = b^{{-2i/d}}$，RoFormer 的底数 $b$ = {{{{1}}}}，Llama 3 把它提高到 {{{{2}}}}。'
    blanks:
      - accept: ["10000", "10,000", "1e4"]
      - accept: ["500000", "500,000", "5e5"]
    explanation:
      en: A larger base slows every rotation, so the slowest pairs stay below one turn over a longer context.
      zh: 底数越大，每个频率转得越慢，最慢的那几对维度在更长的上下文里也转不满一圈。
"""


def valid_topic_id(topic: str) -> bool:
    return bool(re.fullmatch(ID_PATTERN, topic)) and len(topic) <= TOPIC_MAX_LENGTH


def render_template(topic: str, filename: str | None = None) -> str:
    """The starter bank file for `topic` (a valid topic id)."""
    if not valid_topic_id(topic):
        raise ValueError(f"{topic!r} is not a valid topic id")
    title = topic.replace("-", " ").replace("_", " ").replace(".", " ").strip() or topic
    return _TEMPLATE.format(
        topic=topic, topic_yaml=_yaml_text(topic), title=title, filename=filename or f"{topic}.yaml"
    )


def _yaml_text(text: str) -> str:
    """`text` as a YAML scalar that reads back as that text: plain when it already does, quoted
    when YAML would read it as something else (`yes` is true, `123` and `1_000` are numbers)."""
    import yaml

    return text if yaml.safe_load(text) == text else f'"{text}"'
