"""NoPE: under a causal mask a head with no position encoding reads position as 1/(i+1)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_ref.demos import get_demo, memory_budget_bytes, run_demo
from posenc_ref.nope import (
    first_collision,
    first_wrong_position,
    nope_causal_attention,
    nope_causal_attention_np,
    nope_first_token_signal,
    nope_first_token_signal_np,
    nope_recover_positions,
    nope_recover_positions_np,
)


def test_equal_scores_give_one_over_i_plus_one_on_the_visible_keys():
    weights = nope_causal_attention_np(4)
    expected = np.array(
        [
            [1, 0, 0, 0],
            [1 / 2, 1 / 2, 0, 0],
            [1 / 3, 1 / 3, 1 / 3, 0],
            [1 / 4, 1 / 4, 1 / 4, 1 / 4],
        ]
    )
    np.testing.assert_array_equal(weights, expected)
    np.testing.assert_array_equal(nope_first_token_signal_np(5), [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5])
    np.testing.assert_array_equal(nope_recover_positions_np(nope_first_token_signal_np(5)), [0, 1, 2, 3, 4])


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 24), st.integers(0, 2**31 - 1))
def test_causal_weights_are_a_distribution_over_the_prefix_for_any_scores(n, seed):
    scores = np.random.default_rng(seed).normal(size=(n, n)) * 5
    weights = nope_causal_attention_np(n, scores)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert np.all(np.triu(weights, k=1) == 0)
    assert np.all(weights[np.tril_indices(n)] > 0)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31 - 1))
def test_the_output_at_i_ignores_the_order_of_the_tokens_before_it(i, seed):
    """No position encoding: query i sees the *set* of tokens 0..i; only the mask (how many) tells position."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(i + 1, 8, generator=gen, dtype=torch.float64)
    w_q, w_k, w_v = (torch.randn(8, 4, generator=gen, dtype=torch.float64) for _ in range(3))
    perm = torch.cat([torch.randperm(i, generator=gen), torch.tensor([i])])
    out = nope_causal_attention(x, w_q, w_k, w_v)[-1]
    shuffled = nope_causal_attention(x[perm], w_q, w_k, w_v)[-1]
    torch.testing.assert_close(out, shuffled, rtol=0, atol=1e-12)


def test_a_real_head_with_a_bos_marker_outputs_the_first_token_signal():
    x = torch.randn(64, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    x[:, 0] = 0.0
    x[0, 0] = 1.0
    w_q = torch.zeros(6, 2, dtype=torch.float64)
    w_k = torch.randn(6, 2, dtype=torch.float64)
    w_v = torch.zeros(6, 1, dtype=torch.float64)
    w_v[0, 0] = 1.0
    out = nope_causal_attention(x, w_q, w_k, w_v)[:, 0].numpy()
    np.testing.assert_allclose(out, 1.0 / np.arange(1, 65), rtol=0, atol=1e-15)


def test_the_fast_form_matches_the_textbook_and_scans_in_blocks():
    textbook = nope_first_token_signal_np(300)
    fast = nope_first_token_signal(300, dtype=torch.float64).numpy()
    np.testing.assert_array_equal(fast, textbook)
    tail = nope_first_token_signal(300, start=250, dtype=torch.float64).numpy()
    np.testing.assert_array_equal(tail, textbook[250:])
    assert nope_first_token_signal(300, dtype=torch.float32).dtype == torch.float32


@pytest.mark.parametrize(
    ("dtype", "wrong", "collision"),
    [(torch.bfloat16, 189, 190), (torch.float16, 1464, 1464)],
)
def test_where_low_precision_runs_out(dtype, wrong, collision):
    signal = nope_first_token_signal(4096, dtype=dtype)
    assert first_wrong_position(nope_recover_positions(signal)) == wrong
    assert first_collision(signal) == collision
    # the first collision: two neighbouring positions round to the same number
    assert float(signal[collision - 1]) == float(signal[collision])
    assert float(signal[collision - 2]) != float(signal[collision - 1])


def test_float32_and_float64_read_back_every_position_of_a_long_context():
    for dtype in (torch.float32, torch.float64):
        signal = nope_first_token_signal(1 << 20, dtype=dtype)
        assert first_wrong_position(nope_recover_positions(signal)) == 1 << 20
        assert first_collision(signal) == 1 << 20


@pytest.mark.parametrize("bad", [0, -3, True, 2.5])
def test_bad_lengths_are_refused(bad):
    with pytest.raises(ValueError, match="seq_len must be a positive integer"):
        nope_causal_attention_np(bad)
    with pytest.raises(ValueError, match="seq_len must be a positive integer"):
        nope_first_token_signal(bad)


def test_start_outside_the_sequence_is_refused():
    with pytest.raises(ValueError, match=r"start must be in \[0, 10\)"):
        nope_first_token_signal(10, start=10)


def test_the_demo_reports_the_precision_limits_and_passes_its_checks():
    result = run_demo("nope-causal-position", {"seq_len": 2048}, device="cpu")
    assert result.passed and len(result.checks) == 7
    assert result.values["first_wrong_bfloat16"] == 189
    assert result.values["first_collision_bfloat16"] == 190
    assert result.values["first_collision_float16"] == 1464
    assert result.values["first_wrong_float32"] == 2048  # no failure within the sequence
    assert result.values["float64_exact"] == 1
    assert result.values["signal_at_last"] == pytest.approx(1 / 2048, abs=0)
    table = result.tables[0]
    row = next(r for r in table.rows if r[0] == 189)
    assert row[2:] == [189, 190, 189, 189]  # float64, bfloat16, float16, float32


def test_short_demo_notes_the_collisions_it_cannot_reach():
    result = run_demo("nope-causal-position", {"seq_len": 100}, device="cpu")
    assert result.passed
    assert result.values["first_collision_bfloat16"] == 100
    assert any("bfloat16 keeps all 100 positions apart" in note for note in result.notes)


def test_the_longest_request_fits_the_default_memory_budget():
    demo = get_demo("nope-causal-position")
    params = demo.resolve_params({"seq_len": 1 << 24, "d_model": 1024})
    assert demo.memory_bytes(**params) < memory_budget_bytes()
