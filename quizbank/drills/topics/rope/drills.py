"""RoPE: rotating q and k by position (half and interleaved layouts, attention with GQA, KV-cache decoding).

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill

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

HALF_ROPE_HELPER = """def _rope_half(x: torch.Tensor, positions: torch.Tensor, base: float) -> torch.Tensor:
    dim = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    angles = torch.as_tensor(positions, dtype=torch.float64)[..., None] * inv_freq
    emb = torch.cat((angles, angles), dim=-1)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    return x * emb.cos().to(x.dtype) + torch.cat((-x2, x1), dim=-1) * emb.sin().to(x.dtype)
"""

KV_DECODE = drill(
    name="rope-kv-cache-decode",
    topic="rope",
    difficulty=2,
    minutes=15,
    signature=(
        "rope_decode_step(\n    q: torch.Tensor, k: torch.Tensor, past_len: int, base: float = 10000.0\n"
        ") -> tuple[torch.Tensor, torch.Tensor]"
    ),
    doc="Rotate the new tokens' q and k [..., T, D] at positions past_len .. past_len + T - 1 (half layout).",
    title={"en": "RoPE in a KV-cache decode step", "zh": "KV cache 解码步中的 RoPE"},
    statement={
        "en": """During generation only the new tokens' `q` and `k` are computed; the cached keys were rotated when
they were written. Rotate the new ones at the right positions.

```python
def rope_decode_step(q, k, past_len, base=10000.0) -> tuple[torch.Tensor, torch.Tensor]
```

- `q` and `k` are `[..., T, D]` for `T` new tokens (often 1); `past_len` tokens are already in the cache.
- The new tokens sit at positions `past_len .. past_len + T − 1`; apply half-layout RoPE (HF `rotate_half`,
  `θ_i = base**(-2i/D)`) to both and return `(q_rot, k_rot)`.
- Tolerance: absolute 1e-3 (float32 at positions in the thousands).""",
        "zh": """生成时只计算新 token 的 `q` 和 `k`；缓存里的 key 写入时已经旋转过。把新的 token 在正确的位置上旋转。

```python
def rope_decode_step(q, k, past_len, base=10000.0) -> tuple[torch.Tensor, torch.Tensor]
```

- `q`、`k` 形状 `[..., T, D]`，`T` 个新 token（通常为 1）；缓存里已有 `past_len` 个 token。
- 新 token 位于 `past_len .. past_len + T − 1`；对两者施加半分排布 RoPE（HF `rotate_half`，
  `θ_i = base**(-2i/D)`），返回 `(q_rot, k_rot)`。
- 容差：绝对误差 1e-3（位置上千时的 float32）。""",
    },
    hints=(
        {
            "en": "`positions = torch.arange(past_len, past_len + T)`: not `arange(T)`, which rotates every new "
            "token as if it were the first.",
            "zh": "`positions = torch.arange(past_len, past_len + T)`：不是 `arange(T)`，那样每个新 token 都被当成第一个。",
        },
        {
            "en": "The first new token is at `past_len`, not `past_len + 1`; compute angles in float64 and cast.",
            "zh": "第一个新 token 在 `past_len`，不是 `past_len + 1`；用 float64 计算角度再转换。",
        },
    ),
    solution="""import torch


"""
    + HALF_ROPE_HELPER
    + """

def rope_decode_step(q: torch.Tensor, k: torch.Tensor, past_len: int, base: float = 10000.0):
    positions = torch.arange(past_len, past_len + q.shape[-2])
    return _rope_half(q, positions, base), _rope_half(k, positions, base)
""",
)


DRILLS: tuple[Drill, ...] = (
    ROPE_HALF,
    ROPE_INTERLEAVED,
    ROPE_ATTENTION_GQA,
    KV_DECODE,
)
