"""Context extension: NTK-aware, YaRN and Llama 3 frequencies, position interpolation.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from posenc_ref.rope_scaling import rope_scaled_inv_freq, rope_scaled_inv_freq_np, yarn_correction_range

from ...judging import Case, Spec, Verdict, compare_tensors, randn
from ..rope.cases import rope, theta


# -- frequency rules ------------------------------------------------------------------------------------------
def ntk_spec() -> Spec:
    def reference(dim: int, base: float, factor: float) -> torch.Tensor:
        return torch.from_numpy(rope_scaled_inv_freq_np(dim, base=base, rope_type="ntk", factor=factor)[0])

    def cases() -> list[Case]:
        rel: dict[str, Any] = dict(atol=0.0, rtol=1e-5)
        return [
            Case("dim 128, base 10000, factor 4", (128, 10000.0, 4.0), **rel),
            Case("dim 64, base 500000, factor 8", (64, 500000.0, 8.0), **rel),
            Case("dim 4 (two pairs), factor 2", (4, 10000.0, 2.0), **rel),
            Case("factor 1 leaves θ unchanged", (32, 10000.0, 1.0), **rel),
            Case("fractional factor 2.5", (16, 10000.0, 2.5), **rel),
        ]

    def ntk_base(exponent: Callable[[int], float]) -> Callable[..., torch.Tensor]:
        return lambda dim, base, factor: theta(dim, base * factor ** exponent(dim))

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (d, 10000.0, f), atol=0.0, rtol=1e-5) for d, f in ((4, 2.0), (6, 2.0), (8, 4.0))
        ],
        mistakes=[
            ("the base is multiplied by factor, without the exponent dim/(dim−2)", ntk_base(lambda d: 1.0)),
            ("the exponent is inverted: (dim−2)/dim instead of dim/(dim−2)", ntk_base(lambda d: (d - 2) / d)),
            (
                "the frequencies are divided by factor: that is linear interpolation (PI), not NTK-aware scaling",
                lambda dim, base, factor: theta(dim, base) / factor,
            ),
            ("the factor is ignored", lambda dim, base, factor: theta(dim, base)),
        ],  # fmt: skip
    )


def _yarn_np(
    dim: int,
    base: float,
    factor: float,
    original: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    **kw: Any,
) -> tuple[np.ndarray, float]:
    return rope_scaled_inv_freq_np(
        dim, base=base, rope_type="yarn", factor=factor, original_max_position_embeddings=original,
        beta_fast=beta_fast, beta_slow=beta_slow, **kw,
    )  # fmt: skip


def _yarn_ramp(
    dim: int, base: float, factor: float, original: int, low: float, high: float, invert: bool = False
) -> torch.Tensor:
    th = theta(dim, base)
    if low == high:
        high += 0.001
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    if invert:
        ramp = 1 - ramp
    return th * (1 - ramp) + th / factor * ramp


def yarn_spec() -> Spec:
    def reference(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
        inv, att = rope_scaled_inv_freq(
            dim, base=base, rope_type="yarn", factor=factor,
            original_max_position_embeddings=original_max_position_embeddings, beta_fast=beta_fast,
            beta_slow=beta_slow,
        )  # fmt: skip
        return inv.to(torch.float64), float(att)

    def cases() -> list[Case]:
        rel: dict[str, Any] = dict(atol=0.0, rtol=1e-5)
        return [
            Case("dim 128, base 10000, factor 4, 4096 positions", (128, 10000.0, 4.0, 4096), **rel),
            Case("Qwen-style: dim 128, base 1e6, factor 4, 32768", (128, 1000000.0, 4.0, 32768), **rel),
            Case("dim 64, base 10000, factor 16, 2048", (64, 10000.0, 16.0, 2048), **rel),
            Case("beta_fast 16, beta_slow 2", (128, 10000.0, 8.0, 4096, 16.0, 2.0), **rel),
            Case("dim 16 (high clamps to dim − 1)", (16, 10000.0, 4.0, 2048), **rel),
            Case("factor 1: attention factor 1", (32, 10000.0, 1.0, 2048), **rel),
        ]

    def variant(kind: str) -> Callable[..., Any]:
        def run(dim, base, factor, original, beta_fast=32.0, beta_slow=1.0):
            inv, att = reference(dim, base, factor, original, beta_fast, beta_slow)
            lo, hi = yarn_correction_range(
                dim,
                base=base,
                original_max_position_embeddings=original,
                beta_fast=beta_fast,
                beta_slow=beta_slow,
            )
            if kind == "no_temperature":
                return inv, 1.0
            if kind == "sqrt_temperature":
                return inv, math.sqrt(att)
            if kind == "squared_temperature":
                return inv, att * att
            if kind == "inverse_temperature":
                return inv, 1.0 / att
            if kind == "inverted_ramp":
                return _yarn_ramp(dim, base, factor, original, lo, hi, invert=True), att
            if kind == "no_truncate":
                lo, hi = yarn_correction_range(
                    dim, base=base, original_max_position_embeddings=original, beta_fast=beta_fast,
                    beta_slow=beta_slow, truncate=False,
                )  # fmt: skip
                return _yarn_ramp(dim, base, factor, original, lo, hi), att
            if kind == "swapped_betas":
                lo, hi = yarn_correction_range(
                    dim,
                    base=base,
                    original_max_position_embeddings=original,
                    beta_fast=beta_slow,
                    beta_slow=beta_fast,
                )
                return _yarn_ramp(dim, base, factor, original, lo, hi), att
            if kind == "half_clamp":
                return _yarn_ramp(dim, base, factor, original, lo, min(hi, dim // 2 - 1)), att
            if kind == "linear":
                return theta(dim, base) / factor, att
            if kind == "temperature_in_freq":
                return inv * att, att
            raise AssertionError(kind)

        return run

    def compare(out: Any, expected: Any, case: Case) -> Verdict:
        if not isinstance(out, tuple | list) or len(out) != 2:
            return Verdict(
                False, math.inf, f"returned {type(out).__name__}, expected (inv_freq, attention_factor)"
            )
        freq = compare_tensors(out[0], expected[0], case)
        if not freq.ok:
            return Verdict(False, freq.error, freq.detail and f"inv_freq: {freq.detail}")
        try:
            att = float(out[1])
        except (TypeError, ValueError):
            return Verdict(False, math.inf, f"attention_factor is {type(out[1]).__name__}, expected a float")
        error = abs(att - expected[1]) / abs(expected[1])
        if error > max(case.rtol, 1e-9):
            return Verdict(False, error, f"attention_factor is {att:.6g}, expected {expected[1]:.6g}")
        return Verdict(True, max(freq.error, error))

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [Case("probe", (d, 10000.0, 4.0, 2048), atol=0.0, rtol=1e-5) for d in (8, 16, 32, 64)],
        mistakes=[
            (
                "the attention factor (temperature) is missing: it is 0.1·ln(factor) + 1, returned beside inv_freq",
                variant("no_temperature"),
            ),
            (
                "the attention factor is √(0.1·ln s + 1); HF returns 0.1·ln(s) + 1 itself (it multiplies cos and sin)",
                variant("sqrt_temperature"),
            ),
            ("the attention factor is squared", variant("squared_temperature")),
            ("the attention factor is inverted: 1/(0.1·ln s + 1)", variant("inverse_temperature")),
            (
                "the attention factor is multiplied into inv_freq; return it separately",
                variant("temperature_in_freq"),
            ),
            (
                "the ramp is inverted: high-frequency pairs (low index) must keep θ, low-frequency pairs get θ/factor",
                variant("inverted_ramp"),
            ),
            (
                "the correction range is not floored/ceiled (HF truncates: low = floor, high = ceil)",
                variant("no_truncate"),
            ),
            ("beta_fast and beta_slow are swapped: beta_fast gives the low bound", variant("swapped_betas")),
            ("high is clamped to dim/2 − 1; HF clamps it to dim − 1", variant("half_clamp")),
            (
                "every frequency is divided by factor: that is linear interpolation, not YaRN",
                variant("linear"),
            ),
        ],  # fmt: skip
        compare=compare,
    )


def llama3_spec() -> Spec:
    def reference(dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor):
        inv, _ = rope_scaled_inv_freq(
            dim, base=base, rope_type="llama3", factor=factor, low_freq_factor=low_freq_factor,
            high_freq_factor=high_freq_factor, original_max_position_embeddings=original_max_position_embeddings,
        )  # fmt: skip
        return inv.to(torch.float64)

    def bands(
        dim: int, base: float, factor: float, original: int, low: float, high: float, *, middle: str
    ) -> torch.Tensor:
        th = theta(dim, base)
        wavelen = 2 * math.pi / th
        smooth = (original / wavelen - low) / (high - low)
        if middle == "keep":
            mid = th
        elif middle == "divide":
            mid = th / factor
        elif middle == "inverted":
            mid = smooth * th / factor + (1 - smooth) * th
        else:
            mid = (1 - smooth) * th / factor + smooth * th
        out = torch.where(wavelen < original / high, th, mid)
        return torch.where(wavelen > original / low, th / factor, out)

    def cases() -> list[Case]:
        rel: dict[str, Any] = dict(atol=0.0, rtol=1e-5)
        return [
            Case(
                "Llama 3.1: dim 128, base 500000, factor 8, 8192, 1/4",
                (128, 500000.0, 8.0, 8192, 1.0, 4.0),
                **rel,
            ),
            Case("Llama 3.2: factor 32", (128, 500000.0, 32.0, 8192, 1.0, 4.0), **rel),
            Case("dim 64, base 10000, factor 4, 2048, 1/4", (64, 10000.0, 4.0, 2048, 1.0, 4.0), **rel),
            Case("low 2, high 8", (128, 500000.0, 8.0, 8192, 2.0, 8.0), **rel),
            Case("dim 16", (16, 10000.0, 4.0, 512, 1.0, 4.0), **rel),
        ]

    def compare(out: Any, expected: Any, case: Case) -> Verdict:
        if isinstance(out, tuple | list) and len(out) == 2:
            out = out[0]  # HF's (inv_freq, attention_factor) is accepted
        return compare_tensors(out, expected, case)

    def variant(middle: str) -> Callable[..., Any]:
        return lambda d, b, f, o, lo, hi: bands(d, b, f, o, lo, hi, middle=middle)

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (d, 10000.0, 4.0, 512, 1.0, 4.0), atol=0.0, rtol=1e-5) for d in (4, 8, 16, 32, 64)
        ],
        mistakes=[
            (
                "the smooth band is missing: wavelengths between L/high_freq_factor and L/low_freq_factor keep θ "
                "instead of blending",
                variant("keep"),
            ),
            (
                "the smooth band is missing: the middle wavelengths are divided by factor instead of blended",
                variant("divide"),
            ),
            (
                "the blend is inverted: s = 1 (short wavelengths) must keep θ, s = 0 gives θ/factor",
                variant("inverted"),
            ),
            (
                "the thresholds are swapped: λ < L/high_freq_factor keeps θ, λ > L/low_freq_factor is divided",
                lambda d, b, f, o, lo, hi: bands(d, b, f, o, hi, lo, middle="blend"),
            ),
            (
                "every frequency is divided by factor: that is linear interpolation, not the llama3 rule",
                lambda d, b, f, o, lo, hi: theta(d, b) / f,
            ),
        ],  # fmt: skip
        compare=compare,
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


SPECS: dict[str, Callable[[], Spec]] = {
    "ntk-inv-freq": ntk_spec,
    "yarn-inv-freq": yarn_spec,
    "llama3-inv-freq": llama3_spec,
    "position-interpolation": pi_spec,
}
