"""T5 relative position buckets.

Reference: Raffel et al. 2020 (T5), §2.1, and transformers' ``T5Attention._relative_position_bucket``
(adapted from Mesh TensorFlow). Each head learns one scalar per bucket and adds it to the logit
q·k (T5 does not scale by 1/√d). The relative position is ``key - query`` (memory - context).

Bidirectional (encoder): half the buckets per direction, +num_buckets/2 when the key is after the
query. Causal (decoder): keys after the query all map to bucket 0. Within a direction with B
buckets, distances 0 .. B/2 - 1 get one bucket each (exact), and larger distances n share
log-spaced buckets::

    bucket(n) = B/2 + int( log(n / (B/2)) / log(max_distance / (B/2)) · (B - B/2) ),  capped at B - 1

``int`` truncates toward zero; the log of 0 (at n = 0) is computed but masked out by the exact branch.
With 32 buckets and max_distance 128 (bidirectional), bucket 15 is already reached at |n| = 91.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch


def t5_validate_params(bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Raise ValueError for settings where HF's formula gives garbage buckets; return the exact
    buckets per direction."""
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_direction // 2
    if max_exact < 1:
        raise ValueError(
            f"num_buckets={num_buckets} with bidirectional={str(bidirectional).lower()} leaves no exact bucket "
            "per direction "
            f"(need num_buckets >= {4 if bidirectional else 2})"
        )
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance ({max_distance}) must exceed the {max_exact} exact buckets per direction, "
            "otherwise the log-spaced formula divides by log(max_distance / max_exact) <= 0"
        )
    return max_exact


def t5_relative_position_bucket_np(
    relative_position: int | Sequence[int] | np.ndarray,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """Textbook bucket ids (int64 numpy array shaped like the input), one position at a time in float64."""
    t5_validate_params(bidirectional, num_buckets, max_distance)
    rp = np.asarray(relative_position, dtype=np.int64)
    out = np.empty(rp.shape, dtype=np.int64)
    for index, value in np.ndenumerate(rp):
        r = int(value)
        buckets = num_buckets
        bucket = 0
        if bidirectional:
            buckets //= 2
            if r > 0:  # key after the query: the upper half
                bucket += buckets
            n = abs(r)
        else:
            n = max(-r, 0)  # keys after the query collapse to distance 0
        max_exact = buckets // 2
        if n < max_exact:
            bucket += n  # one bucket per small distance
        else:
            log_ratio = math.log(n / max_exact) / math.log(max_distance / max_exact)
            bucket += min(max_exact + int(log_ratio * (buckets - max_exact)), buckets - 1)
        out[index] = bucket
    return out


def t5_relative_position_bucket(
    relative_position: Any,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> Any:
    """Bucket ids equal to transformers' ``T5Attention._relative_position_bucket``.

    Args:
        relative_position: key - query; an int (returns an int), a sequence of ints or a tensor
            (returns a long tensor of the same shape, on the tensor's device).
        bidirectional: True for the encoder, False for the causal decoder.
        num_buckets: total buckets (T5: 32).
        max_distance: distance from which the last bucket of a direction is guaranteed (T5: 128).

    Computed as HF does (the log in float32), so ids match bit for bit.
    """
    import torch

    t5_validate_params(bidirectional, num_buckets, max_distance)
    scalar = isinstance(relative_position, int | np.integer)
    rp = torch.as_tensor(relative_position)
    if rp.is_floating_point() or rp.dtype == torch.bool:
        raise TypeError(f"relative_position must hold integers, got dtype {rp.dtype}")
    rp = rp.long()

    buckets: torch.Tensor | int = 0
    n_buckets = num_buckets
    if bidirectional:
        n_buckets //= 2
        buckets = (rp > 0).long() * n_buckets  # key after the query: upper half
        rp = rp.abs()
    else:
        rp = -torch.minimum(rp, torch.zeros_like(rp))  # keys after the query -> distance 0
    max_exact = n_buckets // 2
    is_small = rp < max_exact
    # log-spaced buckets for max_exact <= n; the n = 0 entries give log(0) and are masked below
    large = max_exact + (
        torch.log(rp.float() / max_exact) / math.log(max_distance / max_exact) * (n_buckets - max_exact)
    ).to(torch.long)
    large = torch.minimum(large, torch.full_like(large, n_buckets - 1))
    result = buckets + torch.where(is_small, rp, large)
    return int(result) if scalar else result


def t5_bucket_grid(
    q_len: int,
    k_len: int | None = None,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Bucket id for every (query i, key j) pair, ``[q_len, k_len]``, with relative position j - i.

    Mirrors HF's ``compute_bias`` without a cache: ``memory_position - context_position`` with
    both counted from 0.
    """
    import torch

    k_len = q_len if k_len is None else k_len
    context = torch.arange(q_len, device=device)[:, None]
    memory = torch.arange(k_len, device=device)[None, :]
    return t5_relative_position_bucket(
        memory - context, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
