"""ALiBi: per-head slopes and the distance bias.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc_ref.alibi import alibi_bias as ref_alibi_bias
from posenc_ref.alibi import alibi_slopes as ref_alibi_slopes

from ...judging import Case, Spec


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


SPECS: dict[str, Callable[[], Spec]] = {
    "alibi-slopes": slopes_spec,
    "alibi-bias": bias_spec,
}
