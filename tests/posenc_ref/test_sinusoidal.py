"""Sinusoidal PE: known values, layouts, frequency rules, the shift matrix, textbook vs fast."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_ref import (
    sinusoidal_frequencies_np,
    sinusoidal_pe,
    sinusoidal_pe_np,
    sinusoidal_shift,
    sinusoidal_shift_np,
    sinusoidal_wavelengths,
)

even_dims = st.integers(1, 32).map(lambda n: 2 * n)
bases = st.sampled_from([100.0, 10000.0, 500000.0])
layouts = st.sampled_from(["interleaved", "concat"])
rules = st.sampled_from(["paper", "tensor2tensor"])


def test_known_values_interleaved():
    pe = sinusoidal_pe_np(6, 4)
    # position 0: sin 0 = 0 on even dims, cos 0 = 1 on odd dims
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    # d = 4: ω_0 = 1, ω_1 = 10000^(-2/4) = 0.01
    assert pe[1, 0] == pytest.approx(0.8414709848078965, abs=1e-15)  # sin 1
    assert pe[1, 1] == pytest.approx(0.5403023058681398, abs=1e-15)  # cos 1
    assert pe[2, 2] == pytest.approx(0.019998666693333080, abs=1e-15)  # sin 0.02
    assert pe[2, 3] == pytest.approx(0.9998000066665778, abs=1e-15)  # cos 0.02
    assert pe[5, 0] == pytest.approx(-0.9589242746631385, abs=1e-15)  # sin 5


def test_known_values_d512():
    pe = sinusoidal_pe(101, 512, dtype=torch.float64)
    # PE[100, 2i] = sin(100 / 10000^(2i/512)) at i = 64: 10000^(0.25) = 10
    assert float(pe[100, 128]) == pytest.approx(math.sin(10.0), abs=1e-12)
    assert float(pe[100, 129]) == pytest.approx(math.cos(10.0), abs=1e-12)
    # i = 128: 10000^(0.5) = 100 -> angle 1
    assert float(pe[100, 256]) == pytest.approx(0.8414709848078965, abs=1e-12)


def test_fast_defaults_float32_cpu():
    pe = sinusoidal_pe(8, 16)
    assert pe.dtype == torch.float32 and pe.device.type == "cpu" and pe.shape == (8, 16)
    assert sinusoidal_pe(8, 16, dtype="float64").dtype == torch.float64


def test_concat_paper_is_a_column_permutation_of_interleaved():
    inter = sinusoidal_pe_np(20, 12)
    concat = sinusoidal_pe_np(20, 12, layout="concat")
    assert np.array_equal(concat[:, :6], inter[:, 0::2])
    assert np.array_equal(concat[:, 6:], inter[:, 1::2])


def test_tensor2tensor_rule_matches_fairseq_formula():
    # fairseq: emb = exp(arange(half) * -(log(10000) / (half - 1))); cat(sin(p·emb), cos(p·emb))
    dim, half = 512, 256
    inv = np.exp(np.arange(half) * -(math.log(10000.0) / (half - 1)))
    p = np.arange(30)[:, None]
    expected = np.concatenate([np.sin(p * inv), np.cos(p * inv)], axis=1)
    got = sinusoidal_pe(30, dim, layout="concat", frequencies="tensor2tensor", dtype=torch.float64).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-12)
    t2t = sinusoidal_frequencies_np(dim, frequencies="tensor2tensor")
    paper = sinusoidal_frequencies_np(dim)
    assert t2t[-1] == pytest.approx(1e-4, rel=1e-12)
    assert paper[-1] == pytest.approx(10000 ** (-510 / 512), rel=1e-12)
    assert np.abs(t2t / paper - 1).max() == pytest.approx(0.0353, abs=5e-4)  # the 3.5% of the notes


def test_offset_shifts_positions():
    full = sinusoidal_pe_np(10, 8)
    np.testing.assert_allclose(sinusoidal_pe_np(4, 8, offset=3), full[3:7], atol=0)
    np.testing.assert_allclose(sinusoidal_pe(4, 8, offset=3, dtype="float64").numpy(), full[3:7], atol=1e-15)


def test_wavelengths():
    wl = sinusoidal_wavelengths(512)
    assert wl[0] == pytest.approx(2 * math.pi)
    assert wl[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    ratios = wl[1:] / wl[:-1]
    np.testing.assert_allclose(ratios, 10000 ** (2 / 512), rtol=1e-12)
    assert sinusoidal_wavelengths(512, frequencies="tensor2tensor")[-1] == pytest.approx(2 * math.pi * 10000)


def test_shift_block_is_rotation_by_minus_omega_k():
    k, dim = 3, 8
    m = sinusoidal_shift_np(k, dim)
    omega = sinusoidal_frequencies_np(dim)
    for i in range(dim // 2):
        c, s = math.cos(omega[i] * k), math.sin(omega[i] * k)
        block = m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        np.testing.assert_allclose(block, [[c, s], [-s, c]], atol=1e-15)
    # block-diagonal: nothing outside the 2x2 blocks
    mask = np.kron(np.eye(dim // 2), np.ones((2, 2))).astype(bool)
    assert np.all(m[~mask] == 0)


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(-300, 300),
    p=st.integers(-50, 500),
    dim=even_dims,
    base=bases,
    layout=layouts,
    rule=rules,
)
def test_shift_property(k, p, dim, base, layout, rule):
    pe = sinusoidal_pe_np(1, dim, base=base, layout=layout, frequencies=rule, offset=p)[0]
    pe_k = sinusoidal_pe_np(1, dim, base=base, layout=layout, frequencies=rule, offset=p + k)[0]
    m = sinusoidal_shift_np(k, dim, base=base, layout=layout, frequencies=rule)
    np.testing.assert_allclose(m @ pe, pe_k, atol=1e-9)
    fast = sinusoidal_shift(k, dim, base=base, layout=layout, frequencies=rule, dtype=torch.float64)
    np.testing.assert_allclose(fast.numpy(), m, atol=1e-12)
    np.testing.assert_allclose(fast.numpy() @ fast.numpy().T, np.eye(dim), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seq_len=st.integers(1, 40),
    dim=even_dims,
    base=bases,
    layout=layouts,
    rule=rules,
    offset=st.integers(0, 2000),
)
def test_textbook_and_fast_agree(seq_len, dim, base, layout, rule, offset):
    slow = sinusoidal_pe_np(seq_len, dim, base=base, layout=layout, frequencies=rule, offset=offset)
    fast = sinusoidal_pe(seq_len, dim, base=base, layout=layout, frequencies=rule, offset=offset)
    assert fast.dtype == torch.float32
    np.testing.assert_allclose(fast.double().numpy(), slow, atol=1e-5)


def test_shift_fast_float32_on_a_table():
    pe = sinusoidal_pe(200, 64)
    m = sinusoidal_shift(7, 64)
    torch.testing.assert_close(pe[:-7] @ m.T, pe[7:], atol=1e-5, rtol=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dim": 7}, "even"),
        ({"dim": 0}, "even"),
        ({"dim": 8, "layout": "halves"}, "layout"),
        ({"dim": 8, "frequencies": "fairseq"}, "frequencies"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sinusoidal_pe_np(4, **kwargs)
    with pytest.raises(ValueError, match=message):
        sinusoidal_pe(4, **kwargs)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_matches_cpu():
    cpu = sinusoidal_pe(64, 32)
    gpu = sinusoidal_pe(64, 32, device="cuda")
    assert gpu.device.type == "cuda"
    torch.testing.assert_close(gpu.cpu(), cpu, atol=1e-6, rtol=0)
