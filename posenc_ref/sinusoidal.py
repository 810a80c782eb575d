"""Sinusoidal absolute position encoding.

Reference: Vaswani et al. 2017, "Attention Is All You Need", §3.5::

    PE[p, 2i]     = sin(p · ω_i)
    PE[p, 2i + 1] = cos(p · ω_i),        ω_i = base^(-2i/d),  i = 0 .. d/2 - 1

Two conventions exist in public code, and this module covers both:

* ``layout``: ``"interleaved"`` is the paper's (sin on even dims, cos on odd dims, as in the
  Annotated Transformer). ``"concat"`` puts all sines first, then all cosines, as tensor2tensor's
  ``get_timing_signal_1d``, fairseq's ``SinusoidalPositionalEmbedding`` and Transformer-XL do.
* ``frequencies``: ``"paper"`` is ω_i = base^(-2i/d). ``"tensor2tensor"`` is the rule used by
  tensor2tensor and fairseq, ω_i = base^(-i/(d/2 - 1)), so the last frequency is exactly 1/base
  (for d = 512: 1e-4 against the paper's 1.037e-4).

To reproduce tensor2tensor / fairseq exactly, pass ``layout="concat", frequencies="tensor2tensor"``
(fairseq also starts positions at ``padding_idx + 1``: use ``offset``). ``layout="concat"`` with the
paper's frequencies is the Transformer-XL encoding of relative distances and is a pure column
permutation of the interleaved table.

Textbook forms (suffix ``_np``) are numpy float64 and follow the formula line by line; fast forms
are torch, device-aware and float32 by default.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

LAYOUTS = ("interleaved", "concat")
FREQUENCY_RULES = ("paper", "tensor2tensor")


def _check(dim: int, layout: str, frequencies: str) -> None:
    if dim < 2 or dim % 2:
        raise ValueError(f"dim must be a positive even number (sin/cos pairs), got {dim}")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if frequencies not in FREQUENCY_RULES:
        raise ValueError(f"unknown frequencies {frequencies!r}; choose one of {', '.join(FREQUENCY_RULES)}")


def sinusoidal_frequencies_np(dim: int, *, base: float = 10000.0, frequencies: str = "paper") -> np.ndarray:
    """ω_i for the d/2 sin/cos pairs, float64 ``[dim // 2]``.

    ``paper``:         ω_i = base^(-2i/d)                    (Vaswani et al.)
    ``tensor2tensor``: ω_i = base^(-i / max(d/2 - 1, 1))     (t2t ``get_timing_signal_1d``, fairseq)
    """
    _check(dim, "interleaved", frequencies)
    i = np.arange(dim // 2, dtype=np.float64)
    if frequencies == "paper":
        return base ** (-2.0 * i / dim)  # ω_i = base^(-2i/d)
    return base ** (-i / max(dim // 2 - 1, 1))  # ω_i = base^(-i/(d/2 - 1))


def sinusoidal_wavelengths(dim: int, *, base: float = 10000.0, frequencies: str = "paper") -> np.ndarray:
    """Wavelength of each sin/cos pair, λ_i = 2π / ω_i (float64 ``[dim // 2]``).

    With the paper's rule λ_i = 2π · base^(2i/d): a geometric progression from 2π (pair 0) up to
    2π · base^((d-2)/d), just short of 2π · base.
    """
    return 2.0 * math.pi / sinusoidal_frequencies_np(dim, base=base, frequencies=frequencies)


def sinusoidal_pe_np(
    seq_len: int,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    frequencies: str = "paper",
    offset: int = 0,
) -> np.ndarray:
    """Textbook sinusoidal table, float64 ``[seq_len, dim]`` for positions offset .. offset+seq_len-1."""
    _check(dim, layout, frequencies)
    omega = sinusoidal_frequencies_np(dim, base=base, frequencies=frequencies)
    half = dim // 2
    pe = np.zeros((seq_len, dim), dtype=np.float64)
    for row in range(seq_len):
        p = offset + row
        for i in range(half):
            if layout == "interleaved":
                pe[row, 2 * i] = math.sin(p * omega[i])  # PE[p, 2i]   = sin(p·ω_i)
                pe[row, 2 * i + 1] = math.cos(p * omega[i])  # PE[p, 2i+1] = cos(p·ω_i)
            else:
                pe[row, i] = math.sin(p * omega[i])  # PE[p, i]       = sin(p·ω_i)
                pe[row, half + i] = math.cos(p * omega[i])  # PE[p, d/2 + i] = cos(p·ω_i)
    return pe


def _angle_dtype(torch, device):
    # Angles p·ω lose precision in float32 for large p (HF and fairseq compute them in float32);
    # use float64 wherever the device has it. MPS has no float64.
    return torch.float32 if torch.device(device).type == "mps" else torch.float64


def sinusoidal_pe(
    seq_len: int,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    frequencies: str = "paper",
    offset: int = 0,
) -> torch.Tensor:
    """Sinusoidal table as a torch tensor ``[seq_len, dim]`` (float32 by default).

    Args:
        seq_len: number of positions.
        dim: model dimension d (even).
        base: 10000 in the paper.
        layout: ``"interleaved"`` (sin even / cos odd, the paper) or ``"concat"`` (all sin, then all cos).
        device, dtype: where and in what precision to return the table. Angles are computed in
            float64 (float32 on MPS) and rounded once at the end.
        frequencies: ``"paper"`` (base^(-2i/d)) or ``"tensor2tensor"`` (base^(-i/(d/2-1))).
        offset: first position (fairseq starts at padding_idx + 1).
    """
    import torch

    from .device import resolve_dtype

    _check(dim, layout, frequencies)
    device = torch.device(device) if device is not None else torch.device("cpu")
    out_dtype = resolve_dtype(dtype)
    work = _angle_dtype(torch, device)
    omega = torch.as_tensor(sinusoidal_frequencies_np(dim, base=base, frequencies=frequencies))
    omega = omega.to(device=device, dtype=work)
    positions = torch.arange(offset, offset + seq_len, device=device, dtype=work)
    angles = positions[:, None] * omega[None, :]  # [seq, d/2]: p·ω_i
    sin, cos = torch.sin(angles), torch.cos(angles)
    if layout == "interleaved":
        pe = torch.stack((sin, cos), dim=-1).reshape(seq_len, dim)  # (sin ω_0 p, cos ω_0 p, sin ω_1 p, ...)
    else:
        pe = torch.cat((sin, cos), dim=-1)
    return pe.to(out_dtype)


def sinusoidal_shift_np(
    k: int, dim: int, *, base: float = 10000.0, layout: str = "interleaved", frequencies: str = "paper"
) -> np.ndarray:
    """Textbook shift matrix ``M_k`` (float64 ``[dim, dim]``) with ``PE[p + k] = M_k @ PE[p]`` for every p.

    Per pair, by the angle-addition formulas::

        [sin ω(p+k)]   [ cos ωk   sin ωk] [sin ωp]
        [cos ω(p+k)] = [-sin ωk   cos ωk] [cos ωp]

    which is a rotation by -ωk, because the pair is ordered (sin, cos). M_k depends on k only.
    For ``layout="concat"`` the same 2×2 blocks act on dims (i, d/2 + i).
    """
    _check(dim, layout, frequencies)
    omega = sinusoidal_frequencies_np(dim, base=base, frequencies=frequencies)
    half = dim // 2
    m = np.zeros((dim, dim), dtype=np.float64)
    for i in range(half):
        s_idx, c_idx = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, half + i)
        c, s = math.cos(omega[i] * k), math.sin(omega[i] * k)
        m[s_idx, s_idx], m[s_idx, c_idx] = c, s  # sin' =  cos ωk · sin + sin ωk · cos
        m[c_idx, s_idx], m[c_idx, c_idx] = -s, c  # cos' = -sin ωk · sin + cos ωk · cos
    return m


def sinusoidal_shift(
    k: int,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    frequencies: str = "paper",
) -> torch.Tensor:
    """Shift matrix ``M_k`` as a torch tensor ``[dim, dim]``: ``pe[p + k] == M_k @ pe[p]`` for every p.

    Block-diagonal 2×2 rotations by -ω_i·k (see `sinusoidal_shift_np`). Same arguments as
    `sinusoidal_pe`; `k` may be negative.
    """
    import torch

    from .device import resolve_dtype

    _check(dim, layout, frequencies)
    device = torch.device(device) if device is not None else torch.device("cpu")
    work = _angle_dtype(torch, device)
    omega = torch.as_tensor(sinusoidal_frequencies_np(dim, base=base, frequencies=frequencies))
    angle = omega.to(device=device, dtype=work) * k
    c, s = torch.cos(angle), torch.sin(angle)
    half = dim // 2
    idx = torch.arange(half, device=device)
    s_idx, c_idx = (2 * idx, 2 * idx + 1) if layout == "interleaved" else (idx, half + idx)
    m = torch.zeros(dim, dim, device=device, dtype=work)
    m[s_idx, s_idx] = c
    m[s_idx, c_idx] = s
    m[c_idx, s_idx] = -s
    m[c_idx, c_idx] = c
    return m.to(resolve_dtype(dtype))
