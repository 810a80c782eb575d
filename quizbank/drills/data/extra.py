"""Eight more drills chosen from what interviews ask."""

from __future__ import annotations

from ..model import Drill
from ._build import drill

_HALF_ROPE_HELPER = """def _rope_half(x: torch.Tensor, positions: torch.Tensor, base: float) -> torch.Tensor:
    dim = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    angles = torch.as_tensor(positions, dtype=torch.float64)[..., None] * inv_freq
    emb = torch.cat((angles, angles), dim=-1)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    return x * emb.cos().to(x.dtype) + torch.cat((-x2, x1), dim=-1) * emb.sin().to(x.dtype)
"""

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

META_TO_HF = drill(
    name="meta-to-hf-permute",
    topic="models",
    difficulty=3,
    minutes=15,
    signature="meta_to_hf_permute(w: torch.Tensor, n_heads: int) -> torch.Tensor",
    doc="Permute the rows of a Meta q/k projection [n_heads * head_dim, in] into HF's half RoPE layout.",
    title={"en": "Meta → HF q/k weight permutation", "zh": "Meta → HF 的 q/k 权重置换"},
    statement={
        "en": """HF's LLaMA conversion script permutes the rows of `W_q` and `W_k` so that HF's half-layout RoPE
computes what Meta's interleaved RoPE computed. Write that permutation.

```python
def meta_to_hf_permute(w, n_heads) -> torch.Tensor
```

- `w` is `[n_heads · head_dim, in_features]`; each head's `head_dim` rows are in Meta order, where rows
  `(2i, 2i+1)` form rotary pair `i`.
- Return the same rows in HF order, per head: `hf[r · head_dim/2 + i] = meta[2i + r]` for `r ∈ {0, 1}`.
- Exact match required.""",
        "zh": """HF 的 LLaMA 转换脚本会对 `W_q`、`W_k` 的行做置换，使 HF 的半分 RoPE 与 Meta 的交错 RoPE 算出同样的结果。
写出这个置换。

```python
def meta_to_hf_permute(w, n_heads) -> torch.Tensor
```

- `w` 形状 `[n_heads · head_dim, in_features]`；每个头的 `head_dim` 行按 Meta 顺序排列，行 `(2i, 2i+1)` 是第 `i` 个旋转对。
- 按头返回 HF 顺序的行：`hf[r · head_dim/2 + i] = meta[2i + r]`，`r ∈ {0, 1}`。
- 要求完全一致。""",
    },
    hints=(
        {
            "en": "Work per head: `w.view(n_heads, head_dim // 2, 2, in_features)` exposes (head, pair, member).",
            "zh": "按头处理：`w.view(n_heads, head_dim // 2, 2, in_features)` 得到 (头, 配对, 成员) 三个维度。",
        },
        {
            "en": "Swap the pair and member axes, `.transpose(1, 2)`, then reshape back. Permuting the whole matrix "
            "as one head mixes rows of different heads.",
            "zh": "交换配对与成员两个维度 `.transpose(1, 2)`，再 reshape 回去。把整个矩阵当成一个头来置换会把不同头的行混在一起。",
        },
    ),
    solution="""import torch


def meta_to_hf_permute(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    rows, cols = w.shape
    head_dim = rows // n_heads
    return w.reshape(n_heads, head_dim // 2, 2, cols).transpose(1, 2).reshape(rows, cols)
""",
)

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
    + _HALF_ROPE_HELPER
    + """

def rope_decode_step(q: torch.Tensor, k: torch.Tensor, past_len: int, base: float = 10000.0):
    positions = torch.arange(past_len, past_len + q.shape[-2])
    return _rope_half(q, positions, base), _rope_half(k, positions, base)
""",
)

MROPE = drill(
    name="mrope-position-ids",
    topic="rope-variants",
    difficulty=2,
    minutes=20,
    signature=(
        "mrope_position_ids(\n    text_before: int, grid_t: int, grid_h: int, grid_w: int, text_after: int\n) -> torch.Tensor"
    ),
    doc="Qwen2-VL M-RoPE position ids [3, n] (temporal, height, width) for text, one vision block, text.",
    title={"en": "Qwen2-VL M-RoPE position ids", "zh": "Qwen2-VL M-RoPE 位置编号"},
    statement={
        "en": """Build Qwen2-VL's three-axis position ids (HF `Qwen2VLModel.get_rope_index`) for a sequence of
`text_before` text tokens, one `grid_t × grid_h × grid_w` vision block (already merged), and `text_after` text tokens.

```python
def mrope_position_ids(text_before, grid_t, grid_h, grid_w, text_after) -> torch.Tensor
```

- Return an integer tensor `[3, n]` (rows temporal, height, width), `n = text_before + grid_t·grid_h·grid_w + text_after`.
- Text tokens have the same id on all three axes, counting from 0.
- Vision token `(t, h, w)` (t slowest, w fastest) gets `start + (t, h, w)` with `start = text_before`.
- Text after the block resumes at `max(vision ids) + 1`. Exact match required.""",
        "zh": """为 `text_before` 个文本 token、一个 `grid_t × grid_h × grid_w` 的视觉块（已合并）和 `text_after` 个文本
token 构造 Qwen2-VL 的三轴位置编号（HF `Qwen2VLModel.get_rope_index`）。

```python
def mrope_position_ids(text_before, grid_t, grid_h, grid_w, text_after) -> torch.Tensor
```

- 返回整数张量 `[3, n]`（行依次为时间、高、宽），`n = text_before + grid_t·grid_h·grid_w + text_after`。
- 文本 token 三个轴上的编号相同，从 0 开始。
- 视觉 token `(t, h, w)`（t 变化最慢，w 最快）的编号为 `start + (t, h, w)`，`start = text_before`。
- 视觉块之后的文本从 `max(视觉编号) + 1` 继续。要求完全一致。""",
    },
    hints=(
        {
            "en": "Vision rows: `t = arange(T).repeat_interleave(H*W)`, `h = arange(H).repeat_interleave(W).repeat(T)`, "
            "`w = arange(W).repeat(T*H)`.",
            "zh": "视觉部分：`t = arange(T).repeat_interleave(H*W)`，`h = arange(H).repeat_interleave(W).repeat(T)`，"
            "`w = arange(W).repeat(T*H)`。",
        },
        {
            "en": "After the block, text resumes at `start + max(T, H, W)`, not at `start + T·H·W`: "
            "that is what makes M-RoPE position ids compact.",
            "zh": "视觉块之后，文本从 `start + max(T, H, W)` 继续，而不是 `start + T·H·W`：M-RoPE 编号因此更紧凑。",
        },
    ),
    solution="""import torch


def mrope_position_ids(text_before: int, grid_t: int, grid_h: int, grid_w: int, text_after: int) -> torch.Tensor:
    before = torch.arange(text_before).expand(3, -1)
    t = torch.arange(grid_t).repeat_interleave(grid_h * grid_w)
    h = torch.arange(grid_h).repeat_interleave(grid_w).repeat(grid_t)
    w = torch.arange(grid_w).repeat(grid_t * grid_h)
    vision = torch.stack((t, h, w)) + text_before
    resume = int(vision.max()) + 1
    after = (torch.arange(text_after) + resume).expand(3, -1)
    return torch.cat((before, vision, after), dim=1)
""",
)

AXIAL = drill(
    name="rope-2d-axial",
    topic="rope-variants",
    difficulty=3,
    minutes=20,
    signature="axial_rope_2d(x: torch.Tensor, grid_h: int, grid_w: int, base: float = 10000.0) -> torch.Tensor",
    doc="2-D axial RoPE for ViT patches: first dim/2 channels by row, last dim/2 by column (half layout).",
    title={"en": "2-D axial RoPE for image patches", "zh": "图像 patch 的二维轴向 RoPE"},
    statement={
        "en": """Apply 2-D axial RoPE to the patch tokens of a ViT (as in RoPE-ViT / EVA-02).

```python
def axial_rope_2d(x, grid_h, grid_w, base=10000.0) -> torch.Tensor
```

- `x` is `[..., grid_h·grid_w, dim]` with tokens in row-major order: token `n` is at row `n // grid_w`,
  column `n % grid_w`; `dim % 4 == 0`.
- The first `dim/2` channels get 1-D half-layout RoPE (HF `rotate_half`) at the token's **row**, with
  `θ_i = base**(-2i/(dim/2))`; the last `dim/2` channels the same at its **column**.
- Return a new tensor shaped like `x`. Tolerance: absolute 1e-4.""",
        "zh": """对 ViT 的 patch token 施加二维轴向 RoPE（如 RoPE-ViT / EVA-02）。

```python
def axial_rope_2d(x, grid_h, grid_w, base=10000.0) -> torch.Tensor
```

- `x` 形状 `[..., grid_h·grid_w, dim]`，token 按行优先排列：第 `n` 个 token 在第 `n // grid_w` 行、
  第 `n % grid_w` 列；`dim % 4 == 0`。
- 前 `dim/2` 个通道按 token 的**行号**做一维半分 RoPE（HF `rotate_half`），`θ_i = base**(-2i/(dim/2))`；
  后 `dim/2` 个通道按**列号**做同样的旋转。
- 返回与 `x` 同形状的新张量。容差：绝对误差 1e-4。""",
    },
    hints=(
        {
            "en": "`rows = arange(H*W) // W`, `cols = arange(H*W) % W`; using the flat index `n` as the position "
            "is 1-D RoPE, not 2-D.",
            "zh": "`rows = arange(H*W) // W`，`cols = arange(H*W) % W`；把展平下标 `n` 当位置就成了一维 RoPE。",
        },
        {
            "en": "Each half is a full 1-D RoPE of width `dim/2`, so its frequencies use `dim/2` in the exponent.",
            "zh": "每一半都是宽度为 `dim/2` 的完整一维 RoPE，所以频率指数里用 `dim/2`。",
        },
    ),
    solution="""import torch


"""
    + _HALF_ROPE_HELPER
    + """

def axial_rope_2d(x: torch.Tensor, grid_h: int, grid_w: int, base: float = 10000.0) -> torch.Tensor:
    half = x.shape[-1] // 2
    n = torch.arange(grid_h * grid_w)
    rows, cols = n // grid_w, n % grid_w
    return torch.cat((_rope_half(x[..., :half], rows, base), _rope_half(x[..., half:], cols, base)), dim=-1)
""",
)

PARTIAL = drill(
    name="partial-rotary",
    topic="rope-variants",
    difficulty=2,
    minutes=15,
    signature=(
        "apply_partial_rope(\n    x: torch.Tensor, positions: torch.Tensor, rotary_dim: int, base: float = 10000.0\n"
        ") -> torch.Tensor"
    ),
    doc="Half-layout RoPE on the first rotary_dim channels only (GPT-NeoX rotary_pct, Phi); the rest pass through.",
    title={"en": "Partial rotary embedding", "zh": "部分维度旋转（partial rotary）"},
    statement={
        "en": """GPT-NeoX (`rotary_pct`), GPT-J (`rotary_dim`) and Phi rotate only part of each head.

```python
def apply_partial_rope(x, positions, rotary_dim, base=10000.0) -> torch.Tensor
```

- `x` is `[..., seq, dim]`, `positions` is `[seq]`, `rotary_dim` is even and `<= dim`.
- The first `rotary_dim` channels get half-layout RoPE **as if the head had `rotary_dim` channels**:
  pairs `(i, i + rotary_dim/2)`, `θ_i = base**(-2i/rotary_dim)`. Channels `rotary_dim ..` are returned unchanged.
- Return a new tensor shaped like `x`. Tolerance: absolute 1e-4.""",
        "zh": """GPT-NeoX（`rotary_pct`）、GPT-J（`rotary_dim`）和 Phi 只旋转每个头的一部分通道。

```python
def apply_partial_rope(x, positions, rotary_dim, base=10000.0) -> torch.Tensor
```

- `x` 形状 `[..., seq, dim]`，`positions` 形状 `[seq]`，`rotary_dim` 为偶数且 `<= dim`。
- 前 `rotary_dim` 个通道做半分 RoPE，**就像这个头只有 `rotary_dim` 个通道**：配对 `(i, i + rotary_dim/2)`，
  `θ_i = base**(-2i/rotary_dim)`。从 `rotary_dim` 开始的通道原样返回。
- 返回与 `x` 同形状的新张量。容差：绝对误差 1e-4。""",
    },
    hints=(
        {
            "en": "Split `x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]`, rotate `x_rot`, concatenate.",
            "zh": "拆分 `x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]`，旋转 `x_rot` 后再拼接。",
        },
        {
            "en": "The exponent divides by `rotary_dim`, not the head dim; and pairs are `rotary_dim/2` apart.",
            "zh": "指数除以 `rotary_dim` 而不是头维度；配对间隔是 `rotary_dim/2`。",
        },
    ),
    solution="""import torch


"""
    + _HALF_ROPE_HELPER
    + """

def apply_partial_rope(x: torch.Tensor, positions: torch.Tensor, rotary_dim: int, base: float = 10000.0):
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    return torch.cat((_rope_half(x_rot, positions, base), x_pass), dim=-1)
""",
)

PI = drill(
    name="position-interpolation",
    topic="context-extension",
    difficulty=1,
    minutes=10,
    signature=(
        "pi_rope(x: torch.Tensor, positions: torch.Tensor, factor: float, base: float = 10000.0) -> torch.Tensor"
    ),
    doc="RoPE (half layout) with linear position interpolation: positions are divided by factor.",
    title={"en": "Position interpolation (linear RoPE scaling)", "zh": "位置插值（线性 RoPE 缩放）"},
    statement={
        "en": """Extend a RoPE model's context by position interpolation (Chen et al. 2023; HF `rope_type="linear"`).

```python
def pi_rope(x, positions, factor, base=10000.0) -> torch.Tensor
```

- `x` is `[..., seq, dim]`, `positions` is `[seq]`, `factor >= 1` is the context extension ratio.
- Apply half-layout RoPE (HF `rotate_half`, `θ_i = base**(-2i/dim)`) at positions `positions / factor`
  (equivalently with frequencies `θ_i / factor`), so that the longer context maps into the trained range.
- Return a new tensor shaped like `x`. Tolerance: absolute 1e-4.""",
        "zh": """用位置插值扩展 RoPE 模型的上下文（Chen 等 2023；HF `rope_type="linear"`）。

```python
def pi_rope(x, positions, factor, base=10000.0) -> torch.Tensor
```

- `x` 形状 `[..., seq, dim]`，`positions` 形状 `[seq]`，`factor >= 1` 为上下文扩展倍数。
- 在位置 `positions / factor` 上施加半分排布 RoPE（HF `rotate_half`，`θ_i = base**(-2i/dim)`）
  （等价于频率取 `θ_i / factor`），使更长的上下文落回训练过的范围。
- 返回与 `x` 同形状的新张量。容差：绝对误差 1e-4。""",
    },
    hints=(
        {
            "en": "Interpolation squeezes positions: divide, never multiply, by `factor`.",
            "zh": "插值是压缩位置：除以 `factor`，而不是乘。",
        },
        {
            "en": "Positions become fractional: convert them to float before dividing (integer division loses "
            "the fraction). Changing the base instead is NTK scaling, a different rule.",
            "zh": "位置会变成小数：先转成浮点数再除（整数除法会丢掉小数部分）。改 base 是 NTK 缩放，是另一种规则。",
        },
    ),
    solution="""import torch


"""
    + _HALF_ROPE_HELPER
    + """

def pi_rope(x: torch.Tensor, positions: torch.Tensor, factor: float, base: float = 10000.0) -> torch.Tensor:
    return _rope_half(x, torch.as_tensor(positions, dtype=torch.float64) / factor, base)
""",
)

EXTRA: tuple[Drill, ...] = (SHAW, LEARNED, META_TO_HF, KV_DECODE, MROPE, AXIAL, PARTIAL, PI)
