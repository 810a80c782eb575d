"""RoPE variants: M-RoPE position ids, 2-D axial RoPE, partial rotary.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from posenc_ref.mrope import mrope_positions

from ...judging import Case, Spec, randn
from ..rope.cases import rope, theta


# -- mrope-position-ids ------------------------------------------------------------------------------------------
def mrope_spec() -> Spec:
    def reference(text_before, grid_t, grid_h, grid_w, text_after):
        return mrope_positions(text_before, grid_t, grid_h, grid_w, text_after)

    def resume_at_count(tb, t, h, w, ta):
        ids = reference(tb, t, h, w, 0)
        after = torch.arange(ta) + tb + t * h * w
        return torch.cat((ids, after.expand(3, -1)), 1)

    def swapped(tb, t, h, w, ta):
        ids = reference(tb, t, w, h, ta).clone()
        return ids[[0, 2, 1]]

    def cases() -> list[Case]:
        return [
            Case("text only", (5, 1, 1, 1, 0), atol=0),
            Case("image 2x3 between text", (3, 1, 2, 3, 4), atol=0),
            Case("video: 2 frames of 2x2", (2, 2, 2, 2, 3), atol=0),
            Case("image first, tall 4x2", (0, 1, 4, 2, 2), atol=0),
            Case("wide 2x5 image, then text", (1, 1, 2, 5, 3), atol=0),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", a, atol=0)
            for a in ((0, 1, 1, 2, 0), (0, 1, 2, 1, 0), (1, 1, 2, 2, 1), (0, 2, 1, 1, 1))
        ],
        mistakes=[
            (
                "text after the vision block resumes at start + t·h·w; it resumes at max(vision ids) + 1",
                resume_at_count,
            ),
            ("height and width are swapped: tokens are row-major, w varies fastest", swapped),
            (
                "every token uses its flat index on all three axes (that is 1-D RoPE)",
                lambda tb, t, h, w, ta: torch.arange(tb + t * h * w + ta).expand(3, -1),
            ),
        ],  # fmt: skip
    )


# -- rope-2d-axial ------------------------------------------------------------------------------------------------
def axial(x, grid_h, grid_w, base=10000.0, *, swap=False, flat=False, full_freq=False):
    half = x.shape[-1] // 2
    n = torch.arange(grid_h * grid_w)
    rows, cols = (n, n) if flat else (n // grid_w, n % grid_w)
    if swap:
        rows, cols = cols, rows
    inv = theta(x.shape[-1], base)[: half // 2] if full_freq else None
    return torch.cat(
        (rope(x[..., :half], rows, base, inv_freq=inv), rope(x[..., half:], cols, base, inv_freq=inv)), -1
    )


def axial_spec() -> Spec:
    def cases() -> list[Case]:
        return [
            Case("2x3 grid, dim 8", (randn(6, 8, seed=150), 2, 3), atol=1e-4),
            Case("3x3 grid, dim 16, batch [2, 2]", (randn(2, 2, 9, 16, seed=151), 3, 3), atol=1e-4),
            Case("1x4 grid (a single row)", (randn(4, 8, seed=152), 1, 4), atol=1e-4),
            Case("4x2 grid, dim 4", (randn(8, 4, seed=153), 4, 2), atol=1e-4),
            Case("base 100", (randn(6, 8, seed=154), 3, 2, 100.0), atol=1e-4),
        ]

    return Spec(
        reference=axial,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(h * w, d, seed=160 + d + h), h, w), atol=1e-4)
            for h, w, d in ((1, 2, 4), (2, 1, 4), (2, 2, 4), (2, 2, 8))
        ],
        mistakes=[
            (
                "rows and columns are swapped: the first dim/2 channels follow the row (n // grid_w)",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, swap=True),
            ),
            (
                "the flat token index is used as the position: that is 1-D RoPE, not 2-D",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, flat=True),
            ),
            (
                "the frequencies use the full dim; each half is a RoPE of width dim/2 (θ_i = base^(-2i/(dim/2)))",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, full_freq=True),
            ),
        ],  # fmt: skip
    )


# -- partial-rotary -------------------------------------------------------------------------------------------------
def partial(x, positions, rotary_dim, base=10000.0, *, full_freq=False, tail=False):
    inv = theta(x.shape[-1], base)[: rotary_dim // 2] if full_freq else None
    if tail:
        cut = x.shape[-1] - rotary_dim
        return torch.cat((x[..., :cut], rope(x[..., cut:], positions, base, inv_freq=inv)), -1)
    return torch.cat((rope(x[..., :rotary_dim], positions, base, inv_freq=inv), x[..., rotary_dim:]), -1)


def partial_spec() -> Spec:
    def cases() -> list[Case]:
        return [
            Case("rotary_dim 8 of 16", (randn(5, 16, seed=170), torch.arange(5), 8), atol=1e-4),
            Case(
                "rotary_dim 16 of 64 (rotary_pct 0.25), heads",
                (randn(2, 4, 64, seed=171), torch.arange(4), 16),
                atol=1e-4,
            ),
            Case("rotary_dim = dim (plain RoPE)", (randn(3, 8, seed=172), torch.arange(3), 8), atol=1e-4),
            Case("offset positions 20..22", (randn(3, 12, seed=173), torch.arange(20, 23), 4), atol=1e-4),
        ]

    return Spec(
        reference=partial,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(2, d, seed=180 + d), torch.arange(2), r), atol=1e-4)
            for d, r in ((4, 2), (8, 4), (16, 8))
        ],
        mistakes=[
            (
                "the frequencies use the head dim; they use rotary_dim: θ_i = base^(-2i/rotary_dim)",
                lambda x, p, r, base=10000.0: partial(x, p, r, base, full_freq=True),
            ),
            (
                "the last rotary_dim channels are rotated; rotate the first ones",
                lambda x, p, r, base=10000.0: partial(x, p, r, base, tail=True),
            ),
            (
                "every channel is rotated; channels rotary_dim.. pass through unchanged",
                lambda x, p, r, base=10000.0: rope(x, p, base),
            ),
            (
                "the pass-through channels are dropped",
                lambda x, p, r, base=10000.0: rope(x[..., :r], p, base),
            ),
        ],  # fmt: skip
    )


SPECS: dict[str, Callable[[], Spec]] = {
    "mrope-position-ids": mrope_spec,
    "rope-2d-axial": axial_spec,
    "partial-rotary": partial_spec,
}
