"""RoPE: known numbers, textbook vs fast, properties, layouts, cache, errors, dtypes, autograd."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_ref.rope import (
    apply_rope,
    apply_rope_np,
    apply_rope_textbook,
    half_to_interleaved_permutation,
    interleaved_to_half_permutation,
    rope_cache_clear,
    rope_cache_info,
    rope_cos_sin,
    rope_inv_freq,
    rope_inv_freq_np,
    rope_rotation_matrix_np,
    rotate_every_two,
    rotate_half,
)

LAYOUTS = ["half", "interleaved"]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EPS32 = float(np.finfo(np.float32).eps)

dims = st.integers(1, 16).map(lambda h: 2 * h)
bases = st.sampled_from([10.0, 500.0, 10000.0, 500000.0, 1e6])
layouts = st.sampled_from(LAYOUTS)


def _x(seed: int, *shape: int, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# --------------------------------------------------------------------------- frequencies


def test_inv_freq_known_values():
    np.testing.assert_allclose(rope_inv_freq_np(8), [1.0, 0.1, 0.01, 0.001], rtol=1e-15)
    np.testing.assert_allclose(rope_inv_freq_np(4, base=100.0), [1.0, 0.1], rtol=1e-15)
    np.testing.assert_allclose(rope_inv_freq(8).numpy(), [1.0, 0.1, 0.01, 0.001], rtol=1e-7)
    assert rope_inv_freq(128).dtype == torch.float32
    assert rope_inv_freq(128).shape == (64,)


def test_inv_freq_is_bitwise_hf_float32():
    # HF _compute_default_rope_parameters: 1.0 / (base ** (arange(0, dim, 2).float() / dim))
    for dim, base in [(128, 10000.0), (64, 500000.0), (96, 1e6)]:
        hf = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        assert torch.equal(rope_inv_freq(dim, base=base), hf)


def test_inv_freq_float64_matches_textbook():
    got = rope_inv_freq(128, base=500000.0, dtype=torch.float64).numpy()
    np.testing.assert_allclose(got, rope_inv_freq_np(128, base=500000.0), rtol=1e-15)


def test_inv_freq_odd_dim_uses_floor():
    # Meta / torchtune keep floor(d/2) frequencies; HF's arange(0, d, 2) would give ceil(d/2) = 4
    assert rope_inv_freq(7).shape == (3,)
    np.testing.assert_allclose(rope_inv_freq_np(7), [10000.0 ** (-2 * i / 7) for i in range(3)], rtol=1e-15)


@pytest.mark.parametrize("bad", [0, -2, 2.5, True])
def test_inv_freq_rejects_bad_dim(bad):
    with pytest.raises(ValueError, match="dim"):
        rope_inv_freq(bad)


def test_inv_freq_rejects_bad_base():
    with pytest.raises(ValueError, match="base"):
        rope_inv_freq(8, base=1.0)
    with pytest.raises(ValueError, match="base"):
        rope_inv_freq_np(8, base=float("inf"))


# --------------------------------------------------------------------------- textbook matrices


def test_rotation_matrix_known_2d():
    rot = rope_rotation_matrix_np(1, 2)
    np.testing.assert_allclose(rot, [[math.cos(1), -math.sin(1)], [math.sin(1), math.cos(1)]], rtol=1e-15)


def test_rotation_matrix_is_block_diagonal_in_interleaved_layout():
    rot = rope_rotation_matrix_np(3, 8)
    theta = rope_inv_freq_np(8)
    for i in range(4):
        block = rot[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        c, s = math.cos(3 * theta[i]), math.sin(3 * theta[i])
        np.testing.assert_allclose(block, [[c, -s], [s, c]], atol=1e-15)
    mask = np.kron(np.eye(4), np.ones((2, 2))) == 0
    assert np.all(rot[mask] == 0)


@given(m=st.integers(-500, 500), n=st.integers(-500, 500), dim=dims, base=bases)
@FAST
def test_rotation_matrices_compose_and_are_orthogonal(m, n, dim, base):
    rm, rn = rope_rotation_matrix_np(m, dim, base), rope_rotation_matrix_np(n, dim, base)
    np.testing.assert_allclose(rm @ rn, rope_rotation_matrix_np(m + n, dim, base), atol=1e-12)
    np.testing.assert_allclose(rm.T, rope_rotation_matrix_np(-m, dim, base), atol=1e-15)
    np.testing.assert_allclose(rm.T @ rm, np.eye(dim), atol=1e-13)


def test_half_matrix_is_permuted_interleaved_matrix():
    perm = half_to_interleaved_permutation(8).numpy()
    inter = rope_rotation_matrix_np(5, 8)
    half = rope_rotation_matrix_np(5, 8, layout="half")
    np.testing.assert_allclose(half, inter[np.ix_(perm, perm)], atol=1e-15)


def test_rotation_matrix_batched_positions():
    rots = rope_rotation_matrix_np(np.arange(4), 6)
    assert rots.shape == (4, 6, 6)
    np.testing.assert_allclose(rots[0], np.eye(6), atol=0)


# --------------------------------------------------------------------------- permutation


def test_permutation_known_values():
    assert half_to_interleaved_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert interleaved_to_half_permutation(8).tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    perm = half_to_interleaved_permutation(12)
    for r in range(2):
        for i in range(6):
            assert perm[r * 6 + i] == 2 * i + r  # hf[r*(d/2) + i] = meta[2i + r]
    assert torch.equal(perm[interleaved_to_half_permutation(12)], torch.arange(12))


@given(dim=dims, seq=st.integers(1, 12), base=bases, seed=st.integers(0, 10_000))
@FAST
def test_half_and_interleaved_agree_under_the_permutation(dim, seq, base, seed):
    x = _x(seed, 2, seq, dim)
    perm = half_to_interleaved_permutation(dim)
    meta = apply_rope(x, base=base, layout="interleaved")
    hf = apply_rope(x[..., perm], base=base, layout="half")
    torch.testing.assert_close(meta[..., perm], hf, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- textbook vs fast


@given(dim=dims, seq=st.integers(1, 10), base=bases, layout=layouts, seed=st.integers(0, 10_000))
@FAST
def test_fast_float64_equals_textbook(dim, seq, base, layout, seed):
    x = _x(seed, 3, seq, dim)
    got = apply_rope(x, base=base, layout=layout).numpy()
    want = apply_rope_np(x.numpy(), base=base, layout=layout)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@given(
    dim=dims,
    offset=st.integers(0, 200_000),
    base=bases,
    layout=layouts,
    seed=st.integers(0, 10_000),
)
@FAST
def test_fast_float32_agrees_with_textbook_within_position_scaled_tolerance(dim, offset, base, layout, seed):
    x = _x(seed, 4, dim)
    positions = [offset, offset + 1, offset + 7, offset + 100]
    got = apply_rope(x.float(), positions, base=base, layout=layout).double().numpy()
    want = apply_rope_np(x.numpy(), positions, base=base, layout=layout)
    # float32 angles carry about 2·m·ε of error: the tolerance grows with the position
    tol = 1e-5 + 4 * EPS32 * (offset + 100) * float(x.abs().max())
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def test_precision_of_float32_angles_matches_the_known_figures():
    theta32, theta64 = rope_inv_freq(128), rope_inv_freq_np(128)
    errors = {}
    for p in (100, 32768, 131072):
        cos32 = (torch.tensor(float(p)) * theta32).cos().double().numpy()
        errors[p] = np.abs(cos32 - np.cos(p * theta64)).max()
    assert 1e-6 < errors[100] < 1e-5  # about 3e-6
    assert 5e-4 < errors[32768] < 2e-3  # about 8.5e-4
    assert 2e-3 < errors[131072] < 6e-3  # about 3.4e-3


@pytest.mark.parametrize("layout", LAYOUTS)
def test_textbook_torch_form_equals_fast_form(layout):
    x = _x(0, 2, 3, 10, 16)
    cos, sin = rope_cos_sin(10, 16, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(apply_rope_textbook(x, cos, sin, layout), apply_rope(x, layout=layout))


def test_rotate_helpers():
    x = torch.arange(1.0, 7.0)
    assert rotate_half(x).tolist() == [-4.0, -5.0, -6.0, 1.0, 2.0, 3.0]
    assert rotate_every_two(x).tolist() == [-2.0, 1.0, -4.0, 3.0, -6.0, 5.0]


def test_known_rotation_of_a_unit_vector():
    # d = 4, base 10000: θ = [1, 0.01]; at position 1, pair (0, 1) turns by 1 rad and (2, 3) by 0.01
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    y = apply_rope(x, layout="interleaved")
    want = [[1, 0, 1, 0], [math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)]]
    torch.testing.assert_close(y, torch.tensor(want, dtype=torch.float64))
    # the same vector in half layout pairs channel i with i + 2
    y = apply_rope(torch.tensor([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]], dtype=torch.float64))
    want = [[0, 0, 0, 0], [math.cos(1), math.cos(0.01), math.sin(1), math.sin(0.01)]]
    torch.testing.assert_close(y, torch.tensor(want, dtype=torch.float64))


# --------------------------------------------------------------------------- properties


@given(dim=dims, seq=st.integers(1, 16), base=bases, layout=layouts, seed=st.integers(0, 10_000))
@FAST
def test_norm_is_preserved(dim, seq, base, layout, seed):
    x = _x(seed, seq, dim)
    y = apply_rope(x, torch.arange(seq) * 37, base=base, layout=layout)
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1), rtol=1e-12, atol=0)


@given(
    m=st.integers(0, 100_000),
    n=st.integers(0, 100_000),
    dim=dims,
    base=bases,
    layout=layouts,
    seed=st.integers(0, 10_000),
)
@FAST
def test_score_depends_only_on_the_offset(m, n, dim, base, layout, seed):
    q, k = _x(seed, 1, dim), _x(seed + 1, 1, dim)
    score = (
        apply_rope(q, [m], base=base, layout=layout) * apply_rope(k, [n], base=base, layout=layout)
    ).sum()
    relative = (apply_rope(q, [m - n], base=base, layout=layout) * k).sum()
    tol = 1e-9 + 8e-16 * (1 + max(m, n)) * float(q.norm() * k.norm())
    assert abs(float(score - relative)) <= tol


# --------------------------------------------------------------------------- apply_rope API


@pytest.mark.parametrize("layout", LAYOUTS)
def test_returns_a_new_tensor_and_leaves_x_alone(layout):
    x = _x(1, 2, 5, 8, dtype=torch.float32)
    before = x.clone()
    y = apply_rope(x, layout=layout)
    assert y.shape == x.shape and y.dtype == x.dtype
    assert y.data_ptr() != x.data_ptr()
    assert torch.equal(x, before)
    y.zero_()
    assert torch.equal(x, before)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_forms_agree(layout):
    x = _x(2, 3, 6, 8)
    default = apply_rope(x, layout=layout)
    for positions in (list(range(6)), range(6), torch.arange(6), np.arange(6), torch.arange(6.0)):
        torch.testing.assert_close(apply_rope(x, positions, layout=layout), default, rtol=0, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_zero_is_identity(layout):
    x = _x(3, 4, 8)
    torch.testing.assert_close(apply_rope(x, [0, 0, 0, 0], layout=layout), x, rtol=0, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_batched_positions_broadcast(layout):
    x = _x(4, 2, 3, 5, 8)  # [batch, heads, seq, dim]
    positions = torch.tensor([[0, 1, 2, 3, 4], [10, 11, 12, 13, 14]]).unsqueeze(1)  # [batch, 1, seq]
    y = apply_rope(x, positions, layout=layout)
    torch.testing.assert_close(y[0], apply_rope(x[0], range(5), layout=layout))
    torch.testing.assert_close(y[1], apply_rope(x[1], range(10, 15), layout=layout))
    want = apply_rope_np(x.numpy(), positions.numpy(), layout=layout)
    np.testing.assert_allclose(y.numpy(), want, atol=1e-12)


def test_fractional_and_negative_positions():
    x = _x(5, 3, 6)
    y = apply_rope(x, [-2.0, 0.5, 3.25])
    np.testing.assert_allclose(y.numpy(), apply_rope_np(x.numpy(), [-2.0, 0.5, 3.25]), atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_custom_inv_freq_is_position_interpolation(layout):
    x = _x(6, 2, 9, 8)
    half_freq = rope_inv_freq(8, dtype=torch.float64) / 2
    torch.testing.assert_close(
        apply_rope(x, inv_freq=half_freq, layout=layout),
        apply_rope(x, torch.arange(9) / 2, layout=layout),
        rtol=0,
        atol=1e-12,
    )


def test_inv_freq_may_be_a_plain_list():
    x = _x(13, 3, 5, 8)
    as_list = rope_inv_freq(8, dtype=torch.float64).tolist()
    torch.testing.assert_close(apply_rope(x, inv_freq=as_list), apply_rope(x), rtol=0, atol=0)
    with pytest.raises(ValueError, match="seq_len must be >= 0"):
        rope_cos_sin(-1, 8)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_attention_factor_scales_the_output(layout):
    x = _x(7, 4, 8)
    torch.testing.assert_close(
        apply_rope(x, layout=layout, attention_factor=1.25), 1.25 * apply_rope(x, layout=layout)
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_non_contiguous_input(layout):
    x = _x(8, 8, 6, 3).transpose(0, 2)  # [3, 6, 8], non-contiguous
    assert not x.is_contiguous()
    torch.testing.assert_close(apply_rope(x, layout=layout), apply_rope(x.contiguous(), layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_dtypes(layout, dtype):
    x = _x(9, 2, 12, 16, dtype=torch.float32)
    y = apply_rope(x.to(dtype), layout=layout)
    assert y.dtype == dtype
    torch.testing.assert_close(y.float(), apply_rope(x, layout=layout), rtol=0, atol=5e-2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradient_is_the_inverse_rotation(layout):
    x = _x(10, 2, 5, 8).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: apply_rope(t, layout=layout), (x,))
    g = _x(11, 2, 5, 8)
    (grad,) = torch.autograd.grad(apply_rope(x, layout=layout), x, g)
    # RoPE is orthogonal, so the backward pass rotates by -m: R(m)^T g = R(-m) g
    torch.testing.assert_close(grad, apply_rope(g, -torch.arange(5), layout=layout))


def test_zero_length_sequence():
    x = torch.zeros(2, 0, 8)
    assert apply_rope(x).shape == (2, 0, 8)
    assert apply_rope(x, layout="interleaved").shape == (2, 0, 8)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x": torch.zeros(4, 7)}, "even"),
        ({"x": torch.zeros(8)}, r"\[\.\.\., seq, dim\]"),
        ({"x": torch.zeros(4, 8, dtype=torch.int64)}, "floating"),
        ({"x": np.zeros((4, 8))}, "torch.Tensor"),
        ({"x": torch.zeros(4, 8), "layout": "neox"}, "valid layouts: half, interleaved"),
        ({"x": torch.zeros(4, 8), "positions": [0, 1, 2]}, "3 entries but x has seq_len 4"),
        ({"x": torch.zeros(4, 8), "positions": 3}, "sequence"),
        ({"x": torch.zeros(4, 8), "positions": torch.tensor(3)}, "scalar"),
        ({"x": torch.zeros(2, 3, 4, 8), "positions": torch.zeros(2, 4)}, "broadcast"),
        ({"x": torch.zeros(4, 8), "positions": torch.zeros(2, 4)}, "broadcast"),
        ({"x": torch.zeros(4, 8), "inv_freq": torch.ones(3)}, r"shape \[4\]"),
        ({"x": torch.zeros(4, 8), "base": 0.5}, "base"),
    ],
)
def test_apply_rope_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        apply_rope(**kwargs)


def test_numpy_textbook_errors():
    with pytest.raises(ValueError, match="even"):
        apply_rope_np(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="seq_len 3"):
        apply_rope_np(np.zeros((3, 4)), [0, 1])
    with pytest.raises(ValueError, match="valid layouts"):
        rope_rotation_matrix_np(0, 4, layout="gptj")
    with pytest.raises(ValueError, match="even"):
        half_to_interleaved_permutation(5)


# --------------------------------------------------------------------------- cos/sin tables and cache


def test_cos_sin_layout_patterns():
    cos_h, sin_h = rope_cos_sin(5, 8, layout="half")
    cos_i, sin_i = rope_cos_sin(5, 8, layout="interleaved")
    angle = torch.arange(5.0)[:, None] * rope_inv_freq(8)
    torch.testing.assert_close(cos_h, torch.cat((angle.cos(), angle.cos()), -1))
    torch.testing.assert_close(sin_i, angle.sin().repeat_interleave(2, -1))
    torch.testing.assert_close(cos_i[:, ::2], cos_h[:, :4])
    assert cos_h.shape == sin_h.shape == (5, 8)


def test_cos_sin_with_positions_and_dtype():
    cos, sin = rope_cos_sin(torch.tensor([[3, 4], [5, 6]]), 4, dtype=torch.float64)
    assert cos.shape == (2, 2, 4) and cos.dtype == torch.float64
    torch.testing.assert_close(cos[1, 0, 0], torch.tensor(math.cos(5.0), dtype=torch.float64))


def test_cache_hits_misses_and_sharing():
    rope_cache_clear()
    a = rope_cos_sin(16, 8)
    b = rope_cos_sin(16, 8)
    assert a[0] is b[0]
    assert rope_cache_info()["hits"] == 1 and rope_cache_info()["misses"] == 1
    rope_cos_sin(16, 8, dtype=torch.float64)
    rope_cos_sin(16, 8, base=500.0)
    rope_cos_sin(17, 8)
    rope_cos_sin(16, 8, attention_factor=2.0)
    assert rope_cache_info()["misses"] == 5
    # both layouts share one entry of d/2-wide tables
    rope_cos_sin(16, 8, layout="interleaved")
    assert rope_cache_info()["misses"] == 5


def test_cache_is_bounded_lru():
    rope_cache_clear()
    maxsize = rope_cache_info()["maxsize"]
    for seq in range(1, maxsize + 6):
        rope_cos_sin(seq, 4)
    assert rope_cache_info()["size"] == maxsize
    rope_cos_sin(maxsize + 5, 4)  # most recent: still cached
    assert rope_cache_info()["hits"] == 1
    rope_cos_sin(1, 4)  # oldest: evicted
    assert rope_cache_info()["misses"] == maxsize + 6


def test_cache_sees_in_place_changes_of_a_custom_inv_freq():
    rope_cache_clear()
    inv_freq = rope_inv_freq(8)
    before = rope_cos_sin(6, 8, inv_freq=inv_freq)[1].clone()
    inv_freq.mul_(0.5)
    after = rope_cos_sin(6, 8, inv_freq=inv_freq)[1]
    assert not torch.equal(before, after)
    torch.testing.assert_close(after, rope_cos_sin(torch.arange(6) / 2, 8)[1])


def test_apply_rope_uses_the_cache():
    rope_cache_clear()
    x = torch.zeros(3, 10, 8)
    apply_rope(x)
    apply_rope(x, layout="interleaved")
    assert rope_cache_info() == {"hits": 1, "misses": 1, "size": 1, "maxsize": rope_cache_info()["maxsize"]}
    apply_rope(x, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])  # explicit positions are computed fresh
    assert rope_cache_info()["misses"] == 1 and rope_cache_info()["hits"] == 1


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cuda_matches_cpu(layout):
    x = _x(12, 2, 4, 33, 64, dtype=torch.float32)
    got = apply_rope(x.cuda(), layout=layout).cpu()
    torch.testing.assert_close(got, apply_rope(x, layout=layout), rtol=0, atol=1e-5)
    pos = torch.arange(33) + 1000
    got = apply_rope(x.cuda(), pos.cuda(), layout=layout).cpu()
    torch.testing.assert_close(got, apply_rope(x, pos, layout=layout), rtol=0, atol=1e-4)
