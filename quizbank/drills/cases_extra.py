"""Cases and known mistakes for the drills beyond the fixed ten (run inside the grading child)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.mrope import mrope_positions
from posenc_ref.rope import half_to_interleaved_permutation, interleaved_to_half_permutation
from posenc_ref.shaw import shaw_attention_scores

from .cases import Case, Spec, compare_sequence, randn
from .cases_fixed import rope, theta


# -- shaw-relative-logits ------------------------------------------------------------------------------------
def shaw_spec() -> Spec:
    def reference(q, k, rel_k, clip):
        return shaw_attention_scores(q.double(), k.double(), rel_k.double(), clip)

    def variant(*, clipped: bool = True, flip: bool = False, scale: bool = True, rel: bool = True):
        def run(q, k, rel_k, clip):
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


# -- learned-pe ---------------------------------------------------------------------------------------------
def learned_spec() -> Spec:
    table = randn(10, 4, seed=100)

    def reference(table: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        positions = torch.as_tensor(positions)
        if positions.numel() and (int(positions.min()) < 0 or int(positions.max()) >= table.shape[0]):
            raise ValueError(f"position out of range for max_len={table.shape[0]}")
        return table[positions]

    def cases() -> list[Case]:
        return [
            Case("positions 0..9 (the whole table)", (table, torch.arange(10)), atol=0),
            Case("a [2, 3] batch of positions", (table, torch.tensor([[0, 5, 9], [9, 9, 1]])), atol=0),
            Case("position max_len is refused", (table, torch.tensor([3, 10])), raises=ValueError),
            Case("position 5000 is refused", (table, torch.tensor([5000])), raises=ValueError),
            Case("negative position is refused", (table, torch.tensor([0, -1])), raises=ValueError),
        ]

    def raised(exc: Exception, case: Case) -> tuple[bool, str]:
        bad = [
            int(p) for p in torch.as_tensor(case.args[1]).flatten() if p < 0 or p >= case.args[0].shape[0]
        ][0]
        text = str(exc)
        if not isinstance(exc, ValueError):
            return False, (
                f"raised {type(exc).__name__} ({text[:120]}); raise ValueError naming max_len "
                f"{case.args[0].shape[0]} and the position {bad}."
            )
        if str(case.args[0].shape[0]) not in text or str(bad) not in text:
            return (
                False,
                f"the ValueError message {text[:160]!r} should name max_len {case.args[0].shape[0]} and position {bad}.",
            )
        return True, "raised ValueError naming max_len and the position."

    return Spec(
        reference=reference,
        cases=cases,
        mistakes=[
            (
                "negative positions wrap around to the end of the table (Python indexing); refuse them",
                lambda t, p: t[torch.as_tensor(p)],
            ),
        ],  # fmt: skip
        raised=raised,
    )


# -- meta-to-hf-permute ---------------------------------------------------------------------------------------
def _permute_rows(w: torch.Tensor, n_heads: int, perm_fn: Callable[..., torch.Tensor]) -> torch.Tensor:
    rows, cols = w.shape
    head_dim = rows // n_heads
    perm = perm_fn(head_dim)
    return w.reshape(n_heads, head_dim, cols)[:, perm].reshape(rows, cols)


def meta_spec() -> Spec:
    def reference(w: torch.Tensor, n_heads: int) -> torch.Tensor:
        return _permute_rows(w, n_heads, half_to_interleaved_permutation)  # hf = meta[perm]

    def cases() -> list[Case]:
        return [
            Case("one head, head_dim 8", (randn(8, 5, seed=110), 1), atol=0),
            Case("4 heads, head_dim 8", (randn(32, 6, seed=111), 4), atol=0),
            Case("3 heads, head_dim 4 (GQA k_proj shape)", (randn(12, 16, seed=112), 3), atol=0),
            Case("2 heads, head_dim 2", (randn(4, 3, seed=113), 2), atol=0),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(r, 2, seed=120 + r), h), atol=0) for r, h in ((4, 1), (8, 1), (8, 2))
        ],
        mistakes=[
            (
                "this is the inverse permutation (HF → Meta): hf[r·head_dim/2 + i] = meta[2i + r]",
                lambda w, h: _permute_rows(w, h, interleaved_to_half_permutation),
            ),
            (
                "the whole matrix is permuted as one head; permute within each head's rows",
                lambda w, h: _permute_rows(w, 1, half_to_interleaved_permutation),
            ),
            ("the rows are returned unchanged", lambda w, h: w),
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


# -- mrope-position-ids ------------------------------------------------------------------------------------------
def mrope_spec() -> Spec:
    def reference(text_before, grid_t, grid_h, grid_w, text_after):
        return mrope_positions(text_before, grid_t, grid_h, grid_w, text_after)

    def resume_at_count(tb, t, h, w, ta):
        ids = reference(tb, t, h, w, 0)
        after = torch.arange(ta) + tb + t * h * w
        return torch.cat((ids, after.expand(3, -1)), 1)

    def swapped(tb, t, h, w, ta):
        ids = reference(tb, t, w, h, ta).clone()
        return ids[[0, 2, 1]]

    def cases() -> list[Case]:
        return [
            Case("text only", (5, 1, 1, 1, 0), atol=0),
            Case("image 2x3 between text", (3, 1, 2, 3, 4), atol=0),
            Case("video: 2 frames of 2x2", (2, 2, 2, 2, 3), atol=0),
            Case("image first, tall 4x2", (0, 1, 4, 2, 2), atol=0),
            Case("wide 2x5 image, then text", (1, 1, 2, 5, 3), atol=0),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", a, atol=0)
            for a in ((0, 1, 1, 2, 0), (0, 1, 2, 1, 0), (1, 1, 2, 2, 1), (0, 2, 1, 1, 1))
        ],
        mistakes=[
            (
                "text after the vision block resumes at start + t·h·w; it resumes at max(vision ids) + 1",
                resume_at_count,
            ),
            ("height and width are swapped: tokens are row-major, w varies fastest", swapped),
            (
                "every token uses its flat index on all three axes (that is 1-D RoPE)",
                lambda tb, t, h, w, ta: torch.arange(tb + t * h * w + ta).expand(3, -1),
            ),
        ],  # fmt: skip
    )


# -- rope-2d-axial ------------------------------------------------------------------------------------------------
def axial(x, grid_h, grid_w, base=10000.0, *, swap=False, flat=False, full_freq=False):
    half = x.shape[-1] // 2
    n = torch.arange(grid_h * grid_w)
    rows, cols = (n, n) if flat else (n // grid_w, n % grid_w)
    if swap:
        rows, cols = cols, rows
    inv = theta(x.shape[-1], base)[: half // 2] if full_freq else None
    return torch.cat(
        (rope(x[..., :half], rows, base, inv_freq=inv), rope(x[..., half:], cols, base, inv_freq=inv)), -1
    )


def axial_spec() -> Spec:
    def cases() -> list[Case]:
        return [
            Case("2x3 grid, dim 8", (randn(6, 8, seed=150), 2, 3), atol=1e-4),
            Case("3x3 grid, dim 16, batch [2, 2]", (randn(2, 2, 9, 16, seed=151), 3, 3), atol=1e-4),
            Case("1x4 grid (a single row)", (randn(4, 8, seed=152), 1, 4), atol=1e-4),
            Case("4x2 grid, dim 4", (randn(8, 4, seed=153), 4, 2), atol=1e-4),
            Case("base 100", (randn(6, 8, seed=154), 3, 2, 100.0), atol=1e-4),
        ]

    return Spec(
        reference=axial,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(h * w, d, seed=160 + d + h), h, w), atol=1e-4)
            for h, w, d in ((1, 2, 4), (2, 1, 4), (2, 2, 4), (2, 2, 8))
        ],
        mistakes=[
            (
                "rows and columns are swapped: the first dim/2 channels follow the row (n // grid_w)",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, swap=True),
            ),
            (
                "the flat token index is used as the position: that is 1-D RoPE, not 2-D",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, flat=True),
            ),
            (
                "the frequencies use the full dim; each half is a RoPE of width dim/2 (θ_i = base^(-2i/(dim/2)))",
                lambda x, h, w, base=10000.0: axial(x, h, w, base, full_freq=True),
            ),
        ],  # fmt: skip
    )


# -- partial-rotary -------------------------------------------------------------------------------------------------
def partial(x, positions, rotary_dim, base=10000.0, *, full_freq=False, tail=False):
    inv = theta(x.shape[-1], base)[: rotary_dim // 2] if full_freq else None
    if tail:
        cut = x.shape[-1] - rotary_dim
        return torch.cat((x[..., :cut], rope(x[..., cut:], positions, base, inv_freq=inv)), -1)
    return torch.cat((rope(x[..., :rotary_dim], positions, base, inv_freq=inv), x[..., rotary_dim:]), -1)


def partial_spec() -> Spec:
    def cases() -> list[Case]:
        return [
            Case("rotary_dim 8 of 16", (randn(5, 16, seed=170), torch.arange(5), 8), atol=1e-4),
            Case(
                "rotary_dim 16 of 64 (rotary_pct 0.25), heads",
                (randn(2, 4, 64, seed=171), torch.arange(4), 16),
                atol=1e-4,
            ),
            Case("rotary_dim = dim (plain RoPE)", (randn(3, 8, seed=172), torch.arange(3), 8), atol=1e-4),
            Case("offset positions 20..22", (randn(3, 12, seed=173), torch.arange(20, 23), 4), atol=1e-4),
        ]

    return Spec(
        reference=partial,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(2, d, seed=180 + d), torch.arange(2), r), atol=1e-4)
            for d, r in ((4, 2), (8, 4), (16, 8))
        ],
        mistakes=[
            (
                "the frequencies use the head dim; they use rotary_dim: θ_i = base^(-2i/rotary_dim)",
                lambda x, p, r, base=10000.0: partial(x, p, r, base, full_freq=True),
            ),
            (
                "the last rotary_dim channels are rotated; rotate the first ones",
                lambda x, p, r, base=10000.0: partial(x, p, r, base, tail=True),
            ),
            (
                "every channel is rotated; channels rotary_dim.. pass through unchanged",
                lambda x, p, r, base=10000.0: rope(x, p, base),
            ),
            (
                "the pass-through channels are dropped",
                lambda x, p, r, base=10000.0: rope(x[..., :r], p, base),
            ),
        ],  # fmt: skip
    )


# -- position-interpolation -------------------------------------------------------------------------------------------
def pi_spec() -> Spec:
    def reference(x, positions, factor, base=10000.0):
        return rope(x, torch.as_tensor(positions).double() / factor, base)

    def cases() -> list[Case]:
        return [
            Case("factor 2, positions 0..7", (randn(8, 16, seed=190), torch.arange(8), 2.0), atol=1e-4),
            Case(
                "factor 4, positions beyond the trained range",
                (randn(4, 8, seed=191), torch.arange(4000, 4004), 4.0),
                atol=1e-3,
            ),
            Case("factor 1 is plain RoPE", (randn(2, 5, 8, seed=192), torch.arange(5), 1.0), atol=1e-4),
            Case("fractional factor 2.5", (randn(6, 8, seed=193), torch.arange(6), 2.5), atol=1e-4),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(2, d, seed=200 + d), torch.arange(2), 2.0), atol=1e-4) for d in (2, 4, 8)
        ],
        mistakes=[
            (
                "the positions are multiplied by factor; interpolation divides them",
                lambda x, p, f, base=10000.0: rope(x, torch.as_tensor(p).double() * f, base),
            ),
            (
                "integer division: positions // factor drops the fraction",
                lambda x, p, f, base=10000.0: rope(
                    x, torch.div(torch.as_tensor(p), f, rounding_mode="floor"), base
                ),
            ),
            (
                "the base is scaled (that is NTK-aware scaling, not position interpolation)",
                lambda x, p, f, base=10000.0: rope(x, p, base * f),
            ),
            ("the factor is ignored", lambda x, p, f, base=10000.0: rope(x, p, base)),
        ],  # fmt: skip
    )


EXTRA_SPECS: dict[str, Callable[[], Spec]] = {
    "shaw-relative-logits": shaw_spec,
    "learned-pe": learned_spec,
    "meta-to-hf-permute": meta_spec,
    "rope-kv-cache-decode": decode_spec,
    "mrope-position-ids": mrope_spec,
    "rope-2d-axial": axial_spec,
    "partial-rotary": partial_spec,
    "position-interpolation": pi_spec,
}
