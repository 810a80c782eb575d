"""Relative positions: T5 buckets and Shaw et al.'s relative logits.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.shaw import shaw_attention_scores
from posenc_ref.t5 import t5_relative_position_bucket

from ...judging import Case, Spec, randn


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
        relative_position: Any, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
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


# -- shaw-relative-logits ------------------------------------------------------------------------------------
def shaw_spec() -> Spec:
    def reference(q, k, rel_k, clip):
        return shaw_attention_scores(q.double(), k.double(), rel_k.double(), clip)

    def variant(
        *, clipped: bool = True, flip: bool = False, scale: bool = True, rel: bool = True
    ) -> Callable[..., torch.Tensor]:
        def run(q: torch.Tensor, k: torch.Tensor, rel_k: torch.Tensor, clip: int) -> torch.Tensor:
            qd, kd, rd = q.double(), k.double(), rel_k.double()
            lq, lk = q.shape[-2], k.shape[-2]
            dist = torch.arange(lk)[None, :] - torch.arange(lq)[:, None]
            if flip:
                dist = -dist
            if clipped:
                dist = dist.clamp(-clip, clip)
            idx = dist + clip
            if bool((idx < 0).any()) or bool((idx >= rd.shape[0]).any()):
                idx = idx % rd.shape[0]  # python-style wrap of an unclipped index
            out = qd @ kd.transpose(-1, -2)
            if rel:
                out = out + torch.einsum("...id,ijd->...ij", qd, rd[idx])
            return out / math.sqrt(q.shape[-1]) if scale else out

        return run

    def inputs(lead: tuple[int, ...], lq: int, lk: int, d: int, clip: int, seed: int) -> tuple[Any, ...]:
        return (
            randn(*lead, lq, d, seed=seed),
            randn(*lead, lk, d, seed=seed + 1),
            randn(2 * clip + 1, d, seed=seed + 2),
            clip,
        )

    def cases() -> list[Case]:
        return [
            Case("one head, L 4, clip 2", inputs((), 4, 4, 8, 2, 70), atol=1e-4),
            Case("distances beyond clip: L 9, clip 2", inputs((), 9, 9, 8, 2, 73), atol=1e-4),
            Case("Lq 3 != Lk 7", inputs((), 3, 7, 4, 3, 76), atol=1e-4),
            Case("batch and heads [2, 3, 6, 8], clip 1", inputs((2, 3), 6, 6, 8, 1, 79), atol=1e-4),
            Case("clip 0 (no relative information)", inputs((), 5, 5, 4, 0, 82), atol=1e-4),
            Case("seq 1", inputs((), 1, 1, 4, 2, 85), atol=1e-4),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", inputs((), lq, lk, d, c, 90 + i), atol=1e-4)
            for i, (lq, lk, d, c) in enumerate(((2, 2, 2, 1), (3, 3, 2, 1), (4, 4, 4, 1), (5, 5, 4, 2)))
        ],
        mistakes=[
            (
                "distances are not clipped to [−clip, clip]: far pairs must share the edge vectors",
                variant(clipped=False),
            ),
            ("the distance is i − j; Shaw's table is indexed by j − i (key minus query)", variant(flip=True)),
            ("the 1/√d scale is missing", variant(scale=False)),
            ("the relative term q·a^K is missing", variant(rel=False)),
        ],  # fmt: skip
    )


SPECS: dict[str, Callable[[], Spec]] = {
    "t5-bucket": t5_spec,
    "shaw-relative-logits": shaw_spec,
}
