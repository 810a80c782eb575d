"""Transformer-XL / XLNet relative attention: four score terms with global biases u and v.

Reference: Dai et al. 2019, "Transformer-XL" §3.3 (XLNet, Yang et al. 2019, reuses it). Start from
the absolute-PE expansion of q_i·k_j, then (1) replace the key's absolute encoding p_j with the
sinusoid of the relative distance R_{i-j}, (2) replace the query's position terms with two learned
vectors u and v shared by all positions, (3) give keys-from-content and keys-from-position their
own projections W_{k,E} and W_{k,R}::

    A_ij = x_i W_q · x_j W_{k,E}          (a) content-content
         + x_i W_q · R_{i-j} W_{k,R}      (b) content-dependent position bias
         + u · x_j W_{k,E}                (c) global content bias
         + v · R_{i-j} W_{k,R}            (d) global position bias

R is not learned: R_δ is the sinusoid of δ with the paper's frequencies in the concat layout
(Transformer-XL's ``PositionalEmbedding``: ``cat([sin, cos])``, inv_freq = 10000^(-2i/d)).
Term (d) depends on i - j only (a Toeplitz matrix); term (c) on j only.

Keys may include a memory of earlier segments (``memory``, prepended to x); query i then sits at
absolute position i + M, where M is the memory length. Distances are evaluated for every (i, j),
including j after i; a causal model masks those afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .sinusoidal import sinusoidal_pe_np

if TYPE_CHECKING:
    import torch


class XLScoreTerms(NamedTuple):
    """The four Transformer-XL terms, each ``[..., Lq, Lk]``, and their sum."""

    a: Any  # content-content
    b: Any  # content-position
    c: Any  # global content bias (u)
    d: Any  # global position bias (v)
    total: Any


def xlnet_score_terms_np(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k_e: np.ndarray,
    w_k_r: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    *,
    memory: np.ndarray | None = None,
    base: float = 10000.0,
) -> XLScoreTerms:
    """Textbook terms for one head. x ``[Lq, d_model]``, memory ``[M, d_model]`` or None,
    w_q / w_k_e ``[d_model, d_head]``, w_k_r ``[d_model, d_head]``, u / v ``[d_head]``."""
    x, w_q, w_k_e, w_k_r, u, v = (np.asarray(a, dtype=np.float64) for a in (x, w_q, w_k_e, w_k_r, u, v))
    keys_x = x if memory is None else np.concatenate([np.asarray(memory, dtype=np.float64), x], axis=0)
    q_len, k_len, mem = x.shape[0], keys_x.shape[0], keys_x.shape[0] - x.shape[0]
    d_model = w_k_r.shape[0]
    q = x @ w_q  # q_i = x_i W_q
    k = keys_x @ w_k_e  # k_j = x_j W_{k,E}
    # r_δ = R_δ W_{k,R} for every distance δ = i - j that occurs (query i sits at position i + M)
    r = {
        delta: sinusoidal_pe_np(1, d_model, base=base, layout="concat", offset=delta)[0] @ w_k_r
        for delta in range(1 - q_len, k_len)
    }
    a, b, c, d = (np.zeros((q_len, k_len)) for _ in range(4))
    for i in range(q_len):
        for j in range(k_len):
            r_ij = r[i + mem - j]
            a[i, j] = q[i] @ k[j]  # (a)
            b[i, j] = q[i] @ r_ij  # (b)
            c[i, j] = u @ k[j]  # (c)
            d[i, j] = v @ r_ij  # (d)
    return XLScoreTerms(a, b, c, d, a + b + c + d)


def xlnet_score_terms(
    x: torch.Tensor,
    w_q: torch.Tensor,
    w_k_e: torch.Tensor,
    w_k_r: torch.Tensor,
    u: torch.Tensor,
    v: torch.Tensor,
    *,
    memory: torch.Tensor | None = None,
    base: float = 10000.0,
) -> XLScoreTerms:
    """Fast terms. x ``[..., Lq, d_model]``, memory ``[..., M, d_model]`` or None; weights as in
    `xlnet_score_terms_np`. Returns `XLScoreTerms` of ``[..., Lq, M + Lq]`` tensors.

    The relative projections r_δ = R_δ W_{k,R} are computed once for each of the Lq + Lk - 1
    distinct distances and gathered per (i, j); Transformer-XL's ``_rel_shift`` does the same
    re-indexing with a pad-and-reshape.
    """
    import torch

    from .sinusoidal import sinusoidal_pe

    keys_x = x if memory is None else torch.cat([memory, x], dim=-2)
    q_len, k_len = x.shape[-2], keys_x.shape[-2]
    mem = k_len - q_len
    q = x @ w_q  # [..., Lq, dh]
    k = keys_x @ w_k_e  # [..., Lk, dh]
    # distances i + M - j run from 1 - Lq (i = 0, j = Lk - 1) to Lk - 1 (i = Lq - 1, j = 0)
    lowest = 1 - q_len
    rel = sinusoidal_pe(
        q_len + k_len - 1,
        w_k_r.shape[0],
        base=base,
        layout="concat",
        device=x.device,
        dtype=x.dtype,
        offset=lowest,
    )
    r = rel @ w_k_r  # [n_distances, dh]: r_δ for δ = lowest ..
    delta = (
        torch.arange(q_len, device=x.device)[:, None] + mem - torch.arange(k_len, device=x.device)[None, :]
    )
    idx = delta - lowest  # [Lq, Lk] row of r used by (i, j)
    a = q @ k.transpose(-1, -2)
    q_r = q @ r.T  # [..., Lq, n_distances]
    b = torch.gather(q_r, -1, idx.expand(*q_r.shape[:-2], q_len, k_len))
    c = (k @ u).unsqueeze(-2).expand(*k.shape[:-2], q_len, k_len)
    d = (r @ v)[idx]
    d = d.expand(*a.shape[:-2], q_len, k_len)
    return XLScoreTerms(a, b, c, d, a + b + c + d)
