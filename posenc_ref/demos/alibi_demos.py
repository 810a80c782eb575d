"""ALiBi demos: head slopes and the bias matrix."""

from __future__ import annotations

from ._common import (
    MAX_MATRIX_SIDE,
    MAX_TABLE_ROWS,
    max_abs_diff,
    randn,
    sample_indices,
    tol_for,
    torch_dtype,
)
from .base import DemoContext, Param, Value
from .registry import register_demo


@register_demo(
    name="alibi-slopes",
    title="ALiBi head slopes, including non-power-of-two head counts",
    claim="For n a power of two the slopes are 2^(−8h/n), h = 1..n; otherwise take the 2^⌊log2 n⌋ set and append every other slope of the next power of two.",
    title_zh="ALiBi 各注意力头的斜率（含头数不是 2 的幂的情况）",
    claim_zh="n 为 2 的幂时，斜率为 2^(−8h/n)，h = 1..n；否则先取 2^⌊log2 n⌋ 个头的那组斜率，再从下一个 2 的幂的斜率中隔一个取一个补足。",
    topic="alibi",
    params=(
        Param("n_heads", "int", 12, min=1, max=1024, help="number of attention heads", help_zh="注意力头数"),
    ),
    values=(
        Value(
            "first_slope",
            "slope m₁ of head 1, 2^(−8/n) for a power of two n",
            "slope per token",
            meaning_zh="第 1 个头的斜率 m₁（n 为 2 的幂时为 2^(−8/n)）",
        ),
        Value("last_slope", "slope of the last head", "slope per token", meaning_zh="最后一个头的斜率"),
        Value(
            "min_slope", "smallest slope over the heads", "slope per token", meaning_zh="所有头中最小的斜率"
        ),
        Value(
            "max_error",
            "|fast slopes − the paper's get_slopes|, largest over heads",
            "abs error",
            meaning_zh="快速实现的斜率与论文 get_slopes 之差的最大绝对值",
        ),
        Value(
            "n8_last_slope",
            "slope of head 8 of 8 heads (1/256)",
            "slope per token",
            meaning_zh="8 个头时第 8 个头的斜率（1/256）",
        ),
        Value(
            "n12_ninth_slope",
            "slope of head 9 of 12 heads, the first taken from the 16-head set (2^(−0.5))",
            "slope per token",
            meaning_zh="12 个头时第 9 个头的斜率，即第一个取自 16 头斜率的值（2^(−0.5)）",
        ),
    ),
    memory_bytes=lambda n_heads, **_: 8 * n_heads * 8,
)
def _run_alibi_slopes(ctx: DemoContext, n_heads: int) -> None:
    import math

    import numpy as np

    from ..alibi import alibi_slopes, alibi_slopes_np, alibi_slopes_paper

    slopes = alibi_slopes(n_heads, device=ctx.device, dtype=torch_dtype(ctx))
    reference = alibi_slopes_paper(n_heads)  # the authors' get_slopes, plain Python
    max_error = max_abs_diff(slopes, reference)
    ctx.check(
        f"alibi_slopes({n_heads}) equals the paper's get_slopes",
        max_error,
        1e-7,
        zh=f"alibi_slopes({n_heads}) 与论文的 get_slopes 一致",
    )
    ctx.check(
        "the textbook closed form equals get_slopes (float64)",
        max_abs_diff(alibi_slopes_np(n_heads), reference),
        1e-15,
        zh="教科书闭式解与 get_slopes 一致（float64）",
    )
    n8 = alibi_slopes_paper(8)
    n8_last = float(alibi_slopes(8, dtype=torch_dtype(ctx))[-1])
    ctx.check(
        "8 heads: slopes 1/2, 1/4, ..., 1/256",
        max_abs_diff(n8, [2.0**-h for h in range(1, 9)]),
        1e-15,
        zh="8 个头：斜率为 1/2, 1/4, ..., 1/256",
    )
    n12 = alibi_slopes_np(12)
    expected12 = [2.0**-h for h in range(1, 9)] + [2.0**-x for x in (0.5, 1.5, 2.5, 3.5)]
    ctx.check(
        "12 heads: the 8-head set, then every other slope of the 16-head set (−log2 = 0.5, 1.5, 2.5, 3.5)",
        max_abs_diff(n12, expected12),
        1e-15,
        zh="12 个头：先是 8 头的斜率，再隔一个取 16 头的斜率（−log2 = 0.5, 1.5, 2.5, 3.5）",
    )
    power_of_two = n_heads & (n_heads - 1) == 0
    values = np.asarray(reference)
    if power_of_two and n_heads > 1:
        ratio = values[1:] / values[:-1]
        ctx.check(
            f"{n_heads} is a power of two: a geometric sequence with ratio = first slope = 2^(−8/{n_heads})",
            float(np.abs(ratio - values[0]).max()),
            1e-12,
            zh=f"{n_heads} 是 2 的幂：斜率成等比数列，公比 = 第一个斜率 = 2^(−8/{n_heads})",
        )
    else:
        finer = 2 ** math.ceil(math.log2(n_heads))  # the next power of two
        h = -np.log2(values) * finer / 8  # slope = 2^(-8h/finer) -> h
        off_grid = float(np.abs(h - np.round(h)).max())
        distinct = len(set(np.round(h).astype(int).tolist())) == n_heads
        ctx.check(
            f"{n_heads} heads: every slope is 2^(−8h/{finer}) for a distinct integer h (a subset of the "
            f"{finer}-head set)",
            off_grid if distinct else float("inf"),
            1e-9,
            zh=f"{n_heads} 个头：每个斜率都是 2^(−8h/{finer})，h 为互不相同的整数（{finer} 头斜率的子集）",
        )
    ctx.value("first_slope", float(slopes[0]))
    ctx.value("last_slope", float(slopes[-1]))
    ctx.value("min_slope", float(slopes.min()))
    ctx.value("max_error", max_error)
    ctx.value("n8_last_slope", n8_last)
    ctx.value("n12_ninth_slope", float(n12[8]))

    as_list = slopes.cpu().double().tolist()
    ctx.table(
        f"Slopes for {n_heads} heads",
        ["head", "slope", "−log2 slope"],
        [[h + 1, s, -math.log2(s)] for h, s in enumerate(as_list)],
        title_zh=f"{n_heads} 个头的斜率",
        columns_zh=["头", "斜率", "−log2 斜率"],
    )
    ctx.table(
        "The paper's examples: 8 heads and 12 heads",
        ["head", "n=8 slope", "n=8 −log2", "n=12 slope", "n=12 −log2"],
        [
            [
                h + 1,
                n8[h] if h < 8 else "",
                -math.log2(n8[h]) if h < 8 else "",
                float(n12[h]),
                -math.log2(n12[h]),
            ]
            for h in range(12)
        ],
        title_zh="论文中的例子：8 个头与 12 个头",
        columns_zh=["头", "n=8 斜率", "n=8 −log2", "n=12 斜率", "n=12 −log2"],
    )
    ctx.series(
        f"Slope per head ({n_heads} heads)",
        [float(h + 1) for h in range(n_heads)],
        {"slope": as_list, "−log2 slope": [-math.log2(s) for s in as_list]},
        "head",
        "slope",
        title_zh=f"每个头的斜率（{n_heads} 个头）",
    )
    if not power_of_two:
        ctx.note(
            f"{n_heads} is not a power of two, so the list is not monotone: the {2 ** int(math.log2(n_heads))} "
            f"power-of-two slopes come first, then odd-numbered slopes of the {2 ** math.ceil(math.log2(n_heads))}-head "
            "set, which fall between them.",
            zh=f"{n_heads} 不是 2 的幂，所以斜率不是单调的：先是 {2 ** int(math.log2(n_heads))} 个 2 的幂对应的斜率，"
            f"再是 {2 ** math.ceil(math.log2(n_heads))} 头斜率中的奇数项，它们落在前者之间。",
        )
    ctx.note(
        "Slopes are fixed, not learned. Steep heads look only locally; shallow heads see far back.",
        zh="斜率是固定的，不是学出来的。斜率大的头只看附近；斜率小的头能看得很远。",
    )


@register_demo(
    name="alibi-bias",
    title="The ALiBi bias matrix",
    claim="Head h adds −slopeₕ·(i − j) to the score of query i and key j; BLOOM's +slope·j form differs by a per-row constant, so the softmax is identical.",
    title_zh="ALiBi 偏置矩阵",
    claim_zh="第 h 个头在查询 i 与键 j 的注意力分数上加 −slopeₕ·(i − j)；BLOOM 的 +slope·j 写法与之只差一个逐行常数，所以 softmax 结果完全相同。",
    topic="alibi",
    params=(
        Param("n_heads", "int", 4, min=1, max=1024, help="number of attention heads", help_zh="注意力头数"),
        Param("seq_len", "int", 8, min=1, max=16384, help="sequence length", help_zh="序列长度"),
        Param(
            "causal",
            "bool",
            True,
            help="mask keys after the query with -inf",
            help_zh="用 -inf 屏蔽查询之后的键",
        ),
    ),
    values=(
        Value(
            "max_error",
            "|fast bias − textbook −m·(i − j)|, largest entry",
            "abs error",
            meaning_zh="快速实现的偏置与教科书 −m·(i − j) 之差的最大绝对值",
        ),
        Value(
            "softmax_offset_error",
            "largest |softmax with the paper's bias − softmax with BLOOM's +m·j| under the causal mask",
            "probability",
            meaning_zh="因果掩码下论文偏置与 BLOOM 的 +m·j 偏置的 softmax 之差的最大绝对值",
        ),
        Value(
            "bias_last_row_first",
            "bias of head 1 from the last query to the first key, −m₁·(L − 1)",
            "logit",
            meaning_zh="第 1 个头中最后一个查询对第一个键的偏置 −m₁·(L − 1)",
        ),
        Value(
            "noncausal_bloom_difference",
            "largest |softmax with the symmetric −m·|i − j| − softmax with BLOOM's +m·j| without a mask: they differ",
            "probability",
            meaning_zh="不加掩码时对称偏置 −m·|i − j| 与 BLOOM 的 +m·j 的 softmax 之差的最大绝对值（两者不同）",
            when="causal=false",
        ),
    ),
    # ~16 float32 [heads, L, L] tensors (paper, BLOOM, random scores, masks, two softmaxes) and the
    # float64 copies the error checks make
    memory_bytes=lambda n_heads, seq_len, **_: 72 * n_heads * seq_len * seq_len,
)
def _run_alibi_bias(ctx: DemoContext, n_heads: int, seq_len: int, causal: bool) -> None:
    import torch

    from ..alibi import alibi_bias, alibi_bias_bloom, alibi_bias_np, alibi_slopes

    dt = torch_dtype(ctx)
    bias = alibi_bias(n_heads, seq_len, causal=causal, device=ctx.device, dtype=dt)  # [h, L, L]
    slopes = alibi_slopes(n_heads, device=ctx.device, dtype=dt)
    n = min(seq_len, MAX_MATRIX_SIDE)
    textbook = alibi_bias_np(n_heads, n, causal=causal)
    max_error = max_abs_diff(bias[:, :n, :n], textbook)
    ctx.check(
        f"fast bias matches the textbook −m·(i − j){' with −inf above the diagonal' if causal else ', −m·|i − j|'}",
        max_error,
        tol_for(textbook),
        zh=f"快速实现的偏置与教科书的 −m·(i − j) 一致{'，对角线以上为 −inf' if causal else '，即 −m·|i − j|'}",
    )
    # decoding with a KV cache: the last row of the full matrix is the 1-query bias
    one_row = alibi_bias(n_heads, 1, seq_len, causal=causal, device=ctx.device, dtype=dt)
    ctx.check(
        "one query against the full cache = the last row of the square matrix",
        max_abs_diff(one_row, bias[:, -1:, :]),
        0.0,
        zh="单个查询对完整缓存的偏置 = 方阵的最后一行",
    )

    # BLOOM: +m·j. Under the causal mask it differs from the paper by m·i on row i only.
    bloom = alibi_bias_bloom(n_heads, seq_len, device=ctx.device, dtype=dt).expand(n_heads, seq_len, seq_len)
    causal_mask = torch.ones(seq_len, seq_len, dtype=torch.bool, device=ctx.device).tril()
    paper_causal = alibi_bias(n_heads, seq_len, causal=True, device=ctx.device, dtype=dt)
    gap = (paper_causal - bloom).masked_fill(~causal_mask, float("nan"))  # per row: −m·i for every visible j
    row_const = (gap - gap[..., :1]).nan_to_num(0.0).abs().amax()
    ctx.check(
        "paper − BLOOM is constant along each row (−m·i) over the visible keys",
        float(row_const),
        tol_for(bloom),
        zh="论文形式 − BLOOM 形式在每一行的可见键上是常数（−m·i）",
    )
    scores = randn(0, n_heads, seq_len, seq_len, device=ctx.device, dtype=dt)
    attn_paper = torch.softmax(scores + paper_causal, dim=-1)
    attn_bloom = torch.softmax((scores + bloom).masked_fill(~causal_mask, float("-inf")), dim=-1)
    softmax_offset_error = max_abs_diff(attn_paper, attn_bloom)
    ctx.check(
        "so softmax(q·k − m·(i−j)) = softmax(q·k + m·j) under the causal mask",
        softmax_offset_error,
        tol_for(bloom[:, -1, :].cpu().double().numpy()),  # float32 logits up to m·(L−1): scale with them
        zh="因此在因果掩码下 softmax(q·k − m·(i−j)) = softmax(q·k + m·j)",
    )
    last_first = float(bias[0, -1, 0])
    ctx.check(
        f"bias[head 1, last query, first key] = −m₁·(L − 1) = {-float(slopes[0]) * (seq_len - 1):.6g}",
        abs(last_first + float(slopes[0]) * (seq_len - 1)),
        tol_for([last_first]),
        zh=f"bias[头 1, 最后一个查询, 第一个键] = −m₁·(L − 1) = {-float(slopes[0]) * (seq_len - 1):.6g}",
    )
    ctx.value("max_error", max_error)
    ctx.value("softmax_offset_error", softmax_offset_error)
    ctx.value("bias_last_row_first", last_first)
    if not causal:
        symmetric = torch.softmax(scores + bias, dim=-1)
        unmasked_bloom = torch.softmax(scores + bloom, dim=-1)
        diff = max_abs_diff(symmetric, unmasked_bloom)
        ctx.value("noncausal_bloom_difference", diff)
        ctx.note(
            f"Without the causal mask BLOOM's +m·j is NOT equivalent to −m·|i − j| (max attention difference {diff:.3g}): "
            "the per-row-constant argument needs the mask.",
            zh=f"没有因果掩码时，BLOOM 的 +m·j 与 −m·|i − j| 并不等价（注意力最大相差 {diff:.3g}）："
            "“每行差一个常数”的论证依赖掩码。",
        )

    side = min(seq_len, 12)
    head0 = bias[0, :side, :side].cpu().double().tolist()
    ctx.table(
        f"Head 1 bias (slope {float(slopes[0]):.6g}), first {side} queries × keys",
        ["query i \\ key j"] + [str(j) for j in range(side)],
        [[i] + row for i, row in enumerate(head0)],
        title_zh=f"头 1 的偏置（斜率 {float(slopes[0]):.6g}），前 {side} 个查询 × 键",
        columns_zh=["查询 i \\ 键 j"] + [str(j) for j in range(side)],
    )
    heads = sample_indices(n_heads, MAX_TABLE_ROWS)
    ctx.table(
        "Per head: slope and the bias from the last query to the first key",
        ["head", "slope", "bias[L−1, 0]", "BLOOM bias[L−1, 0] = +m·0", "BLOOM bias[L−1, L−1] = m·(L−1)"],
        [
            [h + 1, float(slopes[h]), float(bias[h, -1, 0]), 0.0, float(slopes[h]) * (seq_len - 1)]
            for h in heads
        ],
        title_zh="每个头：斜率，以及最后一个查询到第一个键的偏置",
        columns_zh=[
            "头",
            "斜率",
            "bias[L−1, 0]",
            "BLOOM bias[L−1, 0] = +m·0",
            "BLOOM bias[L−1, L−1] = m·(L−1)",
        ],
    )
    side = min(seq_len, MAX_MATRIX_SIDE)
    axes_zh = {"row_label_zh": "查询 i", "col_label_zh": "键 j"}
    ctx.matrix(
        f"ALiBi bias, head 1 (first {side} positions)",
        bias[0, :side, :side].cpu(),
        "query i",
        "key j",
        title_zh=f"ALiBi 偏置，头 1（前 {side} 个位置）",
        **axes_zh,
    )
    ctx.matrix(
        f"ALiBi bias, head {n_heads}",
        bias[-1, :side, :side].cpu(),
        "query i",
        "key j",
        title_zh=f"ALiBi 偏置，头 {n_heads}",
        **axes_zh,
    )
    ctx.matrix(
        "BLOOM form +m·j, head 1 (before the mask)",
        bloom[0, :side, :side].cpu(),
        "query i",
        "key j",
        title_zh="BLOOM 形式 +m·j，头 1（加掩码之前）",
        **axes_zh,
    )
    ctx.note(
        "ALiBi adds nothing to the embeddings: the only position signal is this bias on the logits.",
        zh="ALiBi 不往嵌入里加任何东西：唯一的位置信号就是 logit 上的这个偏置。",
    )
