"""RoPE demos: relativity, norm and long-term decay (layouts and forms: `rope_layout_demos.py`)."""

from __future__ import annotations

from ._common import (
    MAX_SERIES_POINTS,
    angle_tol,
    exact_dtype,
    f32_bytes,
    f64_bytes,
    randn,
    round6,
    sample_indices,
)
from .base import DemoContext, Param, ParamError, Value
from .registry import register_demo

DIM = Param(
    "dim", "int", 8, min=2, max=8192, even=True, help="head dimension d (even)", help_zh="头维度 d（偶数）"
)
BASE = Param(
    "base",
    "float",
    10000.0,
    min=2.0,
    max=1e9,
    help="RoPE base (θ_i = base^(-2i/d))",
    help_zh="RoPE 的 base（θ_i = base^(-2i/d)）",
)
SEED = Param(
    "seed", "int", 0, min=0, max=2**31 - 1, help="random seed for q and k", help_zh="q 和 k 的随机种子"
)

# rope-decay works through the distances in blocks of about this many (distance, pair) entries
_DECAY_BLOCK = 1 << 19


def _decay_rows_per_block(dim: int) -> int:
    return max(1, _DECAY_BLOCK // (dim // 2))


def _pair_values(ctx: DemoContext, dim: int, m: int, n: int, base: float, pair: int) -> None:
    """One frequency pair on its own: its angle m·θᵢ, and the score of a unit vector in that pair
    rotated to m (query) and n (key), which is cos((m − n)·θᵢ) whatever m and n are."""
    import math

    import numpy as np

    from ..rope import apply_rope_np

    if pair >= dim // 2:
        raise ParamError(f"parameter 'pair' must be below dim/2 = {dim // 2}, got {pair}")
    theta = base ** (-2.0 * pair / dim)
    unit = np.zeros((1, dim))
    unit[0, pair] = 1.0  # the first coordinate of pair i in the half layout
    unit_score = float((apply_rope_np(unit, [m], base=base) @ apply_rope_np(unit, [n], base=base).T).item())
    ctx.check(
        f"pair {pair} alone: ⟨R(e, m), R(e, n)⟩ = cos((m − n)·θ_{pair})",
        abs(unit_score - math.cos((m - n) * theta)),
        1e-9,
        zh=f"单看第 {pair} 对：⟨R(e, m), R(e, n)⟩ = cos((m − n)·θ_{pair})",
    )
    ctx.value("pair_angle", m * theta)
    ctx.value("pair_unit_score", unit_score)


@register_demo(
    name="rope-relativity",
    title="RoPE scores depend only on m − n",
    claim="⟨R(q, m), R(k, n)⟩ equals ⟨R(q, m − n), k⟩, so every (m, n) pair with the same offset gets the same score.",
    title_zh="RoPE 的注意力分数只取决于 m − n",
    claim_zh="⟨R(q, m), R(k, n)⟩ 等于 ⟨R(q, m − n), k⟩，因此相对位置相同的每一对 (m, n) 都得到相同的分数。",
    topic="rope",
    params=(
        DIM,
        Param("m", "int", 5, min=0, max=1_000_000, help="query position m", help_zh="查询位置 m"),
        Param("n", "int", 2, min=0, max=1_000_000, help="key position n", help_zh="键位置 n"),
        BASE,
        SEED,
        Param(
            "pair",
            "int",
            0,
            min=0,
            max=4095,
            help="frequency pair i for pair_angle (below dim/2)",
            help_zh="pair_angle 所用的频率对 i（小于 dim/2）",
        ),
    ),
    values=(
        Value(
            "score",
            "⟨R(q, m), R(k, n)⟩ at the given m and n",
            "score",
            meaning_zh="给定 m、n 时的 ⟨R(q, m), R(k, n)⟩",
        ),
        Value(
            "relative_score",
            "⟨R(q, m − n), k⟩: the same score from the offset alone",
            "score",
            meaning_zh="⟨R(q, m − n), k⟩：只用偏移算出的同一分数",
        ),
        Value(
            "max_error",
            "largest |score − relative_score| over the rows with offset m − n",
            "abs error",
            meaning_zh="偏移为 m − n 的各行上 |score − relative_score| 的最大值",
        ),
        Value(
            "wrong_sign_score",
            "⟨q, R(k, m − n)⟩: the rotation moved to the key with the wrong sign",
            "score",
            meaning_zh="⟨q, R(k, m − n)⟩：把旋转移到键上却用错符号",
        ),
        Value(
            "pair_angle",
            "angle m·θᵢ of pair i at position m",
            "rad",
            meaning_zh="第 i 对在位置 m 处的角度 m·θᵢ",
        ),
        Value(
            "pair_unit_score",
            "score of a unit vector in pair i at m and n, cos((m − n)·θᵢ)",
            "score",
            meaning_zh="第 i 对中的单位向量在 m 和 n 处的分数 cos((m − n)·θᵢ)",
        ),
    ),
    # the numpy textbook check builds a dense [d, d] float64 rotation matrix (one at a time)
    memory_bytes=lambda dim, **_: 10 * dim * dim + f64_bytes(32, dim, 8),
)
def _run_rope_relativity(
    ctx: DemoContext, dim: int, m: int, n: int, base: float, seed: int, pair: int = 0
) -> None:
    import torch

    from ..rope import apply_rope, apply_rope_np

    dtype = exact_dtype(ctx)
    q64, k64 = randn(seed, dim), randn(seed + 1, dim)
    q, k = q64.to(ctx.device, dtype), k64.to(ctx.device, dtype)
    shifts = [0, 1, 10, 100, 1000]
    pairs = [(m + s, n + s) for s in shifts]
    if min(m, n) >= 1:  # also shift down to the smallest non-negative pair
        pairs.insert(1, (m - min(m, n), n - min(m, n)))
    qs = q.expand(len(pairs), dim)
    ks = k.expand(len(pairs), dim)
    q_rot = apply_rope(qs, torch.tensor([a for a, _ in pairs], device=ctx.device))
    k_rot = apply_rope(ks, torch.tensor([b for _, b in pairs], device=ctx.device))
    scores = (q_rot * k_rot).sum(-1).double().cpu()
    relative = float((apply_rope(q[None], [m - n]) * k).sum())  # <R(q, m-n), k>
    score = float(scores[0])

    scale = float(q64.norm() * k64.norm())
    max_pos = max(max(a, b) for a, b in pairs)
    tol = angle_tol(ctx.dtype, max_pos, scale)
    err_offset = float((scores - relative).abs().max())
    ctx.check(
        "⟨R(q,m), R(k,n)⟩ = ⟨R(q,m−n), k⟩ for every row of the table",
        err_offset,
        tol,
        zh="表中每一行都有 ⟨R(q,m), R(k,n)⟩ = ⟨R(q,m−n), k⟩",
    )
    ctx.check(
        "every pair with the same offset m − n gets the same score",
        float(scores.max() - scores.min()),
        tol,
        zh="偏移 m − n 相同的每一对都得到相同的分数",
    )
    # the numpy textbook (explicit rotation matrices, float64) agrees with the fast torch form
    score_np = float((apply_rope_np(q64.numpy()[None], [m]) @ apply_rope_np(k64.numpy()[None], [n]).T).item())
    ctx.check(
        "the fast torch form matches the numpy rotation-matrix form",
        abs(score - score_np),
        angle_tol(ctx.dtype, max(m, n), scale),
        zh="快速 torch 实现与 numpy 旋转矩阵实现一致",
    )
    rows = [[a, b, a - b, round6(sc)] for (a, b), sc in zip(pairs, scores.tolist())]
    ctx.table(
        "Same offset m − n, same score",
        ["m", "n", "m − n", "score"],
        rows,
        title_zh="偏移 m − n 相同，分数相同",
        columns_zh=["m", "n", "m − n", "分数"],
    )

    # contrast: moving only the key changes the offset and the score
    others = [n + delta for delta in (1, 2, 5, 10) if n + delta >= 0]
    k_other = apply_rope(k.expand(len(others), dim), others)
    q_m = apply_rope(q[None], [m])
    other_scores = (q_m * k_other).sum(-1).double().cpu().tolist()
    ctx.table(
        "Different offsets, different scores",
        ["m", "n", "m − n", "score"],
        [[m, b, m - b, round6(sc)] for b, sc in zip(others, other_scores)],
        title_zh="偏移不同，分数不同",
        columns_zh=["m", "n", "m − n", "分数"],
    )

    # the seeds' layout: offsets 0, +δ and −δ at several absolute positions, with every side of the identity
    delta = m - n
    seeds_pairs = [
        (start + max(offset, 0), start + max(-offset, 0))
        for offset in dict.fromkeys((0, delta, -delta))
        for start in (0, 4, 13)
    ]
    rows_q = q.expand(len(seeds_pairs), dim)
    rows_k = k.expand(len(seeds_pairs), dim)
    m_pos = [a for a, _ in seeds_pairs]
    n_pos = [b for _, b in seeds_pairs]
    m_minus_n = [a - b for a, b in seeds_pairs]
    n_minus_m = [b - a for a, b in seeds_pairs]
    both = (apply_rope(rows_q, m_pos) * apply_rope(rows_k, n_pos)).sum(-1)  # ⟨R(q,m), R(k,n)⟩
    on_query = (apply_rope(rows_q, m_minus_n) * rows_k).sum(-1)  # ⟨R(q,m−n), k⟩
    on_key = (rows_q * apply_rope(rows_k, n_minus_m)).sum(-1)  # ⟨q, R(k,n−m)⟩
    wrong_sign = (rows_q * apply_rope(rows_k, m_minus_n)).sum(-1)  # ⟨q, R(k,m−n)⟩: the sign slip
    seeds_tol = angle_tol(ctx.dtype, 13 + abs(delta), scale)
    ctx.check(
        "⟨R(q,m), R(k,n)⟩ = ⟨q, R(k,n−m)⟩: moved onto the key, the rotation changes sign",
        float(max((both - on_key).abs().max(), (both - on_query).abs().max())),
        seeds_tol,
        zh="⟨R(q,m), R(k,n)⟩ = ⟨q, R(k,n−m)⟩：把旋转移到键上时，角度要变号",
    )
    ctx.table(
        "Offsets 0, +(m − n) and −(m − n) at several positions (the seeds' layout)",
        ["m", "n", "m − n", "⟨R(q,m), R(k,n)⟩", "⟨R(q,m−n), k⟩", "⟨q, R(k,n−m)⟩", "⟨q, R(k,m−n)⟩"],
        [
            [a, b, a - b, round6(x), round6(y), round6(z), round6(w)]
            for (a, b), x, y, z, w in zip(
                seeds_pairs, both.tolist(), on_query.tolist(), on_key.tolist(), wrong_sign.tolist()
            )
        ],
        title_zh="在几个位置上的偏移 0、+(m − n) 与 −(m − n)（种子题的布局）",
        columns_zh=["m", "n", "m − n", "⟨R(q,m), R(k,n)⟩", "⟨R(q,m−n), k⟩", "⟨q, R(k,n−m)⟩", "⟨q, R(k,m−n)⟩"],
    )
    ctx.value("score", score)
    ctx.value("relative_score", relative)
    ctx.value("max_error", err_offset)
    ctx.value("wrong_sign_score", float(wrong_sign[3 if delta else 0]))  # first row at offset m − n
    _pair_values(ctx, dim, m, n, base, pair)
    ctx.note(
        f"q and k are seeded normals (seed {seed}); computed in {ctx.dtype}, half layout.",
        zh=f"q 和 k 是固定种子的正态随机向量（种子 {seed}）；用 {ctx.dtype} 计算，half 布局。",
    )
    ctx.note(
        "The last column rotates the key by m − n instead of n − m: that equals the score at offset "
        "n − m, not m − n (a common sign slip). Only the offset matters, but its sign does too.",
        zh="最后一列把键旋转了 m − n 而不是 n − m：它等于偏移 n − m 处的分数，而不是 m − n 处的"
        "（一个常见的符号错误）。只有偏移重要，但偏移的符号同样重要。",
    )


@register_demo(
    name="rope-norm",
    title="RoPE preserves vector norms",
    claim="Each 2-D pair is rotated, never stretched, so ‖R(x, m)‖ = ‖x‖ at every position.",
    title_zh="RoPE 保持向量范数不变",
    claim_zh="每个二维分量对只被旋转、不被拉伸，所以在任何位置都有 ‖R(x, m)‖ = ‖x‖。",
    topic="rope",
    params=(
        Param(
            "dim",
            "int",
            64,
            min=2,
            max=8192,
            even=True,
            help="head dimension d (even)",
            help_zh="头维度 d（偶数）",
        ),
        Param("seq_len", "int", 128, min=1, max=1_000_000, help="number of positions", help_zh="位置数"),
        BASE,
        SEED,
    ),
    values=(
        Value(
            "max_norm_error",
            "largest |‖R(x, m)‖ − ‖x‖| / ‖x‖ over positions and both layouts",
            "rel error",
            meaning_zh="所有位置和两种布局上 |‖R(x, m)‖ − ‖x‖| / ‖x‖ 的最大值",
        ),
    ),
    # x, two rotated copies, the cached half-width cos/sin, the complex table and the
    # full-width half-layout tables, and temporaries: about 9 float32 copies of x
    memory_bytes=lambda dim, seq_len, **_: f32_bytes(seq_len, dim, 9) + 256 * seq_len,
)
def _run_rope_norm(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    import numpy as np
    import torch

    from ..rope import apply_rope, rope_inv_freq_np, rope_rotation_matrix_np

    dtype = getattr(torch, ctx.dtype)  # float32: the precision models run in
    x = randn(seed, seq_len, dim, dtype=dtype).to(ctx.device)
    norms = x.norm(dim=-1)
    worst = 0.0
    per_position = None
    for layout in ("half", "interleaved"):
        y = apply_rope(x, base=base, layout=layout)
        rel = ((y.norm(dim=-1) - norms).abs() / norms).double().cpu()
        worst = max(worst, float(rel.max()))
        if per_position is None:
            per_position = rel
    assert per_position is not None  # the loop ran: the half layout's errors
    ctx.check(
        "‖R(x, m)‖ = ‖x‖ at every position, both layouts (relative error)",
        worst,
        1e-5,
        zh="两种布局下每个位置都有 ‖R(x, m)‖ = ‖x‖（相对误差）",
    )
    last = max(seq_len - 1, 0)
    if dim <= 256:
        rot = rope_rotation_matrix_np(last, dim, base)
        ortho = float(np.abs(rot.T @ rot - np.eye(dim)).max())
    else:  # a d x d matrix would be large: check each 2x2 block, cos² + sin² = 1
        angle = last * rope_inv_freq_np(dim, base=base)
        ortho = float(np.abs(np.cos(angle) ** 2 + np.sin(angle) ** 2 - 1).max())
    ctx.check(
        "the rotation matrix is orthogonal: RᵀR = I (float64)",
        ortho,
        1e-12,
        zh="旋转矩阵是正交的：RᵀR = I（float64）",
    )
    y_half = apply_rope(x, base=base)
    picks = sorted({0, 1, seq_len // 2, seq_len - 1} & set(range(seq_len)))
    ctx.table(
        "Norms before and after rotation",
        ["position", "‖x‖", "‖R(x, m)‖", "relative error"],
        [
            [p, round6(norms[p]), round6(y_half[p].norm()), float(f"{float(per_position[p]):.3g}")]
            for p in picks
        ],
        title_zh="旋转前后的模长",
        columns_zh=["位置", "‖x‖", "‖R(x, m)‖", "相对误差"],
    )
    shown = sample_indices(seq_len, MAX_SERIES_POINTS)
    ctx.series(
        "Relative norm error per position (float32, half layout)",
        shown,
        {"|‖R(x,m)‖ − ‖x‖| / ‖x‖": per_position[shown].tolist()},
        x_label="position m",
        y_label="relative error",
        title_zh="每个位置的模长相对误差（float32，half 布局）",
    )
    ctx.value("max_norm_error", worst)


@register_demo(
    name="rope-decay",
    title="RoFormer's long-term decay bound",
    claim="The RoFormer bound (mean |S_j| over j) starts at (d/2 + 1)/2 at distance 0 and trends down, with oscillation, as the distance grows.",
    title_zh="RoFormer 的远程衰减上界",
    claim_zh="RoFormer 的上界（|S_j| 对 j 的平均）在距离 0 处等于 (d/2 + 1)/2，随距离增大呈振荡下降的趋势。",
    topic="rope",
    params=(
        Param(
            "dim",
            "int",
            128,
            min=4,
            max=8192,
            even=True,
            help="head dimension d (even)",
            help_zh="头维度 d（偶数）",
        ),
        BASE,
        Param(
            "max_distance",
            "int",
            250,
            min=1,
            max=20_000,
            help="largest relative distance plotted",
            help_zh="绘制的最大相对距离",
        ),
    ),
    values=(
        Value(
            "bound_at_0",
            "RoFormer's decay bound (mean |Sⱼ|) at distance 0, (d/2 + 1)/2",
            "bound",
            meaning_zh="RoFormer 衰减上界（|Sⱼ| 的平均）在距离 0 处的值 (d/2 + 1)/2",
        ),
        Value("bound_at_max", "the bound at max_distance", "bound", meaning_zh="max_distance 处的上界"),
        Value(
            "min_bound",
            "smallest bound over distances 0..max_distance",
            "bound",
            meaning_zh="距离 0..max_distance 上上界的最小值",
        ),
        Value(
            "is_monotone",
            "1 when the bound never rises up to max_distance, else 0",
            "0/1",
            meaning_zh="上界到 max_distance 为止从不回升时为 1，否则为 0",
        ),
        Value(
            "first_rise_distance",
            "first distance r where bound(r + 1) > bound(r) (−1 when it never rises)",
            "positions",
            meaning_zh="第一个满足 bound(r + 1) > bound(r) 的距离 r（从不回升时为 −1）",
        ),
    ),
    # one block of float64 phases and ones and complex128 rotations and partial sums (48 bytes
    # per (distance, pair) entry), torch's temporaries for |S_j| and heap slack (112 counted),
    # plus a few float64 curves over all distances
    memory_bytes=lambda dim, max_distance, **_: (
        112 * min(_decay_rows_per_block(dim), max_distance + 1) * (dim // 2) + f64_bytes(max_distance + 1, 8)
    ),
)
def _run_rope_decay(ctx: DemoContext, dim: int, base: float, max_distance: int) -> None:
    import torch

    from ..rope import rope_inv_freq

    dtype = exact_dtype(ctx)
    half = dim // 2
    theta = rope_inv_freq(dim, base=base, device=ctx.device, dtype=dtype)
    distance = torch.arange(max_distance + 1, device=ctx.device, dtype=dtype)

    # Abel summation: |Σ h_i e^{i r θ_i}| <= max_i |h_{i+1} − h_i| · Σ_j |S_j|  (h_{d/2} = 0)
    q = torch.view_as_complex(randn(0, half, 2))
    k = torch.view_as_complex(randn(1, half, 2))
    complex_dtype = torch.complex128 if dtype == torch.float64 else torch.complex64
    h = (q * k.conj()).to(ctx.device, complex_dtype)
    dh = torch.diff(torch.cat((h, h.new_zeros(1)))).abs().max()

    # Blocks of distances keep the temporaries bounded, and the block buffers are allocated once and
    # filled with out=: allocating and freeing them per block, between small long-lived tensors,
    # fragments glibc's heap (RSS then grows with the number of blocks).
    bound, actual, abel = (torch.empty_like(distance) for _ in range(3))
    rows_per_block = min(_decay_rows_per_block(dim), max_distance + 1)
    phase_buf = torch.empty(rows_per_block, half, device=ctx.device, dtype=dtype)  # also holds |S_j|
    ones = torch.ones_like(phase_buf)
    unit_buf = torch.empty(rows_per_block, half, device=ctx.device, dtype=complex_dtype)
    sums_buf = torch.empty_like(unit_buf)
    for start in range(0, max_distance + 1, rows_per_block):
        rows = slice(start, start + rows_per_block)
        n = len(distance[rows])
        phase, unit, sums = phase_buf[:n], unit_buf[:n], sums_buf[:n]
        torch.mul(distance[rows, None], theta, out=phase)  # (m − n) θ_k
        torch.polar(ones[:n], phase, out=unit)  # e^{i (m−n) θ_k}
        torch.cumsum(unit, dim=-1, out=sums)  # S_j = Σ_{k<j} e^{i(m−n)θ_k}, j = 1 .. d/2
        partial_abs = torch.abs(sums, out=phase)  # |S_j|
        torch.mean(partial_abs, dim=-1, out=bound[rows])  # (1 / (d/2)) Σ_j |S_j|, RoFormer fig. 2
        abel[rows] = dh * partial_abs.sum(-1)
        actual[rows] = torch.mul(unit, h, out=sums).sum(-1).abs()  # |Σ h_i e^{i r θ_i}|
    del phase_buf, ones, unit_buf, sums_buf
    slack = float((actual - abel).clamp(min=0).max())

    bound_cpu = bound.double().cpu()
    b0 = float(bound_cpu[0])
    expected0 = (half + 1) / 2
    ctx.check(
        "the bound at distance 0 is (d/2 + 1)/2",
        abs(b0 - expected0),
        1e-9 * expected0,
        zh="距离 0 处的上界是 (d/2 + 1)/2",
    )
    ctx.check(
        "|Σᵢ hᵢ e^(i(m−n)θᵢ)| never exceeds the Abel-summation bound",
        slack,
        1e-6 * float(abel.max()),
        zh="|Σᵢ hᵢ e^(i(m−n)θᵢ)| 从不超过 Abel 求和给出的上界",
    )
    ctx.check(
        "the bound never exceeds its value at distance 0 (|Sⱼ| ≤ j)",
        max(float(bound_cpu.max()) - b0, 0.0),
        1e-9 * expected0,
        zh="上界从不超过它在距离 0 处的值（|Sⱼ| ≤ j）",
    )
    diffs = bound_cpu[1:] - bound_cpu[:-1]
    monotone = bool((diffs <= 1e-12).all()) if max_distance >= 1 else True
    if max_distance >= 1:
        ctx.check_true(
            "the bound has dropped by the largest distance",
            float(bound_cpu[-1]) < b0,
            zh="到最大距离时上界已经下降",
        )
    # The first rise comes later for wider heads: by distance 0.78 · max(100, 1.5 d) at the latest
    # over d = 4..8192 and base = 2..1e9 (tests/posenc_ref/demos/test_demo_bounds.py checks the corners).
    oscillation_from = max(100, 3 * dim // 2)
    if max_distance >= oscillation_from:
        ctx.check_true(
            "the curve oscillates: it is not monotone", not monotone, zh="曲线有振荡：它不是单调的"
        )
    else:
        ctx.note(
            f"With max_distance < {oscillation_from} (max(100, 1.5·d)) the oscillation check is skipped: "
            "too few points, and for a wide head the first rise can come later than max_distance.",
            zh=f"max_distance < {oscillation_from}（max(100, 1.5·d)）时跳过振荡检查："
            "点太少，而且对宽的头来说，第一次回升可能出现在 max_distance 之后。",
        )
    marks = [r for r in (0, 1, 2, 5, 10, 25, 50, 100, 150, 200, 250, 500, 1000) if r <= max_distance]
    if max_distance not in marks:
        marks.append(max_distance)
    ctx.table(
        "Long-term decay bound",
        ["m − n", "mean |Sⱼ|", "bound / bound(0)"],
        [[r, round6(bound_cpu[r]), round6(bound_cpu[r] / b0)] for r in marks],
        title_zh="长程衰减上界",
        columns_zh=["m − n", "|Sⱼ| 的平均", "上界 / 上界(0)"],
    )
    normalized = (actual / (dh * half)).double().cpu()
    shown = sample_indices(max_distance + 1, MAX_SERIES_POINTS)  # every distance up to 511
    ctx.series(
        "RoFormer long-term decay (mean |Sⱼ| against relative distance)",
        [float(r) for r in shown],
        {
            "mean |S_j|": bound_cpu[shown].tolist(),  # a data key (tests read it)
            "|Σ h eⁱʳᶿ| / (d/2 · max|Δh|)": normalized[shown].tolist(),
        },
        x_label="relative distance m − n",
        y_label="relative upper bound",
        title_zh="RoFormer 的长程衰减（|Sⱼ| 的平均随相对距离的变化）",
    )
    ctx.value("bound_at_0", b0)
    ctx.value("bound_at_max", float(bound_cpu[-1]))
    ctx.value("min_bound", float(bound_cpu.min()))
    ctx.value("is_monotone", 1.0 if monotone else 0.0)
    rises = (diffs > 1e-12).nonzero()
    # first r where bound(r + 1) > bound(r): -1 when the curve never rises in range
    ctx.value("first_rise_distance", float(rises[0][0]) if len(rises) else -1.0)
    ctx.note(
        "RoFormer §3.4.3: the bound trends down with oscillation; it is not a monotone decay.",
        zh="RoFormer §3.4.3：上界在振荡中呈下降趋势；它不是单调衰减。",
    )
