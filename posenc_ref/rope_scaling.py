"""RoPE frequency scaling for context extension, as in HF transformers' ``modeling_rope_utils.py``.

Every rule returns ``(inv_freq, attention_factor)``: the ``[dim/2]`` frequencies that replace
``θ_i = base^(-2i/d)``, and a factor that multiplies cos and sin (so attention logits scale by
its square; 1.0 where the rule has none).

| rope_type  | rule | source |
|---|---|---|
| default    | ``θ_i = base^(-2i/d)`` | RoFormer (Su et al. 2021) |
| linear     | ``θ_i / factor`` (position interpolation) | Chen et al. 2023, kaiokendev 2023 |
| ntk        | base' = ``base · factor^(d/(d-2))`` (static NTK-aware) | bloc97, r/LocalLLaMA 2023 |
| dynamic    | NTK-aware base recomputed from the current length | emozilla, r/LocalLLaMA 2023 |
| yarn       | ramp between θ and θ/factor over pair index, mscale | Peng et al. 2023 |
| llama3     | wavelength bands: keep / blend / divide by factor | Meta Llama 3.1 (2024) |
| longrope   | per-pair rescale factors (short / long lists) | Ding et al. 2024 |

The torch functions mirror HF's operations in float32, so results are bitwise equal to HF's for
even dims; `rope_scaled_inv_freq_np` is the float64 textbook form of the same formulas.

Parameter names and defaults are HF's: ``factor``, ``original_max_position_embeddings``,
``max_position_embeddings``, ``seq_len``, ``beta_fast=32``, ``beta_slow=1``, ``attention_factor``,
``mscale``, ``mscale_all_dim``, ``truncate=True``, ``low_freq_factor``, ``high_freq_factor``,
``short_factor``, ``long_factor``.

`ROPE_SCALING_RULES` is the one table of rules (HF's ``ROPE_INIT_FUNCTIONS``): a `ScalingRule` per type holds
its parameters, required keys, torch and numpy functions and an example config. Validation, dispatch,
`ROPE_TYPES` and the GPU check (``bench/gpu_check.py``) read it. To add a rule: write ``_compute_<name>``
(torch; docstring naming the paper and the HF config keys) and ``_compute_<name>_np`` (float64), a record
below them, add the record to the table and a row to the table above.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

__all__ = [
    "ROPE_SCALING_RULES",
    "ROPE_TYPES",
    "ScalingRule",
    "llama3_frequency_bands",
    "rope_scaled_inv_freq",
    "rope_scaled_inv_freq_np",
    "yarn_correction_range",
    "yarn_get_mscale",
]

# seq_len and max_position_embeddings are model-level and accepted by every rule (HF passes them to every init
# function, most ignore them)
_COMMON = ("seq_len", "max_position_embeddings")
EXAMPLE_DIM = 64  # the head dimension every rule's `example` is written for


@dataclass(frozen=True)
class ScalingRule:
    """One ``rope_type``: its parameters, the torch and numpy functions, and a worked example.

    ``params``: the HF config keys the rule reads (besides ``seq_len`` and ``max_position_embeddings``,
    accepted by every rule); ``required``: those it cannot do without; ``check``: a rule between
    parameters (raises ValueError); ``torch_fn`` / ``numpy_fn``: ``(dim, base, device?, **params) ->
    (inv_freq, attention_factor)``; ``example``: a typical config for ``dim = EXAMPLE_DIM`` (the GPU check
    compares the two forms on it). The torch function's docstring names the paper and the config keys.
    """

    name: str
    params: tuple[str, ...]
    required: tuple[str, ...]
    torch_fn: Callable[..., tuple[torch.Tensor, float]]
    numpy_fn: Callable[..., tuple[np.ndarray, float]]
    example: Mapping[str, Any] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] | None = None

    @property
    def doc(self) -> str:
        """The paper, the formula and the HF config keys (the torch function's docstring)."""
        return inspect.cleandoc(self.torch_fn.__doc__ or "")


def _check_dim_base(dim: int, base: float) -> None:
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or dim < 2 or dim % 2:
        raise ValueError(f"dim must be an even integer >= 2 (RoPE rotates pairs), got {dim!r}")
    if not (isinstance(base, int | float | np.floating) and math.isfinite(base) and base > 1.0):
        raise ValueError(f"base must be a finite number > 1, got {base!r}")


def _require(rope_type: str, params: dict[str, Any], *names: str) -> None:
    missing = [n for n in names if params.get(n) is None]
    if missing:
        raise ValueError(f"rope_type {rope_type!r} needs {', '.join(missing)}")


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _validate(rope_type: str, params: dict[str, Any]) -> None:
    rule = ROPE_SCALING_RULES.get(rope_type)
    if rule is None:
        valid = ", ".join(ROPE_SCALING_RULES)
        raise ValueError(f"unknown rope_type {rope_type!r}; valid rope types: {valid}")
    allowed = rule.params + _COMMON
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"rope_type {rope_type!r} got unknown parameter(s) {', '.join(unknown)}; "
            f"valid parameters: {', '.join(allowed)}"
        )
    for name in ("factor", "low_freq_factor", "high_freq_factor", "attention_factor"):
        if params.get(name) is not None:
            _positive(name, params[name])
    for name in ("beta_fast", "beta_slow"):  # HF reads them with `or`, so 0 means the default
        value = params.get(name)
        if value is not None and value != 0:
            _positive(name, value)
    for name in ("original_max_position_embeddings", "max_position_embeddings"):
        if params.get(name) is not None:
            _positive(name, params[name])
    if params.get("seq_len") is not None:
        _positive("seq_len", params["seq_len"])


# ---------------------------------------------------------------------------------------------
# shared scalar formulas (plain Python floats, used by both the torch and the numpy forms)
# ---------------------------------------------------------------------------------------------


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature ``0.1 · mscale · ln(scale) + 1`` (1 for scale <= 1)."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def _yarn_correction_dim(
    num_rotations: float, dim: int, base: float, max_position_embeddings: float
) -> float:
    """Pair-space dim whose wavelength fits ``num_rotations`` times into the original context.

    ``d · ln(L / (2π · rotations)) / (2 ln base)`` (YaRN eq. for r(d)).
    """
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_correction_range(
    dim: int,
    *,
    base: float = 10000.0,
    original_max_position_embeddings: float,
    beta_fast: float = 32,
    beta_slow: float = 1,
    truncate: bool = True,
) -> tuple[float, float]:
    """YaRN's ramp bounds ``(low, high)`` over the pair index, as HF's ``find_correction_range``.

    ``low`` is the correction dim at ``beta_fast`` rotations (floored), ``high`` at ``beta_slow``
    (ceiled), then ``low = max(low, 0)`` and ``high = min(high, dim - 1)`` exactly as HF (dim - 1,
    not dim/2 - 1, and ``low`` has no upper clamp). Pairs below ``low`` keep θ (extrapolation),
    pairs above ``high`` use θ/factor (interpolation). If ``low > high`` (extreme bases or betas)
    HF's ramp is inverted; HF only warns, and so is mirrored here. ``truncate=False`` skips the
    floor/ceil (newer HF option).
    """
    beta_fast, beta_slow = beta_fast or 32, beta_slow or 1  # HF: 0 / None mean the defaults
    low = _yarn_correction_dim(beta_fast, dim, base, original_max_position_embeddings)
    high = _yarn_correction_dim(beta_slow, dim, base, original_max_position_embeddings)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def llama3_frequency_bands(
    dim: int,
    *,
    base: float = 500000.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_position_embeddings: int = 8192,
) -> dict[str, int]:
    """How many pairs the llama3 rule keeps, blends and divides by factor (float32 like HF).

    ``scaled``: wavelength > L/low_freq_factor (takes precedence, as in HF's first ``where``);
    ``kept``: wavelength < L/high_freq_factor and not scaled; ``blended``: the rest. With d=128,
    base 500000, factors 1/4 and 8192 original positions: 29 kept, 6 blended, 29 scaled.
    """
    _check_dim_base(dim, base)
    inv_freq = _default_inv_freq_torch(dim, base, None)
    wavelen = 2 * math.pi / inv_freq
    low_freq_wavelen = original_max_position_embeddings / low_freq_factor
    high_freq_wavelen = original_max_position_embeddings / high_freq_factor
    scaled_mask = wavelen > low_freq_wavelen
    kept = int(((wavelen < high_freq_wavelen) & ~scaled_mask).sum())
    scaled = int(scaled_mask.sum())
    return {"kept": kept, "blended": dim // 2 - kept - scaled, "scaled": scaled}


# ---------------------------------------------------------------------------------------------
# one torch form (mirrors HF's float32 operations), one float64 numpy form and one record per rule
# ---------------------------------------------------------------------------------------------


def _default_inv_freq_torch(dim: int, base: float, device: Any) -> torch.Tensor:
    # HF: 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    return 1.0 / (
        base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / dim)
    )


def _compute_default(dim: int, base: float, device: Any, **_: Any) -> tuple[torch.Tensor, float]:
    """Unscaled RoPE (Su et al. 2021, RoFormer): ``θ_i = base^(-2i/d)``; attention_factor 1."""
    return _default_inv_freq_torch(dim, base, device), 1.0


def _theta_np(dim: int, base: float) -> np.ndarray:
    i = np.arange(dim // 2, dtype=np.float64)
    return base ** (-2.0 * i / dim)  # θ_i = base^(-2i/d)


def _compute_default_np(dim: int, base: float, **_: Any) -> tuple[np.ndarray, float]:
    return _theta_np(dim, base), 1.0


DEFAULT = ScalingRule("default", (), (), _compute_default, _compute_default_np)


def _compute_linear(
    dim: int, base: float, device: Any, *, factor: float, **_: Any
) -> tuple[torch.Tensor, float]:
    """Position interpolation (Chen et al. 2023, "Extending Context Window of Large Language
    Models via Positional Interpolation"; kaiokendev 2023): ``θ_i / factor``, i.e. positions
    squeezed by ``factor`` into the trained range.

    Params: ``factor``. attention_factor 1.
    """
    inv_freq = _default_inv_freq_torch(dim, base, device)
    inv_freq /= factor  # scaling positions by 1/factor == scaling frequencies by 1/factor
    return inv_freq, 1.0


def _compute_linear_np(dim: int, base: float, *, factor: float, **_: Any) -> tuple[np.ndarray, float]:
    return _theta_np(dim, base) / factor, 1.0


LINEAR = ScalingRule(
    "linear", ("factor",), ("factor",), _compute_linear, _compute_linear_np, example={"factor": 4.0}
)


def _compute_ntk(
    dim: int, base: float, device: Any, *, factor: float, **_: Any
) -> tuple[torch.Tensor, float]:
    """Static NTK-aware scaling (bloc97, r/LocalLLaMA, June 2023): raise the base to
    ``base · factor^(d/(d-2))``. The highest frequency (pair 0) is unchanged and the lowest
    (pair d/2-1) is divided by exactly ``factor``: high frequencies extrapolate, low ones
    interpolate.

    Params: ``factor``. attention_factor 1. (Older HF versions shipped this as ``"ntk"``.)
    """
    base = base * factor ** (dim / (dim - 2))
    return _default_inv_freq_torch(dim, base, device), 1.0


def _compute_ntk_np(dim: int, base: float, *, factor: float, **_: Any) -> tuple[np.ndarray, float]:
    return _theta_np(dim, base * factor ** (dim / (dim - 2))), 1.0


NTK = ScalingRule("ntk", ("factor",), ("factor",), _compute_ntk, _compute_ntk_np, example={"factor": 4.0})


def _dynamic_base(
    dim: int, base: float, factor: float, max_position_embeddings: float | None, seq_len: Any
) -> float:
    if max_position_embeddings is None:  # `_check_dynamic` refuses this before any call gets here
        raise ValueError(
            "rope_type 'dynamic' needs max_position_embeddings or original_max_position_embeddings"
        )
    # L = max(seq_len, max_pos): the default base applies while the sequence fits
    seq_len = (
        seq_len if seq_len is not None and seq_len > max_position_embeddings else max_position_embeddings
    )
    return base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))


def _compute_dynamic(
    dim: int,
    base: float,
    device: Any,
    *,
    factor: float,
    max_position_embeddings: int | None = None,
    original_max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    **_: Any,
) -> tuple[torch.Tensor, float]:
    """Dynamic NTK scaling (emozilla, r/LocalLLaMA, July 2023; HF ``_compute_dynamic_ntk_parameters``).

    ``base' = base · (factor · L / max_pos − (factor − 1))^(d/(d−2))`` with
    ``L = max(seq_len, max_pos)``: unchanged while the sequence fits the trained length, then the
    base grows with the current length.

    Params: ``factor``, ``max_position_embeddings`` (the trained length; ``original_max_position_embeddings``
    is used when only that is given), ``seq_len`` (current length). attention_factor 1.
    """
    max_pos = (
        max_position_embeddings if max_position_embeddings is not None else original_max_position_embeddings
    )
    base = _dynamic_base(dim, base, factor, max_pos, seq_len)
    return _default_inv_freq_torch(dim, base, device), 1.0


def _compute_dynamic_np(dim: int, base: float, **params: Any) -> tuple[np.ndarray, float]:
    max_pos = params.get("max_position_embeddings") or params.get("original_max_position_embeddings")
    return _theta_np(dim, _dynamic_base(dim, base, params["factor"], max_pos, params.get("seq_len"))), 1.0


def _check_dynamic(params: dict[str, Any]) -> None:
    if params.get("max_position_embeddings") is None:  # the trained length, under either name
        _require("dynamic", params, "original_max_position_embeddings")


DYNAMIC = ScalingRule(
    "dynamic",
    ("factor", "original_max_position_embeddings"),
    ("factor",),
    _compute_dynamic,
    _compute_dynamic_np,
    example={"factor": 4.0, "original_max_position_embeddings": 2048, "seq_len": 16384},
    check=_check_dynamic,
)


def _yarn_settings(params: dict[str, Any]) -> tuple[float, float, float, float, float, bool]:
    """(factor, original_max, attention_factor, beta_fast, beta_slow, truncate) with HF's defaults."""
    factor = params.get("factor")
    original = params.get("original_max_position_embeddings")
    max_pos = params.get("max_position_embeddings")
    if original is None:
        original = max_pos
    if factor is None and max_pos is not None and original is not None:
        factor = max_pos / original  # DeepSeek-V3 style configs give only the two lengths
    if factor is None or original is None:
        raise ValueError(
            "rope_type 'yarn' needs factor and original_max_position_embeddings "
            "(or max_position_embeddings for either)"
        )
    attention_factor = params.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = params.get("mscale"), params.get("mscale_all_dim")
        if mscale and mscale_all_dim:
            attention_factor = float(
                yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim)
            )
        else:
            attention_factor = yarn_get_mscale(factor)  # 0.1 ln(factor) + 1
    beta_fast = params.get("beta_fast") or 32
    beta_slow = params.get("beta_slow") or 1
    truncate = params.get("truncate")
    truncate = True if truncate is None else bool(truncate)
    return float(factor), float(original), float(attention_factor), beta_fast, beta_slow, truncate


def _compute_yarn(dim: int, base: float, device: Any, **params: Any) -> tuple[torch.Tensor, float]:
    """YaRN (Peng, Quesnelle, Fan, Shippole 2023, "YaRN: Efficient Context Window Extension of
    Large Language Models"; HF ``_compute_yarn_parameters``).

    "NTK-by-parts": pairs whose wavelength fits more than ``beta_fast`` times in the original
    context keep θ; pairs that fit fewer than ``beta_slow`` times use θ/factor; a linear ramp
    over the pair index blends in between (see `yarn_correction_range`). attention_factor
    defaults to ``0.1 · ln(factor) + 1`` (or the DeepSeek ``mscale / mscale_all_dim`` ratio).

    Params: ``factor``, ``original_max_position_embeddings`` (defaults to
    ``max_position_embeddings``; factor defaults to their ratio), ``beta_fast=32``,
    ``beta_slow=1``, ``attention_factor``, ``mscale``, ``mscale_all_dim``, ``truncate=True``.
    """
    factor, original, attention_factor, beta_fast, beta_slow, truncate = _yarn_settings(params)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(device=device, dtype=torch.float) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = yarn_correction_range(
        dim,
        base=base,
        original_max_position_embeddings=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    if low == high:
        high += 0.001  # HF: prevent a zero-width ramp
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    inv_freq_extrapolation_factor = 1 - ramp.to(device=device, dtype=torch.float)
    inv_freq = (
        inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
        + inv_freq_extrapolation * inv_freq_extrapolation_factor
    )
    return inv_freq, attention_factor


def _compute_yarn_np(dim: int, base: float, **params: Any) -> tuple[np.ndarray, float]:
    factor, original, attention_factor, beta_fast, beta_slow, truncate = _yarn_settings(params)
    low, high = yarn_correction_range(
        dim,
        base=base,
        original_max_position_embeddings=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    if low == high:
        high += 0.001
    theta = _theta_np(dim, base)
    ramp = np.clip(
        (np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0
    )  # 0: θ, 1: θ/factor
    return theta * (1 - ramp) + (theta / factor) * ramp, attention_factor


YARN = ScalingRule(
    "yarn",
    (
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
    ),
    (),  # factor and the original length may each come from max_position_embeddings (_yarn_settings)
    _compute_yarn,
    _compute_yarn_np,
    example={"factor": 8.0, "original_max_position_embeddings": 4096},
)


def _compute_llama3(
    dim: int,
    base: float,
    device: Any,
    *,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: int,
    **_: Any,
) -> tuple[torch.Tensor, float]:
    """Llama 3.1 scaling (Meta, July 2024; reference ``apply_scaling``; HF ``_compute_llama3_parameters``).

    With ``λ_i = 2π/θ_i`` and L the original context: ``λ < L/high_freq_factor`` keeps θ,
    ``λ > L/low_freq_factor`` uses θ/factor, and in between
    ``s = (L/λ − low) / (high − low)`` blends ``(1 − s) θ/factor + s θ``. Not YaRN: there is no
    attention factor (1.0). Llama 3.1 uses factor 8, low 1, high 4, L 8192, base 500000.

    Params: ``factor``, ``low_freq_factor``, ``high_freq_factor``, ``original_max_position_embeddings``.
    """
    inv_freq = _default_inv_freq_torch(dim, base, device)
    low_freq_wavelen = original_max_position_embeddings / low_freq_factor
    high_freq_wavelen = original_max_position_embeddings / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (original_max_position_embeddings / wavelen - low_freq_factor) / (
        high_freq_factor - low_freq_factor
    )
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    inv_freq_llama = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
    return inv_freq_llama, 1.0


def _compute_llama3_np(
    dim: int,
    base: float,
    *,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: int,
    **_: Any,
) -> tuple[np.ndarray, float]:
    theta = _theta_np(dim, base)
    low, high, original = low_freq_factor, high_freq_factor, original_max_position_embeddings
    wavelen = 2 * np.pi / theta
    smooth = (original / wavelen - low) / (high - low)
    blended = (1 - smooth) * theta / factor + smooth * theta
    out = np.where(wavelen < original / high, theta, blended)  # short wavelengths kept
    return np.where(wavelen > original / low, theta / factor, out), 1.0  # long ones divided


def _check_llama3(params: dict[str, Any]) -> None:
    if params["high_freq_factor"] == params["low_freq_factor"]:
        raise ValueError("llama3 needs high_freq_factor != low_freq_factor (the blend divides by their gap)")


_LLAMA3_KEYS = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")
LLAMA3 = ScalingRule(
    "llama3",
    _LLAMA3_KEYS,
    _LLAMA3_KEYS,
    _compute_llama3,
    _compute_llama3_np,
    example={
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    check=_check_llama3,
)


def _longrope_settings(dim: int, params: dict[str, Any]) -> tuple[list[float], float]:
    """(rescale factors in use, attention_factor) for LongRoPE, with HF's defaults."""
    short, long = params["short_factor"], params["long_factor"]
    for name, values in (("short_factor", short), ("long_factor", long)):
        if not isinstance(values, Sequence | np.ndarray) or len(values) != dim // 2:
            raise ValueError(f"{name} must be a list of {dim // 2} numbers (one per pair)")
    original = params.get("original_max_position_embeddings")
    max_pos = params.get("max_position_embeddings")
    if original is None:
        original = max_pos
    if original is None:
        raise ValueError("rope_type 'longrope' needs original_max_position_embeddings")
    factor = params.get("factor")
    if factor is None:
        if max_pos is None:
            raise ValueError("rope_type 'longrope' needs factor or max_position_embeddings")
        factor = max_pos / original  # Phi-3: ratio of the extended to the original length
    attention_factor = params.get("attention_factor")
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    seq_len = params.get("seq_len")
    use_long = bool(seq_len and seq_len > original)
    return [float(v) for v in (long if use_long else short)], float(attention_factor)


def _compute_longrope(dim: int, base: float, device: Any, **params: Any) -> tuple[torch.Tensor, float]:
    """LongRoPE (Ding et al. 2024, "LongRoPE: Extending LLM Context Window Beyond 2 Million
    Tokens"; Phi-3; HF ``_compute_longrope_parameters``): ``θ_i / λ_i`` with searched per-pair
    rescale factors λ, ``long_factor`` when ``seq_len > original_max_position_embeddings``, else
    ``short_factor``. attention_factor defaults to ``sqrt(1 + ln(factor) / ln(L_orig))``.

    Params: ``short_factor``, ``long_factor`` (``dim/2`` numbers each), ``factor`` (defaults to
    ``max_position_embeddings / original_max_position_embeddings``), ``original_max_position_embeddings``,
    ``attention_factor``, ``seq_len``.
    """
    ext, attention_factor = _longrope_settings(dim, params)
    ext_factors = torch.tensor(ext, dtype=torch.float32, device=device)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim
    return 1.0 / (ext_factors * base**inv_freq_shape), attention_factor


def _compute_longrope_np(dim: int, base: float, **params: Any) -> tuple[np.ndarray, float]:
    ext, attention_factor = _longrope_settings(dim, params)
    return _theta_np(dim, base) / np.asarray(ext, dtype=np.float64), attention_factor


LONGROPE = ScalingRule(
    "longrope",
    ("short_factor", "long_factor", "factor", "original_max_position_embeddings", "attention_factor"),
    ("short_factor", "long_factor"),
    _compute_longrope,
    _compute_longrope_np,
    example={
        "short_factor": [1.0 + i / 32 for i in range(EXAMPLE_DIM // 2)],
        "long_factor": [2.0 + i / 8 for i in range(EXAMPLE_DIM // 2)],
        "factor": 16.0,
        "original_max_position_embeddings": 4096,
        "seq_len": 65536,
    },
)


# ---------------------------------------------------------------------------------------------
# the table: every reader of rope types (validation, dispatch, the GPU check, docs) reads this
# ---------------------------------------------------------------------------------------------

ROPE_SCALING_RULES: dict[str, ScalingRule] = {
    rule.name: rule for rule in (DEFAULT, LINEAR, NTK, DYNAMIC, YARN, LLAMA3, LONGROPE)
}
ROPE_TYPES: tuple[str, ...] = tuple(ROPE_SCALING_RULES)


def _prepare(rope_type: str, dim: int, base: float, params: dict[str, Any]) -> ScalingRule:
    _check_dim_base(dim, base)
    _validate(rope_type, params)
    rule = ROPE_SCALING_RULES[rope_type]
    _require(rope_type, params, *rule.required)
    if rule.check is not None:
        rule.check(params)
    return rule


def rope_scaled_inv_freq(
    dim: int,
    *,
    base: float = 10000.0,
    rope_type: str = "default",
    device: torch.device | str | None = None,
    **params: Any,
) -> tuple[torch.Tensor, float]:
    """``(inv_freq [dim/2] float32, attention_factor)`` for ``rope_type``, equal to HF transformers.

    Mirrors ``_compute_default_rope_parameters``, ``_compute_linear_scaling_rope_parameters``,
    ``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``,
    ``_compute_llama3_parameters`` and ``_compute_longrope_parameters``, plus the static ``"ntk"``
    rule. `ROPE_SCALING_RULES` holds one `ScalingRule` per type; its ``doc`` names the paper and
    the parameters. Feed the result to ``apply_rope(x, inv_freq=...,
    attention_factor=...)``.

    Raises ValueError for an unknown rope_type, an unknown or missing parameter, or an odd dim.
    """
    rule = _prepare(rope_type, dim, base, params)
    return rule.torch_fn(dim, float(base), device, **params)


def rope_scaled_inv_freq_np(
    dim: int, *, base: float = 10000.0, rope_type: str = "default", **params: Any
) -> tuple[np.ndarray, float]:
    """Float64 textbook version of `rope_scaled_inv_freq`: same rules, same parameters."""
    rule = _prepare(rope_type, dim, base, params)
    return rule.numpy_fn(dim, float(base), **params)
