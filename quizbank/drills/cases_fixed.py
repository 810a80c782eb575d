"""Cases and known mistakes for the ten fixed drills (run inside the grading child)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.alibi import alibi_bias as ref_alibi_bias
from posenc_ref.alibi import alibi_slopes as ref_alibi_slopes
from posenc_ref.rope import apply_rope as ref_apply_rope
from posenc_ref.rope_scaling import rope_scaled_inv_freq, rope_scaled_inv_freq_np, yarn_correction_range
from posenc_ref.sinusoidal import sinusoidal_pe as ref_sinusoidal_pe
from posenc_ref.t5 import t5_relative_position_bucket

from .cases import Case, Spec, Verdict, compare_sequence, compare_tensors, noncontiguous, randn


# -- RoPE (shared by rope-half, rope-interleaved and their relatives) --------------------------------------
def rope(
    x: torch.Tensor,
    positions: Any,
    base: float = 10000.0,
    *,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """posenc_ref's RoPE in float64, cast back to x's dtype."""
    pos = torch.as_tensor(positions).to(torch.float64)
    out = ref_apply_rope(x.to(torch.float64), positions=pos, base=base, layout=layout, inv_freq=inv_freq)
    return out.to(x.dtype)


def theta(dim: int, base: float) -> torch.Tensor:
    return base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)


def rope_mistakes(layout: str) -> list[tuple[str, Callable[..., Any]]]:
    other = "interleaved" if layout == "half" else "half"
    pairing = {
        "half": "the pairs are (2i, 2i+1), the GPT-J/Meta interleaved layout; this drill pairs channel i with "
        "i + dim/2 (HF rotate_half)",
        "interleaved": "the pairs are (i, i + dim/2), the HF/NeoX half layout; this drill pairs channel 2i with 2i+1",
    }[layout]

    def variant(**change: Any) -> Callable[..., Any]:
        def run(x: torch.Tensor, positions: Any, base: float = 10000.0) -> torch.Tensor:
            pos = torch.as_tensor(positions).to(torch.float64)
            dim = x.shape[-1]
            kw: dict[str, Any] = {"layout": change.get("layout", layout)}
            if "inv_freq" in change:
                kw["inv_freq"] = change["inv_freq"](dim, base)
            if "positions" in change:
                pos = change["positions"](pos)
            return rope(x, pos, base, **kw)

        return run

    return [
        (pairing, variant(layout=other)),
        (
            "the rotation goes the wrong way (clockwise): the minus sign belongs on the second element, "
            "a' = a·cos − b·sin",
            variant(positions=lambda p: -p),
        ),
        (
            "the positions argument is ignored: the result equals RoPE at positions 0..seq-1",
            variant(positions=lambda p: torch.arange(p.shape[-1], dtype=torch.float64)),
        ),
        ("positions are off by one (rotated at position + 1)", variant(positions=lambda p: p + 1)),
        (
            "the frequency exponent is wrong: θ_i = base^(-i/dim) instead of base^(-2i/dim)",
            variant(inv_freq=lambda d, b: b ** (-torch.arange(d // 2, dtype=torch.float64) / d)),
        ),
        (
            "the frequency exponent is wrong: θ_i = base^(-2i/(dim/2)) instead of base^(-2i/dim)",
            variant(inv_freq=lambda d, b: b ** (-torch.arange(0, d, 2, dtype=torch.float64) / (d // 2))),
        ),
        (
            "sin and cos are swapped",
            lambda x, positions, base=10000.0: _rope_swapped(x, positions, base, layout),
        ),
        (
            "the base argument is ignored (10000 is always used)",
            variant(inv_freq=lambda d, b: theta(d, 10000.0)),
        ),
    ]


def _rope_swapped(x: torch.Tensor, positions: Any, base: float, layout: str) -> torch.Tensor:
    """x·sin + rotate(x)·cos: the mistake of swapping the two tables."""
    dim = x.shape[-1]
    ang = torch.as_tensor(positions, dtype=torch.float64)[:, None] * theta(dim, base)
    xd = x.to(torch.float64)
    if layout == "half":
        emb = torch.cat((ang, ang), -1)
        rot = torch.cat((-xd[..., dim // 2 :], xd[..., : dim // 2]), -1)
    else:
        emb = ang.repeat_interleave(2, -1)
        rot = torch.stack((-xd[..., 1::2], xd[..., 0::2]), -1).flatten(-2)
    return (xd * emb.sin() + rot * emb.cos()).to(x.dtype)


def rope_cases() -> list[Case]:
    f32, f64 = dict(atol=1e-4, dtype=torch.float32), dict(atol=1e-6, dtype=torch.float64)
    return [
        Case("seq 1 at position 5", (randn(1, 8, seed=1), torch.tensor([5])), **f32),
        Case("2-D x, positions 0..6", (randn(7, 16, seed=2), torch.arange(7)), **f32),
        Case("batch and heads [2, 3, 5, 8]", (randn(2, 3, 5, 8, seed=3), torch.arange(5)), **f32),
        Case("offset positions 100..105 (KV cache)", (randn(2, 6, 8, seed=4), torch.arange(100, 106)), **f32),
        Case("unordered, repeated positions", (randn(4, 4, 8, seed=5), torch.tensor([3, 0, 7, 7])), **f32),
        Case("dim 2 (a single pair)", (randn(3, 2, seed=6), torch.tensor([1, 2, 3])), **f32),
        Case("non-contiguous x", (noncontiguous(2, 5, 8, seed=7), torch.arange(5)), **f32),
        Case("float64 keeps its dtype", (randn(3, 4, 8, seed=8, dtype=torch.float64), torch.arange(4)), **f64),
        Case("base 500000 (Llama 3)", (randn(6, 32, seed=9), torch.arange(6), 500000.0), **f32),
        Case("positions 4090..4095, head dim 128", (randn(2, 6, 128, seed=10), torch.arange(4090, 4096)),
             atol=2e-3, dtype=torch.float32),
    ]  # fmt: skip


def rope_probes() -> list[Case]:
    return [
        Case("probe", (randn(2, 2, seed=20), torch.tensor([0, 1])), atol=1e-4),
        Case("probe", (randn(2, 4, seed=21), torch.tensor([0, 1])), atol=1e-4),
        Case("probe", (randn(3, 4, seed=22), torch.tensor([1, 2, 3])), atol=1e-4),
        Case("probe", (randn(3, 8, seed=23), torch.tensor([2, 0, 1])), atol=1e-4),
        Case("probe", (randn(2, 3, 8, seed=24), torch.arange(3)), atol=1e-4),
        Case("probe", (randn(1, 16, seed=25), torch.tensor([7])), atol=1e-4),
    ]


def rope_spec(layout: str) -> Spec:
    return Spec(
        reference=lambda x, positions, base=10000.0: rope(x, positions, base, layout=layout),
        cases=rope_cases,
        probes=rope_probes,
        mistakes=rope_mistakes(layout),
    )


# -- sinusoidal-pe ------------------------------------------------------------------------------------------
def sinusoidal(seq_len: int, dim: int, base: float = 10000.0, **kw: Any) -> torch.Tensor:
    return ref_sinusoidal_pe(seq_len, dim, base=base, **kw)


def sinusoidal_spec() -> Spec:
    def cases() -> list[Case]:
        f32 = dict(atol=1e-5, dtype=torch.float32)
        return [
            Case("seq 1, dim 2", (1, 2), **f32),
            Case("seq 4, dim 8", (4, 8), **f32),
            Case("seq 7, dim 6 (odd pair count)", (7, 6), **f32),
            Case("seq 50, dim 64", (50, 64), **f32),
            Case("base 100", (9, 16, 100.0), **f32),
            Case("long table: seq 2048, dim 128 (angle precision)", (2048, 128), **f32),
        ]

    def probes() -> list[Case]:
        return [Case("probe", a) for a in ((1, 2), (2, 2), (2, 4), (3, 4), (4, 8), (9, 16, 100.0))]

    def exponent(seq_len: int, dim: int, base: float = 10000.0) -> torch.Tensor:
        pos = torch.arange(seq_len, dtype=torch.float64)[:, None]
        ang = pos * base ** (-torch.arange(dim // 2, dtype=torch.float64) / dim)
        return torch.stack((ang.sin(), ang.cos()), -1).reshape(seq_len, dim).float()

    def swapped(seq_len: int, dim: int, base: float = 10000.0) -> torch.Tensor:
        pe = sinusoidal(seq_len, dim, base)
        return torch.stack((pe[:, 1::2], pe[:, 0::2]), -1).reshape(seq_len, dim)

    return Spec(
        reference=sinusoidal,
        cases=cases,
        probes=probes,
        mistakes=[
            (
                "the layout is concatenated (all sin, then all cos); this drill interleaves sin on even, cos on "
                "odd dims",
                lambda s, d, base=10000.0: sinusoidal(s, d, base, layout="concat"),
            ),
            ("sin and cos are swapped: sin goes on the even dims", swapped),
            ("the frequency exponent is wrong: ω_i = base^(-i/dim) instead of base^(-2i/dim)", exponent),
            (
                "the tensor2tensor frequencies base^(-i/(dim/2-1)) are used instead of the paper's base^(-2i/dim)",
                lambda s, d, base=10000.0: sinusoidal(s, d, base, frequencies="tensor2tensor"),
            ),
            (
                "positions start at 1 instead of 0",
                lambda s, d, base=10000.0: sinusoidal(s, d, base, offset=1),
            ),
            (
                "the base argument is ignored (10000 is always used)",
                lambda s, d, base=10000.0: sinusoidal(s, d),
            ),
        ],  # fmt: skip
    )


# -- ALiBi --------------------------------------------------------------------------------------------------
def _pow2_slopes(n: int) -> torch.Tensor:
    return torch.tensor([2.0 ** (-8.0 * h / n) for h in range(1, n + 1)], dtype=torch.float64)


def _contiguous_extra_slopes(n: int) -> torch.Tensor:
    c = 2 ** math.floor(math.log2(n))
    extra = [2.0 ** (-8.0 * h / (2 * c)) for h in range(1, 2 * c + 1)][: n - c]
    return torch.cat((_pow2_slopes(c), torch.tensor(extra, dtype=torch.float64)))


def slopes_spec() -> Spec:
    def cases() -> list[Case]:
        counts = (1, 2, 4, 8, 16, 3, 5, 6, 7, 12, 24, 20)
        return [
            Case(
                f"{n} heads" + ("" if n & (n - 1) == 0 else " (not a power of two)"),
                (n,),
                atol=0.0,
                rtol=1e-6,
            )
            for n in counts
        ]

    return Spec(
        reference=lambda n_heads: ref_alibi_slopes(n_heads, dtype=torch.float64),
        cases=cases,
        probes=lambda: [Case("probe", (n,), atol=0.0, rtol=1e-6) for n in (1, 2, 3, 4, 5, 6, 8, 12)],
        mistakes=[
            (
                "the power-of-two formula 2^(-8h/n) is used for a head count that is not a power of two; the paper "
                "takes the 2^k-head slopes, then every other slope of the 2^(k+1) set",
                _pow2_slopes,
            ),
            (
                "the extra slopes are the first ones of the 2^(k+1)-head set; the paper takes every other one "
                "(indices 0, 2, 4, ...)",
                _contiguous_extra_slopes,
            ),
            (
                "the slopes start at h = 0 (the first slope is 1)",
                lambda n: torch.cat(
                    (torch.ones(1, dtype=torch.float64), ref_alibi_slopes(n, dtype=torch.float64)[:-1])
                ),
            ),
            (
                "the slopes are in reverse order (largest first is the paper's order)",
                lambda n: ref_alibi_slopes(n, dtype=torch.float64).flip(0),
            ),
        ],  # fmt: skip
    )


def bias_spec() -> Spec:
    def reference(n_heads: int, seq_len: int) -> torch.Tensor:
        return ref_alibi_bias(n_heads, seq_len)

    def zero_mask(n: int, s: int) -> torch.Tensor:
        b = reference(n, s)
        return b.masked_fill(torch.isinf(b), 0.0)

    def pow2(n: int, s: int) -> torch.Tensor:
        d = torch.arange(s)[:, None] - torch.arange(s)[None, :]
        b = -_pow2_slopes(n)[:, None, None] * d
        return b.masked_fill(d < 0, float("-inf")).float()

    def cases() -> list[Case]:
        return [
            Case(f"{n} heads, seq {s}" + note, (n, s), atol=1e-5)
            for n, s, note in (
                (1, 1, " (seq 1)"),
                (1, 4, ""),
                (2, 5, ""),
                (4, 6, ""),
                (3, 6, " (odd head count)"),
                (12, 7, " (12 heads: not a power of two)"),
                (8, 33, ""),
            )
        ]

    def explain(out: Any, expected: Any, case: Case) -> str:
        got = torch.as_tensor(out)
        if got.shape != expected.shape or torch.isinf(got).any():
            return ""
        upper = torch.ones(expected.shape[-2:], dtype=torch.bool).triu(1)
        if upper.any() and bool((got[..., upper] < -1e4).all()):
            return "the masked entries are large finite negatives; this drill needs exactly -inf"
        return ""

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (n, s), atol=1e-5) for n, s in ((1, 2), (2, 2), (1, 3), (3, 3), (12, 3))
        ],
        mistakes=[
            (
                "the causal mask is 0 instead of -inf above the diagonal: every query would see future keys",
                zero_mask,
            ),
            (
                "there is no causal mask: keys after the query get -m·|i−j| instead of -inf",
                lambda n, s: ref_alibi_bias(n, s, causal=False),
            ),
            (
                "the sign is flipped: the bias must be -m·(i−j) <= 0, a penalty growing with distance",
                lambda n, s: -reference(n, s).masked_fill(torch.isinf(reference(n, s)), float("inf")),
            ),
            (
                "the wrong triangle is masked: rows are queries i, columns keys j; mask j > i",
                lambda n, s: reference(n, s).transpose(-1, -2),
            ),
            ("the slopes use 2^(-8h/n) for a head count that is not a power of two (see alibi-slopes)", pow2),
        ],  # fmt: skip
        explain=explain,
    )


# -- T5 buckets -----------------------------------------------------------------------------------------------
def t5_variant(
    rp: Any,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    *,
    flip: bool = False,
    clamp: bool = True,
    decoder_abs: bool = False,
    small_le: bool = False,
) -> torch.Tensor:
    """HF's formula with one switch turned: each switch is a mistake people make."""
    rp = torch.as_tensor(rp).long()
    if flip:
        rp = -rp
    buckets = torch.zeros_like(rp)
    if bidirectional:
        num_buckets //= 2
        buckets = (rp > 0).long() * num_buckets
        rp = rp.abs()
    elif decoder_abs:
        rp = rp.abs()
    else:
        rp = -torch.minimum(rp, torch.zeros_like(rp))
    max_exact = num_buckets // 2
    is_small = rp <= max_exact if small_le else rp < max_exact
    large = max_exact + (
        torch.log(rp.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    if clamp:
        large = torch.minimum(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, rp, large)


def t5_spec() -> Spec:
    def reference(
        relative_position: Any, bidirectional=True, num_buckets=32, max_distance=128
    ) -> torch.Tensor:
        return t5_relative_position_bucket(
            relative_position, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )

    def grid(q: int, k: int, shift: int = 0) -> torch.Tensor:
        return torch.arange(k)[None, :] - torch.arange(q)[:, None] + shift

    def cases() -> list[Case]:
        span = torch.arange(-300, 301)
        return [
            Case("encoder, distances -300..300", (span,), atol=0),
            Case("decoder (bidirectional=False), -300..300", (span, False), atol=0),
            Case("key - query grid [6, 9]", (grid(6, 9),), atol=0),
            Case("64 buckets, max_distance 256", (torch.arange(-1000, 1001, 7), True, 64, 256), atol=0),
            Case("decoder, 16 buckets, max_distance 64", (torch.arange(-200, 201), False, 16, 64), atol=0),
            Case("very far: ±10000", (torch.tensor([-10000, -129, -128, 128, 129, 10000]),), atol=0),
            Case("distance 0 and ±1", (torch.tensor([0, 1, -1]),), atol=0),
        ]

    def probes() -> list[Case]:
        values = [0, 1, -1, 8, -8, 9, -9, 16, -16, 40, -40, 127, -127, 128, -128, 200, -200, 5000, -5000]
        out = []
        for v in values:
            out.append(Case("probe", (torch.tensor([v]),), atol=0))
            out.append(Case("probe", (torch.tensor([v]), False), atol=0))
        return out

    def explain(out: Any, expected: Any, case: Case) -> str:
        got = torch.as_tensor(out)
        if got.shape != expected.shape or got.is_floating_point():
            return ""
        wrong = (got.long() != expected).nonzero()
        if not len(wrong):
            return ""
        index = tuple(wrong[0].tolist())
        rp = int(torch.as_tensor(case.args[0])[index])
        return (
            f"For relative_position {rp} (key − query) you return bucket {int(got[index])}, "
            f"expected {int(expected[index])}"
        )

    return Spec(
        reference=reference,
        cases=cases,
        probes=probes,
        mistakes=[
            (
                "the sign convention is flipped: relative_position is key − query, and keys after the query "
                "(positive) take the upper half",
                lambda *a: t5_variant(*a, flip=True),
            ),
            (
                "the log-spaced bucket is not clamped to num_buckets−1: distances beyond max_distance overflow",
                lambda *a: t5_variant(*a, clamp=False),
            ),
            (
                "the decoder (bidirectional=False) uses |distance|; keys after the query must all map to bucket 0",
                lambda *a: t5_variant(*a, decoder_abs=True),
            ),
            (
                "the exact range is off by one: distances < num_buckets/4 (bidirectional) get their own bucket, "
                "not <=",
                lambda *a: t5_variant(*a, small_le=True),
            ),
        ],  # fmt: skip
        explain=explain,
    )


# -- rope-attention-gqa -------------------------------------------------------------------------------------
def gqa(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    positions: Any,
    base: float = 10000.0,
    *,
    tiled: bool = False,
    rope_v: bool = False,
    causal: bool = True,
    use_rope: bool = True,
    layout: str = "half",
    scale: str = "sqrt",
) -> torch.Tensor:
    qd, kd, vd = q.to(torch.float64), k.to(torch.float64), v.to(torch.float64)
    if use_rope:
        qd, kd = rope(qd, positions, base, layout=layout), rope(kd, positions, base, layout=layout)
        if rope_v:
            vd = rope(vd, positions, base, layout=layout)
    group = q.shape[1] // k.shape[1]
    if tiled:
        kd, vd = kd.repeat(1, group, 1, 1), vd.repeat(1, group, 1, 1)
    else:
        kd, vd = kd.repeat_interleave(group, 1), vd.repeat_interleave(group, 1)
    dim, seq = q.shape[-1], q.shape[-2]
    divisor = {"sqrt": math.sqrt(dim), "none": 1.0, "dim": float(dim)}[scale]
    scores = qd @ kd.transpose(-1, -2) / divisor
    if causal:
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    return (scores.softmax(-1) @ vd).to(q.dtype)


def gqa_spec() -> Spec:
    def inputs(
        b: int, hq: int, hkv: int, seq: int, dim: int, seed: int, positions: Any = None
    ) -> tuple[Any, ...]:
        q = randn(b, hq, seq, dim, seed=seed)
        k = randn(b, hkv, seq, dim, seed=seed + 1)
        v = randn(b, hkv, seq, dim, seed=seed + 2)
        return q, k, v, torch.arange(seq) if positions is None else positions

    def cases() -> list[Case]:
        q, k, v, p = inputs(1, 4, 2, 5, 8, 40)
        return [
            Case("MHA: Hq = Hkv = 2", inputs(1, 2, 2, 4, 8, 30), atol=1e-4),
            Case("GQA: Hq 4, Hkv 2", inputs(2, 4, 2, 5, 8, 33), atol=1e-4),
            Case("GQA: Hq 6, Hkv 2 (groups of 3)", inputs(1, 6, 2, 6, 16, 36), atol=1e-4),
            Case("MQA: Hq 3, Hkv 1", inputs(2, 3, 1, 4, 8, 39), atol=1e-4),
            Case("seq 1", inputs(1, 4, 2, 1, 8, 42), atol=1e-4),
            Case("offset positions 50..55", inputs(1, 4, 2, 6, 8, 45, torch.arange(50, 56)), atol=1e-4),
            Case(
                "non-contiguous q", (q.transpose(-1, -2).contiguous().transpose(-1, -2), k, v, p), atol=1e-4
            ),
        ]

    def probes() -> list[Case]:
        return [
            Case("probe", inputs(1, h, kv, s, d, 60 + i), atol=1e-4)
            for i, (h, kv, s, d) in enumerate(
                ((1, 1, 2, 2), (1, 1, 2, 4), (2, 1, 2, 4), (2, 2, 2, 4), (4, 2, 3, 4))
            )
        ]

    ref = gqa
    return Spec(
        reference=lambda q, k, v, positions, base=10000.0: ref(q, k, v, positions, base),
        cases=cases,
        probes=probes,
        mistakes=[
            (
                "the KV heads are tiled (repeat) instead of grouped (repeat_interleave): query head h must use KV "
                "head h // (Hq/Hkv), not h % Hkv",
                lambda *a: gqa(*a, tiled=True),
            ),
            ("RoPE is applied to V as well; only q and k are rotated", lambda *a: gqa(*a, rope_v=True)),
            ("the causal mask is missing: queries attend to later keys", lambda *a: gqa(*a, causal=False)),
            ("RoPE is missing (q and k are not rotated)", lambda *a: gqa(*a, use_rope=False)),
            (
                "RoPE uses the interleaved pairing (2i, 2i+1); this drill uses the half layout (HF rotate_half)",
                lambda *a: gqa(*a, layout="interleaved"),
            ),
            ("the 1/√D scale is missing", lambda *a: gqa(*a, scale="none")),
            ("the logits are divided by D instead of √D", lambda *a: gqa(*a, scale="dim")),
            ("the KV heads are tiled and RoPE is applied to V", lambda *a: gqa(*a, tiled=True, rope_v=True)),
        ],  # fmt: skip
    )


# -- frequency rules ------------------------------------------------------------------------------------------
def ntk_spec() -> Spec:
    def reference(dim: int, base: float, factor: float) -> torch.Tensor:
        return torch.from_numpy(rope_scaled_inv_freq_np(dim, base=base, rope_type="ntk", factor=factor)[0])

    def cases() -> list[Case]:
        rel = dict(atol=0.0, rtol=1e-5)
        return [
            Case("dim 128, base 10000, factor 4", (128, 10000.0, 4.0), **rel),
            Case("dim 64, base 500000, factor 8", (64, 500000.0, 8.0), **rel),
            Case("dim 4 (two pairs), factor 2", (4, 10000.0, 2.0), **rel),
            Case("factor 1 leaves θ unchanged", (32, 10000.0, 1.0), **rel),
            Case("fractional factor 2.5", (16, 10000.0, 2.5), **rel),
        ]

    def ntk_base(exponent: Callable[[int], float]) -> Callable[..., torch.Tensor]:
        return lambda dim, base, factor: theta(dim, base * factor ** exponent(dim))

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (d, 10000.0, f), atol=0.0, rtol=1e-5) for d, f in ((4, 2.0), (6, 2.0), (8, 4.0))
        ],
        mistakes=[
            ("the base is multiplied by factor, without the exponent dim/(dim−2)", ntk_base(lambda d: 1.0)),
            ("the exponent is inverted: (dim−2)/dim instead of dim/(dim−2)", ntk_base(lambda d: (d - 2) / d)),
            (
                "the frequencies are divided by factor: that is linear interpolation (PI), not NTK-aware scaling",
                lambda dim, base, factor: theta(dim, base) / factor,
            ),
            ("the factor is ignored", lambda dim, base, factor: theta(dim, base)),
        ],  # fmt: skip
    )


def _yarn_np(
    dim: int,
    base: float,
    factor: float,
    original: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    **kw: Any,
):
    return rope_scaled_inv_freq_np(
        dim, base=base, rope_type="yarn", factor=factor, original_max_position_embeddings=original,
        beta_fast=beta_fast, beta_slow=beta_slow, **kw,
    )  # fmt: skip


def _yarn_ramp(
    dim: int, base: float, factor: float, original: int, low: float, high: float, invert: bool = False
):
    th = theta(dim, base)
    if low == high:
        high += 0.001
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    if invert:
        ramp = 1 - ramp
    return th * (1 - ramp) + th / factor * ramp


def yarn_spec() -> Spec:
    def reference(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
        inv, att = rope_scaled_inv_freq(
            dim, base=base, rope_type="yarn", factor=factor,
            original_max_position_embeddings=original_max_position_embeddings, beta_fast=beta_fast,
            beta_slow=beta_slow,
        )  # fmt: skip
        return inv.to(torch.float64), float(att)

    def cases() -> list[Case]:
        rel = dict(atol=0.0, rtol=1e-5)
        return [
            Case("dim 128, base 10000, factor 4, 4096 positions", (128, 10000.0, 4.0, 4096), **rel),
            Case("Qwen-style: dim 128, base 1e6, factor 4, 32768", (128, 1000000.0, 4.0, 32768), **rel),
            Case("dim 64, base 10000, factor 16, 2048", (64, 10000.0, 16.0, 2048), **rel),
            Case("beta_fast 16, beta_slow 2", (128, 10000.0, 8.0, 4096, 16.0, 2.0), **rel),
            Case("dim 16 (high clamps to dim − 1)", (16, 10000.0, 4.0, 2048), **rel),
            Case("factor 1: attention factor 1", (32, 10000.0, 1.0, 2048), **rel),
        ]

    def variant(kind: str) -> Callable[..., Any]:
        def run(dim, base, factor, original, beta_fast=32.0, beta_slow=1.0):
            inv, att = reference(dim, base, factor, original, beta_fast, beta_slow)
            lo, hi = yarn_correction_range(
                dim,
                base=base,
                original_max_position_embeddings=original,
                beta_fast=beta_fast,
                beta_slow=beta_slow,
            )
            if kind == "no_temperature":
                return inv, 1.0
            if kind == "sqrt_temperature":
                return inv, math.sqrt(att)
            if kind == "squared_temperature":
                return inv, att * att
            if kind == "inverse_temperature":
                return inv, 1.0 / att
            if kind == "inverted_ramp":
                return _yarn_ramp(dim, base, factor, original, lo, hi, invert=True), att
            if kind == "no_truncate":
                lo, hi = yarn_correction_range(
                    dim, base=base, original_max_position_embeddings=original, beta_fast=beta_fast,
                    beta_slow=beta_slow, truncate=False,
                )  # fmt: skip
                return _yarn_ramp(dim, base, factor, original, lo, hi), att
            if kind == "swapped_betas":
                lo, hi = yarn_correction_range(
                    dim,
                    base=base,
                    original_max_position_embeddings=original,
                    beta_fast=beta_slow,
                    beta_slow=beta_fast,
                )
                return _yarn_ramp(dim, base, factor, original, lo, hi), att
            if kind == "half_clamp":
                return _yarn_ramp(dim, base, factor, original, lo, min(hi, dim // 2 - 1)), att
            if kind == "linear":
                return theta(dim, base) / factor, att
            if kind == "temperature_in_freq":
                return inv * att, att
            raise AssertionError(kind)

        return run

    def compare(out: Any, expected: Any, case: Case) -> Verdict:
        if not isinstance(out, tuple | list) or len(out) != 2:
            return Verdict(
                False, math.inf, f"returned {type(out).__name__}, expected (inv_freq, attention_factor)"
            )
        freq = compare_tensors(out[0], expected[0], case)
        if not freq.ok:
            return Verdict(False, freq.error, freq.detail and f"inv_freq: {freq.detail}")
        try:
            att = float(out[1])
        except (TypeError, ValueError):
            return Verdict(False, math.inf, f"attention_factor is {type(out[1]).__name__}, expected a float")
        error = abs(att - expected[1]) / abs(expected[1])
        if error > max(case.rtol, 1e-9):
            return Verdict(False, error, f"attention_factor is {att:.6g}, expected {expected[1]:.6g}")
        return Verdict(True, max(freq.error, error))

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [Case("probe", (d, 10000.0, 4.0, 2048), atol=0.0, rtol=1e-5) for d in (8, 16, 32, 64)],
        mistakes=[
            (
                "the attention factor (temperature) is missing: it is 0.1·ln(factor) + 1, returned beside inv_freq",
                variant("no_temperature"),
            ),
            (
                "the attention factor is √(0.1·ln s + 1); HF returns 0.1·ln(s) + 1 itself (it multiplies cos and sin)",
                variant("sqrt_temperature"),
            ),
            ("the attention factor is squared", variant("squared_temperature")),
            ("the attention factor is inverted: 1/(0.1·ln s + 1)", variant("inverse_temperature")),
            (
                "the attention factor is multiplied into inv_freq; return it separately",
                variant("temperature_in_freq"),
            ),
            (
                "the ramp is inverted: high-frequency pairs (low index) must keep θ, low-frequency pairs get θ/factor",
                variant("inverted_ramp"),
            ),
            (
                "the correction range is not floored/ceiled (HF truncates: low = floor, high = ceil)",
                variant("no_truncate"),
            ),
            ("beta_fast and beta_slow are swapped: beta_fast gives the low bound", variant("swapped_betas")),
            ("high is clamped to dim/2 − 1; HF clamps it to dim − 1", variant("half_clamp")),
            (
                "every frequency is divided by factor: that is linear interpolation, not YaRN",
                variant("linear"),
            ),
        ],  # fmt: skip
        compare=compare,
    )


def llama3_spec() -> Spec:
    def reference(dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor):
        inv, _ = rope_scaled_inv_freq(
            dim, base=base, rope_type="llama3", factor=factor, low_freq_factor=low_freq_factor,
            high_freq_factor=high_freq_factor, original_max_position_embeddings=original_max_position_embeddings,
        )  # fmt: skip
        return inv.to(torch.float64)

    def bands(dim, base, factor, original, low, high, *, middle: str) -> torch.Tensor:
        th = theta(dim, base)
        wavelen = 2 * math.pi / th
        smooth = (original / wavelen - low) / (high - low)
        if middle == "keep":
            mid = th
        elif middle == "divide":
            mid = th / factor
        elif middle == "inverted":
            mid = smooth * th / factor + (1 - smooth) * th
        else:
            mid = (1 - smooth) * th / factor + smooth * th
        out = torch.where(wavelen < original / high, th, mid)
        return torch.where(wavelen > original / low, th / factor, out)

    def cases() -> list[Case]:
        rel = dict(atol=0.0, rtol=1e-5)
        return [
            Case(
                "Llama 3.1: dim 128, base 500000, factor 8, 8192, 1/4",
                (128, 500000.0, 8.0, 8192, 1.0, 4.0),
                **rel,
            ),
            Case("Llama 3.2: factor 32", (128, 500000.0, 32.0, 8192, 1.0, 4.0), **rel),
            Case("dim 64, base 10000, factor 4, 2048, 1/4", (64, 10000.0, 4.0, 2048, 1.0, 4.0), **rel),
            Case("low 2, high 8", (128, 500000.0, 8.0, 8192, 2.0, 8.0), **rel),
            Case("dim 16", (16, 10000.0, 4.0, 512, 1.0, 4.0), **rel),
        ]

    def compare(out: Any, expected: Any, case: Case) -> Verdict:
        if isinstance(out, tuple | list) and len(out) == 2:
            out = out[0]  # HF's (inv_freq, attention_factor) is accepted
        return compare_tensors(out, expected, case)

    def variant(middle: str) -> Callable[..., Any]:
        return lambda d, b, f, o, lo, hi: bands(d, b, f, o, lo, hi, middle=middle)

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (d, 10000.0, 4.0, 512, 1.0, 4.0), atol=0.0, rtol=1e-5) for d in (4, 8, 16, 32, 64)
        ],
        mistakes=[
            (
                "the smooth band is missing: wavelengths between L/high_freq_factor and L/low_freq_factor keep θ "
                "instead of blending",
                variant("keep"),
            ),
            (
                "the smooth band is missing: the middle wavelengths are divided by factor instead of blended",
                variant("divide"),
            ),
            (
                "the blend is inverted: s = 1 (short wavelengths) must keep θ, s = 0 gives θ/factor",
                variant("inverted"),
            ),
            (
                "the thresholds are swapped: λ < L/high_freq_factor keeps θ, λ > L/low_freq_factor is divided",
                lambda d, b, f, o, lo, hi: bands(d, b, f, o, hi, lo, middle="blend"),
            ),
            (
                "every frequency is divided by factor: that is linear interpolation, not the llama3 rule",
                lambda d, b, f, o, lo, hi: theta(d, b) / f,
            ),
        ],  # fmt: skip
        compare=compare,
    )


FIXED_SPECS: dict[str, Callable[[], Spec]] = {
    "sinusoidal-pe": sinusoidal_spec,
    "rope-half": lambda: rope_spec("half"),
    "rope-interleaved": lambda: rope_spec("interleaved"),
    "alibi-slopes": slopes_spec,
    "alibi-bias": bias_spec,
    "t5-bucket": t5_spec,
    "rope-attention-gqa": gqa_spec,
    "ntk-inv-freq": ntk_spec,
    "yarn-inv-freq": yarn_spec,
    "llama3-inv-freq": llama3_spec,
}

__all__ = ["FIXED_SPECS", "compare_sequence", "rope", "theta"]
