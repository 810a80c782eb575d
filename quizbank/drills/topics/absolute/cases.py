"""Absolute positions: the sinusoidal table and a learned embedding.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.sinusoidal import sinusoidal_pe as ref_sinusoidal_pe

from ...judging import Case, Spec, randn


# -- sinusoidal-pe ------------------------------------------------------------------------------------------
def sinusoidal(seq_len: int, dim: int, base: float = 10000.0, **kw: Any) -> torch.Tensor:
    return ref_sinusoidal_pe(seq_len, dim, base=base, **kw)


def sinusoidal_spec() -> Spec:
    def cases() -> list[Case]:
        f32: dict[str, Any] = dict(atol=1e-5, dtype=torch.float32)
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


SPECS: dict[str, Callable[[], Spec]] = {
    "sinusoidal-pe": sinusoidal_spec,
    "learned-pe": learned_spec,
}
