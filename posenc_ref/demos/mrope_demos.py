"""Multimodal RoPE (Qwen2-VL / Qwen2.5-VL): temporal, height and width sections."""

from __future__ import annotations

from ._common import (
    angle_tol,
    exact_dtype,
    randn,
    round6,
)
from .base import DemoContext, Param, Value
from .registry import register_demo

TEMPORAL_PATCH_SIZE = 2  # frames per temporal patch (Qwen2-VL / Qwen2.5-VL vision config)


@register_demo(
    name="mrope-sections",
    title="Multimodal RoPE (Qwen2-VL): temporal, height and width sections",
    claim="M-RoPE splits the 64 frequency pairs of a 128-dim head into 16 temporal, 24 height and 24 width pairs; text tokens use the same id on all three axes, and text after an image resumes at the largest vision id plus one. With tokens_per_second > 0, Qwen2.5-VL's rule gives frame group g the temporal id ⌊g · (2 / fps) · tokens_per_second⌋, so the ids track seconds, not frames.",
    title_zh="多模态旋转位置编码（Qwen2-VL）：时间、高度与宽度分段",
    claim_zh="M-RoPE 把 128 维注意力头的 64 个频率对分成 16 个时间对、24 个高度对和 24 个宽度对；文本 token 在三个轴上使用同一个位置 id，图像之后的文本从视觉部分的最大 id 加一处继续编号。当 tokens_per_second > 0 时采用 Qwen2.5-VL 的规则：第 g 个帧组的时间 id 为 ⌊g · (2 / fps) · tokens_per_second⌋，于是 id 跟踪的是秒数而不是帧数。",
    topic="rope-variants",
    params=(
        Param(
            "text_before",
            "int",
            3,
            min=0,
            max=4096,
            help="text tokens before the image",
            help_zh="图像之前的文本 token 数",
        ),
        Param(
            "grid_t",
            "int",
            1,
            min=1,
            max=64,
            help="temporal patches (1 for an image)",
            help_zh="时间方向的块数（图像为 1）",
        ),
        Param(
            "grid_h",
            "int",
            4,
            min=1,
            max=256,
            help="patch rows (after merging)",
            help_zh="块的行数（合并后）",
        ),
        Param(
            "grid_w",
            "int",
            6,
            min=1,
            max=256,
            help="patch columns (after merging)",
            help_zh="块的列数（合并后）",
        ),
        Param(
            "tokens_per_second",
            "float",
            0.0,
            min=0.0,
            max=1000.0,
            help="Qwen2.5-VL temporal ids per second (0: Qwen2-VL consecutive ids)",
            help_zh="Qwen2.5-VL 每秒的时间 id 数（0：Qwen2-VL 的连续 id）",
        ),
        Param(
            "fps",
            "float",
            2.0,
            min=0.01,
            max=1000.0,
            help="video sampling rate (used when tokens_per_second > 0; 2 frames per group)",
            help_zh="视频采样率（tokens_per_second > 0 时使用；每组 2 帧）",
        ),
    ),
    values=(
        Value(
            "n_tokens",
            "tokens in the sequence: text_before + grid_t·grid_h·grid_w + text after",
            "tokens",
            meaning_zh="序列中的 token 数：text_before + grid_t·grid_h·grid_w + 之后的文本",
        ),
        Value(
            "vision_tokens",
            "vision tokens, grid_t·grid_h·grid_w",
            "tokens",
            meaning_zh="视觉 token 数 grid_t·grid_h·grid_w",
        ),
        Value(
            "last_vision_t",
            "temporal id of the last vision token",
            "position id",
            meaning_zh="最后一个视觉 token 的时间 id",
        ),
        Value(
            "last_vision_h",
            "height id of the last vision token",
            "position id",
            meaning_zh="最后一个视觉 token 的高度 id",
        ),
        Value(
            "last_vision_w",
            "width id of the last vision token",
            "position id",
            meaning_zh="最后一个视觉 token 的宽度 id",
        ),
        Value(
            "next_text_position",
            "id of the first text token after the image: largest vision id + 1",
            "position id",
            meaning_zh="图像之后第一个文本 token 的 id：最大视觉 id + 1",
        ),
        Value(
            "temporal_pairs",
            "frequency pairs rotated by the temporal id (mrope_section[0])",
            "pairs",
            meaning_zh="按时间 id 旋转的频率对数（mrope_section[0]）",
        ),
        Value(
            "height_pairs",
            "frequency pairs rotated by the height id (mrope_section[1])",
            "pairs",
            meaning_zh="按高度 id 旋转的频率对数（mrope_section[1]）",
        ),
        Value(
            "width_pairs",
            "frequency pairs rotated by the width id (mrope_section[2])",
            "pairs",
            meaning_zh="按宽度 id 旋转的频率对数（mrope_section[2]）",
        ),
        Value(
            "temporal_id_step",
            "temporal id interval between frame groups (1 for Qwen2-VL)",
            "position ids",
            meaning_zh="相邻帧组之间的时间 id 间隔（Qwen2-VL 为 1）",
        ),
    ),
    # [3, n] int64 ids built from several [n] index arrays, masks and copies: ~128 bytes a token
    memory_bytes=lambda text_before, grid_t, grid_h, grid_w, **_: (
        128 * (text_before + grid_t * grid_h * grid_w + 4)
    ),
)
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
    dtype = exact_dtype(ctx)
    x = randn(0, text_before + text_after, 128).to(ctx.device, dtype)
    text_pos = ids[0, is_text].to(ctx.device)
    m_rope = apply_mrope(x, text_pos.expand(3, -1))
    plain = apply_rope(x, text_pos)
    ctx.check(
        "for text tokens M-RoPE equals ordinary 1-D RoPE",
        float((m_rope - plain).abs().max()),
        angle_tol(ctx.dtype, max(n_tokens, int(ids.max())), float(x.abs().max())),
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
                round6(g * seconds),
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


@register_demo(
    name="axial-rope-split",
    title="Axial 3-D RoPE in video DiTs: how many channels each axis gets",
    claim="Wan 2.1 gives a head of d channels d − 4⌊d/6⌋ for frames and 2⌊d/6⌋ each for height and width (44/42/42 at "
    "d = 128), FLUX and HunyuanVideo 16/56/56; each section is a 1-D RoPE with its own full frequency ladder, so "
    "scores depend only on (Δt, Δh, Δw).",
    title_zh="视频 DiT 的轴向三维 RoPE：每个轴分到多少通道",
    claim_zh="Wan 2.1 把 d 个通道中的 d − 4⌊d/6⌋ 个给帧、高和宽各 2⌊d/6⌋ 个（d = 128 时为 44/42/42），FLUX 和 HunyuanVideo "
    "为 16/56/56；每一段都是带自己完整频率序列的一维 RoPE，所以分数只依赖 (Δt, Δh, Δw)。",
    topic="rope-variants",
    params=(
        Param(
            "head_dim",
            "int",
            128,
            min=6,
            max=1024,
            even=True,
            help="channels per head",
            help_zh="每个头的通道数",
        ),
        Param(
            "base",
            "float",
            10000.0,
            min=1.0001,
            max=1e9,
            help="RoPE base of every axis (Wan, FLUX: 10000)",
            help_zh="每个轴的 RoPE 底数（Wan、FLUX：10000）",
        ),
        Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子"),
    ),
    values=(
        Value(
            "t_channels",
            "channels of the time axis: d − 4⌊d/6⌋ (Wan 2.1)",
            "channels",
            meaning_zh="时间轴的通道数：d − 4⌊d/6⌋（Wan 2.1）",
        ),
        Value(
            "h_channels",
            "channels of the height axis: 2⌊d/6⌋",
            "channels",
            meaning_zh="高度轴的通道数：2⌊d/6⌋",
        ),
        Value(
            "w_channels",
            "channels of the width axis: 2⌊d/6⌋",
            "channels",
            meaning_zh="宽度轴的通道数：2⌊d/6⌋",
        ),
        Value(
            "t_pairs",
            "rotation pairs of the time axis: t_channels / 2",
            "pairs",
            meaning_zh="时间轴的旋转维度对数：t_channels / 2",
        ),
        Value(
            "max_relative_error",
            "largest change of q·k when every position moves by the same shift, relative to the largest score (≈ 0: relative)",
            "relative error",
            meaning_zh="所有位置同时平移后 q·k 的最大变化，相对最大分数（≈ 0：只看相对位置）",
        ),
    ),
    # 8 tokens of q and k in float64 with complex copies, plus tables of ≤ 1024 angles
    memory_bytes=lambda head_dim, **_: 64 * 16 * head_dim + 2**16,
)
def _run_axial_rope_split(ctx: DemoContext, head_dim: int, base: float, seed: int) -> None:
    import numpy as np
    import torch

    from ..axial_rope import (
        FLUX_AXES_DIMS,
        apply_axial_rope,
        apply_axial_rope_np,
        axial_inv_freqs_np,
        wan_axis_split,
    )

    dims = wan_axis_split(head_dim)
    ctx.check(
        f"the three sections cover the head: {dims[0]} + {dims[1]} + {dims[2]} = {head_dim}, each a whole number of pairs",
        abs(sum(dims) - head_dim) + sum(d % 2 for d in dims),
        0,
        zh=f"三段正好覆盖整个头：{dims[0]} + {dims[1]} + {dims[2]} = {head_dim}，每段都是整数个维度对",
    )
    coords = torch.tensor([[0, 0, 0], [3, 5, 7], [1, 9, 2], [6, 0, 4]])
    shift = torch.tensor([11, 4, 13])
    q = randn(seed, 4, head_dim, dtype=torch.float64, device=ctx.device)
    k = randn(seed + 1, 4, head_dim, dtype=torch.float64, device=ctx.device)
    scores = apply_axial_rope(q, coords, dims, base=base) @ apply_axial_rope(k, coords, dims, base=base).T
    moved = (
        apply_axial_rope(q, coords + shift, dims, base=base)
        @ apply_axial_rope(k, coords + shift, dims, base=base).T
    )
    scale = float(scores.abs().max()) or 1.0
    max_relative_error = float((scores - moved).abs().max()) / scale
    ctx.check(
        f"moving every token by (Δt, Δh, Δw) = {tuple(shift.tolist())} leaves every score unchanged",
        max_relative_error,
        1e-12,
        zh=f"把每个 token 都平移 (Δt, Δh, Δw) = {tuple(shift.tolist())} 后，所有分数都不变",
    )
    textbook = apply_axial_rope_np(q.cpu().numpy(), coords.numpy(), dims, base=base)
    ctx.check(
        "the complex-multiply form (as Wan's rope_apply) matches the textbook rotations",
        float(np.abs(apply_axial_rope(q, coords, dims, base=base).cpu().numpy() - textbook).max()),
        1e-12 * head_dim,
        zh="复数乘法形式（与 Wan 的 rope_apply 相同）与教科书的逐对旋转一致",
    )
    ladders = axial_inv_freqs_np(dims, base=base)
    ctx.check_true(
        "every axis starts its own ladder at 1 rad per step: each gets fast and slow frequencies",
        all(inv[0] == 1.0 for inv in ladders),
        zh="每个轴的频率序列都从每步 1 弧度开始：每个轴都有快频率和慢频率",
    )
    ctx.value("t_channels", float(dims[0]))
    ctx.value("h_channels", float(dims[1]))
    ctx.value("w_channels", float(dims[2]))
    ctx.value("t_pairs", float(dims[0] // 2))
    ctx.value("max_relative_error", max_relative_error)
    rows = [["Wan 2.1: d − 4⌊d/6⌋, 2⌊d/6⌋, 2⌊d/6⌋", *dims, "own ladder per axis"]]
    if head_dim == sum(FLUX_AXES_DIMS):
        rows.append(["FLUX.1 / HunyuanVideo", *FLUX_AXES_DIMS, "own ladder per axis"])
        rows.append(["Qwen2-VL M-RoPE (16/24/24 pairs)", 32, 48, 48, "bands of one ladder: t fastest"])
    ctx.table(
        f"Channels per axis, head_dim {head_dim}",
        ["scheme", "t", "h", "w", "frequencies"],
        rows,
        title_zh=f"每个轴的通道数，head_dim 为 {head_dim}",
        columns_zh=["方案", "t", "h", "w", "频率"],
    )
    ctx.table(
        "Slowest wavelength per axis (tokens per turn of its last pair)",
        ["axis", "channels", "slowest wavelength"],
        [[axis, d, float(2 * np.pi / inv[-1])] for axis, d, inv in zip(("t", "h", "w"), dims, ladders)],
        title_zh="每个轴最慢的波长（最后一个维度对转一圈所需的步数）",
        columns_zh=["轴", "通道数", "最慢波长"],
    )
    ctx.note(
        "The split is a design choice: fewer channels on an axis give it a coarser frequency ladder, not a "
        "shorter range. FLUX.1 keeps the first axis at 0 for text and for the image it generates (FLUX.1 Kontext "
        "marks a reference image with 1 there), so 16 channels are plenty; HunyuanVideo puts time on that same "
        "16-channel axis; Wan spends about a third on frames (81 frames are 21 latent frames after the VAE's 4× "
        "temporal stride).",
        zh="怎么分是一种设计选择：某个轴的通道少，意味着它的频率序列更稀疏，而不是覆盖的范围更短。FLUX.1 对文本和它生成的"
        "图像都把第一个轴设为 0（FLUX.1 Kontext 用 1 标记参考图像），所以 16 个通道足够；HunyuanVideo 把时间放在同样只有 16 个"
        "通道的轴上；Wan 把约三分之一的通道给帧（81 帧经过 VAE 的 4 倍时间下采样后是 21 个潜在帧）。",
    )
