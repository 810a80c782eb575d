"""Small helpers shared by the demo run functions. Pure Python at import time (no torch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsFloat

if TYPE_CHECKING:
    import numpy as np
    import torch

# Largest grid a demo copies into a table / heatmap / series, so `--json` output stays readable.
MAX_TABLE_ROWS = 24
MAX_MATRIX_SIDE = 64
MAX_SERIES_POINTS = 512


def torch_dtype(ctx: Any) -> torch.dtype:
    import torch

    return getattr(torch, ctx.dtype)


def randn(seed: int, *shape: int, device: Any = "cpu", dtype: Any = None, scale: float = 1.0) -> torch.Tensor:
    """Seeded standard normals: drawn in float64 on the CPU, then scaled and cast to `dtype` (float64 by
    default) on `device`, so a seed gives the same numbers on every device and, rounded, in every dtype."""
    import torch

    gen = torch.Generator().manual_seed(int(seed))
    out = torch.randn(*shape, generator=gen, dtype=torch.float64)
    if scale != 1.0:
        out = out * scale
    return out.to(device=device, dtype=dtype or torch.float64)


def f32_bytes(*sizes: int) -> int:
    """Bytes of a float32 tensor of this shape (for memory estimates)."""
    n = 1
    for s in sizes:
        n *= int(s)
    return 4 * n


def f64_bytes(*sizes: int) -> int:
    return 2 * f32_bytes(*sizes)


EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07}


def exact_dtype(ctx: Any) -> torch.dtype:
    """float64 where the device has it (CPU, CUDA), float32 on MPS; recorded on ctx.dtype."""
    import torch

    name = "float32" if str(ctx.device).startswith("mps") else "float64"
    ctx.dtype = name
    return getattr(torch, name)


def dtype_slack(ctx: Any) -> float:
    """Tolerance multiplier after `exact_dtype`: 1 in float64, 1e6 where only float32 is available (MPS)."""
    return 1.0 if ctx.dtype == "float64" else 1e6


def angle_tol(dtype_name: str, max_position: float, scale: float) -> float:
    """Tolerance for comparing rotations at positions up to max_position: the angle m·θ carries a
    rounding error of about m·ε, so the tolerance grows with the position."""
    return 16.0 * EPS[dtype_name] * (1.0 + float(max_position)) * max(scale, 1.0)


def round6(v: SupportsFloat) -> float:
    """v rounded to 6 significant digits (table cells)."""
    return float(f"{float(v):.6g}")


def tol_for(reference: Any, rel: float = 1e-5) -> float:
    """Tolerance for a float32 fast form against a float64 reference: rel × max(1, max |reference|)."""
    import numpy as np

    ref = np.asarray(reference, dtype=np.float64)
    finite = ref[np.isfinite(ref)]
    peak = float(np.abs(finite).max()) if finite.size else 0.0
    return rel * max(1.0, peak)


def max_abs_diff(a: Any, b: Any) -> float:
    """max |a - b| as a Python float; a and b may be tensors or arrays; ±inf must match exactly."""
    import numpy as np

    a = np.asarray(a.detach().cpu().double() if hasattr(a, "detach") else a, dtype=np.float64)
    b = np.asarray(b.detach().cpu().double() if hasattr(b, "detach") else b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    if not np.array_equal(np.isinf(a) * np.sign(a), np.isinf(b) * np.sign(b)):
        return float("inf")  # an infinity (mask) in one and not the other, or of opposite sign
    finite = np.isfinite(a) & np.isfinite(b)
    nan_mismatch = np.isnan(a) != np.isnan(b)
    if nan_mismatch.any():
        return float("nan")
    diff = np.abs(a[finite] - b[finite])
    return float(diff.max()) if diff.size else 0.0


def sample_indices(n: int, limit: int) -> list[int]:
    """Up to `limit` sorted indices spread over 0 .. n-1 (all of them when n <= limit)."""
    if n <= limit:
        return list(range(n))
    step = (n - 1) / (limit - 1)
    return sorted({round(i * step) for i in range(limit)})


def to_numpy(t: Any) -> np.ndarray:
    import numpy as np

    if hasattr(t, "detach"):
        return t.detach().cpu().double().numpy()
    return np.asarray(t, dtype=np.float64)


def score_term_matrices(
    ctx: Any, names: list[str], names_zh: list[str], terms: Sequence[Any], seq_len: int
) -> None:
    """One query × key heatmap per attention-score term (the first MAX_MATRIX_SIDE positions)."""
    side = min(seq_len, MAX_MATRIX_SIDE)
    for name, name_zh, term in zip(names, names_zh, terms):
        ctx.matrix(
            name,
            term[:side, :side].cpu(),
            "query i",
            "key j",
            title_zh=name_zh,
            row_label_zh="查询 i",
            col_label_zh="键 j",
        )
