"""Context extension: NTK-aware, YaRN and Llama 3 frequencies, position interpolation.

The drills: statement, starter file and model solution. No torch."""

from __future__ import annotations

from ...authoring import drill
from ...model import Drill
from ..rope.drills import HALF_ROPE_HELPER

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
    + HALF_ROPE_HELPER
    + """

def pi_rope(x: torch.Tensor, positions: torch.Tensor, factor: float, base: float = 10000.0) -> torch.Tensor:
    return _rope_half(x, torch.as_tensor(positions, dtype=torch.float64) / factor, base)
""",
)


DRILLS: tuple[Drill, ...] = (
    NTK_INV_FREQ,
    YARN_INV_FREQ,
    LLAMA3_INV_FREQ,
    PI,
)
