"""Shaw et al.: clipped relative position representations.

Reference: Shaw, Uszkoreit & Vaswani 2018, "Self-Attention with Relative Position Representations"
(NAACL), §3, and tensor2tensor's ``_generate_relative_positions_matrix``. Two learned tables of
2k + 1 vectors, w^K and w^V, indexed by the clipped relative distance j - i::

    clip(x, k)  = max(-k, min(k, x))
    a^K_ij      = w^K[clip(j - i, k)],     a^V_ij = w^V[clip(j - i, k)]
    e_ij        = x_i W^Q · (x_j W^K + a^K_ij) / √d_z        (keys see the relative vector)
    z_i         = Σ_j softmax_j(e_ij) · (x_j W^V + a^V_ij)   (values too, optionally)

Distances beyond ±k share the edge vectors; the paper saw little change in BLEU for k >= 2.
Queries and keys both count from 0 (tensor2tensor without a cache), so for q_len != k_len
query i is at position i.

Here ``q = x W^Q``, ``k = x W^K``, ``v = x W^V`` are given already projected; ``rel_k`` and
``rel_v`` are the ``[2·clip + 1, d]`` tables with row ``r`` for distance ``r - clip``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch


def _check_table(table_rows: int, clip: int, name: str) -> None:
    if clip < 0:
        raise ValueError(f"clip must be >= 0, got {clip}")
    if table_rows != 2 * clip + 1:
        raise ValueError(f"{name} must have 2·clip + 1 = {2 * clip + 1} rows, got {table_rows}")


def shaw_relative_indices(
    q_len: int, k_len: int, clip: int, *, device: torch.device | str | None = None
) -> torch.Tensor:
    """Row of the relative table used by each (query i, key j): ``clip(j - i, clip) + clip``.

    Returns a long tensor ``[q_len, k_len]`` with values in ``0 .. 2·clip``.
    """
    import torch

    if clip < 0:
        raise ValueError(f"clip must be >= 0, got {clip}")
    distance = torch.arange(k_len, device=device)[None, :] - torch.arange(q_len, device=device)[:, None]
    return distance.clamp(-clip, clip) + clip


def shaw_relative_indices_np(q_len: int, k_len: int, clip: int) -> np.ndarray:
    """Textbook indices, int64 ``[q_len, k_len]``."""
    if clip < 0:
        raise ValueError(f"clip must be >= 0, got {clip}")
    out = np.empty((q_len, k_len), dtype=np.int64)
    for i in range(q_len):
        for j in range(k_len):
            out[i, j] = max(-clip, min(clip, j - i)) + clip
    return out


def shaw_attention_scores_np(
    q: np.ndarray, k: np.ndarray, rel_k: np.ndarray, clip: int, *, scale: float | None = None
) -> np.ndarray:
    """Textbook logits e_ij for one head: q ``[Lq, d]``, k ``[Lk, d]``, rel_k ``[2·clip+1, d]`` -> ``[Lq, Lk]``."""
    q, k, rel_k = (np.asarray(a, dtype=np.float64) for a in (q, k, rel_k))
    _check_table(rel_k.shape[0], clip, "rel_k")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    e = np.zeros((q.shape[0], k.shape[0]), dtype=np.float64)
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            a_k = rel_k[max(-clip, min(clip, j - i)) + clip]  # a^K_ij = w^K[clip(j - i, k)]
            e[i, j] = q[i] @ (k[j] + a_k) * scale  # e_ij = q_i · (k_j + a^K_ij) / √d
    return e


def shaw_attention_np(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    rel_k: np.ndarray,
    clip: int,
    *,
    rel_v: np.ndarray | None = None,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Textbook Shaw attention for one head. Returns ``(z [Lq, d_v], weights [Lq, Lk])``.

    With ``rel_v`` the values get a^V_ij as well: z_i = Σ_j α_ij (v_j + a^V_ij).
    """
    v = np.asarray(v, dtype=np.float64)
    if rel_v is not None:
        rel_v = np.asarray(rel_v, dtype=np.float64)
        _check_table(rel_v.shape[0], clip, "rel_v")
    e = shaw_attention_scores_np(q, k, rel_k, clip, scale=scale)
    weights = np.exp(e - e.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)  # α_ij = softmax_j e_ij
    z = np.zeros((e.shape[0], v.shape[-1]), dtype=np.float64)
    for i in range(e.shape[0]):
        for j in range(e.shape[1]):
            value = v[j] if rel_v is None else v[j] + rel_v[max(-clip, min(clip, j - i)) + clip]
            z[i] += weights[i, j] * value  # z_i = Σ_j α_ij (v_j + a^V_ij)
    return z, weights


def shaw_attention_scores(
    q: torch.Tensor, k: torch.Tensor, rel_k: torch.Tensor, clip: int, *, scale: float | None = None
) -> torch.Tensor:
    """Fast logits ``e [..., Lq, Lk]`` for q ``[..., Lq, d]``, k ``[..., Lk, d]``, rel_k ``[2·clip+1, d]``.

    Shaw's efficient form (§3.3): instead of materialising a^K as ``[Lq, Lk, d]``, compute
    q · w^K for the 2·clip + 1 table rows once, ``[..., Lq, 2·clip+1]``, then gather the row each
    (i, j) uses.
    """
    import torch

    _check_table(rel_k.shape[0], clip, "rel_k")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    q_len, k_len = q.shape[-2], k.shape[-2]
    content = q @ k.transpose(-1, -2)  # q_i · k_j
    q_rel = q @ rel_k.transpose(-1, -2)  # q_i · w^K_r for every table row r
    idx = shaw_relative_indices(q_len, k_len, clip, device=q.device)
    position = torch.gather(q_rel, -1, idx.expand(*q_rel.shape[:-2], q_len, k_len))  # q_i · a^K_ij
    return (content + position) * scale


def shaw_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    rel_k: torch.Tensor,
    clip: int,
    *,
    rel_v: torch.Tensor | None = None,
    scale: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Fast Shaw attention. Returns ``(z [..., Lq, d_v], weights [..., Lq, Lk])``.

    The value term Σ_j α_ij a^V_ij is computed by summing the weights that share a table row
    (a scatter-add into ``[..., Lq, 2·clip+1]``) and multiplying by w^V once.
    """
    import torch

    e = shaw_attention_scores(q, k, rel_k, clip, scale=scale)
    weights = torch.softmax(e, dim=-1)
    z = weights @ v
    if rel_v is not None:
        _check_table(rel_v.shape[0], clip, "rel_v")
        q_len, k_len = weights.shape[-2], weights.shape[-1]
        idx = shaw_relative_indices(q_len, k_len, clip, device=weights.device)
        idx = idx.expand(*weights.shape[:-2], q_len, k_len)
        per_row = torch.zeros(*weights.shape[:-1], 2 * clip + 1, dtype=weights.dtype, device=weights.device)
        per_row.scatter_add_(-1, idx, weights)  # Σ of α_ij over the j that use row r
        z = z + per_row @ rel_v
    return z, weights
