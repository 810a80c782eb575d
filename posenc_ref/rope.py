"""Rotary position embedding (RoPE).

Reference: Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding" (2021),
eq. 13-15 (the block-diagonal rotation R^d_{Θ,m}) and §3.4.3 (long-term decay).

RoPE rotates every 2-D pair of channels of q and k by the angle ``m · θ_i`` where ``m`` is the
token position and ``θ_i = base^(-2i/d)`` for ``i = 0 .. d/2 - 1``. Because rotations compose,
``<R(q, m), R(k, n)> = <R(q, m - n), k>``: the attention score depends only on the offset.
V is never rotated.

Two channel pairings exist in public code, and they are the same map up to a fixed permutation:

* ``"half"``: pairs ``(i, i + d/2)``. GPT-NeoX and HF transformers (``rotate_half``, cos/sin
  built as ``cat(freqs, freqs)``).
* ``"interleaved"``: pairs ``(2i, 2i + 1)``. RoFormer, GPT-J (``rotate_every_two``), Meta's
  LLaMA reference (``view_as_complex``), torchtune.

The permutation is ``hf[r · d/2 + i] = meta[2i + r]`` (see `half_to_interleaved_permutation`);
HF's LLaMA conversion script permutes the rows of W_q and W_k with it.

Forms in this module:

* textbook (numpy float64): `rope_inv_freq_np`, `rope_rotation_matrix_np`, `apply_rope_np`.
* fast (torch): `rope_inv_freq`, `rope_cos_sin` (cached tables), `apply_rope`.

Performance notes for `apply_rope` (see ``bench/rope.py``):

* interleaved: one complex multiply ``view_as_complex(x) * e^{i m θ}`` on a cached complex table,
  a single pass over x.
* half: the pairs are d/2 apart, so no complex view exists. Eagerly the best found is one
  contiguous ``x * cos`` pass plus two strided ``addcmul_`` passes. A fused single-pass kernel is
  built with ``torch.compile`` in a background thread for large inputs; calls use the eager path
  until that kernel is ready, so no call ever waits for the compiler. ``POSENC_NO_COMPILE=1``
  disables it. The build machinery lives in `posenc_ref.rope_compile`.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from . import rope_compile
from .rope_compile import rope_compile_status, rope_no_background_compile, rope_wait_for_compile

__all__ = [
    "LAYOUTS",
    "apply_rope",
    "apply_rope_np",
    "apply_rope_textbook",
    "half_to_interleaved_permutation",
    "interleaved_to_half_permutation",
    "rope_cache_clear",
    "rope_cache_info",
    "rope_compile_status",
    "rope_cos_sin",
    "rope_no_background_compile",
    "rope_inv_freq",
    "rope_inv_freq_np",
    "rope_rotation_matrix_np",
    "rope_wait_for_compile",
    "rotate_every_two",
    "rotate_half",
]

LAYOUTS = ("half", "interleaved")


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown RoPE layout {layout!r}; valid layouts: {', '.join(LAYOUTS)}")


def _check_rope_dim(dim: int) -> None:
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise ValueError(f"RoPE dim must be an integer, got {dim!r}")
    if dim < 2 or dim % 2:
        raise ValueError(f"RoPE rotates pairs of channels, so dim must be even and >= 2, got {dim}")


def _check_base(base: float) -> None:
    if not (isinstance(base, int | float | np.floating) and math.isfinite(base) and base > 1.0):
        raise ValueError(f"RoPE base must be a finite number > 1, got {base!r}")


# ---------------------------------------------------------------------------------------------
# frequencies
# ---------------------------------------------------------------------------------------------


def rope_inv_freq_np(dim: int, *, base: float = 10000.0) -> np.ndarray:
    """Textbook inverse frequencies in float64: ``θ_i = base^(-2i/d)`` for ``i = 0 .. d//2 - 1``.

    Args:
        dim: head dimension d. For odd d this gives floor(d/2) frequencies (Meta/torchtune); HF's
            ``arange(0, d, 2)`` would give ceil(d/2).
        base: the RoPE base (10000 in RoFormer and LLaMA 1/2, 500000 in Llama 3).
    """
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}")
    _check_base(base)
    i = np.arange(dim // 2, dtype=np.float64)
    return base ** (-2.0 * i / dim)  # θ_i = base^(-2i/d)


def rope_inv_freq(
    dim: int,
    *,
    base: float = 10000.0,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """Inverse frequencies ``θ_i = base^(-2i/d)`` as a ``[dim // 2]`` tensor.

    Computed exactly like HF transformers' ``_compute_default_rope_parameters``:
    ``1.0 / (base ** (arange(0, d, 2).float() / d))`` in float32, so the values are bitwise equal
    to HF's for even d. ``dtype=torch.float64`` computes in float64 instead; half-precision dtypes
    are computed in float32 and then cast.

    Odd ``dim``: RoPE needs pairs, and public code disagrees on the odd case. HF's
    ``arange(0, d, 2)`` yields ceil(d/2) frequencies; Meta's reference and torchtune slice to
    floor(d/2). This function follows the ``[dim // 2]`` contract (floor), with exponents 2i/d.

    Args:
        dim: head dimension d (rotary dimension).
        base: the RoPE base.
        device: where to build the tensor (default CPU).
        dtype: result dtype (default float32).
    """
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}")
    _check_base(base)
    dtype = torch.float32 if dtype is None else dtype
    compute = torch.float64 if dtype == torch.float64 else torch.float32
    exponents = torch.arange(0, 2 * (dim // 2), 2, dtype=torch.int64).to(device=device, dtype=compute) / dim
    inv_freq = 1.0 / (float(base) ** exponents)  # θ_i = 1 / base^(2i/d)
    return inv_freq.to(dtype)


# ---------------------------------------------------------------------------------------------
# textbook (numpy float64)
# ---------------------------------------------------------------------------------------------


def _pair_indices(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Channel indices (a_i, b_i) of the i-th rotated pair."""
    half = dim // 2
    i = np.arange(half)
    if layout == "interleaved":
        return 2 * i, 2 * i + 1
    return i, i + half


def rope_rotation_matrix_np(
    pos: float | np.ndarray,
    dim: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: np.ndarray | None = None,
) -> np.ndarray:
    """RoFormer's rotation matrix ``R^d_{Θ,m}`` (eq. 15) in float64.

    With the default ``layout="interleaved"`` this is the paper's block-diagonal matrix: block i
    is ``[[cos mθ_i, -sin mθ_i], [sin mθ_i, cos mθ_i]]`` acting on channels (2i, 2i+1). With
    ``layout="half"`` the same 2x2 rotations act on channels (i, i + d/2), which is
    ``P^T R P`` for the permutation P of `half_to_interleaved_permutation`.

    Args:
        pos: position m (a scalar gives ``[d, d]``; an array of shape S gives ``[*S, d, d]``).
        dim: head dimension d (even).
        base: the RoPE base.
        layout: ``"interleaved"`` (paper, block diagonal) or ``"half"`` (HF/NeoX).
        inv_freq: optional ``[d/2]`` frequencies replacing ``base^(-2i/d)``.
    """
    _check_rope_dim(dim)
    _check_layout(layout)
    theta = rope_inv_freq_np(dim, base=base) if inv_freq is None else np.asarray(inv_freq, np.float64)
    if theta.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have shape [{dim // 2}], got {list(theta.shape)}")
    m = np.asarray(pos, dtype=np.float64)
    angle = m[..., None] * theta  # m · θ_i, shape [*S, d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = _pair_indices(dim, layout)
    rot = np.zeros(m.shape + (dim, dim), dtype=np.float64)
    rot[..., a, a] = cos  # [ cos  -sin ] [x_a]
    rot[..., a, b] = -sin  # [ sin   cos ] [x_b]
    rot[..., b, a] = sin
    rot[..., b, b] = cos
    return rot


def _positions_np(positions: Any, lead_shape: tuple[int, ...]) -> np.ndarray:
    seq = lead_shape[-1]
    if positions is None:
        pos = np.arange(seq, dtype=np.float64)
    else:
        pos = np.asarray(positions, dtype=np.float64)
        if pos.ndim == 0:
            raise ValueError("positions must be a sequence with one entry per token, got a scalar")
        if pos.shape[-1] != seq:
            raise ValueError(f"positions has {pos.shape[-1]} entries but x has seq_len {seq}")
    try:
        return np.broadcast_to(pos, lead_shape)
    except ValueError:
        raise ValueError(
            f"positions of shape {list(pos.shape)} do not broadcast to x.shape[:-1] = {list(lead_shape)}"
        ) from None


def apply_rope_np(
    x: np.ndarray,
    positions: Any = None,
    *,
    base: float = 10000.0,
    layout: str = "half",
    inv_freq: np.ndarray | None = None,
) -> np.ndarray:
    """Textbook RoPE in float64: multiply each vector by its position's rotation matrix.

    ``out[..., s, :] = R^d_{Θ, p_s} @ x[..., s, :]`` with R from `rope_rotation_matrix_np`
    (RoFormer eq. 13-15). Slow on purpose: it is the reference the fast form is tested against.

    Args:
        x: array ``[..., seq, dim]``.
        positions: ``None`` for ``0 .. seq-1``, or an array ``[seq]`` / broadcastable to
            ``x.shape[:-1]``.
        base: the RoPE base.
        layout: ``"half"`` (pairs i, i + d/2) or ``"interleaved"`` (pairs 2i, 2i+1).
        inv_freq: optional ``[d/2]`` frequencies (e.g. from `rope_scaled_inv_freq_np`).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must have shape [..., seq, dim], got {list(x.shape)}")
    dim = x.shape[-1]
    _check_rope_dim(dim)
    _check_layout(layout)
    pos = _positions_np(positions, x.shape[:-1])
    out = np.empty_like(x)
    unique, inverse = np.unique(pos, return_inverse=True)
    inverse = inverse.reshape(pos.shape)
    for k, p in enumerate(unique):
        rot = rope_rotation_matrix_np(p, dim, base, layout=layout, inv_freq=inv_freq)
        mask = inverse == k
        out[mask] = x[mask] @ rot.T  # row vectors: (R x)^T = x^T R^T
    return out


def half_to_interleaved_permutation(dim: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Index permutation ``perm`` with ``hf[r · d/2 + i] = meta[2i + r]``, i.e. ``hf = meta[..., perm]``.

    ``perm[r · d/2 + i] = 2i + r`` for ``r in {0, 1}``, ``i < d/2``. Reordering the channels of an
    interleaved (GPT-J/Meta) vector with it gives the half-split (NeoX/HF) vector, and
    ``apply_rope(x, layout="interleaved")[..., perm] == apply_rope(x[..., perm], layout="half")``.
    HF's ``convert_llama_weights_to_hf.py`` applies this to the rows of W_q and W_k. The inverse
    is `interleaved_to_half_permutation`.
    """
    _check_rope_dim(dim)
    half = dim // 2
    r = torch.arange(2).repeat_interleave(half)  # 0 .. 0, 1 .. 1
    i = torch.arange(half).repeat(2)  # 0 .. d/2-1, 0 .. d/2-1
    return (2 * i + r).to(device)


def interleaved_to_half_permutation(dim: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Inverse of `half_to_interleaved_permutation`: ``meta = hf[..., inv]``, ``inv[2i + r] = r · d/2 + i``."""
    return torch.argsort(half_to_interleaved_permutation(dim)).to(device)


# ---------------------------------------------------------------------------------------------
# textbook torch building blocks (HF / GPT-J style)
# ---------------------------------------------------------------------------------------------


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """HF/NeoX helper: ``[x1, x2] -> [-x2, x1]`` over the last dim (halves of size d/2)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    """GPT-J helper: ``(x_{2i}, x_{2i+1}) -> (-x_{2i+1}, x_{2i})`` for every pair."""
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rope_textbook(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str = "half"
) -> torch.Tensor:
    """The textbook fast-path-free form ``x * cos + rotate(x) * sin`` with full-width cos/sin.

    ``cos``/``sin`` come from `rope_cos_sin` for the same layout. This is what HF's
    ``apply_rotary_pos_emb`` computes; ``bench/rope.py`` measures `apply_rope` against it.
    """
    _check_layout(layout)
    rotate = rotate_half if layout == "half" else rotate_every_two
    return x * cos + rotate(x) * sin


# ---------------------------------------------------------------------------------------------
# cos/sin tables with a bounded LRU cache
# ---------------------------------------------------------------------------------------------


class _Tables:
    """cos/sin of ``positions · θ`` (shape ``[..., seq, d/2]``) and forms derived from them."""

    __slots__ = ("cos", "sin", "owner", "_cis", "_full")

    def __init__(self, cos: torch.Tensor, sin: torch.Tensor, owner: torch.Tensor | None = None) -> None:
        self.cos = cos
        self.sin = sin
        self.owner = owner  # a user-supplied inv_freq, kept alive so its id() stays unique
        self._cis: torch.Tensor | None = None
        self._full: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def cis(self) -> torch.Tensor:
        """``e^{i m θ}`` as a complex tensor ``cos + i sin``."""
        if self._cis is None:
            self._cis = torch.complex(self.cos, self.sin)
        return self._cis

    def full(self, layout: str) -> tuple[torch.Tensor, torch.Tensor]:
        """Full-width ``[..., seq, d]`` tables in the layout's channel order."""
        got = self._full.get(layout)
        if got is None:
            if layout == "half":  # HF: emb = cat(freqs, freqs)
                got = (torch.cat((self.cos, self.cos), -1), torch.cat((self.sin, self.sin), -1))
            else:  # GPT-J / Meta: each frequency twice in a row
                got = (self.cos.repeat_interleave(2, -1), self.sin.repeat_interleave(2, -1))
            self._full[layout] = got
        return got


class _LRUCache:
    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[tuple, _Tables] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, owner: torch.Tensor | None, build: Callable[[], _Tables]) -> _Tables:
        with self._lock:
            found = self._data.get(key)
            if found is not None and found.owner is owner:
                self._data.move_to_end(key)
                self.hits += 1
                return found
        value = build()
        with self._lock:
            self.misses += 1
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def info(self) -> dict[str, int]:
        with self._lock:
            return {
                "hits": self.hits,
                "misses": self.misses,
                "size": len(self._data),
                "maxsize": self.maxsize,
            }


_TABLE_CACHE = _LRUCache(maxsize=32)


def rope_cache_info() -> dict[str, int]:
    """Hits, misses, current size and bound of the cos/sin table cache."""
    return _TABLE_CACHE.info()


def rope_cache_clear() -> None:
    """Empty the cos/sin table cache and reset its counters."""
    _TABLE_CACHE.clear()


def _normalize_device(device: torch.device | str | None) -> torch.device:
    dev = torch.device("cpu" if device is None else device)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def _angle_dtype(dtype: torch.dtype) -> torch.dtype:
    """Angles are computed in float32 like HF/Meta/flash-attn, or in float64 for float64 tables."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _resolve_inv_freq(
    dim: int, base: float, inv_freq: torch.Tensor | None, device: torch.device, compute: torch.dtype
) -> torch.Tensor:
    if inv_freq is None:
        return rope_inv_freq(dim, base=base, device=device, dtype=compute)
    if not isinstance(inv_freq, torch.Tensor):  # lists / arrays: keep full precision until the cast
        inv_freq = torch.as_tensor(np.asarray(inv_freq, dtype=np.float64))
    if inv_freq.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have shape [{dim // 2}] for dim {dim}, got {list(inv_freq.shape)}")
    return inv_freq.to(device=device, dtype=compute)


def _build_tables(
    positions: torch.Tensor, inv_freq: torch.Tensor, dtype: torch.dtype, attention_factor: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of ``positions[..., None] · θ`` in the angle dtype, times attention_factor, cast to dtype."""
    angle = positions.to(inv_freq.dtype)[..., None] * inv_freq  # m · θ_i
    cos, sin = angle.cos(), angle.sin()
    if attention_factor != 1.0:  # YaRN: scales cos and sin, so logits scale by its square
        cos, sin = cos * attention_factor, sin * attention_factor
    return cos.to(dtype), sin.to(dtype)


def _cached_tables(
    seq_len: int,
    dim: int,
    base: float,
    device: torch.device,
    dtype: torch.dtype,
    inv_freq: torch.Tensor | None,
    attention_factor: float,
) -> _Tables:
    if inv_freq is not None and not isinstance(inv_freq, torch.Tensor):  # a list: no identity to key on
        compute = _angle_dtype(dtype)
        theta = _resolve_inv_freq(dim, base, inv_freq, device, compute)
        return _Tables(
            *_build_tables(
                torch.arange(seq_len, device=device, dtype=compute), theta, dtype, attention_factor
            )
        )
    if inv_freq is None:
        freq_key: tuple = ("base", float(base))
    else:
        freq_key = ("inv_freq", id(inv_freq), inv_freq._version)
    key = (seq_len, dim, freq_key, str(device), dtype, float(attention_factor))

    def build() -> _Tables:
        compute = _angle_dtype(dtype)
        theta = _resolve_inv_freq(dim, base, inv_freq, device, compute)
        positions = torch.arange(seq_len, device=device, dtype=compute)
        cos, sin = _build_tables(positions, theta, dtype, attention_factor)
        return _Tables(cos, sin, owner=inv_freq)

    return _TABLE_CACHE.get(key, inv_freq, build)


def _as_positions(positions: Any, device: torch.device) -> torch.Tensor:
    """Positions as a tensor on ``device``; rejects scalars, bools and complex values."""
    if isinstance(positions, torch.Tensor):
        pos = positions.to(device)
    elif isinstance(positions, range | Sequence | np.ndarray) and not isinstance(positions, str | bytes):
        pos = torch.as_tensor(np.asarray(positions), device=device)
    else:
        raise ValueError(
            f"positions must be a tensor, array or sequence of ints, got {type(positions).__name__}"
        )
    if pos.ndim == 0:
        raise ValueError("positions must have one entry per token (shape [seq] or [..., seq]), got a scalar")
    if pos.dtype == torch.bool or pos.is_complex():
        raise ValueError(f"positions must be integers or reals, got dtype {pos.dtype}")
    return pos


def _positions_for(positions: Any, lead_shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Positions checked against ``x.shape[:-1]``: last dim equal to seq, broadcastable to the rest."""
    pos = _as_positions(positions, device)
    seq = lead_shape[-1]
    if pos.shape[-1] != seq:
        raise ValueError(f"positions has {pos.shape[-1]} entries but x has seq_len {seq}")
    # plain-Python broadcast check (torch.broadcast_shapes imports sympy on first use: ~0.5 s)
    fits = pos.ndim <= len(lead_shape) and all(
        p in (1, want) for p, want in zip(reversed(pos.shape), reversed(lead_shape))
    )
    if not fits:
        raise ValueError(
            f"positions of shape {list(pos.shape)} must broadcast to x.shape[:-1] = {list(lead_shape)} "
            "(for x [batch, heads, seq, dim] pass positions [seq] or [batch, 1, seq])"
        )
    return pos


def _tables_for(
    x_shape: torch.Size,
    positions: Any,
    base: float,
    device: torch.device,
    dtype: torch.dtype,
    inv_freq: torch.Tensor | None,
    attention_factor: float,
) -> _Tables:
    dim = x_shape[-1]
    if positions is None:
        return _cached_tables(x_shape[-2], dim, base, device, dtype, inv_freq, attention_factor)
    pos = _positions_for(positions, x_shape[:-1], device)
    theta = _resolve_inv_freq(dim, base, inv_freq, device, _angle_dtype(dtype))
    cos, sin = _build_tables(pos, theta, dtype, attention_factor)
    return _Tables(cos, sin)


def rope_cos_sin(
    positions: int | Sequence[int] | torch.Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "half",
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    inv_freq: torch.Tensor | None = None,
    attention_factor: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Full-width cos/sin tables ``[..., seq, dim]`` for ``x * cos + rotate(x) * sin``.

    ``layout="half"`` repeats the d/2 frequencies as ``cat(freqs, freqs)`` (HF); ``"interleaved"``
    repeats each twice in a row (GPT-J). Angles are ``position · θ_i`` in float32 (float64 when
    ``dtype=torch.float64``), then cast to ``dtype`` like HF's ``cos.to(x.dtype)``.

    An integer ``positions`` (a sequence length) uses positions ``0 .. seq-1`` and is cached in a
    bounded LRU keyed by (seq, dim, base, device, dtype, layout, attention_factor), or by the
    identity and version of a supplied ``inv_freq``. The returned tensors are shared with the
    cache: do not modify them in place. A tensor or sequence of positions is computed fresh.

    Args:
        positions: sequence length (int) or explicit positions ``[seq]`` / ``[..., seq]``.
        dim: head dimension d (even).
        base: the RoPE base (ignored when ``inv_freq`` is given).
        layout: ``"half"`` or ``"interleaved"``.
        device: device of the tables (default CPU).
        dtype: dtype of the tables (default float32).
        inv_freq: optional ``[d/2]`` frequencies (e.g. from `rope_scaled_inv_freq`).
        attention_factor: multiplies cos and sin (YaRN's mscale), default 1.
    """
    _check_rope_dim(dim)
    _check_layout(layout)
    if inv_freq is None:
        _check_base(base)
    dev = _normalize_device(device)
    dtype = torch.float32 if dtype is None else dtype
    if isinstance(positions, int | np.integer) and not isinstance(positions, bool):
        if positions < 0:
            raise ValueError(f"seq_len must be >= 0, got {positions}")
        tables = _cached_tables(int(positions), dim, base, dev, dtype, inv_freq, attention_factor)
        return tables.full(layout)
    pos = _as_positions(positions, dev)
    theta = _resolve_inv_freq(dim, base, inv_freq, dev, _angle_dtype(dtype))
    return _Tables(*_build_tables(pos, theta, dtype, attention_factor)).full(layout)


# ---------------------------------------------------------------------------------------------
# apply_rope
# ---------------------------------------------------------------------------------------------


def _rope_interleaved(x: torch.Tensor, tables: _Tables) -> torch.Tensor:
    """Pairs (2i, 2i+1) as complex numbers times e^{i m θ_i} (Meta's view_as_complex form)."""
    half = x.shape[-1] // 2
    if x.dtype in (torch.float32, torch.float64):
        pairs = x.reshape(*x.shape[:-1], half, 2)
        if pairs.stride(-1) != 1 or any(st % 2 for st in pairs.stride()[:-1]) or pairs.storage_offset() % 2:
            pairs = pairs.contiguous()
        rotated = torch.view_as_complex(pairs) * tables.cis()  # (a + ib)(cos + i sin)
        return torch.view_as_real(rotated).flatten(-2)
    # float16 / bfloat16: no complex dtype to lean on, rotate the pairs with real arithmetic
    pairs = x.unflatten(-1, (half, 2))
    a, b = pairs[..., 0], pairs[..., 1]
    cos, sin = tables.cos, tables.sin
    return torch.stack((a * cos - b * sin, b * cos + a * sin), dim=-1).flatten(-2)


def _rope_half_eager(x: torch.Tensor, tables: _Tables) -> torch.Tensor:
    """Pairs (i, i + d/2): one contiguous ``x * cos`` pass, then two strided ``addcmul_`` passes.

    out[:h] = x1 cos - x2 sin, out[h:] = x2 cos + x1 sin. The fastest eager arrangement measured
    (about 2x faster than ``x * cos + rotate_half(x) * sin``, which makes 5 full passes).
    """
    half = x.shape[-1] // 2
    cos_full, _ = tables.full("half")
    out = x * cos_full
    out[..., :half].addcmul_(x[..., half:], tables.sin, value=-1.0)
    out[..., half:].addcmul_(x[..., :half], tables.sin)
    return out


def apply_rope(
    x: torch.Tensor,
    positions: Sequence[int] | torch.Tensor | None = None,
    *,
    base: float = 10000.0,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
    attention_factor: float = 1.0,
) -> torch.Tensor:
    """Rotate ``x`` by RoPE and return a new tensor shaped like ``x``.

    Args:
        x: ``[..., seq, dim]`` floating tensor (q or k; never v). dim must be even.
        positions: ``None`` for ``0 .. seq-1``; otherwise a 1-D tensor/sequence of length seq, or a
            tensor broadcastable to ``x.shape[:-1]`` (e.g. ``[batch, 1, seq]`` for
            ``x [batch, heads, seq, dim]``). Integer or real positions; a KV cache passes
            ``range(past, past + seq)``.
        base: the RoPE base ``θ_i = base^(-2i/d)`` (ignored when ``inv_freq`` is given).
        layout: ``"half"`` pairs (i, i + d/2) as HF/NeoX ``rotate_half``; ``"interleaved"`` pairs
            (2i, 2i+1) as GPT-J/Meta.
        inv_freq: optional ``[d/2]`` frequencies, e.g. from `rope_scaled_inv_freq`.
        attention_factor: multiplies cos and sin (YaRN), default 1.

    Angles are computed in float32 (float64 for float64 ``x``) and the tables are cast to
    ``x.dtype``, as in HF. Tables for the default positions are cached (see `rope_cos_sin`).
    """
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"x must be a torch.Tensor, got {type(x).__name__} (use apply_rope_np for numpy)")
    if x.ndim < 2:
        raise ValueError(f"x must have shape [..., seq, dim], got {list(x.shape)}")
    if not x.is_floating_point():
        raise ValueError(f"x must be a floating-point tensor, got dtype {x.dtype}")
    dim = x.shape[-1]
    if dim < 2 or dim % 2:
        raise ValueError(f"RoPE rotates pairs of channels, so the last dim must be even and >= 2, got {dim}")
    _check_layout(layout)
    if inv_freq is None:
        _check_base(base)
    tables = _tables_for(x.shape, positions, base, x.device, x.dtype, inv_freq, attention_factor)
    if layout == "interleaved":
        return _rope_interleaved(x, tables)
    if positions is not None:
        return _rope_half_eager(x, tables)
    fused = rope_compile.FUSED_HALF.lookup(x, tables.cos)
    if fused is not None:
        return fused(x, tables.cos, tables.sin)
    out = _rope_half_eager(x, tables)
    rope_compile.FUSED_HALF.note_eager_call(x, tables.cos, tables.sin)
    return out
