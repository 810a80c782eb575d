"""Integer and binary position codes: the naive designs that motivate sinusoids.

Both are numpy only (no torch). They appear in the "designing positional encodings" line of
argument (HF blog, "You could have designed state of the art positional encoding"):

* Integer: p_i = i · 1 (every dim holds the position). Unique and trivially shift-linear, but
  unbounded: position L - 1 dwarfs unit-scale embeddings. Dividing by L bounds it but makes the
  code of a position depend on the sequence length.
* Binary: p_i = the bits of i. Bounded in {0, 1} and unique for i < 2^bits, but it needs
  ceil(log2 L) dims and neighbours differ by whole bits (7 -> 8 flips four of them): a discrete,
  jumpy signal. Sinusoids are the smooth, continuous version of these alternating bits.
"""

from __future__ import annotations

import numpy as np


def integer_pe_np(seq_len: int, dim: int, *, normalize: bool = False) -> np.ndarray:
    """Integer code, float64 ``[seq_len, dim]``: row i is i in every dim (i / seq_len if ``normalize``)."""
    if seq_len < 0 or dim < 1:
        raise ValueError(f"need seq_len >= 0 and dim >= 1, got seq_len={seq_len}, dim={dim}")
    pe = np.zeros((seq_len, dim), dtype=np.float64)
    for i in range(seq_len):
        pe[i, :] = i / seq_len if normalize else i  # p_i = i · 1  (or i/L · 1)
    return pe


def binary_bits_needed(seq_len: int) -> int:
    """ceil(log2 L), at least 1: the bits needed to write positions 0 .. L - 1."""
    return max(1, (max(seq_len, 1) - 1).bit_length())


def binary_pe_np(seq_len: int, n_bits: int | None = None) -> np.ndarray:
    """Binary code, float64 ``[seq_len, n_bits]``: row i is i in binary, most significant bit first
    (position 1 -> [0, ..., 0, 1]). ``n_bits`` defaults to ceil(log2 seq_len)."""
    n_bits = binary_bits_needed(seq_len) if n_bits is None else n_bits
    if seq_len > 2**n_bits:
        raise ValueError(f"{n_bits} bits hold positions below {2**n_bits}, but seq_len is {seq_len}")
    positions = np.arange(seq_len, dtype=np.int64)[:, None]
    shifts = np.arange(n_bits - 1, -1, -1, dtype=np.int64)[None, :]  # MSB first
    return ((positions >> shifts) & 1).astype(np.float64)
