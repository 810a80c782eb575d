"""DeBERTa disentangled attention: content-to-content, content-to-position, position-to-content.

Reference: He, Liu, Gao & Chen 2021, "DeBERTa: Decoding-enhanced BERT with Disentangled Attention",
§3.1 (eqs. 2–4), and transformers' ``DisentangledSelfAttention`` (v1). Each token has a content
vector H_i; relative positions have their own embedding table P with 2k rows::

    δ(i, j) = 0            if i - j <= -k
            = 2k - 1       if i - j >= k
            = i - j + k    otherwise

    Q_c = H W_{q,c}   K_c = H W_{k,c}   Q_r = P W_{q,r}   K_r = P W_{k,r}

    Ã_ij = Q_c[i]·K_c[j]             content-to-content  (c2c)
         + Q_c[i]·K_r[δ(i, j)]       content-to-position (c2p)
         + K_c[j]·Q_r[δ(j, i)]       position-to-content (p2c: note δ(j, i), the key's view)

    A = softmax(Ã / √(3d))           three terms, so the scale is √(3d), not √d

The position-to-position term of the absolute expansion is dropped: with relative positions it
carries no information about the tokens.

DeBERTa-v2/v3 bucket the relative position ``q - k`` (query minus key, the opposite sign of T5's
``key - query``) before the lookup (transformers ``make_log_bucket_position``; v3 configs use
``position_buckets = 256`` and ``max_relative_positions = 512``). With ``mid = buckets // 2``::

    bucket(r) = r                                                          if |r| <= mid
              = sign(r) · (mid + ceil(ln(|r|/mid) / ln((max_pos - 1)/mid) · (mid - 1)))   otherwise

exact up to ±mid, then log-spaced, reaching ±(buckets - 1) at ``|r| = max_pos - 1``; c2p reads row
``clamp(bucket + buckets, 0, 2·buckets - 1)`` of the 2·buckets-row table.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import torch


class DebertaScoreTerms(NamedTuple):
    """DeBERTa terms, each ``[..., Lq, Lk]``: c2c, c2p, p2c, their sum, and the sum / √(3d)."""

    c2c: Any
    c2p: Any
    p2c: Any
    total: Any
    scaled: Any


def deberta_scale(head_dim: int, n_terms: int = 3) -> float:
    """The logit scale 1/√(n_terms · d): 1/√(3d) with c2p and p2c enabled."""
    return 1.0 / math.sqrt(n_terms * head_dim)


def deberta_delta_np(i: int, j: int, span: int) -> int:
    """δ(i, j): the relative-embedding row for query i and key j, clipped to 0 .. 2k - 1."""
    if i - j <= -span:
        return 0
    if i - j >= span:
        return 2 * span - 1
    return i - j + span


def deberta_relative_indices(
    q_len: int, k_len: int, span: int, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """δ(i, j) for every pair, long ``[q_len, k_len]`` (HF: ``clamp(i - j + k, 0, 2k - 1)``)."""
    import torch

    rel = torch.arange(q_len, device=device)[:, None] - torch.arange(k_len, device=device)[None, :]
    return (rel + span).clamp(0, 2 * span - 1)


def deberta_log_bucket_np(relative_position: Any, buckets: int, max_position: int) -> np.ndarray:
    """Textbook log buckets of ``relative_position`` (query - key), int64, as in DeBERTa-v2's
    ``make_log_bucket_position`` (float64 here; the formula's ceil makes the result an integer)."""
    rel = np.asarray(relative_position, dtype=np.int64)
    mid = buckets // 2
    if mid < 1 or max_position - 1 <= mid:
        raise ValueError(
            f"need buckets >= 2 and max_position - 1 > buckets // 2, got {buckets}, {max_position}"
        )
    out = np.empty(rel.shape, dtype=np.int64)
    for idx, r in np.ndenumerate(rel):
        a = abs(int(r))
        if a <= mid:
            out[idx] = r
        else:
            log_pos = math.ceil(math.log(a / mid) / math.log((max_position - 1) / mid) * (mid - 1)) + mid
            out[idx] = log_pos if r > 0 else -log_pos
    return out


def deberta_log_bucket(relative_position: torch.Tensor, buckets: int, max_position: int) -> torch.Tensor:
    """Fast log buckets, long tensor, vectorised as in transformers (float32 logs, like the original)."""
    import torch

    rel = torch.as_tensor(relative_position)
    mid = buckets // 2
    if mid < 1 or max_position - 1 <= mid:
        raise ValueError(
            f"need buckets >= 2 and max_position - 1 > buckets // 2, got {buckets}, {max_position}"
        )
    sign = torch.sign(rel)
    abs_pos = torch.where((rel < mid) & (rel > -mid), torch.full_like(rel, mid - 1), rel.abs())
    log_pos = (
        torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((max_position - 1) / mid)) * (mid - 1))
        + mid
    )
    return torch.where(abs_pos <= mid, rel.to(log_pos.dtype), log_pos * sign).long()


def _span(rel_emb_rows: int, span: int | None) -> int:
    span = rel_emb_rows // 2 if span is None else span
    if span < 1:
        raise ValueError(f"span k must be >= 1, got {span}")
    if rel_emb_rows < 2 * span:
        raise ValueError(f"rel_emb needs 2k = {2 * span} rows, got {rel_emb_rows}")
    return span


def deberta_score_terms_np(
    h: np.ndarray,
    rel_emb: np.ndarray,
    w_q_c: np.ndarray,
    w_k_c: np.ndarray,
    w_q_r: np.ndarray,
    w_k_r: np.ndarray,
    *,
    span: int | None = None,
) -> DebertaScoreTerms:
    """Textbook terms for one head. h ``[L, d_model]``, rel_emb P ``[2k, d_model]``, weights
    ``[d_model, d]``. ``span`` k defaults to ``rel_emb.shape[0] // 2``."""
    h, rel_emb, w_q_c, w_k_c, w_q_r, w_k_r = (
        np.asarray(a, dtype=np.float64) for a in (h, rel_emb, w_q_c, w_k_c, w_q_r, w_k_r)
    )
    k = _span(rel_emb.shape[0], span)
    q_c, k_c = h @ w_q_c, h @ w_k_c
    q_r, k_r = rel_emb @ w_q_r, rel_emb @ w_k_r
    n = h.shape[0]
    c2c, c2p, p2c = (np.zeros((n, n)) for _ in range(3))
    for i in range(n):
        for j in range(n):
            c2c[i, j] = q_c[i] @ k_c[j]
            c2p[i, j] = q_c[i] @ k_r[deberta_delta_np(i, j, k)]
            p2c[i, j] = k_c[j] @ q_r[deberta_delta_np(j, i, k)]
    total = c2c + c2p + p2c
    return DebertaScoreTerms(c2c, c2p, p2c, total, total * deberta_scale(w_q_c.shape[1]))


def deberta_score_terms(
    h: torch.Tensor,
    rel_emb: torch.Tensor,
    w_q_c: torch.Tensor,
    w_k_c: torch.Tensor,
    w_q_r: torch.Tensor,
    w_k_r: torch.Tensor,
    *,
    span: int | None = None,
) -> DebertaScoreTerms:
    """Fast terms. h ``[..., L, d_model]``; other arguments as in `deberta_score_terms_np`.

    As in HF: project the whole table once, multiply, then gather by δ (c2p) and by δ(j, i)
    (p2c, transposed back).
    """
    import torch

    k = _span(rel_emb.shape[0], span)
    n = h.shape[-2]
    q_c, k_c = h @ w_q_c, h @ w_k_c  # [..., L, d]
    q_r, k_r = rel_emb @ w_q_r, rel_emb @ w_k_r  # [2k, d]
    idx = deberta_relative_indices(n, n, k, device=h.device)  # δ(i, j)
    batch = q_c.shape[:-2]
    c2c = q_c @ k_c.transpose(-1, -2)
    c2p = torch.gather(q_c @ k_r.T, -1, idx.expand(*batch, n, n))  # Q_c[i]·K_r[δ(i, j)]
    # p2c[i, j] = K_c[j]·Q_r[δ(j, i)]: gather row j at column δ(j, i) = idx[j, i], then transpose
    p2c = torch.gather(k_c @ q_r.T, -1, idx.expand(*batch, n, n)).transpose(-1, -2)
    total = c2c + c2p + p2c
    return DebertaScoreTerms(c2c, c2p, p2c, total, total * deberta_scale(w_q_c.shape[1]))
