"""ALiBi demos: head slopes and the bias matrix."""

from __future__ import annotations

from . import register
from .base import Demo, DemoContext, Param


def _run_alibi_slopes(ctx: DemoContext, n_heads: int) -> None:
    raise NotImplementedError


def _run_alibi_bias(ctx: DemoContext, n_heads: int, seq_len: int, causal: bool) -> None:
    raise NotImplementedError


register(
    Demo(
        name="alibi-slopes",
        title="ALiBi head slopes, including non-power-of-two head counts",
        claim="For n a power of two the slopes are 2^(−8h/n), h = 1..n; otherwise take the 2^⌊log2 n⌋ set and append every other slope of the next power of two.",
        topic="alibi",
        params=(Param("n_heads", "int", 12, min=1, max=1024, help="number of attention heads"),),
        values=("first_slope", "last_slope", "min_slope", "max_error", "n8_last_slope", "n12_ninth_slope"),
        run=_run_alibi_slopes,
        memory_bytes=lambda n_heads, **_: 8 * n_heads * 8,
    )
)
register(
    Demo(
        name="alibi-bias",
        title="The ALiBi bias matrix",
        claim="Head h adds −slope_h·(i − j) to the score of query i and key j; BLOOM's +slope·j form differs by a per-row constant, so the softmax is identical.",
        topic="alibi",
        params=(
            Param("n_heads", "int", 4, min=1, max=1024, help="number of attention heads"),
            Param("seq_len", "int", 8, min=1, max=16384, help="sequence length"),
            Param("causal", "bool", True, help="mask keys after the query with -inf"),
        ),
        values=("max_error", "softmax_offset_error", "bias_last_row_first"),
        run=_run_alibi_bias,
        memory_bytes=lambda n_heads, seq_len, **_: 8 * n_heads * seq_len * seq_len * 6,
    )
)
