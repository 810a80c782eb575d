"""RoPE layouts and forms: half-split and interleaved channels are one map up to a permutation, and the
matrix, complex and rotate_half forms are one rotation."""

from __future__ import annotations

from ._common import (
    angle_tol,
    exact_dtype,
    f64_bytes,
    randn,
)
from .base import DemoContext, Param, Value
from .registry import register_demo
from .rope_demos import BASE, DIM, SEED


@register_demo(
    name="rope-layouts",
    title="Half-split and interleaved RoPE are one map up to a permutation",
    claim="Permuting channels with hf[r·d/2 + i] = meta[2i + r] turns interleaved (GPT-J/Meta) RoPE into half-split (NeoX/HF) RoPE, so converted LLaMA weights give identical scores.",
    title_zh="半拆分与交错排布的 RoPE 只差一个通道置换",
    claim_zh="按 hf[r·d/2 + i] = meta[2i + r] 置换通道，就能把交错排布（GPT-J/Meta）的 RoPE 变成半拆分（NeoX/HF）的 RoPE，因此转换后的 LLaMA 权重给出完全相同的注意力分数。",
    topic="rope",
    params=(
        DIM,
        Param("seq_len", "int", 16, min=1, max=100_000, help="number of positions", help_zh="位置数"),
        BASE,
        SEED,
    ),
    values=(
        Value(
            "max_error",
            "|interleaved RoPE then permute − permute then half RoPE|, largest channel",
            "abs error",
            meaning_zh="先 interleaved RoPE 再置换与先置换再 half RoPE 之差的最大绝对值",
        ),
        Value(
            "score_max_error",
            "|attention scores, Meta layout − HF layout|, largest",
            "abs error",
            meaning_zh="Meta 布局与 HF 布局的注意力分数之差的最大绝对值",
        ),
        Value(
            "unpermuted_score_error",
            "the same without permuting the weights (the conversion trap: large)",
            "abs difference",
            meaning_zh="不置换权重时的同样差值（转换陷阱：很大）",
        ),
        Value(
            "mixed_norm_change",
            "largest norm change from rotate_half with an interleaved cos/sin table (not a rotation)",
            "abs difference",
            meaning_zh="rotate_half 配 interleaved cos/sin 表造成的最大模长变化（不是旋转）",
        ),
    ),
    # float64: q, k, their permuted copies, four rotated tensors, the trap's two, the cached
    # tables (complex and full-width) and temporaries: about 14 float64 copies of q
    memory_bytes=lambda dim, seq_len, **_: f64_bytes(seq_len, dim, 16),
)
def _run_rope_layouts(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    import torch

    from ..rope import apply_rope, half_to_interleaved_permutation

    dtype = exact_dtype(ctx)
    q = randn(seed, seq_len, dim).to(ctx.device, dtype)  # Meta / interleaved channel order
    k = randn(seed + 1, seq_len, dim).to(ctx.device, dtype)
    perm = half_to_interleaved_permutation(dim, device=ctx.device)
    q_meta = apply_rope(q, base=base, layout="interleaved")
    k_meta = apply_rope(k, base=base, layout="interleaved")
    q_hf = apply_rope(q[..., perm], base=base, layout="half")  # permuted weights, HF rotate_half
    k_hf = apply_rope(k[..., perm], base=base, layout="half")
    max_error = float((q_meta[..., perm] - q_hf).abs().max())
    # scores on up to 256 evenly spread positions (a full seq x seq matrix could be huge)
    pick = torch.linspace(0, seq_len - 1, min(seq_len, 256), device=ctx.device).round().long().unique()
    scores_meta = q_meta[pick] @ k_meta[pick].T
    scores_hf = q_hf[pick] @ k_hf[pick].T
    score_error = float((scores_meta - scores_hf).abs().max())
    scale = float(q.norm(dim=-1).max() * k.norm(dim=-1).max())
    tol = angle_tol(ctx.dtype, seq_len, float(q.abs().max()))
    ctx.check(
        "interleaved RoPE then permute = permute then half RoPE (channel by channel)",
        max_error,
        tol,
        zh="先做 interleaved RoPE 再置换 = 先置换再做 half RoPE（逐通道）",
    )
    ctx.check(
        "attention scores are identical under the permutation",
        score_error,
        tol * float(k.norm(dim=-1).max()),
        zh="置换前后注意力分数完全相同",
    )
    # the trap: loading Meta-ordered weights into HF's rotate_half without permuting
    wrong = apply_rope(q, base=base, layout="half")[pick] @ apply_rope(k, base=base, layout="half")[pick].T
    unpermuted = float((wrong - scores_meta).abs().max())
    if dim >= 4 and seq_len >= 2:
        ctx.check_true(
            "without the permutation the scores differ (the conversion trap)",
            unpermuted > 1e-3 * scale,
            zh="不做置换时分数不同（转换时的陷阱）",
        )
    ctx.table(
        "Channel permutation hf[r·d/2 + i] = meta[2i + r]",
        ["hf channel", "meta channel", "pair i", "r"],
        [[j, int(perm[j]), j % (dim // 2), j // (dim // 2)] for j in range(min(dim, 64))],
        title_zh="通道置换 hf[r·d/2 + i] = meta[2i + r]",
        columns_zh=["hf 通道", "meta 通道", "第 i 对", "r"],
    )
    if dim <= 64:
        eye = torch.eye(dim, dtype=torch.float64)
        ctx.matrix(
            "Permutation matrix P (row hf channel, column meta channel)",
            eye[perm.cpu()],
            "hf",
            "meta",
            title_zh="置换矩阵 P（行为 hf 通道，列为 meta 通道）",
        )
    # the other trap: rotate_half with a repeat_interleave (interleaved) cos/sin table is not a rotation
    from ..rope import rope_cos_sin, rotate_half

    cos_i, sin_i = rope_cos_sin(seq_len, dim, base=base, layout="interleaved", device=ctx.device, dtype=dtype)
    mixed = q * cos_i + rotate_half(q) * sin_i
    mixed_norm_change = float((mixed.norm(dim=-1) - q.norm(dim=-1)).abs().max())
    if dim >= 4 and seq_len >= 2:
        ctx.check_true(
            "rotate_half with a repeat_interleave cos/sin table changes the norm (not a rotation)",
            mixed_norm_change > 1e-3 * float(q.norm(dim=-1).max()),
            zh="rotate_half 配 repeat_interleave 的 cos/sin 表会改变模长（不是旋转）",
        )
    ctx.value("max_error", max_error)
    ctx.value("score_max_error", score_error)
    ctx.value("unpermuted_score_error", unpermuted)
    ctx.value("mixed_norm_change", mixed_norm_change)


@register_demo(
    name="rope-forms",
    title="Matrix, complex and rotate_half forms of RoPE agree",
    claim="The block-diagonal rotation matrix, the complex multiply q·eⁱᵐᶿ and the cos/sin + rotate_half form compute the same rotation.",
    title_zh="RoPE 的矩阵、复数与 rotate_half 三种写法结果一致",
    claim_zh="分块对角旋转矩阵、复数乘法 q·eⁱᵐᶿ 以及 cos/sin 加 rotate_half 的写法，算出的是同一个旋转。",
    topic="rope",
    params=(
        DIM,
        Param("seq_len", "int", 16, min=1, max=4096, help="number of positions", help_zh="位置数"),
        BASE,
        SEED,
    ),
    values=(
        Value(
            "max_error",
            "largest |difference| of the complex, rotate_half and apply_rope forms from the matrix form",
            "abs error",
            meaning_zh="复数、rotate_half 与 apply_rope 三种形式相对矩阵形式的最大绝对差",
        ),
        Value(
            "matrix_vs_complex",
            "|matrix form − complex form|, largest entry",
            "abs error",
            meaning_zh="矩阵形式与复数形式之差的最大绝对值",
        ),
        Value(
            "matrix_vs_rotate_half",
            "|matrix form − cos/sin + rotate_half form| after the channel permutation, largest entry",
            "abs error",
            meaning_zh="通道置换后矩阵形式与 cos/sin 加 rotate_half 形式之差的最大绝对值",
        ),
    ),
    # the [seq, d, d] float64 rotation matrices dominate; the three forms add ~16 float64 copies of x
    memory_bytes=lambda dim, seq_len, **_: f64_bytes(seq_len, dim, dim) + f64_bytes(seq_len, dim, 16),
)
def _run_rope_forms(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    import numpy as np
    import torch

    from ..rope import (
        apply_rope,
        half_to_interleaved_permutation,
        interleaved_to_half_permutation,
        rope_cos_sin,
        rope_inv_freq,
        rope_rotation_matrix_np,
        rotate_half,
    )

    dtype = exact_dtype(ctx)
    x64 = randn(seed, seq_len, dim)  # interleaved channel order throughout
    positions = np.arange(seq_len)

    # 1. matrix form (numpy float64): x_m ↦ R^d_{Θ,m} x_m, block diagonal
    rots = rope_rotation_matrix_np(positions, dim, base)  # [seq, d, d]
    by_matrix = np.einsum("sij,sj->si", rots, x64.numpy())

    # 2. complex form: (x_{2i} + i x_{2i+1}) · e^{i m θ_i}
    x = x64.to(ctx.device, dtype)
    theta = rope_inv_freq(dim, base=base, device=ctx.device, dtype=dtype)
    angle = torch.arange(seq_len, device=ctx.device, dtype=dtype)[:, None] * theta
    z = torch.view_as_complex(x.reshape(seq_len, dim // 2, 2).contiguous())
    by_complex = torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).reshape(seq_len, dim)

    # 3. cos/sin + rotate_half form (HF): permute to half order, rotate, permute back
    perm = half_to_interleaved_permutation(dim, device=ctx.device)
    inverse = interleaved_to_half_permutation(dim, device=ctx.device)
    cos, sin = rope_cos_sin(seq_len, dim, base=base, layout="half", device=ctx.device, dtype=dtype)
    xh = x[..., perm]
    by_rotate_half = (xh * cos + rotate_half(xh) * sin)[..., inverse]

    fast = apply_rope(x, base=base, layout="interleaved")
    as_np = {
        "complex": by_complex.double().cpu().numpy(),
        "rotate_half": by_rotate_half.double().cpu().numpy(),
        "apply_rope": fast.double().cpu().numpy(),
    }
    matrix_vs_complex = float(np.abs(by_matrix - as_np["complex"]).max())
    matrix_vs_rotate_half = float(np.abs(by_matrix - as_np["rotate_half"]).max())
    matrix_vs_fast = float(np.abs(by_matrix - as_np["apply_rope"]).max())
    tol = angle_tol(ctx.dtype, seq_len, float(x64.abs().max()))
    ctx.check("matrix form = complex form", matrix_vs_complex, tol, zh="矩阵形式 = 复数形式")
    ctx.check(
        "matrix form = cos/sin + rotate_half form (after the channel permutation)",
        matrix_vs_rotate_half,
        tol,
        zh="矩阵形式 = cos/sin 加 rotate_half 的形式（通道置换之后）",
    )
    ctx.check(
        "matrix form = apply_rope (interleaved)",
        matrix_vs_fast,
        tol,
        zh="矩阵形式 = apply_rope（interleaved）",
    )
    ctx.table(
        "Three forms of the same rotation",
        ["form", "formula", "max |diff| vs matrix"],
        [
            ["matrix", "R_(Θ,m)ᵈ x (block diagonal)", 0.0],
            ["complex", "(x₂ᵢ + i x₂ᵢ₊₁) e^(imθᵢ)", float(f"{matrix_vs_complex:.3g}")],
            ["rotate_half", "x cos + rotate_half(x) sin", float(f"{matrix_vs_rotate_half:.3g}")],
            ["apply_rope", "fast path, interleaved", float(f"{matrix_vs_fast:.3g}")],
        ],
        title_zh="同一个旋转的三种写法",
        columns_zh=["形式", "公式", "与矩阵形式的 max |diff|"],
    )
    if dim <= 64:
        ctx.matrix(
            "R_(Θ,m)ᵈ at m = 1 (block diagonal)",
            rope_rotation_matrix_np(1, dim, base),
            "row",
            "column",
            title_zh="m = 1 时的 R_(Θ,m)ᵈ（分块对角）",
            row_label_zh="行",
            col_label_zh="列",
        )
    ctx.value("matrix_vs_complex", matrix_vs_complex)
    ctx.value("matrix_vs_rotate_half", matrix_vs_rotate_half)
    ctx.value("max_error", max(matrix_vs_complex, matrix_vs_rotate_half, matrix_vs_fast))
