"""NoPE: a causal decoder with no position encoding can still read absolute position.

Reference: Haviv et al. 2022 ("Transformer Language Models without Positional Encodings Still Learn
Positional Information") and Kazemnejad et al. 2023 (NoPE, Theorem 1). Without a causal mask,
attention is permutation-equivariant. With one, query ``i`` sees exactly the ``i + 1`` keys
``0 .. i``. A head whose scores are all equal (for instance ``q = 0``) therefore gives each visible
key the weight ``1 / (i + 1)``; if the first token's value carries a 1 in some channel that no other
token's value has (a BOS marker), the output in that channel is exactly ``1 / (i + 1)``, from which
the position is ``1 / out - 1``. The catch is precision: the outputs of neighbouring positions differ
by ``1 / ((i + 1)(i + 2))``, which falls below one rounding step of the output's format at some
position, after which distinct positions give identical outputs.

This module imports torch at top level; ``import posenc_ref`` stays light because the package
resolves names lazily.
"""

from __future__ import annotations

import numpy as np
import torch

NOPE_DTYPES: tuple[str, ...] = ("float64", "float32", "float16", "bfloat16")


def _check_seq_len(seq_len: int) -> None:
    if isinstance(seq_len, bool) or not isinstance(seq_len, int | np.integer) or seq_len < 1:
        raise ValueError(f"seq_len must be a positive integer, got {seq_len!r}")


def nope_causal_attention_np(seq_len: int, scores: np.ndarray | None = None) -> np.ndarray:
    """Textbook causal softmax attention weights ``[seq, seq]`` (float64), no position encoding.

    ``scores`` defaults to all zeros (every key looks the same to every query), so row ``i`` is
    ``1 / (i + 1)`` on columns ``0 .. i`` and 0 above the diagonal.
    """
    _check_seq_len(seq_len)
    s = np.zeros((seq_len, seq_len)) if scores is None else np.asarray(scores, dtype=np.float64)
    if s.shape != (seq_len, seq_len):
        raise ValueError(f"scores must have shape {(seq_len, seq_len)}, got {s.shape}")
    masked = np.where(np.tril(np.ones((seq_len, seq_len), dtype=bool)), s, -np.inf)
    masked = masked - masked.max(axis=-1, keepdims=True)
    weights = np.exp(masked)
    return weights / weights.sum(axis=-1, keepdims=True)


def nope_first_token_signal_np(seq_len: int) -> np.ndarray:
    """Output ``[seq]`` of a uniform causal head whose values are 1 at token 0 and 0 elsewhere:
    ``A @ e_0 = 1 / (i + 1)`` (float64)."""
    _check_seq_len(seq_len)
    values = np.zeros(seq_len)
    values[0] = 1.0
    return nope_causal_attention_np(seq_len) @ values


def nope_recover_positions_np(signal: np.ndarray) -> np.ndarray:
    """Positions read back from a first-token signal: ``round(1 / signal - 1)`` (int64)."""
    s = np.asarray(signal, dtype=np.float64)
    return np.rint(1.0 / s - 1.0).astype(np.int64)


def nope_first_token_signal(
    seq_len: int,
    *,
    start: int = 0,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Fast form of `nope_first_token_signal_np` for positions ``start .. seq_len - 1``, in O(seq) memory,
    as a fused attention kernel computes it.

    With equal scores every softmax numerator is ``exp(0) = 1``: the kernel accumulates the normaliser
    ``i + 1`` and the weighted value sum (1 for every query, since only token 0 carries the marker) in
    float32 (float64 when ``dtype`` is float64), divides, and rounds the output once to ``dtype``. The
    ``[seq, seq]`` matrix is never formed, and ``start`` lets a long sequence be scanned in blocks.
    """
    _check_seq_len(seq_len)
    if not 0 <= start < seq_len:
        raise ValueError(f"start must be in [0, {seq_len}), got {start}")
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    counts = torch.arange(start + 1, seq_len + 1, device=device, dtype=acc)  # the softmax normaliser i + 1
    marker_sum = torch.ones_like(counts)  # sum over visible keys of the marker channel: token 0 only
    return (marker_sum / counts).to(dtype)


def nope_causal_attention(
    x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor
) -> torch.Tensor:
    """One causal attention head with no position encoding: ``softmax(mask(q kᵀ / √d)) v``.

    ``x`` is ``[..., seq, d_model]``; the weights are ``[d_model, d_head]``. Returns ``[..., seq, d_head]``.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    seq = x.shape[-2]
    scores = (q @ k.transpose(-1, -2)) / float(q.shape[-1]) ** 0.5
    mask = torch.ones(seq, seq, dtype=torch.bool, device=x.device).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def nope_recover_positions(signal: torch.Tensor) -> torch.Tensor:
    """Positions read back from a first-token signal (computed in float64): ``round(1 / signal - 1)``."""
    return torch.round(1.0 / signal.to(torch.float64) - 1.0).to(torch.int64)


def first_wrong_position(recovered: np.ndarray | torch.Tensor) -> int:
    """The first position ``i`` whose recovered position is not ``i`` (``len`` when all are right)."""
    r = recovered.detach().cpu().numpy() if hasattr(recovered, "detach") else np.asarray(recovered)
    wrong = np.flatnonzero(r != np.arange(len(r)))
    return int(wrong[0]) if wrong.size else len(r)


def first_collision(signal: np.ndarray | torch.Tensor) -> int:
    """The first position ``i`` whose output equals that of position ``i - 1`` (``len`` when none does):
    from there on no readout of this channel, however clever, can tell the two positions apart."""
    s = signal.detach().cpu().double().numpy() if hasattr(signal, "detach") else np.asarray(signal)
    same = np.flatnonzero(s[1:] == s[:-1])
    return int(same[0]) + 1 if same.size else len(s)
