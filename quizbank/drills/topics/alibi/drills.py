"""ALiBi: per-head slopes and the distance bias.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill

ALIBI_SLOPES = drill(
    name="alibi-slopes",
    topic="alibi",
    difficulty=2,
    minutes=10,
    signature="alibi_slopes(n_heads: int) -> torch.Tensor",
    doc="ALiBi head slopes [n_heads], the paper's get_slopes (any head count).",
    title={"en": "ALiBi head slopes", "zh": "ALiBi 各头斜率"},
    statement={
        "en": """Return the ALiBi slopes of Press et al. (2022) for `n_heads` heads, as a tensor `[n_heads]`.

```python
def alibi_slopes(n_heads) -> torch.Tensor
```

- For a power of two `n`: the geometric sequence `2**(-8/n), 2**(-16/n), ..., 2**(-8)`.
- Otherwise (the paper's `get_slopes`): with `c` the largest power of two below `n`, take the `c` slopes
  for `c` heads, then every other slope of the `2c` sequence (`2**(-8·1/(2c)), 2**(-8·3/(2c)), ...`)
  until there are `n`.
- Tolerance: relative 1e-6.""",
        "zh": """返回 Press 等（2022）ALiBi 中 `n_heads` 个头的斜率，张量 `[n_heads]`。

```python
def alibi_slopes(n_heads) -> torch.Tensor
```

- `n` 为 2 的幂时：等比数列 `2**(-8/n), 2**(-16/n), ..., 2**(-8)`。
- 否则（论文的 `get_slopes`）：设 `c` 为小于 `n` 的最大 2 的幂，先取 `c` 个头的 `c` 个斜率，再从 `2c` 的数列中
  隔一个取一个（`2**(-8·1/(2c)), 2**(-8·3/(2c)), ...`），直到凑满 `n` 个。
- 容差：相对误差 1e-6。""",
    },
    hints=(
        {
            "en": "Write the power-of-two rule first: `start = 2**(-8/n)` and slope `h` (from 1) is `start**h`.",
            "zh": "先写 2 的幂的情况：`start = 2**(-8/n)`，第 `h` 个（从 1 开始）斜率是 `start**h`。",
        },
        {
            "en": "For 12 heads: 8 slopes for 8 heads, then slopes 1, 3, 5, 7 of the 16-head sequence. "
            "`slopes(2c)[0::2][: n - c]`.",
            "zh": "12 个头：先取 8 个头的 8 个斜率，再取 16 头数列的第 1、3、5、7 个。即 `slopes(2c)[0::2][: n - c]`。",
        },
    ),
    solution="""import math

import torch


def alibi_slopes(n_heads: int) -> torch.Tensor:
    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]

    c = 2 ** math.floor(math.log2(n_heads))
    slopes = power_of_two(c)
    if c < n_heads:
        slopes += power_of_two(2 * c)[0::2][: n_heads - c]
    return torch.tensor(slopes, dtype=torch.float32)
""",
)

ALIBI_BIAS = drill(
    name="alibi-bias",
    topic="alibi",
    difficulty=2,
    minutes=15,
    signature="alibi_bias(n_heads: int, seq_len: int) -> torch.Tensor",
    doc="Causal ALiBi bias [n_heads, seq_len, seq_len]: -slope*(i-j) for j <= i, -inf above the diagonal.",
    title={"en": "ALiBi bias with a causal mask", "zh": "带因果掩码的 ALiBi 偏置"},
    statement={
        "en": """Build the causal ALiBi bias that is added to the attention logits.

```python
def alibi_bias(n_heads, seq_len) -> torch.Tensor
```

- Shape `[n_heads, seq_len, seq_len]`, float32; row `i` is the query, column `j` the key.
- `bias[h, i, j] = -m_h · (i − j)` for `j <= i`, and `-inf` for `j > i` (the causal mask: not 0, not a
  large finite number).
- `m_h` are the ALiBi slopes (the paper's `get_slopes`, including head counts that are not powers of two).
- Tolerance: absolute 1e-5 on the finite entries; the `-inf` entries must be exactly `-inf`.""",
        "zh": """构造加到注意力 logits 上的因果 ALiBi 偏置。

```python
def alibi_bias(n_heads, seq_len) -> torch.Tensor
```

- 形状 `[n_heads, seq_len, seq_len]`，float32；第 `i` 行是 query，第 `j` 列是 key。
- `j <= i` 时 `bias[h, i, j] = -m_h · (i − j)`；`j > i` 时为 `-inf`（因果掩码：不是 0，也不是很大的有限负数）。
- `m_h` 是 ALiBi 斜率（论文的 `get_slopes`，包括头数不是 2 的幂的情况）。
- 容差：有限元素绝对误差 1e-5；`-inf` 元素必须恰好是 `-inf`。""",
    },
    hints=(
        {
            "en": "`distance = arange(L)[:, None] - arange(L)[None, :]` is `i − j`; the bias is "
            "`-slopes[:, None, None] * distance`.",
            "zh": "`distance = arange(L)[:, None] - arange(L)[None, :]` 就是 `i − j`；偏置为 "
            "`-slopes[:, None, None] * distance`。",
        },
        {
            "en": "Mask with `bias.masked_fill(distance < 0, float('-inf'))`. A zero there would let every "
            "query attend to future keys.",
            "zh": "用 `bias.masked_fill(distance < 0, float('-inf'))` 掩码。那里填 0 会让每个 query 看到未来的 key。",
        },
    ),
    solution="""import math

import torch


def _slopes(n: int) -> list[float]:
    c = 2 ** math.floor(math.log2(n))
    slopes = [2.0 ** (-8.0 * h / c) for h in range(1, c + 1)]
    slopes += [2.0 ** (-8.0 * h / (2 * c)) for h in range(1, 2 * (n - c), 2)]
    return slopes


def alibi_bias(n_heads: int, seq_len: int) -> torch.Tensor:
    slopes = torch.tensor(_slopes(n_heads), dtype=torch.float32)
    pos = torch.arange(seq_len)
    distance = pos[:, None] - pos[None, :]  # i - j
    bias = -slopes[:, None, None] * distance.to(torch.float32)
    return bias.masked_fill(distance < 0, float("-inf"))
""",
)


DRILLS: tuple[Drill, ...] = (
    ALIBI_SLOPES,
    ALIBI_BIAS,
)
