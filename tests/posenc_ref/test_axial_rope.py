"""Axial 3-D RoPE (Wan 2.1, FLUX, HunyuanVideo): channels per axis, one ladder per axis, relative per axis."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc_ref.axial_rope import (
    FLUX_AXES_DIMS,
    apply_axial_rope,
    apply_axial_rope_np,
    axial_inv_freqs_np,
    wan_axis_split,
)


def test_wan_split_of_known_heads():
    assert wan_axis_split(128) == (44, 42, 42)  # Wan 2.1 1.3B and 14B: 1536/12 and 5120/40 channels a head
    assert wan_axis_split(64) == (24, 20, 20)
    assert wan_axis_split(96) == (32, 32, 32)
    assert wan_axis_split(6) == (2, 2, 2)
    assert sum(FLUX_AXES_DIMS) == 128 and FLUX_AXES_DIMS == (16, 56, 56)
    for d in range(6, 1025, 2):
        t, h, w = wan_axis_split(d)
        assert t + h + w == d and h == w == 2 * (d // 6) and t % 2 == 0 and t >= h


def test_wan_split_counts_complex_pairs_as_its_rope_apply_does():
    """rope_apply splits the d/2 complex pairs as [c - 2(c // 3), c // 3, c // 3]; the channels are twice that."""
    for d in range(6, 1025, 2):
        c = d // 2
        assert wan_axis_split(d) == (2 * (c - 2 * (c // 3)), 2 * (c // 3), 2 * (c // 3))


@pytest.mark.parametrize("bad", [4, 7, 0, -6, True, 12.0])
def test_wan_split_refuses_heads_that_cannot_split(bad):
    with pytest.raises(ValueError, match="head_dim must be an even integer >= 6"):
        wan_axis_split(bad)


def test_each_axis_has_its_own_full_ladder():
    t, h, w = axial_inv_freqs_np((44, 42, 42), base=10000.0)
    assert len(t) == 22 and len(h) == len(w) == 21
    assert t[0] == h[0] == 1.0
    assert t[-1] == pytest.approx(10000 ** (-42 / 44)) and h[-1] == pytest.approx(10000 ** (-40 / 42))


def test_fast_form_matches_the_textbook_and_scores_depend_on_offsets_only():
    dims = wan_axis_split(128)
    gen = torch.Generator().manual_seed(0)
    q, k = (torch.randn(5, 128, generator=gen, dtype=torch.float64) for _ in range(2))
    coords = torch.tensor([[0, 0, 0], [2, 7, 1], [9, 3, 3], [4, 4, 8], [1, 0, 6]])
    fast = apply_axial_rope(q, coords, dims)
    assert np.abs(fast.numpy() - apply_axial_rope_np(q.numpy(), coords.numpy(), dims)).max() < 1e-12
    scores = fast @ apply_axial_rope(k, coords, dims).T
    shifted = coords + torch.tensor([5, -2, 30])
    moved = apply_axial_rope(q, shifted, dims) @ apply_axial_rope(k, shifted, dims).T
    assert (scores - moved).abs().max() < 1e-10
    # a shift along one axis only turns that axis's section: the other sections are untouched
    only_h = apply_axial_rope(q, coords + torch.tensor([0, 3, 0]), dims)
    assert torch.equal(only_h[:, :44], fast[:, :44]) and torch.equal(only_h[:, 86:], fast[:, 86:])
    assert not torch.equal(only_h[:, 44:86], fast[:, 44:86])


def test_one_pair_by_hand():
    x = np.array([[1.0, 0.0, 0.0, 1.0, 2.0, 0.0]])  # three axes of one pair each
    out = apply_axial_rope_np(x, np.array([[1, 2, 0]]), (2, 2, 2))
    expected = [math.cos(1), math.sin(1), -math.sin(2), math.cos(2), 2.0, 0.0]
    assert out[0] == pytest.approx(expected)
    with pytest.raises(ValueError, match="even number of channels"):
        axial_inv_freqs_np((3, 2, 2))
