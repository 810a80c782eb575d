"""Multimodal RoPE (M-RoPE) as in Qwen2-VL.

Reference: Wang et al. 2024, "Qwen2-VL: Enhancing Vision-Language Model's Perception of the
World at Any Resolution", and HF transformers' ``Qwen2VLModel.get_rope_index`` and
``apply_multimodal_rotary_pos_emb``.

Every token gets three position ids (temporal, height, width):

* text tokens use one id on all three axes, counting on from the previous token;
* the vision tokens of a ``grid_t x grid_h x grid_w`` grid (after spatial merging) get
  ``start + (t, h, w)``, where ``start`` is the id the next text token would have had;
* text after the image resumes at ``max(vision ids) + 1 = start + max(grid_t, grid_h, grid_w)``.

Qwen2.5-VL (Bai et al. 2025, §2.1; HF ``Qwen2_5_VLModel.get_rope_index`` and
``Qwen2_5_VLProcessor``) ties the temporal id to absolute time instead of the frame-group count:
frame group ``g`` of a video sampled at ``fps`` covers ``second_per_grid_t = temporal_patch_size / fps``
seconds and gets temporal id ``long(g · second_per_grid_t · tokens_per_second)``, so the gap
between ids measures seconds whatever the frame rate (``tokens_per_second`` is 2 in the released
checkpoints' vision config; HF's config class defaults to 4). Pass ``tokens_per_second > 0`` to use
that rule; ``0`` keeps Qwen2-VL's consecutive ids. (Some HF versions convert ``second_per_grid_t``
to the int64 dtype of ``arange(grid_t)`` before multiplying, which truncates a fractional group
length such as 0.5 s at 4 fps to 0; this module multiplies in floating point, as the formula says.)

The d/2 frequency pairs of a head are split into sections, ``mrope_section = [16, 24, 24]`` for
a 128-dim head: pairs 0-15 rotate by the temporal id, 16-39 by the height id, 40-63 by the width
id (in HF's half layout the second half of the channels mirrors the first). For text, the three
ids agree, so M-RoPE reduces to 1-D RoPE.
"""

from __future__ import annotations

import math
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
    "mrope_temporal_ids_np",
    "mrope_temporal_step",
]

MROPE_SECTION = (16, 24, 24)  # Qwen2-VL, 128-dim heads: temporal, height, width pairs
AXES = ("temporal", "height", "width")


def _check_count(name: str, value: int, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_rate(name: str, value: float, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be a finite number {'> 0' if positive else '>= 0'}, got {value!r}")
    return value


def mrope_temporal_step(
    tokens_per_second: float = 0.0, fps: float = 2.0, temporal_patch_size: int = 2
) -> float:
    """The temporal id interval between consecutive frame groups, before the cast to integers.

    ``tokens_per_second = 0`` is Qwen2-VL's rule (one id per frame group): 1. Otherwise Qwen2.5-VL's
    ``second_per_grid_t · tokens_per_second`` with ``second_per_grid_t = temporal_patch_size / fps``:
    2 at 2 fps and 1 at 4 fps for ``tokens_per_second = 2``, ``temporal_patch_size = 2``.
    """
    tokens_per_second = _check_rate("tokens_per_second", tokens_per_second, positive=False)
    fps = _check_rate("fps", fps, positive=True)
    temporal_patch_size = _check_count("temporal_patch_size", temporal_patch_size, 1)
    if tokens_per_second == 0:
        return 1.0
    return temporal_patch_size / fps * tokens_per_second


def mrope_temporal_ids_np(
    grid_t: int, *, tokens_per_second: float = 0.0, fps: float = 2.0, temporal_patch_size: int = 2
) -> np.ndarray:
    """``[grid_t]`` int64 temporal ids of the frame groups, relative to the block's start id.

    Qwen2-VL (``tokens_per_second = 0``): ``0, 1, ..., grid_t − 1``. Qwen2.5-VL: ``t_g = long(g ·
    second_per_grid_t · tokens_per_second)`` in float64, multiplied in that order as HF does, then
    truncated (ids are >= 0, so this is the floor): a 2 fps video with ``tokens_per_second = 2``
    gets 0, 2, 4, 6, ...; at 4 fps 0, 1, 2, 3, ... (two ids per second either way).
    """
    grid_t = _check_count("grid_t", grid_t, 1)
    tokens_per_second = _check_rate("tokens_per_second", tokens_per_second, positive=False)
    fps = _check_rate("fps", fps, positive=True)
    temporal_patch_size = _check_count("temporal_patch_size", temporal_patch_size, 1)
    groups = np.arange(grid_t, dtype=np.int64)
    if tokens_per_second == 0:
        return groups
    second_per_grid_t = temporal_patch_size / fps
    return (groups.astype(np.float64) * second_per_grid_t * tokens_per_second).astype(np.int64)


def mrope_positions_np(
    text_before: int,
    grid_t: int,
    grid_h: int,
    grid_w: int,
    text_after: int = 0,
    *,
    tokens_per_second: float = 0.0,
    fps: float = 2.0,
    temporal_patch_size: int = 2,
) -> np.ndarray:
    """``[3, n]`` int64 position ids (rows: temporal, height, width) for text, one image/video, text.

    Mirrors Qwen2-VL's ``get_rope_index`` for a single vision block: ``n = text_before +
    grid_t · grid_h · grid_w + text_after``. ``grid_h`` and ``grid_w`` are the LLM grid, i.e. the
    patch grid already divided by ``spatial_merge_size``. With ``tokens_per_second > 0`` the
    temporal ids follow Qwen2.5-VL's absolute-time rule (`mrope_temporal_ids_np`, using ``fps`` and
    ``temporal_patch_size``); the text after the block still resumes at the largest id + 1.
    """
    text_before = _check_count("text_before", text_before, 0)
    text_after = _check_count("text_after", text_after, 0)
    grid_t = _check_count("grid_t", grid_t, 1)
    grid_h = _check_count("grid_h", grid_h, 1)
    grid_w = _check_count("grid_w", grid_w, 1)
    group_ids = mrope_temporal_ids_np(
        grid_t, tokens_per_second=tokens_per_second, fps=fps, temporal_patch_size=temporal_patch_size
    )
    before = np.broadcast_to(np.arange(text_before), (3, text_before))  # same id on t, h, w
    start = text_before
    t_index = np.repeat(group_ids, grid_h * grid_w)  # t varies slowest
    h_index = np.tile(np.repeat(np.arange(grid_h), grid_w), grid_t)
    w_index = np.tile(np.arange(grid_w), grid_t * grid_h)  # w varies fastest
    vision = np.stack([t_index, h_index, w_index]) + start
    resume = int(vision.max()) + 1  # = start + max(grid_t, grid_h, grid_w) for consecutive t ids
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
    tokens_per_second: float = 0.0,
    fps: float = 2.0,
    temporal_patch_size: int = 2,
) -> torch.Tensor:
    """`mrope_positions_np` as a ``[3, n]`` int64 tensor on ``device`` (``tokens_per_second > 0``:
    Qwen2.5-VL's absolute-time temporal ids)."""
    ids = mrope_positions_np(
        text_before,
        grid_t,
        grid_h,
        grid_w,
        text_after,
        tokens_per_second=tokens_per_second,
        fps=fps,
        temporal_patch_size=temporal_patch_size,
    )
    return torch.from_numpy(ids).to(device)


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
