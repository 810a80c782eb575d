"""RoPE pitfalls: angle precision at long positions, and positions with a KV cache."""

from __future__ import annotations

from ._common import (
    EPS,
    angle_tol,
    exact_dtype,
    f64_bytes,
    randn,
    round6,
)
from .base import DemoContext, Param, Value
from .registry import register_demo
from .rope_demos import BASE, SEED

_PRECISION_POSITIONS = (100, 4096, 32768, 131072)


@register_demo(
    name="rope-precision",
    title="Angle precision at long positions (float32 vs float64)",
    claim="Computing position·θ in float32 makes cos drift from the float64 value by about 3e-6 at position 100 and 3.4e-3 at 131072.",
    title_zh="长位置上的角度精度（float32 与 float64 对比）",
    claim_zh="用 float32 计算 position·θ 时，cos 与 float64 结果的偏差在位置 100 处约为 3e-6，在位置 131072 处约为 3.4e-3。",
    topic="pitfalls",
    params=(
        Param(
            "dim",
            "int",
            128,
            min=2,
            max=8192,
            even=True,
            help="head dimension d (even)",
            help_zh="头维度 d（偶数）",
        ),
        BASE,
    ),
    values=(
        Value(
            "error_100",
            "largest |cos of float32 angles − float64 cos| over pairs at position 100",
            "abs error",
            meaning_zh="位置 100 处 float32 角度的 cos 与 float64 cos 之差在各对上的最大绝对值",
        ),
        Value("error_4096", "the same at position 4096", "abs error", meaning_zh="位置 4096 处的同样误差"),
        Value("error_32768", "the same at position 32768", "abs error", meaning_zh="位置 32768 处的同样误差"),
        Value(
            "error_131072", "the same at position 131072", "abs error", meaning_zh="位置 131072 处的同样误差"
        ),
        Value(
            "sin_error_100",
            "largest |sin of float32 angles − float64 sin| over pairs at position 100",
            "abs error",
            meaning_zh="位置 100 处 float32 角度的 sin 与 float64 sin 之差在各对上的最大绝对值",
        ),
        Value(
            "sin_error_4096",
            "the sin error at position 4096",
            "abs error",
            meaning_zh="位置 4096 处的 sin 误差",
        ),
        Value(
            "sin_error_32768",
            "the sin error at position 32768",
            "abs error",
            meaning_zh="位置 32768 处的 sin 误差",
        ),
        Value(
            "sin_error_131072",
            "the sin error at position 131072",
            "abs error",
            meaning_zh="位置 131072 处的 sin 误差",
        ),
    ),
    memory_bytes=lambda dim, **_: 8 * 8 * dim,
)
def _run_rope_precision(ctx: DemoContext, dim: int, base: float) -> None:
    import numpy as np
    import torch

    from ..rope import rope_inv_freq, rope_inv_freq_np

    ctx.dtype = "float32"
    theta32 = rope_inv_freq(dim, base=base, device=ctx.device)  # float32, as HF / Meta / flash-attn
    theta64 = rope_inv_freq_np(dim, base=base)
    sweep = sorted(set([2**e for e in range(18)] + list(_PRECISION_POSITIONS)))
    pos32 = torch.tensor(sweep, dtype=torch.float32, device=ctx.device)
    angle32 = pos32[:, None] * theta32  # m · θ in float32
    cos32 = angle32.cos().double().cpu().numpy()
    sin32 = angle32.sin().double().cpu().numpy()
    angle64 = np.asarray(sweep, dtype=np.float64)[:, None] * theta64
    cos64, sin64 = np.cos(angle64), np.sin(angle64)
    err_cos = np.abs(cos32 - cos64).max(axis=1)
    err_sin = np.abs(sin32 - sin64).max(axis=1)
    err_angle = np.abs(angle32.double().cpu().numpy() - angle64).max(axis=1)
    cos64_as_32 = torch.from_numpy(cos64).float().double().numpy()  # the fix: cos in float64, then cast
    fixed = np.abs(cos64_as_32 - cos64).max(axis=1)
    row = {p: i for i, p in enumerate(sweep)}

    # float32 angle error <= m·θ_max·(rounding of θ and of the product) ≈ 2 m ε; cos is 1-Lipschitz
    eps32 = EPS["float32"]
    limit = np.asarray(sweep) * float(theta64.max()) * 2 * eps32 + 2 * eps32
    ctx.check(  # the error is how far the cos error goes past its bound (0 when within it)
        "the float32 cos error stays within the m·θ·2ε rounding bound",
        float(np.clip(err_cos - limit, 0.0, None).max()),
        0.0,
        zh="float32 的 cos 误差不超过 m·θ·2ε 的舍入上界",
    )
    ctx.check(
        "computing cos in float64 and then casting keeps the error at float32 rounding",
        float(fixed.max()),
        1e-7,
        zh="先用 float64 算 cos 再转换，误差保持在 float32 的舍入水平",
    )
    if err_angle[row[131072]] > 1e-4:  # float32 angle rounding dominates cos rounding
        ctx.check_true(
            "the error grows with position: larger at 131072 than at 100",
            err_cos[row[131072]] > err_cos[row[100]],
            zh="误差随位置增大：131072 处比 100 处大",
        )
    else:
        ctx.note(
            "Every θᵢ·131072 happens to be almost exact in float32 here, so the error barely grows.",
            zh="这里每个 θᵢ·131072 在 float32 中恰好几乎是精确的，所以误差几乎不增长。",
        )
    ctx.table(
        "float32 angles against float64 (max over pairs)",
        ["position", "|Δcos|", "|Δsin|", "|Δangle| (rad)", "cos64 → float32"],
        [
            [
                p,
                float(f"{err_cos[row[p]]:.3g}"),
                float(f"{err_sin[row[p]]:.3g}"),
                float(f"{err_angle[row[p]]:.3g}"),
                float(f"{fixed[row[p]]:.3g}"),
            ]
            for p in _PRECISION_POSITIONS
        ],
        title_zh="float32 角度与 float64 的对比（对所有频率对取最大）",
        columns_zh=["位置", "|Δcos|", "|Δsin|", "|Δangle|（弧度）", "cos64 → float32"],
    )
    ctx.series(
        "cos error of float32 angles against position",
        [float(np.log2(p)) for p in sweep],
        {"float32 angle": err_cos.tolist(), "float64 cos cast to float32": fixed.tolist()},
        x_label="log2(position)",
        y_label="max |Δcos|",
        title_zh="float32 角度的 cos 误差随位置的变化",
    )
    for p in _PRECISION_POSITIONS:
        ctx.value(f"error_{p}", float(err_cos[row[p]]))
        ctx.value(f"sin_error_{p}", float(err_sin[row[p]]))
    ctx.note(
        "Casting a float64 angle to float32 does not help: near 131072 one float32 step is 1/64 rad. "
        "Compute cos/sin in float64 (or reduce the angle mod 2π first) and cast the result.",
        zh="把 float64 的角度转成 float32 并没有用：在 131072 附近，float32 的一个步长就是 1/64 弧度。"
        "应当用 float64 计算 cos/sin（或先把角度对 2π 取模），再转换结果。",
    )


@register_demo(
    name="rope-kv-cache",
    title="Positions with a KV cache",
    claim="Decoding with a KV cache matches the full forward pass only if new tokens get positions prefix_len, prefix_len+1, …, not 0, 1, ….",
    title_zh="使用 KV 缓存时的位置编号",
    claim_zh="只有新 token 的位置依次取 prefix_len, prefix_len+1, …，而不是从 0, 1, … 重新编号，带 KV 缓存的解码才与完整的前向计算结果一致。",
    topic="pitfalls",
    params=(
        Param(
            "dim",
            "int",
            16,
            min=2,
            max=4096,
            even=True,
            help="head dimension d (even)",
            help_zh="头维度 d（偶数）",
        ),
        Param(
            "prefix_len",
            "int",
            8,
            min=1,
            max=100_000,
            help="tokens already in the cache",
            help_zh="缓存中已有的 token 数",
        ),
        Param(
            "new_tokens",
            "int",
            4,
            min=1,
            max=4096,
            help="tokens decoded after the prefix",
            help_zh="前缀之后解码的 token 数",
        ),
        SEED,
    ),
    values=(
        Value(
            "max_error",
            "|decoding with the cache at positions prefix_len + t − the full pass|, largest score",
            "abs error",
            meaning_zh="用缓存在位置 prefix_len + t 解码与完整前向之间分数差的最大绝对值",
        ),
        Value(
            "restart_error",
            "the same when positions restart at 0 after the prefix (the bug: large)",
            "abs difference",
            meaning_zh="前缀之后位置从 0 重新开始时的同样差值（这个错误：很大）",
        ),
    ),
    # float64 q, k, their rotations and the cache (~12 copies of [total, dim]), plus the
    # [new_tokens, total] score matrices, masks and differences (~7 of them)
    memory_bytes=lambda dim, prefix_len, new_tokens, **_: (
        f64_bytes(prefix_len + new_tokens, dim, 12) + f64_bytes(new_tokens, prefix_len + new_tokens, 7)
    ),
)
def _run_rope_kv_cache(ctx: DemoContext, dim: int, prefix_len: int, new_tokens: int, seed: int) -> None:
    import torch

    from ..rope import apply_rope

    # float64 where the device has it: in float32 the rounding bound at position 100,000 is about a fifth
    # of the score scale, too close to tell a restart from rounding
    dtype = exact_dtype(ctx)
    total = prefix_len + new_tokens
    q = randn(seed, total, dim, dtype=dtype).to(ctx.device)
    k = randn(seed + 1, total, dim, dtype=dtype).to(ctx.device)

    # full forward pass: every token at its true position (rows of the new tokens only)
    full = apply_rope(q)[prefix_len:] @ apply_rope(k).T  # [new, total]
    causal = torch.ones(new_tokens, total, dtype=torch.bool, device=ctx.device).tril(prefix_len)

    def decode(first_position: int) -> torch.Tensor:
        """Prefill a cache with the prompt, append the new tokens' keys, score the new queries."""
        cache = torch.empty(total, dim, dtype=dtype, device=ctx.device)  # a preallocated KV cache
        cache[:prefix_len] = apply_rope(k[:prefix_len])  # prefill: positions 0 .. prefix_len-1
        positions = torch.arange(first_position, first_position + new_tokens, device=ctx.device)
        cache[prefix_len:] = apply_rope(k[prefix_len:], positions)  # each new key at its own position
        scores = apply_rope(q[prefix_len:], positions) @ cache.T
        return ((scores - full).abs() * causal).amax(dim=-1)  # per new token, over keys it may see

    errors = decode(prefix_len).double().cpu()  # right: positions continue after the prefix
    restart_errors = decode(0).double().cpu()  # bug: positions restart at 0
    max_error, restart_error = float(errors.max()), float(restart_errors.max())
    scale = float(q.norm(dim=-1).max() * k.norm(dim=-1).max())
    tol = angle_tol(ctx.dtype, total, scale)
    ctx.check(
        "decoding with the cache and positions prefix_len + t matches the full pass",
        max_error,
        tol,
        zh="使用缓存、位置取 prefix_len + t 解码，结果与完整前向一致",
    )
    if dim >= 4 and 10 * tol < 0.1 * scale:
        ctx.check_true(
            "restarting positions at 0 after the prefix changes the scores",
            restart_error > 10 * tol,
            zh="在前缀之后把位置从 0 重新开始会改变分数",
        )
    elif dim >= 4:
        ctx.note(
            f"At position {total} the {ctx.dtype} rounding bound ({tol:.3g}) is close to the score scale "
            f"({scale:.3g}), so a restart cannot be told from rounding; the restart check is skipped.",
            zh=f"在位置 {total}，{ctx.dtype} 的舍入上界（{tol:.3g}）接近分数的量级（{scale:.3g}），"
            "无法把重新开始与舍入误差区分开；跳过重启检查。",
        )
    else:
        ctx.note(
            "With one frequency (dim 2, θ = 1 rad) a restart shifts the angle by prefix_len rad, which can land "
            "close to a multiple of 2π; the restart check needs dim >= 4.",
            zh="只有一个频率时（dim 2，θ = 1 弧度），重新开始会让角度偏移 prefix_len 弧度，可能恰好接近 2π 的整数倍；"
            "重启检查需要 dim >= 4。",
        )
    rows = [
        [prefix_len + t, prefix_len + t, t, float(f"{float(errors[t]):.3g}"), round6(restart_errors[t])]
        for t in range(min(new_tokens, 32))
    ]
    ctx.table(
        "Decode steps: scores against the full forward pass",
        ["token", "position (right)", "position (restarted)", "max |Δscore| right", "max |Δscore| restarted"],
        rows,
        title_zh="解码步骤：与完整前向的分数对比",
        columns_zh=[
            "token",
            "位置（正确）",
            "位置（重新开始）",
            "max |Δscore|（正确）",
            "max |Δscore|（重新开始）",
        ],
    )
    ctx.series(
        "Score error per decoded token",
        list(range(prefix_len, total)),
        {"correct offset": errors.tolist(), "restarted at 0": restart_errors.tolist()},
        x_label="token index",
        y_label="max |Δscore|",
        title_zh="每个解码 token 的分数误差",
    )
    ctx.value("max_error", max_error)
    ctx.value("restart_error", restart_error)
    ctx.note(
        "RoPE rotates each token on its own, so appending the new tokens one at a time or all at once gives "
        "the same cache. Scores among the new tokens alone still match after a restart (only m − n matters); "
        "it is the scores against cached keys that break.",
        zh="RoPE 对每个 token 单独旋转，所以新 token 一个一个追加还是一次全部追加，得到的缓存都一样。"
        "重新开始后，新 token 之间的分数仍然一致（只有 m − n 重要）；出错的是它们与缓存中键的分数。",
    )
