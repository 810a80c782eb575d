"""Why attention needs position: permutation equivariance, and the four terms of an absolute-PE score."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._common import (
    MAX_TABLE_ROWS,
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

if TYPE_CHECKING:
    import torch


def _attention(x, w_q, w_k, w_v):
    import torch

    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ v


@register_demo(
    name="permutation-equivariance",
    title="Attention without PE is permutation-equivariant",
    claim="Shuffling the input rows of position-free self-attention just shuffles the output rows the same way; adding PE breaks this.",
    title_zh="不加位置编码的注意力具有置换等变性",
    claim_zh="打乱无位置信息的自注意力的输入行，输出行只会按同样的方式被打乱；加上位置编码后这一性质就不再成立。",
    topic="why-pe",
    params=(
        Param("seq_len", "int", 6, min=2, max=4096, help="tokens", help_zh="token 数"),
        Param(
            "dim",
            "int",
            16,
            min=2,
            max=4096,
            even=True,
            help="model dimension (even)",
            help_zh="模型维度（偶数）",
        ),
        SEED,
    ),
    values=(
        Value(
            "no_pe_error",
            "largest |attention(shuffled x) − shuffled attention(x)| without PE",
            "abs error",
            meaning_zh="无位置编码时 attention(打乱的 x) 与打乱的 attention(x) 之差的最大绝对值",
        ),
        Value(
            "with_pe_difference",
            "the same difference with sinusoidal PE added (large: order now matters)",
            "abs difference",
            meaning_zh="加上正弦位置编码后同样的差（很大：顺序起作用了）",
        ),
        Value(
            "duplicate_token_difference_with_pe",
            "largest |output at the first − at the last position| of one token placed at both, with PE",
            "abs difference",
            meaning_zh="同一个 token 放在首尾两个位置、加位置编码时两处输出之差的最大绝对值",
        ),
    ),
    # float32: five attention passes keep ~28 [seq, dim] tensors alive, plus weights and scores
    memory_bytes=lambda seq_len, dim, **_: 4 * (30 * seq_len * dim + 3 * dim * dim + 3 * seq_len * seq_len),
)
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


def _placed(seq_len: int, src: tuple[int, int], dst: tuple[int, int], seed: int) -> torch.Tensor:
    """A permutation of 0 .. seq_len − 1 (as `perm[new] = old`) that moves position src[0] to dst[0] and
    src[1] to dst[1]; the other tokens fill the remaining slots in a seeded random order."""
    import torch

    perm = [-1] * seq_len
    perm[dst[0]], perm[dst[1]] = src
    rest = [i for i in range(seq_len) if i not in src]
    order = torch.randperm(len(rest), generator=torch.Generator().manual_seed(seed)).tolist()
    free = [i for i in range(seq_len) if perm[i] < 0]
    for slot, j in zip(free, order, strict=True):
        perm[slot] = rest[j]
    return torch.tensor(perm)


@register_demo(
    name="shuffle-score",
    title="One score before and after a shuffle",
    claim="Without a position encoding the score of token A's query with token B's key is q·k wherever the two "
    "sit, so a shuffle only moves it; with RoPE it becomes q·R(n − m)k and changes unless the offset n − m stays.",
    title_zh="打乱前后的同一个注意力分数",
    claim_zh="没有位置编码时，token A 的查询与 token B 的键的分数无论两者在哪里都是 q·k，打乱只会挪动它的位置；"
    "用 RoPE 时它变成 q·R(n − m)k，除非偏移 n − m 不变，否则就会改变。",
    topic="why-pe",
    params=(
        Param(
            "q1",
            "int",
            2,
            min=-9,
            max=9,
            help="token A's query, first component",
            help_zh="token A 的查询向量，第一个分量",
        ),
        Param(
            "q2",
            "int",
            1,
            min=-9,
            max=9,
            help="token A's query, second component",
            help_zh="token A 的查询向量，第二个分量",
        ),
        Param(
            "k1",
            "int",
            1,
            min=-9,
            max=9,
            help="token B's key, first component",
            help_zh="token B 的键向量，第一个分量",
        ),
        Param(
            "k2",
            "int",
            3,
            min=-9,
            max=9,
            help="token B's key, second component",
            help_zh="token B 的键向量，第二个分量",
        ),
        Param(
            "m",
            "int",
            1,
            min=0,
            max=1023,
            help="token A's position before the shuffle",
            help_zh="打乱前 token A 的位置",
        ),
        Param(
            "n",
            "int",
            4,
            min=0,
            max=1023,
            help="token B's position before the shuffle",
            help_zh="打乱前 token B 的位置",
        ),
        Param(
            "m_after",
            "int",
            5,
            min=0,
            max=1023,
            help="token A's position after the shuffle",
            help_zh="打乱后 token A 的位置",
        ),
        Param(
            "n_after",
            "int",
            2,
            min=0,
            max=1023,
            help="token B's position after the shuffle",
            help_zh="打乱后 token B 的位置",
        ),
        SEED,
    ),
    values=(
        Value(
            "score_no_pe_before",
            "q·k of tokens A and B at positions m and n, no position encoding",
            "score",
            meaning_zh="不加位置编码时，位于 m、n 的 token A、B 的 q·k",
        ),
        Value(
            "score_no_pe_after",
            "the same score after the shuffle (m_after, n_after): unchanged",
            "score",
            meaning_zh="打乱到 m_after、n_after 之后的同一分数：不变",
        ),
        Value(
            "score_rope_before",
            "q·k with RoPE at positions m and n",
            "score",
            meaning_zh="在位置 m、n 上加 RoPE 后的 q·k",
        ),
        Value(
            "score_rope_after",
            "q·k with RoPE after the shuffle: changes with n − m",
            "score",
            meaning_zh="打乱后加 RoPE 的 q·k：随 n − m 而变",
        ),
    ),
    # float64 [L, L] scores (four of them) and [L, 2] vectors, L ≤ 1024
    memory_bytes=lambda m, n, m_after, n_after, **_: 48 * (max(m, n, m_after, n_after) + 2) ** 2,
)
def _run_shuffle_score(
    ctx: DemoContext,
    q1: int,
    q2: int,
    k1: int,
    k2: int,
    m: int,
    n: int,
    m_after: int,
    n_after: int,
    seed: int,
) -> None:
    import torch

    from ..rope import apply_rope

    if m == n or m_after == n_after:
        raise ParamError("tokens A and B need two different positions, before and after the shuffle")
    seq_len = max(m, n, m_after, n_after) + 1
    q = randn(seed, seq_len, 2, dtype=torch.float64)  # 2-D head: one pair, θ = 1 rad per position
    k = randn(seed + 1, seq_len, 2, dtype=torch.float64)
    q[m] = torch.tensor([q1, q2], dtype=torch.float64)
    k[n] = torch.tensor([k1, k2], dtype=torch.float64)
    perm = _placed(seq_len, (m, n), (m_after, n_after), seed)  # perm[new] = old
    qs, ks = q[perm], k[perm]

    scores, shuffled = q @ k.T, qs @ ks.T
    ctx.check(
        "no position encoding: the shuffled score matrix is the old one with rows and columns permuted",
        float((shuffled - scores[perm][:, perm]).abs().max()),
        1e-12 * (float(scores.abs().max()) + 1),
        zh="没有位置编码：打乱后的分数矩阵就是原矩阵的行和列按同样方式重排",
    )
    rope, rope_shuffled = apply_rope(q) @ apply_rope(k).T, apply_rope(qs) @ apply_rope(ks).T
    offset, offset_after = n - m, n_after - m_after
    dot, cross = q1 * k1 + q2 * k2, q2 * k1 - q1 * k2
    formula = dot * math.cos(offset_after) + cross * math.sin(offset_after)
    ctx.check(
        f"with RoPE (d = 2, θ = 1): q·R(n − m)k = (q·k) cos δ + (q₂k₁ − q₁k₂) sin δ, δ = {offset_after} after",
        abs(float(rope_shuffled[m_after, n_after]) - formula),
        1e-9 * (abs(dot) + abs(cross) + 1),
        zh=f"用 RoPE（d = 2，θ = 1）时：q·R(n − m)k = (q·k) cos δ + (q₂k₁ − q₁k₂) sin δ，打乱后 δ = {offset_after}",
    )
    ctx.value("score_no_pe_before", float(scores[m, n]))
    ctx.value("score_no_pe_after", float(shuffled[m_after, n_after]))
    ctx.value("score_rope_before", float(rope[m, n]))
    ctx.value("score_rope_after", float(rope_shuffled[m_after, n_after]))
    ctx.table(
        "Token A's query with token B's key",
        ["", "A at", "B at", "offset n − m", "score, no PE", "score, RoPE"],
        [
            ["before", m, n, offset, float(scores[m, n]), float(rope[m, n])],
            [
                "after",
                m_after,
                n_after,
                offset_after,
                float(shuffled[m_after, n_after]),
                float(rope_shuffled[m_after, n_after]),
            ],
        ],
        title_zh="token A 的查询与 token B 的键",
        columns_zh=["", "A 的位置", "B 的位置", "偏移 n − m", "分数（无位置编码）", "分数（RoPE）"],
    )
    ctx.note(
        "Without a position encoding nothing in q·k knows where A and B sit: attention sees a set. RoPE keeps the "
        "score only when the shuffle keeps the offset n − m.",
        zh="没有位置编码时，q·k 中没有任何东西知道 A 和 B 在哪里：注意力看到的是一个集合。用 RoPE 时，只有打乱保持偏移 "
        "n − m 不变，分数才不变。",
    )


@register_demo(
    name="attention-expansion",
    title="The 4-term expansion of q·k under absolute PE",
    claim="(x_i + p_i)W_Q·((x_j + p_j)W_K) = content·content + content·position + position·content + position·position, exactly.",
    title_zh="绝对位置编码下 q·k 的四项展开",
    claim_zh="(x_i + p_i)W_Q·((x_j + p_j)W_K) 严格等于 内容·内容 + 内容·位置 + 位置·内容 + 位置·位置 四项之和。",
    topic="absolute",
    params=(
        Param("seq_len", "int", 8, min=1, max=4096, help="tokens", help_zh="token 数"),
        Param(
            "dim",
            "int",
            16,
            min=2,
            max=4096,
            even=True,
            help="model dimension (even)",
            help_zh="模型维度（偶数）",
        ),
        SEED,
    ),
    values=(
        Value(
            "max_error",
            "|sum of the four terms − qᵢ·kⱼ computed directly|, largest entry",
            "abs error",
            meaning_zh="四项之和与直接计算的 qᵢ·kⱼ 之差的最大绝对值",
        ),
        Value(
            "p2p_relative_error",
            "how far position·position is from a function of i − j: largest spread along a diagonal over its largest entry",
            "ratio",
            meaning_zh="位置·位置项偏离 i − j 的函数的程度：对角线上最大偏差除以该项最大绝对值",
        ),
    ),
    # float32 weights plus their float64 copies for the textbook loops, six [seq, dim] projections,
    # and the four [seq, seq] terms with their sum, diagonal checks and float64 copies
    memory_bytes=lambda seq_len, dim, **_: 24 * dim * dim + 48 * seq_len * dim + 72 * seq_len * seq_len,
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
