"""Sinusoidal PE demos: the shift is a linear map, the wavelengths, the dot product depends on the offset."""

from __future__ import annotations

import math
from typing import Any

from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    max_abs_diff,
    sample_indices,
    torch_dtype,
)
from .base import DemoContext, Param, ParamError, Value
from .registry import register_demo

BASE = Param(
    "base",
    "float",
    10000.0,
    min=2.0,
    max=1e9,
    help="sinusoid base (10000 in the paper)",
    help_zh="正弦编码的 base（论文中为 10000）",
)


@register_demo(
    name="sinusoidal-linearity",
    title="Sinusoidal PE: a fixed linear map shifts any position by k",
    claim="For every p, PE[p + k] = M_k · PE[p], where M_k is block-diagonal 2×2 rotations that depend on k only, never on p.",
    title_zh="正弦位置编码：一个固定的线性变换就能把任意位置平移 k",
    claim_zh="对任意 p 都有 PE[p + k] = M_k · PE[p]，其中 M_k 是由 2×2 旋转块组成的分块对角矩阵，只依赖 k，与 p 无关。",
    topic="absolute",
    params=(
        Param(
            "dim",
            "int",
            16,
            min=2,
            max=4096,
            even=True,
            help="model dimension d (even)",
            help_zh="模型维度 d（偶数）",
        ),
        Param("k", "int", 3, min=-100_000, max=100_000, help="shift k", help_zh="平移量 k"),
        Param(
            "seq_len",
            "int",
            64,
            min=1,
            max=100_000,
            help="positions p checked",
            help_zh="检查的位置 p 的个数",
        ),
        BASE,
    ),
    values=(
        Value(
            "max_error",
            "largest |M_k · PE[p] − PE[p + k]| over positions p",
            "abs error",
            meaning_zh="所有位置 p 上 |M_k · PE[p] − PE[p + k]| 的最大值",
        ),
    ),
    # PE[p], PE[p + k] and M_k·PE[p] (positions start at an offset, so k costs nothing), plus the dense
    # M_k, its textbook copy and the M_1, M_(k+1) used by the composition check
    memory_bytes=lambda dim, seq_len, **_: 8 * seq_len * dim * 3 + 8 * dim * dim * 4,
)
def _run_sinusoidal_linearity(ctx: DemoContext, dim: int, k: int, seq_len: int, base: float) -> None:
    import torch

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe, sinusoidal_shift, sinusoidal_shift_np

    dt = torch_dtype(ctx)
    pe_p = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=dt)  # PE[p], p = 0 .. L-1
    pe_pk = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=dt, offset=k)  # PE[p + k]
    m_k = sinusoidal_shift(k, dim, base=base, device=ctx.device, dtype=dt)
    shifted = pe_p @ m_k.T  # row p: M_k · PE[p]
    per_p = (shifted - pe_pk).abs().amax(dim=-1)
    max_error = float(per_p.max())
    ctx.check(
        f"PE[p {'+' if k >= 0 else '−'} {abs(k)}] = M_{k} · PE[p] for all {seq_len} positions p "
        "(one matrix for every p)",
        max_error,
        1e-5,
        zh=f"对全部 {seq_len} 个位置 p 都有 PE[p {'+' if k >= 0 else '−'} {abs(k)}] = M_{k} · PE[p]"
        "（所有 p 共用一个矩阵）",
    )
    ctx.value("max_error", max_error)

    textbook = sinusoidal_shift_np(k, dim, base=base)
    ctx.check(
        "fast M_k matches the textbook float64 matrix",
        max_abs_diff(m_k, textbook),
        1e-6,
        zh="快速实现的 M_k 与教科书 float64 矩阵一致",
    )
    # M_k is block-diagonal, so its leading n×n block (n even) is itself a shift matrix: check dense
    # products there to keep large d cheap
    n = min(dim, 512)
    where = "" if n == dim else f" (first {n} dims)"
    where_zh = "" if n == dim else f"（前 {n} 维）"
    m_sub = m_k[:n, :n]
    eye = torch.eye(n, device=ctx.device, dtype=dt)
    ctx.check(
        f"M_k is orthogonal (M_k · M_kᵀ = I): it only rotates{where}",
        max_abs_diff(m_sub @ m_sub.T, eye),
        1e-5,
        zh=f"M_k 是正交矩阵（M_k · M_kᵀ = I）：它只做旋转{where_zh}",
    )
    m_1 = sinusoidal_shift(1, dim, base=base, device=ctx.device, dtype=dt)[:n, :n]
    m_k1 = sinusoidal_shift(k + 1, dim, base=base, device=ctx.device, dtype=dt)[:n, :n]
    ctx.check(
        f"shifts compose: M_1 · M_k = M_(k+1){where}",
        max_abs_diff(m_1 @ m_sub, m_k1),
        1e-5,
        zh=f"平移可以复合：M_1 · M_k = M_(k+1){where_zh}",
    )

    omega = sinusoidal_frequencies_np(dim, base=base)
    pairs = sample_indices(dim // 2, 8)
    rows = []
    for i in pairs:
        angle = omega[i] * k
        rows.append([i, omega[i], -angle, math.cos(angle), math.sin(angle)])
    ctx.table(
        f"2×2 blocks of M_{k}: a rotation by −ωᵢ·k on (sin, cos) of pair i",
        ["pair i", "ωᵢ", "rotation angle −ωᵢ·k (rad)", "cos ωᵢ·k", "sin ωᵢ·k"],
        rows,
        title_zh=f"M_{k} 的 2×2 块：对第 i 对 (sin, cos) 旋转 −ωᵢ·k",
        columns_zh=["第 i 对", "ωᵢ", "旋转角 −ωᵢ·k（弧度）", "cos ωᵢ·k", "sin ωᵢ·k"],
    )
    shown = sample_indices(seq_len, 6)
    ctx.table(
        "The same matrix works at every position",
        ["p", "p + k", "max |PE[p+k] − M_k·PE[p]|"],
        [[p, p + k, float(per_p[p])] for p in shown],
        title_zh="同一个矩阵在每个位置都适用",
        columns_zh=["p", "p + k", "max |PE[p+k] − M_k·PE[p]|"],
    )
    ctx.matrix(
        f"M_{k} (first {min(dim, MAX_MATRIX_SIDE)} dims)",
        m_k[:MAX_MATRIX_SIDE, :MAX_MATRIX_SIDE].cpu(),
        "output dim",
        "input dim",
        title_zh=f"M_{k}（前 {min(dim, MAX_MATRIX_SIDE)} 维）",
        row_label_zh="输出维",
        col_label_zh="输入维",
    )
    ctx.matrix(
        f"PE table: positions 0..{min(seq_len, MAX_MATRIX_SIDE) - 1} × dims",
        pe_p[:MAX_MATRIX_SIDE, :MAX_MATRIX_SIDE].cpu(),
        "position p",
        "dim",
        title_zh=f"PE 表：位置 0..{min(seq_len, MAX_MATRIX_SIDE) - 1} × 维度",
        row_label_zh="位置 p",
        col_label_zh="维",
    )
    ctx.note(
        "Each (sin, cos) pair turns by −ωᵢ·k: the pair is ordered (sin, cos), so the usual "
        "[[cos, −sin], [sin, cos]] appears transposed.",
        zh="每对 (sin, cos) 转过 −ωᵢ·k：因为这一对的顺序是 (sin, cos)，常见的 [[cos, −sin], [sin, cos]] 在这里是转置的。",
    )
    ctx.note(
        "Because M_k does not depend on p, a linear layer can learn 'look k tokens back' once for all positions.",
        zh="因为 M_k 与 p 无关，一个线性层只需学一次“往回看 k 个 token”，就对所有位置都适用。",
    )


@register_demo(
    name="sinusoidal-wavelengths",
    title="Sinusoidal wavelengths form a geometric progression",
    claim="Pair i has wavelength 2π·base^(2i/d): from 2π for the first pair up to nearly 2π·base for the last.",
    title_zh="正弦位置编码的波长构成等比数列",
    claim_zh="第 i 对的波长为 2π·base^(2i/d)：从第一对的 2π 一直增长到最后一对的接近 2π·base。",
    topic="absolute",
    params=(
        Param(
            "dim",
            "int",
            512,
            min=2,
            max=65536,
            even=True,
            help="model dimension d (even)",
            help_zh="模型维度 d（偶数）",
        ),
        BASE,
        Param(
            "pair",
            "int",
            0,
            min=0,
            max=32767,
            help="sin/cos pair i for pair_wavelength (below dim/2)",
            help_zh="pair_wavelength 所用的 sin/cos 对 i（小于 dim/2）",
        ),
    ),
    values=(
        Value(
            "min_wavelength",
            "shortest wavelength, pair 0: 2π",
            "tokens",
            meaning_zh="最短波长（第 0 对）：2π",
        ),
        Value(
            "max_wavelength",
            "longest wavelength, 2π·base^((d−2)/d)",
            "tokens",
            meaning_zh="最长波长 2π·base^((d−2)/d)",
        ),
        Value(
            "ratio",
            "max_wavelength / min_wavelength",
            "ratio",
            meaning_zh="最长与最短波长之比 max_wavelength / min_wavelength",
        ),
        Value(
            "t2t_max_wavelength",
            "longest wavelength with tensor2tensor's frequencies",
            "tokens",
            meaning_zh="使用 tensor2tensor 频率时的最长波长",
        ),
        Value("pair_wavelength", "wavelength 2π/ωᵢ of pair i", "tokens", meaning_zh="第 i 对的波长 2π/ωᵢ"),
    ),
    # float64 [64, dim] PE table and its sin(2πp/λ) reference, with temporaries
    memory_bytes=lambda dim, **_: 8 * dim * (4 + 64 * 4),
)
def _run_sinusoidal_wavelengths(ctx: DemoContext, dim: int, base: float, pair: int = 0) -> None:
    import numpy as np
    import torch

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe, sinusoidal_wavelengths

    wl = sinusoidal_wavelengths(dim, base=base)
    if pair >= dim // 2:
        raise ParamError(f"parameter 'pair' must be below dim/2 = {dim // 2}, got {pair}")
    ctx.value("pair_wavelength", float(wl[pair]))
    wl_t2t = sinusoidal_wavelengths(dim, base=base, frequencies="tensor2tensor")
    half = dim // 2
    min_wl, max_wl = float(wl.min()), float(wl.max())
    expected_max = 2 * math.pi * base ** ((dim - 2) / dim)
    ctx.check(
        "shortest wavelength is 2π (pair 0, ω₀ = 1)",
        abs(min_wl - 2 * math.pi),
        1e-12,
        zh="最短波长是 2π（第 0 对，ω₀ = 1）",
    )
    ctx.check(
        "longest wavelength is 2π·base^((d−2)/d)",
        abs(max_wl - expected_max) / expected_max,
        1e-12,
        zh="最长波长是 2π·base^((d−2)/d)",
    )
    if half > 1:
        ratios = wl[1:] / wl[:-1]
        step = base ** (2 / dim)
        ctx.check(
            f"consecutive wavelengths grow by the constant factor base^(2/d) = {step:.6g} (geometric)",
            float(np.abs(ratios / step - 1).max()),
            1e-12,
            zh=f"相邻波长按固定倍数 base^(2/d) = {step:.6g} 增长（等比数列）",
        )
    # the table's columns really have these periods: column 2i is sin(2π·p / λ_i)
    n_pos = 64
    pe = sinusoidal_pe(
        n_pos,
        dim,
        base=base,
        device=ctx.device,
        dtype=None if ctx.device.startswith("mps") else torch.float64,
    )
    p = np.arange(n_pos, dtype=np.float64)[:, None]
    expected = np.sin(2 * math.pi * p / wl[None, :])
    ctx.check(
        "column 2i of the PE table is sin(2π·p / λᵢ)",
        max_abs_diff(pe[:, 0::2], expected),
        1e-6,
        zh="PE 表的第 2i 列是 sin(2π·p / λᵢ)",
    )
    ratio = max_wl / min_wl
    ctx.value("min_wavelength", min_wl)
    ctx.value("max_wavelength", max_wl)
    ctx.value("ratio", ratio)
    ctx.value("t2t_max_wavelength", float(wl_t2t.max()))

    omega = sinusoidal_frequencies_np(dim, base=base)
    omega_t2t = sinusoidal_frequencies_np(dim, base=base, frequencies="tensor2tensor")
    shown = sorted({0, 1, 2, half // 4, half // 2, half - 2, half - 1} & set(range(half)))
    ctx.table(
        "Wavelength per sin/cos pair",
        ["pair i", "dims", "ωᵢ", "λᵢ = 2π/ωᵢ", "λᵢ / 2π", "λᵢ (tensor2tensor rule)"],
        [[i, f"{2 * i}, {2 * i + 1}", omega[i], wl[i], wl[i] / (2 * math.pi), wl_t2t[i]] for i in shown],
        title_zh="每对 sin/cos 的波长",
        columns_zh=["第 i 对", "维", "ωᵢ", "λᵢ = 2π/ωᵢ", "λᵢ / 2π", "λᵢ（tensor2tensor 规则）"],
    )
    idx = sample_indices(half, MAX_SERIES_POINTS)
    ctx.series(
        "Wavelength per pair (log10): a straight line, so a geometric progression",
        [float(i) for i in idx],
        {
            "paper: log10 λᵢ": [math.log10(wl[i]) for i in idx],
            "tensor2tensor: log10 λᵢ": [math.log10(wl_t2t[i]) for i in idx],
        },
        "pair i",
        "log10 wavelength (positions)",
        title_zh="每一对的波长（log10）：一条直线，即等比数列",
    )
    ctx.series(
        "Wavelength per pair",
        [float(i) for i in idx],
        {"λᵢ": [float(wl[i]) for i in idx]},
        "pair i",
        "wavelength (positions)",
        title_zh="每一对的波长",
    )
    rel = float(np.abs(omega_t2t / omega - 1).max())
    ctx.note(
        f"tensor2tensor/fairseq use ωᵢ = base^(−i/(d/2−1)), ending at exactly 2π·base = {2 * math.pi * base:.6g}; "
        f"the paper's rule ends at {max_wl:.6g}. Largest relative frequency difference at d={dim}: {rel:.2%}.",
        zh=f"tensor2tensor/fairseq 使用 ωᵢ = base^(−i/(d/2−1))，最后恰好是 2π·base = {2 * math.pi * base:.6g}；"
        f"论文的规则止于 {max_wl:.6g}。d={dim} 时频率的最大相对差为 {rel:.2%}。",
    )
    ctx.note(
        "Short wavelengths resolve neighbouring positions; long ones change slowly and separate far-apart "
        "positions. The longest wavelength is not a hard context limit.",
        zh="短波长区分相邻位置；长波长变化缓慢，用来区分相距很远的位置。最长波长并不是上下文长度的硬上限。",
    )


_DOT_BLOCK_ROWS = 256


@register_demo(
    name="sinusoidal-dot",
    title="PE[p]·PE[p + k] depends on the distance k only",
    claim="PE[p]·PE[p + k] = Σ_i cos(ω_i k): the same for every p, symmetric in k, and equal to d/2 at k = 0.",
    title_zh="PE[p]·PE[p + k] 只取决于距离 k",
    claim_zh="PE[p]·PE[p + k] = Σ_i cos(ω_i k)：对每个 p 都相同，关于 k 对称，且在 k = 0 时等于 d/2。",
    topic="absolute",
    params=(
        Param(
            "dim",
            "int",
            128,
            min=2,
            max=65536,
            even=True,
            help="model dimension d (even)",
            help_zh="模型维度 d（偶数）",
        ),
        Param("seq_len", "int", 64, min=2, max=100_000, help="positions", help_zh="位置数"),
        BASE,
    ),
    values=(
        Value(
            "max_error",
            "largest |PE[p]·PE[p+k] − Σᵢ cos(ωᵢ·k)| over p and k",
            "abs error",
            meaning_zh="所有 p、k 上 |PE[p]·PE[p+k] − Σᵢ cos(ωᵢ·k)| 的最大值",
        ),
        Value("dot_at_0", "PE[p]·PE[p], d/2", "dot product", meaning_zh="PE[p]·PE[p]，等于 d/2"),
        Value(
            "symmetry_error",
            "largest |PE[p]·PE[p+k] − PE[p]·PE[p−k]| (0: left and right look alike)",
            "abs error",
            meaning_zh="|PE[p]·PE[p+k] − PE[p]·PE[p−k]| 的最大值（为 0：分不出左右）",
        ),
        Value(
            "rise_count",
            "offsets k ≥ 0 where the dot product rises instead of falling",
            "count",
            meaning_zh="点积上升而不是下降的偏移 k ≥ 0 的个数",
        ),
        Value(
            "is_monotone",
            "1 when the dot product never rises with the offset, else 0",
            "0/1",
            meaning_zh="点积随偏移从不上升时为 1，否则为 0",
        ),
    ),
    # the PE table (built through float64 angles, sin and cos) and Σ cos(ω k) terms, the Gram matrix (float32, then float64) and one row block
    memory_bytes=lambda dim, seq_len, **_: (
        40 * seq_len * dim + 16 * seq_len * seq_len + 32 * _DOT_BLOCK_ROWS * seq_len
    ),
)
def _run_sinusoidal_dot(ctx: DemoContext, dim: int, seq_len: int, base: float) -> None:
    import numpy as np

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe

    pe = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=torch_dtype(ctx))
    gram = (pe @ pe.T).cpu().double().numpy()  # gram[p, q] = PE[p]·PE[q]
    omega = sinusoidal_frequencies_np(dim, base=base)
    ks = np.arange(-(seq_len - 1), seq_len)
    half_curve = np.cos(np.outer(np.arange(seq_len), omega)).sum(axis=1)  # Σ_i cos(ω_i k), k >= 0
    formula = np.concatenate([half_curve[:0:-1], half_curve])  # cos is even: f(−k) = f(k)
    # compare with the formula a block of rows at a time (a full [L, L] `expected` would triple the memory)
    max_error = 0.0
    columns = np.arange(seq_len)
    for start in range(0, seq_len, _DOT_BLOCK_ROWS):
        rows = np.arange(start, min(start + _DOT_BLOCK_ROWS, seq_len))
        expected = formula[columns[None, :] - rows[:, None] + seq_len - 1]  # Σ_i cos(ω_i (q − p))
        max_error = max(max_error, float(np.abs(gram[rows[0] : rows[-1] + 1] - expected).max()))
    tol = 2e-6 * dim
    ctx.check(
        "PE[p]·PE[p+k] = Σᵢ cos(ωᵢ·k) for every p (depends on k only)",
        max_error,
        tol,
        zh="对每个 p 都有 PE[p]·PE[p+k] = Σᵢ cos(ωᵢ·k)（只依赖 k）",
    )
    dot_at_0 = float(np.diag(gram).mean())
    ctx.check(
        f"PE[p]·PE[p] = d/2 = {dim // 2} (each pair has sin² + cos² = 1)",
        abs(dot_at_0 - dim / 2),
        tol,
        zh=f"PE[p]·PE[p] = d/2 = {dim // 2}（每一对都有 sin² + cos² = 1）",
    )
    symmetry_error = 0.0
    for k in range(1, (seq_len - 1) // 2 + 1):
        p = np.arange(k, seq_len - k)
        if p.size:
            symmetry_error = max(symmetry_error, float(np.abs(gram[p, p + k] - gram[p, p - k]).max()))
    ctx.check(
        "PE[p]·PE[p+k] = PE[p]·PE[p−k]: the dot product cannot tell left from right",
        symmetry_error,
        tol,
        zh="PE[p]·PE[p+k] = PE[p]·PE[p−k]：点积分不出左右",
    )
    ctx.value("max_error", max_error)
    ctx.value("dot_at_0", dot_at_0)
    ctx.value("symmetry_error", symmetry_error)

    measured_mean = np.array([np.diagonal(gram, k).mean() for k in ks])
    idx = sample_indices(len(ks), MAX_SERIES_POINTS)
    ctx.series(
        "PE[p]·PE[p+k] against the offset k",
        [float(ks[i]) for i in idx],
        {
            "Σ cos(ωᵢ k)": [float(formula[i]) for i in idx],
            "measured (mean over p)": [float(measured_mean[i]) for i in idx],
        },
        "offset k",
        "dot product",
        title_zh="PE[p]·PE[p+k] 随偏移 k 的变化",
    )
    shown = sorted({0, 1, 2, 4, 8, 16, 32, seq_len - 1} & set(range(seq_len)))
    offset_rows: list[list[Any]] = []
    for k in shown:
        diag = np.diagonal(gram, k)
        offset_rows.append([k, float(formula[k + seq_len - 1]), float(diag.min()), float(diag.max())])
    ctx.table(
        "Dot product by offset",
        ["k", "Σ cos(ωᵢ k)", "min over p", "max over p"],
        offset_rows,
        title_zh="各偏移下的点积",
        columns_zh=["k", "Σ cos(ωᵢ k)", "对 p 取最小", "对 p 取最大"],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    ctx.matrix(
        f"PE[p]·PE[q] for p, q < {side}: constant along diagonals (Toeplitz)",
        gram[:side, :side],
        "p",
        "q",
        title_zh=f"p, q < {side} 时的 PE[p]·PE[q]：沿对角线为常数（Toeplitz）",
    )
    positive = formula[seq_len - 1 :]
    rises = int(np.sum(np.diff(positive) > 1e-9))
    ctx.value("rise_count", rises)
    ctx.value("is_monotone", float(rises == 0))
    ctx.note(
        f"The curve falls from d/2 but is not monotone: over k = 0..{seq_len - 1} it rises {rises} times. "
        "And this is PE·PE only; inside attention W_Q and W_K sit in between and can undo the pattern.",
        zh=f"曲线从 d/2 开始下降但不单调：在 k = 0..{seq_len - 1} 上它回升了 {rises} 次。"
        "而且这只是 PE·PE；在注意力里中间还隔着 W_Q 和 W_K，它们可以抹掉这个规律。",
    )
