"""Absolute-PE demos: sinusoidal properties, learned tables, integer/binary codes, why PE exists."""

from __future__ import annotations

import math

from . import register
from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    MAX_TABLE_ROWS,
    max_abs_diff,
    randn,
    sample_indices,
    score_term_matrices,
    to_numpy,
    tol_for,
    torch_dtype,
)
from .base import Demo, DemoContext, Param, ParamError

BASE = Param("base", "float", 10000.0, min=2.0, max=1e9, help="sinusoid base (10000 in the paper)")
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed")


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
    rows = []
    for k in shown:
        diag = np.diagonal(gram, k)
        rows.append([k, float(formula[k + seq_len - 1]), float(diag.min()), float(diag.max())])
    ctx.table(
        "Dot product by offset",
        ["k", "Σ cos(ωᵢ k)", "min over p", "max over p"],
        rows,
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


def _run_learned_extrapolation(ctx: DemoContext, max_len: int, train_len: int, dim: int, seed: int) -> None:
    import torch

    from ..learned import LearnedPositionalEmbedding, PositionOutOfRangeError

    if train_len > max_len:
        raise ParamError(
            f"train_len ({train_len}) must be <= max_len ({max_len}): training cannot see rows the table lacks"
        )
    torch.manual_seed(seed)
    table = LearnedPositionalEmbedding(max_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    init = table.weight.detach().clone()

    try:
        table(torch.tensor([max_len], device=ctx.device))
        refused, message = 0.0, "no error"
    except PositionOutOfRangeError as exc:
        refused, message = 1.0, str(exc)
    ctx.check_true(
        f"looking up position max_len = {max_len} raises PositionOutOfRangeError",
        refused == 1.0,
        zh=f"查找位置 max_len = {max_len} 会抛出 PositionOutOfRangeError",
    )
    ctx.check_true(
        f"position max_len − 1 = {max_len - 1} is still served",
        table(max_len).shape == (max_len, dim),
        zh=f"位置 max_len − 1 = {max_len - 1} 仍然可以查到",
    )

    # one training batch of sequences no longer than train_len: x + pe -> regress a random target
    tokens = randn(seed + 1, 4, train_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    target = randn(seed + 2, 4, train_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    grad_norm_rows = None
    for step in range(5):  # plain SGD, lr 0.1
        table.zero_grad()
        loss = ((tokens + table(train_len) - target) ** 2).mean()
        loss.backward()
        if step == 0:
            grad_norm_rows = table.weight.grad.detach().norm(dim=-1).cpu()
        with torch.no_grad():
            table.weight.sub_(0.1 * table.weight.grad)
    assert grad_norm_rows is not None
    trained = float(grad_norm_rows[:train_len].norm())
    untrained = float(grad_norm_rows[train_len:].norm()) if train_len < max_len else 0.0
    drift = (table.weight.detach() - init).norm(dim=-1).cpu()
    ctx.check(
        f"rows {train_len}..{max_len - 1} (never in a training sequence) get exactly zero gradient",
        untrained,
        0.0,
        zh=f"第 {train_len}..{max_len - 1} 行（从未出现在训练序列中）的梯度恰好为零",
    )
    ctx.check_true(
        "rows 0..train_len − 1 do get a gradient", trained > 0, zh="第 0..train_len − 1 行确实有梯度"
    )
    ctx.check(
        "after 5 SGD steps the untrained rows are still exactly their random init",
        float(drift[train_len:].max()) if train_len < max_len else 0.0,
        0.0,
        zh="5 步 SGD 之后，未训练的行仍然与随机初始化完全相同",
    )
    ctx.value("refused", refused)
    ctx.value("untrained_grad_norm", untrained)
    ctx.value("trained_grad_norm", trained)

    shown = sorted(
        {0, 1, max(train_len - 2, 0), train_len - 1, train_len, train_len + 1, max_len - 1}
        & set(range(max_len))
    )
    ctx.table(
        "Gradient and drift per table row",
        ["row (position)", "seen in training", "‖grad‖ at step 1", "‖W − W_init‖ after 5 steps"],
        [[r, "yes" if r < train_len else "no", float(grad_norm_rows[r]), float(drift[r])] for r in shown],
        title_zh="表中每一行的梯度与漂移",
        columns_zh=["行（位置）", "训练中出现过", "第 1 步的 ‖grad‖", "5 步后的 ‖W − W_init‖"],
    )
    ctx.table(
        "Asking for a position past the table",
        ["request", "result"],
        [[f"position {max_len - 1}", "a row of the table"], [f"position {max_len}", message]],
        title_zh="请求超出表长的位置",
        columns_zh=["请求", "结果"],
    )
    idx = sample_indices(max_len, MAX_SERIES_POINTS)
    ctx.series(
        "Gradient norm per row after one training step",
        [float(i) for i in idx],
        {"‖grad‖": [float(grad_norm_rows[i]) for i in idx]},
        "position",
        "gradient norm",
        title_zh="一步训练后每一行的梯度范数",
    )
    if train_len == max_len:
        ctx.note(
            "train_len = max_len: every row was trained, so the zero-gradient claim holds vacuously.",
            zh="train_len = max_len：每一行都被训练过，所以“零梯度”的断言平凡成立。",
        )
    ctx.note(
        "A sinusoidal or RoPE encoding is a formula and is defined at any position; whether a model "
        "generalises there is a separate question. A learned table simply has no row.",
        zh="正弦编码或 RoPE 是一个公式，在任何位置都有定义；模型在那里能否泛化是另一个问题。可学习的表则根本没有那一行。",
    )


def _run_integer_binary_pe(ctx: DemoContext, seq_len: int) -> None:
    import numpy as np

    from ..discrete import binary_bits_needed, binary_pe_np, integer_pe_np
    from ..sinusoidal import sinusoidal_frequencies_np

    demo_dim = 4
    ints = integer_pe_np(seq_len, demo_dim)
    integer_max = float(ints.max())
    ctx.check(
        f"the integer code of the last position is L − 1 = {seq_len - 1}",
        abs(integer_max - (seq_len - 1)),
        0.0,
        zh=f"最后一个位置的整数编码是 L − 1 = {seq_len - 1}",
    )
    norm_l = integer_pe_np(seq_len, 1, normalize=True)
    norm_2l = integer_pe_np(2 * seq_len, 1, normalize=True)
    p = 1
    ctx.check_true(
        f"normalising by L makes the code depend on L: position {p} is {norm_l[p, 0]:.4g} at L={seq_len} "
        f"but {norm_2l[p, 0]:.4g} at L={2 * seq_len}",
        norm_l[p, 0] != norm_2l[p, 0],
        zh=f"除以 L 归一化会让编码依赖 L：位置 {p} 在 L={seq_len} 时是 {norm_l[p, 0]:.4g}，"
        f"在 L={2 * seq_len} 时是 {norm_2l[p, 0]:.4g}",
    )

    bits = binary_pe_np(seq_len)
    n_bits = bits.shape[1]
    ctx.check(
        f"binary codes need ceil(log2 L) = {binary_bits_needed(seq_len)} bits",
        abs(n_bits - math.ceil(math.log2(seq_len))),
        0,
        zh=f"二进制编码需要 ceil(log2 L) = {binary_bits_needed(seq_len)} 位",
    )
    weights = 2 ** np.arange(n_bits - 1, -1, -1)
    decoded = bits @ weights
    ctx.check(
        "binary codes are unique: each row decodes back to its position",
        float(np.abs(decoded - np.arange(seq_len)).max()),
        0.0,
        zh="二进制编码是唯一的：每一行都能解码回它的位置",
    )
    flips = np.abs(np.diff(bits, axis=0)).sum(axis=1)  # bits that change from p to p + 1
    max_jump = int(flips.max())
    expected_jump = int(math.floor(math.log2(seq_len - 1))) + 1
    ctx.check(
        f"the biggest neighbour jump flips floor(log2(L−1)) + 1 = {expected_jump} bits (at 2^k − 1 → 2^k)",
        abs(max_jump - expected_jump),
        0,
        zh=f"相邻位置之间最大的跳变翻转 floor(log2(L−1)) + 1 = {expected_jump} 位（在 2^k − 1 → 2^k 处）",
    )
    # contrast: sinusoidal neighbours are one fixed rotation apart, so the step size never changes
    sin_dim = 2 * max(n_bits, 2)
    omega = sinusoidal_frequencies_np(sin_dim)
    step_sq = float(np.sum(2 - 2 * np.cos(omega)))  # ‖PE[p+1] − PE[p]‖²
    pos = np.arange(min(seq_len, 256), dtype=np.float64)[:, None]
    table = np.empty((pos.shape[0], sin_dim))
    table[:, 0::2], table[:, 1::2] = np.sin(pos * omega), np.cos(pos * omega)
    steps = np.linalg.norm(np.diff(table, axis=0), axis=1)
    ctx.check(
        f"by contrast, sinusoidal neighbours (d={sin_dim}) are always the same distance apart",
        float(np.abs(steps - math.sqrt(step_sq)).max()),
        1e-9,
        zh=f"相比之下，正弦编码（d={sin_dim}）的相邻位置之间距离总是相同",
    )
    ctx.value("integer_max", integer_max)
    ctx.value("binary_bits", float(n_bits))
    ctx.value("max_neighbour_jump", float(max_jump))

    worst = int(np.argmax(flips))
    shown = sorted(set(range(min(seq_len, 12))) | {worst, worst + 1, seq_len - 1})
    rows = []
    for r in shown:
        rows.append(
            [
                r,
                int(ints[r, 0]),
                float(norm_l[r, 0]),
                "".join(str(int(b)) for b in bits[r]),
                int(flips[r - 1]) if r > 0 else 0,
            ]
        )
    ctx.table(
        "Integer, normalised and binary codes",
        ["position", "integer code", "i / L", "binary code", "bits flipped from previous"],
        rows,
        title_zh="整数编码、归一化编码与二进制编码",
        columns_zh=["位置", "整数编码", "i / L", "二进制编码", "相对前一个翻转的位数"],
    )
    idx = sample_indices(seq_len - 1, MAX_SERIES_POINTS)
    ctx.series(
        "Bits flipped between neighbours p → p + 1",
        [float(i) for i in idx],
        {"bits flipped": [float(flips[i]) for i in idx]},
        "position p",
        "bits flipped",
        title_zh="相邻位置 p → p + 1 之间翻转的位数",
    )
    ctx.matrix(
        f"Binary codes (first {min(seq_len, MAX_MATRIX_SIDE)} positions)",
        bits[:MAX_MATRIX_SIDE],
        "position",
        "bit (MSB first)",
        title_zh=f"二进制编码（前 {min(seq_len, MAX_MATRIX_SIDE)} 个位置）",
        row_label_zh="位置",
        col_label_zh="位（高位在前）",
    )
    ctx.note(
        f"Added to unit-scale embeddings, an integer code of {seq_len - 1} swamps the token signal; "
        "binary codes stay in {0, 1} but move in discrete jumps. Sinusoids are the smooth version "
        "of the alternating bits: low dims flip fast, high dims slowly.",
        zh=f"加到量级为 1 的嵌入上时，整数编码 {seq_len - 1} 会淹没 token 信号；二进制编码虽然保持在 {{0, 1}} 内，"
        "却是离散跳变的。正弦编码是交替比特的平滑版本：低维翻转得快，高维翻转得慢。",
    )


def _attention(x, w_q, w_k, w_v):
    import torch

    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ v


def _run_permutation_equivariance(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    import torch

    from ..sinusoidal import sinusoidal_pe

    dt = torch_dtype(ctx)
    x = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    w_q, w_k, w_v = (
        randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (1, 2, 3)
    )
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(seq_len, generator=gen)
    if torch.equal(perm, torch.arange(seq_len)):
        perm = torch.roll(perm, 1)  # make sure the order really changes
    perm = perm.to(ctx.device)

    out = _attention(x, w_q, w_k, w_v)
    out_of_shuffled = _attention(x[perm], w_q, w_k, w_v)
    per_row_no_pe = (out_of_shuffled - out[perm]).abs().amax(dim=-1)
    no_pe_error = float(per_row_no_pe.max())
    ctx.check(
        "without PE: attention(shuffled x) = shuffled attention(x)",
        no_pe_error,
        1e-5,
        zh="没有位置编码时：attention(打乱的 x) = 打乱的 attention(x)",
    )

    pe = sinusoidal_pe(seq_len, dim, device=ctx.device, dtype=dt)
    out_pe = _attention(x + pe, w_q, w_k, w_v)
    out_pe_shuffled = _attention(x[perm] + pe, w_q, w_k, w_v)
    per_row_pe = (out_pe_shuffled - out_pe[perm]).abs().amax(dim=-1)
    with_pe_difference = float(per_row_pe.max())
    ctx.check_true(
        f"with sinusoidal PE the outputs change (max difference {with_pe_difference:.3g} > 1e-3)",
        with_pe_difference > 1e-3,
        zh=f"加上正弦位置编码后输出会变（最大差 {with_pe_difference:.3g} > 1e-3）",
    )

    # keys and values alone: shuffling them leaves every query's output unchanged (a set)
    q = x @ w_q
    k, v = (x[perm] @ w_k), (x[perm] @ w_v)
    kv_shuffled = torch.softmax(q @ k.T / math.sqrt(dim), dim=-1) @ v
    ctx.check(
        "shuffling only keys and values leaves the output unchanged (invariance)",
        max_abs_diff(kv_shuffled, out),
        1e-5,
        zh="只打乱键和值时输出不变（不变性）",
    )

    # the seeds' 'dog ... dog' example: one token at two positions
    dup = x.clone()
    dup[-1] = dup[0]
    twin = _attention(dup, w_q, w_k, w_v)
    twin_pe = _attention(dup + pe, w_q, w_k, w_v)
    ctx.check(
        "without PE, the same token at two positions gets the same output",
        max_abs_diff(twin[0], twin[-1]),
        1e-5,
        zh="没有位置编码时，同一个 token 在两个位置上得到相同的输出",
    )
    ctx.value("no_pe_error", no_pe_error)
    ctx.value("with_pe_difference", with_pe_difference)
    ctx.value("duplicate_token_difference_with_pe", float((twin_pe[0] - twin_pe[-1]).abs().max()))

    perm_list = perm.cpu().tolist()
    shown = sample_indices(seq_len, MAX_TABLE_ROWS)
    ctx.table(
        "Row by row: attention(shuffled input) vs shuffled attention(input)",
        ["output row", "from input row", "max |diff| without PE", "max |diff| with PE"],
        [[r, perm_list[r], float(per_row_no_pe[r]), float(per_row_pe[r])] for r in shown],
        title_zh="逐行比较：attention(打乱的输入) 与 打乱的 attention(输入)",
        columns_zh=["输出行", "来自输入行", "无位置编码时 max |diff|", "有位置编码时 max |diff|"],
    )
    shown_perm = perm_list if seq_len <= 32 else str(perm_list[:32]) + " ..."
    ctx.note(f"permutation used: {shown_perm}", zh=f"使用的排列：{shown_perm}")
    ctx.note(
        "Self-attention treats its input as a set: order must come from a position encoding (or a causal mask).",
        zh="自注意力把输入当作集合：顺序信息必须来自位置编码（或因果掩码）。",
    )


def _run_attention_expansion(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    import numpy as np

    from ..expansion import absolute_score_terms, absolute_score_terms_np
    from ..sinusoidal import sinusoidal_pe

    dt = torch_dtype(ctx)
    x = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    p = sinusoidal_pe(seq_len, dim, device=ctx.device, dtype=dt)
    w_q, w_k = (randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (1, 2))
    terms = absolute_score_terms(x, p, w_q, w_k)
    full = ((x + p) @ w_q) @ ((x + p) @ w_k).T  # q_i·k_j computed directly
    ref = full.cpu().double().numpy()
    max_error = max_abs_diff(terms.total, full)
    ctx.check(
        "content·content + content·position + position·content + position·position = qᵢ·kⱼ",
        max_error,
        tol_for(ref),
        zh="内容·内容 + 内容·位置 + 位置·内容 + 位置·位置 = qᵢ·kⱼ",
    )
    ctx.value("max_error", max_error)

    n = min(seq_len, 48)
    textbook = absolute_score_terms_np(*(to_numpy(t) for t in (x[:n], p[:n], w_q, w_k)))
    worst = max(max_abs_diff(fast[:n, :n], slow) for fast, slow in zip(terms, textbook))
    ctx.check(
        f"fast terms match the textbook float64 loops (first {n} tokens)",
        worst,
        tol_for(textbook.total),
        zh=f"快速实现的各项与教科书 float64 循环一致（前 {n} 个 token）",
    )

    names = ["content·content", "content·position", "position·content", "position·position"]
    names_zh = ["内容·内容", "内容·位置", "位置·内容", "位置·位置"]
    formulas = ["xᵢ W_Q · xⱼ W_K", "xᵢ W_Q · pⱼ W_K", "pᵢ W_Q · xⱼ W_K", "pᵢ W_Q · pⱼ W_K"]
    magnitude = [float(t.abs().mean()) for t in terms[:4]]
    total_mag = sum(magnitude) or 1.0
    ctx.table(
        "The four terms",
        ["term", "formula", "mean |term|", "share of Σ |terms|"],
        [[nm, f, m, m / total_mag] for nm, f, m in zip(names, formulas, magnitude)],
        title_zh="四项",
        columns_zh=["项", "公式", "平均 |项|", "占 Σ |各项| 的比例"],
    )
    ctx.table(
        "How relative schemes edit the expansion",
        ["scheme", "content·content", "content·position", "position·content", "position·position"],
        [
            ["Shaw et al.", "kept", "pⱼ → aᴷ(j−i), clipped", "dropped", "dropped"],
            [
                "Transformer-XL / XLNet",
                "kept",
                "pⱼ → R₍ᵢ₋ⱼ₎ sinusoid, W_k,R",
                "pᵢ → u (learned)",
                "pᵢ → v, pⱼ → R₍ᵢ₋ⱼ₎",
            ],
            ["T5", "kept", "dropped", "dropped", "→ learned bucket bias b(j−i)"],
            ["DeBERTa", "kept", "→ Q_c · K_r[δ(i,j)]", "→ K_c · Q_r[δ(j,i)]", "dropped"],
            ["ALiBi", "kept", "dropped", "dropped", "→ fixed −m·(i−j)"],
        ],
        title_zh="各种相对方案如何改写这个展开式",
        columns_zh=["方案", "内容·内容", "内容·位置", "位置·内容", "位置·位置"],
    )
    # Is p_i W_Q W_K^T p_j still a function of i − j? Compare each diagonal with its own mean.
    p2p = to_numpy(terms[3])
    spread = max(
        (float(np.abs(np.diagonal(p2p, k) - np.diagonal(p2p, k).mean()).max()) for k in range(-n + 1, n)),
        default=0.0,
    )
    p2p_relative_error = spread / (float(np.abs(p2p).max()) or 1.0)
    ctx.value("p2p_relative_error", p2p_relative_error)
    if seq_len > 2:
        ctx.check_true(
            "with W_Q, W_K in between, position·position is no longer a function of i − j alone "
            f"(diagonal spread / max = {p2p_relative_error:.3f} > 0.01)",
            p2p_relative_error > 0.01,
            zh="中间隔着 W_Q、W_K 后，位置·位置项不再只是 i − j 的函数"
            f"（对角线离散度 / 最大值 = {p2p_relative_error:.3f} > 0.01）",
        )
    score_term_matrices(ctx, names, names_zh, terms[:4], seq_len)
    ctx.note(
        "RoPE does not fit this additive pattern: it rotates q and k, so the position enters multiplicatively.",
        zh="RoPE 不符合这种相加的模式：它旋转 q 和 k，所以位置是以相乘的方式进入的。",
    )


register(
    Demo(
        name="sinusoidal-linearity",
        title="Sinusoidal PE: a fixed linear map shifts any position by k",
        claim="For every p, PE[p + k] = M_k · PE[p], where M_k is block-diagonal 2×2 rotations that depend on k only, never on p.",
        title_zh="正弦位置编码：一个固定的线性变换就能把任意位置平移 k",
        claim_zh="对任意 p 都有 PE[p + k] = M_k · PE[p]，其中 M_k 是由 2×2 旋转块组成的分块对角矩阵，只依赖 k，与 p 无关。",
        topic="absolute",
        params=(
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension d (even)"),
            Param("k", "int", 3, min=-100_000, max=100_000, help="shift k"),
            Param("seq_len", "int", 64, min=1, max=100_000, help="positions p checked"),
            BASE,
        ),
        values=("max_error",),
        run=_run_sinusoidal_linearity,
        # PE[p], PE[p + k] and M_k·PE[p] (positions start at an offset, so k costs nothing), plus the dense
        # M_k, its textbook copy and the M_1, M_(k+1) used by the composition check
        memory_bytes=lambda dim, seq_len, **_: 8 * seq_len * dim * 3 + 8 * dim * dim * 4,
    )
)
register(
    Demo(
        name="sinusoidal-wavelengths",
        title="Sinusoidal wavelengths form a geometric progression",
        claim="Pair i has wavelength 2π·base^(2i/d): from 2π for the first pair up to nearly 2π·base for the last.",
        title_zh="正弦位置编码的波长构成等比数列",
        claim_zh="第 i 对的波长为 2π·base^(2i/d)：从第一对的 2π 一直增长到最后一对的接近 2π·base。",
        topic="absolute",
        params=(
            Param("dim", "int", 512, min=2, max=65536, even=True, help="model dimension d (even)"),
            BASE,
            Param(
                "pair", "int", 0, min=0, max=32767, help="sin/cos pair i for pair_wavelength (below dim/2)"
            ),
        ),
        values=("min_wavelength", "max_wavelength", "ratio", "t2t_max_wavelength", "pair_wavelength"),
        run=_run_sinusoidal_wavelengths,
        # float64 [64, dim] PE table and its sin(2πp/λ) reference, with temporaries
        memory_bytes=lambda dim, **_: 8 * dim * (4 + 64 * 4),
    )
)
register(
    Demo(
        name="sinusoidal-dot",
        title="PE[p]·PE[p + k] depends on the distance k only",
        claim="PE[p]·PE[p + k] = Σ_i cos(ω_i k): the same for every p, symmetric in k, and equal to d/2 at k = 0.",
        title_zh="PE[p]·PE[p + k] 只取决于距离 k",
        claim_zh="PE[p]·PE[p + k] = Σ_i cos(ω_i k)：对每个 p 都相同，关于 k 对称，且在 k = 0 时等于 d/2。",
        topic="absolute",
        params=(
            Param("dim", "int", 128, min=2, max=65536, even=True, help="model dimension d (even)"),
            Param("seq_len", "int", 64, min=2, max=100_000, help="positions"),
            BASE,
        ),
        values=("max_error", "dot_at_0", "symmetry_error", "rise_count", "is_monotone"),
        run=_run_sinusoidal_dot,
        # the PE table (built through float64 angles, sin and cos) and Σ cos(ω k) terms, the Gram matrix (float32, then float64) and one row block
        memory_bytes=lambda dim, seq_len, **_: (
            40 * seq_len * dim + 16 * seq_len * seq_len + 32 * _DOT_BLOCK_ROWS * seq_len
        ),
    )
)
register(
    Demo(
        name="learned-extrapolation",
        title="Learned position tables cannot extrapolate",
        claim="A learned table has no row for positions ≥ max_len, and rows past the training length never receive a gradient, so they stay at their random init.",
        title_zh="可学习的位置表无法外推",
        claim_zh="可学习的位置表里没有位置 ≥ max_len 的行；超出训练长度的行从未收到梯度，因此一直停留在随机初始化的值。",
        topic="absolute",
        params=(
            Param("max_len", "int", 16, min=2, max=100_000, help="rows in the table"),
            Param("train_len", "int", 8, min=1, max=100_000, help="longest sequence seen in training"),
            Param("dim", "int", 8, min=1, max=4096, help="embedding dimension"),
            SEED,
        ),
        values=("refused", "untrained_grad_norm", "trained_grad_norm"),
        run=_run_learned_extrapolation,
        # float32: a batch of 4 sequences (tokens, targets, the loss's temporaries and their
        # gradients: up to ~56 copies of [train_len, dim]) and the table with its init copy, gradient, drift
        memory_bytes=lambda max_len, train_len, dim, **_: 4 * dim * (56 * train_len + 6 * max_len),
    )
)
register(
    Demo(
        name="integer-binary-pe",
        title="Why not integer or binary position codes?",
        claim="Integer codes grow without bound (position L−1 dwarfs the embeddings); binary codes are bounded but need ceil(log2 L) bits and jump discretely between neighbours.",
        title_zh="为什么不直接用整数或二进制编码位置？",
        claim_zh="整数编码没有上界（位置 L−1 的数值远远盖过词嵌入）；二进制编码有界，但需要 ceil(log2 L) 位，而且相邻位置之间是离散跳变。",
        topic="why-pe",
        params=(Param("seq_len", "int", 16, min=2, max=1_000_000, help="sequence length L"),),
        values=("integer_max", "binary_bits", "max_neighbour_jump"),
        run=_run_integer_binary_pe,
        # float64 integer, normalised and binary codes and the bit-flip counts: ~80 numbers a position
        memory_bytes=lambda seq_len, **_: 8 * seq_len * 80,
        uses_torch=False,
    )
)
register(
    Demo(
        name="permutation-equivariance",
        title="Attention without PE is permutation-equivariant",
        claim="Shuffling the input rows of position-free self-attention just shuffles the output rows the same way; adding PE breaks this.",
        title_zh="不加位置编码的注意力具有置换等变性",
        claim_zh="打乱无位置信息的自注意力的输入行，输出行只会按同样的方式被打乱；加上位置编码后这一性质就不再成立。",
        topic="why-pe",
        params=(
            Param("seq_len", "int", 6, min=2, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("no_pe_error", "with_pe_difference"),
        run=_run_permutation_equivariance,
        # float32: five attention passes keep ~28 [seq, dim] tensors alive, plus weights and scores
        memory_bytes=lambda seq_len, dim, **_: (
            4 * (30 * seq_len * dim + 3 * dim * dim + 3 * seq_len * seq_len)
        ),
    )
)
register(
    Demo(
        name="attention-expansion",
        title="The 4-term expansion of q·k under absolute PE",
        claim="(x_i + p_i)W_Q·((x_j + p_j)W_K) = content·content + content·position + position·content + position·position, exactly.",
        title_zh="绝对位置编码下 q·k 的四项展开",
        claim_zh="(x_i + p_i)W_Q·((x_j + p_j)W_K) 严格等于 内容·内容 + 内容·位置 + 位置·内容 + 位置·位置 四项之和。",
        topic="absolute",
        params=(
            Param("seq_len", "int", 8, min=1, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("max_error", "p2p_relative_error"),
        run=_run_attention_expansion,
        # float32 weights plus their float64 copies for the textbook loops, six [seq, dim] projections,
        # and the four [seq, seq] terms with their sum, diagonal checks and float64 copies
        memory_bytes=lambda seq_len, dim, **_: 24 * dim * dim + 48 * seq_len * dim + 72 * seq_len * seq_len,
    )
)
