"""Context-extension demos: RoPE frequency scaling under PI, NTK, YaRN and llama3."""

from __future__ import annotations

from . import register
from .base import Demo, DemoContext, Param


def _run_rope_scaling(
    ctx: DemoContext,
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    seq_len: int,
    beta_fast: float,
    beta_slow: float,
    low_freq_factor: float,
    high_freq_factor: float,
) -> None:
    raise NotImplementedError


register(
    Demo(
        name="rope-scaling",
        title="inv_freq under PI, dynamic NTK, YaRN and llama3 scaling",
        claim="PI divides every frequency by the factor; NTK-aware and dynamic NTK raise the base so high frequencies barely move and low ones shrink most; YaRN and llama3 keep high frequencies, divide low ones by the factor and blend in between.",
        topic="context-extension",
        params=(
            Param("dim", "int", 128, min=4, max=8192, even=True, help="head dimension d (even)"),
            Param("base", "float", 500000.0, min=2.0, max=1e9, help="RoPE base"),
            Param("factor", "float", 8.0, min=1.0, max=1024.0, help="context extension factor"),
            Param(
                "original_max_position_embeddings",
                "int",
                8192,
                min=16,
                max=10_000_000,
                help="pre-training context length",
            ),
            Param("seq_len", "int", 65536, min=1, max=100_000_000, help="current length (dynamic NTK)"),
            Param(
                "beta_fast", "float", 32.0, min=0.0, max=1e6, help="YaRN: rotations where interpolation stops"
            ),
            Param(
                "beta_slow",
                "float",
                1.0,
                min=0.0,
                max=1e6,
                help="YaRN: rotations where interpolation is full",
            ),
            Param(
                "low_freq_factor",
                "float",
                1.0,
                min=0.01,
                max=1e6,
                help="llama3: low-frequency wavelength factor",
            ),
            Param(
                "high_freq_factor",
                "float",
                4.0,
                min=0.01,
                max=1e6,
                help="llama3: high-frequency wavelength factor",
            ),
        ),
        values=(
            "llama3_kept",
            "llama3_blended",
            "llama3_scaled",
            "yarn_low",
            "yarn_high",
            "yarn_attention_factor",
            "dynamic_base",
            "linear_ratio",
            "ntk_first_ratio",
            "ntk_last_ratio",
            "max_error",
        ),
        run=_run_rope_scaling,
        memory_bytes=lambda dim, **_: 8 * dim * 16,
    )
)
