"""Long-context demos: StreamingLLM positions and packed sequences."""

from __future__ import annotations

from ._common import dtype_slack, exact_dtype, randn
from .base import DemoContext, Param, ParamError, Value
from .registry import register_demo


@register_demo(
    name="streaming-positions",
    title="StreamingLLM numbers positions inside the cache",
    claim="StreamingLLM keeps n_sink initial tokens plus a window of recent ones, caches keys before RoPE and "
    "rotates them by their slot in the cache, so the largest distance the model ever sees is the cache size.",
    title_zh="StreamingLLM 在缓存内部编号位置",
    claim_zh="StreamingLLM 保留开头的 n_sink 个词元和最近的一段窗口，键在做 RoPE 之前缓存，每步按其在缓存中的槽位旋转，"
    "所以模型见到的最大距离就是缓存大小。",
    topic="long-context",
    params=(
        Param(
            "decode_position",
            "int",
            5000,
            min=0,
            max=10_000_000,
            help="original position being decoded",
            help_zh="正在解码的原始位置",
        ),
        Param(
            "n_sink",
            "int",
            4,
            min=0,
            max=64,
            help="initial tokens kept (attention sinks)",
            help_zh="保留的开头 token 数（注意力汇聚点）",
        ),
        Param(
            "window",
            "int",
            1020,
            min=0,
            max=100_000,
            help="recent tokens kept",
            help_zh="保留的最近 token 数",
        ),
        Param(
            "dim",
            "int",
            16,
            min=2,
            max=256,
            even=True,
            help="head dimension of the score check",
            help_zh="分数检查所用的头维度",
        ),
        Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子"),
    ),
    values=(
        Value(
            "cache_len",
            "tokens in the cache: sinks + recent window (fewer early on)",
            "tokens",
            meaning_zh="缓存中的 token 数：汇聚 token + 最近窗口（开头时更少）",
        ),
        Value(
            "query_position",
            "RoPE position of the new query: its slot after the cache, cache_len",
            "position",
            meaning_zh="新查询的 RoPE 位置：缓存之后的槽位，即 cache_len",
        ),
        Value(
            "max_cache_distance",
            "largest query − key distance the model sees (cache slots)",
            "positions",
            meaning_zh="模型见到的最大查询 − 键距离（按缓存槽位）",
        ),
        Value(
            "max_original_distance",
            "the same distance in original positions (what it would be without renumbering)",
            "positions",
            meaning_zh="按原始位置计算的同一距离（不重新编号时的值）",
        ),
        Value(
            "evicted",
            "tokens dropped from the cache so far, decode_position − cache_len",
            "tokens",
            meaning_zh="到目前为止被逐出缓存的 token 数 decode_position − cache_len",
        ),
        Value(
            "score_match_error",
            "|scores at cache slots − scores from the in-cache distances alone|, largest",
            "abs error",
            meaning_zh="按缓存槽位的分数与只用缓存内距离算出的分数之差的最大绝对值",
        ),
    ),
    memory_bytes=lambda n_sink, window, dim, **_: 8 * 8 * (n_sink + window + 1) * dim,
)
def _run_streaming_positions(
    ctx: DemoContext, decode_position: int, n_sink: int, window: int, dim: int, seed: int
) -> None:

    from ..longctx import streaming_cache_positions
    from ..rope import apply_rope

    original, cache_pos, query_pos = streaming_cache_positions(decode_position, n_sink, window)
    n = len(original)
    # StreamingLLM caches keys *before* the rotation and rotates them at their cache slots at every step
    k_raw = randn(seed, n, dim, device=ctx.device, dtype=exact_dtype(ctx))
    q_raw = randn(seed + 1, 1, dim, device=ctx.device, dtype=exact_dtype(ctx))
    scores = (apply_rope(q_raw, [query_pos]) @ apply_rope(k_raw, cache_pos.tolist()).T)[0]
    # the same scores from the relative distances alone: rotate each key by −(query_pos − slot), query unrotated
    relative = (q_raw @ apply_rope(k_raw, (cache_pos - query_pos).tolist()).T)[0]
    # decoding position 0: the cache is empty, nothing to compare
    match = float((scores - relative).abs().max()) if n else 0.0
    ctx.check(
        "cache-slot positions: every score depends only on the distance inside the cache",
        match,
        1e-9 * dtype_slack(ctx),
        zh="按缓存槽位编号：每个分数只取决于缓存内的距离",
    )
    ctx.check_true(
        f"the largest distance the model sees is {query_pos} (≤ n_sink + window), not {decode_position}",
        query_pos <= n_sink + window and (query_pos == decode_position or query_pos < decode_position),
        zh=f"模型见到的最大距离是 {query_pos}（≤ n_sink + window），而不是 {decode_position}",
    )
    ctx.value("cache_len", n)
    ctx.value("query_position", query_pos)
    ctx.value("max_cache_distance", query_pos - int(cache_pos[0]) if n else 0)
    ctx.value("max_original_distance", decode_position - int(original[0]) if n else 0)
    ctx.value("evicted", decode_position - n)
    ctx.value("score_match_error", match)
    shown = sorted(set(range(min(n, n_sink + 2))) | set(range(max(0, n - 3), n)))
    ctx.table(
        f"Cache when decoding original position {decode_position}",
        ["cache slot", "original position", "RoPE position"],
        [[i, int(original[i]), int(cache_pos[i])] for i in shown] + [["query", decode_position, query_pos]],
        title_zh=f"解码原始位置 {decode_position} 时的缓存",
        columns_zh=["缓存槽位", "原始位置", "RoPE 位置"],
    )


def _packed_total(lengths: str) -> int:
    """Total tokens for the memory estimate (an unreadable list counts as 0; the run reports it)."""
    try:
        return sum(max(0, int(part)) for part in lengths.replace(" ", "").split(",") if part)
    except ValueError:
        return 0


@register_demo(
    name="packing-positions",
    title="Sequence packing: restart position_ids, mask across documents",
    claim="Packed documents need position_ids that restart at 0 (from which the varlen kernel's cu_seqlens are "
    "found) and a per-document causal mask; a plain causal mask lets documents attend to each other.",
    title_zh="序列打包：重置 position_ids，跨文档屏蔽注意力",
    claim_zh="打包的多篇文档需要从 0 重新开始的 position_ids（varlen 内核的 cu_seqlens 由此得到）和按文档的因果掩码；"
    "只用普通因果掩码会让文档互相关注。",
    topic="long-context",
    params=(
        Param(
            "lengths",
            "str",
            "3,5,2",
            help="comma-separated document lengths (1..256 each, up to 16)",
            help_zh="逗号分隔的文档长度（每个 1..256，最多 16 个）",
        ),
        Param("dim", "int", 8, min=2, max=256, even=True, help="head dimension", help_zh="头维度"),
        Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子"),
    ),
    values=(
        Value(
            "total_len",
            "tokens in the packed sequence, the sum of the lengths",
            "tokens",
            meaning_zh="打包序列的 token 数，即各长度之和",
        ),
        Value("n_docs", "documents packed", "count", meaning_zh="打包的文档数"),
        Value(
            "max_seqlen",
            "longest document (the varlen kernel's max_seqlen)",
            "tokens",
            meaning_zh="最长文档的长度（varlen 内核的 max_seqlen）",
        ),
        Value(
            "cu_seqlens_last",
            "last entry of cu_seqlens, equal to total_len",
            "tokens",
            meaning_zh="cu_seqlens 的最后一项，等于 total_len",
        ),
        Value(
            "last_position_id",
            "position id of the last token: last document's length − 1",
            "position",
            meaning_zh="最后一个 token 的位置编号：最后一篇文档的长度 − 1",
        ),
        Value(
            "packed_error",
            "|packed attention (reset ids, per-document mask) − each document alone|, largest entry",
            "abs error",
            meaning_zh="打包注意力（重置编号、按文档掩码）与各文档单独计算之差的最大绝对值",
        ),
        Value(
            "no_reset_error",
            "the same with positions not reset (RoPE: still 0, only the mask matters)",
            "abs error",
            meaning_zh="位置编号不重置时的同样差值（对 RoPE 仍为 0，只有掩码起作用）",
        ),
        Value(
            "leak_error",
            "the same with reset ids but a plain causal mask (large: documents see each other)",
            "abs difference",
            meaning_zh="编号重置但只用普通因果掩码时的同样差值（很大：文档互相可见）",
        ),
    ),
    # float64: inputs, rotated copies and about four total × total matrices (scores, masks, weights)
    memory_bytes=lambda lengths, dim, **_: (
        8 * (4 * _packed_total(lengths) ** 2 + 12 * _packed_total(lengths) * dim)
    ),
)
def _run_packing_positions(ctx: DemoContext, lengths: str, dim: int, seed: int) -> None:
    import torch

    from ..longctx import (
        cu_seqlens_from_position_ids,
        document_causal_mask,
        packed_position_ids,
    )
    from ..rope import apply_rope

    try:
        sizes = [int(part) for part in lengths.replace(" ", "").split(",") if part]
    except ValueError:
        raise ParamError(f"parameter 'lengths' must be comma-separated integers, got {lengths!r}") from None
    if not sizes or any(s < 1 or s > 256 for s in sizes) or len(sizes) > 16:
        raise ParamError(f"parameter 'lengths' needs 1 to 16 document lengths in [1, 256], got {lengths!r}")
    position_ids, cu_seqlens = packed_position_ids(sizes)
    total = int(cu_seqlens[-1])
    x_q = randn(seed, total, dim, device=ctx.device, dtype=exact_dtype(ctx))
    x_k = randn(seed + 1, total, dim, device=ctx.device, dtype=exact_dtype(ctx))
    x_v = randn(seed + 2, total, dim, device=ctx.device, dtype=exact_dtype(ctx))

    def attend(positions, mask):
        q, k = apply_rope(x_q, positions), apply_rope(x_k, positions)
        scores = (q @ k.T / dim**0.5).masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ x_v

    separate = []
    for a, b in zip(cu_seqlens[:-1], cu_seqlens[1:], strict=True):
        n = int(b - a)
        q, k = apply_rope(x_q[a:b]), apply_rope(x_k[a:b])
        mask = torch.ones(n, n, dtype=torch.bool, device=ctx.device).tril()
        separate.append(
            torch.softmax((q @ k.T / dim**0.5).masked_fill(~mask, float("-inf")), dim=-1) @ x_v[a:b]
        )
    reference = torch.cat(separate)
    doc_mask = document_causal_mask(sizes, device=ctx.device)
    causal = torch.ones(total, total, dtype=torch.bool, device=ctx.device).tril()
    packed = float((attend(position_ids.tolist(), doc_mask) - reference).abs().max())
    no_reset = float((attend(list(range(total)), doc_mask) - reference).abs().max())
    leak = float((attend(position_ids.tolist(), causal) - reference).abs().max())
    ctx.check(
        "reset position_ids + per-document causal mask = each document run on its own",
        packed,
        1e-10 * dtype_slack(ctx),
        zh="位置编号按文档重置 + 按文档的因果掩码 = 每篇文档单独运行",
    )
    ctx.check(
        "with RoPE the mask is what matters: continuing positions under the same mask give the same output",
        no_reset,
        1e-9 * dtype_slack(ctx),
        zh="对 RoPE 来说关键是掩码：同样的掩码下位置编号连续不重置，输出也相同",
    )
    if len(sizes) > 1:
        ctx.check_true(
            "a plain causal mask lets later documents attend to earlier ones (outputs change)",
            leak > 1e-6,
            zh="只用普通因果掩码时，后面的文档会关注前面的文档（输出改变）",
        )
    derived = cu_seqlens_from_position_ids(position_ids)
    ctx.check(
        "cu_seqlens recovered from the position_ids resets match the document boundaries",
        float(abs(derived.astype(float) - cu_seqlens.astype(float)).max()),
        0.0,
        zh="从 position_ids 的归零处恢复出的 cu_seqlens 与文档边界一致",
    )
    ctx.value("total_len", total)
    ctx.value("n_docs", len(sizes))
    ctx.value("max_seqlen", max(sizes))
    ctx.value("cu_seqlens_last", int(cu_seqlens[-1]))
    ctx.value("last_position_id", int(position_ids[-1]))
    ctx.value("packed_error", packed)
    ctx.value("no_reset_error", no_reset)
    ctx.value("leak_error", leak)
    ctx.table(
        "Packed sequence: position_ids and cu_seqlens",
        ["token", "document", "position_id"],
        [[t, int((cu_seqlens[1:] > t).argmax()), int(position_ids[t])] for t in range(min(total, 24))],
        title_zh="打包后的序列：position_ids 与 cu_seqlens",
        columns_zh=["词元", "文档", "position_id"],
    )
    ctx.note(
        "cu_seqlens = [" + ", ".join(str(int(c)) for c in cu_seqlens) + f"], max_seqlen = {max(sizes)}",
        zh="cu_seqlens = [" + ", ".join(str(int(c)) for c in cu_seqlens) + f"]，max_seqlen = {max(sizes)}",
    )
    if total > 1:
        ctx.matrix(
            "Per-document causal mask (1 = may attend)",
            doc_mask.double().cpu()[:64, :64],
            "query",
            "key",
            title_zh="按文档的因果掩码（1 = 可以关注）",
            row_label_zh="查询",
            col_label_zh="键",
        )
