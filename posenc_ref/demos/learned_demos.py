"""Learned and discrete absolute PE demos: a learned table cannot extrapolate; integer and binary codes."""

from __future__ import annotations

import math

from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    randn,
    sample_indices,
    torch_dtype,
)
from .base import SEED, DemoContext, Param, ParamError, Value
from .registry import register_demo


@register_demo(
    name="learned-extrapolation",
    title="Learned position tables cannot extrapolate",
    claim="A learned table has no row for positions ≥ max_len, and rows past the training length never receive a gradient, so they stay at their random init.",
    title_zh="可学习的位置表无法外推",
    claim_zh="可学习的位置表里没有位置 ≥ max_len 的行；超出训练长度的行从未收到梯度，因此一直停留在随机初始化的值。",
    topic="absolute",
    params=(
        Param("max_len", "int", 16, min=2, max=100_000, help="rows in the table", help_zh="表的行数"),
        Param(
            "train_len",
            "int",
            8,
            min=1,
            max=100_000,
            help="longest sequence seen in training",
            help_zh="训练中见过的最长序列",
        ),
        Param("dim", "int", 8, min=1, max=4096, help="embedding dimension", help_zh="嵌入维度"),
        SEED,
    ),
    values=(
        Value(
            "refused",
            "1 when looking up position max_len raises PositionOutOfRangeError, else 0",
            "0/1",
            meaning_zh="查找位置 max_len 抛出 PositionOutOfRangeError 时为 1，否则为 0",
        ),
        Value(
            "untrained_grad_norm",
            "gradient norm of the table rows train_len..max_len − 1 (never seen in training; 0)",
            "norm",
            meaning_zh="表中第 train_len..max_len − 1 行（训练中从未出现）的梯度范数（为 0）",
        ),
        Value(
            "trained_grad_norm",
            "gradient norm of rows 0..train_len − 1 after the first step",
            "norm",
            meaning_zh="第一步后第 0..train_len − 1 行的梯度范数",
        ),
        Value(
            "untrained_rows",
            "rows of the table no training sequence reached: max_len − train_len",
            "rows",
            meaning_zh="训练序列从未触及的行数：max_len − train_len",
        ),
        Value(
            "parameters",
            "trainable numbers in the table: max_len × dim",
            "count",
            meaning_zh="表中可训练参数的个数：max_len × dim",
        ),
    ),
    # float32: a batch of 4 sequences (tokens, targets, the loss's temporaries and their
    # gradients: up to ~56 copies of [train_len, dim]) and the table with its init copy, gradient, drift
    memory_bytes=lambda max_len, train_len, dim, **_: 4 * dim * (56 * train_len + 6 * max_len),
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
        grad = table.weight.grad
        assert grad is not None  # backward() just filled it
        if step == 0:
            grad_norm_rows = grad.detach().norm(dim=-1).cpu()
        with torch.no_grad():
            table.weight.sub_(0.1 * grad)
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
    zero_rows = int((grad_norm_rows == 0).sum())  # rows whose gradient is exactly zero, counted
    parameters = sum(p.numel() for p in table.parameters())
    ctx.check(
        f"the rows that never get a gradient are exactly rows {train_len}..{max_len - 1}: max_len − train_len",
        zero_rows - (max_len - train_len),
        0,
        zh=f"从未得到梯度的行恰好是第 {train_len}..{max_len - 1} 行：max_len − train_len 行",
    )
    ctx.check(
        f"the table holds max_len × dim = {max_len * dim} parameters",
        parameters - max_len * dim,
        0,
        zh=f"位置表共有 max_len × dim = {max_len * dim} 个参数",
    )
    ctx.value("refused", refused)
    ctx.value("untrained_grad_norm", untrained)
    ctx.value("trained_grad_norm", trained)
    ctx.value("untrained_rows", float(zero_rows))
    ctx.value("parameters", float(parameters))

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


@register_demo(
    name="integer-binary-pe",
    title="Why not integer or binary position codes?",
    claim="Integer codes grow without bound (position L−1 dwarfs the embeddings); binary codes are bounded but need ceil(log2 L) bits and jump discretely between neighbours.",
    title_zh="为什么不直接用整数或二进制编码位置？",
    claim_zh="整数编码没有上界（位置 L−1 的数值远远盖过词嵌入）；二进制编码有界，但需要 ceil(log2 L) 位，而且相邻位置之间是离散跳变。",
    topic="why-pe",
    params=(
        Param("seq_len", "int", 16, min=2, max=1_000_000, help="sequence length L", help_zh="序列长度 L"),
    ),
    values=(
        Value(
            "integer_max",
            "integer code of the last position, L − 1",
            "position",
            meaning_zh="最后一个位置的整数编码 L − 1",
        ),
        Value(
            "binary_bits",
            "bits a binary code needs for L positions, ceil(log2 L)",
            "bits",
            meaning_zh="二进制编码 L 个位置所需的位数 ceil(log2 L)",
        ),
        Value(
            "max_neighbour_jump",
            "most bits that flip between neighbouring positions",
            "bits",
            meaning_zh="相邻位置之间最多翻转的位数",
        ),
    ),
    # float64 integer, normalised and binary codes and the bit-flip counts: ~80 numbers a position
    memory_bytes=lambda seq_len, **_: 8 * seq_len * 80,
    uses_torch=False,
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


@register_demo(
    name="vit-table-resize",
    title="Resizing a ViT's learned 2-D position table",
    claim="Set the class row aside, reshape the patch rows to their grid, interpolate to the target size in float32 "
    "(bicubic), flatten back; asking F.interpolate for a scale_factor instead can round the grid down by one.",
    title_zh="缩放 ViT 的二维可学习位置表",
    claim_zh="先把 class 行放到一边，把 patch 行还原成网格，在 float32 下按目标尺寸插值（双三次），再展平回去；"
    "若改给 F.interpolate 一个 scale_factor，网格可能被向下取整少一行。",
    topic="rope-variants",
    params=(
        Param(
            "grid",
            "int",
            14,
            min=1,
            max=64,
            help="trained grid side (224 / 16 = 14)",
            help_zh="训练时网格的边长（224 / 16 = 14）",
        ),
        Param("new_h", "int", 24, min=1, max=128, help="new grid rows", help_zh="新网格的行数"),
        Param("new_w", "int", 24, min=1, max=128, help="new grid columns", help_zh="新网格的列数"),
        Param(
            "dim",
            "int",
            8,
            min=4,
            max=1024,
            even=True,
            help="embedding width (even: half for rows, half for columns)",
            help_zh="嵌入宽度（偶数：一半给行，一半给列）",
        ),
        SEED,
    ),
    values=(
        Value(
            "tokens",
            "rows of the resized table: 1 (class token) + new_h × new_w",
            "rows",
            meaning_zh="缩放后位置表的行数：1（class token）+ new_h × new_w",
        ),
        Value(
            "scale_factor_rows",
            "grid rows F.interpolate gives with scale_factor = new_h / grid (the rounding trap)",
            "rows",
            meaning_zh="用 scale_factor = new_h / grid 时 F.interpolate 给出的行数（取整陷阱）",
        ),
        Value(
            "prefix_error",
            "largest change of the class-token row (kept apart, so 0)",
            "abs error",
            meaning_zh="class token 这一行的最大变化（单独保留，所以为 0）",
        ),
        Value(
            "round_trip_error",
            "relative error of grid → new size → grid: the blur resizing costs",
            "relative error",
            meaning_zh="网格 → 新尺寸 → 网格往返后的相对误差：缩放带来的模糊",
        ),
    ),
    # float32: the table, its image, the resized copies (size= and scale_factor=) and the round trip
    memory_bytes=lambda grid, new_h, new_w, dim, **_: (
        4 * dim * (8 * grid * grid + 6 * (new_h + 1) * (new_w + 1))
    ),
)
def _run_vit_table_resize(ctx: DemoContext, grid: int, new_h: int, new_w: int, dim: int, seed: int) -> None:
    import torch
    import torch.nn.functional as F

    from ..learned import resample_2d_table
    from ..sinusoidal import sinusoidal_pe

    # a smooth stand-in for a trained table (MAE-style 2-D sin-cos: half the width for the row, half for the
    # column) after a random class row
    axis = sinusoidal_pe(grid, dim // 2, device=ctx.device, dtype=torch.float32)
    patches = torch.cat(
        [axis[:, None, :].expand(grid, grid, dim // 2), axis[None, :, :].expand(grid, grid, dim // 2)], dim=-1
    )
    cls_row = randn(seed, 1, dim, device=ctx.device, dtype=torch.float32)
    table = torch.cat([cls_row, patches.reshape(grid * grid, dim)], dim=0)
    resized = resample_2d_table(table, (grid, grid), (new_h, new_w))
    ctx.check(
        f"size=({new_h}, {new_w}) gives exactly 1 + {new_h}·{new_w} = {1 + new_h * new_w} rows",
        resized.shape[0] - (1 + new_h * new_w),
        0,
        zh=f"size=({new_h}, {new_w}) 恰好给出 1 + {new_h}·{new_w} = {1 + new_h * new_w} 行",
    )
    prefix_error = float((resized[0] - table[0]).abs().max())
    ctx.check(
        "the class row is copied, never interpolated", prefix_error, 0.0, zh="class 行原样复制，不参与插值"
    )
    same = resample_2d_table(table, (grid, grid), (grid, grid))
    ctx.check(
        "resizing to the trained grid returns the table unchanged",
        float((same - table).abs().max()),
        1e-5,
        zh="缩放到训练时的网格时，位置表保持不变",
    )
    half = resample_2d_table(table.to(torch.bfloat16), (grid, grid), (new_h, new_w))
    in_float32 = resample_2d_table(table.to(torch.bfloat16).float(), (grid, grid), (new_h, new_w))
    ctx.check(
        "a bf16 table is interpolated in float32 and cast back: exactly the float32 result rounded to bf16",
        float((half.float() - in_float32.to(torch.bfloat16).float()).abs().max()),
        0.0,
        zh="bf16 的位置表在 float32 下插值后再转回：恰好等于 float32 结果舍入到 bf16",
    )
    image = table[1:].reshape(1, grid, grid, dim).permute(0, 3, 1, 2)
    by_factor = F.interpolate(image, scale_factor=(new_h / grid, new_w / grid), mode="bicubic")
    scale_factor_rows = by_factor.shape[-2]
    back = resample_2d_table(resized, (new_h, new_w), (grid, grid))
    round_trip_error = float((back[1:] - table[1:]).norm() / table[1:].norm())
    ctx.value("tokens", float(resized.shape[0]))
    ctx.value("scale_factor_rows", float(scale_factor_rows))
    ctx.value("prefix_error", prefix_error)
    ctx.value("round_trip_error", round_trip_error)
    ctx.table(
        f"{grid}×{grid} → {new_h}×{new_w}",
        ["quantity", "value"],
        [
            ["rows with size= (class + grid)", int(resized.shape[0])],
            [
                f"grid from scale_factor=({new_h}/{grid}, {new_w}/{grid})",
                f"{scale_factor_rows}×{by_factor.shape[-1]}",
            ],
            ["relative error after resizing there and back", round_trip_error],
        ],
        title_zh=f"{grid}×{grid} → {new_h}×{new_w}",
        columns_zh=["量", "值"],
    )
    if (scale_factor_rows, by_factor.shape[-1]) != (new_h, new_w):
        ctx.note(
            f"scale_factor={new_h}/{grid} times {grid} lands just below {new_h} in floating point, and the output "
            f"size is rounded down: {scale_factor_rows} rows. DINO adds 0.1 to the target for this reason; "
            "passing size= avoids it.",
            zh=f"scale_factor={new_h}/{grid} 乘以 {grid} 在浮点下略小于 {new_h}，输出尺寸又向下取整：只得到 "
            f"{scale_factor_rows} 行。DINO 正是因此给目标尺寸加 0.1；直接传 size= 就不会出这个问题。",
        )
    ctx.note(
        "Interpolation keeps neighbouring rows similar but blurs them: the round trip does not return the table. "
        "Border rows are extrapolated by the bicubic kernel, and a different aspect ratio stretches one axis more "
        "than the other; a short fine-tune at the new size repairs most of it.",
        zh="插值让相邻的行保持相似，但也把它们抹模糊了：缩放过去再缩放回来得不到原表。边缘的行由双三次核外推得到，"
        "宽高比改变时一个轴被拉伸得比另一个多；在新尺寸上短暂微调能修复大部分问题。",
    )
