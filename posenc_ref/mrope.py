"""Multimodal RoPE (M-RoPE) as in Qwen2-VL.

Reference: Wang et al. 2024, "Qwen2-VL: Enhancing Vision-Language Model's Perception of the
World at Any Resolution", and HF transformers' ``Qwen2VLModel.get_rope_index`` and
``apply_multimodal_rotary_pos_emb``.

Every token gets three position ids (temporal, height, width):

* text tokens use one id on all three axes, counting on from the previous token;
* the vision tokens of a ``grid_t x grid_h x grid_w`` grid (after spatial merging) get
  ``start + (t, h, w)``, where ``start`` is the id the next text token would have had;
* text after the image resumes at ``max(vision ids) + 1 = start + max(grid_t, grid_h, grid_w)``.

The d/2 frequency pairs of a head are split into sections, ``mrope_section = [16, 24, 24]`` for
a 128-dim head: pairs 0-15 rotate by the temporal id, 16-39 by the height id, 40-63 by the width
id (in HF's half layout the second half of the channels mirrors the first). For text, the three
ids agree, so M-RoPE reduces to 1-D RoPE.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .rope import _check_base, _check_rope_dim, rope_inv_freq

__all__ = [
    "MROPE_SECTION",
    "apply_mrope",
    "mrope_pair_axes",
    "mrope_positions",
    "mrope_positions_np",
]

MROPE_SECTION = (16, 24, 24)  # Qwen2-VL, 128-dim heads: temporal, height, width pairs
AXES = ("temporal", "height", "width")


def _check_count(name: str, value: int, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def mrope_positions_np(
    text_before: int, grid_t: int, grid_h: int, grid_w: int, text_after: int = 0
) -> np.ndarray:
    """``[3, n]`` int64 position ids (rows: temporal, height, width) for text, one image/video, text.

    Mirrors Qwen2-VL's ``get_rope_index`` for a single vision block: ``n = text_before +
    grid_t · grid_h · grid_w + text_after``. ``grid_h`` and ``grid_w`` are the LLM grid, i.e. the
    patch grid already divided by ``spatial_merge_size``.
    """
    text_before = _check_count("text_before", text_before, 0)
    text_after = _check_count("text_after", text_after, 0)
    grid_t = _check_count("grid_t", grid_t, 1)
    grid_h = _check_count("grid_h", grid_h, 1)
    grid_w = _check_count("grid_w", grid_w, 1)
    before = np.broadcast_to(np.arange(text_before), (3, text_before))  # same id on t, h, w
    start = text_before
    t_index = np.repeat(np.arange(grid_t), grid_h * grid_w)  # t varies slowest
    h_index = np.tile(np.repeat(np.arange(grid_h), grid_w), grid_t)
    w_index = np.tile(np.arange(grid_w), grid_t * grid_h)  # w varies fastest
    vision = np.stack([t_index, h_index, w_index]) + start
    resume = int(vision.max()) + 1  # = start + max(grid_t, grid_h, grid_w)
    after = np.broadcast_to(np.arange(text_after) + resume, (3, text_after))
    return np.concatenate([before, vision, after], axis=1).astype(np.int64)


def mrope_positions(
    text_before: int,
    grid_t: int,
    grid_h: int,
    grid_w: int,
    text_after: int = 0,
    *,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """`mrope_positions_np` as a ``[3, n]`` int64 tensor on ``device``."""
    return torch.from_numpy(mrope_positions_np(text_before, grid_t, grid_h, grid_w, text_after)).to(device)


def mrope_pair_axes(dim: int = 128, mrope_section: Sequence[int] = MROPE_SECTION) -> list[int]:
    """For each of the d/2 frequency pairs, the axis (0 temporal, 1 height, 2 width) that drives it."""
    _check_rope_dim(dim)
    section = [int(s) for s in mrope_section]
    if len(section) != 3 or any(s < 0 for s in section) or sum(section) != dim // 2:
        raise ValueError(
            f"mrope_section must be 3 non-negative pair counts summing to dim/2 = {dim // 2}, got {list(mrope_section)}"
        )
    return [axis for axis, count in enumerate(section) for _ in range(count)]


def apply_mrope(
    x: torch.Tensor,
    position_ids: torch.Tensor,
    *,
    mrope_section: Sequence[int] = MROPE_SECTION,
    base: float = 10000.0,
) -> torch.Tensor:
    """Rotate ``x [..., seq, dim]`` (half layout, as Qwen2-VL) with 3-axis position ids ``[3, seq]``.

    Builds cos/sin for each axis, then takes pair i's angle from axis ``mrope_pair_axes[i]``
    (HF's ``cat([m[i % 3] for i, m in enumerate(cos.split(mrope_section * 2, -1))])``), and applies
    ``x · cos + rotate_half(x) · sin``.
    """
    if not isinstance(x, torch.Tensor) or x.ndim < 2 or not x.is_floating_point():
        raise ValueError("x must be a floating tensor of shape [..., seq, dim]")
    dim, seq = x.shape[-1], x.shape[-2]
    _check_rope_dim(dim)
    _check_base(base)
    axes = torch.tensor(mrope_pair_axes(dim, mrope_section), device=x.device)
    pos = torch.as_tensor(position_ids, device=x.device)
    if pos.shape != (3, seq):
        raise ValueError(f"position_ids must have shape [3, {seq}], got {list(pos.shape)}")
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    theta = rope_inv_freq(dim, base=base, device=x.device, dtype=compute)
    angle_per_axis = pos.to(compute)[..., None] * theta  # [3, seq, d/2]
    angle = angle_per_axis.gather(0, axes.expand(1, seq, -1)).squeeze(0)  # pair i from axis axes[i]
    cos = torch.cat((angle.cos(), angle.cos()), -1).to(x.dtype)
    sin = torch.cat((angle.sin(), angle.sin()), -1).to(x.dtype)
    half = dim // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), -1)  # rotate_half
    return x * cos + rotated * sin
