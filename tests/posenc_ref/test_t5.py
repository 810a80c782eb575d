"""T5 relative buckets: the worked vectors of HF's _relative_position_bucket, textbook vs fast."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc_ref import t5_bucket_grid, t5_relative_position_bucket, t5_relative_position_bucket_np

OFFSETS = [-128, -64, -20, -8, -1, 0, 1, 8, 20, 64, 128]
# transformers' T5Attention._relative_position_bucket, 32 buckets, max_distance 128
BIDIRECTIONAL = [15, 14, 10, 8, 1, 0, 17, 24, 26, 30, 31]
# causal: n = max(-rp, 0); n < 16 exact, else 16 + int(log(n/16) / log(8) * 16), capped at 31
#   -128: 16 + int(16.0) -> 31;  -64: 16 + int(10.67) = 26;  -20: 16 + int(1.72) = 17; the rest exact or 0
CAUSAL = [31, 26, 17, 8, 1, 0, 0, 0, 0, 0, 0]


def test_worked_vector_bidirectional():
    assert t5_relative_position_bucket(OFFSETS).tolist() == BIDIRECTIONAL
    assert t5_relative_position_bucket_np(OFFSETS).tolist() == BIDIRECTIONAL


def test_worked_vector_causal():
    assert t5_relative_position_bucket(OFFSETS, bidirectional=False).tolist() == CAUSAL
    assert t5_relative_position_bucket_np(OFFSETS, bidirectional=False).tolist() == CAUSAL


def test_input_kinds():
    assert t5_relative_position_bucket(-64) == 14
    assert isinstance(t5_relative_position_bucket(-64), int)
    assert isinstance(t5_relative_position_bucket(np.int64(5)), int)
    t = torch.tensor([[-1, 0], [1, 2]], dtype=torch.int32)
    out = t5_relative_position_bucket(t)
    assert out.dtype == torch.long and out.shape == (2, 2)
    assert out.tolist() == [[1, 0], [17, 18]]
    with pytest.raises(TypeError):
        t5_relative_position_bucket(torch.tensor([1.5]))


def test_saturation_point_and_exact_range():
    # bucket 15 is first reached at |rp| = 91 (log-spaced: 8 + int(log(n/8)/log(16)·8) >= 15 <=> n >= 90.5)
    assert t5_relative_position_bucket(-90) == 14
    assert t5_relative_position_bucket(-91) == 15
    assert t5_relative_position_bucket(91) == 31
    assert t5_relative_position_bucket([-(10**6), 10**6]).tolist() == [15, 31]
    assert t5_relative_position_bucket(list(range(0, -8, -1))).tolist() == list(range(8))
    causal = t5_relative_position_bucket(list(range(0, -16, -1)), bidirectional=False)
    assert causal.tolist() == list(range(16))
    assert t5_relative_position_bucket(-16, bidirectional=False) == 16


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(
    ("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 256), (128, 1000), (4, 3)]
)
def test_textbook_matches_fast(bidirectional, num_buckets, max_distance):
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    assert max_distance > per_direction // 2  # none is degenerate (those raise: the test below)
    rp = list(range(-3 * max_distance, 3 * max_distance + 1))
    kw = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
    fast = t5_relative_position_bucket(rp, **kw).numpy()
    slow = t5_relative_position_bucket_np(rp, **kw)
    np.testing.assert_array_equal(fast, slow)
    assert fast.min() >= 0 and fast.max() <= num_buckets - 1


def test_degenerate_configurations_raise():
    with pytest.raises(ValueError, match="exact bucket"):
        t5_relative_position_bucket(3, num_buckets=2)
    with pytest.raises(ValueError, match="max_distance"):
        t5_relative_position_bucket_np([3], num_buckets=32, max_distance=8)


def test_bucket_grid_uses_key_minus_query():
    grid = t5_bucket_grid(4, 6)
    assert grid.shape == (4, 6)
    for i in range(4):
        for j in range(6):
            assert int(grid[i, j]) == t5_relative_position_bucket(j - i)
    assert grid[0].tolist() == [0, 17, 18, 19, 20, 21]
