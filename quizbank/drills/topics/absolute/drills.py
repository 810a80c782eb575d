"""Absolute positions: the sinusoidal table and a learned embedding.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill

SINUSOIDAL_PE = drill(
    name="sinusoidal-pe",
    topic="absolute",
    difficulty=1,
    minutes=10,
    signature="sinusoidal_pe(seq_len: int, dim: int, base: float = 10000.0) -> torch.Tensor",
    doc="Sinusoidal position table [seq_len, dim], float32: sin on even dims, cos on odd dims.",
    title={"en": "Sinusoidal position table", "zh": "正弦位置编码表"},
    statement={
        "en": """Implement the Transformer's fixed position table (Vaswani et al. 2017).

```python
def sinusoidal_pe(seq_len, dim, base=10000.0) -> torch.Tensor
```

- Return a **float32** tensor of shape `[seq_len, dim]` (`dim` is even) for positions `0 .. seq_len-1`.
- Pair `i` (`i = 0 .. dim/2-1`) has frequency `ω_i = base**(-2i/dim)`.
- Interleaved layout: `PE[p, 2i] = sin(p·ω_i)`, `PE[p, 2i+1] = cos(p·ω_i)`.
- Tolerance: absolute 1e-5 against a float64 table (compute the angles in float64 for long tables).""",
        "zh": """实现 Transformer 的固定位置编码表（Vaswani 等，2017）。

```python
def sinusoidal_pe(seq_len, dim, base=10000.0) -> torch.Tensor
```

- 返回 **float32** 张量，形状 `[seq_len, dim]`（`dim` 为偶数），位置为 `0 .. seq_len-1`。
- 第 `i` 对（`i = 0 .. dim/2-1`）的频率为 `ω_i = base**(-2i/dim)`。
- 交错排布：`PE[p, 2i] = sin(p·ω_i)`，`PE[p, 2i+1] = cos(p·ω_i)`。
- 容差：与 float64 表的绝对误差 1e-5（长表请用 float64 计算角度）。""",
    },
    hints=(
        {
            "en": "Build `angles = positions[:, None] * freqs[None, :]` of shape `[seq_len, dim/2]`.",
            "zh": "先构造形状为 `[seq_len, dim/2]` 的 `angles = positions[:, None] * freqs[None, :]`。",
        },
        {
            "en": "The exponent is `2i/dim` with `i` the pair index, i.e. `torch.arange(0, dim, 2) / dim`; "
            "write sin into `pe[:, 0::2]` and cos into `pe[:, 1::2]`.",
            "zh": "指数是 `2i/dim`，`i` 为配对下标，即 `torch.arange(0, dim, 2) / dim`；"
            "sin 写入 `pe[:, 0::2]`，cos 写入 `pe[:, 1::2]`。",
        },
    ),
    solution="""import torch


def sinusoidal_pe(seq_len: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    positions = torch.arange(seq_len, dtype=torch.float64)
    freqs = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # ω_i = base^(-2i/d)
    angles = positions[:, None] * freqs[None, :]
    pe = torch.empty(seq_len, dim, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe.to(torch.float32)
""",
)

LEARNED = drill(
    name="learned-pe",
    topic="absolute",
    difficulty=1,
    minutes=10,
    signature="learned_pe(table: torch.Tensor, positions: torch.Tensor) -> torch.Tensor",
    doc="Look up learned position rows table[positions]; ValueError naming max_len for out-of-range positions.",
    title={"en": "Learned absolute positions with a clear error", "zh": "带明确报错的可学习绝对位置编码"},
    statement={
        "en": """Look up a learned position table (BERT, GPT-2) and refuse positions it has no row for.

```python
def learned_pe(table, positions) -> torch.Tensor
```

- `table` is `[max_len, dim]`; `positions` is an integer tensor of any shape; return `[*positions.shape, dim]`.
- A position `< 0` or `>= max_len` raises `ValueError` whose message contains `max_len` and the offending
  position (a learned table cannot extrapolate; negative indices must not wrap around).
- Exact match required.""",
        "zh": """查可学习位置表（BERT、GPT-2），并拒绝表中没有的位置。

```python
def learned_pe(table, positions) -> torch.Tensor
```

- `table` 形状 `[max_len, dim]`；`positions` 为任意形状的整数张量；返回 `[*positions.shape, dim]`。
- 位置 `< 0` 或 `>= max_len` 时抛出 `ValueError`，消息包含 `max_len` 与出错的位置（可学习表无法外推；
  负下标不能绕回表尾）。
- 要求完全一致。""",
    },
    hints=(
        {
            "en": "`table[positions]` does the lookup for any shape; check the range first.",
            "zh": "`table[positions]` 对任意形状都能查表；先检查范围。",
        },
        {
            "en": "Python and torch accept `-1` as the last row: check `positions.min() < 0` yourself.",
            "zh": "Python 和 torch 都把 `-1` 当作最后一行：要自己检查 `positions.min() < 0`。",
        },
    ),
    solution="""import torch


def learned_pe(table: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    max_len = table.shape[0]
    positions = torch.as_tensor(positions)
    if positions.numel():
        bad = positions[(positions < 0) | (positions >= max_len)]
        if bad.numel():
            raise ValueError(
                f"position {int(bad[0])} is outside the learned table (max_len={max_len}): "
                f"valid positions are 0..{max_len - 1}"
            )
    return table[positions]
""",
)


DRILLS: tuple[Drill, ...] = (
    SINUSOIDAL_PE,
    LEARNED,
)
