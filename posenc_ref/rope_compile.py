"""The fused half-layout RoPE kernel, built with ``torch.compile`` in the background.

`apply_rope` (``posenc_ref.rope``) runs the half layout eagerly and asks `FUSED_HALF` for a compiled
kernel: once one is ready for the input's signature (shape, dtype, device, grad mode) the call runs it
through ``torch._dynamo.run`` (cached code only, never compiling on the caller's thread). The second
eager call with one signature queues a build on a daemon thread, so no call ever waits for the
compiler, one-off calls never start it, and a compile failure disables the fused path for the rest
of the process (`rope_compile_status` reports it). ``POSENC_NO_COMPILE=1`` disables it, and so does
`rope_no_background_compile()` for the calls inside it (the live demos).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import torch

__all__ = [
    "FUSED_HALF",
    "FusedHalfKernel",
    "rope_compile_status",
    "rope_no_background_compile",
    "rope_wait_for_compile",
]


def _half_kernel(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """One fused pass for the half layout: [x1 cos - x2 sin, x2 cos + x1 sin]."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


_COMPILE_MIN_NUMEL = 1 << 20  # below ~4 MiB of float32 the eager path is already cheap
_COMPILE_MAX_SHAPES = 6  # dynamo's default recompile limit is 8 per function
# False inside `rope_no_background_compile()`: calls there never queue a build
_COMPILE_ALLOWED: contextvars.ContextVar[bool] = contextvars.ContextVar("posenc_rope_compile", default=True)


@contextlib.contextmanager
def rope_no_background_compile() -> Iterator[None]:
    """Within this block, half-layout `apply_rope` calls never queue a background ``torch.compile``.

    For one-off work such as the live demos: a demo that calls `apply_rope` twice on a large
    tensor would otherwise start a compile (seconds of CPU and a few hundred MiB) that only a hot
    loop repays. Kernels that are already compiled are still used.
    """
    token = _COMPILE_ALLOWED.set(False)
    try:
        yield
    finally:
        _COMPILE_ALLOWED.reset(token)


class FusedHalfKernel:
    """Compiles `_half_kernel` per input signature on a daemon thread.

    A call looks up its signature: if the compiled kernel for it is ready, it runs through
    ``torch._dynamo.run`` (cached code only, never compiles on the caller's thread); otherwise the
    caller takes the eager path, and the second eager call with one signature queues a build. Any compile failure disables the fused
    path for the rest of the process and is reported by `rope_compile_status`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: set[tuple] = set()
        self._pending: list[tuple[tuple, dict]] = []
        self._queued: set[tuple] = set()
        self._seen: dict[tuple, int] = {}
        self._thread: threading.Thread | None = None
        self._compiled: Callable | None = None
        self._runner: Callable | None = None
        self.error: str | None = None
        self._idle = threading.Event()
        self._idle.set()

    @staticmethod
    def disabled_by_env() -> bool:
        return os.environ.get("POSENC_NO_COMPILE", "").strip().lower() not in ("", "0", "false", "no")

    def available(self) -> bool:
        # torch._dynamo is imported by the worker only: touching it here would cost ~1 s per first call
        return self.error is None and not self.disabled_by_env() and hasattr(torch, "compile")

    def _key(self, x: torch.Tensor, cos: torch.Tensor) -> tuple | None:
        if x.numel() < _COMPILE_MIN_NUMEL or not self.available():
            return None
        if x.requires_grad or not x.is_contiguous() or x.device.type not in ("cpu", "cuda"):
            return None
        return (tuple(x.shape), x.dtype, str(x.device), tuple(cos.shape), cos.dtype, torch.is_grad_enabled())

    def lookup(self, x: torch.Tensor, cos: torch.Tensor) -> Callable | None:
        """The compiled kernel if it is ready for this input signature, else None."""
        key = self._key(x, cos)
        if key is None:
            return None
        with self._lock:
            return self._runner if key in self._ready else None

    def note_eager_call(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> None:
        """Count an eager call; the second call with one signature queues a background build.

        Called after the eager result is computed, so the first call never shares the CPU with
        the compiler, and one-off calls (demos, tests) never start it.
        """
        if not _COMPILE_ALLOWED.get():
            return
        key = self._key(x, cos)
        if key is None:
            return
        with self._lock:
            if key in self._ready or key in self._queued:
                return
            seen = self._seen.get(key, 0) + 1
            self._seen[key] = seen
            if seen < 2 or len(self._ready) + len(self._queued) >= _COMPILE_MAX_SHAPES:
                return
            self._queued.add(key)
            spec = {"shape": tuple(x.shape), "dtype": x.dtype, "device": x.device, "cos": cos, "sin": sin}
            self._pending.append((key, spec))
            self._idle.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="posenc-rope-compile", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._pending or self.error is not None:
                    self._pending.clear()
                    self._idle.set()
                    return
                key, spec = self._pending.pop(0)
            try:
                if self._compiled is None:
                    self._compiled = torch.compile(_half_kernel, dynamic=False, fullgraph=True)
                    self._runner = torch._dynamo.run(_half_kernel)
                example = torch.zeros(spec["shape"], dtype=spec["dtype"], device=spec["device"])
                with torch.set_grad_enabled(key[-1]):
                    got = self._compiled(example, spec["cos"], spec["sin"])
                if tuple(got.shape) != spec["shape"]:  # pragma: no cover - defensive
                    raise RuntimeError("compiled kernel returned a wrong shape")
                with self._lock:
                    self._ready.add(key)
            except Exception as exc:  # noqa: BLE001 - no compiler, unsupported Python, missing triton, ...
                with self._lock:
                    self.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "available": self.available(),
                "disabled_by_env": self.disabled_by_env(),
                "ready_shapes": len(self._ready),
                "pending_shapes": len(self._queued) - len(self._ready),
                "error": self.error,
                "min_numel": _COMPILE_MIN_NUMEL,
            }

    def wait(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)


FUSED_HALF = FusedHalfKernel()


def rope_compile_status() -> dict[str, Any]:
    """State of the background ``torch.compile`` build used by half-layout `apply_rope`.

    Keys: ``available`` (compiling allowed and not failed), ``disabled_by_env``
    (``POSENC_NO_COMPILE`` set), ``ready_shapes``, ``pending_shapes``, ``error`` (first compile
    failure, or None) and ``min_numel`` (inputs smaller than this always run eagerly).
    """
    return FUSED_HALF.status()


def rope_wait_for_compile(timeout: float | None = None) -> bool:
    """Block until queued background compiles finish (for benchmarks). True if none is pending."""
    return FUSED_HALF.wait(timeout)
