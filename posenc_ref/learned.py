"""Learned absolute position embeddings (BERT, GPT-2): one trainable row per position.

Reference: Devlin et al. 2019 (BERT) ``position_embeddings = nn.Embedding(max_position_embeddings,
hidden_size)``, added to the token embeddings. The table has exactly ``max_len`` rows, so there is
nothing to look up at position ``max_len`` or beyond: a learned table cannot extrapolate, and rows
that no training sequence reached keep their random initialisation (their gradient is zero).

This module imports torch at top level; ``import posenc_ref`` stays light because the package
resolves names lazily.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

if TYPE_CHECKING:
    import torch


class PositionOutOfRangeError(ValueError):
    """A position outside ``0 .. max_len - 1`` was looked up in a learned table."""

    def __init__(self, position: int, max_len: int) -> None:
        self.position = int(position)
        self.max_len = int(max_len)
        super().__init__(
            f"position {self.position} is outside the learned table (max_len={self.max_len}, "
            f"valid positions 0..{self.max_len - 1}); a learned table has no row to extrapolate to"
        )


class LearnedPositionalEmbedding(nn.Module):
    """An ``nn.Embedding(max_len, dim)`` position table that refuses out-of-range positions.

    Args:
        max_len: number of rows (BERT: ``max_position_embeddings`` = 512).
        dim: embedding width (``hidden_size``).
        init_std: if given, rows start as N(0, init_std²) (BERT uses 0.02); otherwise
            ``nn.Embedding``'s default N(0, 1).
        device, dtype: forwarded to ``nn.Embedding``.

    ``forward(positions)`` takes either an int ``seq_len`` (positions ``0 .. seq_len - 1``,
    the usual ``arange``) or explicit positions (a tensor or a sequence of ints of any shape), and
    returns ``[..., dim]``. A position ``>= max_len`` or ``< 0`` raises `PositionOutOfRangeError`
    naming max_len and the offending position, instead of ``nn.Embedding``'s opaque index error.
    """

    def __init__(
        self,
        max_len: int,
        dim: int,
        *,
        init_std: float | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if max_len < 1 or dim < 1:
            raise ValueError(f"max_len and dim must be positive, got max_len={max_len}, dim={dim}")
        self.max_len = int(max_len)
        self.dim = int(dim)
        self.embedding = nn.Embedding(self.max_len, self.dim, device=device, dtype=dtype)
        if init_std is not None:
            nn.init.normal_(self.embedding.weight, mean=0.0, std=init_std)

    @property
    def weight(self) -> torch.Tensor:
        return self.embedding.weight

    def forward(self, positions: int | Sequence[int] | torch.Tensor) -> torch.Tensor:
        device = self.embedding.weight.device
        if isinstance(positions, int | np.integer) and not isinstance(positions, bool):
            positions = int(positions)
            if positions < 0:
                raise ValueError(f"seq_len must be >= 0, got {positions}")
            if positions > self.max_len:
                raise PositionOutOfRangeError(positions - 1, self.max_len)
            ids = torch.arange(positions, device=device)
        else:
            ids = torch.as_tensor(positions, device=device)
            if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
                raise TypeError(f"positions must be integers, got dtype {ids.dtype}")
            ids = ids.long()
            if ids.numel():
                high, low = int(ids.max()), int(ids.min())
                if high >= self.max_len:
                    raise PositionOutOfRangeError(high, self.max_len)
                if low < 0:
                    raise PositionOutOfRangeError(low, self.max_len)
        return self.embedding(ids)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, dim={self.dim}"


def resample_2d_table(
    table: torch.Tensor,
    old_grid: tuple[int, int],
    new_grid: tuple[int, int],
    *,
    num_prefix: int = 1,
    mode: str = "bicubic",
    antialias: bool = True,
) -> torch.Tensor:
    """A ViT's learned table ``[num_prefix + H·W, dim]`` resized to ``new_grid`` (as timm's
    ``resample_abs_pos_embed``): the prefix rows (class or register tokens) are set aside untouched, the
    patch rows are reshaped to a ``dim × H × W`` image, interpolated to the target ``size`` (never a
    ``scale_factor``, whose output size is rounded down) in float32, cast back and flattened row-major
    after the prefix. ``antialias`` matters when the grid shrinks."""
    import torch.nn.functional as F

    (h, w), (new_h, new_w) = old_grid, new_grid
    if table.ndim != 2 or table.shape[0] != num_prefix + h * w:
        raise ValueError(f"table must be [{num_prefix} + {h}·{w}, dim], got {list(table.shape)}")
    if min(h, w, new_h, new_w) < 1:
        raise ValueError(f"grids must be at least 1×1, got {old_grid} -> {new_grid}")
    if mode not in ("bilinear", "bicubic"):
        raise ValueError(f"mode must be bilinear or bicubic, got {mode!r}")
    prefix, patches = table[:num_prefix], table[num_prefix:]
    image = patches.float().reshape(1, h, w, -1).permute(0, 3, 1, 2)  # interpolate needs float32
    resized = F.interpolate(image, size=(new_h, new_w), mode=mode, antialias=antialias, align_corners=False)
    rows = resized.permute(0, 2, 3, 1).reshape(new_h * new_w, -1).to(table.dtype)
    return torch.cat([prefix, rows], dim=0)
