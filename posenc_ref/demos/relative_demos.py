"""Relative-family demos: T5 buckets, Shaw clipping, Transformer-XL/XLNet and DeBERTa terms.

Value meanings that are not obvious from their names:

* t5-buckets ``first_max_bucket_distance``: the smallest |key − query| (key before the query) that
  lands in the last bucket of its direction (91 for 32 buckets / 128 bidirectional);
  ``exact_buckets``: distances with a bucket of their own per direction (8 bidirectional, 16 causal).
* xlnet-terms ``position_only_rank``: the numerical rank of the position-only term (d) = v·R_(i−j)W_k,R
  over a min(2d + 8, 1024)-position grid. Each sin/cos pair contributes rank ≤ 2, so it is ≤ d however
  long the grid (ALiBi's −m·|i − j| is full rank).
"""

from __future__ import annotations

from . import register
from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    max_abs_diff,
    randn,
    sample_indices,
    to_numpy,
    tol_for,
    torch_dtype,
)
from .base import Demo, DemoContext, Param, ParamError

SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed")


# HF T5 bucket ids for these key − query offsets, 32 buckets, max_distance 128
T5_WORKED_POSITIONS = (-128, -64, -20, -8, -1, 0, 1, 8, 20, 64, 128)
T5_WORKED_BIDIRECTIONAL = (15, 14, 10, 8, 1, 0, 17, 24, 26, 30, 31)
T5_WORKED_CAUSAL = (31, 26, 17, 8, 1, 0, 0, 0, 0, 0, 0)


def _run_t5_buckets(ctx: DemoContext, bidirectional: bool, num_buckets: int, max_distance: int) -> None:
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
    kw = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}

    worked = (
        t5_relative_position_bucket(torch.tensor(T5_WORKED_POSITIONS, device=ctx.device), **kw).cpu().tolist()
    )
    ctx.table(
        "Bucket per relative position",
        ["relative position (key − query)", "bucket"],
        [[rp, b] for rp, b in zip(T5_WORKED_POSITIONS, worked)],
    )
    # fast (HF's float32 formula) against the textbook float64 loop over a dense range plus far points
    dense = min(2 * max_distance, 2048)
    far = [max_distance - 1, max_distance, max_distance + 1, 10 * max_distance, 1000 * max_distance]
    probe = sorted(set(range(-dense, dense + 1)) | set(far) | {-x for x in far})
    fast = t5_relative_position_bucket(torch.tensor(probe, device=ctx.device), **kw).cpu().numpy()
    textbook = t5_relative_position_bucket_np(probe, **kw)
    max_error = float(np.abs(fast - textbook).max())
    ctx.check(
        f"HF-style torch buckets equal the textbook float64 loop on {len(probe)} offsets", max_error, 0.0
    )
    if num_buckets == 32 and max_distance == 128:
        published = T5_WORKED_BIDIRECTIONAL if bidirectional else T5_WORKED_CAUSAL
        ctx.check(
            "the worked vector matches transformers' T5Attention._relative_position_bucket",
            float(np.abs(np.asarray(worked) - np.asarray(published)).max()),
            0.0,
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
    )
    ctx.check(
        f"distances 0..{exact - 1} each get their own bucket (exact)",
        float(np.abs(past[:exact] - np.arange(exact)).max()),
        0.0,
    )
    ctx.check_true("buckets never decrease as the distance grows", bool(np.all(np.diff(past) >= 0)))
    if bidirectional:
        future = t5_relative_position_bucket(distances, **kw).cpu().numpy()
        ctx.check(
            f"keys after the query use the upper half: bucket(+n) = bucket(−n) + {per_direction} for n > 0",
            float(np.abs(future[1:] - past[1:] - per_direction).max()),
            0.0,
        )
    else:
        future = t5_relative_position_bucket(distances, **kw).cpu().numpy()
        ctx.check("causal: every key after the query falls in bucket 0", float(np.abs(future).max()), 0.0)
    ctx.value("max_error", max_error)
    ctx.value("first_max_bucket_distance", float(first_max))
    ctx.value("exact_buckets", float(exact))

    rows = []
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
    )
    span = max_distance + max_distance // 4
    xs = np.arange(-span, span + 1)
    idx = sample_indices(len(xs), MAX_SERIES_POINTS)
    xs = xs[idx]
    ys = t5_relative_position_bucket(torch.tensor(xs, device=ctx.device), **kw).cpu().tolist()
    ctx.series("Bucket against key − query", [float(x) for x in xs], {"bucket": ys}, "key − query", "bucket")
    side = MAX_MATRIX_SIDE
    ctx.matrix(
        f"Bucket for query i, key j ({side}×{side})",
        t5_bucket_grid(side, side, device=ctx.device, **kw).cpu(),
        "query i",
        "key j",
    )
    ctx.note(
        "Each head learns one scalar per bucket, added to the unscaled q·k (T5 has no 1/√d). The bias is "
        "shared by all layers; beyond max_distance every offset looks the same."
    )


def _run_shaw_relative(ctx: DemoContext, seq_len: int, clip: int, dim: int, seed: int) -> None:
    from ..shaw import shaw_attention, shaw_attention_np, shaw_attention_scores, shaw_relative_indices

    dt = torch_dtype(ctx)
    idx = shaw_relative_indices(seq_len, seq_len, clip, device=ctx.device)
    n_embeddings = 2 * clip + 1
    used = int(idx.unique().numel())
    ctx.check_true(
        f"2k + 1 = {n_embeddings} table rows cover every distance; this sequence uses {used} of them",
        used == min(n_embeddings, 2 * seq_len - 1),
    )
    offsets = idx.new_tensor(range(seq_len))[None, :] - idx.new_tensor(range(seq_len))[:, None]
    beyond = offsets.abs() >= clip
    edge_ok = bool(((idx == 0) | (idx == 2 * clip))[beyond].all()) if clip > 0 else bool((idx == 0).all())
    ctx.check_true(f"every pair with |j − i| ≥ {clip} shares an edge row (w_−k or w_+k)", edge_ok)

    n = min(seq_len, 48)
    q, k = (randn(seed + i, seq_len, dim, device=ctx.device, dtype=dt) for i in (0, 1))
    v = randn(seed + 2, seq_len, dim, device=ctx.device, dtype=dt)
    rel_k, rel_v = (randn(seed + i, n_embeddings, dim, device=ctx.device, dtype=dt) for i in (3, 4))
    z, weights = shaw_attention(q[:n], k[:n], v[:n], rel_k, clip, rel_v=rel_v)
    z_ref, w_ref = shaw_attention_np(
        *(to_numpy(t) for t in (q[:n], k[:n], v[:n], rel_k)), clip, rel_v=to_numpy(rel_v)
    )
    max_error = max(max_abs_diff(z, z_ref), max_abs_diff(weights, w_ref))
    ctx.check(
        f"fast Shaw attention (keys and values) matches the textbook loops (first {n} tokens)",
        max_error,
        1e-5,
    )
    # the same token everywhere: scores then depend on clip(j − i) only -> constant along diagonals
    same_q = q[:1].expand(seq_len, dim)
    same_k = k[:1].expand(seq_len, dim)
    e = shaw_attention_scores(same_q, same_k, rel_k, clip)
    toeplitz = max_abs_diff(e[1:, 1:], e[:-1, :-1]) if seq_len > 1 else 0.0
    ctx.check("with identical tokens the scores depend on j − i only (translation invariant)", toeplitz, 1e-5)
    ctx.value("n_embeddings", float(n_embeddings))
    ctx.value("max_error", max_error)

    rows = []
    for d in range(-(seq_len - 1), seq_len):
        if abs(d) > clip + 3 and abs(d) != seq_len - 1:
            continue
        c = max(-clip, min(clip, d))
        rows.append([d, c, c + clip, "edge (shared)" if abs(d) >= clip and clip > 0 else "own row"])
    ctx.table(
        "Relative distance j − i → table row",
        ["j − i", "clip(j − i, k)", "row of w^K / w^V", "note"],
        rows,
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    ctx.matrix(f"Table row used by (query i, key j), k = {clip}", idx[:side, :side].cpu(), "query i", "key j")
    logits = shaw_attention_scores(q[:side], k[:side], rel_k, clip)
    ctx.matrix("Shaw logits e_ij (random q, k, w^K)", logits.cpu(), "query i", "key j")
    ctx.note(
        "Shaw et al. (Table 2) saw BLEU change little for k ≥ 2: a few local relative vectors plus depth "
        "let the model reach further."
    )


def _run_xlnet_terms(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
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
        "(a) + (b) + (c) + (d) = (q_i + u)·k_j + (q_i + v)·r_(i−j), the Transformer-XL score",
        max_error,
        tol_for(to_numpy(full)),
    )

    n = min(seq_len, 32)
    textbook = xlnet_score_terms_np(*(to_numpy(t) for t in (x[:n], w_q, w_k_e, w_k_r, u, v)))
    worst = max(max_abs_diff(fast[:n, :n], slow) for fast, slow in zip(terms, textbook))
    ctx.check(
        f"fast terms match the textbook float64 loops (first {n} tokens)", worst, tol_for(textbook.total)
    )
    # with a memory segment the queries move to positions M .. M + L − 1
    mem_len = max(1, seq_len // 2)
    memory = randn(seed + 6, mem_len, dim, device=ctx.device, dtype=dt)
    with_mem = xlnet_score_terms(x[:n], w_q, w_k_e, w_k_r, u, v, memory=memory)
    textbook_mem = xlnet_score_terms_np(
        *(to_numpy(t) for t in (x[:n], w_q, w_k_e, w_k_r, u, v)), memory=to_numpy(memory)
    )
    ctx.check(
        f"with {mem_len} memory tokens prepended, fast and textbook still agree",
        max_abs_diff(with_mem.total, textbook_mem.total),
        tol_for(textbook_mem.total),
    )
    d_term = terms.d
    toeplitz = max_abs_diff(d_term[1:, 1:], d_term[:-1, :-1]) if seq_len > 1 else 0.0
    ctx.check("term (d) v·r_(i−j) is the same along every diagonal: a pure function of i − j", toeplitz, 1e-5)
    column = max_abs_diff(terms.c, terms.c[:1].expand_as(terms.c))
    ctx.check("term (c) u·k_j is the same for every query: a per-key bias", column, 1e-6)

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
    )
    ctx.value("max_error", max_error)
    ctx.value("position_only_rank", float(rank))

    names = [
        "(a) content–content",
        "(b) content–position",
        "(c) global content bias",
        "(d) global position bias",
    ]
    formulas = ["x_i W_q · x_j W_k,E", "x_i W_q · R_(i−j) W_k,R", "u · x_j W_k,E", "v · R_(i−j) W_k,R"]
    depends = ["tokens i, j", "token i and i − j", "token j only", "i − j only"]
    ctx.table(
        "Transformer-XL score terms",
        ["term", "formula", "depends on", "mean |term|"],
        [[nm, f, dep, float(t.abs().mean())] for nm, f, dep, t in zip(names, formulas, depends, terms[:4])],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    for name, term in zip(names, terms[:4]):
        ctx.matrix(name, term[:side, :side].cpu(), "query i", "key j")
    ctx.note(
        "position_only_rank: numerical rank of the (d) matrix over a min(2d + 8, 1024)-position grid. It stays ≤ d however "
        "long the grid, so a sinusoid-driven position bias is low-rank (ALiBi's −m·|i − j| is full rank)."
    )
    ctx.note("R is the fixed sinusoid of i − j (concat layout); only W_k,R, u and v are learned.")


def _run_deberta_terms(ctx: DemoContext, seq_len: int, dim: int, span: int, seed: int) -> None:
    import math

    from ..deberta import (
        deberta_delta_np,
        deberta_relative_indices,
        deberta_scale,
        deberta_score_terms,
        deberta_score_terms_np,
    )

    dt = torch_dtype(ctx)
    h = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    rel_emb = randn(seed + 1, 2 * span, dim, device=ctx.device, dtype=dt)
    weights = [randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (2, 3, 4, 5)]
    terms = deberta_score_terms(h, rel_emb, *weights, span=span)
    n = min(seq_len, 32)
    textbook = deberta_score_terms_np(to_numpy(h[:n]), *(to_numpy(t) for t in (rel_emb, *weights)), span=span)
    max_error = max(max_abs_diff(fast[:n, :n], slow) for fast, slow in zip(terms, textbook))
    ctx.check(
        f"fast c2c, c2p, p2c match the textbook loops (first {n} tokens)", max_error, tol_for(textbook.total)
    )
    ctx.check(
        "the logit is c2c + c2p + p2c (no position-to-position term)",
        max_abs_diff(terms.total, terms.c2c + terms.c2p + terms.p2c),
        0.0,
    )
    scale = deberta_scale(dim)
    ctx.check(f"scale = 1/√(3d) = {scale:.6g} for d = {dim}", abs(scale - 1 / math.sqrt(3 * dim)), 1e-15)
    # why √(3d): three independent unit-variance dot products of length d add to variance 3d
    samples = 2048
    a = randn(seed + 10, 3, samples, dim, device=ctx.device, dtype=dt)
    b = randn(seed + 11, 3, samples, dim, device=ctx.device, dtype=dt)
    logits = (a * b).sum(dim=(0, 2)) * scale
    std = float(logits.std())
    ctx.check(
        f"with unit-variance inputs the 3-term logit / √(3d) has std ≈ 1 (measured {std:.3f} over {samples} draws)",
        abs(std - 1.0),
        0.1,
    )
    idx = deberta_relative_indices(seq_len, seq_len, span, device=ctx.device)
    ctx.check_true(
        f"δ(i, j) stays in 0 .. 2k − 1 = {2 * span - 1}",
        int(idx.min()) >= 0 and int(idx.max()) <= 2 * span - 1,
    )
    ctx.value("max_error", max_error)
    ctx.value("n_terms", 3.0)
    ctx.value("scale", scale)

    shown = range(-(span + 2), span + 3)
    ctx.table(
        f"Relative index δ with k = {span} (rows of the 2k-row table P)",
        ["i − j", "δ(i, j): c2p uses K_r[δ(i, j)]", "δ(j, i): p2c uses Q_r[δ(j, i)]"],
        [[d, deberta_delta_np(d, 0, span), deberta_delta_np(0, d, span)] for d in shown],
    )
    names = ["c2c: Q_c[i]·K_c[j]", "c2p: Q_c[i]·K_r[δ(i,j)]", "p2c: K_c[j]·Q_r[δ(j,i)]"]
    ctx.table(
        "DeBERTa terms",
        ["term", "mean |term|"],
        [[nm, float(t.abs().mean())] for nm, t in zip(names, terms[:3])],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    for name, term in zip(names, terms[:3]):
        ctx.matrix(name, term[:side, :side].cpu(), "query i", "key j")
    ctx.matrix(f"δ(i, j), k = {span}", idx[:side, :side].cpu(), "query i", "key j")
    ctx.note(
        "p2c follows the paper's eq. (4) and indexes with δ(j, i), the distance seen from the key. The released "
        "code (and HF's modeling_deberta_v2) negates the relative positions and then transposes; the two flips "
        "cancel, so checkpoints actually use δ(i, j) for p2c too: a port must follow the code to match them. "
        "DeBERTa adds absolute positions only near the output (the enhanced mask decoder)."
    )


register(
    Demo(
        name="t5-buckets",
        title="T5 relative position buckets",
        claim="T5 maps key − query to a bucket: exact for small distances, log-spaced up to max_distance, then saturated; bidirectional buckets split by direction.",
        title_zh="T5 相对位置分桶",
        claim_zh="T5 把 key − query 映射到一个桶：小距离精确对应，较大距离按对数间隔分桶直到 max_distance，再往外则饱和；双向分桶时按方向分成两半。",
        topic="relative",
        params=(
            Param("bidirectional", "bool", True, help="encoder (true) or causal decoder (false)"),
            Param("num_buckets", "int", 32, min=2, max=1024, even=True, help="number of buckets"),
            Param("max_distance", "int", 128, min=2, max=1_000_000, help="distance where buckets saturate"),
        ),
        values=("max_error", "first_max_bucket_distance", "exact_buckets"),
        run=_run_t5_buckets,
        memory_bytes=lambda max_distance, **_: 8 * (4 * max_distance + 64) * 4,
    )
)
register(
    Demo(
        name="shaw-relative",
        title="Shaw et al.: clipped relative position embeddings",
        claim="Shaw's scheme learns 2k + 1 vectors for relative distances clipped to [−k, k] and adds them to the keys (and values) inside attention.",
        title_zh="Shaw 等人的截断相对位置嵌入",
        claim_zh="Shaw 的方案为截断到 [−k, k] 的相对距离学习 2k + 1 个向量，并在注意力内部把它们加到键（以及值）上。",
        topic="relative",
        params=(
            Param("seq_len", "int", 8, min=1, max=4096, help="tokens"),
            Param("clip", "int", 2, min=0, max=4096, help="clipping distance k"),
            Param("dim", "int", 8, min=1, max=1024, help="head dimension"),
            SEED,
        ),
        values=("n_embeddings", "max_error"),
        run=_run_shaw_relative,
        # [L, L] index grids, masks and logits (no [L, L, d] tensor is ever built), [L, d] q/k/v,
        # q·w^K for every table row, and the two tables in float32 and float64
        memory_bytes=lambda seq_len, clip, dim, **_: (
            88 * seq_len * seq_len + 64 * seq_len * dim + 40 * (2 * clip + 1) * (seq_len + dim)
        ),
    )
)
register(
    Demo(
        name="xlnet-terms",
        title="Transformer-XL/XLNet attention: four terms with u and v",
        claim="Transformer-XL replaces p_j with the sinusoid of i − j and the query's position terms with learned u and v; the four terms still sum to the full score.",
        title_zh="Transformer-XL/XLNet 注意力：带 u 和 v 的四项",
        claim_zh="Transformer-XL 用 i − j 的正弦编码替换 p_j，用可学习的 u 和 v 替换查询一侧的位置项；四项相加仍等于完整的注意力分数。",
        topic="relative",
        params=(
            Param("seq_len", "int", 6, min=1, max=2048, help="tokens"),
            Param("dim", "int", 8, min=2, max=1024, even=True, help="head dimension (even)"),
            SEED,
        ),
        values=("max_error", "position_only_rank"),
        run=_run_xlnet_terms,
        # the [L, L, d] gathered r_(i−j), the [L, L] terms, and the rank's grid (≤ 1024²) and its SVD
        memory_bytes=lambda seq_len, dim, **_: (
            8 * seq_len * seq_len * (dim + 12) + 32 * min(2 * dim + 8, 1024) ** 2
        ),
    )
)
register(
    Demo(
        name="deberta-terms",
        title="DeBERTa disentangled attention: c2c + c2p + p2c",
        claim="DeBERTa keeps content-to-content, content-to-position and position-to-content terms, drops position-to-position, and indexes relative embeddings by a clipped δ(i, j).",
        title_zh="DeBERTa 解耦注意力：c2c + c2p + p2c",
        claim_zh="DeBERTa 保留内容到内容、内容到位置、位置到内容三项，去掉位置到位置项，并用截断后的 δ(i, j) 索引相对位置嵌入。",
        topic="relative",
        params=(
            Param("seq_len", "int", 6, min=1, max=2048, help="tokens"),
            Param("dim", "int", 8, min=1, max=1024, help="head dimension"),
            Param("span", "int", 4, min=1, max=4096, help="maximum relative distance k"),
            SEED,
        ),
        values=("max_error", "n_terms", "scale"),
        run=_run_deberta_terms,
        # [L, L] terms, the 2k-row table P with its projections Q_r, K_r (float32 and the textbook's
        # float64), and the [L, 2k] products gathered by δ
        memory_bytes=lambda seq_len, dim, span, **_: (
            8 * seq_len * seq_len * (dim + 8) + 48 * 2 * span * dim + 32 * seq_len * 2 * span
        ),
    )
)
