"""Long-context bookkeeping: KV-cache size, attention cost, RoPE kernel traffic, GQA with RoPE, StreamingLLM
positions, packing.

References: Shazeer 2019 (MQA), Ainslie et al. 2023 (GQA, HF ``repeat_kv``), Xiao et al. 2023
(StreamingLLM §3.2: positions are assigned *within the cache*, keys are cached before the rotation),
Dao 2023 / flash-attn ``flash_attn_varlen_func`` (``cu_seqlens``), HF ``DataCollatorWithFlattening``
(``position_ids`` restart at 0 for every packed document).

The counting helpers are plain Python/numpy; the attention helpers import torch at top level
(``import posenc_ref`` stays light because the package resolves names lazily).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

BYTES_PER_ELEMENT = {"float32": 4, "bfloat16": 2, "float16": 2, "float8": 1}


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def kv_cache_bytes(
    n_layers: int, n_kv_heads: int, head_dim: int, seq_len: int, *, batch: int = 1, bytes_per_element: int = 2
) -> int:
    """Bytes of a KV cache: ``2 (K and V) × layers × kv_heads × head_dim × tokens × batch × bytes``."""
    factors = (n_layers, n_kv_heads, head_dim, seq_len, batch, bytes_per_element)
    names = ("n_layers", "n_kv_heads", "head_dim", "seq_len", "batch", "bytes_per_element")
    out = 2
    for name, value in zip(names, factors, strict=True):
        out *= _positive(name, value)
    return out


def attention_score_flops(
    n_layers: int, n_heads: int, head_dim: int, seq_len: int, *, causal: bool = True
) -> int:
    """FLOPs of the two seq-by-seq products of a prefill, ``q kᵀ`` and ``weights · v``, over all layers and heads.

    Each (query, key) pair costs ``2 × head_dim`` FLOPs per product (a multiply and an add per channel), so
    ``4 × head_dim`` for both. A causal prefill computes the ``seq (seq + 1) / 2`` visible pairs (what a
    causal FlashAttention kernel does), a bidirectional one all ``seq²``. Projections and the MLP are not
    counted: they grow linearly with ``seq``; these grow quadratically.
    """
    n = _positive("seq_len", seq_len)
    pairs = n * (n + 1) // 2 if causal else n * n
    return (
        4
        * _positive("n_layers", n_layers)
        * _positive("n_heads", n_heads)
        * _positive("head_dim", head_dim)
        * pairs
    )


# FLOPs per rotated element: out = x·cos + rotate(x)·sin, two multiplies and an add (rotate_half only
# moves channels and flips a sign)
ROPE_FLOPS_PER_ELEMENT = 3


def rope_kernel_traffic(
    seq_len: int, n_heads: int, n_kv_heads: int, head_dim: int, *, bytes_per_element: int = 2
) -> dict[str, float]:
    """HBM traffic of one layer's standalone (unfused) RoPE kernel, which reads q and k and writes them
    back: the bytes of a copy of q and k. ``q_bytes``, ``k_bytes``, ``traffic_bytes`` (2 × (q + k)),
    ``table_bytes`` (cos and sin for ``seq_len`` positions at head_dim width, in the same element type,
    as HF builds them), ``flops`` (3 per rotated element) and ``intensity`` (FLOPs per byte of q/k
    traffic: 3 / (2 × 2 × bytes) = 0.75 in bf16, far below any GPU's ridge point, so a copy's speed is
    the best such a kernel can do; fused into the projection epilogue or the attention prologue it adds
    no traffic at all)."""
    tokens = _positive("seq_len", seq_len)
    q_elems = tokens * _positive("n_heads", n_heads) * _positive("head_dim", head_dim)
    k_elems = tokens * _positive("n_kv_heads", n_kv_heads) * head_dim
    size = _positive("bytes_per_element", bytes_per_element)
    traffic = 2 * (q_elems + k_elems) * size
    flops = ROPE_FLOPS_PER_ELEMENT * (q_elems + k_elems)
    return {
        "q_bytes": float(q_elems * size),
        "k_bytes": float(k_elems * size),
        "traffic_bytes": float(traffic),
        "table_bytes": float(2 * tokens * head_dim * size),
        "flops": float(flops),
        "intensity": flops / traffic,
    }


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """HF's ``repeat_kv``: ``[batch, kv_heads, seq, d] -> [batch, kv_heads × n_rep, seq, d]``, each KV head
    repeated for the ``n_rep`` query heads of its group (query head h uses KV head ``h // n_rep``)."""
    if n_rep == 1:
        return x
    b, h, s, d = x.shape
    return x[:, :, None].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)


def gqa_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = True) -> torch.Tensor:
    """Grouped-query attention: q ``[batch, heads, seq, d]``, k and v ``[batch, kv_heads, seq_k, d]``.

    ``heads`` must be a multiple of ``kv_heads`` (MQA: one KV head; MHA: as many as query heads).
    """
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads % kv_heads:
        raise ValueError(f"query heads ({heads}) must be a multiple of kv heads ({kv_heads})")
    k, v = repeat_kv(k, heads // kv_heads), repeat_kv(v, heads // kv_heads)
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if causal:
        sq, sk = q.shape[-2], k.shape[-2]
        mask = torch.ones(sq, sk, dtype=torch.bool, device=q.device).tril(diagonal=sk - sq)
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def streaming_cache_positions(
    decode_position: int, n_sink: int, window: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """StreamingLLM's cache when decoding the token at original position ``decode_position``.

    The cache keeps the first ``n_sink`` tokens (attention sinks) and the ``window`` most recent tokens.
    Returns ``(original positions of the cached tokens, positions used for RoPE, query position)``: RoPE
    positions are the slots within the cache, 0 .. len − 1, and the new query gets position ``len``.
    """
    if decode_position < 0 or n_sink < 0 or window < 0:
        raise ValueError("decode_position, n_sink and window must be >= 0")
    sinks = np.arange(min(n_sink, decode_position))
    recent_start = max(len(sinks), decode_position - window)
    original = np.concatenate([sinks, np.arange(recent_start, decode_position)]).astype(np.int64)
    return original, np.arange(len(original), dtype=np.int64), len(original)


def packed_position_ids(lengths: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(position_ids, cu_seqlens)`` for documents of ``lengths`` packed into one sequence.

    position_ids restart at 0 for each document (HF ``DataCollatorWithFlattening``); cu_seqlens are the
    int32 document boundaries ``[0, l0, l0 + l1, ...]`` that ``flash_attn_varlen_func`` takes.
    """
    sizes = [_positive("document length", n) for n in lengths]
    if not sizes:
        raise ValueError("at least one document is needed")
    position_ids = np.concatenate([np.arange(n) for n in sizes]).astype(np.int64)
    cu_seqlens = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    return position_ids, cu_seqlens


def cu_seqlens_from_position_ids(position_ids: np.ndarray) -> np.ndarray:
    """Document boundaries recovered from position ids: a document starts wherever the id is 0 (how HF
    finds packed documents for the varlen kernel)."""
    ids = np.asarray(position_ids)
    starts = np.flatnonzero(ids == 0)
    return np.concatenate([starts, [len(ids)]]).astype(np.int32)


def document_causal_mask(lengths: Sequence[int], *, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean ``[total, total]`` mask: causal inside each packed document, nothing across documents."""
    _, cu = packed_position_ids(lengths)
    doc = torch.repeat_interleave(torch.arange(len(cu) - 1), torch.as_tensor(np.diff(cu), dtype=torch.long))
    doc = doc.to(device)
    total = int(cu[-1])
    causal = torch.ones(total, total, dtype=torch.bool, device=device).tril()
    return causal & (doc[:, None] == doc[None, :])
