"""Long-context demos: KV-cache memory and attention cost, RoPE kernel traffic, GQA with RoPE, StreamingLLM
positions, packing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._common import randn
from .base import Constraint, DemoContext, Param, ParamError, Value
from .registry import register_demo

if TYPE_CHECKING:
    import torch

GIB = 2**30


def _exact(ctx: DemoContext) -> torch.dtype:
    """float64 where the device has it (CPU, CUDA), float32 on MPS; recorded on ctx.dtype."""
    import torch

    ctx.dtype = "float32" if str(ctx.device).startswith("mps") else "float64"
    return getattr(torch, ctx.dtype)


def _slack(ctx: DemoContext) -> float:
    """Tolerance multiplier: 1 in float64, 1e6 where only float32 is available (MPS)."""
    return 1.0 if ctx.dtype == "float64" else 1e6


@register_demo(
    name="kv-cache-memory",
    title="KV-cache memory grows linearly, attention compute quadratically",
    claim="A KV cache holds 2 × layers × kv_heads × head_dim × bytes per token, so GQA divides it by "
    "heads / kv_heads; the q·kᵀ and weights·v products of a prefill grow with the square of the length.",
    title_zh="KV 缓存线性增长，注意力计算平方增长",
    claim_zh="KV 缓存每个词元占 2 × 层数 × kv_heads × head_dim × 字节数，所以 GQA 把它缩小 heads / kv_heads 倍；"
    "预填充中 q·kᵀ 与 权重·v 两个乘积随长度的平方增长。",
    topic="long-context",
    params=(
        Param("n_layers", "int", 32, min=1, max=256, help="transformer layers", help_zh="Transformer 层数"),
        Param("n_heads", "int", 32, min=1, max=256, help="query heads", help_zh="查询头数"),
        Param(
            "n_kv_heads",
            "int",
            8,
            min=1,
            max=256,
            help="key/value heads (GQA; 1 = MQA)",
            help_zh="键/值头数（GQA；1 即 MQA）",
        ),
        Param("head_dim", "int", 128, min=2, max=1024, even=True, help="head dimension", help_zh="头维度"),
        Param(
            "seq_len",
            "int",
            131072,
            min=1,
            max=100_000_000,
            help="tokens in the cache",
            help_zh="缓存中的 token 数",
        ),
        Param("batch", "int", 1, min=1, max=4096, help="sequences", help_zh="序列数"),
        Param(
            "dtype",
            "str",
            "bfloat16",
            choices=("bfloat16", "float16", "float32", "float8"),
            help="cache type",
            help_zh="缓存类型",
        ),
        Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子"),
    ),
    values=(
        Value(
            "bytes_per_token",
            "KV-cache bytes per token of one sequence: 2 · layers · kv_heads · head_dim · bytes per element",
            "bytes",
            meaning_zh="一个序列每个 token 的 KV 缓存字节数：2 · 层数 · kv_heads · head_dim · 每元素字节数",
        ),
        Value("kib_per_token", "bytes_per_token in KiB", "KiB", meaning_zh="以 KiB 计的 bytes_per_token"),
        Value(
            "cache_gib",
            "whole KV cache for batch × seq_len tokens",
            "GiB",
            meaning_zh="batch × seq_len 个 token 的整个 KV 缓存",
        ),
        Value(
            "mha_cache_gib",
            "the same cache if every query head had its own K and V (MHA)",
            "GiB",
            meaning_zh="若每个查询头都有自己的 K 和 V（MHA）时的同样缓存",
        ),
        Value(
            "gqa_saving",
            "how many times smaller the cache is than MHA's, n_heads / n_kv_heads",
            "ratio",
            meaning_zh="缓存比 MHA 小的倍数 n_heads / n_kv_heads",
        ),
        Value(
            "score_matrix_gib",
            "one layer's seq_len × seq_len score matrix over batch and heads, if materialised",
            "GiB",
            meaning_zh="若显式存储，一层在 batch 和所有头上的 seq_len × seq_len 分数矩阵",
        ),
        Value(
            "prefill_score_tflops",
            "FLOPs of q·kᵀ and weights·v in a causal prefill, all layers and heads",
            "TFLOP",
            meaning_zh="因果预填充中 q·kᵀ 与 weights·v 的浮点运算量（所有层和头）",
        ),
        Value(
            "flops_ratio_vs_half_length",
            "prefill_score FLOPs over those at half the length (about 4: quadratic)",
            "ratio",
            meaning_zh="预填充分数运算量与一半长度时之比（约为 4：平方增长）",
        ),
        Value(
            "gqa_error",
            "|GQA attention − each query head attending with its KV head|, largest entry",
            "abs error",
            meaning_zh="GQA 注意力与每个查询头用对应 KV 头单独计算之差的最大绝对值",
        ),
    ),
    constraints=(Constraint("n_kv_heads", "<=", "n_heads"),),
    # one layer's 4-token cache and a few small float64 heads (≤ 8 heads × 12 × 64)
    memory_bytes=lambda batch, n_kv_heads, head_dim, **_: 8 * batch * n_kv_heads * 4 * head_dim + 2**20,
)
def _run_kv_cache_memory(
    ctx: DemoContext,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    seq_len: int,
    batch: int,
    dtype: str,
    seed: int,
) -> None:
    import torch

    from ..longctx import BYTES_PER_ELEMENT, attention_score_flops, gqa_attention, kv_cache_bytes, repeat_kv
    from ..rope import apply_rope

    if n_heads % n_kv_heads:
        raise ParamError(f"n_heads ({n_heads}) must be a multiple of n_kv_heads ({n_kv_heads})")
    size = BYTES_PER_ELEMENT[dtype]
    per_token = kv_cache_bytes(n_layers, n_kv_heads, head_dim, 1, batch=1, bytes_per_element=size)
    total = kv_cache_bytes(n_layers, n_kv_heads, head_dim, seq_len, batch=batch, bytes_per_element=size)
    mha_total = kv_cache_bytes(n_layers, n_heads, head_dim, seq_len, batch=batch, bytes_per_element=size)
    flops = attention_score_flops(n_layers, n_heads, head_dim, seq_len, causal=True)
    flops_half = attention_score_flops(n_layers, n_heads, head_dim, max(1, seq_len // 2), causal=True)

    # 1. the formula against a real cache: one layer's K and V for 4 tokens, in the chosen element size
    holder = {
        "float32": torch.float32,
        "bfloat16": torch.bfloat16,
        "float16": torch.float16,
        "float8": torch.uint8,
    }
    k_cache = torch.zeros(batch, n_kv_heads, 4, head_dim, dtype=holder[dtype])
    layer_bytes = 2 * k_cache.numel() * k_cache.element_size()
    ctx.check(
        "the formula matches the bytes of a real cache tensor (one layer, 4 tokens, × layers)",
        layer_bytes * n_layers / 4 - per_token * batch,
        0.0,
        zh="公式与真实缓存张量的字节数一致（一层、4 个词元，再乘层数）",
    )

    # 2. GQA with RoPE on a small head: rotate K once per KV head, then repeat (what HF caches)
    heads, kv_heads = min(n_heads, 8), max(1, min(n_kv_heads, 8) * min(n_heads, 8) // n_heads)
    while heads % kv_heads:
        kv_heads -= 1
    d = min(head_dim, 64) // 2 * 2
    q = randn(seed, 1, heads, 12, d, device=ctx.device, dtype=_exact(ctx))
    k = randn(seed + 1, 1, kv_heads, 12, d, device=ctx.device, dtype=_exact(ctx))
    v = randn(seed + 2, 1, kv_heads, 12, d, device=ctx.device, dtype=_exact(ctx))
    n_rep = heads // kv_heads
    commute = float((apply_rope(repeat_kv(k, n_rep)) - repeat_kv(apply_rope(k), n_rep)).abs().max())
    ctx.check(
        "RoPE commutes with repeat_kv: rotate the kv_heads keys once, then share them (the cache holds kv_heads)",
        commute,
        1e-12 * _slack(ctx),
        zh="RoPE 与 repeat_kv 可交换：每个 KV 头的键只需旋转一次再共享（缓存里只有 kv_heads 份）",
    )
    qr, kr = apply_rope(q), apply_rope(k)
    grouped = gqa_attention(qr, kr, v)
    by_head = torch.stack(
        [
            torch.softmax(
                (qr[:, h] @ kr[:, h // n_rep].transpose(-1, -2) / d**0.5).masked_fill(
                    ~torch.ones(12, 12, dtype=torch.bool, device=ctx.device).tril(), float("-inf")
                ),
                dim=-1,
            )
            @ v[:, h // n_rep]
            for h in range(heads)
        ],
        dim=1,
    )
    gqa_error = float((grouped - by_head).abs().max())
    ctx.check(
        f"GQA ({heads} query heads, {kv_heads} KV heads) = each query head h attending with KV head h // {n_rep}",
        gqa_error,
        1e-12 * _slack(ctx),
        zh=f"GQA（{heads} 个查询头、{kv_heads} 个 KV 头）= 每个查询头 h 用第 h // {n_rep} 个 KV 头做注意力",
    )

    ctx.value("bytes_per_token", per_token)
    ctx.value("kib_per_token", per_token / 1024)
    ctx.value("cache_gib", total / GIB)
    ctx.value("mha_cache_gib", mha_total / GIB)
    ctx.value("gqa_saving", n_heads / n_kv_heads)
    ctx.value("score_matrix_gib", batch * n_heads * seq_len * seq_len * size / GIB)
    ctx.value("prefill_score_tflops", flops / 1e12)
    ctx.value("flops_ratio_vs_half_length", flops / flops_half)
    ctx.value("gqa_error", gqa_error)
    ctx.table(
        "KV cache and attention cost",
        ["quantity", "value"],
        [
            ["bytes per token (all layers, K and V)", per_token],
            [f"cache for {seq_len} tokens × batch {batch} (GiB)", total / GIB],
            [f"same with MHA ({n_heads} KV heads, GiB)", mha_total / GIB],
            ["one layer's seq × seq scores if materialized (GiB)", batch * n_heads * seq_len**2 * size / GIB],
            ["causal prefill q·kᵀ and weights·v (TFLOPs)", flops / 1e12],
        ],
        title_zh="KV 缓存与注意力开销",
        columns_zh=["量", "值"],
    )
    lengths = [1 << p for p in range(10, 21)]
    ctx.series(
        "Per sequence: KV cache (GiB, linear) and causal score FLOPs (TFLOPs, quadratic)",
        [float(n) for n in lengths],
        {
            "KV cache GiB": [
                kv_cache_bytes(n_layers, n_kv_heads, head_dim, n, batch=1, bytes_per_element=size) / GIB
                for n in lengths
            ],
            "score TFLOPs": [attention_score_flops(n_layers, n_heads, head_dim, n) / 1e12 for n in lengths],
        },
        "tokens",
        "",
        title_zh="每条序列：KV 缓存（GiB，线性）与因果注意力分数的 FLOPs（TFLOPs，平方）",
    )


MIB = 2**20
_ELEMENT_DTYPES = ("bfloat16", "float16", "float32")


@register_demo(
    name="rope-kernel-traffic",
    title="A standalone RoPE kernel moves the bytes of a copy",
    claim="Unfused, RoPE reads q and k from HBM and writes them back, 2 × (q + k) bytes per layer (160 MiB for an "
    "8K-token Llama-3-8B prefill in bf16), for 3 FLOPs an element: 0.75 FLOP/B, so a copy's speed is its best "
    "case; fused into the QKV projection or the attention prologue it adds no traffic.",
    title_zh="单独的 RoPE 内核搬运的字节与一次复制相同",
    claim_zh="不融合时，RoPE 从 HBM 读出 q 和 k 再写回，每层 2 ×（q + k）字节（Llama-3-8B 在 bf16 下预填充 8K 个 token 时为 "
    "160 MiB），每个元素只有 3 次浮点运算：0.75 FLOP/B，所以复制的速度就是它的上限；融合进 QKV 投影或注意力内核的开头后，"
    "不再多出任何访存。",
    topic="coding",
    params=(
        Param(
            "seq_len",
            "int",
            8192,
            min=1,
            max=10_000_000,
            help="tokens in the step (1 at decode)",
            help_zh="这一步的 token 数（解码时为 1）",
        ),
        Param("n_heads", "int", 32, min=1, max=256, help="query heads", help_zh="查询头数"),
        Param("n_kv_heads", "int", 8, min=1, max=256, help="key heads (GQA)", help_zh="键头数（GQA）"),
        Param("head_dim", "int", 128, min=2, max=1024, even=True, help="head dimension", help_zh="头维度"),
        Param(
            "dtype",
            "str",
            "bfloat16",
            choices=_ELEMENT_DTYPES,
            help="q and k element type",
            help_zh="q 和 k 的元素类型",
        ),
        Param(
            "hbm_tb_s",
            "float",
            3.35,
            min=0.01,
            max=100.0,
            help="HBM bandwidth in TB/s (H100 SXM: 3.35)",
            help_zh="HBM 带宽，单位 TB/s（H100 SXM：3.35）",
        ),
    ),
    values=(
        Value(
            "q_mib",
            "bytes of q for the step: seq_len × n_heads × head_dim × element size",
            "MiB",
            meaning_zh="这一步 q 的字节数：seq_len × n_heads × head_dim × 元素大小",
        ),
        Value(
            "k_mib",
            "bytes of k for the step: seq_len × n_kv_heads × head_dim × element size",
            "MiB",
            meaning_zh="这一步 k 的字节数：seq_len × n_kv_heads × head_dim × 元素大小",
        ),
        Value(
            "traffic_mib",
            "an unfused RoPE kernel's traffic: q and k read once and written once (2 × (q + k))",
            "MiB",
            meaning_zh="未融合的 RoPE kernel 的访存量：q 和 k 各读一次、写一次（2 × (q + k)）",
        ),
        Value(
            "table_mib",
            "the cos and sin tables for seq_len positions at head_dim width",
            "MiB",
            meaning_zh="seq_len 个位置、head_dim 宽的 cos 和 sin 表",
        ),
        Value(
            "intensity",
            "FLOPs per byte moved (6 FLOPs an element over 2 × element size bytes)",
            "FLOP/B",
            meaning_zh="每搬运一个字节的浮点运算数（每个元素 6 次运算，搬运 2 × 元素大小字节）",
        ),
        Value(
            "traffic_us",
            "the traffic at hbm_tb_s: the kernel's best case, copy speed",
            "µs",
            meaning_zh="按 hbm_tb_s 计的访存时间：kernel 的最好情况，即拷贝速度",
        ),
        Value(
            "decode_kib",
            "the same traffic for one decode token",
            "KiB",
            meaning_zh="解码一个 token 时的同一访存量",
        ),
    ),
    constraints=(Constraint("n_kv_heads", "<=", "n_heads"),),
    # 16 tokens of q and k in float32 with their rotated copies and tables
    memory_bytes=lambda n_heads, head_dim, **_: 4 * 16 * (n_heads + 2) * head_dim * 8 + 2**20,
)
def _run_rope_kernel_traffic(
    ctx: DemoContext,
    seq_len: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    hbm_tb_s: float,
) -> None:
    import torch

    from ..longctx import BYTES_PER_ELEMENT, ROPE_FLOPS_PER_ELEMENT, rope_kernel_traffic
    from ..rope import apply_rope, rope_cos_sin, rotate_half

    size = BYTES_PER_ELEMENT[dtype]
    cost = rope_kernel_traffic(seq_len, n_heads, n_kv_heads, head_dim, bytes_per_element=size)
    decode = rope_kernel_traffic(1, n_heads, n_kv_heads, head_dim, bytes_per_element=size)

    # 1. the formula against real tensors: a few tokens of q and k, read once and written once
    rows = min(seq_len, 16)
    q = torch.zeros(rows, n_heads, head_dim, dtype=getattr(torch, dtype), device=ctx.device)
    k = torch.zeros(rows, n_kv_heads, head_dim, dtype=getattr(torch, dtype), device=ctx.device)
    copy_bytes = 2 * (q.numel() * q.element_size() + k.numel() * k.element_size())  # read + write
    ctx.check(
        "2 × (q + k) bytes = what x.clone() of q and k moves (read once, write once), scaled to seq_len",
        copy_bytes / rows * seq_len - cost["traffic_bytes"],
        0.0,
        zh="2 ×（q + k）字节 = 对 q 和 k 做 x.clone() 搬运的字节（读一次、写一次），再按 seq_len 放大",
    )
    # 2. the work per element: x·cos + rotate_half(x)·sin, two multiplies and an add
    x = randn(0, 1, rows, head_dim, device=ctx.device, dtype=torch.float32)
    cos, sin = rope_cos_sin(rows, head_dim, device=ctx.device, dtype=torch.float32)
    by_hand = x * cos + rotate_half(x) * sin
    ctx.check(
        f"apply_rope is x·cos + rotate_half(x)·sin: {ROPE_FLOPS_PER_ELEMENT} FLOPs an element",
        float((apply_rope(x) - by_hand).abs().max()),
        1e-6,
        zh=f"apply_rope 就是 x·cos + rotate_half(x)·sin：每个元素 {ROPE_FLOPS_PER_ELEMENT} 次浮点运算",
    )
    ctx.check_true(
        f"{cost['intensity']:.3g} FLOP/B is far below a GPU's ridge point (hundreds of FLOP/B): memory-bound",
        cost["intensity"] < 2,
        zh=f"{cost['intensity']:.3g} FLOP/B 远低于 GPU 的屋脊点（数百 FLOP/B）：受访存限制",
    )
    seconds = cost["traffic_bytes"] / (hbm_tb_s * 1e12)
    ctx.value("q_mib", cost["q_bytes"] / MIB)
    ctx.value("k_mib", cost["k_bytes"] / MIB)
    ctx.value("traffic_mib", cost["traffic_bytes"] / MIB)
    ctx.value("table_mib", cost["table_bytes"] / MIB)
    ctx.value("intensity", cost["intensity"])
    ctx.value("traffic_us", seconds * 1e6)
    ctx.value("decode_kib", decode["traffic_bytes"] / 1024)
    ctx.table(
        "One layer's standalone RoPE kernel",
        ["quantity", "value"],
        [
            [f"q: {seq_len} × {n_heads} × {head_dim} × {size} B (MiB)", cost["q_bytes"] / MIB],
            [f"k: {seq_len} × {n_kv_heads} × {head_dim} × {size} B (MiB)", cost["k_bytes"] / MIB],
            ["read + write q and k (MiB)", cost["traffic_bytes"] / MIB],
            ["cos and sin tables, if read from HBM (MiB)", cost["table_bytes"] / MIB],
            ["FLOPs per byte of q/k traffic", cost["intensity"]],
            [f"time at {hbm_tb_s:g} TB/s (µs)", seconds * 1e6],
            ["decode step, one token (KiB)", decode["traffic_bytes"] / 1024],
        ],
        title_zh="一层的独立 RoPE 内核",
        columns_zh=["量", "值"],
    )
    ctx.note(
        "Fused into the QKV projection's epilogue (or the attention kernel's prologue, or the cache write), the "
        "rotation happens while q and k are in registers: no extra bytes. At decode a step moves a few KiB per "
        "layer, nanoseconds at HBM speed against the microseconds a kernel launch costs, so a separate kernel is "
        "launch-bound instead. bench/rope.py "
        "measures apply_rope against clone() of the same tensor.",
        zh="融合进 QKV 投影的收尾（或注意力内核的开头、写缓存）时，旋转在 q 和 k 还在寄存器里时完成：不多出任何字节。"
        "解码时每层每步只搬几 KiB，按 HBM 带宽只需几纳秒，而一次内核启动要几微秒，所以单独的内核受启动开销限制。bench/rope.py 用同一张量的 "
        "clone() 作为基准来测 apply_rope。",
    )


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
    k_raw = randn(seed, n, dim, device=ctx.device, dtype=_exact(ctx))
    q_raw = randn(seed + 1, 1, dim, device=ctx.device, dtype=_exact(ctx))
    scores = (apply_rope(q_raw, [query_pos]) @ apply_rope(k_raw, cache_pos.tolist()).T)[0]
    # the same scores from the relative distances alone: rotate each key by −(query_pos − slot), query unrotated
    relative = (q_raw @ apply_rope(k_raw, (cache_pos - query_pos).tolist()).T)[0]
    # decoding position 0: the cache is empty, nothing to compare
    match = float((scores - relative).abs().max()) if n else 0.0
    ctx.check(
        "cache-slot positions: every score depends only on the distance inside the cache",
        match,
        1e-9 * _slack(ctx),
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
    x_q = randn(seed, total, dim, device=ctx.device, dtype=_exact(ctx))
    x_k = randn(seed + 1, total, dim, device=ctx.device, dtype=_exact(ctx))
    x_v = randn(seed + 2, total, dim, device=ctx.device, dtype=_exact(ctx))

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
        1e-10 * _slack(ctx),
        zh="位置编号按文档重置 + 按文档的因果掩码 = 每篇文档单独运行",
    )
    ctx.check(
        "with RoPE the mask is what matters: continuing positions under the same mask give the same output",
        no_reset,
        1e-9 * _slack(ctx),
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
