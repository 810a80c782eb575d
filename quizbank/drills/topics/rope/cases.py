"""RoPE: rotating q and k by position (half and interleaved layouts, attention with GQA, KV-cache decoding).

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.rope import apply_rope as ref_apply_rope

from ...judging import Case, Spec, compare_sequence, noncontiguous, randn


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
    f32: dict[str, Any] = dict(atol=1e-4, dtype=torch.float32)
    f64: dict[str, Any] = dict(atol=1e-6, dtype=torch.float64)
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


# -- rope-kv-cache-decode --------------------------------------------------------------------------------------
def decode_spec() -> Spec:
    def at(q, k, positions, base, layout="half"):
        return rope(q, positions, base, layout=layout), rope(k, positions, base, layout=layout)

    def reference(q, k, past_len, base=10000.0):
        return at(q, k, torch.arange(past_len, past_len + q.shape[-2]), base)

    def inputs(lead: tuple[int, ...], t: int, d: int, past: int, seed: int) -> tuple[Any, ...]:
        return randn(*lead, t, d, seed=seed), randn(*lead, t, d, seed=seed + 1), past

    def cases() -> list[Case]:
        return [
            Case("one new token after 7 cached", inputs((1, 2), 1, 8, 7, 130), atol=1e-3),
            Case("first step (past_len 0)", inputs((1, 2), 1, 8, 0, 132), atol=1e-3),
            Case("3 new tokens after 12", inputs((2, 4), 3, 16, 12, 134), atol=1e-3),
            Case("deep cache: past_len 4000, head dim 64", inputs((1, 1), 1, 64, 4000, 136), atol=1e-3),
        ]

    def variant(shift: Callable[[int], int], layout: str = "half") -> Callable[..., Any]:
        return lambda q, k, past, base=10000.0: at(
            q, k, torch.arange(q.shape[-2]) + shift(past), base, layout
        )

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", inputs((), 1, d, p, 140 + d), atol=1e-3) for d, p in ((2, 1), (4, 1), (4, 3))
        ],
        mistakes=[
            (
                "the new tokens are rotated at positions 0.. instead of past_len..: every step looks like the first",
                variant(lambda p: 0),
            ),
            (
                "positions are off by one: the first new token is at past_len, not past_len + 1",
                variant(lambda p: p + 1),
            ),
            (
                "the interleaved pairing is used; this drill uses the half layout (HF rotate_half)",
                variant(lambda p: p, "interleaved"),
            ),
        ],  # fmt: skip
        compare=compare_sequence,
    )


SPECS: dict[str, Callable[[], Spec]] = {
    "rope-half": lambda: rope_spec("half"),
    "rope-interleaved": lambda: rope_spec("interleaved"),
    "rope-attention-gqa": gqa_spec,
    "rope-kv-cache-decode": decode_spec,
}
