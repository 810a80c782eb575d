"""Device selection. `auto` tries cuda, then mps, then cpu; POSENC_DEVICE overrides."""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

VALID_DEVICES = ("auto", "cpu", "cuda", "mps")


class DeviceUnavailableError(RuntimeError):
    pass


def _cuda_available(torch: ModuleType) -> bool:
    return bool(torch.cuda.is_available())


def _mps_available(torch: ModuleType) -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def pick_device(prefer: str = "auto") -> torch.device:
    """Return a `torch.device`.

    `prefer` is one of auto, cpu, cuda, mps (or an indexed form such as ``cuda:1``). The
    ``POSENC_DEVICE`` environment variable, when set, overrides `prefer`. Asking for a device
    this machine lacks raises `DeviceUnavailableError` with a one-line reason.
    """
    import torch

    requested = (os.environ.get("POSENC_DEVICE") or prefer or "auto").strip().lower()
    kind, colon, index = requested.partition(":")
    if kind not in VALID_DEVICES or (colon and (kind == "auto" or not index.isdigit())):
        raise DeviceUnavailableError(
            f"unknown device {requested!r}; choose one of {', '.join(VALID_DEVICES)} (or cuda:N)"
        )
    if kind == "auto":
        if _cuda_available(torch):
            return torch.device("cuda")
        if _mps_available(torch):
            return torch.device("mps")
        return torch.device("cpu")
    if kind == "cuda" and not _cuda_available(torch):
        raise DeviceUnavailableError("device 'cuda' was requested but CUDA is not available on this machine")
    if kind == "cuda" and colon and int(index) >= torch.cuda.device_count():
        raise DeviceUnavailableError(
            f"device {requested!r} was requested but only {torch.cuda.device_count()} CUDA device(s) exist"
        )
    if kind == "mps" and not _mps_available(torch):
        raise DeviceUnavailableError("device 'mps' was requested but MPS is not available on this machine")
    return torch.device(requested)


def resolve_dtype(dtype):
    """None -> torch.float32; accepts a torch dtype or its name ('float64', 'bfloat16', ...)."""
    import torch

    if dtype is None:
        return torch.float32
    if isinstance(dtype, str):
        value = getattr(torch, dtype, None)
        if not isinstance(value, torch.dtype):
            raise ValueError(f"unknown dtype {dtype!r}")
        return value
    return dtype
