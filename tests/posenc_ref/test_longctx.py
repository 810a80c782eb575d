"""Long-context bookkeeping: KV-cache bytes, attention FLOPs, GQA with RoPE, StreamingLLM positions, packing."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_ref.demos import DemoError, run_demo
from posenc_ref.longctx import (
    attention_score_flops,
    cu_seqlens_from_position_ids,
    document_causal_mask,
    gqa_attention,
    kv_cache_bytes,
    packed_position_ids,
    repeat_kv,
    rope_kernel_traffic,
    streaming_cache_positions,
)
from posenc_ref.rope import apply_rope


def test_kv_cache_bytes_of_known_models():
    assert kv_cache_bytes(32, 8, 128, 1) == 131072  # Llama 3 8B, bf16: 128 KiB per token
    assert kv_cache_bytes(32, 8, 128, 131072) == 16 * 2**30
    assert kv_cache_bytes(32, 32, 128, 4096) == 2 * 2**30  # Llama 2 7B (MHA), fp16
    assert kv_cache_bytes(80, 8, 128, 1) == 320 * 1024  # Llama 2 70B
    assert kv_cache_bytes(32, 8, 128, 10, batch=3, bytes_per_element=1) == 3 * 10 * 131072 // 2
    with pytest.raises(ValueError, match="n_kv_heads must be a positive integer"):
        kv_cache_bytes(32, 0, 128, 1)


def test_rope_kernel_traffic_of_an_8k_llama3_8b_prefill():
    """q: 8192 × 4096 × 2 B = 64 MiB, k: 8192 × 1024 × 2 B = 16 MiB, read and written once: 160 MiB."""
    mib = 2**20
    cost = rope_kernel_traffic(8192, 32, 8, 128)
    assert (cost["q_bytes"], cost["k_bytes"]) == (64 * mib, 16 * mib)
    assert cost["traffic_bytes"] == 160 * mib
    assert cost["flops"] == 3 * 8192 * (4096 + 1024)
    assert cost["intensity"] == pytest.approx(0.75)  # 3 FLOPs per element over 2 × 2 bytes
    assert rope_kernel_traffic(8192, 32, 8, 128, bytes_per_element=4)["intensity"] == pytest.approx(0.375)
    assert rope_kernel_traffic(1, 32, 8, 128)["traffic_bytes"] == 20 * 1024  # one decode token
    assert cost["table_bytes"] == 4 * mib  # cos and sin, [8192, 128] bf16 each
    with pytest.raises(ValueError, match="n_kv_heads must be a positive integer"):
        rope_kernel_traffic(1, 32, 0, 128)


def test_attention_flops_count_the_visible_pairs():
    assert attention_score_flops(1, 1, 1, 4, causal=False) == 4 * 16
    assert attention_score_flops(1, 1, 1, 4) == 4 * 10  # 4 + 3 + 2 + 1 visible pairs
    assert attention_score_flops(32, 32, 128, 131072) / attention_score_flops(
        32, 32, 128, 65536
    ) == pytest.approx(4.0, abs=1e-4)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(8, 8), (8, 4), (8, 2), (8, 1), (6, 3)]), st.integers(0, 2**31 - 1))
def test_gqa_with_rope_equals_per_head_attention_and_rotation_commutes(heads_kv, seed):
    heads, kv_heads = heads_kv
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, 7, 8, generator=gen, dtype=torch.float64)
    k = torch.randn(1, kv_heads, 7, 8, generator=gen, dtype=torch.float64)
    v = torch.randn(1, kv_heads, 7, 8, generator=gen, dtype=torch.float64)
    group = heads // kv_heads
    torch.testing.assert_close(
        apply_rope(repeat_kv(k, group)), repeat_kv(apply_rope(k), group), rtol=0, atol=0
    )
    out = gqa_attention(apply_rope(q), apply_rope(k), v)
    for h in range(heads):
        single = gqa_attention(
            apply_rope(q)[:, h : h + 1],
            apply_rope(k)[:, h // group : h // group + 1],
            v[:, h // group : h // group + 1],
        )
        torch.testing.assert_close(out[:, h : h + 1], single, rtol=0, atol=1e-12)


def test_gqa_refuses_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="multiple of kv heads"):
        gqa_attention(torch.zeros(1, 6, 2, 4), torch.zeros(1, 4, 2, 4), torch.zeros(1, 4, 2, 4))


def test_streaming_positions_follow_the_cache_not_the_text():
    original, cache, query = streaming_cache_positions(9, n_sink=4, window=3)
    assert original.tolist() == [0, 1, 2, 3, 6, 7, 8]  # the paper's example
    assert cache.tolist() == [0, 1, 2, 3, 4, 5, 6] and query == 7
    original, cache, query = streaming_cache_positions(3, n_sink=4, window=10)
    assert original.tolist() == [0, 1, 2] and query == 3  # nothing evicted yet


def test_packing_positions_and_boundaries():
    position_ids, cu = packed_position_ids([3, 5, 2])
    assert position_ids.tolist() == [0, 1, 2, 0, 1, 2, 3, 4, 0, 1]
    assert cu.tolist() == [0, 3, 8, 10] and cu.dtype == np.int32
    assert cu_seqlens_from_position_ids(position_ids).tolist() == [0, 3, 8, 10]
    mask = document_causal_mask([2, 1])
    assert mask.tolist() == [[True, False, False], [True, True, False], [False, False, True]]
    with pytest.raises(ValueError, match="at least one document"):
        packed_position_ids([])


def test_the_three_demos_pass_and_report_the_bank_numbers():
    kv = run_demo("kv-cache-memory", {}, device="cpu")
    assert kv.passed and kv.values["cache_gib"] == 16 and kv.values["mha_cache_gib"] == 64
    assert kv.values["score_matrix_gib"] == 1024
    streaming = run_demo("streaming-positions", {}, device="cpu")
    assert streaming.passed and streaming.values["query_position"] == 1024
    assert streaming.values["max_original_distance"] == 5000
    packing = run_demo("packing-positions", {"lengths": "3,5,2"}, device="cpu")
    assert packing.passed and packing.values["last_position_id"] == 1
    assert packing.values["leak_error"] > 1.0 and packing.values["no_reset_error"] < 1e-12


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("kv-cache-memory", {"n_heads": 32, "n_kv_heads": 12}, "must be a multiple of n_kv_heads"),
        ("kv-cache-memory", {"n_heads": 8, "n_kv_heads": 16}, "n_kv_heads"),
        ("packing-positions", {"lengths": "3,x"}, "comma-separated integers"),
        ("packing-positions", {"lengths": "300"}, r"lengths in \[1, 256\]"),
    ],
)
def test_bad_requests_are_one_line_errors(name, params, message):
    with pytest.raises(DemoError, match=message):
        run_demo(name, params, device="cpu")
