"""Relative-family demos: T5 buckets, Shaw clipping, Transformer-XL/XLNet terms (DeBERTa: deberta_demos.py).

Value meanings that are not obvious from their names:

* t5-buckets ``first_max_bucket_distance``: the smallest |key − query| (key before the query) that
  lands in the last bucket of its direction (91 for 32 buckets / 128 bidirectional);
  ``exact_buckets``: distances with a bucket of their own per direction (8 bidirectional, 16 causal).
* xlnet-terms ``position_only_rank``: the numerical rank of the position-only term (d) = v·R_(i−j)W_k,R
  over a min(2d + 8, 1024)-position grid. Each sin/cos pair contributes rank ≤ 2, so it is ≤ d however
  long the grid (ALiBi's −m·|i − j| is full rank).
"""

from __future__ import annotations

from typing import Any

from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    max_abs_diff,
    randn,
    sample_indices,
    score_term_matrices,
    to_numpy,
    tol_for,
    torch_dtype,
)
from .base import SEED, DemoContext, Param, ParamError, Value
from .registry import register_demo

# HF T5 bucket ids for these key − query offsets, 32 buckets, max_distance 128
T5_WORKED_POSITIONS = (-128, -64, -20, -8, -1, 0, 1, 8, 20, 64, 128)
T5_WORKED_BIDIRECTIONAL = (15, 14, 10, 8, 1, 0, 17, 24, 26, 30, 31)
T5_WORKED_CAUSAL = (31, 26, 17, 8, 1, 0, 0, 0, 0, 0, 0)


@register_demo(
    name="t5-buckets",
    title="T5 relative position buckets",
    claim="T5 maps key − query to a bucket: exact for small distances, log-spaced up to max_distance, then saturated; bidirectional buckets split by direction.",
    title_zh="T5 相对位置分桶",
    claim_zh="T5 把 key − query 映射到一个桶：小距离精确对应，较大距离按对数间隔分桶直到 max_distance，再往外则饱和；双向分桶时按方向分成两半。",
    topic="relative",
    params=(
        Param(
            "bidirectional",
            "bool",
            True,
            help="encoder (true) or causal decoder (false)",
            help_zh="编码器（true）或因果解码器（false）",
        ),
        Param(
            "num_buckets", "int", 32, min=2, max=1024, even=True, help="number of buckets", help_zh="桶的个数"
        ),
        Param(
            "max_distance",
            "int",
            128,
            min=2,
            max=1_000_000,
            help="distance where buckets saturate",
            help_zh="桶开始饱和的距离",
        ),
        Param(
            "relative_position",
            "int",
            -50,
            min=-10_000_000,
            max=10_000_000,
            help="key − query whose bucket is the value `bucket`",
            help_zh="key − query 的相对位置，其桶号即值 `bucket`",
        ),
    ),
    values=(
        Value(
            "max_error",
            "largest |fast bucket − textbook bucket| over the probed distances",
            "buckets",
            meaning_zh="探测的各距离上快速实现与教科书实现的桶号之差的最大绝对值",
        ),
        Value(
            "first_max_bucket_distance",
            "smallest distance (key before the query) in the last bucket of its direction",
            "positions",
            meaning_zh="（键在查询之前时）落入该方向最后一个桶的最小距离",
        ),
        Value(
            "exact_buckets",
            "distances with a bucket of their own per direction (8 bidirectional, 16 causal)",
            "count",
            meaning_zh="每个方向上独占一个桶的距离个数（双向 8，因果 16）",
        ),
        Value(
            "bucket",
            "bucket of the relative position `relative_position` (key − query)",
            "bucket index",
            meaning_zh="相对位置 `relative_position`（key − query）的桶号",
        ),
    ),
    memory_bytes=lambda max_distance, **_: 8 * (4 * max_distance + 64) * 4,
)
def _run_t5_buckets(
    ctx: DemoContext, bidirectional: bool, num_buckets: int, max_distance: int, relative_position: int = -50
) -> None:
    import numpy as np
    import torch

    from ..t5 import (
        t5_bucket_grid,
        t5_relative_position_bucket,
        t5_relative_position_bucket_np,
        t5_validate_params,
    )

    try:
        exact = t5_validate_params(bidirectional, num_buckets, max_distance)
    except ValueError as exc:
        raise ParamError(str(exc)) from None
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    kw: dict[str, Any] = {
        "bidirectional": bidirectional,
        "num_buckets": num_buckets,
        "max_distance": max_distance,
    }

    worked = (
        t5_relative_position_bucket(torch.tensor(T5_WORKED_POSITIONS, device=ctx.device), **kw).cpu().tolist()
    )
    ctx.table(
        "Bucket per relative position",
        ["relative position (key − query)", "bucket"],
        [[rp, b] for rp, b in zip(T5_WORKED_POSITIONS, worked)],
        title_zh="每个相对位置对应的桶",
        columns_zh=["相对位置（key − query）", "桶"],
    )
    # fast (HF's float32 formula) against the textbook float64 loop over a dense range plus far points
    dense = min(2 * max_distance, 2048)
    far = [max_distance - 1, max_distance, max_distance + 1, 10 * max_distance, 1000 * max_distance]
    probe = sorted(set(range(-dense, dense + 1)) | set(far) | {-x for x in far})
    fast = t5_relative_position_bucket(torch.tensor(probe, device=ctx.device), **kw).cpu().numpy()
    textbook = t5_relative_position_bucket_np(probe, **kw)
    max_error = float(np.abs(fast - textbook).max())
    ctx.check(
        f"HF-style torch buckets equal the textbook float64 loop on {len(probe)} offsets",
        max_error,
        0.0,
        zh=f"HF 风格的 torch 分桶在 {len(probe)} 个偏移上与教科书 float64 循环一致",
    )
    if num_buckets == 32 and max_distance == 128:
        published = T5_WORKED_BIDIRECTIONAL if bidirectional else T5_WORKED_CAUSAL
        ctx.check(
            "the worked vector matches transformers' T5Attention._relative_position_bucket",
            float(np.abs(np.asarray(worked) - np.asarray(published)).max()),
            0.0,
            zh="示例向量与 transformers 的 T5Attention._relative_position_bucket 一致",
        )

    # past keys (rp = −n): distances 0 .. max_distance, and where the last bucket is first reached
    distances = torch.arange(0, max_distance + 1, device=ctx.device)
    past = t5_relative_position_bucket(-distances, **kw).cpu().numpy()
    last = per_direction - 1
    reached = np.nonzero(past == last)[0]
    first_max = int(reached[0]) if reached.size else -1
    ctx.check_true(
        f"the last bucket ({last}) is reached at distance {first_max}, no later than max_distance = {max_distance}",
        0 < first_max <= max_distance,
        zh=f"最后一个桶（{last}）在距离 {first_max} 处首次出现，不晚于 max_distance = {max_distance}",
    )
    ctx.check(
        f"distances 0..{exact - 1} each get their own bucket (exact)",
        float(np.abs(past[:exact] - np.arange(exact)).max()),
        0.0,
        zh=f"距离 0..{exact - 1} 各自独占一个桶（精确）",
    )
    ctx.check_true(
        "buckets never decrease as the distance grows",
        bool(np.all(np.diff(past) >= 0)),
        zh="距离增大时桶号从不减小",
    )
    if bidirectional:
        future = t5_relative_position_bucket(distances, **kw).cpu().numpy()
        ctx.check(
            f"keys after the query use the upper half: bucket(+n) = bucket(−n) + {per_direction} for n > 0",
            float(np.abs(future[1:] - past[1:] - per_direction).max()),
            0.0,
            zh=f"查询之后的键使用上半部分：n > 0 时 bucket(+n) = bucket(−n) + {per_direction}",
        )
    else:
        future = t5_relative_position_bucket(distances, **kw).cpu().numpy()
        ctx.check(
            "causal: every key after the query falls in bucket 0",
            float(np.abs(future).max()),
            0.0,
            zh="因果：查询之后的每个键都落在桶 0",
        )
    ctx.value("max_error", max_error)
    ctx.value("first_max_bucket_distance", float(first_max))
    ctx.value("exact_buckets", float(exact))
    one = t5_relative_position_bucket(torch.tensor([relative_position], device=ctx.device), **kw)
    ctx.value("bucket", float(one.item()))

    rows: list[list[Any]] = []
    starts = np.searchsorted(past, np.arange(per_direction), side="left")  # past is non-decreasing
    ends = np.searchsorted(past, np.arange(per_direction), side="right")
    for b in sample_indices(per_direction, 64):
        lo, hi = int(starts[b]), int(ends[b]) - 1
        if hi < lo:
            rows.append([b, "(no integer distance)", "", 0])
        elif b < last:
            rows.append([b, lo, str(hi), hi - lo + 1])
        else:
            rows.append([b, lo, f"{hi} and beyond", "∞"])
    ctx.table(
        "Which key-before-query distances n (rp = −n) share each bucket",
        ["bucket", "from n", "to n", "distances in bucket"],
        rows,
        title_zh="键在查询之前时，哪些距离 n（rp = −n）共用同一个桶",
        columns_zh=["桶", "n 从", "n 到", "桶内距离数"],
    )
    span = max_distance + max_distance // 4
    xs = np.arange(-span, span + 1)
    idx = sample_indices(len(xs), MAX_SERIES_POINTS)
    xs = xs[idx]
    ys = t5_relative_position_bucket(torch.tensor(xs, device=ctx.device), **kw).cpu().tolist()
    ctx.series(
        "Bucket against key − query",
        [float(x) for x in xs],
        {"bucket": ys},
        "key − query",
        "bucket",
        title_zh="桶号随 key − query 的变化",
    )
    side = MAX_MATRIX_SIDE
    ctx.matrix(
        f"Bucket for query i, key j ({side}×{side})",
        t5_bucket_grid(side, side, device=ctx.device, **kw).cpu(),
        "query i",
        "key j",
        title_zh=f"查询 i、键 j 对应的桶（{side}×{side}）",
        row_label_zh="查询 i",
        col_label_zh="键 j",
    )
    ctx.note(
        "Each head learns one scalar per bucket, added to the unscaled q·k (T5 has no 1/√d). The bias is "
        "shared by all layers; beyond max_distance every offset looks the same.",
        zh="每个头为每个桶学一个标量，加在未缩放的 q·k 上（T5 没有 1/√d）。这个偏置在所有层之间共享；"
        "超过 max_distance 后，所有偏移看起来都一样。",
    )


def _shaw_row_note(d: int, clip: int) -> str:
    if clip == 0:
        return "the only row: k = 0 keeps no distance"
    if abs(d) >= clip:
        return f"edge row w{'₋' if d < 0 else '₊'}ₖ, shared"
    return "own row"


def _shaw_gap(first: int, last: int, clipped: int, clip: int) -> str:
    """The note on a skipped run of distances (all past the clip, so all on one edge row)."""
    lo, hi = sorted((first, last))
    return f"j − i = {lo} … {hi} not listed: all clip to {clipped}, row {clipped + clip}"


@register_demo(
    name="shaw-relative",
    title="Shaw et al.: clipped relative position embeddings",
    claim="Shaw's scheme learns 2k + 1 vectors for relative distances clipped to [−k, k] and adds them to the keys (and values) inside attention.",
    title_zh="Shaw 等人的截断相对位置嵌入",
    claim_zh="Shaw 的方案为截断到 [−k, k] 的相对距离学习 2k + 1 个向量，并在注意力内部把它们加到键（以及值）上。",
    topic="relative",
    params=(
        Param("seq_len", "int", 8, min=1, max=4096, help="tokens", help_zh="token 数"),
        Param("clip", "int", 2, min=0, max=4096, help="clipping distance k", help_zh="截断距离 k"),
        Param("dim", "int", 8, min=1, max=1024, help="head dimension", help_zh="头维度"),
        SEED,
        Param(
            "distance",
            "int",
            3,
            min=-100_000,
            max=100_000,
            help="relative distance j − i whose table row is the value `row_for_distance`",
            help_zh="相对距离 j − i，其表中行号即值 `row_for_distance`",
        ),
    ),
    values=(
        Value(
            "n_embeddings",
            "rows of the relative-embedding table, 2k + 1",
            "count",
            meaning_zh="相对位置嵌入表的行数 2k + 1",
        ),
        Value(
            "max_error",
            "|fast Shaw attention (keys and values) − the textbook loops|, largest entry",
            "abs error",
            meaning_zh="快速 Shaw 注意力（键和值）与教科书循环之差的最大绝对值",
        ),
        Value(
            "row_for_distance",
            "table row used for the distance j − i = `distance`: clip(j − i, −k, k) + k",
            "row index",
            meaning_zh="距离 j − i = `distance` 所用的表行号：clip(j − i, −k, k) + k",
        ),
    ),
    # [L, L] index grids, masks and logits (no [L, L, d] tensor is ever built), [L, d] q/k/v,
    # q·w^K for every table row, and the two tables in float32 and float64
    memory_bytes=lambda seq_len, clip, dim, **_: (
        88 * seq_len * seq_len + 64 * seq_len * dim + 40 * (2 * clip + 1) * (seq_len + dim)
    ),
)
def _run_shaw_relative(
    ctx: DemoContext, seq_len: int, clip: int, dim: int, seed: int, distance: int = 3
) -> None:
    from ..shaw import shaw_attention, shaw_attention_np, shaw_attention_scores, shaw_relative_indices

    dt = torch_dtype(ctx)
    idx = shaw_relative_indices(seq_len, seq_len, clip, device=ctx.device)
    n_embeddings = 2 * clip + 1
    used = int(idx.unique().numel())
    ctx.check_true(
        f"2k + 1 = {n_embeddings} table {'row covers' if n_embeddings == 1 else 'rows cover'} every distance; "
        f"this sequence uses {used} of them",
        used == min(n_embeddings, 2 * seq_len - 1),
        zh=f"2k + 1 = {n_embeddings} 行覆盖所有距离；这个序列用到其中 {used} 行",
    )
    offsets = idx.new_tensor(range(seq_len))[None, :] - idx.new_tensor(range(seq_len))[:, None]
    beyond = offsets.abs() >= clip
    edge_ok = bool(((idx == 0) | (idx == 2 * clip))[beyond].all()) if clip > 0 else bool((idx == 0).all())
    ctx.check_true(
        f"every pair with |j − i| ≥ {clip} shares an edge row (w₋ₖ or w₊ₖ)",
        edge_ok,
        zh=f"所有 |j − i| ≥ {clip} 的位置对共用边缘行（w₋ₖ 或 w₊ₖ）",
    )

    n = min(seq_len, 48)
    q, k = (randn(seed + i, seq_len, dim, device=ctx.device, dtype=dt) for i in (0, 1))
    v = randn(seed + 2, seq_len, dim, device=ctx.device, dtype=dt)
    rel_k, rel_v = (randn(seed + i, n_embeddings, dim, device=ctx.device, dtype=dt) for i in (3, 4))
    z, weights = shaw_attention(q[:n], k[:n], v[:n], rel_k, clip, rel_v=rel_v)
    q_np, k_np, v_np, rel_k_np = (to_numpy(t) for t in (q[:n], k[:n], v[:n], rel_k))
    z_ref, w_ref = shaw_attention_np(q_np, k_np, v_np, rel_k_np, clip, rel_v=to_numpy(rel_v))
    max_error = max(max_abs_diff(z, z_ref), max_abs_diff(weights, w_ref))
    ctx.check(
        f"fast Shaw attention (keys and values) matches the textbook loops (first {n} tokens)",
        max_error,
        1e-5,
        zh=f"快速 Shaw 注意力（键和值）与教科书循环一致（前 {n} 个 token）",
    )
    # the same token everywhere: scores then depend on clip(j − i) only -> constant along diagonals
    same_q = q[:1].expand(seq_len, dim)
    same_k = k[:1].expand(seq_len, dim)
    e = shaw_attention_scores(same_q, same_k, rel_k, clip)
    toeplitz = max_abs_diff(e[1:, 1:], e[:-1, :-1]) if seq_len > 1 else 0.0
    ctx.check(
        "with identical tokens the scores depend on j − i only (translation invariant)",
        toeplitz,
        1e-5,
        zh="token 全部相同时，分数只依赖 j − i（平移不变）",
    )
    ctx.value("n_embeddings", float(n_embeddings))
    # the library's own index grid for one (query, key) pair that far apart: 1 × (d + 1) or (|d| + 1) × 1
    reach = abs(distance) + 1
    grid = shaw_relative_indices(1 if distance >= 0 else reach, reach if distance >= 0 else 1, clip)
    ctx.value("row_for_distance", float(grid[0, -1] if distance >= 0 else grid[-1, 0]))
    ctx.value("max_error", max_error)

    rows: list[list[Any]] = []
    for d in range(-(seq_len - 1), seq_len):
        shown = abs(d) <= clip + 3 or abs(d) == seq_len - 1
        if not shown:
            if d < 0 and d + 1 == -(clip + 3):  # the last of a skipped run below −k − 3
                rows.append(["…", "…", "…", _shaw_gap(-(seq_len - 2), d, -clip, clip)])
            elif d == seq_len - 2:  # the end of the skipped run above k + 3
                rows.append(["…", "…", "…", _shaw_gap(clip + 4, d, clip, clip)])
            continue
        c = max(-clip, min(clip, d))
        rows.append([d, c, c + clip, _shaw_row_note(d, clip)])
    ctx.table(
        "Relative distance j − i → table row",
        ["j − i", "clip(j − i, k)", "row of wᴷ / wⱽ", "note"],
        rows,
        title_zh="相对距离 j − i → 表中的行",
        columns_zh=["j − i", "clip(j − i, k)", "wᴷ / wⱽ 的行", "说明"],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    axes_zh = {"row_label_zh": "查询 i", "col_label_zh": "键 j"}
    ctx.matrix(
        f"Table row used by (query i, key j), k = {clip}",
        idx[:side, :side].cpu(),
        "query i",
        "key j",
        title_zh=f"（查询 i, 键 j）使用的表行，k = {clip}",
        **axes_zh,
    )
    logits = shaw_attention_scores(q[:side], k[:side], rel_k, clip)
    ctx.matrix(
        "Shaw logits eᵢⱼ (random q, k, wᴷ)",
        logits.cpu(),
        "query i",
        "key j",
        title_zh="Shaw 的 logit eᵢⱼ（随机的 q、k、wᴷ）",
        **axes_zh,
    )
    ctx.note(
        "Shaw et al. (Table 2) saw BLEU change little for k ≥ 2: a few local relative vectors plus depth "
        "let the model reach further.",
        zh="Shaw 等人（表 2）发现 k ≥ 2 之后 BLEU 变化不大：少量局部相对向量加上网络深度，就能让模型看得更远。",
    )


@register_demo(
    name="xlnet-terms",
    title="Transformer-XL/XLNet attention: four terms with u and v",
    claim="Transformer-XL replaces p_j with the sinusoid of i − j and the query's position terms with learned u and v; the four terms still sum to the full score.",
    title_zh="Transformer-XL/XLNet 注意力：带 u 和 v 的四项",
    claim_zh="Transformer-XL 用 i − j 的正弦编码替换 p_j，用可学习的 u 和 v 替换查询一侧的位置项；四项相加仍等于完整的注意力分数。",
    topic="relative",
    params=(
        Param("seq_len", "int", 6, min=1, max=2048, help="tokens", help_zh="token 数"),
        Param(
            "dim",
            "int",
            8,
            min=2,
            max=1024,
            even=True,
            help="head dimension (even)",
            help_zh="头维度（偶数）",
        ),
        SEED,
        Param(
            "mem_len",
            "int",
            3,
            min=1,
            max=4096,
            help="cached tokens of earlier segments (memory)",
            help_zh="前面各段缓存的 token 数（记忆）",
        ),
    ),
    values=(
        Value(
            "max_error",
            "|(a) + (b) + (c) + (d) − the Transformer-XL score (qᵢ + u)·kⱼ + (qᵢ + v)·r₍ᵢ₋ⱼ₎|, largest entry",
            "abs error",
            meaning_zh="(a) + (b) + (c) + (d) 与 Transformer-XL 分数 (qᵢ + u)·kⱼ + (qᵢ + v)·r₍ᵢ₋ⱼ₎ 之差的最大绝对值",
        ),
        Value(
            "position_only_rank",
            "numerical rank of the position-only term (d) over a min(2d + 8, 1024)-position grid (≤ d)",
            "rank",
            meaning_zh="纯位置项 (d) 在 min(2d + 8, 1024) 个位置的网格上的数值秩（≤ d）",
        ),
        Value(
            "relative_rows",
            "distinct relative distances a segment of seq_len tokens attends over with mem_len cached: "
            "seq_len + mem_len",
            "count",
            meaning_zh="一段 seq_len 个 token 在缓存 mem_len 个 token 时要用到的不同相对距离个数：seq_len + mem_len",
        ),
    ),
    # the [L, L, d] gathered r_(i−j), the [L, L] terms, the rank's grid (≤ 1024²) and its SVD, and the
    # memory check's [≤ 32, M + 32] terms with their per-distance sinusoids
    memory_bytes=lambda seq_len, dim, mem_len=3, **_: (
        8 * seq_len * seq_len * (dim + 12)
        + 32 * min(2 * dim + 8, 1024) ** 2
        + 8 * (mem_len + 64) * (dim + 64) * 12
    ),
)
def _run_xlnet_terms(ctx: DemoContext, seq_len: int, dim: int, seed: int, mem_len: int = 3) -> None:
    import torch

    from ..sinusoidal import sinusoidal_pe
    from ..xlnet import xlnet_score_terms, xlnet_score_terms_np

    dt = torch_dtype(ctx)
    x = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    w_q, w_k_e, w_k_r = (
        randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (1, 2, 3)
    )
    u, v = (randn(seed + i, dim, device=ctx.device, dtype=dt) for i in (4, 5))
    terms = xlnet_score_terms(x, w_q, w_k_e, w_k_r, u, v)

    # Transformer-XL's own grouping: (q + u)·k  +  (q + v)·r_{i−j}
    q, k = x @ w_q, x @ w_k_e
    delta = (
        torch.arange(seq_len, device=ctx.device)[:, None] - torch.arange(seq_len, device=ctx.device)[None, :]
    )
    rel = sinusoidal_pe(
        2 * seq_len - 1, dim, layout="concat", device=ctx.device, dtype=dt, offset=1 - seq_len
    )
    r = (rel @ w_k_r)[delta + seq_len - 1]  # [L, L, d]: r_{i−j}
    ac = (q + u) @ k.T
    bd = torch.einsum("id,ijd->ij", q + v, r)
    full = ac + bd
    max_error = max_abs_diff(terms.total, full)
    ctx.check(
        "(a) + (b) + (c) + (d) = (qᵢ + u)·kⱼ + (qᵢ + v)·r₍ᵢ₋ⱼ₎, the Transformer-XL score",
        max_error,
        tol_for(to_numpy(full)),
        zh="(a) + (b) + (c) + (d) = (qᵢ + u)·kⱼ + (qᵢ + v)·r₍ᵢ₋ⱼ₎，即 Transformer-XL 的分数",
    )

    n = min(seq_len, 32)
    textbook = xlnet_score_terms_np(*(to_numpy(t) for t in (x[:n], w_q, w_k_e, w_k_r, u, v)))
    worst = max(max_abs_diff(fast[:n, :n], slow) for fast, slow in zip(terms, textbook))
    ctx.check(
        f"fast terms match the textbook float64 loops (first {n} tokens)",
        worst,
        tol_for(textbook.total),
        zh=f"快速实现的各项与教科书 float64 循环一致（前 {n} 个 token）",
    )
    # with a memory segment the queries move to positions M .. M + L − 1
    memory = randn(seed + 6, mem_len, dim, device=ctx.device, dtype=dt)
    with_mem = xlnet_score_terms(x[:n], w_q, w_k_e, w_k_r, u, v, memory=memory)
    textbook_mem = xlnet_score_terms_np(
        *(to_numpy(t) for t in (x[:n], w_q, w_k_e, w_k_r, u, v)), memory=to_numpy(memory)
    )
    ctx.check(
        f"with {mem_len} memory tokens prepended, fast and textbook still agree",
        max_abs_diff(with_mem.total, textbook_mem.total),
        tol_for(textbook_mem.total),
        zh=f"在前面拼上 {mem_len} 个记忆 token 后，快速实现与教科书仍然一致",
    )
    # Transformer-XL builds R for klen = M + L distances, klen − 1 .. 0 (pos_seq = arange(klen − 1, −1, −1)):
    # exactly the offsets i + M − j of the causal pairs (key j ≤ query position i + M)
    qpos = torch.arange(seq_len)[:, None] + mem_len
    offsets = qpos - torch.arange(mem_len + seq_len)[None, :]
    relative_rows = int(torch.unique(offsets[offsets >= 0]).numel())
    ctx.check(
        f"a segment of {seq_len} queries with {mem_len} memory tokens uses klen = M + L = {mem_len + seq_len} "
        "distinct causal offsets, one row of R each",
        relative_rows - (mem_len + seq_len),
        0,
        zh=f"{seq_len} 个查询、{mem_len} 个记忆 token 的片段用到 klen = M + L = {mem_len + seq_len} 个不同的因果偏移，"
        "每个对应 R 的一行",
    )
    d_term = terms.d
    toeplitz = max_abs_diff(d_term[1:, 1:], d_term[:-1, :-1]) if seq_len > 1 else 0.0
    ctx.check(
        "term (d) v·r₍ᵢ₋ⱼ₎ is the same along every diagonal: a pure function of i − j",
        toeplitz,
        1e-5,
        zh="(d) 项 v·r₍ᵢ₋ⱼ₎ 沿每条对角线都相同：只是 i − j 的函数",
    )
    column = max_abs_diff(terms.c, terms.c[:1].expand_as(terms.c))
    ctx.check(
        "term (c) u·kⱼ is the same for every query: a per-key bias",
        column,
        1e-6,
        zh="(c) 项 u·kⱼ 对每个查询都相同：是按键的偏置",
    )

    # rank of the position-only term over a grid bigger than the model dim
    grid = min(2 * dim + 8, 1024)
    pos = torch.arange(grid, dtype=torch.float64)
    w = w_k_r.double().cpu() @ v.double().cpu()  # d_model vector: v·W_kR·R_δ = R_δ · w
    r_all = sinusoidal_pe(2 * grid - 1, dim, layout="concat", dtype=torch.float64, offset=1 - grid) @ w
    toeplitz_grid = r_all[(pos[:, None] - pos[None, :]).long() + grid - 1]
    rank = int(torch.linalg.matrix_rank(toeplitz_grid, rtol=1e-9))
    ctx.check_true(
        f"on a {grid}×{grid} grid the position-only term has rank {rank} ≤ d = {dim} "
        "(each sin/cos pair adds rank ≤ 2: cos(ω(i−j)) = cos ωi cos ωj + sin ωi sin ωj)",
        rank <= dim,
        zh=f"在 {grid}×{grid} 的网格上，纯位置项的秩为 {rank} ≤ d = {dim}"
        "（每对 sin/cos 最多增加 2 的秩：cos(ω(i−j)) = cos ωi cos ωj + sin ωi sin ωj）",
    )
    ctx.value("max_error", max_error)
    ctx.value("position_only_rank", float(rank))
    ctx.value("relative_rows", float(relative_rows))

    names = [
        "(a) content–content",
        "(b) content–position",
        "(c) global content bias",
        "(d) global position bias",
    ]
    names_zh = ["(a) 内容–内容", "(b) 内容–位置", "(c) 全局内容偏置", "(d) 全局位置偏置"]
    formulas = ["xᵢ W_q · xⱼ W_k,E", "xᵢ W_q · R₍ᵢ₋ⱼ₎ W_k,R", "u · xⱼ W_k,E", "v · R₍ᵢ₋ⱼ₎ W_k,R"]
    depends = ["tokens i, j", "token i and i − j", "token j only", "i − j only"]
    ctx.table(
        "Transformer-XL score terms",
        ["term", "formula", "depends on", "mean |term|"],
        [[nm, f, dep, float(t.abs().mean())] for nm, f, dep, t in zip(names, formulas, depends, terms[:4])],
        title_zh="Transformer-XL 分数的各项",
        columns_zh=["项", "公式", "依赖于", "平均 |项|"],
    )
    score_term_matrices(ctx, names, names_zh, terms[:4], seq_len)
    ctx.note(
        "position_only_rank: numerical rank of the (d) matrix over a min(2d + 8, 1024)-position grid. It stays ≤ d however "
        "long the grid, so a sinusoid-driven position bias is low-rank (ALiBi's −m·|i − j| is full rank).",
        zh="position_only_rank：(d) 项矩阵在 min(2d + 8, 1024) 个位置的网格上的数值秩。无论网格多长它都 ≤ d，"
        "所以由正弦驱动的位置偏置是低秩的（ALiBi 的 −m·|i − j| 是满秩的）。",
    )
    ctx.note(
        "R is the fixed sinusoid of i − j (concat layout); only W_k,R, u and v are learned.",
        zh="R 是 i − j 的固定正弦编码（拼接布局）；只有 W_k,R、u 和 v 是学出来的。",
    )
