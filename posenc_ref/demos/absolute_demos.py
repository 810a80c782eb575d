"""Absolute-PE demos: sinusoidal properties, learned tables, integer/binary codes, why PE exists."""

from __future__ import annotations

import math

from . import register
from ._common import (
    MAX_MATRIX_SIDE,
    MAX_SERIES_POINTS,
    MAX_TABLE_ROWS,
    max_abs_diff,
    randn,
    sample_indices,
    to_numpy,
    tol_for,
    torch_dtype,
)
from .base import Demo, DemoContext, Param, ParamError

BASE = Param("base", "float", 10000.0, min=2.0, max=1e9, help="sinusoid base (10000 in the paper)")
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed")


def _run_sinusoidal_linearity(ctx: DemoContext, dim: int, k: int, seq_len: int, base: float) -> None:
    import torch

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe, sinusoidal_shift, sinusoidal_shift_np

    dt = torch_dtype(ctx)
    pe_p = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=dt)  # PE[p], p = 0 .. L-1
    pe_pk = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=dt, offset=k)  # PE[p + k]
    m_k = sinusoidal_shift(k, dim, base=base, device=ctx.device, dtype=dt)
    shifted = pe_p @ m_k.T  # row p: M_k · PE[p]
    per_p = (shifted - pe_pk).abs().amax(dim=-1)
    max_error = float(per_p.max())
    ctx.check(
        f"PE[p {'+' if k >= 0 else '−'} {abs(k)}] = M_{k} · PE[p] for all {seq_len} positions p "
        "(one matrix for every p)",
        max_error,
        1e-5,
    )
    ctx.value("max_error", max_error)

    textbook = sinusoidal_shift_np(k, dim, base=base)
    ctx.check("fast M_k matches the textbook float64 matrix", max_abs_diff(m_k, textbook), 1e-6)
    # M_k is block-diagonal, so its leading n×n block (n even) is itself a shift matrix: check dense
    # products there to keep large d cheap
    n = min(dim, 512)
    where = "" if n == dim else f" (first {n} dims)"
    m_sub = m_k[:n, :n]
    eye = torch.eye(n, device=ctx.device, dtype=dt)
    ctx.check(
        f"M_k is orthogonal (M_k · M_kᵀ = I): it only rotates{where}",
        max_abs_diff(m_sub @ m_sub.T, eye),
        1e-5,
    )
    m_1 = sinusoidal_shift(1, dim, base=base, device=ctx.device, dtype=dt)[:n, :n]
    m_k1 = sinusoidal_shift(k + 1, dim, base=base, device=ctx.device, dtype=dt)[:n, :n]
    ctx.check(f"shifts compose: M_1 · M_k = M_(k+1){where}", max_abs_diff(m_1 @ m_sub, m_k1), 1e-5)

    omega = sinusoidal_frequencies_np(dim, base=base)
    pairs = sample_indices(dim // 2, 8)
    rows = []
    for i in pairs:
        angle = omega[i] * k
        rows.append([i, omega[i], -angle, math.cos(angle), math.sin(angle)])
    ctx.table(
        f"2×2 blocks of M_{k}: a rotation by −ω_i·k on (sin, cos) of pair i",
        ["pair i", "ω_i", "rotation angle −ω_i·k (rad)", "cos ω_i·k", "sin ω_i·k"],
        rows,
    )
    shown = sample_indices(seq_len, 6)
    ctx.table(
        "The same matrix works at every position",
        ["p", "p + k", "max |PE[p+k] − M_k·PE[p]|"],
        [[p, p + k, float(per_p[p])] for p in shown],
    )
    ctx.matrix(
        f"M_{k} (first {min(dim, MAX_MATRIX_SIDE)} dims)",
        m_k[:MAX_MATRIX_SIDE, :MAX_MATRIX_SIDE].cpu(),
        "output dim",
        "input dim",
    )
    ctx.matrix(
        f"PE table: positions 0..{min(seq_len, MAX_MATRIX_SIDE) - 1} × dims",
        pe_p[:MAX_MATRIX_SIDE, :MAX_MATRIX_SIDE].cpu(),
        "position p",
        "dim",
    )
    ctx.note(
        "Each (sin, cos) pair turns by −ω_i·k: the pair is ordered (sin, cos), so the usual "
        "[[cos, −sin], [sin, cos]] appears transposed."
    )
    ctx.note(
        "Because M_k does not depend on p, a linear layer can learn 'look k tokens back' once for all positions."
    )


def _run_sinusoidal_wavelengths(ctx: DemoContext, dim: int, base: float) -> None:
    import numpy as np
    import torch

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe, sinusoidal_wavelengths

    wl = sinusoidal_wavelengths(dim, base=base)
    wl_t2t = sinusoidal_wavelengths(dim, base=base, frequencies="tensor2tensor")
    half = dim // 2
    min_wl, max_wl = float(wl.min()), float(wl.max())
    expected_max = 2 * math.pi * base ** ((dim - 2) / dim)
    ctx.check("shortest wavelength is 2π (pair 0, ω_0 = 1)", abs(min_wl - 2 * math.pi), 1e-12)
    ctx.check("longest wavelength is 2π·base^((d−2)/d)", abs(max_wl - expected_max) / expected_max, 1e-12)
    if half > 1:
        ratios = wl[1:] / wl[:-1]
        step = base ** (2 / dim)
        ctx.check(
            f"consecutive wavelengths grow by the constant factor base^(2/d) = {step:.6g} (geometric)",
            float(np.abs(ratios / step - 1).max()),
            1e-12,
        )
    # the table's columns really have these periods: column 2i is sin(2π·p / λ_i)
    n_pos = 64
    pe = sinusoidal_pe(
        n_pos,
        dim,
        base=base,
        device=ctx.device,
        dtype=None if ctx.device.startswith("mps") else torch.float64,
    )
    p = np.arange(n_pos, dtype=np.float64)[:, None]
    expected = np.sin(2 * math.pi * p / wl[None, :])
    ctx.check(
        "column 2i of the PE table is sin(2π·p / λ_i)",
        max_abs_diff(pe[:, 0::2], expected),
        1e-6,
    )
    ratio = max_wl / min_wl
    ctx.value("min_wavelength", min_wl)
    ctx.value("max_wavelength", max_wl)
    ctx.value("ratio", ratio)
    ctx.value("t2t_max_wavelength", float(wl_t2t.max()))

    omega = sinusoidal_frequencies_np(dim, base=base)
    omega_t2t = sinusoidal_frequencies_np(dim, base=base, frequencies="tensor2tensor")
    shown = sorted({0, 1, 2, half // 4, half // 2, half - 2, half - 1} & set(range(half)))
    ctx.table(
        "Wavelength per sin/cos pair",
        ["pair i", "dims", "ω_i", "λ_i = 2π/ω_i", "λ_i / 2π", "λ_i (tensor2tensor rule)"],
        [[i, f"{2 * i}, {2 * i + 1}", omega[i], wl[i], wl[i] / (2 * math.pi), wl_t2t[i]] for i in shown],
    )
    idx = sample_indices(half, MAX_SERIES_POINTS)
    ctx.series(
        "Wavelength per pair (log10): a straight line, so a geometric progression",
        [float(i) for i in idx],
        {
            "paper: log10 λ_i": [math.log10(wl[i]) for i in idx],
            "tensor2tensor: log10 λ_i": [math.log10(wl_t2t[i]) for i in idx],
        },
        "pair i",
        "log10 wavelength (positions)",
    )
    ctx.series(
        "Wavelength per pair",
        [float(i) for i in idx],
        {"λ_i": [float(wl[i]) for i in idx]},
        "pair i",
        "wavelength (positions)",
    )
    rel = float(np.abs(omega_t2t / omega - 1).max())
    ctx.note(
        f"tensor2tensor/fairseq use ω_i = base^(−i/(d/2−1)), ending at exactly 2π·base = {2 * math.pi * base:.6g}; "
        f"the paper's rule ends at {max_wl:.6g}. Largest relative frequency difference at d={dim}: {rel:.2%}."
    )
    ctx.note(
        "Short wavelengths resolve neighbouring positions; long ones change slowly and separate far-apart "
        "positions. The longest wavelength is not a hard context limit."
    )


_DOT_BLOCK_ROWS = 256


def _run_sinusoidal_dot(ctx: DemoContext, dim: int, seq_len: int, base: float) -> None:
    import numpy as np

    from ..sinusoidal import sinusoidal_frequencies_np, sinusoidal_pe

    pe = sinusoidal_pe(seq_len, dim, base=base, device=ctx.device, dtype=torch_dtype(ctx))
    gram = (pe @ pe.T).cpu().double().numpy()  # gram[p, q] = PE[p]·PE[q]
    omega = sinusoidal_frequencies_np(dim, base=base)
    ks = np.arange(-(seq_len - 1), seq_len)
    half_curve = np.cos(np.outer(np.arange(seq_len), omega)).sum(axis=1)  # Σ_i cos(ω_i k), k >= 0
    formula = np.concatenate([half_curve[:0:-1], half_curve])  # cos is even: f(−k) = f(k)
    # compare with the formula a block of rows at a time (a full [L, L] `expected` would triple the memory)
    max_error = 0.0
    columns = np.arange(seq_len)
    for start in range(0, seq_len, _DOT_BLOCK_ROWS):
        rows = np.arange(start, min(start + _DOT_BLOCK_ROWS, seq_len))
        expected = formula[columns[None, :] - rows[:, None] + seq_len - 1]  # Σ_i cos(ω_i (q − p))
        max_error = max(max_error, float(np.abs(gram[rows[0] : rows[-1] + 1] - expected).max()))
    tol = 2e-6 * dim
    ctx.check("PE[p]·PE[p+k] = Σ_i cos(ω_i·k) for every p (depends on k only)", max_error, tol)
    dot_at_0 = float(np.diag(gram).mean())
    ctx.check(f"PE[p]·PE[p] = d/2 = {dim // 2} (each pair has sin² + cos² = 1)", abs(dot_at_0 - dim / 2), tol)
    symmetry_error = 0.0
    for k in range(1, (seq_len - 1) // 2 + 1):
        p = np.arange(k, seq_len - k)
        if p.size:
            symmetry_error = max(symmetry_error, float(np.abs(gram[p, p + k] - gram[p, p - k]).max()))
    ctx.check(
        "PE[p]·PE[p+k] = PE[p]·PE[p−k]: the dot product cannot tell left from right", symmetry_error, tol
    )
    ctx.value("max_error", max_error)
    ctx.value("dot_at_0", dot_at_0)
    ctx.value("symmetry_error", symmetry_error)

    measured_mean = np.array([np.diagonal(gram, k).mean() for k in ks])
    idx = sample_indices(len(ks), MAX_SERIES_POINTS)
    ctx.series(
        "PE[p]·PE[p+k] against the offset k",
        [float(ks[i]) for i in idx],
        {
            "Σ cos(ω_i k)": [float(formula[i]) for i in idx],
            "measured (mean over p)": [float(measured_mean[i]) for i in idx],
        },
        "offset k",
        "dot product",
    )
    shown = sorted({0, 1, 2, 4, 8, 16, 32, seq_len - 1} & set(range(seq_len)))
    rows = []
    for k in shown:
        diag = np.diagonal(gram, k)
        rows.append([k, float(formula[k + seq_len - 1]), float(diag.min()), float(diag.max())])
    ctx.table("Dot product by offset", ["k", "Σ cos(ω_i k)", "min over p", "max over p"], rows)
    side = min(seq_len, MAX_MATRIX_SIDE)
    ctx.matrix(
        f"PE[p]·PE[q] for p, q < {side}: constant along diagonals (Toeplitz)", gram[:side, :side], "p", "q"
    )
    positive = formula[seq_len - 1 :]
    rises = int(np.sum(np.diff(positive) > 1e-9))
    ctx.value("rise_count", rises)
    ctx.value("is_monotone", float(rises == 0))
    ctx.note(
        f"The curve falls from d/2 but is not monotone: over k = 0..{seq_len - 1} it rises {rises} times. "
        "And this is PE·PE only; inside attention W_Q and W_K sit in between and can undo the pattern."
    )


def _run_learned_extrapolation(ctx: DemoContext, max_len: int, train_len: int, dim: int, seed: int) -> None:
    import torch

    from ..learned import LearnedPositionalEmbedding, PositionOutOfRangeError

    if train_len > max_len:
        raise ParamError(
            f"train_len ({train_len}) must be <= max_len ({max_len}): training cannot see rows the table lacks"
        )
    torch.manual_seed(seed)
    table = LearnedPositionalEmbedding(max_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    init = table.weight.detach().clone()

    try:
        table(torch.tensor([max_len], device=ctx.device))
        refused, message = 0.0, "no error"
    except PositionOutOfRangeError as exc:
        refused, message = 1.0, str(exc)
    ctx.check_true(f"looking up position max_len = {max_len} raises PositionOutOfRangeError", refused == 1.0)
    ctx.check_true(
        f"position max_len − 1 = {max_len - 1} is still served", table(max_len).shape == (max_len, dim)
    )

    # one training batch of sequences no longer than train_len: x + pe -> regress a random target
    tokens = randn(seed + 1, 4, train_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    target = randn(seed + 2, 4, train_len, dim, device=ctx.device, dtype=torch_dtype(ctx))
    grad_norm_rows = None
    for step in range(5):  # plain SGD, lr 0.1
        table.zero_grad()
        loss = ((tokens + table(train_len) - target) ** 2).mean()
        loss.backward()
        if step == 0:
            grad_norm_rows = table.weight.grad.detach().norm(dim=-1).cpu()
        with torch.no_grad():
            table.weight.sub_(0.1 * table.weight.grad)
    assert grad_norm_rows is not None
    trained = float(grad_norm_rows[:train_len].norm())
    untrained = float(grad_norm_rows[train_len:].norm()) if train_len < max_len else 0.0
    drift = (table.weight.detach() - init).norm(dim=-1).cpu()
    ctx.check(
        f"rows {train_len}..{max_len - 1} (never in a training sequence) get exactly zero gradient",
        untrained,
        0.0,
    )
    ctx.check_true("rows 0..train_len − 1 do get a gradient", trained > 0)
    ctx.check(
        "after 5 SGD steps the untrained rows are still exactly their random init",
        float(drift[train_len:].max()) if train_len < max_len else 0.0,
        0.0,
    )
    ctx.value("refused", refused)
    ctx.value("untrained_grad_norm", untrained)
    ctx.value("trained_grad_norm", trained)

    shown = sorted(
        {0, 1, max(train_len - 2, 0), train_len - 1, train_len, train_len + 1, max_len - 1}
        & set(range(max_len))
    )
    ctx.table(
        "Gradient and drift per table row",
        ["row (position)", "seen in training", "‖grad‖ at step 1", "‖W − W_init‖ after 5 steps"],
        [[r, "yes" if r < train_len else "no", float(grad_norm_rows[r]), float(drift[r])] for r in shown],
    )
    ctx.table(
        "Asking for a position past the table",
        ["request", "result"],
        [[f"position {max_len - 1}", "a row of the table"], [f"position {max_len}", message]],
    )
    idx = sample_indices(max_len, MAX_SERIES_POINTS)
    ctx.series(
        "Gradient norm per row after one training step",
        [float(i) for i in idx],
        {"‖grad‖": [float(grad_norm_rows[i]) for i in idx]},
        "position",
        "gradient norm",
    )
    if train_len == max_len:
        ctx.note("train_len = max_len: every row was trained, so the zero-gradient claim holds vacuously.")
    ctx.note(
        "A sinusoidal or RoPE encoding is a formula and is defined at any position; whether a model "
        "generalises there is a separate question. A learned table simply has no row."
    )


def _run_integer_binary_pe(ctx: DemoContext, seq_len: int) -> None:
    import numpy as np

    from ..discrete import binary_bits_needed, binary_pe_np, integer_pe_np
    from ..sinusoidal import sinusoidal_frequencies_np

    demo_dim = 4
    ints = integer_pe_np(seq_len, demo_dim)
    integer_max = float(ints.max())
    ctx.check(
        f"the integer code of the last position is L − 1 = {seq_len - 1}",
        abs(integer_max - (seq_len - 1)),
        0.0,
    )
    norm_l = integer_pe_np(seq_len, 1, normalize=True)
    norm_2l = integer_pe_np(2 * seq_len, 1, normalize=True)
    p = 1
    ctx.check_true(
        f"normalising by L makes the code depend on L: position {p} is {norm_l[p, 0]:.4g} at L={seq_len} "
        f"but {norm_2l[p, 0]:.4g} at L={2 * seq_len}",
        norm_l[p, 0] != norm_2l[p, 0],
    )

    bits = binary_pe_np(seq_len)
    n_bits = bits.shape[1]
    ctx.check(
        f"binary codes need ceil(log2 L) = {binary_bits_needed(seq_len)} bits",
        abs(n_bits - math.ceil(math.log2(seq_len))),
        0,
    )
    weights = 2 ** np.arange(n_bits - 1, -1, -1)
    decoded = bits @ weights
    ctx.check(
        "binary codes are unique: each row decodes back to its position",
        float(np.abs(decoded - np.arange(seq_len)).max()),
        0.0,
    )
    flips = np.abs(np.diff(bits, axis=0)).sum(axis=1)  # bits that change from p to p + 1
    max_jump = int(flips.max())
    expected_jump = int(math.floor(math.log2(seq_len - 1))) + 1
    ctx.check(
        f"the biggest neighbour jump flips floor(log2(L−1)) + 1 = {expected_jump} bits (at 2^k − 1 → 2^k)",
        abs(max_jump - expected_jump),
        0,
    )
    # contrast: sinusoidal neighbours are one fixed rotation apart, so the step size never changes
    sin_dim = 2 * max(n_bits, 2)
    omega = sinusoidal_frequencies_np(sin_dim)
    step_sq = float(np.sum(2 - 2 * np.cos(omega)))  # ‖PE[p+1] − PE[p]‖²
    pos = np.arange(min(seq_len, 256), dtype=np.float64)[:, None]
    table = np.empty((pos.shape[0], sin_dim))
    table[:, 0::2], table[:, 1::2] = np.sin(pos * omega), np.cos(pos * omega)
    steps = np.linalg.norm(np.diff(table, axis=0), axis=1)
    ctx.check(
        f"by contrast, sinusoidal neighbours (d={sin_dim}) are always the same distance apart",
        float(np.abs(steps - math.sqrt(step_sq)).max()),
        1e-9,
    )
    ctx.value("integer_max", integer_max)
    ctx.value("binary_bits", float(n_bits))
    ctx.value("max_neighbour_jump", float(max_jump))

    worst = int(np.argmax(flips))
    shown = sorted(set(range(min(seq_len, 12))) | {worst, worst + 1, seq_len - 1})
    rows = []
    for r in shown:
        rows.append(
            [
                r,
                int(ints[r, 0]),
                float(norm_l[r, 0]),
                "".join(str(int(b)) for b in bits[r]),
                int(flips[r - 1]) if r > 0 else 0,
            ]
        )
    ctx.table(
        "Integer, normalised and binary codes",
        ["position", "integer code", "i / L", "binary code", "bits flipped from previous"],
        rows,
    )
    idx = sample_indices(seq_len - 1, MAX_SERIES_POINTS)
    ctx.series(
        "Bits flipped between neighbours p → p + 1",
        [float(i) for i in idx],
        {"bits flipped": [float(flips[i]) for i in idx]},
        "position p",
        "bits flipped",
    )
    ctx.matrix(
        f"Binary codes (first {min(seq_len, MAX_MATRIX_SIDE)} positions)",
        bits[:MAX_MATRIX_SIDE],
        "position",
        "bit (MSB first)",
    )
    ctx.note(
        f"Added to unit-scale embeddings, an integer code of {seq_len - 1} swamps the token signal; "
        "binary codes stay in {0, 1} but move in discrete jumps. Sinusoids are the smooth version "
        "of the alternating bits: low dims flip fast, high dims slowly."
    )


def _attention(x, w_q, w_k, w_v):
    import torch

    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ v


def _run_permutation_equivariance(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    import torch

    from ..sinusoidal import sinusoidal_pe

    dt = torch_dtype(ctx)
    x = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    w_q, w_k, w_v = (
        randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (1, 2, 3)
    )
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(seq_len, generator=gen)
    if torch.equal(perm, torch.arange(seq_len)):
        perm = torch.roll(perm, 1)  # make sure the order really changes
    perm = perm.to(ctx.device)

    out = _attention(x, w_q, w_k, w_v)
    out_of_shuffled = _attention(x[perm], w_q, w_k, w_v)
    per_row_no_pe = (out_of_shuffled - out[perm]).abs().amax(dim=-1)
    no_pe_error = float(per_row_no_pe.max())
    ctx.check("without PE: attention(shuffled x) = shuffled attention(x)", no_pe_error, 1e-5)

    pe = sinusoidal_pe(seq_len, dim, device=ctx.device, dtype=dt)
    out_pe = _attention(x + pe, w_q, w_k, w_v)
    out_pe_shuffled = _attention(x[perm] + pe, w_q, w_k, w_v)
    per_row_pe = (out_pe_shuffled - out_pe[perm]).abs().amax(dim=-1)
    with_pe_difference = float(per_row_pe.max())
    ctx.check_true(
        f"with sinusoidal PE the outputs change (max difference {with_pe_difference:.3g} > 1e-3)",
        with_pe_difference > 1e-3,
    )

    # keys and values alone: shuffling them leaves every query's output unchanged (a set)
    q = x @ w_q
    k, v = (x[perm] @ w_k), (x[perm] @ w_v)
    kv_shuffled = torch.softmax(q @ k.T / math.sqrt(dim), dim=-1) @ v
    ctx.check(
        "shuffling only keys and values leaves the output unchanged (invariance)",
        max_abs_diff(kv_shuffled, out),
        1e-5,
    )

    # the seeds' 'dog ... dog' example: one token at two positions
    dup = x.clone()
    dup[-1] = dup[0]
    twin = _attention(dup, w_q, w_k, w_v)
    twin_pe = _attention(dup + pe, w_q, w_k, w_v)
    ctx.check(
        "without PE, the same token at two positions gets the same output",
        max_abs_diff(twin[0], twin[-1]),
        1e-5,
    )
    ctx.value("no_pe_error", no_pe_error)
    ctx.value("with_pe_difference", with_pe_difference)
    ctx.value("duplicate_token_difference_with_pe", float((twin_pe[0] - twin_pe[-1]).abs().max()))

    perm_list = perm.cpu().tolist()
    shown = sample_indices(seq_len, MAX_TABLE_ROWS)
    ctx.table(
        "Row by row: attention(shuffled input) vs shuffled attention(input)",
        ["output row", "from input row", "max |diff| without PE", "max |diff| with PE"],
        [[r, perm_list[r], float(per_row_no_pe[r]), float(per_row_pe[r])] for r in shown],
    )
    ctx.note(f"permutation used: {perm_list if seq_len <= 32 else str(perm_list[:32]) + ' ...'}")
    ctx.note(
        "Self-attention treats its input as a set: order must come from a position encoding (or a causal mask)."
    )


def _run_attention_expansion(ctx: DemoContext, seq_len: int, dim: int, seed: int) -> None:
    import numpy as np

    from ..expansion import absolute_score_terms, absolute_score_terms_np
    from ..sinusoidal import sinusoidal_pe

    dt = torch_dtype(ctx)
    x = randn(seed, seq_len, dim, device=ctx.device, dtype=dt)
    p = sinusoidal_pe(seq_len, dim, device=ctx.device, dtype=dt)
    w_q, w_k = (randn(seed + i, dim, dim, device=ctx.device, dtype=dt, scale=dim**-0.5) for i in (1, 2))
    terms = absolute_score_terms(x, p, w_q, w_k)
    full = ((x + p) @ w_q) @ ((x + p) @ w_k).T  # q_i·k_j computed directly
    ref = full.cpu().double().numpy()
    max_error = max_abs_diff(terms.total, full)
    ctx.check(
        "content·content + content·position + position·content + position·position = q_i·k_j",
        max_error,
        tol_for(ref),
    )
    ctx.value("max_error", max_error)

    n = min(seq_len, 48)
    textbook = absolute_score_terms_np(*(to_numpy(t) for t in (x[:n], p[:n], w_q, w_k)))
    worst = max(max_abs_diff(fast[:n, :n], slow) for fast, slow in zip(terms, textbook))
    ctx.check(
        f"fast terms match the textbook float64 loops (first {n} tokens)", worst, tol_for(textbook.total)
    )

    names = ["content·content", "content·position", "position·content", "position·position"]
    formulas = ["x_i W_Q · x_j W_K", "x_i W_Q · p_j W_K", "p_i W_Q · x_j W_K", "p_i W_Q · p_j W_K"]
    magnitude = [float(t.abs().mean()) for t in terms[:4]]
    total_mag = sum(magnitude) or 1.0
    ctx.table(
        "The four terms",
        ["term", "formula", "mean |term|", "share of Σ |terms|"],
        [[nm, f, m, m / total_mag] for nm, f, m in zip(names, formulas, magnitude)],
    )
    ctx.table(
        "How relative schemes edit the expansion",
        ["scheme", "content·content", "content·position", "position·content", "position·position"],
        [
            ["Shaw et al.", "kept", "p_j → a^K(j−i), clipped", "dropped", "dropped"],
            [
                "Transformer-XL / XLNet",
                "kept",
                "p_j → R_(i−j) sinusoid, W_k,R",
                "p_i → u (learned)",
                "p_i → v, p_j → R_(i−j)",
            ],
            ["T5", "kept", "dropped", "dropped", "→ learned bucket bias b(j−i)"],
            ["DeBERTa", "kept", "→ Q_c · K_r[δ(i,j)]", "→ K_c · Q_r[δ(j,i)]", "dropped"],
            ["ALiBi", "kept", "dropped", "dropped", "→ fixed −m·(i−j)"],
        ],
    )
    # Is p_i W_Q W_K^T p_j still a function of i − j? Compare each diagonal with its own mean.
    p2p = to_numpy(terms[3])
    spread = max(
        (float(np.abs(np.diagonal(p2p, k) - np.diagonal(p2p, k).mean()).max()) for k in range(-n + 1, n)),
        default=0.0,
    )
    p2p_relative_error = spread / (float(np.abs(p2p).max()) or 1.0)
    ctx.value("p2p_relative_error", p2p_relative_error)
    if seq_len > 2:
        ctx.check_true(
            "with W_Q, W_K in between, position·position is no longer a function of i − j alone "
            f"(diagonal spread / max = {p2p_relative_error:.3f} > 0.01)",
            p2p_relative_error > 0.01,
        )
    side = min(seq_len, MAX_MATRIX_SIDE)
    for name, term in zip(names, terms[:4]):
        ctx.matrix(name, term[:side, :side].cpu(), "query i", "key j")
    ctx.note(
        "RoPE does not fit this additive pattern: it rotates q and k, so the position enters multiplicatively."
    )


register(
    Demo(
        name="sinusoidal-linearity",
        title="Sinusoidal PE: a fixed linear map shifts any position by k",
        claim="For every p, PE[p + k] = M_k · PE[p], where M_k is block-diagonal 2×2 rotations that depend on k only, never on p.",
        title_zh="正弦位置编码：一个固定的线性变换就能把任意位置平移 k",
        claim_zh="对任意 p 都有 PE[p + k] = M_k · PE[p]，其中 M_k 是由 2×2 旋转块组成的分块对角矩阵，只依赖 k，与 p 无关。",
        topic="absolute",
        params=(
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension d (even)"),
            Param("k", "int", 3, min=-100_000, max=100_000, help="shift k"),
            Param("seq_len", "int", 64, min=1, max=100_000, help="positions p checked"),
            BASE,
        ),
        values=("max_error",),
        run=_run_sinusoidal_linearity,
        # PE[p], PE[p + k] and M_k·PE[p] (positions start at an offset, so k costs nothing), plus the dense
        # M_k, its textbook copy and the M_1, M_(k+1) used by the composition check
        memory_bytes=lambda dim, seq_len, **_: 8 * seq_len * dim * 3 + 8 * dim * dim * 4,
    )
)
register(
    Demo(
        name="sinusoidal-wavelengths",
        title="Sinusoidal wavelengths form a geometric progression",
        claim="Pair i has wavelength 2π·base^(2i/d): from 2π for the first pair up to nearly 2π·base for the last.",
        title_zh="正弦位置编码的波长构成等比数列",
        claim_zh="第 i 对的波长为 2π·base^(2i/d)：从第一对的 2π 一直增长到最后一对的接近 2π·base。",
        topic="absolute",
        params=(Param("dim", "int", 512, min=2, max=65536, even=True, help="model dimension d (even)"), BASE),
        values=("min_wavelength", "max_wavelength", "ratio", "t2t_max_wavelength"),
        run=_run_sinusoidal_wavelengths,
        # float64 [64, dim] PE table and its sin(2πp/λ) reference, with temporaries
        memory_bytes=lambda dim, **_: 8 * dim * (4 + 64 * 4),
    )
)
register(
    Demo(
        name="sinusoidal-dot",
        title="PE[p]·PE[p + k] depends on the distance k only",
        claim="PE[p]·PE[p + k] = Σ_i cos(ω_i k): the same for every p, symmetric in k, and equal to d/2 at k = 0.",
        title_zh="PE[p]·PE[p + k] 只取决于距离 k",
        claim_zh="PE[p]·PE[p + k] = Σ_i cos(ω_i k)：对每个 p 都相同，关于 k 对称，且在 k = 0 时等于 d/2。",
        topic="absolute",
        params=(
            Param("dim", "int", 128, min=2, max=65536, even=True, help="model dimension d (even)"),
            Param("seq_len", "int", 64, min=2, max=100_000, help="positions"),
            BASE,
        ),
        values=("max_error", "dot_at_0", "symmetry_error", "rise_count", "is_monotone"),
        run=_run_sinusoidal_dot,
        # the PE table (built through float64 angles, sin and cos) and Σ cos(ω k) terms, the Gram matrix (float32, then float64) and one row block
        memory_bytes=lambda dim, seq_len, **_: (
            40 * seq_len * dim + 16 * seq_len * seq_len + 32 * _DOT_BLOCK_ROWS * seq_len
        ),
    )
)
register(
    Demo(
        name="learned-extrapolation",
        title="Learned position tables cannot extrapolate",
        claim="A learned table has no row for positions ≥ max_len, and rows past the training length never receive a gradient, so they stay at their random init.",
        title_zh="可学习的位置表无法外推",
        claim_zh="可学习的位置表里没有位置 ≥ max_len 的行；超出训练长度的行从未收到梯度，因此一直停留在随机初始化的值。",
        topic="absolute",
        params=(
            Param("max_len", "int", 16, min=2, max=100_000, help="rows in the table"),
            Param("train_len", "int", 8, min=1, max=100_000, help="longest sequence seen in training"),
            Param("dim", "int", 8, min=1, max=4096, help="embedding dimension"),
            SEED,
        ),
        values=("refused", "untrained_grad_norm", "trained_grad_norm"),
        run=_run_learned_extrapolation,
        # float32: a batch of 4 sequences (tokens, targets, the loss's temporaries and their
        # gradients: up to ~56 copies of [train_len, dim]) and the table with its init copy, gradient, drift
        memory_bytes=lambda max_len, train_len, dim, **_: 4 * dim * (56 * train_len + 6 * max_len),
    )
)
register(
    Demo(
        name="integer-binary-pe",
        title="Why not integer or binary position codes?",
        claim="Integer codes grow without bound (position L−1 dwarfs the embeddings); binary codes are bounded but need ceil(log2 L) bits and jump discretely between neighbours.",
        title_zh="为什么不直接用整数或二进制编码位置？",
        claim_zh="整数编码没有上界（位置 L−1 的数值远远盖过词嵌入）；二进制编码有界，但需要 ceil(log2 L) 位，而且相邻位置之间是离散跳变。",
        topic="why-pe",
        params=(Param("seq_len", "int", 16, min=2, max=1_000_000, help="sequence length L"),),
        values=("integer_max", "binary_bits", "max_neighbour_jump"),
        run=_run_integer_binary_pe,
        # float64 integer, normalised and binary codes and the bit-flip counts: ~80 numbers a position
        memory_bytes=lambda seq_len, **_: 8 * seq_len * 80,
        uses_torch=False,
    )
)
register(
    Demo(
        name="permutation-equivariance",
        title="Attention without PE is permutation-equivariant",
        claim="Shuffling the input rows of position-free self-attention just shuffles the output rows the same way; adding PE breaks this.",
        title_zh="不加位置编码的注意力具有置换等变性",
        claim_zh="打乱无位置信息的自注意力的输入行，输出行只会按同样的方式被打乱；加上位置编码后这一性质就不再成立。",
        topic="why-pe",
        params=(
            Param("seq_len", "int", 6, min=2, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("no_pe_error", "with_pe_difference"),
        run=_run_permutation_equivariance,
        # float32: five attention passes keep ~28 [seq, dim] tensors alive, plus weights and scores
        memory_bytes=lambda seq_len, dim, **_: (
            4 * (30 * seq_len * dim + 3 * dim * dim + 3 * seq_len * seq_len)
        ),
    )
)
register(
    Demo(
        name="attention-expansion",
        title="The 4-term expansion of q·k under absolute PE",
        claim="(x_i + p_i)W_Q·((x_j + p_j)W_K) = content·content + content·position + position·content + position·position, exactly.",
        title_zh="绝对位置编码下 q·k 的四项展开",
        claim_zh="(x_i + p_i)W_Q·((x_j + p_j)W_K) 严格等于 内容·内容 + 内容·位置 + 位置·内容 + 位置·位置 四项之和。",
        topic="absolute",
        params=(
            Param("seq_len", "int", 8, min=1, max=4096, help="tokens"),
            Param("dim", "int", 16, min=2, max=4096, even=True, help="model dimension (even)"),
            SEED,
        ),
        values=("max_error", "p2p_relative_error"),
        run=_run_attention_expansion,
        # float32 weights plus their float64 copies for the textbook loops, six [seq, dim] projections,
        # and the four [seq, seq] terms with their sum, diagonal checks and float64 copies
        memory_bytes=lambda seq_len, dim, **_: 24 * dim * dim + 48 * seq_len * dim + 72 * seq_len * seq_len,
    )
)
