"""Multimodal RoPE (Qwen2-VL): position ids, sections, reduction to 1-D RoPE."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc_ref.mrope import MROPE_SECTION, apply_mrope, mrope_pair_axes, mrope_positions, mrope_positions_np
from posenc_ref.rope import apply_rope, rope_cos_sin, rotate_half


def test_positions_for_text_image_text():
    pos = mrope_positions(3, 1, 4, 6, text_after=2)
    assert pos.shape == (3, 3 + 24 + 2) and pos.dtype == torch.int64
    assert pos[:, :3].tolist() == [[0, 1, 2]] * 3  # text: one id on all axes
    vision = pos[:, 3:27]
    assert vision[0].tolist() == [3] * 24  # a single frame
    assert vision[1].tolist() == [3 + h for h in range(4) for _ in range(6)]  # rows
    assert vision[2].tolist() == [3 + w for _ in range(4) for w in range(6)]  # columns
    assert pos[:, 27:].tolist() == [[9, 10]] * 3  # resumes at 3 + max(1, 4, 6)


def test_video_grid_and_next_text_position():
    pos = mrope_positions_np(2, 3, 2, 2, text_after=1)
    vision = pos[:, 2:14]
    assert vision[0].tolist() == [2] * 4 + [3] * 4 + [4] * 4
    assert pos[:, -1].tolist() == [5, 5, 5]  # 2 + max(3, 2, 2)
    for t, h, w in [(1, 1, 1), (2, 5, 3), (7, 2, 2), (1, 8, 8)]:
        ids = mrope_positions_np(4, t, h, w, text_after=1)
        assert ids[0, -1] == 4 + max(t, h, w)


def test_image_first_and_no_text_after():
    pos = mrope_positions_np(0, 1, 2, 3)
    assert pos.shape == (3, 6)
    assert pos[:, 0].tolist() == [0, 0, 0]


@pytest.mark.parametrize("bad", [dict(text_before=-1), dict(grid_t=0), dict(grid_h=2.5), dict(text_after=-3)])
def test_position_errors(bad):
    args = {"text_before": 1, "grid_t": 1, "grid_h": 2, "grid_w": 2, "text_after": 0, **bad}
    with pytest.raises(ValueError):
        mrope_positions_np(**args)


def test_sections_of_a_128_dim_head():
    axes = mrope_pair_axes(128, MROPE_SECTION)
    assert MROPE_SECTION == (16, 24, 24)
    assert [axes.count(a) for a in range(3)] == [16, 24, 24]
    assert axes[:16] == [0] * 16 and axes[16:40] == [1] * 24 and axes[40:] == [2] * 24
    with pytest.raises(ValueError, match="summing to dim/2 = 64"):
        mrope_pair_axes(128, (16, 24, 16))


def test_text_only_mrope_is_plain_rope():
    x = torch.randn(2, 7, 128, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    positions = torch.arange(7) + 5
    torch.testing.assert_close(apply_mrope(x, positions.expand(3, -1)), apply_rope(x, positions))


def test_apply_mrope_matches_the_section_concatenation_form():
    # Qwen2-VL: cos per axis [3, seq, d]; split by mrope_section * 2; chunk i comes from axis i % 3
    pos = mrope_positions(2, 1, 3, 4, text_after=2)
    seq = pos.shape[1]
    x = torch.randn(seq, 128, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    cos_axes, sin_axes = zip(*(rope_cos_sin(pos[a], 128, dtype=torch.float64) for a in range(3)))
    cos3, sin3 = torch.stack(cos_axes), torch.stack(sin_axes)
    section = list(MROPE_SECTION) * 2
    cos = torch.cat([m[i % 3] for i, m in enumerate(cos3.split(section, dim=-1))], dim=-1)
    sin = torch.cat([m[i % 3] for i, m in enumerate(sin3.split(section, dim=-1))], dim=-1)
    want = x * cos + rotate_half(x) * sin
    torch.testing.assert_close(apply_mrope(x, pos), want)


def test_scores_depend_on_2d_offsets_within_the_image():
    # shifting every id by the same amount leaves q·k unchanged (relative on each axis)
    pos = mrope_positions(0, 1, 3, 3)
    q = torch.randn(9, 128, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    k = torch.randn(9, 128, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    scores = apply_mrope(q, pos) @ apply_mrope(k, pos).T
    shifted = apply_mrope(q, pos + 100) @ apply_mrope(k, pos + 100).T
    torch.testing.assert_close(scores, shifted, rtol=0, atol=1e-10)
    # but the temporal, height and width ids are not interchangeable
    swapped = apply_mrope(q, pos[[0, 2, 1]]) @ apply_mrope(k, pos[[0, 2, 1]]).T
    assert float((swapped - scores).abs().max()) > 1e-3


def test_apply_mrope_errors():
    with pytest.raises(ValueError, match=r"shape \[3, 4\]"):
        apply_mrope(torch.zeros(4, 128), torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="even"):
        apply_mrope(torch.zeros(4, 127), torch.zeros(3, 4, dtype=torch.long))


def test_numpy_and_torch_positions_agree():
    np.testing.assert_array_equal(mrope_positions(5, 2, 3, 4, 3).numpy(), mrope_positions_np(5, 2, 3, 4, 3))
