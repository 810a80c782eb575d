"""ALiBi: attention with linear biases.

Reference: Press, Smith & Lewis 2022, "Train Short, Test Long" (arXiv:2108.12409), and the
authors' code (github.com/ofirpress/attention_with_linear_biases, ``get_slopes``). No position is
added to the embeddings; instead head h adds a fixed penalty to every attention logit::

    score[h, i, j] = q_i · k_j  -  m_h · (i - j)          (j <= i, causal)

Slopes: for n heads, n a power of two, m_h = 2^(-8h/n), h = 1..n (8 heads: 1/2, 1/4, ..., 1/256).
Otherwise with c = 2^floor(log2 n): the c slopes of the power-of-two rule, then every other slope
(1st, 3rd, 5th, ...) of the 2c rule until there are n. The list is then not monotone
(n = 12: -log2 m = 1..8, then 0.5, 1.5, 2.5, 3.5).

BLOOM's ``build_alibi_tensor`` adds +m·j and MPT adds m·(j - L + 1) instead of -m·(i - j). These
differ from the paper's matrix by a constant per query row (m·i), so after softmax the attention is
identical under a causal mask, but the raw bias matrices are not. `alibi_bias_bloom` shows it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch


def _check_heads(n_heads: int) -> None:
    if int(n_heads) != n_heads or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")


def alibi_slopes_paper(n_heads: int) -> list[float]:
    """The ALiBi authors' ``get_slopes``, re-implemented in plain Python (recursion and all).

    Kept as the reference that `alibi_slopes` and `alibi_slopes_np` are checked against.
    """
    _check_heads(n_heads)

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # = 2^(-8/n)
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return power_of_2(n_heads)
    closest = 2 ** math.floor(math.log2(n_heads))
    return power_of_2(closest) + alibi_slopes_paper(2 * closest)[0::2][: n_heads - closest]


def alibi_slopes_np(n_heads: int) -> np.ndarray:
    """Textbook slopes, float64 ``[n_heads]``.

    c = 2^floor(log2 n)
    m_h = 2^(-8h/c)                for h = 1 .. c
    then  2^(-8h/(2c))             for h = 1, 3, 5, ...  until n slopes
    """
    _check_heads(n_heads)
    c = 2 ** int(math.floor(math.log2(n_heads)))
    slopes = [2.0 ** (-8.0 * h / c) for h in range(1, c + 1)]
    h = 1
    while len(slopes) < n_heads:  # every other slope of the 2c set
        slopes.append(2.0 ** (-8.0 * h / (2 * c)))
        h += 2
    return np.asarray(slopes, dtype=np.float64)


def alibi_slopes(
    n_heads: int, device: torch.device | str | None = None, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """Head slopes as a torch tensor ``[n_heads]`` (float32 by default), equal to the paper's ``get_slopes``.

    Computed as exponents in float64, then rounded once to `dtype`.
    """
    import torch

    from .device import resolve_dtype

    _check_heads(n_heads)
    c = 2 ** int(math.floor(math.log2(n_heads)))
    exponents = -8.0 * torch.arange(1, c + 1, dtype=torch.float64) / c
    extra = n_heads - c
    if extra:
        odd = torch.arange(1, 2 * extra, 2, dtype=torch.float64)  # 1, 3, 5, ... of the 2c set
        exponents = torch.cat((exponents, -8.0 * odd / (2 * c)))
    return torch.pow(2.0, exponents).to(device=device, dtype=resolve_dtype(dtype))


def _lengths(q_len: int, k_len: int | None) -> tuple[int, int]:
    k_len = q_len if k_len is None else k_len
    if q_len < 0 or k_len < 0:
        raise ValueError(f"lengths must be non-negative, got q_len={q_len}, k_len={k_len}")
    if k_len < q_len:
        raise ValueError(
            f"k_len ({k_len}) must be >= q_len ({q_len}): queries are the last q_len of the k_len positions"
        )
    return q_len, k_len


def alibi_bias_np(n_heads: int, q_len: int, k_len: int | None = None, *, causal: bool = True) -> np.ndarray:
    """Textbook bias, float64 ``[n_heads, q_len, k_len]``.

    Query i sits at absolute position i + (k_len - q_len), as when decoding with a KV cache
    (k_len = q_len: the ordinary square matrix). With that position written i:

        bias[h, i, j] = -m_h · (i - j)      if j <= i
                      = -inf                if j > i and causal
                      = -m_h · |i - j|      if j > i and not causal
    """
    q_len, k_len = _lengths(q_len, k_len)
    slopes = alibi_slopes_np(n_heads)
    shift = k_len - q_len
    bias = np.zeros((n_heads, q_len, k_len), dtype=np.float64)
    for i in range(q_len):
        pos_i = i + shift
        for j in range(k_len):  # all heads at once: m is the vector of slopes
            if j <= pos_i:
                bias[:, i, j] = slopes * (j - pos_i)  # -m·(i - j)
            elif causal:
                bias[:, i, j] = -np.inf
            else:
                bias[:, i, j] = slopes * -abs(pos_i - j)  # -m·|i - j|
    return bias


def alibi_bias(
    n_heads: int,
    q_len: int,
    k_len: int | None = None,
    *,
    causal: bool = True,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """ALiBi bias as a torch tensor ``[n_heads, q_len, k_len]`` (float32 by default).

    Args:
        n_heads: number of heads (any positive count; see `alibi_slopes`).
        q_len: number of queries.
        k_len: number of keys (default q_len). Must be >= q_len: the queries are the last q_len
            of the k_len positions, as in decoding with a KV cache.
        causal: mask keys after the query with -inf; otherwise use -m·|i - j| (a symmetric,
            bidirectional variant; the paper itself is causal).
    Add it to the unscaled-or-scaled logits ``q·k`` before the softmax.
    """
    import torch

    from .device import resolve_dtype

    q_len, k_len = _lengths(q_len, k_len)
    out_dtype = resolve_dtype(dtype)
    slopes = alibi_slopes(n_heads, device=device, dtype=out_dtype)
    q_pos = torch.arange(k_len - q_len, k_len, device=device)
    k_pos = torch.arange(k_len, device=device)
    distance = q_pos[:, None] - k_pos[None, :]  # i - j, [q, k] (integers, so no -0.0)
    bias = slopes[:, None, None] * (-distance.abs()).to(out_dtype)[None]  # -m·|i - j|
    if causal:
        bias = bias.masked_fill((distance < 0)[None], float("-inf"))
    return bias


def alibi_bias_bloom(
    n_heads: int,
    k_len: int,
    *,
    attention_mask: torch.Tensor | None = None,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """BLOOM's form of the bias, ``+m_h · j``, as in transformers' ``build_alibi_tensor``.

    Returns ``[n_heads, 1, k_len]`` (one row, broadcast over queries), or ``[batch, n_heads, 1, k_len]``
    when an ``attention_mask`` ``[batch, k_len]`` (1 = token, 0 = padding) is given, in which case j
    counts only real tokens: ``(cumsum(mask) - 1) * mask``, as BLOOM does for left padding.

    It equals ``alibi_bias(causal=True)`` plus m_h · i on row i, a per-row constant, so softmax
    over the unmasked keys gives the same attention.
    """
    import torch

    from .device import resolve_dtype

    out_dtype = resolve_dtype(dtype)
    slopes = alibi_slopes(n_heads, device=device, dtype=out_dtype)
    if attention_mask is None:
        j = torch.arange(k_len, device=device, dtype=out_dtype)
        return slopes[:, None, None] * j[None, None, :]
    mask = torch.as_tensor(attention_mask, device=device)
    if mask.shape[-1] != k_len:
        raise ValueError(f"attention_mask has {mask.shape[-1]} positions, expected k_len={k_len}")
    j = ((mask.long().cumsum(-1) - 1) * mask.long()).to(out_dtype)  # [batch, k]
    return slopes[None, :, None, None] * j[:, None, None, :]
