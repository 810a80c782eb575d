"""Shaw, Transformer-XL/XLNet, DeBERTa, the absolute expansion, integer/binary codes, learned tables."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_ref import (
    LearnedPositionalEmbedding,
    PositionOutOfRangeError,
    absolute_score_terms,
    absolute_score_terms_np,
    binary_bits_needed,
    binary_pe_np,
    deberta_log_bucket,
    deberta_log_bucket_np,
    deberta_relative_indices,
    deberta_scale,
    deberta_score_terms,
    deberta_score_terms_np,
    integer_pe_np,
    resample_2d_table,
    shaw_attention,
    shaw_attention_np,
    shaw_attention_scores,
    shaw_attention_scores_np,
    shaw_relative_indices,
    shaw_relative_indices_np,
    sinusoidal_pe_np,
    xlnet_score_terms,
    xlnet_score_terms_np,
)


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.normal(size=shape)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float64)


# ----------------------------------------------------------------------------- Shaw


def test_shaw_indices_known_grid():
    expected = [
        [2, 3, 4, 4, 4],
        [1, 2, 3, 4, 4],
        [0, 1, 2, 3, 4],
    ]
    assert shaw_relative_indices(3, 5, 2).tolist() == expected
    assert shaw_relative_indices_np(3, 5, 2).tolist() == expected
    assert shaw_relative_indices(3, 3, 0).tolist() == [[0] * 3] * 3
    with pytest.raises(ValueError, match="clip"):
        shaw_relative_indices(3, 3, -1)


@settings(max_examples=25, deadline=None)
@given(
    q_len=st.integers(1, 7),
    k_len=st.integers(1, 7),
    clip=st.integers(0, 5),
    dim=st.integers(1, 6),
    seed=st.integers(0, 1000),
    with_values=st.booleans(),
)
def test_shaw_fast_matches_textbook(q_len, k_len, clip, dim, seed, with_values):
    rng = np.random.default_rng(seed)
    q, k, v = rand(rng, q_len, dim), rand(rng, k_len, dim), rand(rng, k_len, 3)
    rel_k, rel_v = rand(rng, 2 * clip + 1, dim), rand(rng, 2 * clip + 1, 3)
    e = shaw_attention_scores(t(q), t(k), t(rel_k), clip).numpy()
    np.testing.assert_allclose(e, shaw_attention_scores_np(q, k, rel_k, clip), atol=1e-12)
    z, w = shaw_attention(t(q), t(k), t(v), t(rel_k), clip, rel_v=t(rel_v) if with_values else None)
    z_ref, w_ref = shaw_attention_np(q, k, v, rel_k, clip, rel_v=rel_v if with_values else None)
    np.testing.assert_allclose(z.numpy(), z_ref, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), w_ref, atol=1e-12)


def test_shaw_single_pair_by_hand_and_batching():
    rng = np.random.default_rng(1)
    q, k, rel_k = rand(rng, 4, 3), rand(rng, 6, 3), rand(rng, 5, 3)
    e = shaw_attention_scores_np(q, k, rel_k, 2)
    # query 0, key 5: j - i = 5 -> clipped to +2 -> row 4
    assert e[0, 5] == pytest.approx(q[0] @ (k[5] + rel_k[4]) / math.sqrt(3))
    # query 3, key 2: j - i = -1 -> row 1
    assert e[3, 2] == pytest.approx(q[3] @ (k[2] + rel_k[1]) / math.sqrt(3))
    qb = torch.tensor(rand(rng, 2, 3, 4, 3))
    kb = torch.tensor(rand(rng, 2, 3, 6, 3))
    eb = shaw_attention_scores(qb, kb, t(rel_k), 2)
    assert eb.shape == (2, 3, 4, 6)
    ref = shaw_attention_scores_np(qb[1, 2].numpy(), kb[1, 2].numpy(), rel_k, 2)
    np.testing.assert_allclose(eb[1, 2].numpy(), ref, atol=1e-12)


def test_shaw_table_size_is_checked():
    with pytest.raises(ValueError, match="2·clip"):
        shaw_attention_scores(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(4, 3), 2)


def test_shaw_is_translation_invariant_for_identical_tokens():
    rng = np.random.default_rng(2)
    q = np.tile(rand(rng, 1, 4), (8, 1))
    k = np.tile(rand(rng, 1, 4), (8, 1))
    e = shaw_attention_scores_np(q, k, rand(rng, 7, 4), 3)
    np.testing.assert_allclose(e[1:, 1:], e[:-1, :-1], atol=1e-12)


# ----------------------------------------------------------------------------- Transformer-XL / XLNet


def _xl_inputs(seed: int, q_len: int = 5, d_model: int = 8, d_head: int = 6):
    rng = np.random.default_rng(seed)
    return (
        rand(rng, q_len, d_model),
        rand(rng, d_model, d_head),
        rand(rng, d_model, d_head),
        rand(rng, d_model, d_head),
        rand(rng, d_head),
        rand(rng, d_head),
    )


@pytest.mark.parametrize("mem_len", [0, 1, 4])
def test_xlnet_fast_matches_textbook(mem_len):
    x, w_q, w_ke, w_kr, u, v = _xl_inputs(3)
    memory = np.random.default_rng(4).normal(size=(mem_len, 8)) if mem_len else None
    slow = xlnet_score_terms_np(x, w_q, w_ke, w_kr, u, v, memory=memory)
    fast = xlnet_score_terms(
        *(t(a) for a in (x, w_q, w_ke, w_kr, u, v)), memory=None if memory is None else t(memory)
    )
    for a, b in zip(fast, slow):
        assert a.shape == (5, 5 + mem_len)
        np.testing.assert_allclose(a.numpy(), b, atol=1e-10)


def test_xlnet_terms_by_hand():
    x, w_q, w_ke, w_kr, u, v = _xl_inputs(5)
    terms = xlnet_score_terms_np(x, w_q, w_ke, w_kr, u, v)
    i, j = 3, 1
    r = sinusoidal_pe_np(1, 8, layout="concat", offset=i - j)[0] @ w_kr  # R_{i-j} W_kR, concat sinusoid
    q, k = x[i] @ w_q, x[j] @ w_ke
    assert terms.a[i, j] == pytest.approx(q @ k)
    assert terms.b[i, j] == pytest.approx(q @ r)
    assert terms.c[i, j] == pytest.approx(u @ k)
    assert terms.d[i, j] == pytest.approx(v @ r)
    # Transformer-XL's regrouping: (q + u)·k + (q + v)·r
    assert terms.total[i, j] == pytest.approx((q + u) @ k + (q + v) @ r)
    # (d) depends on i - j only, (c) on j only
    np.testing.assert_allclose(terms.d[1:, 1:], terms.d[:-1, :-1], atol=1e-12)
    np.testing.assert_allclose(terms.c, np.tile(terms.c[:1], (5, 1)), atol=1e-12)


def test_xlnet_batched():
    x, w_q, w_ke, w_kr, u, v = _xl_inputs(6)
    xb = np.stack([x, x[::-1]])
    fast = xlnet_score_terms(t(xb), *(t(a) for a in (w_q, w_ke, w_kr, u, v)))
    assert fast.total.shape == (2, 5, 5)
    slow = xlnet_score_terms_np(x[::-1], w_q, w_ke, w_kr, u, v)
    np.testing.assert_allclose(fast.total[1].numpy(), slow.total, atol=1e-10)


# ----------------------------------------------------------------------------- DeBERTa


def test_deberta_v3_log_buckets_by_hand():
    """position_buckets 256, max_relative_positions 512 (DeBERTa-v3): mid = 128, exact up to ±128, then
    128 + ceil(ln(r/128) / ln(511/128) · 127): 200 -> 128 + ceil(40.94) = 169, 300 -> 128 + ceil(78.14) = 207."""
    rel = np.array([0, 1, -1, 127, 128, 129, 200, 300, 511, -200, -511, 600])
    expected = [0, 1, -1, 127, 128, 129, 169, 207, 255, -169, -255, 270]
    assert deberta_log_bucket_np(rel, 256, 512).tolist() == expected
    assert deberta_log_bucket(torch.tensor(rel), 256, 512).tolist() == expected
    every = np.arange(-2000, 2001)
    assert np.array_equal(
        deberta_log_bucket_np(every, 256, 512), deberta_log_bucket(torch.tensor(every), 256, 512)
    )
    for r in (200, 300):
        assert deberta_log_bucket_np(np.array([r]), 256, 512)[0] == 128 + math.ceil(
            math.log(r / 128) / math.log(511 / 128) * 127
        )
    with pytest.raises(ValueError, match="max_position - 1 > buckets // 2"):
        deberta_log_bucket_np(np.array([1]), 256, 128)


def test_deberta_delta_known_values():
    span = 4
    rel = deberta_relative_indices(13, 1, span)[:, 0]  # i - j = 0 .. 12 with j = 0
    assert rel.tolist() == [4, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]
    grid = deberta_relative_indices(1, 13, span)[0]  # i - j = 0 .. -12
    assert grid.tolist() == [4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]


def _deberta_inputs(seed: int, n: int = 6, d_model: int = 8, d: int = 5, span: int = 3):
    rng = np.random.default_rng(seed)
    return rand(rng, n, d_model), rand(rng, 2 * span, d_model), *(rand(rng, d_model, d) for _ in range(4))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deberta_fast_matches_textbook(seed):
    h, rel, *ws = _deberta_inputs(seed)
    slow = deberta_score_terms_np(h, rel, *ws)
    fast = deberta_score_terms(t(h), t(rel), *(t(w) for w in ws))
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a.numpy(), b, atol=1e-10)
    hb = t(np.stack([h, h * 2]))
    fast_b = deberta_score_terms(hb, t(rel), *(t(w) for w in ws))
    assert fast_b.total.shape == (2, 6, 6)
    np.testing.assert_allclose(fast_b.total[0].numpy(), slow.total, atol=1e-10)


def test_deberta_terms_by_hand():
    h, rel, w_qc, w_kc, w_qr, w_kr = _deberta_inputs(7)
    terms = deberta_score_terms_np(h, rel, w_qc, w_kc, w_qr, w_kr)
    i, j, span = 5, 1, 3  # i - j = 4 >= k: c2p row 2k - 1 = 5; j - i = -4 <= -k: p2c row 0
    q_c, k_c = h[i] @ w_qc, h[j] @ w_kc
    assert terms.c2c[i, j] == pytest.approx(q_c @ k_c)
    assert terms.c2p[i, j] == pytest.approx(q_c @ (rel[2 * span - 1] @ w_kr))
    assert terms.p2c[i, j] == pytest.approx(k_c @ (rel[0] @ w_qr))
    assert terms.scaled[i, j] == pytest.approx(terms.total[i, j] / math.sqrt(3 * 5))
    assert deberta_scale(64) == pytest.approx(1 / math.sqrt(192))


# ----------------------------------------------------------------------------- absolute expansion


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), d_model=st.integers(1, 8), d=st.integers(1, 5), seed=st.integers(0, 1000))
def test_expansion_sums_to_the_full_score(n, d_model, d, seed):
    rng = np.random.default_rng(seed)
    x, p = rand(rng, n, d_model), rand(rng, n, d_model)
    w_q, w_k = rand(rng, d_model, d), rand(rng, d_model, d)
    full = ((x + p) @ w_q) @ ((x + p) @ w_k).T
    slow = absolute_score_terms_np(x, p, w_q, w_k)
    np.testing.assert_allclose(slow.total, full, atol=1e-10)
    fast = absolute_score_terms(t(x), t(p), t(w_q), t(w_k))
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a.numpy(), b, atol=1e-10)
    np.testing.assert_allclose(slow.position_position, (p @ w_q) @ (p @ w_k).T, atol=1e-10)


def test_expansion_broadcasts_positions_over_a_batch():
    rng = np.random.default_rng(0)
    x, p = rand(rng, 3, 4, 8), rand(rng, 4, 8)
    w_q, w_k = rand(rng, 8, 8), rand(rng, 8, 8)
    fast = absolute_score_terms(t(x), t(p), t(w_q), t(w_k))
    assert fast.position_position.shape == (3, 4, 4)
    np.testing.assert_allclose(
        fast.total[2].numpy(), absolute_score_terms_np(x[2], p, w_q, w_k).total, atol=1e-10
    )


# ----------------------------------------------------------------------------- integer / binary


def test_integer_codes():
    pe = integer_pe_np(5, 3)
    assert pe.tolist() == [[i] * 3 for i in range(5)]
    assert integer_pe_np(4, 2, normalize=True)[:, 0].tolist() == [0, 0.25, 0.5, 0.75]
    # normalised codes depend on the sequence length
    assert integer_pe_np(4, 1, normalize=True)[1, 0] != integer_pe_np(8, 1, normalize=True)[1, 0]


def test_binary_codes():
    bits = binary_pe_np(8)
    assert bits.shape == (8, 3)
    assert bits[1].tolist() == [0, 0, 1] and bits[2].tolist() == [0, 1, 0] and bits[5].tolist() == [1, 0, 1]
    assert [binary_bits_needed(n) for n in (1, 2, 3, 4, 5, 16, 17, 1000)] == [1, 1, 2, 2, 3, 4, 5, 10]
    assert binary_pe_np(3, n_bits=4)[2].tolist() == [0, 0, 1, 0]
    with pytest.raises(ValueError, match="bits"):
        binary_pe_np(9, n_bits=3)
    flips = np.abs(np.diff(binary_pe_np(16), axis=0)).sum(axis=1)
    assert flips.max() == 4 and int(np.argmax(flips)) == 7  # 7 -> 8 flips all four bits


# ----------------------------------------------------------------------------- learned table


def test_learned_table_lookup_and_refusal():
    torch.manual_seed(0)
    table = LearnedPositionalEmbedding(16, 4)
    assert table(10).shape == (10, 4)
    torch.testing.assert_close(table(3), table.weight[:3])
    assert table(torch.tensor([[0, 15], [3, 4]])).shape == (2, 2, 4)
    with pytest.raises(PositionOutOfRangeError) as info:
        table(torch.tensor([3, 20]))
    message = str(info.value)
    assert "max_len=16" in message and "position 20" in message
    assert isinstance(info.value, ValueError)
    assert info.value.position == 20 and info.value.max_len == 16
    with pytest.raises(PositionOutOfRangeError, match="position 16"):
        table(17)  # positions 0..16: the last one is missing
    with pytest.raises(PositionOutOfRangeError, match="position -1"):
        table([0, -1])
    with pytest.raises(TypeError):
        table(torch.tensor([1.0]))


def test_learned_rows_past_training_length_get_no_gradient():
    table = LearnedPositionalEmbedding(10, 3, init_std=0.02)
    assert float(table.weight.detach().std()) < 0.1
    (table(6) ** 2).sum().backward()
    grad_norm = table.weight.grad.norm(dim=-1)
    assert torch.all(grad_norm[:6] > 0)
    assert torch.all(grad_norm[6:] == 0)


def test_resample_2d_table_keeps_the_class_row_and_hits_the_target_grid():
    gen = torch.Generator().manual_seed(0)
    table = torch.randn(1 + 14 * 14, 6, generator=gen)
    out = resample_2d_table(table, (14, 14), (24, 32))
    assert out.shape == (1 + 24 * 32, 6) and torch.equal(out[0], table[0])
    assert torch.allclose(resample_2d_table(table, (14, 14), (14, 14)), table, atol=1e-6)
    # a constant table stays constant (interpolation weights sum to one), in any size
    flat = torch.cat([table[:1], torch.full((196, 6), 0.25)])
    assert torch.allclose(resample_2d_table(flat, (14, 14), (61, 9))[1:], torch.tensor(0.25), atol=1e-6)
    # the trap the size= path avoids: scale_factor 61/14 gives 60 rows
    image = table[1:].reshape(1, 14, 14, 6).permute(0, 3, 1, 2)
    assert torch.nn.functional.interpolate(image, scale_factor=61 / 14, mode="bicubic").shape[-1] == 60
    assert resample_2d_table(table, (14, 14), (61, 61)).shape[0] == 1 + 61 * 61
    with pytest.raises(ValueError, match="table must be"):
        resample_2d_table(table, (13, 13), (24, 24))
