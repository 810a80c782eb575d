"""Relative positions: T5 buckets and Shaw et al.'s relative logits.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill

T5_BUCKET = drill(
    name="t5-bucket",
    topic="relative",
    difficulty=3,
    minutes=20,
    signature=(
        "relative_position_bucket(\n    relative_position: torch.Tensor,\n    bidirectional: bool = True,\n"
        "    num_buckets: int = 32,\n    max_distance: int = 128,\n) -> torch.Tensor"
    ),
    doc="T5's bucket id for each relative position (key - query), equal to HF's _relative_position_bucket.",
    title={"en": "T5 relative position buckets", "zh": "T5 相对位置分桶"},
    statement={
        "en": """Write T5's relative position bucketing, equal to HF transformers'
`T5Attention._relative_position_bucket`.

```python
def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128)
```

- `relative_position` is an integer tensor of any shape holding `key − query`; return integer bucket ids of
  the same shape.
- Bidirectional (encoder): half the buckets for keys before the query, half (offset by `num_buckets/2`)
  for keys after it. Unidirectional (decoder): keys after the query all fall in bucket 0.
- Within a direction (`n` buckets, distance `d >= 0`): `d < n/2` gets its own bucket; larger distances are
  log-spaced up to `max_distance`, then clamped to the last bucket `n − 1`. Compute the log in float32 as HF
  does. Exact match required.""",
        "zh": """实现 T5 的相对位置分桶，结果须与 HF transformers 的 `T5Attention._relative_position_bucket` 一致。

```python
def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128)
```

- `relative_position` 是任意形状的整数张量，值为 `key − query`；返回相同形状的整数桶编号。
- 双向（编码器）：一半桶给 query 之前的 key，另一半（偏移 `num_buckets/2`）给之后的 key。单向（解码器）：
  query 之后的 key 都落在桶 0。
- 每个方向内（`n` 个桶，距离 `d >= 0`）：`d < n/2` 各占一个桶；更大的距离按对数间隔分到 `max_distance`，
  再截断到最后一个桶 `n − 1`。像 HF 一样用 float32 计算对数。要求完全一致。""",
    },
    hints=(
        {
            "en": "Bidirectional: `buckets = (rp > 0).long() * (num_buckets // 2)`, `rp = rp.abs()`, and halve "
            "`num_buckets`. Unidirectional: `rp = -torch.minimum(rp, 0)`.",
            "zh": "双向：`buckets = (rp > 0).long() * (num_buckets // 2)`，`rp = rp.abs()`，并把 `num_buckets` 减半。"
            "单向：`rp = -torch.minimum(rp, 0)`。",
        },
        {
            "en": "`large = max_exact + (log(rp.float() / max_exact) / log(max_distance / max_exact) * "
            "(num_buckets - max_exact)).long()`, then `min(large, num_buckets - 1)`: without the clamp, distances "
            "past `max_distance` overflow into the other direction's buckets.",
            "zh": "`large = max_exact + (log(rp.float() / max_exact) / log(max_distance / max_exact) * "
            "(num_buckets - max_exact)).long()`，再取 `min(large, num_buckets - 1)`：不截断的话，超过 "
            "`max_distance` 的距离会溢出到另一方向的桶里。",
        },
    ),
    solution="""import math

import torch


def relative_position_bucket(
    relative_position: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    rp = torch.as_tensor(relative_position).long()
    buckets = torch.zeros_like(rp)
    if bidirectional:
        num_buckets //= 2
        buckets += (rp > 0).long() * num_buckets
        rp = rp.abs()
    else:
        rp = -torch.minimum(rp, torch.zeros_like(rp))
    max_exact = num_buckets // 2
    is_small = rp < max_exact
    large = max_exact + (
        torch.log(rp.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.minimum(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, rp, large)
""",
)

SHAW = drill(
    name="shaw-relative-logits",
    topic="relative",
    difficulty=2,
    minutes=20,
    signature="shaw_relative_logits(q: torch.Tensor, k: torch.Tensor, rel_k: torch.Tensor, clip: int) -> torch.Tensor",
    doc="Shaw et al. logits [..., Lq, Lk]: q_i . (k_j + rel_k[clip(j - i) + clip]) / sqrt(d).",
    title={"en": "Shaw's clipped relative logits", "zh": "Shaw 截断相对位置 logits"},
    statement={
        "en": """Compute the attention logits of Shaw, Uszkoreit & Vaswani (2018).

```python
def shaw_relative_logits(q, k, rel_k, clip) -> torch.Tensor
```

- `q` is `[..., Lq, d]`, `k` is `[..., Lk, d]`, `rel_k` is `[2·clip + 1, d]`: row `r` is the vector for
  relative distance `r − clip`.
- `e[..., i, j] = q_i · (k_j + rel_k[clip(j − i) + clip]) / √d` with `clip(x) = max(−clip, min(clip, x))`.
- Queries and keys both count from 0. Tolerance: absolute 1e-4.""",
        "zh": """计算 Shaw、Uszkoreit 与 Vaswani（2018）的注意力 logits。

```python
def shaw_relative_logits(q, k, rel_k, clip) -> torch.Tensor
```

- `q` 形状 `[..., Lq, d]`，`k` 形状 `[..., Lk, d]`，`rel_k` 形状 `[2·clip + 1, d]`：第 `r` 行对应相对距离 `r − clip`。
- `e[..., i, j] = q_i · (k_j + rel_k[clip(j − i) + clip]) / √d`，其中 `clip(x) = max(−clip, min(clip, x))`。
- query 与 key 都从 0 开始计数。容差：绝对误差 1e-4。""",
    },
    hints=(
        {
            "en": "Index grid: `(arange(Lk)[None, :] - arange(Lq)[:, None]).clamp(-clip, clip) + clip`.",
            "zh": "下标网格：`(arange(Lk)[None, :] - arange(Lq)[:, None]).clamp(-clip, clip) + clip`。",
        },
        {
            "en": "Efficient form: `q @ rel_k.T` is `[..., Lq, 2clip+1]`; gather the column each (i, j) needs and "
            "add it to `q @ k.T` before scaling.",
            "zh": "高效写法：`q @ rel_k.T` 形状 `[..., Lq, 2clip+1]`；为每个 (i, j) gather 对应列，加到 `q @ k.T` 上再缩放。",
        },
    ),
    solution="""import math

import torch


def shaw_relative_logits(q: torch.Tensor, k: torch.Tensor, rel_k: torch.Tensor, clip: int) -> torch.Tensor:
    q_len, k_len = q.shape[-2], k.shape[-2]
    idx = (torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]).clamp(-clip, clip) + clip
    a_k = rel_k[idx]  # [Lq, Lk, d]
    content = q @ k.transpose(-1, -2)
    position = torch.einsum("...id,ijd->...ij", q, a_k)
    return (content + position) / math.sqrt(q.shape[-1])
""",
)


DRILLS: tuple[Drill, ...] = (
    T5_BUCKET,
    SHAW,
)
