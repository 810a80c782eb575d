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

import numpy as np
import torch
from torch import nn


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
        self, max_len: int, dim: int, *, init_std: float | None = None, device=None, dtype=None
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
