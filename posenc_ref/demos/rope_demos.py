"""RoPE demos: relativity, norm, decay, layouts, forms, precision, KV cache, multimodal sections."""

from __future__ import annotations

from . import register
from .base import Demo, DemoContext, Param

DIM = Param("dim", "int", 8, min=2, max=8192, even=True, help="head dimension d (even)")
BASE = Param("base", "float", 10000.0, min=2.0, max=1e9, help="RoPE base (θ_i = base^(-2i/d))")
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed for q and k")


def _f32(*sizes: int) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return 4 * n


def _run_rope_relativity(ctx: DemoContext, dim: int, m: int, n: int, base: float, seed: int) -> None:
    raise NotImplementedError


def _run_rope_norm(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    raise NotImplementedError


def _run_rope_decay(ctx: DemoContext, dim: int, base: float, max_distance: int) -> None:
    raise NotImplementedError


def _run_rope_layouts(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    raise NotImplementedError


def _run_rope_forms(ctx: DemoContext, dim: int, seq_len: int, base: float, seed: int) -> None:
    raise NotImplementedError


def _run_rope_precision(ctx: DemoContext, dim: int, base: float) -> None:
    raise NotImplementedError


def _run_rope_kv_cache(ctx: DemoContext, dim: int, prefix_len: int, new_tokens: int, seed: int) -> None:
    raise NotImplementedError


def _run_mrope_sections(ctx: DemoContext, text_before: int, grid_t: int, grid_h: int, grid_w: int) -> None:
    raise NotImplementedError


register(
    Demo(
        name="rope-relativity",
        title="RoPE scores depend only on m − n",
        claim="⟨R(q, m), R(k, n)⟩ equals ⟨R(q, m − n), k⟩, so every (m, n) pair with the same offset gets the same score.",
        topic="rope",
        params=(
            DIM,
            Param("m", "int", 5, min=0, max=1_000_000, help="query position m"),
            Param("n", "int", 2, min=0, max=1_000_000, help="key position n"),
            BASE,
            SEED,
        ),
        values=("score", "relative_score", "max_error"),
        run=_run_rope_relativity,
        memory_bytes=lambda dim, **_: _f32(16, dim, 4),
    )
)
register(
    Demo(
        name="rope-norm",
        title="RoPE preserves vector norms",
        claim="Each 2-D pair is rotated, never stretched, so ‖R(x, m)‖ = ‖x‖ at every position.",
        topic="rope",
        params=(
            Param("dim", "int", 64, min=2, max=8192, even=True, help="head dimension d (even)"),
            Param("seq_len", "int", 128, min=1, max=1_000_000, help="number of positions"),
            BASE,
            SEED,
        ),
        values=("max_norm_error",),
        run=_run_rope_norm,
        memory_bytes=lambda dim, seq_len, **_: _f32(seq_len, dim, 6),
    )
)
register(
    Demo(
        name="rope-decay",
        title="RoFormer's long-term decay bound",
        claim="The RoFormer bound (mean |S_j| over j) starts at (d/2 + 1)/2 at distance 0 and trends down, with oscillation, as the distance grows.",
        topic="rope",
        params=(
            Param("dim", "int", 128, min=4, max=8192, even=True, help="head dimension d (even)"),
            BASE,
            Param("max_distance", "int", 250, min=1, max=100_000, help="largest relative distance plotted"),
        ),
        values=("bound_at_0", "bound_at_max", "min_bound", "is_monotone"),
        run=_run_rope_decay,
        memory_bytes=lambda dim, max_distance, **_: 8 * (max_distance + 1) * dim * 2,
    )
)
register(
    Demo(
        name="rope-layouts",
        title="Half-split and interleaved RoPE are one map up to a permutation",
        claim="Permuting channels with hf[r·d/2 + i] = meta[2i + r] turns interleaved (GPT-J/Meta) RoPE into half-split (NeoX/HF) RoPE, so converted LLaMA weights give identical scores.",
        topic="rope",
        params=(DIM, Param("seq_len", "int", 16, min=1, max=100_000, help="number of positions"), BASE, SEED),
        values=("max_error", "score_max_error"),
        run=_run_rope_layouts,
        memory_bytes=lambda dim, seq_len, **_: _f32(seq_len, dim, 8),
    )
)
register(
    Demo(
        name="rope-forms",
        title="Matrix, complex and rotate_half forms of RoPE agree",
        claim="The block-diagonal rotation matrix, the complex multiply q·e^{imθ} and the cos/sin + rotate_half form compute the same rotation.",
        topic="rope",
        params=(DIM, Param("seq_len", "int", 16, min=1, max=4096, help="number of positions"), BASE, SEED),
        values=("max_error", "matrix_vs_complex", "matrix_vs_rotate_half"),
        run=_run_rope_forms,
        memory_bytes=lambda dim, seq_len, **_: 8 * seq_len * dim * dim + _f32(seq_len, dim, 8),
    )
)
register(
    Demo(
        name="rope-precision",
        title="Angle precision at long positions (float32 vs float64)",
        claim="Computing position·θ in float32 makes cos drift from the float64 value by about 3e-6 at position 100 and 3.4e-3 at 131072.",
        topic="pitfalls",
        params=(Param("dim", "int", 128, min=2, max=8192, even=True, help="head dimension d (even)"), BASE),
        values=("error_100", "error_4096", "error_32768", "error_131072"),
        run=_run_rope_precision,
        memory_bytes=lambda dim, **_: 8 * 8 * dim,
    )
)
register(
    Demo(
        name="rope-kv-cache",
        title="Positions with a KV cache",
        claim="Decoding with a KV cache matches the full forward pass only if new tokens get positions prefix_len, prefix_len+1, …, not 0, 1, ….",
        topic="pitfalls",
        params=(
            Param("dim", "int", 16, min=2, max=4096, even=True, help="head dimension d (even)"),
            Param("prefix_len", "int", 8, min=1, max=100_000, help="tokens already in the cache"),
            Param("new_tokens", "int", 4, min=1, max=4096, help="tokens decoded after the prefix"),
            SEED,
        ),
        values=("max_error", "restart_error"),
        run=_run_rope_kv_cache,
        memory_bytes=lambda dim, prefix_len, new_tokens, **_: (
            _f32(prefix_len + new_tokens, dim, 12) + _f32(prefix_len + new_tokens, prefix_len + new_tokens, 4)
        ),
    )
)
register(
    Demo(
        name="mrope-sections",
        title="Multimodal RoPE (Qwen2-VL): temporal, height and width sections",
        claim="M-RoPE splits the 64 frequency pairs of a 128-dim head into 16 temporal, 24 height and 24 width pairs; text tokens use the same id on all three axes, and text after an image resumes at the largest vision id plus one.",
        topic="rope-variants",
        params=(
            Param("text_before", "int", 3, min=0, max=4096, help="text tokens before the image"),
            Param("grid_t", "int", 1, min=1, max=64, help="temporal patches (1 for an image)"),
            Param("grid_h", "int", 4, min=1, max=256, help="patch rows (after merging)"),
            Param("grid_w", "int", 6, min=1, max=256, help="patch columns (after merging)"),
        ),
        values=("n_tokens", "next_text_position", "temporal_pairs", "height_pairs", "width_pairs"),
        run=_run_mrope_sections,
        memory_bytes=lambda text_before, grid_t, grid_h, grid_w, **_: (
            8 * 3 * (text_before + grid_t * grid_h * grid_w + 4)
        ),
    )
)
