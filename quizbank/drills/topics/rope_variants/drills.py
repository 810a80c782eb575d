"""RoPE variants: M-RoPE position ids, 2-D axial RoPE, partial rotary.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill
from ..rope.drills import HALF_ROPE_HELPER

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
    + HALF_ROPE_HELPER
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
    + HALF_ROPE_HELPER
    + """

def apply_partial_rope(x: torch.Tensor, positions: torch.Tensor, rotary_dim: int, base: float = 10000.0):
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    return torch.cat((_rope_half(x_rot, positions, base), x_pass), dim=-1)
""",
)


DRILLS: tuple[Drill, ...] = (
    MROPE,
    AXIAL,
    PARTIAL,
)
