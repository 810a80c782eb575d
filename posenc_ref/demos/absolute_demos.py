"""Absolute-PE demos: sinusoidal properties, learned tables, integer/binary codes, why PE exists."""

from __future__ import annotations

from . import register
from .base import Demo, DemoContext, Param

BASE = Param("base", "float", 10000.0, min=2.0, max=1e9, help="sinusoid base (10000 in the paper)")
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed")


def _run_sinusoidal_linearity(ctx: DemoContext, dim: int, k: int, seq_len: int, base: float) -> None:
    raise NotImplementedError


def _run_sinusoidal_wavelengths(ctx: DemoContext, dim: int, base: float) -> None:
    raise NotImplementedError


def _run_sinusoidal_dot(ctx: DemoContext, dim: int, seq_len: int, base: float) -> None:
    raise NotImplementedError


def _run_learned_extrapolation(ctx: DemoContext, max_len: int, train_len: int, dim: int, seed: int) -> None:
    raise NotImplementedError


def _run_integer_binary_pe(ctx: DemoContext, seq_len: int) -> None:
    raise NotImplementedError


def _run_permutation_equivariance(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    raise NotImplementedError


def _run_attention_expansion(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    raise NotImplementedError


register(
    Demo(
        name="sinusoidal-linearity",
        title="Sinusoidal PE: a fixed linear map shifts any position by k",
        claim="For every p, PE[p + k] = M_k · PE[p], where M_k is block-diagonal 2×2 rotations that depend on k only, never on p.",
        topic="absolute",
        params=(
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension d (even)"),
            Param("k", "int", 3, min=-100_000, max=100_000, help="shift k"),
            Param("seq_len", "int", 64, min=1, max=100_000, help="positions p checked"),
            BASE,
        ),
        values=("max_error",),
        run=_run_sinusoidal_linearity,
        memory_bytes=lambda dim, seq_len, k, **_: 8 * (seq_len + abs(k)) * dim * 3 + 8 * dim * dim,
    )
)
register(
    Demo(
        name="sinusoidal-wavelengths",
        title="Sinusoidal wavelengths form a geometric progression",
        claim="Pair i has wavelength 2π·base^(2i/d): from 2π for the first pair up to nearly 2π·base for the last.",
        topic="absolute",
        params=(Param("dim", "int", 512, min=2, max=65536, even=True, help="model dimension d (even)"), BASE),
        values=("min_wavelength", "max_wavelength", "ratio"),
        run=_run_sinusoidal_wavelengths,
        memory_bytes=lambda dim, **_: 8 * dim * 4,
    )
)
register(
    Demo(
        name="sinusoidal-dot",
        title="PE[p]·PE[p + k] depends on the distance k only",
        claim="PE[p]·PE[p + k] = Σ_i cos(ω_i k): the same for every p, symmetric in k, and equal to d/2 at k = 0.",
        topic="absolute",
        params=(
            Param("dim", "int", 128, min=2, max=65536, even=True, help="model dimension d (even)"),
            Param("seq_len", "int", 64, min=2, max=100_000, help="positions"),
            BASE,
        ),
        values=("max_error", "dot_at_0", "symmetry_error"),
        run=_run_sinusoidal_dot,
        memory_bytes=lambda dim, seq_len, **_: 8 * seq_len * dim * 2 + 8 * seq_len * seq_len,
    )
)
register(
    Demo(
        name="learned-extrapolation",
        title="Learned position tables cannot extrapolate",
        claim="A learned table has no row for positions ≥ max_len, and rows past the training length never receive a gradient, so they stay at their random init.",
        topic="absolute",
        params=(
            Param("max_len", "int", 16, min=2, max=100_000, help="rows in the table"),
            Param("train_len", "int", 8, min=1, max=100_000, help="longest sequence seen in training"),
            Param("dim", "int", 8, min=1, max=4096, help="embedding dimension"),
            SEED,
        ),
        values=("refused", "untrained_grad_norm", "trained_grad_norm"),
        run=_run_learned_extrapolation,
        memory_bytes=lambda max_len, dim, **_: 4 * max_len * dim * 4,
    )
)
register(
    Demo(
        name="integer-binary-pe",
        title="Why not integer or binary position codes?",
        claim="Integer codes grow without bound (position L−1 dwarfs the embeddings); binary codes are bounded but need ceil(log2 L) bits and jump discretely between neighbours.",
        topic="why-pe",
        params=(Param("seq_len", "int", 16, min=2, max=1_000_000, help="sequence length L"),),
        values=("integer_max", "binary_bits", "max_neighbour_jump"),
        run=_run_integer_binary_pe,
        memory_bytes=lambda seq_len, **_: 8 * seq_len * 64,
        uses_torch=False,
    )
)
register(
    Demo(
        name="permutation-equivariance",
        title="Attention without PE is permutation-equivariant",
        claim="Shuffling the input rows of position-free self-attention just shuffles the output rows the same way; adding PE breaks this.",
        topic="why-pe",
        params=(
            Param("seq_len", "int", 6, min=2, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("no_pe_error", "with_pe_difference"),
        run=_run_permutation_equivariance,
        memory_bytes=lambda seq_len, dim, **_: (
            4 * (seq_len * dim * 12 + 3 * dim * dim + 4 * seq_len * seq_len)
        ),
    )
)
register(
    Demo(
        name="attention-expansion",
        title="The 4-term expansion of q·k under absolute PE",
        claim="(x_i + p_i)W_Q·((x_j + p_j)W_K) = content·content + content·position + position·content + position·position, exactly.",
        topic="absolute",
        params=(
            Param("seq_len", "int", 8, min=1, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("max_error",),
        run=_run_attention_expansion,
        memory_bytes=lambda seq_len, dim, **_: (
            8 * (seq_len * dim * 6 + 2 * dim * dim + 6 * seq_len * seq_len)
        ),
    )
)
