"""DeBERTa demos: disentangled attention terms (c2c + c2p + p2c) with the relative index δ(i, j), and the
v2/v3 log buckets of the relative position."""

from __future__ import annotations

from ._common import (
    MAX_MATRIX_SIDE,
    max_abs_diff,
    randn,
    to_numpy,
    tol_for,
    torch_dtype,
)
from .base import SEED, Constraint, DemoContext, Param, ParamError, Value
from .registry import register_demo


@register_demo(
    name="deberta-terms",
    title="DeBERTa disentangled attention: c2c + c2p + p2c",
    claim="DeBERTa keeps content-to-content, content-to-position and position-to-content terms, drops position-to-position, and indexes relative embeddings by a clipped δ(i, j).",
    title_zh="DeBERTa 解耦注意力：c2c + c2p + p2c",
    claim_zh="DeBERTa 保留内容到内容、内容到位置、位置到内容三项，去掉位置到位置项，并用截断后的 δ(i, j) 索引相对位置嵌入。",
    topic="relative",
    params=(
        Param("seq_len", "int", 6, min=1, max=2048, help="tokens", help_zh="token 数"),
        Param("dim", "int", 8, min=1, max=1024, help="head dimension", help_zh="头维度"),
        Param(
            "span", "int", 4, min=1, max=4096, help="maximum relative distance k", help_zh="最大相对距离 k"
        ),
        SEED,
    ),
    values=(
        Value(
            "max_error",
            "|fast c2c, c2p, p2c − the textbook loops|, largest entry",
            "abs error",
            meaning_zh="快速实现的 c2c、c2p、p2c 与教科书循环之差的最大绝对值",
        ),
        Value(
            "n_terms",
            "terms in DeBERTa's logit (c2c + c2p + p2c; no p2p)",
            "count",
            meaning_zh="DeBERTa 的 logit 中的项数（c2c + c2p + p2c，没有 p2p）",
        ),
        Value(
            "scale",
            "the logit scale 1/√(3d)",
            "multiplier",
            meaning_zh="logit 的缩放系数 1/√(3d)",
        ),
    ),
    # [L, L] terms, the 2k-row table P with its projections Q_r, K_r (float32 and the textbook's
    # float64), and the [L, 2k] products gathered by δ
    memory_bytes=lambda seq_len, dim, span, **_: (
        8 * seq_len * seq_len * (dim + 8) + 48 * 2 * span * dim + 32 * seq_len * 2 * span
    ),
)
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
        f"fast c2c, c2p, p2c match the textbook loops (first {n} tokens)",
        max_error,
        tol_for(textbook.total),
        zh=f"快速实现的 c2c、c2p、p2c 与教科书循环一致（前 {n} 个 token）",
    )
    ctx.check(
        "the logit is c2c + c2p + p2c (no position-to-position term)",
        max_abs_diff(terms.total, terms.c2c + terms.c2p + terms.p2c),
        0.0,
        zh="logit 是 c2c + c2p + p2c（没有位置到位置项）",
    )
    scale = deberta_scale(dim)
    ctx.check(
        f"scale = 1/√(3d) = {scale:.6g} for d = {dim}",
        abs(scale - 1 / math.sqrt(3 * dim)),
        1e-15,
        zh=f"d = {dim} 时缩放系数 = 1/√(3d) = {scale:.6g}",
    )
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
        zh=f"输入方差为 1 时，三项之和的 logit / √(3d) 标准差约为 1（{samples} 次抽样实测 {std:.3f}）",
    )
    idx = deberta_relative_indices(seq_len, seq_len, span, device=ctx.device)
    ctx.check_true(
        f"δ(i, j) stays in 0 .. 2k − 1 = {2 * span - 1}",
        int(idx.min()) >= 0 and int(idx.max()) <= 2 * span - 1,
        zh=f"δ(i, j) 始终在 0 .. 2k − 1 = {2 * span - 1} 之内",
    )
    ctx.value("max_error", max_error)
    ctx.value("n_terms", 3.0)
    ctx.value("scale", scale)

    shown = range(-(span + 2), span + 3)
    ctx.table(
        f"Relative index δ with k = {span} (rows of the 2k-row table P)",
        ["i − j", "δ(i, j): c2p uses K_r[δ(i, j)]", "δ(j, i): p2c uses Q_r[δ(j, i)]"],
        [[d, deberta_delta_np(d, 0, span), deberta_delta_np(0, d, span)] for d in shown],
        title_zh=f"k = {span} 时的相对索引 δ（2k 行表 P 的行号）",
        columns_zh=["i − j", "δ(i, j)：c2p 用 K_r[δ(i, j)]", "δ(j, i)：p2c 用 Q_r[δ(j, i)]"],
    )
    names = ["c2c: Q_c[i]·K_c[j]", "c2p: Q_c[i]·K_r[δ(i,j)]", "p2c: K_c[j]·Q_r[δ(j,i)]"]
    ctx.table(
        "DeBERTa terms",
        ["term", "mean |term|"],
        [[nm, float(t.abs().mean())] for nm, t in zip(names, terms[:3])],
        title_zh="DeBERTa 的各项",
        columns_zh=["项", "平均 |项|"],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    axes_zh = {"row_label_zh": "查询 i", "col_label_zh": "键 j"}
    for name, term in zip(names, terms[:3]):
        ctx.matrix(name, term[:side, :side].cpu(), "query i", "key j", title_zh=name, **axes_zh)
    delta_title = f"δ(i, j), k = {span}"  # symbols only: the same in both languages
    ctx.matrix(delta_title, idx[:side, :side].cpu(), "query i", "key j", title_zh=delta_title, **axes_zh)
    ctx.note(
        "p2c follows the paper's eq. (4) and indexes with δ(j, i), the distance seen from the key. The released "
        "code (and HF's modeling_deberta_v2) negates the relative positions and then transposes; the two flips "
        "cancel, so checkpoints actually use δ(i, j) for p2c too: a port must follow the code to match them. "
        "DeBERTa adds absolute positions only near the output (the enhanced mask decoder).",
        zh="p2c 按论文式 (4) 用 δ(j, i) 索引，即从键的角度看的距离。发布的代码（以及 HF 的 modeling_deberta_v2）"
        "先把相对位置取负再转置；两次翻转相互抵消，所以检查点里的 p2c 实际上也用 δ(i, j)：移植时必须照代码来才能对上。"
        "DeBERTa 只在靠近输出处加入绝对位置（增强掩码解码器）。",
    )


@register_demo(
    name="deberta-buckets",
    title="DeBERTa-v2/v3 log buckets of the relative position",
    claim="DeBERTa-v2/v3 bucket r = query − key: exact up to ±buckets/2, then log-spaced up to ±(buckets − 1) at "
    "|r| = max_position − 1; c2p reads row clamp(bucket + buckets, 0, 2·buckets − 1).",
    title_zh="DeBERTa-v2/v3 的相对位置对数分桶",
    claim_zh="DeBERTa-v2/v3 对 r = 查询 − 键 分桶：±buckets/2 以内精确对应，之后按对数间隔分桶，在 |r| = max_position − 1 "
    "处达到 ±(buckets − 1)；c2p 读第 clamp(bucket + buckets, 0, 2·buckets − 1) 行。",
    topic="relative",
    params=(
        Param(
            "buckets",
            "int",
            256,
            min=2,
            max=4096,
            even=True,
            help="position_buckets (v3: 256)",
            help_zh="桶数 position_buckets（v3：256）",
        ),
        Param(
            "max_position",
            "int",
            512,
            min=4,
            max=1_000_000,
            help="max_relative_positions (v3: 512)",
            help_zh="最大相对位置 max_relative_positions（v3：512）",
        ),
        Param(
            "relative_position",
            "int",
            200,
            min=-10_000_000,
            max=10_000_000,
            help="query − key to bucket",
            help_zh="要分桶的查询位置 − 键位置",
        ),
    ),
    values=(
        Value(
            "bucket",
            "DeBERTa's log bucket of relative_position (HF make_log_bucket_position)",
            "bucket",
            meaning_zh="relative_position 的 DeBERTa 对数桶（HF make_log_bucket_position）",
        ),
        Value(
            "c2p_row",
            "row of the 2k-row relative table that c2p reads: bucket + buckets, clipped to [0, 2·buckets − 1]",
            "row",
            meaning_zh="c2p 读取的相对位置表行号：bucket + buckets，截断到 [0, 2·buckets − 1]",
        ),
        Value(
            "exact_limit",
            "buckets / 2: distances below it keep a bucket of their own",
            "distance",
            meaning_zh="buckets / 2：小于它的距离各有自己的桶",
        ),
        Value(
            "max_error",
            "|torch buckets − numpy textbook buckets|, largest over the distances tried",
            "buckets",
            meaning_zh="torch 分桶与 numpy 教科书分桶之差在所试距离上的最大值",
        ),
    ),
    constraints=(Constraint("buckets", "<", "max_position"),),
    memory_bytes=lambda max_position, **_: 64 * (2 * max_position + 64),
)
def _run_deberta_buckets(ctx: DemoContext, buckets: int, max_position: int, relative_position: int) -> None:
    import numpy as np
    import torch

    from ..deberta import deberta_log_bucket, deberta_log_bucket_np

    mid = buckets // 2
    if max_position - 1 <= mid:
        raise ParamError(f"max_position − 1 ({max_position - 1}) must exceed buckets / 2 ({mid})")
    rel = np.arange(-(max_position + 8), max_position + 9)
    textbook = deberta_log_bucket_np(rel, buckets, max_position)
    fast = deberta_log_bucket(torch.as_tensor(rel, device=ctx.device), buckets, max_position).cpu().numpy()
    max_error = float(np.abs(textbook - fast).max())
    moved = int((textbook != fast).sum())
    # transformers takes the logs in float32; up to max_position 4096 (v3 uses 512) no bucket moves, beyond it
    # a few values that sit on a boundary of the ceil land one bucket lower than in float64
    ctx.check(
        "the fast (float32 logs, as transformers) and textbook (float64) buckets agree"
        + ("" if max_position <= 4096 else f" within one bucket ({moved} boundary values differ)"),
        max_error,
        0.0 if max_position <= 4096 else 1.0,
        zh="快速实现（float32 对数，与 transformers 相同）与教科书实现（float64）的桶号一致"
        + ("" if max_position <= 4096 else f"，最多差一个桶（{moved} 个边界值不同）"),
    )
    inside = np.abs(rel) <= mid
    ctx.check(
        f"exact inside |r| ≤ {mid}: bucket = r",
        float(np.abs(textbook[inside] - rel[inside]).max()),
        0.0,
        zh=f"|r| ≤ {mid} 时精确：桶号 = r",
    )
    edge = int(deberta_log_bucket_np(np.array([max_position - 1]), buckets, max_position)[0])
    ctx.check(
        f"|r| = max_position − 1 = {max_position - 1} reaches bucket buckets − 1 = {buckets - 1}",
        edge - (buckets - 1),
        0,
        zh=f"|r| = max_position − 1 = {max_position - 1} 时达到第 buckets − 1 = {buckets - 1} 号桶",
    )
    ctx.check(
        "buckets never decrease as r grows, and bucket(−r) = −bucket(r)",
        float((np.diff(textbook) < 0).sum() + np.abs(textbook + textbook[::-1]).max()),
        0.0,
        zh="桶号随 r 增大而不减，且 bucket(−r) = −bucket(r)",
    )
    bucket = int(deberta_log_bucket_np(np.array([relative_position]), buckets, max_position)[0])
    ctx.value("bucket", float(bucket))
    ctx.value("c2p_row", float(min(max(bucket + buckets, 0), 2 * buckets - 1)))
    ctx.value("exact_limit", float(mid))
    ctx.value("max_error", max_error)
    shown = sorted(
        {1, mid // 2, mid, mid + 1, (mid + max_position) // 2, max_position - 1, max_position + 100}
    )
    ctx.table(
        f"Buckets (query − key), {buckets} buckets, max_position {max_position}",
        ["r = query − key", "bucket", "c2p row"],
        [
            [r, b, min(max(b + buckets, 0), 2 * buckets - 1)]
            for r in shown + [-r for r in shown] + [relative_position]
            for b in [int(deberta_log_bucket_np(np.array([r]), buckets, max_position)[0])]
        ],
        title_zh=f"分桶（查询 − 键），{buckets} 个桶，max_position 为 {max_position}",
        columns_zh=["r = 查询 − 键", "桶号", "c2p 行"],
    )
    ctx.note(
        "The sign is the opposite of T5's (key − query): a key before the query has r > 0. Past max_position the "
        "bucket keeps growing, and the clamp to 0 .. 2·buckets − 1 saturates it.",
        zh="符号与 T5 的（键 − 查询）相反：在查询之前的键 r > 0。超过 max_position 后桶号还会继续增大，"
        "由截断到 0 .. 2·buckets − 1 使其饱和。",
    )
