"""RoPE scaling rules: HF-equal numbers derived by hand, torch vs numpy, errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import posenc_ref.rope_scaling as rope_scaling_module
from posenc_ref.rope import apply_rope, rope_inv_freq
from posenc_ref.rope_scaling import (
    ROPE_SCALING_RULES,
    ROPE_TYPES,
    ScalingRule,
    llama3_frequency_bands,
    rope_scaled_inv_freq,
    rope_scaled_inv_freq_np,
    yarn_correction_range,
    yarn_get_mscale,
)

LLAMA31 = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def _default(dim: int, base: float) -> torch.Tensor:
    return rope_scaled_inv_freq(dim, base=base)[0]


def test_rope_types():
    assert ROPE_TYPES == ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
    assert tuple(ROPE_SCALING_RULES) == ROPE_TYPES


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_every_rule_names_its_paper_and_config_keys(rope_type):
    rule = ROPE_SCALING_RULES[rope_type]
    assert rule.name == rope_type and set(rule.required) <= set(rule.params)
    assert re.search(r"\b20\d\d\b", rule.doc), f"{rope_type}: the docstring names no paper (year)"
    missing = [key for key in rule.params if not re.search(f"``{key}(=[^`]*)?``", rule.doc)]
    assert not missing, f"{rope_type}: the docstring does not name {missing}"
    assert f"| {rope_type} " in rope_scaling_module.__doc__  # the module's table of rules


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_every_rule_example_runs_the_same_in_torch_and_numpy(rope_type):
    rule = ROPE_SCALING_RULES[rope_type]
    dim = rope_scaling_module.EXAMPLE_DIM
    fast, attention = rope_scaled_inv_freq(dim, base=500000.0, rope_type=rope_type, **rule.example)
    textbook, attention_np = rope_scaled_inv_freq_np(dim, base=500000.0, rope_type=rope_type, **rule.example)
    np.testing.assert_allclose(fast.double().numpy(), textbook, rtol=2e-6)
    assert attention == pytest.approx(attention_np, rel=1e-15)


def test_a_rule_added_to_the_table_is_validated_and_dispatched(monkeypatch):
    """One record is the whole of a new rule: parameters, required keys, check, both forms."""

    def halve(dim, base, device=None, *, factor, **_):
        return rope_scaled_inv_freq(dim, base=base, device=device)[0] / (2 * factor), 1.0

    def halve_np(dim, base, *, factor, **_):
        return rope_scaled_inv_freq_np(dim, base=base)[0] / (2 * factor), 1.0

    def small(params):
        if params["factor"] > 8:
            raise ValueError("factor too large")

    rule = ScalingRule("halve", ("factor",), ("factor",), halve, halve_np, check=small)
    monkeypatch.setitem(ROPE_SCALING_RULES, "halve", rule)
    fast, _ = rope_scaled_inv_freq(8, rope_type="halve", factor=2.0)
    assert torch.equal(fast, _default(8, 10000.0) / 4.0)
    assert np.allclose(rope_scaled_inv_freq_np(8, rope_type="halve", factor=2.0)[0], fast.double().numpy())
    for call in (rope_scaled_inv_freq, rope_scaled_inv_freq_np):
        with pytest.raises(ValueError, match="needs factor"):
            call(8, rope_type="halve")
        with pytest.raises(ValueError, match="too large"):
            call(8, rope_type="halve", factor=9.0)
        with pytest.raises(ValueError, match="unknown parameter.*beta_fast"):
            call(8, rope_type="halve", factor=2.0, beta_fast=3)
    with pytest.raises(ValueError, match="valid rope types: .*longrope, halve"):
        rope_scaled_inv_freq(8, rope_type="quarter")


def test_default_equals_rope_inv_freq_bitwise():
    inv_freq, attention = rope_scaled_inv_freq(128, base=500000.0)
    assert torch.equal(inv_freq, rope_inv_freq(128, base=500000.0))
    assert attention == 1.0 and inv_freq.dtype == torch.float32


def test_linear_divides_every_frequency_by_the_factor():
    inv_freq, attention = rope_scaled_inv_freq(64, rope_type="linear", factor=4.0)
    assert torch.equal(inv_freq, _default(64, 10000.0) / 4.0)
    assert attention == 1.0


def test_static_ntk_keeps_first_pair_and_divides_the_last_by_factor():
    inv_freq, _ = rope_scaled_inv_freq(128, rope_type="ntk", factor=8.0)
    ratio = (inv_freq.double() / _default(128, 10000.0).double()).numpy()
    assert ratio[0] == 1.0
    assert ratio[-1] == pytest.approx(1 / 8, rel=1e-6)
    assert np.all(np.diff(ratio) < 0)  # monotone: high frequencies move least
    # base' = base · factor^(d/(d-2))
    assert float(inv_freq[1]) == pytest.approx((10000.0 * 8.0 ** (128 / 126)) ** (-2 / 128), rel=1e-6)


def test_dynamic_ntk_is_default_inside_the_trained_length():
    params = {"factor": 2.0, "max_position_embeddings": 4096}
    for seq_len in (None, 100, 4096):
        inv_freq, _ = rope_scaled_inv_freq(128, rope_type="dynamic", seq_len=seq_len, **params)
        assert torch.equal(inv_freq, _default(128, 10000.0))


def test_dynamic_ntk_base_grows_with_the_length():
    # L = 8192 = 2 · max_pos, factor 2: base' = 10000 · (2·2 − 1)^(128/126) = 30527.7367...
    inv_freq, attention = rope_scaled_inv_freq(
        128, rope_type="dynamic", factor=2.0, max_position_embeddings=4096, seq_len=8192
    )
    base = 30527.7367488067
    assert float(inv_freq[1]) == pytest.approx(base ** (-2 / 128), rel=1e-6)
    assert float(inv_freq[-1]) == pytest.approx(base ** (-126 / 128), rel=1e-6)
    assert attention == 1.0


def test_yarn_correction_range_by_hand():
    # d · ln(L / (2π · rotations)) / (2 ln base): 20.94 -> floor 20 at 32 rotations, 45.03 -> ceil 46 at 1
    assert yarn_correction_range(128, base=10000.0, original_max_position_embeddings=4096) == (20, 46)
    assert yarn_correction_range(128, base=500000.0, original_max_position_embeddings=8192) == (18, 35)
    low, high = yarn_correction_range(
        128, base=10000.0, original_max_position_embeddings=4096, truncate=False
    )
    assert low == pytest.approx(20.94448162063605) and high == pytest.approx(45.02688127375455)
    # HF clamps high to dim - 1 (not dim/2 - 1) and never clamps low from above
    assert yarn_correction_range(16, base=2.0, original_max_position_embeddings=10**7) == (124, 15)


def test_yarn_ramp_and_attention_factor():
    inv_freq, attention = rope_scaled_inv_freq(
        128, rope_type="yarn", factor=4.0, original_max_position_embeddings=4096
    )
    ratio = (inv_freq.double() / _default(128, 10000.0).double()).numpy()
    np.testing.assert_allclose(ratio[:21], 1.0, rtol=1e-6)  # pairs <= low keep θ
    np.testing.assert_allclose(ratio[46:], 0.25, rtol=1e-6)  # pairs >= high use θ / factor
    assert ratio[33] == pytest.approx(0.5 * 1 + 0.5 * 0.25, rel=1e-6)  # (33 − 20) / (46 − 20) = 1/2
    assert attention == pytest.approx(0.1 * math.log(4.0) + 1.0) == pytest.approx(1.138629436111989)


def test_yarn_defaults_and_options():
    a, _ = rope_scaled_inv_freq(64, rope_type="yarn", factor=4.0, original_max_position_embeddings=2048)
    b, _ = rope_scaled_inv_freq(
        64, rope_type="yarn", factor=4.0, original_max_position_embeddings=2048, beta_fast=32, beta_slow=1
    )
    assert torch.equal(a, b)
    # factor defaults to max_position_embeddings / original_max_position_embeddings (DeepSeek-V3 style)
    c, attention = rope_scaled_inv_freq(
        64, rope_type="yarn", max_position_embeddings=8192, original_max_position_embeddings=2048
    )
    assert torch.equal(a, c) and attention == pytest.approx(0.1 * math.log(4.0) + 1)
    # original_max_position_embeddings defaults to max_position_embeddings
    d, _ = rope_scaled_inv_freq(64, rope_type="yarn", factor=4.0, max_position_embeddings=2048)
    assert torch.equal(a, d)
    # an explicit attention_factor wins; mscale == mscale_all_dim cancels to 1 (DeepSeek-V3)
    assert (
        rope_scaled_inv_freq(
            64, rope_type="yarn", factor=4.0, max_position_embeddings=2048, attention_factor=0.5
        )[1]
        == 0.5
    )
    _, ds = rope_scaled_inv_freq(
        64, rope_type="yarn", factor=40.0, max_position_embeddings=4096, mscale=1.0, mscale_all_dim=1.0
    )
    assert ds == 1.0
    _, ratio = rope_scaled_inv_freq(
        64, rope_type="yarn", factor=40.0, max_position_embeddings=4096, mscale=1.0, mscale_all_dim=0.5
    )
    assert ratio == pytest.approx((0.1 * math.log(40) + 1) / (0.05 * math.log(40) + 1))
    assert yarn_get_mscale(1.0) == 1.0 and yarn_get_mscale(8.0) == pytest.approx(1.2079441541679836)


def test_llama3_counts_and_bands():
    assert llama3_frequency_bands(128) == {"kept": 29, "blended": 6, "scaled": 29}
    inv_freq, attention = rope_scaled_inv_freq(128, base=500000.0, rope_type="llama3", **LLAMA31)
    ratio = (inv_freq.double() / _default(128, 500000.0).double()).numpy()
    np.testing.assert_allclose(ratio[:29], 1.0, rtol=1e-7)
    np.testing.assert_allclose(ratio[35:], 1 / 8, rtol=1e-6)
    # blended pair 31: λ = 2π/θ = 3619.249, s = (8192/λ − 1)/3 = 0.421151, ratio = (1 − s)/8 + s
    assert ratio[31] == pytest.approx(0.49350712273197106, rel=1e-5)
    assert ratio[29] == pytest.approx(0.8281684118371798, rel=1e-5)
    assert np.all(np.diff(ratio[28:36]) < 0)
    assert attention == 1.0


def test_longrope_short_and_long_factors():
    short = [1.0] * 32
    long = list(np.linspace(1.0, 16.0, 32))
    params = {
        "short_factor": short,
        "long_factor": long,
        "original_max_position_embeddings": 4096,
        "max_position_embeddings": 131072,
    }
    inv_short, attention = rope_scaled_inv_freq(64, rope_type="longrope", seq_len=4096, **params)
    inv_long, _ = rope_scaled_inv_freq(64, rope_type="longrope", seq_len=4097, **params)
    base = _default(64, 10000.0)
    torch.testing.assert_close(inv_short, base)
    torch.testing.assert_close(inv_long, base / torch.tensor(long, dtype=torch.float32))
    # factor = 131072 / 4096 = 32: sqrt(1 + ln 32 / ln 4096)
    assert attention == pytest.approx(1.1902380714238083)


@pytest.mark.parametrize(
    ("rope_type", "params"),
    [
        ("default", {}),
        ("linear", {"factor": 4.0}),
        ("ntk", {"factor": 4.0}),
        ("dynamic", {"factor": 4.0, "max_position_embeddings": 2048, "seq_len": 10000}),
        ("yarn", {"factor": 16.0, "original_max_position_embeddings": 4096}),
        ("yarn", {"factor": 16.0, "original_max_position_embeddings": 4096, "truncate": False}),
        ("llama3", LLAMA31),
        (
            "longrope",
            {
                "short_factor": [1.5] * 64,
                "long_factor": [3.0] * 64,
                "factor": 4.0,
                "original_max_position_embeddings": 4096,
                "seq_len": 5000,
            },
        ),
    ],
)
def test_torch_matches_numpy_textbook(rope_type, params):
    fast, attention = rope_scaled_inv_freq(128, base=500000.0, rope_type=rope_type, **params)
    textbook, attention_np = rope_scaled_inv_freq_np(128, base=500000.0, rope_type=rope_type, **params)
    assert textbook.dtype == np.float64 and fast.shape == textbook.shape == (64,)
    np.testing.assert_allclose(fast.double().numpy(), textbook, rtol=2e-6)
    assert attention == pytest.approx(attention_np, rel=1e-15)


@given(
    dim=st.integers(2, 64).map(lambda h: 2 * h),
    base=st.sampled_from([10000.0, 500000.0, 1e6]),
    factor=st.floats(1.0, 64.0),
    original=st.sampled_from([2048, 4096, 8192, 32768]),
    rope_type=st.sampled_from(["linear", "ntk", "dynamic", "yarn", "llama3"]),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_torch_matches_numpy_property(dim, base, factor, original, rope_type):
    params = {
        "linear": {"factor": factor},
        "ntk": {"factor": factor},
        "dynamic": {"factor": factor, "max_position_embeddings": original, "seq_len": 3 * original},
        "yarn": {"factor": factor, "original_max_position_embeddings": original},
        "llama3": {**LLAMA31, "factor": factor, "original_max_position_embeddings": original},
    }[rope_type]
    fast, _ = rope_scaled_inv_freq(dim, base=base, rope_type=rope_type, **params)
    textbook, _ = rope_scaled_inv_freq_np(dim, base=base, rope_type=rope_type, **params)
    # float32 (as HF computes it) against float64: base**(2i/d) at base 1e6 loses ~40 ulp (5.01e-6 seen)
    np.testing.assert_allclose(fast.double().numpy(), textbook, rtol=1e-5)
    # every rule only ever slows frequencies down, by at most the factor
    ratio = fast.double().numpy() / rope_scaled_inv_freq_np(dim, base=base)[0]
    assert np.all(ratio <= 1 + 5e-6)
    if rope_type != "dynamic":  # dynamic NTK at 3x the trained length may go below 1/factor
        assert np.all(ratio >= (1 - 5e-6) / factor)


def test_scaled_frequencies_drive_apply_rope():
    x = torch.randn(2, 12, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    inv_freq, _ = rope_scaled_inv_freq(16, rope_type="linear", factor=4.0)  # float32, like HF
    torch.testing.assert_close(
        apply_rope(x, inv_freq=inv_freq), apply_rope(x, torch.arange(12) / 4.0), rtol=0, atol=1e-6
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"rope_type": "ntk-by-parts"},
            "valid rope types: default, linear, ntk, dynamic, yarn, llama3, longrope",
        ),
        ({"rope_type": "linear"}, "needs factor"),
        (
            {"rope_type": "linear", "factor": 2.0, "beta_fast": 32},
            "unknown parameter.*beta_fast.*valid parameters: factor",
        ),
        ({"rope_type": "default", "factor": 2.0}, "unknown parameter"),
        ({"rope_type": "linear", "factor": 0.0}, "factor must be"),
        ({"rope_type": "dynamic", "factor": 2.0}, "original_max_position_embeddings"),
        ({"rope_type": "yarn", "factor": 2.0}, "original_max_position_embeddings"),
        ({"rope_type": "llama3", "factor": 8.0}, "needs low_freq_factor, high_freq_factor"),
        ({"rope_type": "llama3", **LLAMA31, "high_freq_factor": 1.0}, "high_freq_factor != low_freq_factor"),
        (
            {
                "rope_type": "longrope",
                "short_factor": [1.0],
                "long_factor": [1.0],
                "original_max_position_embeddings": 4096,
                "factor": 2.0,
            },
            "list of 64 numbers",
        ),
    ],
)
def test_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rope_scaled_inv_freq(128, **kwargs)
    with pytest.raises(ValueError, match=message):
        rope_scaled_inv_freq_np(128, **kwargs)


def test_odd_dim_is_rejected():
    with pytest.raises(ValueError, match="even"):
        rope_scaled_inv_freq(127)
