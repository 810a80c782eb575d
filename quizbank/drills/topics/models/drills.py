"""Model conversion: Meta's interleaved q/k weights to Hugging Face's half layout.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill

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


DRILLS: tuple[Drill, ...] = (META_TO_HF,)
