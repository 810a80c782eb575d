"""ALiBi: slopes against the paper's get_slopes, the bias matrix, BLOOM's equivalent form."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_ref import (
    alibi_bias,
    alibi_bias_bloom,
    alibi_bias_np,
    alibi_slopes,
    alibi_slopes_np,
    alibi_slopes_paper,
)

INF = float("inf")


def test_eight_heads():
    expected = [2.0**-h for h in range(1, 9)]
    assert alibi_slopes_paper(8) == expected
    assert alibi_slopes_np(8).tolist() == expected
    assert alibi_slopes(8, dtype=torch.float64).tolist() == expected
    assert alibi_slopes(8).dtype == torch.float32


def test_twelve_heads_non_power_of_two():
    neg_log2 = [-math.log2(s) for s in alibi_slopes_np(12)]
    np.testing.assert_allclose(neg_log2, [1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5], atol=1e-12)
    assert float(alibi_slopes(12, dtype=torch.float64)[8]) == pytest.approx(2**-0.5, rel=1e-15)


def test_six_heads():
    neg_log2 = [-math.log2(s) for s in alibi_slopes_np(6)]
    np.testing.assert_allclose(neg_log2, [2, 4, 6, 8, 1, 3], atol=1e-12)


@pytest.mark.parametrize("n", list(range(1, 70)) + [96, 100, 128, 1000, 1024])
def test_all_forms_equal_the_paper(n):
    ref = np.asarray(alibi_slopes_paper(n))
    assert len(ref) == n
    # get_slopes multiplies start * ratio**i, so its rounding grows slowly with n
    np.testing.assert_allclose(alibi_slopes_np(n), ref, rtol=1e-12, atol=0)
    np.testing.assert_allclose(alibi_slopes(n, dtype=torch.float64).numpy(), ref, rtol=1e-12, atol=0)
    np.testing.assert_allclose(alibi_slopes(n).double().numpy(), ref, rtol=1e-7, atol=0)


def test_bad_head_count():
    for bad in (0, -3):
        with pytest.raises(ValueError, match="n_heads"):
            alibi_slopes_np(bad)
        with pytest.raises(ValueError, match="n_heads"):
            alibi_slopes(bad)


def test_bias_small_causal_matrix():
    # 2 heads: slopes 2^-4 and 2^-8
    bias = alibi_bias(2, 3, dtype=torch.float64).numpy()
    m0, m1 = 2**-4, 2**-8
    expected0 = [[0, -INF, -INF], [-m0, 0, -INF], [-2 * m0, -m0, 0]]
    expected1 = [[0, -INF, -INF], [-m1, 0, -INF], [-2 * m1, -m1, 0]]
    assert bias.tolist() == [expected0, expected1]
    assert alibi_bias_np(2, 3).tolist() == [expected0, expected1]
    assert bias.shape == (2, 3, 3)
    assert not np.signbit(np.diagonal(bias, axis1=1, axis2=2)).any()  # 0.0, not -0.0


def test_bias_non_causal_is_symmetric():
    bias = alibi_bias(4, 6, causal=False, dtype=torch.float64)
    torch.testing.assert_close(bias, bias.transpose(-1, -2))
    slopes = alibi_slopes(4, dtype=torch.float64)
    assert float(bias[1, 0, 5]) == pytest.approx(-5 * float(slopes[1]))


def test_query_alignment_with_cache():
    square = alibi_bias(3, 7)
    tail = alibi_bias(3, 2, 7)  # the last two queries of seven positions
    torch.testing.assert_close(tail, square[:, -2:, :], atol=0, rtol=0)
    np.testing.assert_array_equal(alibi_bias_np(3, 2, 7), alibi_bias_np(3, 7)[:, -2:, :])
    with pytest.raises(ValueError, match="k_len"):
        alibi_bias(3, 5, 4)


@settings(max_examples=30, deadline=None)
@given(
    n_heads=st.integers(1, 20),
    q_len=st.integers(1, 12),
    extra=st.integers(0, 6),
    causal=st.booleans(),
)
def test_fast_matches_textbook(n_heads, q_len, extra, causal):
    k_len = q_len + extra
    fast = alibi_bias(n_heads, q_len, k_len, causal=causal).double().numpy()
    slow = alibi_bias_np(n_heads, q_len, k_len, causal=causal)
    assert np.array_equal(np.isinf(fast), np.isinf(slow))
    finite = np.isfinite(slow)
    np.testing.assert_allclose(fast[finite], slow[finite], rtol=1e-6, atol=1e-7)


def test_bloom_form_differs_by_a_row_constant_and_softmax_agrees():
    n_heads, seq = 12, 9
    paper = alibi_bias(n_heads, seq, dtype=torch.float64)
    bloom = alibi_bias_bloom(n_heads, seq, dtype=torch.float64)
    assert bloom.shape == (n_heads, 1, seq)
    slopes = alibi_slopes(n_heads, dtype=torch.float64)
    # BLOOM row = m·j; paper row i = -m·(i - j) = m·j - m·i
    i = torch.arange(seq, dtype=torch.float64)
    visible = torch.ones(seq, seq, dtype=torch.bool).tril()
    expected = bloom.expand(n_heads, seq, seq) - slopes[:, None, None] * i[None, :, None]
    torch.testing.assert_close(paper[:, visible], expected[:, visible])
    scores = torch.randn(n_heads, seq, seq, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    a = torch.softmax(scores + paper, dim=-1)
    b = torch.softmax((scores + bloom).masked_fill(~visible, -INF), dim=-1)
    torch.testing.assert_close(a, b, atol=1e-12, rtol=0)
    # but the raw matrices differ
    assert not torch.allclose(paper[:, visible], bloom.expand(n_heads, seq, seq)[:, visible])


def test_bloom_left_padding_counts_real_tokens():
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    bias = alibi_bias_bloom(2, 5, attention_mask=mask, dtype=torch.float64)
    assert bias.shape == (2, 2, 1, 5)
    slopes = alibi_slopes(2, dtype=torch.float64)
    assert bias[0, 0, 0].tolist() == [0.0, 0.0, 0.0, float(slopes[0]), 2 * float(slopes[0])]
    assert bias[1, 1, 0].tolist() == [j * float(slopes[1]) for j in range(5)]


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_bias():
    gpu = alibi_bias(8, 16, device="cuda")
    assert gpu.device.type == "cuda"
    torch.testing.assert_close(gpu.cpu(), alibi_bias(8, 16))
