"""Context-extension demos: RoPE frequency scaling under PI, NTK, YaRN and llama3."""

from __future__ import annotations

from .base import Constraint, DemoContext, Param, ParamError, Value
from .registry import register_demo


@register_demo(
    name="rope-scaling",
    title="inv_freq under PI, dynamic NTK, YaRN and llama3 scaling",
    claim="PI divides every frequency by the factor; NTK-aware and dynamic NTK raise the base so high frequencies barely move and low ones shrink most; YaRN and llama3 keep high frequencies, divide low ones by the factor and blend in between.",
    title_zh="PI、动态 NTK、YaRN 与 llama3 缩放下的 inv_freq",
    claim_zh="PI 把所有频率都除以缩放因子；NTK-aware 和动态 NTK 通过增大 base，让高频几乎不动、低频缩小得最多；YaRN 和 llama3 保留高频，把低频除以缩放因子，中间频段平滑过渡。",
    topic="context-extension",
    params=(
        Param(
            "dim",
            "int",
            128,
            min=4,
            max=8192,
            even=True,
            help="head dimension d (even)",
            help_zh="头维度 d（偶数）",
        ),
        Param("base", "float", 500000.0, min=2.0, max=1e9, help="RoPE base", help_zh="RoPE 的 base"),
        Param(
            "factor",
            "float",
            8.0,
            min=1.0,
            max=1024.0,
            help="context extension factor",
            help_zh="上下文扩展倍数",
        ),
        Param(
            "original_max_position_embeddings",
            "int",
            8192,
            min=16,
            max=10_000_000,
            help="pre-training context length",
            help_zh="预训练上下文长度",
        ),
        Param(
            "seq_len",
            "int",
            65536,
            min=1,
            max=100_000_000,
            help="current length (dynamic NTK)",
            help_zh="当前长度（动态 NTK）",
        ),
        Param(
            "beta_fast",
            "float",
            32.0,
            min=0.0,
            max=1e6,
            help="YaRN: rotations where interpolation stops",
            help_zh="YaRN：插值停止处的旋转圈数",
        ),
        Param(
            "beta_slow",
            "float",
            1.0,
            min=0.0,
            max=1e6,
            help="YaRN: rotations where interpolation is full",
            help_zh="YaRN：完全插值处的旋转圈数",
        ),
        Param(
            "low_freq_factor",
            "float",
            1.0,
            min=0.01,
            max=1e6,
            help="llama3: low-frequency wavelength factor",
            help_zh="llama3：低频波长系数",
        ),
        Param(
            "high_freq_factor",
            "float",
            4.0,
            min=0.01,
            max=1e6,
            help="llama3: high-frequency wavelength factor",
            help_zh="llama3：高频波长系数",
        ),
        Param(
            "pair",
            "int",
            0,
            min=0,
            max=4095,
            help="frequency pair i for the pair_inv_freq_* values",
            help_zh="pair_inv_freq_* 各值所用的频率对 i",
        ),
    ),
    values=(
        Value(
            "llama3_kept",
            "pairs llama3 keeps (wavelength < L/high_freq_factor)",
            "pairs",
            meaning_zh="llama3 保留的频率对数（波长 < L/high_freq_factor）",
        ),
        Value(
            "llama3_blended",
            "pairs llama3 blends between θ and θ/factor",
            "pairs",
            meaning_zh="llama3 在 θ 与 θ/factor 之间过渡的频率对数",
        ),
        Value(
            "llama3_scaled",
            "pairs llama3 divides by the factor (wavelength > L/low_freq_factor)",
            "pairs",
            meaning_zh="llama3 除以缩放因子的频率对数（波长 > L/low_freq_factor）",
        ),
        Value(
            "yarn_low",
            "YaRN ramp start: pairs up to it keep θ",
            "pair index",
            meaning_zh="YaRN 过渡起点：到它为止的对保留 θ",
        ),
        Value(
            "yarn_high",
            "YaRN ramp end: pairs from it on use θ/factor",
            "pair index",
            meaning_zh="YaRN 过渡终点：从它起的对使用 θ/factor",
        ),
        Value(
            "yarn_attention_factor",
            "YaRN's factor on cos and sin, 0.1·ln(factor) + 1",
            "multiplier",
            meaning_zh="YaRN 乘在 cos 和 sin 上的因子 0.1·ln(factor) + 1",
        ),
        Value(
            "yarn_logit_scale",
            "its square: how much YaRN scales the attention logits",
            "multiplier",
            meaning_zh="它的平方：YaRN 对注意力 logit 的缩放倍数",
        ),
        Value(
            "llama3_attention_factor",
            "llama3's factor on cos and sin (1: it has none)",
            "multiplier",
            meaning_zh="llama3 乘在 cos 和 sin 上的因子（为 1：它没有这个因子）",
        ),
        Value(
            "dynamic_base",
            "dynamic NTK's base at seq_len, base·(factor·L/orig − (factor − 1))^(d/(d−2))",
            "base",
            meaning_zh="动态 NTK 在 seq_len 处的 base：base·(factor·L/orig − (factor − 1))^(d/(d−2))",
        ),
        Value(
            "linear_ratio",
            "PI's scaled over default frequency θ'ᵢ/θᵢ, the same for every pair (1/factor)",
            "ratio",
            meaning_zh="PI 缩放后与默认频率之比 θ'ᵢ/θᵢ，每一对都相同（1/factor）",
        ),
        Value(
            "ntk_first_ratio",
            "NTK-aware θ'₀/θ₀ for the first (fastest) pair (1: unchanged)",
            "ratio",
            meaning_zh="NTK-aware 第一对（最快）的 θ'₀/θ₀（为 1：不变）",
        ),
        Value(
            "ntk_last_ratio",
            "NTK-aware θ'/θ for the last (slowest) pair (1/factor)",
            "ratio",
            meaning_zh="NTK-aware 最后一对（最慢）的 θ'/θ（1/factor）",
        ),
        Value(
            "max_error",
            "largest relative |torch float32 − float64 textbook| over rules and pairs (and the attention factors)",
            "rel error",
            meaning_zh="各规则、各对上 torch float32 与 float64 教科书实现的最大相对误差（含注意力因子）",
        ),
        Value(
            "pair_inv_freq_default",
            "θᵢ of pair i without scaling",
            "rad/token",
            meaning_zh="不缩放时第 i 对的 θᵢ",
        ),
        Value(
            "pair_inv_freq_linear",
            "θ'ᵢ of pair i under PI (linear)",
            "rad/token",
            meaning_zh="PI（linear）下第 i 对的 θ'ᵢ",
        ),
        Value(
            "pair_inv_freq_ntk",
            "θ'ᵢ of pair i under NTK-aware scaling",
            "rad/token",
            meaning_zh="NTK-aware 缩放下第 i 对的 θ'ᵢ",
        ),
        Value(
            "pair_inv_freq_yarn", "θ'ᵢ of pair i under YaRN", "rad/token", meaning_zh="YaRN 下第 i 对的 θ'ᵢ"
        ),
        Value(
            "pair_inv_freq_llama3",
            "θ'ᵢ of pair i under llama3",
            "rad/token",
            meaning_zh="llama3 下第 i 对的 θ'ᵢ",
        ),
        Value(
            "ntk_base",
            "NTK-aware base, base·factor^(d/(d−2))",
            "base",
            meaning_zh="NTK-aware 的 base：base·factor^(d/(d−2))",
        ),
        Value(
            "first_pair_beyond_original",
            "first pair whose wavelength 2π/θᵢ exceeds the pre-training length (−1 when none)",
            "pair index",
            meaning_zh="波长 2π/θᵢ 超过预训练长度的第一对（没有则为 −1）",
        ),
    ),
    memory_bytes=lambda dim, **_: 8 * dim * 16,
    constraints=(
        Constraint("beta_fast", ">=", "beta_slow"),
        Constraint("low_freq_factor", "<", "high_freq_factor"),
    ),
)
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
    pair: int = 0,
) -> None:
    import math

    import numpy as np

    from ..rope_scaling import (
        llama3_frequency_bands,
        rope_scaled_inv_freq,
        rope_scaled_inv_freq_np,
        yarn_correction_range,
    )

    if pair >= dim // 2:
        raise ParamError(f"parameter 'pair' must be below dim/2 = {dim // 2}, got {pair}")
    orig = original_max_position_embeddings
    rules: dict[str, dict] = {
        "default": {},
        "linear": {"factor": factor},
        "ntk": {"factor": factor},
        "dynamic": {"factor": factor, "max_position_embeddings": orig, "seq_len": seq_len},
        "yarn": {
            "factor": factor,
            "original_max_position_embeddings": orig,
            "beta_fast": beta_fast,
            "beta_slow": beta_slow,
        },
    }
    llama3_ok = high_freq_factor != low_freq_factor
    if llama3_ok:
        rules["llama3"] = {
            "factor": factor,
            "low_freq_factor": low_freq_factor,
            "high_freq_factor": high_freq_factor,
            "original_max_position_embeddings": orig,
        }
    else:
        ctx.note(
            "llama3 is skipped: it needs high_freq_factor != low_freq_factor.",
            zh="跳过 llama3：它要求 high_freq_factor != low_freq_factor。",
        )
    freqs: dict[str, np.ndarray] = {}
    factors: dict[str, float] = {}
    max_error = 0.0
    for name, params in rules.items():
        fast, attention = rope_scaled_inv_freq(dim, base=base, rope_type=name, device=ctx.device, **params)
        textbook, attention_np = rope_scaled_inv_freq_np(dim, base=base, rope_type=name, **params)
        fast_np = fast.double().cpu().numpy()
        max_error = max(
            max_error, float(np.max(np.abs(fast_np - textbook) / textbook)), abs(attention - attention_np)
        )
        freqs[name], factors[name] = fast_np, attention
    theta = freqs["default"]
    ratio = {name: f / theta for name, f in freqs.items()}
    pairs = np.arange(dim // 2)

    ctx.check(
        "torch (float32, HF operations) matches the float64 textbook (relative)",
        max_error,
        1e-6,
        zh="torch（float32，按 HF 的运算）与 float64 教科书实现一致（相对误差）",
    )
    ctx.check(
        "linear: every frequency is divided by the factor",
        float(np.max(np.abs(ratio["linear"] - 1 / factor))),
        1e-6,
        zh="linear：每个频率都除以缩放因子",
    )
    ctx.check(
        "NTK-aware: first pair unchanged, last pair divided by the factor",
        max(abs(ratio["ntk"][0] - 1), abs(ratio["ntk"][-1] - 1 / factor)),
        1e-5,
        zh="NTK-aware：第一对频率不变，最后一对除以缩放因子",
    )
    low, high = yarn_correction_range(
        dim, base=base, original_max_position_embeddings=orig, beta_fast=beta_fast, beta_slow=beta_slow
    )
    width = (high - low) if high != low else 0.001  # HF nudges a zero-width ramp
    ramp = np.clip((pairs - low) / width, 0.0, 1.0)  # 0: keep θ, 1: θ / factor
    keep, interp = ramp == 0, ramp == 1
    yarn_err = max(
        float(np.max(np.abs(ratio["yarn"][keep] - 1), initial=0.0)),
        float(np.max(np.abs(ratio["yarn"][interp] - 1 / factor), initial=0.0)),
    )
    ctx.check(
        "YaRN: pairs below low keep θ, pairs above high use θ/factor",
        yarn_err,
        1e-6,
        zh="YaRN：低于 low 的频率对保持 θ，高于 high 的使用 θ/factor",
    )
    if low > high:
        ctx.note(
            f"YaRN correction range is inverted (low {low} > high {high}); HF only warns, and so does this demo.",
            zh=f"YaRN 的修正区间颠倒了（low {low} > high {high}）；HF 只给出警告，本演示也一样。",
        )
    ctx.check(
        "YaRN attention factor is 0.1·ln(factor) + 1",
        abs(factors["yarn"] - (0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0)),
        1e-12,
        zh="YaRN 的注意力因子为 0.1·ln(factor) + 1",
    )
    dyn_base = base * ((factor * max(seq_len, orig) / orig) - (factor - 1)) ** (dim / (dim - 2))
    expected_dyn = dyn_base ** (-2.0 * pairs / dim)
    ctx.check(
        "dynamic NTK: base' = base·(factor·L/orig − (factor − 1))^(d/(d−2)) with L = max(seq_len, orig)",
        float(np.max(np.abs(freqs["dynamic"] - expected_dyn) / expected_dyn)),
        1e-6,
        zh="动态 NTK：base' = base·(factor·L/orig − (factor − 1))^(d/(d−2))，其中 L = max(seq_len, orig)",
    )
    bands = llama3_frequency_bands(
        dim,
        base=base,
        low_freq_factor=low_freq_factor,
        high_freq_factor=high_freq_factor,
        original_max_position_embeddings=orig,
    )
    ctx.check_true(
        "llama3: kept + blended + scaled = d/2",
        bands["kept"] + bands["blended"] + bands["scaled"] == dim // 2,
        zh="llama3：保留 + 过渡 + 缩放 = d/2",
    )
    if llama3_ok:
        wavelen = 2 * math.pi / theta
        scaled = wavelen > orig / low_freq_factor  # HF's first where() wins
        kept = (wavelen < orig / high_freq_factor) & ~scaled
        ctx.check(
            "llama3: short wavelengths kept, long ones divided by the factor",
            max(
                float(np.max(np.abs(ratio["llama3"][kept] - 1), initial=0.0)),
                float(np.max(np.abs(ratio["llama3"][scaled] - 1 / factor), initial=0.0)),
            ),
            1e-6,
            zh="llama3：短波长保留，长波长除以缩放因子",
        )
    ctx.value("llama3_kept", bands["kept"])
    ctx.value("llama3_blended", bands["blended"])
    ctx.value("llama3_scaled", bands["scaled"])

    titles = {
        "default": "none (RoFormer)",
        "linear": "PI (Chen et al. 2023)",
        "ntk": "NTK-aware (bloc97 2023)",
        "dynamic": f"dynamic NTK at seq_len {seq_len}",
        "yarn": "YaRN (Peng et al. 2023)",
        "llama3": "llama3 (Llama 3.1)",
    }
    ctx.table(
        "Scaled inv_freq against the default",
        ["rope_type", "rule", "ratio, first pair", "ratio, last pair", "attention factor"],
        [
            [name, titles[name], _sig(ratio[name][0]), _sig(ratio[name][-1]), _sig(factors[name])]
            for name in freqs
        ],
        title_zh="缩放后的 inv_freq 与默认值之比",
        columns_zh=["rope_type", "规则", "比值（第一对）", "比值（最后一对）", "注意力因子"],
    )
    low_pair, high_pair = int(low), int(high)  # ints already: yarn_correction_range truncates by default
    picks = sorted({0, low_pair, (low_pair + high_pair) // 2, high_pair, dim // 2 - 1} & set(range(dim // 2)))
    ctx.table(
        "inv_freq per pair",
        ["pair i", "wavelength 2π/θ"] + list(freqs),
        [[int(i), _sig(2 * math.pi / theta[i])] + [_sig(freqs[n][i]) for n in freqs] for i in picks],
        title_zh="每一对的 inv_freq",
        columns_zh=["第 i 对", "波长 2π/θ"] + list(freqs),
    )
    ctx.series(
        "inv_freq per pair (log10)",
        pairs.tolist(),
        {name: np.log10(f).tolist() for name, f in freqs.items()},
        x_label="pair index i",
        y_label="log10 θᵢ",
        title_zh="每一对的 inv_freq（log10）",
    )
    ctx.series(
        "Scaled / default frequency per pair",
        pairs.tolist(),
        {name: r.tolist() for name, r in ratio.items() if name != "default"},
        x_label="pair index i",
        y_label="θ'ᵢ / θᵢ",
        title_zh="每一对的缩放后频率 / 默认频率",
    )
    ctx.value("yarn_low", low)
    ctx.value("yarn_high", high)
    ctx.value("yarn_attention_factor", factors["yarn"])
    ctx.value("yarn_logit_scale", factors["yarn"] ** 2)
    ctx.value("llama3_attention_factor", factors.get("llama3", math.nan))
    ctx.value("dynamic_base", dyn_base)
    ctx.value("linear_ratio", float(ratio["linear"][0]))
    ctx.value("ntk_first_ratio", float(ratio["ntk"][0]))
    ctx.value("ntk_last_ratio", float(ratio["ntk"][-1]))
    ctx.value("max_error", max_error)
    # one pair under every rule, the NTK-aware base, and the first pair too slow to turn once in the
    # pre-training context (the pairs YaRN and llama3 treat as "low frequency")
    for name in ("default", "linear", "ntk", "yarn", "llama3"):
        ctx.value(f"pair_inv_freq_{name}", float(freqs[name][pair]) if name in freqs else math.nan)
    ctx.value("ntk_base", base * factor ** (dim / (dim - 2)))
    beyond = np.nonzero(2 * math.pi / theta > orig)[0]
    ctx.value("first_pair_beyond_original", float(beyond[0]) if len(beyond) else -1.0)
    ctx.note(
        "YaRN's attention factor multiplies cos and sin, so the logits scale by its square. "
        f"YaRN here uses original_max_position_embeddings = {orig}; dynamic NTK uses it as max_position_embeddings.",
        zh="YaRN 的注意力因子同时乘在 cos 和 sin 上，所以 logit 按它的平方缩放。"
        f"这里 YaRN 使用 original_max_position_embeddings = {orig}；动态 NTK 把它当作 max_position_embeddings。",
    )


def _sig(v: float) -> float:
    return float(f"{float(v):.6g}")
