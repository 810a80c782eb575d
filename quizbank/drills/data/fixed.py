"""The ten fixed drills: names, functions and signatures other tools grade against."""

from __future__ import annotations

from ..model import Drill
from ._build import drill

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

_ROPE_COMMON_EN = """- `x` has shape `[..., seq, dim]` (any batch/head dims in front, `dim` even), float32 or float64;
  `positions` is an integer tensor `[seq]` (not necessarily `0..seq-1`: a KV cache passes `past .. past+seq-1`).
- Pair `i` rotates by the angle `positions[s] · θ_i` with `θ_i = base**(-2i/dim)`, counter-clockwise:
  `(a, b) -> (a·cos − b·sin, a·sin + b·cos)`.
- Return a **new** tensor with `x`'s shape and dtype; do not modify `x` (it may be non-contiguous).
- Tolerance: absolute 1e-4 (float32) or 1e-6 (float64) against a float64 reference, larger for positions in the thousands."""
_ROPE_COMMON_ZH = """- `x` 形状为 `[..., seq, dim]`（前面可有任意 batch/head 维，`dim` 为偶数），float32 或 float64；
  `positions` 为整数张量 `[seq]`（不一定是 `0..seq-1`：KV cache 会传入 `past .. past+seq-1`）。
- 第 `i` 对按角度 `positions[s] · θ_i` 旋转，`θ_i = base**(-2i/dim)`，逆时针：
  `(a, b) -> (a·cos − b·sin, a·sin + b·cos)`。
- 返回与 `x` 形状、dtype 相同的**新**张量；不要修改 `x`（它可能不连续）。
- 容差：相对 float64 参考实现绝对误差 1e-4（float32）或 1e-6（float64），位置上千时放宽。"""

ROPE_HALF = drill(
    name="rope-half",
    topic="rope",
    difficulty=2,
    minutes=15,
    signature="apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor",
    doc="RoPE with the HF/NeoX pairing (i, i + dim/2). Returns a new tensor shaped like x.",
    title={"en": "RoPE, half layout (HF / GPT-NeoX)", "zh": "RoPE：半分排布（HF / GPT-NeoX）"},
    statement={
        "en": "Implement rotary position embedding with the **half** pairing used by HF transformers and "
        "GPT-NeoX: channel `i` is paired with channel `i + dim/2` (`rotate_half`).\n\n"
        "```python\ndef apply_rope(x, positions, base=10000.0) -> torch.Tensor\n```\n\n" + _ROPE_COMMON_EN,
        "zh": "用 HF transformers 与 GPT-NeoX 的**半分**配对实现旋转位置编码：通道 `i` 与通道 `i + dim/2` "
        "配成一对（`rotate_half`）。\n\n"
        "```python\ndef apply_rope(x, positions, base=10000.0) -> torch.Tensor\n```\n\n" + _ROPE_COMMON_ZH,
    },
    hints=(
        {
            "en": "Angles: `positions[:, None].float() * inv_freq[None, :]` is `[seq, dim/2]`; "
            "`cos = cat(angles, angles).cos()` covers all `dim` channels.",
            "zh": "角度：`positions[:, None].float() * inv_freq[None, :]` 形状 `[seq, dim/2]`；"
            "`cos = cat(angles, angles).cos()` 覆盖全部 `dim` 个通道。",
        },
        {
            "en": "`rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2])`, then `x * cos + rotate_half(x) * sin`. "
            "The minus sign goes on the second half: the other way round rotates clockwise.",
            "zh": "`rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2])`，再算 `x * cos + rotate_half(x) * sin`。"
            "负号在后半部分：放反了就是顺时针旋转。",
        },
    ),
    solution="""import torch


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    dim = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # θ_i
    angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)  # [seq, dim]: pair i uses channels i and i + dim/2
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    rotated = torch.cat((-x2, x1), dim=-1)  # rotate_half
    return x * cos + rotated * sin
""",
)

ROPE_INTERLEAVED = drill(
    name="rope-interleaved",
    topic="rope",
    difficulty=2,
    minutes=15,
    signature="apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor",
    doc="RoPE with the GPT-J/Meta pairing (2i, 2i + 1). Returns a new tensor shaped like x.",
    title={"en": "RoPE, interleaved layout (GPT-J / Meta)", "zh": "RoPE：交错排布（GPT-J / Meta）"},
    statement={
        "en": "Implement rotary position embedding with the **interleaved** pairing of RoFormer, GPT-J and "
        "Meta's LLaMA code: channel `2i` is paired with channel `2i + 1`.\n\n"
        "```python\ndef apply_rope(x, positions, base=10000.0) -> torch.Tensor\n```\n\n" + _ROPE_COMMON_EN,
        "zh": "用 RoFormer、GPT-J 与 Meta LLaMA 代码的**交错**配对实现旋转位置编码：通道 `2i` 与 `2i + 1` "
        "配成一对。\n\n"
        "```python\ndef apply_rope(x, positions, base=10000.0) -> torch.Tensor\n```\n\n" + _ROPE_COMMON_ZH,
    },
    hints=(
        {
            "en": "Take `a = x[..., 0::2]` and `b = x[..., 1::2]`; each is `[..., seq, dim/2]` and pair `i` is "
            "`(a[..., i], b[..., i])`.",
            "zh": "取 `a = x[..., 0::2]`、`b = x[..., 1::2]`，形状都是 `[..., seq, dim/2]`，第 `i` 对是 "
            "`(a[..., i], b[..., i])`。",
        },
        {
            "en": "Rotate: `a' = a·cos − b·sin`, `b' = a·sin + b·cos`, then interleave back with "
            "`torch.stack((a', b'), -1).flatten(-2)`. (Meta does the same with `view_as_complex`.)",
            "zh": "旋转：`a' = a·cos − b·sin`，`b' = a·sin + b·cos`，再用 "
            "`torch.stack((a', b'), -1).flatten(-2)` 交错回去（Meta 用 `view_as_complex` 做同样的事）。",
        },
    ),
    solution="""import torch


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    dim = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # θ_i
    angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]  # pair i = channels (2i, 2i + 1)
    out = torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1)
    return out.flatten(-2)
""",
)

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

ROPE_ATTENTION_GQA = drill(
    name="rope-attention-gqa",
    topic="rope",
    difficulty=3,
    minutes=25,
    signature=(
        "rope_attention(\n    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, positions: torch.Tensor, "
        "base: float = 10000.0\n) -> torch.Tensor"
    ),
    doc="Causal grouped-query attention with half-layout RoPE on q and k. Returns [B, Hq, L, D].",
    title={"en": "RoPE in a GQA attention layer", "zh": "在 GQA 注意力层中加入 RoPE"},
    statement={
        "en": """Write the core of a LLaMA-style attention layer: RoPE, grouped-query attention, causal softmax.

```python
def rope_attention(q, k, v, positions, base=10000.0) -> torch.Tensor
```

- `q` is `[B, Hq, L, D]`, `k` and `v` are `[B, Hkv, L, D]` with `Hq % Hkv == 0`; `positions` is `[L]`.
- Apply **half-layout** RoPE (HF `rotate_half`, `θ_i = base**(-2i/D)`) to `q` and `k` at `positions`; never to `v`.
- Query head `h` uses KV head `h // (Hq / Hkv)` (HF `repeat_kv`: each KV head serves a contiguous group).
- `softmax(q·kᵀ / √D + causal mask) · v` with the mask hiding keys after the query; return `[B, Hq, L, D]`.
- Tolerance: absolute 1e-4 (float32).""",
        "zh": """实现 LLaMA 式注意力层的核心：RoPE、分组查询注意力（GQA）、因果 softmax。

```python
def rope_attention(q, k, v, positions, base=10000.0) -> torch.Tensor
```

- `q` 形状 `[B, Hq, L, D]`，`k`、`v` 形状 `[B, Hkv, L, D]`，`Hq % Hkv == 0`；`positions` 形状 `[L]`。
- 在 `positions` 上对 `q` 和 `k` 施加**半分排布** RoPE（HF `rotate_half`，`θ_i = base**(-2i/D)`）；不要作用于 `v`。
- 第 `h` 个 query 头使用第 `h // (Hq / Hkv)` 个 KV 头（HF `repeat_kv`：每个 KV 头服务一组相邻的 query 头）。
- 计算 `softmax(q·kᵀ / √D + 因果掩码) · v`，掩码遮住 query 之后的 key；返回 `[B, Hq, L, D]`。
- 容差：绝对误差 1e-4（float32）。""",
    },
    hints=(
        {
            "en": "Rotate q and k first (same cos/sin for both), then expand the KV heads with "
            "`k.repeat_interleave(Hq // Hkv, dim=1)`. `k.repeat(1, Hq // Hkv, 1, 1)` tiles instead: wrong grouping.",
            "zh": "先旋转 q 和 k（同一套 cos/sin），再用 `k.repeat_interleave(Hq // Hkv, dim=1)` 扩展 KV 头。"
            "`k.repeat(1, Hq // Hkv, 1, 1)` 是平铺，分组就错了。",
        },
        {
            "en": "Scores `q @ k.transpose(-1, -2) / sqrt(D)`; mask with `torch.ones(L, L).triu(1).bool()` "
            "filled with `-inf`; `softmax(-1) @ v`.",
            "zh": "得分 `q @ k.transpose(-1, -2) / sqrt(D)`；用 `torch.ones(L, L).triu(1).bool()` 填 `-inf` 作掩码；"
            "再 `softmax(-1) @ v`。",
        },
    ),
    solution="""import math

import torch


def _rope(x: torch.Tensor, positions: torch.Tensor, base: float) -> torch.Tensor:
    dim = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    return x * emb.cos().to(x.dtype) + torch.cat((-x2, x1), dim=-1) * emb.sin().to(x.dtype)


def rope_attention(q, k, v, positions, base: float = 10000.0) -> torch.Tensor:
    hq, hkv, seq, dim = q.shape[1], k.shape[1], q.shape[2], q.shape[3]
    q, k = _rope(q, positions, base), _rope(k, positions, base)
    k = k.repeat_interleave(hq // hkv, dim=1)  # HF repeat_kv: head h uses KV head h // group
    v = v.repeat_interleave(hq // hkv, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dim)
    future = torch.ones(seq, seq, dtype=torch.bool).triu(1)
    scores = scores.masked_fill(future, float("-inf"))
    return scores.softmax(dim=-1) @ v
""",
)

NTK_INV_FREQ = drill(
    name="ntk-inv-freq",
    topic="context-extension",
    difficulty=1,
    minutes=10,
    signature="ntk_inv_freq(dim: int, base: float, factor: float) -> torch.Tensor",
    doc="NTK-aware RoPE frequencies [dim // 2] with base' = base * factor**(dim / (dim - 2)).",
    title={"en": "NTK-aware RoPE frequencies", "zh": "NTK-aware RoPE 频率"},
    statement={
        "en": """Compute the RoPE inverse frequencies of NTK-aware scaling (bloc97, 2023).

```python
def ntk_inv_freq(dim, base, factor) -> torch.Tensor
```

- Enlarge the base: `base' = base * factor**(dim / (dim - 2))`, then `inv_freq_i = base'**(-2i/dim)` for
  `i = 0 .. dim/2-1`.
- Return a 1-D tensor of length `dim // 2` (float32 or float64). `dim >= 4` and even.
- Tolerance: relative 1e-5.""",
        "zh": """计算 NTK-aware 缩放（bloc97，2023）的 RoPE 逆频率。

```python
def ntk_inv_freq(dim, base, factor) -> torch.Tensor
```

- 放大 base：`base' = base * factor**(dim / (dim - 2))`，再算 `inv_freq_i = base'**(-2i/dim)`，
  `i = 0 .. dim/2-1`。
- 返回长度为 `dim // 2` 的一维张量（float32 或 float64）。`dim >= 4` 且为偶数。
- 容差：相对误差 1e-5。""",
    },
    hints=(
        {
            "en": "The exponent `dim/(dim-2)` makes the lowest frequency (`i = dim/2 - 1`) exactly `1/factor` of "
            "the original, while pair 0 keeps frequency 1.",
            "zh": "指数 `dim/(dim-2)` 让最低频（`i = dim/2 - 1`）恰好变为原来的 `1/factor`，而第 0 对频率仍为 1。",
        },
        {
            "en": "`new_base = base * factor ** (dim / (dim - 2))`; "
            "`1.0 / new_base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)`.",
            "zh": "`new_base = base * factor ** (dim / (dim - 2))`；"
            "`1.0 / new_base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)`。",
        },
    ),
    solution="""import torch


def ntk_inv_freq(dim: int, base: float, factor: float) -> torch.Tensor:
    new_base = base * factor ** (dim / (dim - 2))
    return 1.0 / new_base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
""",
)

YARN_INV_FREQ = drill(
    name="yarn-inv-freq",
    topic="context-extension",
    difficulty=3,
    minutes=25,
    signature=(
        "yarn_inv_freq(\n    dim: int,\n    base: float,\n    factor: float,\n    original_max_position_embeddings: int,\n"
        "    beta_fast: float = 32.0,\n    beta_slow: float = 1.0,\n) -> tuple[torch.Tensor, float]"
    ),
    doc="YaRN's (inv_freq [dim // 2], attention_factor), equal to HF's 'yarn' rope init.",
    title={"en": "YaRN frequencies and temperature", "zh": "YaRN 频率与温度"},
    statement={
        "en": """Compute YaRN's "NTK-by-parts" frequencies and its attention factor, equal to HF transformers'
`_compute_yarn_parameters` with these parameters and its defaults.

```python
def yarn_inv_freq(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0)
```

- `θ_i = base**(-2i/dim)`. The correction dim for `r` rotations is
  `dim · ln(L / (2π r)) / (2 ln base)` with `L = original_max_position_embeddings`.
- `low = max(floor(corr(beta_fast)), 0)`, `high = min(ceil(corr(beta_slow)), dim − 1)`
  (if equal, `high += 0.001`); `ramp_i = clamp((i − low) / (high − low), 0, 1)`.
- `inv_freq_i = θ_i · (1 − ramp_i) + (θ_i / factor) · ramp_i`: high frequencies kept, low ones interpolated.
- `attention_factor = 0.1 · ln(factor) + 1` (1 when `factor <= 1`).
- Return `(inv_freq [dim // 2], attention_factor)`. Tolerance: relative 1e-5 on both.""",
        "zh": """计算 YaRN 的“分段 NTK”频率与注意力系数，结果须与 HF transformers 的 `_compute_yarn_parameters`
（使用这些参数及其默认值）一致。

```python
def yarn_inv_freq(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0)
```

- `θ_i = base**(-2i/dim)`。`r` 圈对应的修正维度为 `dim · ln(L / (2π r)) / (2 ln base)`，
  `L = original_max_position_embeddings`。
- `low = max(floor(corr(beta_fast)), 0)`，`high = min(ceil(corr(beta_slow)), dim − 1)`
  （相等时 `high += 0.001`）；`ramp_i = clamp((i − low) / (high − low), 0, 1)`。
- `inv_freq_i = θ_i · (1 − ramp_i) + (θ_i / factor) · ramp_i`：高频保持，低频插值。
- `attention_factor = 0.1 · ln(factor) + 1`（`factor <= 1` 时为 1）。
- 返回 `(inv_freq [dim // 2], attention_factor)`。容差：两者相对误差均为 1e-5。""",
    },
    hints=(
        {
            "en": "beta_fast (32 rotations) gives the *low* bound: pairs that rotate more than 32 times in the "
            "original context are left alone. beta_slow (1 rotation) gives the high bound.",
            "zh": "beta_fast（32 圈）给出*下界*：在原始上下文中转超过 32 圈的配对保持不变。beta_slow（1 圈）给出上界。",
        },
        {
            "en": "HF floors low and ceils high before clamping, and clamps high to `dim - 1` (not `dim/2 - 1`). "
            "The temperature is returned, not applied to inv_freq: HF multiplies cos and sin by it.",
            "zh": "HF 先对 low 向下取整、对 high 向上取整再截断，而且 high 截断到 `dim - 1`（不是 `dim/2 - 1`）。"
            "温度系数是返回值，不乘进 inv_freq：HF 把它乘在 cos 和 sin 上。",
        },
    ),
    solution="""import math

import torch


def yarn_inv_freq(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[torch.Tensor, float]:
    def correction_dim(rotations: float) -> float:
        return dim * math.log(original_max_position_embeddings / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    theta = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    inv_freq = theta * (1 - ramp) + theta / factor * ramp
    attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    return inv_freq, attention_factor
""",
)

LLAMA3_INV_FREQ = drill(
    name="llama3-inv-freq",
    topic="context-extension",
    difficulty=2,
    minutes=20,
    signature=(
        "llama3_inv_freq(\n    dim: int,\n    base: float,\n    factor: float,\n    original_max_position_embeddings: int,\n"
        "    low_freq_factor: float,\n    high_freq_factor: float,\n) -> torch.Tensor"
    ),
    doc="Llama 3.1 scaled RoPE frequencies [dim // 2], equal to HF's 'llama3' rope init.",
    title={"en": "Llama 3.1 frequency scaling", "zh": "Llama 3.1 频率缩放"},
    statement={
        "en": """Compute Llama 3.1's scaled RoPE inverse frequencies, equal to HF transformers'
`_compute_llama3_parameters` (and Meta's `apply_scaling`).

```python
def llama3_inv_freq(dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor)
```

- `θ_i = base**(-2i/dim)`, wavelength `λ_i = 2π / θ_i`, `L = original_max_position_embeddings`.
- `λ < L / high_freq_factor`: keep `θ`. `λ > L / low_freq_factor`: `θ / factor`.
- In between, blend smoothly: `s = (L / λ − low_freq_factor) / (high_freq_factor − low_freq_factor)`,
  `(1 − s) · θ / factor + s · θ`.
- Return `inv_freq` `[dim // 2]` (returning HF's pair `(inv_freq, 1.0)` is accepted too).
  Tolerance: relative 1e-5.""",
        "zh": """计算 Llama 3.1 缩放后的 RoPE 逆频率，结果须与 HF transformers 的 `_compute_llama3_parameters`
（以及 Meta 的 `apply_scaling`）一致。

```python
def llama3_inv_freq(dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor)
```

- `θ_i = base**(-2i/dim)`，波长 `λ_i = 2π / θ_i`，`L = original_max_position_embeddings`。
- `λ < L / high_freq_factor`：保持 `θ`。`λ > L / low_freq_factor`：取 `θ / factor`。
- 介于两者之间的平滑过渡：`s = (L / λ − low_freq_factor) / (high_freq_factor − low_freq_factor)`，
  取 `(1 − s) · θ / factor + s · θ`。
- 返回 `inv_freq` `[dim // 2]`（也接受 HF 的二元组 `(inv_freq, 1.0)`）。容差：相对误差 1e-5。""",
    },
    hints=(
        {
            "en": "Three bands by wavelength: short wavelengths (high frequency) untouched, long ones divided by "
            "`factor`, and a middle band that blends the two.",
            "zh": "按波长分三段：短波长（高频）不变，长波长除以 `factor`，中间一段在两者之间混合。",
        },
        {
            "en": "`s` goes from 0 at `λ = L/low_freq_factor` to 1 at `λ = L/high_freq_factor`: `s = 1` means "
            "keep θ. Use `torch.where` for the three bands.",
            "zh": "`s` 在 `λ = L/low_freq_factor` 处为 0，在 `λ = L/high_freq_factor` 处为 1：`s = 1` 表示保持 θ。"
            "三段用 `torch.where` 组合。",
        },
    ),
    solution="""import math

import torch


def llama3_inv_freq(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    low_freq_factor: float,
    high_freq_factor: float,
) -> torch.Tensor:
    theta = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    wavelen = 2 * math.pi / theta
    length = original_max_position_embeddings
    smooth = (length / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * theta / factor + smooth * theta
    out = torch.where(wavelen < length / high_freq_factor, theta, blended)
    return torch.where(wavelen > length / low_freq_factor, theta / factor, out)
""",
)

FIXED: tuple[Drill, ...] = (
    SINUSOIDAL_PE,
    ROPE_HALF,
    ROPE_INTERLEAVED,
    ALIBI_SLOPES,
    ALIBI_BIAS,
    T5_BUCKET,
    ROPE_ATTENTION_GQA,
    NTK_INV_FREQ,
    YARN_INV_FREQ,
    LLAMA3_INV_FREQ,
)
