"""Axial 3-D RoPE for video diffusion transformers: each axis its own 1-D RoPE on a channel section.

References: Wan 2.1 ``wan/modules/model.py`` (``WanModel.__init__`` builds
``rope_params(1024, d - 4 * (d // 6))``, ``rope_params(1024, 2 * (d // 6))`` twice and concatenates
them; ``rope_apply`` splits the ``d/2`` complex pairs as ``[c - 2 * (c // 3), c // 3, c // 3]`` for
frames, height and width), diffusers ``FluxTransformer2DModel`` (``axes_dims_rope=(16, 56, 56)``) and
HunyuanVideo (``rope_dim_list=[16, 56, 56]``, theta 256).

A head's channels are cut into three contiguous sections, one per axis (frame or index t, height h,
width w). Section ``a`` of ``d_a`` channels is an ordinary interleaved RoPE with its *own* frequency
ladder ``θ_{a,j} = base^(-2j / d_a)``, ``j = 0 .. d_a/2 - 1``, turned by that axis's coordinate. So
every axis spans the whole range from one radian per step down to about ``1/base``, and the score
between two tokens depends only on their offsets ``(Δt, Δh, Δw)``. Qwen2-VL's M-RoPE (``mrope.py``)
differs: it cuts one 64-pair ladder into bands, so time gets the fastest pairs and width the slowest.

How many channels each axis gets is a design choice: Wan's rule gives ``d - 4⌊d/6⌋`` to time and
``2⌊d/6⌋`` to each spatial axis (44/42/42 at d = 128, about a third each); FLUX and HunyuanVideo give
16/56/56 (time or the image index gets few channels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

__all__ = ["apply_axial_rope", "apply_axial_rope_np", "axial_inv_freqs_np", "wan_axis_split"]

FLUX_AXES_DIMS = (16, 56, 56)  # diffusers FluxTransformer2DModel axes_dims_rope; HunyuanVideo rope_dim_list


def wan_axis_split(head_dim: int) -> tuple[int, int, int]:
    """Wan 2.1's channels per axis (t, h, w) for a head of ``head_dim`` channels: ``d - 4⌊d/6⌋`` and
    ``2⌊d/6⌋`` twice. (44, 42, 42) for 128; every section is even, so each is whole pairs."""
    if (
        isinstance(head_dim, bool)
        or not isinstance(head_dim, int | np.integer)
        or head_dim < 6
        or head_dim % 2
    ):
        raise ValueError(
            f"head_dim must be an even integer >= 6 (three axes of whole pairs), got {head_dim!r}"
        )
    spatial = 2 * (int(head_dim) // 6)
    return int(head_dim) - 2 * spatial, spatial, spatial


def _check_dims(dims: Sequence[int]) -> tuple[int, ...]:
    out = tuple(int(d) for d in dims)
    if not out or any(d < 2 or d % 2 for d in out):
        raise ValueError(f"every axis needs an even number of channels >= 2, got {list(dims)}")
    return out


def axial_inv_freqs_np(dims: Sequence[int], *, base: float = 10000.0) -> list[np.ndarray]:
    """One float64 ladder per axis: ``base^(-2j / d_a)`` for ``j = 0 .. d_a/2 - 1`` (Wan's ``rope_params``)."""
    if not base > 1.0:
        raise ValueError(f"base must be > 1, got {base!r}")
    return [base ** (-np.arange(0, d, 2, dtype=np.float64) / d) for d in _check_dims(dims)]


def apply_axial_rope_np(
    x: np.ndarray, coords: np.ndarray, dims: Sequence[int], *, base: float = 10000.0
) -> np.ndarray:
    """Textbook form, float64. x ``[N, d]`` with ``d = sum(dims)``, coords ``[N, n_axes]`` integer
    coordinates. Section ``a`` (channels in order) rotates its interleaved pairs (2j, 2j+1) by
    ``coords[:, a] · θ_{a,j}``."""
    x = np.asarray(x, dtype=np.float64)
    coords = np.asarray(coords, dtype=np.float64)
    ladders = axial_inv_freqs_np(dims, base=base)
    if x.shape[-1] != sum(dims) or coords.shape != (x.shape[0], len(ladders)):
        raise ValueError(
            f"x [N, {sum(dims)}] and coords [N, {len(ladders)}] expected, got {x.shape}, {coords.shape}"
        )
    out = np.empty_like(x)
    start = 0
    for axis, inv in enumerate(ladders):
        for j, theta in enumerate(inv):
            angle = coords[:, axis] * theta
            a, b = x[:, start + 2 * j], x[:, start + 2 * j + 1]
            out[:, start + 2 * j] = a * np.cos(angle) - b * np.sin(angle)
            out[:, start + 2 * j + 1] = a * np.sin(angle) + b * np.cos(angle)
        start += 2 * len(inv)
    return out


def apply_axial_rope(
    x: torch.Tensor, coords: torch.Tensor, dims: Sequence[int], *, base: float = 10000.0
) -> torch.Tensor:
    """Fast form, as Wan's ``rope_apply``: view channel pairs as complex numbers and multiply by
    ``exp(i · angle)``, the angles of each section built from its own axis. x ``[..., N, d]``, coords
    ``[N, n_axes]``; angles in float64, the result in x's dtype."""
    import torch

    ladders = axial_inv_freqs_np(dims, base=base)
    if x.shape[-1] != sum(dims):
        raise ValueError(f"x has {x.shape[-1]} channels, the axes {list(dims)} need {sum(dims)}")
    coords = torch.as_tensor(coords, dtype=torch.float64, device=x.device)
    angles = torch.cat(
        [coords[:, a, None] * torch.as_tensor(inv, device=x.device) for a, inv in enumerate(ladders)], dim=-1
    )
    pairs = torch.view_as_complex(x.to(torch.float64).reshape(*x.shape[:-1], -1, 2).contiguous())
    rotated = torch.view_as_real(pairs * torch.polar(torch.ones_like(angles), angles)).flatten(-2)
    return rotated.to(x.dtype)
