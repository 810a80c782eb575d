"""Multimodal RoPE (Qwen2-VL, Qwen2.5-VL absolute time): position ids, sections, reduction to 1-D RoPE."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc_ref.mrope import (
    MROPE_SECTION,
    apply_mrope,
    mrope_pair_axes,
    mrope_positions,
    mrope_positions_np,
    mrope_temporal_ids_np,
    mrope_temporal_step,
)
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
    with pytest.raises(ValueError, match=rf"^{next(iter(bad))} must be an integer >= [01], got "):
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


# ---------------------------------------------------------------------------- Qwen2.5-VL absolute time


def test_qwen25_temporal_ids_track_seconds():
    # tokens_per_second = 2, temporal_patch_size = 2: 2 fps -> 1 s per group -> 0, 2, 4, 6
    pos = mrope_positions_np(0, 4, 2, 2, text_after=2, tokens_per_second=2, fps=2)
    assert pos[0, :16].tolist() == [0] * 4 + [2] * 4 + [4] * 4 + [6] * 4
    assert pos[1, :16].tolist() == [0, 0, 1, 1] * 4 and pos[2, :16].tolist() == [0, 1, 0, 1] * 4
    assert pos[:, 16:].tolist() == [[7, 8]] * 3  # largest id (6) + 1, not 0 + max(4, 2, 2)
    # 4 fps -> 0.5 s per group -> 0, 1, 2, 3: the same ids as Qwen2-VL's rule
    fast = mrope_positions_np(0, 4, 2, 2, text_after=2, tokens_per_second=2, fps=4)
    assert fast[0, :16].tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    np.testing.assert_array_equal(fast, mrope_positions_np(0, 4, 2, 2, text_after=2))
    # 1 fps -> 2 s per group -> 0, 4, 8
    assert mrope_temporal_ids_np(3, tokens_per_second=2, fps=1).tolist() == [0, 4, 8]


def test_hf_docstring_example_interval_50():
    # HF Qwen2_5_VLModel.get_rope_index docstring: fps 1, tokens_per_second 25, temporal_patch_size 2,
    # a 3 x 2 x 2 grid then 5 text tokens
    pos = mrope_positions(0, 3, 2, 2, text_after=5, tokens_per_second=25, fps=1)
    assert pos[0, :12].tolist() == [0] * 4 + [50] * 4 + [100] * 4
    assert pos[1, :12].tolist() == [0, 0, 1, 1] * 3
    assert pos[2, :12].tolist() == [0, 1, 0, 1] * 3
    assert pos[:, 12:].tolist() == [[101, 102, 103, 104, 105]] * 3
    assert pos.dtype == torch.int64


def test_fractional_step_truncates_like_long():
    # fps 3: a group lasts 2/3 s, so the id interval is 4/3 and long() drops the fraction
    assert mrope_temporal_step(2, 3) == pytest.approx(4 / 3)
    assert mrope_temporal_ids_np(6, tokens_per_second=2, fps=3).tolist() == [0, 1, 2, 4, 5, 6]
    # a tiny interval collapses every group onto id 0
    assert mrope_temporal_ids_np(5, tokens_per_second=0.5, fps=1000).tolist() == [0] * 5


@pytest.mark.parametrize(
    ("grid_t", "tokens_per_second", "fps", "temporal_patch_size"),
    [
        (8, 2.0, 2.0, 2),
        (8, 2.0, 4.0, 2),
        (12, 2.0, 3.0, 2),
        (7, 4.0, 0.7, 2),
        (9, 25.0, 1.0, 2),
        (5, 1.5, 6.0, 3),
    ],
)
def test_temporal_ids_match_hf_torch_formula(grid_t, tokens_per_second, fps, temporal_patch_size):
    # HF: time_tensor = arange(grid_t)[:, None].expand(-1, h·w) · second_per_grid_t · tokens_per_second; .long()
    second_per_grid_t = temporal_patch_size / fps
    hf = (torch.arange(grid_t, dtype=torch.float64) * second_per_grid_t * tokens_per_second).long()
    ids = mrope_temporal_ids_np(
        grid_t, tokens_per_second=tokens_per_second, fps=fps, temporal_patch_size=temporal_patch_size
    )
    assert ids.tolist() == hf.tolist()
    pos = mrope_positions(
        3,
        grid_t,
        2,
        3,
        1,
        tokens_per_second=tokens_per_second,
        fps=fps,
        temporal_patch_size=temporal_patch_size,
    )
    assert pos[0, 3:-1].tolist() == (hf.repeat_interleave(6) + 3).tolist()
    assert int(pos[0, -1]) == 3 + max(int(hf[-1]) + 1, 2, 3)


def test_temporal_step():
    assert mrope_temporal_step() == 1.0  # Qwen2-VL rule
    assert mrope_temporal_step(0, 4) == 1.0  # fps unused without tokens_per_second
    assert mrope_temporal_step(2, 2) == 2.0
    assert mrope_temporal_step(2, 4) == 1.0
    assert mrope_temporal_step(25, 1) == 50.0
    assert mrope_temporal_step(2, 2, temporal_patch_size=4) == 4.0


def test_absolute_time_leaves_images_and_defaults_alone():
    for t, h, w in [(1, 4, 6), (3, 2, 2), (5, 1, 8)]:
        np.testing.assert_array_equal(
            mrope_positions_np(2, t, h, w, 1, tokens_per_second=0), mrope_positions_np(2, t, h, w, 1)
        )
    # an image (grid_t = 1) has only group 0, whatever the rule
    np.testing.assert_array_equal(
        mrope_positions_np(2, 1, 4, 6, 3, tokens_per_second=2, fps=0.5), mrope_positions_np(2, 1, 4, 6, 3)
    )


@pytest.mark.parametrize(
    "bad",
    [
        dict(tokens_per_second=-1.0),
        dict(tokens_per_second=float("nan")),
        dict(fps=0.0),
        dict(fps=-2.0),
        dict(fps=float("inf")),
        dict(temporal_patch_size=0),
        dict(tokens_per_second=True),
    ],
)
def test_absolute_time_errors(bad):
    with pytest.raises(ValueError, match=rf"^{next(iter(bad))} must be "):
        mrope_positions_np(1, 4, 2, 2, 0, **{"tokens_per_second": 2.0, **bad})
