"""NoPE demo: a causal mask alone lets a layer without position encoding read absolute position."""

from __future__ import annotations

from ._common import MAX_SERIES_POINTS, MAX_TABLE_ROWS, randn, sample_indices
from .base import DemoContext, Param, Value
from .registry import register_demo

# significand bits (with the implicit one) of each format the demo rounds the head's output to
_SIGNIFICAND_BITS = {"bfloat16": 8, "float16": 11, "float32": 24}
_BLOCK = 1 << 20  # positions per block when scanning a long sequence (bounded memory)
_SMALL = 256  # the full [seq, seq] attention is formed only up to this many positions
MAX_SEQ_LEN = 1 << 24  # float32 counts i + 1 exactly up to 2^24


def _scan(seq_len: int, dtype_name: str, device: str) -> tuple[int, int]:
    """(first wrongly recovered position, first collision) of the first-token signal in `dtype_name`,
    scanning positions in blocks; each is seq_len when it does not happen."""
    import torch

    from ..nope import nope_first_token_signal, nope_recover_positions

    dtype = getattr(torch, dtype_name)
    wrong = collision = seq_len
    previous = None
    for start in range(0, seq_len, _BLOCK):
        stop = min(seq_len, start + _BLOCK)
        signal = nope_first_token_signal(stop, start=start, dtype=dtype, device=device)
        positions = torch.arange(start, stop, device=device)
        if wrong == seq_len:
            bad = torch.nonzero(nope_recover_positions(signal) != positions)
            if bad.numel():
                wrong = start + int(bad[0])
        if collision == seq_len:
            s = signal if previous is None else torch.cat([previous, signal])
            same = torch.nonzero(s[1:] == s[:-1])
            if same.numel():
                collision = start - (0 if previous is None else 1) + int(same[0]) + 1
        previous = signal[-1:]
        if wrong < seq_len and collision < seq_len:
            break
    return wrong, collision


@register_demo(
    name="nope-causal-position",
    title="NoPE: the causal mask alone reveals absolute position",
    claim="Under a causal mask, a head with equal scores gives token 0 the weight 1/(i+1) at query i, so a "
    "layer with no position encoding can read absolute position as 1/out − 1, until the output's precision "
    "runs out.",
    title_zh="NoPE：仅靠因果掩码就能得到绝对位置",
    claim_zh="在因果掩码下，分数都相同的注意力头在查询 i 处给第 0 个 token 的权重是 1/(i+1)，所以没有位置编码的层也能用 "
    "1/out − 1 读出绝对位置，直到输出的精度不够为止。",
    topic="why-pe",
    params=(
        Param(
            "seq_len",
            "int",
            2048,
            min=2,
            max=MAX_SEQ_LEN,
            help="number of positions to read back",
            help_zh="要读回的位置数",
        ),
        Param(
            "d_model",
            "int",
            16,
            min=2,
            max=1024,
            help="width of the toy head's input",
            help_zh="玩具注意力头的输入宽度",
        ),
        Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子"),
    ),
    values=(
        Value(
            "textbook_error",
            "|causal softmax of equal scores − 1/(i+1) on keys 0..i|, largest entry",
            "abs error",
            meaning_zh="相同分数的因果 softmax 与键 0..i 上的 1/(i+1) 之差的最大绝对值",
        ),
        Value(
            "head_error",
            "|NoPE head output − 1/(i+1)|, largest over positions (float32)",
            "abs error",
            meaning_zh="无位置编码注意力头的输出与 1/(i+1) 之差在各位置上的最大绝对值（float32）",
        ),
        Value(
            "unmasked_spread",
            "max − min of the same head's output without the mask (0: no position)",
            "abs difference",
            meaning_zh="去掉掩码后同一个头输出的最大值减最小值（为 0：没有位置信息）",
        ),
        Value(
            "float64_exact",
            "1 when float64 recovers every position as round(1/out − 1), else 0",
            "0/1",
            meaning_zh="float64 能用 round(1/out − 1) 还原每个位置时为 1，否则为 0",
        ),
        Value(
            "signal_at_last",
            "the first-token signal at the last position, 1/seq_len",
            "attention weight",
            meaning_zh="最后一个位置的首 token 信号 1/seq_len",
        ),
        Value(
            "first_wrong_bfloat16",
            "first position read back wrongly in bfloat16 (seq_len when none)",
            "position",
            meaning_zh="bfloat16 下第一个读错的位置（没有则为 seq_len）",
        ),
        Value(
            "first_collision_bfloat16",
            "first position whose bfloat16 signal equals the previous one's (seq_len when none)",
            "position",
            meaning_zh="bfloat16 下信号与前一个位置相同的第一个位置（没有则为 seq_len）",
        ),
        Value(
            "first_wrong_float16",
            "first position read back wrongly in float16 (seq_len when none)",
            "position",
            meaning_zh="float16 下第一个读错的位置（没有则为 seq_len）",
        ),
        Value(
            "first_collision_float16",
            "first position whose float16 signal equals the previous one's (seq_len when none)",
            "position",
            meaning_zh="float16 下信号与前一个位置相同的第一个位置（没有则为 seq_len）",
        ),
        Value(
            "first_wrong_float32",
            "first position read back wrongly in float32 (seq_len when none)",
            "position",
            meaning_zh="float32 下第一个读错的位置（没有则为 seq_len）",
        ),
        Value(
            "first_collision_float32",
            "first position whose float32 signal equals the previous one's (seq_len when none)",
            "position",
            meaning_zh="float32 下信号与前一个位置相同的第一个位置（没有则为 seq_len）",
        ),
    ),
    # one scan block in float64 (counts, ones, signal, recovered int64, positions, comparisons:
    # about 48 bytes a position) plus the small full attention and the toy head
    memory_bytes=lambda seq_len, d_model, **_: (
        48 * min(seq_len, _BLOCK) + 8 * _SMALL * (3 * _SMALL + 4 * d_model)
    ),
)
def _run_nope_causal_position(ctx: DemoContext, seq_len: int, d_model: int, seed: int) -> None:
    import numpy as np
    import torch

    from ..nope import (
        first_wrong_position,
        nope_causal_attention,
        nope_causal_attention_np,
        nope_first_token_signal,
        nope_first_token_signal_np,
        nope_recover_positions,
        nope_recover_positions_np,
    )

    # MPS has no float64: the float64 parts run on the CPU there
    exact_device = "cpu" if str(ctx.device).startswith("mps") else ctx.device

    # 1. textbook: equal scores under a causal mask give row i the weight 1/(i+1) on keys 0..i
    small = min(seq_len, _SMALL)
    weights = nope_causal_attention_np(small)
    rows = np.arange(small)[:, None]
    expected = np.where(np.arange(small)[None, :] <= rows, 1.0 / (rows + 1), 0.0)
    textbook_error = float(np.abs(weights - expected).max())
    ctx.check(
        "causal softmax of equal scores: row i puts 1/(i+1) on each of keys 0..i and 0 on later keys",
        textbook_error,
        1e-15,
        zh="因果掩码下对相同分数做 softmax：第 i 行给键 0..i 各 1/(i+1)，之后的键为 0",
    )

    # 2. a real head with no position encoding: token 0 carries a BOS marker channel, W_q = 0 so every
    # score is equal, W_v reads the marker. Its output is the first-token signal 1/(i+1).
    x = randn(seed, small, d_model, device=ctx.device, dtype=torch.float32)
    x[:, 0] = 0.0
    x[0, 0] = 1.0  # the marker: only the first token has it
    w_q = torch.zeros(d_model, 1, device=ctx.device)
    w_k = randn(seed + 1, d_model, 1, device=ctx.device, dtype=torch.float32)
    w_v = torch.zeros(d_model, 1, device=ctx.device)
    w_v[0, 0] = 1.0
    head = nope_causal_attention(x, w_q, w_k, w_v)[:, 0]
    head_error = float(
        (head.double().cpu() - torch.from_numpy(nope_first_token_signal_np(small))).abs().max()
    )
    ctx.check(
        "a NoPE causal head (W_q = 0, W_v reads a BOS marker) outputs exactly 1/(i+1) at position i",
        head_error,
        1e-6,
        zh="无位置编码的因果注意力头（W_q = 0，W_v 读取 BOS 标记）在位置 i 的输出正是 1/(i+1)",
    )
    fast = nope_first_token_signal(small, dtype=torch.float64, device=exact_device)
    fast_error = float((fast.cpu() - torch.from_numpy(nope_first_token_signal_np(small))).abs().max())
    ctx.check(
        "the O(seq) fast form equals the textbook attention (float64)",
        fast_error,
        1e-15,
        zh="O(seq) 的快速形式与教科书注意力一致（float64）",
    )
    # without the mask the same head is a bag of tokens: every position gets 1/n
    mask_free = torch.softmax(torch.zeros(small, small, device=ctx.device), dim=-1) @ x[:, :1]
    unmasked_spread = float(mask_free.max() - mask_free.min())
    ctx.check(
        "without the causal mask the same head gives every position the same output 1/n (no position)",
        unmasked_spread,
        1e-7,
        zh="去掉因果掩码后，同一个头在每个位置的输出都是 1/n（没有位置信息）",
    )

    # 3. reading the position back, and where each format runs out of precision
    exact64 = first_wrong_position(nope_recover_positions_np(nope_first_token_signal_np(small)))
    wrong64, _ = _scan(seq_len, "float64", exact_device)
    ctx.check_true(
        f"float64 recovers every position 0..{seq_len - 1} as round(1/out − 1)",
        wrong64 == seq_len and exact64 == small,
        zh=f"float64 下用 round(1/out − 1) 能还原 0..{seq_len - 1} 的每个位置",
    )
    found: dict[str, tuple[int, int]] = {}
    for name, bits in _SIGNIFICAND_BITS.items():
        wrong, collision = _scan(seq_len, name, ctx.device)
        found[name] = (wrong, collision)
        ctx.value(f"first_wrong_{name}", wrong)
        ctx.value(f"first_collision_{name}", collision)
        low, high = 2 ** (bits - 1), 2**bits
        if collision < seq_len:
            ctx.check_true(
                f"{name} ({bits}-bit significand): the first collision, at position {collision}, lies in "
                f"[2^{bits - 1}, 2^{bits}] = [{low}, {high}], where the gap 1/((i+1)(i+2)) drops below one rounding "
                "step",
                low <= collision <= high,
                zh=f"{name}（{bits} 位有效数字）：第一次碰撞出现在位置 {collision}，落在 [2^{bits - 1}, 2^{bits}] = "
                f"[{low}, {high}] 内，此处相邻位置的差 1/((i+1)(i+2)) 小于一个舍入步长",
            )
        elif seq_len > high:
            ctx.check_true(
                f"{name}: a collision by position 2^{bits}", False, zh=f"{name}：到 2^{bits} 时应已碰撞"
            )
        else:
            ctx.note(
                f"{name} keeps all {seq_len} positions apart; its first collision comes between {low} and {high} "
                f"(raise seq_len to see it).",
                zh=f"{name} 能区分全部 {seq_len} 个位置；它的第一次碰撞出现在 {low} 到 {high} 之间（增大 seq_len 可以看到）。",
            )

    ctx.value("textbook_error", textbook_error)
    ctx.value("head_error", head_error)
    ctx.value("unmasked_spread", unmasked_spread)
    ctx.value("float64_exact", float(wrong64 == seq_len))
    ctx.value("signal_at_last", 1.0 / seq_len)

    # table: recovered positions at a few interesting positions, per format
    marks = {0, 1, 2, 10, 100, seq_len - 1}
    for wrong, collision in found.values():
        marks.update(p for p in (wrong - 1, wrong, collision - 1, collision) if 0 <= p < seq_len)
    picked = sorted(marks)[:MAX_TABLE_ROWS]
    at = torch.tensor(picked, dtype=torch.float64)
    table = []
    recovered = {}
    for name in ("float64", *_SIGNIFICAND_BITS):
        dtype = getattr(torch, name)
        acc = torch.float64 if name == "float64" else torch.float32
        signal = (1.0 / (at.to(acc) + 1)).to(dtype)
        recovered[name] = (signal, nope_recover_positions(signal))
    for row, p in enumerate(picked):
        table.append(
            [p, float(recovered["float64"][0][row])]
            + [int(recovered[name][1][row]) for name in ("float64", *_SIGNIFICAND_BITS)]
        )
    ctx.table(
        "Position read back as round(1/out − 1) from the first-token signal out = 1/(i+1)",
        ["position i", "1/(i+1)", "float64", "bfloat16", "float16", "float32"],
        table,
        title_zh="从首 token 信号 out = 1/(i+1) 用 round(1/out − 1) 读回的位置",
        columns_zh=["位置 i", "1/(i+1)", "float64", "bfloat16", "float16", "float32"],
    )
    idx = sample_indices(seq_len, MAX_SERIES_POINTS)
    pos = torch.tensor(idx, dtype=torch.float64)
    ys = {}
    for name in _SIGNIFICAND_BITS:
        acc = torch.float32
        signal = (1.0 / (pos.to(acc) + 1)).to(getattr(torch, name))
        ys[f"{name} error"] = (nope_recover_positions(signal).double() - pos).tolist()
    ctx.series(
        "Recovered position minus true position",
        [float(i) for i in idx],
        ys,
        "position i",
        "recovered − i",
        title_zh="还原出的位置减去真实位置",
    )
    ctx.note(
        "A NoPE model does not need this exact readout; the point is that the causal mask alone makes "
        "position computable, and that a low-precision output channel blurs it beyond a few hundred tokens.",
        zh="NoPE 模型不一定用这种精确的读法；关键在于仅靠因果掩码就能算出位置，而低精度的输出通道在几百个 token 之后就会把它弄糊。",
    )
