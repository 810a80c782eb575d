"""Relative-family demos: T5 buckets, Shaw clipping, Transformer-XL/XLNet and DeBERTa terms."""

from __future__ import annotations

from . import register
from .base import Demo, DemoContext, Param

SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed")


def _run_t5_buckets(ctx: DemoContext, bidirectional: bool, num_buckets: int, max_distance: int) -> None:
    raise NotImplementedError


def _run_shaw_relative(ctx: DemoContext, seq_len: int, clip: int, dim: int, seed: int) -> None:
    raise NotImplementedError


def _run_xlnet_terms(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    raise NotImplementedError


def _run_deberta_terms(ctx: DemoContext, seq_len: int, dim: int, span: int, seed: int) -> None:
    raise NotImplementedError


register(
    Demo(
        name="t5-buckets",
        title="T5 relative position buckets",
        claim="T5 maps key − query to a bucket: exact for small distances, log-spaced up to max_distance, then saturated; bidirectional buckets split by direction.",
        topic="relative",
        params=(
            Param("bidirectional", "bool", True, help="encoder (true) or causal decoder (false)"),
            Param("num_buckets", "int", 32, min=2, max=1024, even=True, help="number of buckets"),
            Param("max_distance", "int", 128, min=2, max=1_000_000, help="distance where buckets saturate"),
        ),
        values=("max_error", "first_max_bucket_distance", "exact_buckets"),
        run=_run_t5_buckets,
        memory_bytes=lambda max_distance, **_: 8 * (4 * max_distance + 64) * 4,
    )
)
register(
    Demo(
        name="shaw-relative",
        title="Shaw et al.: clipped relative position embeddings",
        claim="Shaw's scheme learns 2k + 1 vectors for relative distances clipped to [−k, k] and adds them to the keys (and values) inside attention.",
        topic="relative",
        params=(
            Param("seq_len", "int", 8, min=1, max=4096, help="tokens"),
            Param("clip", "int", 2, min=0, max=4096, help="clipping distance k"),
            Param("dim", "int", 8, min=1, max=1024, help="head dimension"),
            SEED,
        ),
        values=("n_embeddings", "max_error"),
        run=_run_shaw_relative,
        memory_bytes=lambda seq_len, dim, **_: 8 * seq_len * seq_len * dim * 4,
    )
)
register(
    Demo(
        name="xlnet-terms",
        title="Transformer-XL/XLNet attention: four terms with u and v",
        claim="Transformer-XL replaces p_j with the sinusoid of i − j and the query's position terms with learned u and v; the four terms still sum to the full score.",
        topic="relative",
        params=(
            Param("seq_len", "int", 6, min=1, max=2048, help="tokens"),
            Param("dim", "int", 8, min=2, max=1024, even=True, help="head dimension (even)"),
            SEED,
        ),
        values=("max_error", "position_only_rank"),
        run=_run_xlnet_terms,
        memory_bytes=lambda seq_len, dim, **_: 8 * seq_len * seq_len * (dim + 8),
    )
)
register(
    Demo(
        name="deberta-terms",
        title="DeBERTa disentangled attention: c2c + c2p + p2c",
        claim="DeBERTa keeps content-to-content, content-to-position and position-to-content terms, drops position-to-position, and indexes relative embeddings by a clipped δ(i, j).",
        topic="relative",
        params=(
            Param("seq_len", "int", 6, min=1, max=2048, help="tokens"),
            Param("dim", "int", 8, min=1, max=1024, help="head dimension"),
            Param("span", "int", 4, min=1, max=4096, help="maximum relative distance k"),
            SEED,
        ),
        values=("max_error", "n_terms", "scale"),
        run=_run_deberta_terms,
        memory_bytes=lambda seq_len, dim, **_: 8 * seq_len * seq_len * (dim + 8),
    )
)
