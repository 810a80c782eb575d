"""RoPE demos: relativity, norm, decay, layouts, forms, precision, KV cache, multimodal sections."""

from __future__ import annotations

from . import register
from ._common import MAX_SERIES_POINTS, sample_indices
from .base import Demo, DemoContext, Param, ParamError

DIM = Param("dim", "int", 8, min=2, max=8192, even=True, help="head dimension d (even)")
BASE = Param("base", "float", 10000.0, min=2.0, max=1e9, help="RoPE base (θ_i = base^(-2i/d))")
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed for q and k")


def _f32(*sizes: int) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return 4 * n


def _f64(*sizes: int) -> int:
    return 2 * _f32(*sizes)


# rope-decay works through the distances in blocks of about this many (distance, pair) entries
_DECAY_BLOCK = 1 << 19


def _decay_rows_per_block(dim: int) -> int:
    return max(1, _DECAY_BLOCK // (dim // 2))


# ---------------------------------------------------------------------------------------------
# helpers (torch is imported inside functions only: listing demos must not import torch)
# ---------------------------------------------------------------------------------------------

_EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07}


def _exact_dtype(ctx: DemoContext):
    """float64 where the device has it (CPU, CUDA), float32 on MPS; recorded on ctx.dtype."""
    import torch

    name = "float32" if str(ctx.device).startswith("mps") else "float64"
    ctx.dtype = name
    return getattr(torch, name)


def _randn(seed: int, *shape: int, dtype=None):
    """Reproducible standard normals drawn on CPU (same numbers on every device), float64 by default."""
    import torch

    gen = torch.Generator().manual_seed(int(seed))
    return torch.randn(*shape, generator=gen, dtype=dtype or torch.float64)


def _angle_tol(dtype_name: str, max_position: float, scale: float) -> float:
    """Tolerance for comparing rotations at positions up to max_position: the angle m·θ carries a
    rounding error of about m·ε, so the tolerance grows with the position."""
    return 16.0 * _EPS[dtype_name] * (1.0 + float(max_position)) * max(scale, 1.0)


def _fmt(v: float) -> float:
    return float(f"{float(v):.6g}")


# ---------------------------------------------------------------------------------------------
# run functions
# ---------------------------------------------------------------------------------------------


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


def _run_rope_relativity(
    ctx: DemoContext, dim: int, m: int, n: int, base: float, seed: int, pair: int = 0
) -> None:
    import torch

    from ..rope import apply_rope, apply_rope_np

    dtype = _exact_dtype(ctx)
    q64, k64 = _randn(seed, dim), _randn(seed + 1, dim)
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
    tol = _angle_tol(ctx.dtype, max_pos, scale)
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
        _angle_tol(ctx.dtype, max(m, n), scale),
        zh="快速 torch 实现与 numpy 旋转矩阵实现一致",
    )
    rows = [[a, b, a - b, _fmt(sc)] for (a, b), sc in zip(pairs, scores.tolist())]
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
        [[m, b, m - b, _fmt(sc)] for b, sc in zip(others, other_scores)],
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
    seeds_tol = _angle_tol(ctx.dtype, 13 + abs(delta), scale)
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
            [a, b, a - b, _fmt(x), _fmt(y), _fmt(z), _fmt(w)]
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


def _run_rope_norm(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    import numpy as np
    import torch

    from ..rope import apply_rope, rope_inv_freq_np, rope_rotation_matrix_np

    dtype = getattr(torch, ctx.dtype)  # float32: the precision models run in
    x = _randn(seed, seq_len, dim, dtype=dtype).to(ctx.device)
    norms = x.norm(dim=-1)
    worst = 0.0
    per_position = None
    for layout in ("half", "interleaved"):
        y = apply_rope(x, base=base, layout=layout)
        rel = ((y.norm(dim=-1) - norms).abs() / norms).double().cpu()
        worst = max(worst, float(rel.max()))
        if per_position is None:
            per_position = rel
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
        [[p, _fmt(norms[p]), _fmt(y_half[p].norm()), float(f"{float(per_position[p]):.3g}")] for p in picks],
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


def _run_rope_decay(ctx: DemoContext, dim: int, base: float, max_distance: int) -> None:
    import torch

    from ..rope import rope_inv_freq

    dtype = _exact_dtype(ctx)
    half = dim // 2
    theta = rope_inv_freq(dim, base=base, device=ctx.device, dtype=dtype)
    distance = torch.arange(max_distance + 1, device=ctx.device, dtype=dtype)

    # Abel summation: |Σ h_i e^{i r θ_i}| <= max_i |h_{i+1} − h_i| · Σ_j |S_j|  (h_{d/2} = 0)
    q = torch.view_as_complex(_randn(0, half, 2))
    k = torch.view_as_complex(_randn(1, half, 2))
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
    # over d = 4..8192 and base = 2..1e9 (tests/test_hardening_demos.py checks the corners).
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
        [[r, _fmt(bound_cpu[r]), _fmt(bound_cpu[r] / b0)] for r in marks],
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


def _run_rope_layouts(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    import torch

    from ..rope import apply_rope, half_to_interleaved_permutation

    dtype = _exact_dtype(ctx)
    q = _randn(seed, seq_len, dim).to(ctx.device, dtype)  # Meta / interleaved channel order
    k = _randn(seed + 1, seq_len, dim).to(ctx.device, dtype)
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
    tol = _angle_tol(ctx.dtype, seq_len, float(q.abs().max()))
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

    dtype = _exact_dtype(ctx)
    x64 = _randn(seed, seq_len, dim)  # interleaved channel order throughout
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
    tol = _angle_tol(ctx.dtype, seq_len, float(x64.abs().max()))
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


_PRECISION_POSITIONS = (100, 4096, 32768, 131072)


def _run_rope_precision(ctx: DemoContext, dim: int, base: float) -> None:
    import numpy as np
    import torch

    from ..rope import rope_inv_freq, rope_inv_freq_np

    ctx.dtype = "float32"
    theta32 = rope_inv_freq(dim, base=base, device=ctx.device)  # float32, as HF / Meta / flash-attn
    theta64 = rope_inv_freq_np(dim, base=base)
    sweep = sorted(set([2**e for e in range(18)] + list(_PRECISION_POSITIONS)))
    pos32 = torch.tensor(sweep, dtype=torch.float32, device=ctx.device)
    angle32 = pos32[:, None] * theta32  # m · θ in float32
    cos32 = angle32.cos().double().cpu().numpy()
    sin32 = angle32.sin().double().cpu().numpy()
    angle64 = np.asarray(sweep, dtype=np.float64)[:, None] * theta64
    cos64, sin64 = np.cos(angle64), np.sin(angle64)
    err_cos = np.abs(cos32 - cos64).max(axis=1)
    err_sin = np.abs(sin32 - sin64).max(axis=1)
    err_angle = np.abs(angle32.double().cpu().numpy() - angle64).max(axis=1)
    cos64_as_32 = torch.from_numpy(cos64).float().double().numpy()  # the fix: cos in float64, then cast
    fixed = np.abs(cos64_as_32 - cos64).max(axis=1)
    row = {p: i for i, p in enumerate(sweep)}

    # float32 angle error <= m·θ_max·(rounding of θ and of the product) ≈ 2 m ε; cos is 1-Lipschitz
    eps32 = _EPS["float32"]
    limit = np.asarray(sweep) * float(theta64.max()) * 2 * eps32 + 2 * eps32
    ctx.check(  # the error is how far the cos error goes past its bound (0 when within it)
        "the float32 cos error stays within the m·θ·2ε rounding bound",
        float(np.clip(err_cos - limit, 0.0, None).max()),
        0.0,
        zh="float32 的 cos 误差不超过 m·θ·2ε 的舍入上界",
    )
    ctx.check(
        "computing cos in float64 and then casting keeps the error at float32 rounding",
        float(fixed.max()),
        1e-7,
        zh="先用 float64 算 cos 再转换，误差保持在 float32 的舍入水平",
    )
    if err_angle[row[131072]] > 1e-4:  # float32 angle rounding dominates cos rounding
        ctx.check_true(
            "the error grows with position: larger at 131072 than at 100",
            err_cos[row[131072]] > err_cos[row[100]],
            zh="误差随位置增大：131072 处比 100 处大",
        )
    else:
        ctx.note(
            "Every θᵢ·131072 happens to be almost exact in float32 here, so the error barely grows.",
            zh="这里每个 θᵢ·131072 在 float32 中恰好几乎是精确的，所以误差几乎不增长。",
        )
    ctx.table(
        "float32 angles against float64 (max over pairs)",
        ["position", "|Δcos|", "|Δsin|", "|Δangle| (rad)", "cos64 → float32"],
        [
            [
                p,
                float(f"{err_cos[row[p]]:.3g}"),
                float(f"{err_sin[row[p]]:.3g}"),
                float(f"{err_angle[row[p]]:.3g}"),
                float(f"{fixed[row[p]]:.3g}"),
            ]
            for p in _PRECISION_POSITIONS
        ],
        title_zh="float32 角度与 float64 的对比（对所有频率对取最大）",
        columns_zh=["位置", "|Δcos|", "|Δsin|", "|Δangle|（弧度）", "cos64 → float32"],
    )
    ctx.series(
        "cos error of float32 angles against position",
        [float(np.log2(p)) for p in sweep],
        {"float32 angle": err_cos.tolist(), "float64 cos cast to float32": fixed.tolist()},
        x_label="log2(position)",
        y_label="max |Δcos|",
        title_zh="float32 角度的 cos 误差随位置的变化",
    )
    for p in _PRECISION_POSITIONS:
        ctx.value(f"error_{p}", float(err_cos[row[p]]))
        ctx.value(f"sin_error_{p}", float(err_sin[row[p]]))
    ctx.note(
        "Casting a float64 angle to float32 does not help: near 131072 one float32 step is 1/64 rad. "
        "Compute cos/sin in float64 (or reduce the angle mod 2π first) and cast the result.",
        zh="把 float64 的角度转成 float32 并没有用：在 131072 附近，float32 的一个步长就是 1/64 弧度。"
        "应当用 float64 计算 cos/sin（或先把角度对 2π 取模），再转换结果。",
    )


def _run_rope_kv_cache(ctx: DemoContext, dim: int, prefix_len: int, new_tokens: int, seed: int) -> None:
    import torch

    from ..rope import apply_rope

    # float64 where the device has it: in float32 the rounding bound at position 100,000 is about a fifth
    # of the score scale, too close to tell a restart from rounding
    dtype = _exact_dtype(ctx)
    total = prefix_len + new_tokens
    q = _randn(seed, total, dim, dtype=dtype).to(ctx.device)
    k = _randn(seed + 1, total, dim, dtype=dtype).to(ctx.device)

    # full forward pass: every token at its true position (rows of the new tokens only)
    full = apply_rope(q)[prefix_len:] @ apply_rope(k).T  # [new, total]
    causal = torch.ones(new_tokens, total, dtype=torch.bool, device=ctx.device).tril(prefix_len)

    def decode(first_position: int) -> torch.Tensor:
        """Prefill a cache with the prompt, append the new tokens' keys, score the new queries."""
        cache = torch.empty(total, dim, dtype=dtype, device=ctx.device)  # a preallocated KV cache
        cache[:prefix_len] = apply_rope(k[:prefix_len])  # prefill: positions 0 .. prefix_len-1
        positions = torch.arange(first_position, first_position + new_tokens, device=ctx.device)
        cache[prefix_len:] = apply_rope(k[prefix_len:], positions)  # each new key at its own position
        scores = apply_rope(q[prefix_len:], positions) @ cache.T
        return ((scores - full).abs() * causal).amax(dim=-1)  # per new token, over keys it may see

    errors = decode(prefix_len).double().cpu()  # right: positions continue after the prefix
    restart_errors = decode(0).double().cpu()  # bug: positions restart at 0
    max_error, restart_error = float(errors.max()), float(restart_errors.max())
    scale = float(q.norm(dim=-1).max() * k.norm(dim=-1).max())
    tol = _angle_tol(ctx.dtype, total, scale)
    ctx.check(
        "decoding with the cache and positions prefix_len + t matches the full pass",
        max_error,
        tol,
        zh="使用缓存、位置取 prefix_len + t 解码，结果与完整前向一致",
    )
    if dim >= 4 and 10 * tol < 0.1 * scale:
        ctx.check_true(
            "restarting positions at 0 after the prefix changes the scores",
            restart_error > 10 * tol,
            zh="在前缀之后把位置从 0 重新开始会改变分数",
        )
    elif dim >= 4:
        ctx.note(
            f"At position {total} the {ctx.dtype} rounding bound ({tol:.3g}) is close to the score scale "
            f"({scale:.3g}), so a restart cannot be told from rounding; the restart check is skipped.",
            zh=f"在位置 {total}，{ctx.dtype} 的舍入上界（{tol:.3g}）接近分数的量级（{scale:.3g}），"
            "无法把重新开始与舍入误差区分开；跳过重启检查。",
        )
    else:
        ctx.note(
            "With one frequency (dim 2, θ = 1 rad) a restart shifts the angle by prefix_len rad, which can land "
            "close to a multiple of 2π; the restart check needs dim >= 4.",
            zh="只有一个频率时（dim 2，θ = 1 弧度），重新开始会让角度偏移 prefix_len 弧度，可能恰好接近 2π 的整数倍；"
            "重启检查需要 dim >= 4。",
        )
    rows = [
        [prefix_len + t, prefix_len + t, t, float(f"{float(errors[t]):.3g}"), _fmt(restart_errors[t])]
        for t in range(min(new_tokens, 32))
    ]
    ctx.table(
        "Decode steps: scores against the full forward pass",
        ["token", "position (right)", "position (restarted)", "max |Δscore| right", "max |Δscore| restarted"],
        rows,
        title_zh="解码步骤：与完整前向的分数对比",
        columns_zh=[
            "token",
            "位置（正确）",
            "位置（重新开始）",
            "max |Δscore|（正确）",
            "max |Δscore|（重新开始）",
        ],
    )
    ctx.series(
        "Score error per decoded token",
        list(range(prefix_len, total)),
        {"correct offset": errors.tolist(), "restarted at 0": restart_errors.tolist()},
        x_label="token index",
        y_label="max |Δscore|",
        title_zh="每个解码 token 的分数误差",
    )
    ctx.value("max_error", max_error)
    ctx.value("restart_error", restart_error)
    ctx.note(
        "RoPE rotates each token on its own, so appending the new tokens one at a time or all at once gives "
        "the same cache. Scores among the new tokens alone still match after a restart (only m − n matters); "
        "it is the scores against cached keys that break.",
        zh="RoPE 对每个 token 单独旋转，所以新 token 一个一个追加还是一次全部追加，得到的缓存都一样。"
        "重新开始后，新 token 之间的分数仍然一致（只有 m − n 重要）；出错的是它们与缓存中键的分数。",
    )


TEMPORAL_PATCH_SIZE = 2  # frames per temporal patch (Qwen2-VL / Qwen2.5-VL vision config)


def _run_mrope_sections(
    ctx: DemoContext,
    text_before: int,
    grid_t: int,
    grid_h: int,
    grid_w: int,
    tokens_per_second: float = 0.0,
    fps: float = 2.0,
) -> None:
    import torch

    from ..mrope import MROPE_SECTION, apply_mrope, mrope_pair_axes, mrope_positions, mrope_temporal_step
    from ..rope import apply_rope

    text_after = 4
    absolute_time = tokens_per_second > 0  # Qwen2.5-VL; 0 keeps Qwen2-VL's consecutive t ids
    pos = mrope_positions(
        text_before,
        grid_t,
        grid_h,
        grid_w,
        text_after,
        device=ctx.device,
        tokens_per_second=tokens_per_second,
        fps=fps,
        temporal_patch_size=TEMPORAL_PATCH_SIZE,
    )
    n_vision = grid_t * grid_h * grid_w
    n_tokens = text_before + n_vision + text_after
    ids = pos.cpu()
    is_text = torch.zeros(n_tokens, dtype=torch.bool)
    is_text[:text_before] = True
    is_text[text_before + n_vision :] = True
    next_text = int(ids[0, text_before + n_vision])
    step = mrope_temporal_step(tokens_per_second, fps, TEMPORAL_PATCH_SIZE)

    # HF's get_rope_index, written independently in torch: t = long(arange(grid_t) · second_per_grid_t
    # · tokens_per_second), expanded over the h·w tokens of each frame group (no int cast before the product)
    if absolute_time:
        second_per_grid_t = TEMPORAL_PATCH_SIZE / fps
        time_tensor = torch.arange(grid_t, dtype=torch.float64).view(-1, 1).expand(-1, grid_h * grid_w)
        hf_t = (time_tensor * second_per_grid_t * tokens_per_second).long().flatten()
    else:
        hf_t = torch.arange(grid_t).view(-1, 1).expand(-1, grid_h * grid_w).flatten()
    last_group_t = int(hf_t[-1])
    expected_next = text_before + max(last_group_t + 1, grid_h, grid_w)

    text_ids = ids[:, is_text]
    ctx.check(
        "text tokens use the same id on the t, h and w axes",
        float((text_ids - text_ids[0]).abs().max()),
        0,
        zh="文本 token 在 t、h、w 三个轴上使用相同的 id",
    )
    if absolute_time:
        ctx.check(
            "text after the video resumes at the largest vision id + 1 = text_before + max(t_last + 1, "
            "grid_h, grid_w)",
            abs(next_text - expected_next),
            0,
            zh="视频之后的文本从最大视觉 id + 1 = text_before + max(t_last + 1, grid_h, grid_w) 继续",
        )
    else:
        ctx.check(
            "text after the image resumes at text_before + max(grid_t, grid_h, grid_w)",
            abs(next_text - expected_next),
            0,
            zh="图像之后的文本从 text_before + max(grid_t, grid_h, grid_w) 继续",
        )
    vision = ids[:, text_before : text_before + n_vision] - text_before
    spans = [int(vision[a].max()) + 1 for a in range(3)]
    if absolute_time:
        ctx.check(
            "vision ids span the grid on the spatial axes (h < grid_h, w < grid_w)",
            float(abs(spans[1] - grid_h) + abs(spans[2] - grid_w)),
            0,
            zh="视觉 id 在空间轴上覆盖整个网格（h < grid_h，w < grid_w）",
        )
    else:
        ctx.check(
            "vision ids span the grid on each axis (t < grid_t, h < grid_h, w < grid_w)",
            float(sum(abs(s - g) for s, g in zip(spans, (grid_t, grid_h, grid_w)))),
            0,
            zh="视觉 id 在每个轴上覆盖整个网格（t < grid_t，h < grid_h，w < grid_w）",
        )
    axes = mrope_pair_axes(128, MROPE_SECTION)
    counts = [axes.count(a) for a in range(3)]
    ctx.check(
        "the 64 pairs of a 128-dim head split 16 / 24 / 24",
        float(sum(abs(c - e) for c, e in zip(counts, MROPE_SECTION))),
        0,
        zh="128 维头的 64 个频率对按 16 / 24 / 24 划分",
    )

    # for text-only ids the three axes agree, so M-RoPE reduces to 1-D RoPE
    dtype = _exact_dtype(ctx)
    x = _randn(0, text_before + text_after, 128).to(ctx.device, dtype)
    text_pos = ids[0, is_text].to(ctx.device)
    m_rope = apply_mrope(x, text_pos.expand(3, -1))
    plain = apply_rope(x, text_pos)
    ctx.check(
        "for text tokens M-RoPE equals ordinary 1-D RoPE",
        float((m_rope - plain).abs().max()),
        _angle_tol(ctx.dtype, max(n_tokens, int(ids.max())), float(x.abs().max())),
        zh="对文本 token，M-RoPE 等于普通的一维 RoPE",
    )
    rule = (
        "floor(g · temporal_patch_size / fps · tokens_per_second) (Qwen2.5-VL, HF get_rope_index)"
        if absolute_time
        else "g (Qwen2-VL: consecutive frame groups)"
    )
    rule_zh = (
        "floor(g · temporal_patch_size / fps · tokens_per_second)（Qwen2.5-VL，HF 的 get_rope_index）"
        if absolute_time
        else "g（Qwen2-VL：连续的帧组）"
    )
    ctx.check(
        f"the temporal id of frame group g is text_before + {rule}",
        float((vision[0] - hf_t).abs().max()),
        0,
        zh=f"第 g 个帧组的时间 id 是 text_before + {rule_zh}",
    )
    group_ids = [int(v) for v in hf_t[:: grid_h * grid_w]]

    shown = list(range(min(n_tokens, 48))) + list(range(max(48, n_tokens - 8), n_tokens))
    rows = [
        [j, "text" if bool(is_text[j]) else "vision", int(ids[0, j]), int(ids[1, j]), int(ids[2, j])]
        for j in shown
    ]
    ctx.table(
        "Position ids per token",
        ["token", "kind", "t", "h", "w"],
        rows,
        title_zh="每个 token 的位置 id",
        columns_zh=["token", "类型", "t", "h", "w"],
    )
    ctx.table(
        "Frequency pairs per axis (128-dim head)",
        ["axis", "pairs", "pair range"],
        [
            ["temporal", counts[0], f"0–{counts[0] - 1}"],
            ["height", counts[1], f"{counts[0]}–{counts[0] + counts[1] - 1}"],
            ["width", counts[2], f"{counts[0] + counts[1]}–63"],
        ],
        title_zh="每个轴的频率对（128 维头）",
        columns_zh=["轴", "对数", "频率对范围"],
    )
    if n_tokens <= 256:
        ctx.matrix(
            "Position ids (rows t, h, w; columns tokens)",
            ids.double(),
            "axis",
            "token",
            title_zh="位置 id（行为 t、h、w；列为 token）",
            row_label_zh="轴",
        )
    ctx.value("n_tokens", n_tokens)
    vision = (~is_text).nonzero().flatten()
    ctx.value("vision_tokens", len(vision))
    last = int(vision[-1])
    ctx.value("last_vision_t", int(ids[0, last]))
    ctx.value("last_vision_h", int(ids[1, last]))
    ctx.value("last_vision_w", int(ids[2, last]))
    ctx.value("next_text_position", next_text)
    ctx.value("temporal_pairs", counts[0])
    ctx.value("height_pairs", counts[1])
    ctx.value("width_pairs", counts[2])
    ctx.value("temporal_id_step", step)

    seconds = TEMPORAL_PATCH_SIZE / fps
    shown_groups = list(range(min(grid_t, 32)))
    ctx.table(
        "Frame groups: time and temporal id",
        ["group", "frames", "start (s)", "t id"],
        [
            [
                g,
                f"{g * TEMPORAL_PATCH_SIZE}–{g * TEMPORAL_PATCH_SIZE + TEMPORAL_PATCH_SIZE - 1}",
                _fmt(g * seconds),
                text_before + group_ids[g],
            ]
            for g in shown_groups
        ],
        title_zh="帧组：时间与时间 id",
        columns_zh=["组", "帧", "开始（秒）", "t id"],
    )
    ctx.note(
        f"{text_after} text tokens follow the image. grid_h and grid_w are the merged (LLM) grid.",
        zh=f"图像之后跟着 {text_after} 个文本 token。grid_h 和 grid_w 是合并后的（LLM 侧）网格。",
    )
    if absolute_time:
        ctx.note(
            f"Qwen2.5-VL absolute time: at {fps:g} fps a group of {TEMPORAL_PATCH_SIZE} frames lasts "
            f"{seconds:g} s, so group g gets temporal id floor(g · {seconds:g} · {tokens_per_second:g}) "
            f"(step {step:g}): the temporal id advances {tokens_per_second:g} per second of video, whatever the "
            "frame rate.",
            zh=f"Qwen2.5-VL 的绝对时间：在 {fps:g} fps 下，一组 {TEMPORAL_PATCH_SIZE} 帧持续 {seconds:g} 秒，"
            f"所以第 g 组的时间 id 是 floor(g · {seconds:g} · {tokens_per_second:g})（步长 {step:g}）："
            f"不管帧率多少，视频每过一秒时间 id 增加 {tokens_per_second:g}。",
        )
    else:
        ctx.note(
            "Qwen2-VL rule: frame group g gets temporal id g, whatever the frame rate (fps is unused); set "
            "tokens_per_second > 0 (2 in Qwen2.5-VL checkpoints) for Qwen2.5-VL's absolute-time ids.",
            zh="Qwen2-VL 的规则：不管帧率多少，第 g 个帧组的时间 id 就是 g（fps 不起作用）；"
            "把 tokens_per_second 设为 > 0（Qwen2.5-VL 检查点里是 2）可得到 Qwen2.5-VL 的绝对时间 id。",
        )


register(
    Demo(
        name="rope-relativity",
        title="RoPE scores depend only on m − n",
        claim="⟨R(q, m), R(k, n)⟩ equals ⟨R(q, m − n), k⟩, so every (m, n) pair with the same offset gets the same score.",
        title_zh="RoPE 的注意力分数只取决于 m − n",
        claim_zh="⟨R(q, m), R(k, n)⟩ 等于 ⟨R(q, m − n), k⟩，因此相对位置相同的每一对 (m, n) 都得到相同的分数。",
        topic="rope",
        params=(
            DIM,
            Param("m", "int", 5, min=0, max=1_000_000, help="query position m"),
            Param("n", "int", 2, min=0, max=1_000_000, help="key position n"),
            BASE,
            SEED,
            Param("pair", "int", 0, min=0, max=4095, help="frequency pair i for pair_angle (below dim/2)"),
        ),
        values=("score", "relative_score", "max_error", "wrong_sign_score", "pair_angle", "pair_unit_score"),
        run=_run_rope_relativity,
        # the numpy textbook check builds a dense [d, d] float64 rotation matrix (one at a time)
        memory_bytes=lambda dim, **_: 10 * dim * dim + _f64(32, dim, 8),
    )
)
register(
    Demo(
        name="rope-norm",
        title="RoPE preserves vector norms",
        claim="Each 2-D pair is rotated, never stretched, so ‖R(x, m)‖ = ‖x‖ at every position.",
        title_zh="RoPE 保持向量范数不变",
        claim_zh="每个二维分量对只被旋转、不被拉伸，所以在任何位置都有 ‖R(x, m)‖ = ‖x‖。",
        topic="rope",
        params=(
            Param("dim", "int", 64, min=2, max=8192, even=True, help="head dimension d (even)"),
            Param("seq_len", "int", 128, min=1, max=1_000_000, help="number of positions"),
            BASE,
            SEED,
        ),
        values=("max_norm_error",),
        run=_run_rope_norm,
        # x, two rotated copies, the cached half-width cos/sin, the complex table and the
        # full-width half-layout tables, and temporaries: about 9 float32 copies of x
        memory_bytes=lambda dim, seq_len, **_: _f32(seq_len, dim, 9) + 256 * seq_len,
    )
)
register(
    Demo(
        name="rope-decay",
        title="RoFormer's long-term decay bound",
        claim="The RoFormer bound (mean |S_j| over j) starts at (d/2 + 1)/2 at distance 0 and trends down, with oscillation, as the distance grows.",
        title_zh="RoFormer 的远程衰减上界",
        claim_zh="RoFormer 的上界（|S_j| 对 j 的平均）在距离 0 处等于 (d/2 + 1)/2，随距离增大呈振荡下降的趋势。",
        topic="rope",
        params=(
            Param("dim", "int", 128, min=4, max=8192, even=True, help="head dimension d (even)"),
            BASE,
            Param("max_distance", "int", 250, min=1, max=20_000, help="largest relative distance plotted"),
        ),
        values=("bound_at_0", "bound_at_max", "min_bound", "is_monotone", "first_rise_distance"),
        run=_run_rope_decay,
        # one block of float64 phases and ones and complex128 rotations and partial sums (48 bytes
        # per (distance, pair) entry), torch's temporaries for |S_j| and heap slack (112 counted),
        # plus a few float64 curves over all distances
        memory_bytes=lambda dim, max_distance, **_: (
            112 * min(_decay_rows_per_block(dim), max_distance + 1) * (dim // 2) + _f64(max_distance + 1, 8)
        ),
    )
)
register(
    Demo(
        name="rope-layouts",
        title="Half-split and interleaved RoPE are one map up to a permutation",
        claim="Permuting channels with hf[r·d/2 + i] = meta[2i + r] turns interleaved (GPT-J/Meta) RoPE into half-split (NeoX/HF) RoPE, so converted LLaMA weights give identical scores.",
        title_zh="半拆分与交错排布的 RoPE 只差一个通道置换",
        claim_zh="按 hf[r·d/2 + i] = meta[2i + r] 置换通道，就能把交错排布（GPT-J/Meta）的 RoPE 变成半拆分（NeoX/HF）的 RoPE，因此转换后的 LLaMA 权重给出完全相同的注意力分数。",
        topic="rope",
        params=(DIM, Param("seq_len", "int", 16, min=1, max=100_000, help="number of positions"), BASE, SEED),
        values=("max_error", "score_max_error", "unpermuted_score_error", "mixed_norm_change"),
        run=_run_rope_layouts,
        # float64: q, k, their permuted copies, four rotated tensors, the trap's two, the cached
        # tables (complex and full-width) and temporaries: about 14 float64 copies of q
        memory_bytes=lambda dim, seq_len, **_: _f64(seq_len, dim, 16),
    )
)
register(
    Demo(
        name="rope-forms",
        title="Matrix, complex and rotate_half forms of RoPE agree",
        claim="The block-diagonal rotation matrix, the complex multiply q·eⁱᵐᶿ and the cos/sin + rotate_half form compute the same rotation.",
        title_zh="RoPE 的矩阵、复数与 rotate_half 三种写法结果一致",
        claim_zh="分块对角旋转矩阵、复数乘法 q·eⁱᵐᶿ 以及 cos/sin 加 rotate_half 的写法，算出的是同一个旋转。",
        topic="rope",
        params=(DIM, Param("seq_len", "int", 16, min=1, max=4096, help="number of positions"), BASE, SEED),
        values=("max_error", "matrix_vs_complex", "matrix_vs_rotate_half"),
        run=_run_rope_forms,
        # the [seq, d, d] float64 rotation matrices dominate; the three forms add ~16 float64 copies of x
        memory_bytes=lambda dim, seq_len, **_: _f64(seq_len, dim, dim) + _f64(seq_len, dim, 16),
    )
)
register(
    Demo(
        name="rope-precision",
        title="Angle precision at long positions (float32 vs float64)",
        claim="Computing position·θ in float32 makes cos drift from the float64 value by about 3e-6 at position 100 and 3.4e-3 at 131072.",
        title_zh="长位置上的角度精度（float32 与 float64 对比）",
        claim_zh="用 float32 计算 position·θ 时，cos 与 float64 结果的偏差在位置 100 处约为 3e-6，在位置 131072 处约为 3.4e-3。",
        topic="pitfalls",
        params=(Param("dim", "int", 128, min=2, max=8192, even=True, help="head dimension d (even)"), BASE),
        values=("error_100", "error_4096", "error_32768", "error_131072"),
        run=_run_rope_precision,
        memory_bytes=lambda dim, **_: 8 * 8 * dim,
    )
)
register(
    Demo(
        name="rope-kv-cache",
        title="Positions with a KV cache",
        claim="Decoding with a KV cache matches the full forward pass only if new tokens get positions prefix_len, prefix_len+1, …, not 0, 1, ….",
        title_zh="使用 KV 缓存时的位置编号",
        claim_zh="只有新 token 的位置依次取 prefix_len, prefix_len+1, …，而不是从 0, 1, … 重新编号，带 KV 缓存的解码才与完整的前向计算结果一致。",
        topic="pitfalls",
        params=(
            Param("dim", "int", 16, min=2, max=4096, even=True, help="head dimension d (even)"),
            Param("prefix_len", "int", 8, min=1, max=100_000, help="tokens already in the cache"),
            Param("new_tokens", "int", 4, min=1, max=4096, help="tokens decoded after the prefix"),
            SEED,
        ),
        values=("max_error", "restart_error"),
        run=_run_rope_kv_cache,
        # float64 q, k, their rotations and the cache (~12 copies of [total, dim]), plus the
        # [new_tokens, total] score matrices, masks and differences (~7 of them)
        memory_bytes=lambda dim, prefix_len, new_tokens, **_: (
            _f64(prefix_len + new_tokens, dim, 12) + _f64(new_tokens, prefix_len + new_tokens, 7)
        ),
    )
)
register(
    Demo(
        name="mrope-sections",
        title="Multimodal RoPE (Qwen2-VL): temporal, height and width sections",
        claim="M-RoPE splits the 64 frequency pairs of a 128-dim head into 16 temporal, 24 height and 24 width pairs; text tokens use the same id on all three axes, and text after an image resumes at the largest vision id plus one. With tokens_per_second > 0, Qwen2.5-VL's rule gives frame group g the temporal id ⌊g · (2 / fps) · tokens_per_second⌋, so the ids track seconds, not frames.",
        title_zh="多模态旋转位置编码（Qwen2-VL）：时间、高度与宽度分段",
        claim_zh="M-RoPE 把 128 维注意力头的 64 个频率对分成 16 个时间对、24 个高度对和 24 个宽度对；文本 token 在三个轴上使用同一个位置 id，图像之后的文本从视觉部分的最大 id 加一处继续编号。当 tokens_per_second > 0 时采用 Qwen2.5-VL 的规则：第 g 个帧组的时间 id 为 ⌊g · (2 / fps) · tokens_per_second⌋，于是 id 跟踪的是秒数而不是帧数。",
        topic="rope-variants",
        params=(
            Param("text_before", "int", 3, min=0, max=4096, help="text tokens before the image"),
            Param("grid_t", "int", 1, min=1, max=64, help="temporal patches (1 for an image)"),
            Param("grid_h", "int", 4, min=1, max=256, help="patch rows (after merging)"),
            Param("grid_w", "int", 6, min=1, max=256, help="patch columns (after merging)"),
            Param(
                "tokens_per_second",
                "float",
                0.0,
                min=0.0,
                max=1000.0,
                help="Qwen2.5-VL temporal ids per second (0: Qwen2-VL consecutive ids)",
            ),
            Param(
                "fps",
                "float",
                2.0,
                min=0.01,
                max=1000.0,
                help="video sampling rate (used when tokens_per_second > 0; 2 frames per group)",
            ),
        ),
        values=(
            "n_tokens",
            "vision_tokens",
            "last_vision_t",
            "last_vision_h",
            "last_vision_w",
            "next_text_position",
            "temporal_pairs",
            "height_pairs",
            "width_pairs",
            "temporal_id_step",
        ),
        run=_run_mrope_sections,
        # [3, n] int64 ids built from several [n] index arrays, masks and copies: ~128 bytes a token
        memory_bytes=lambda text_before, grid_t, grid_h, grid_w, **_: (
            128 * (text_before + grid_t * grid_h * grid_w + 4)
        ),
    )
)
