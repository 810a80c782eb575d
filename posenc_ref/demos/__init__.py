"""Registry of live demos.

Listing demos and reading their parameter specs never imports torch: spec modules import
torch only inside run functions. `run_demo` validates parameters, enforces the memory
budget before anything is allocated, picks a device, times the run, and falls back to CPU on
a CUDA out-of-memory error.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator
from typing import Any

from .base import Demo, DemoContext, DemoError, DemoResult, Param, ParamError
from .registry import _REGISTRY, discover, register, register_demo

__all__ = [
    "Demo",
    "DemoContext",
    "DemoError",
    "DemoResult",
    "Param",
    "ParamError",
    "get_demo",
    "list_demos",
    "register",
    "register_demo",
    "run_demo",
    "memory_budget_bytes",
]

DEFAULT_MEMORY_BUDGET_MIB = 512


def _load_specs() -> None:
    discover()  # imports every module of this package: their @register_demo fill the registry


def list_demos() -> list[Demo]:
    _load_specs()
    return sorted(_REGISTRY.values(), key=lambda d: d.name)


def get_demo(name: str) -> Demo:
    _load_specs()
    try:
        return _REGISTRY[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, _REGISTRY, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise DemoError(f"unknown demo {name!r}{hint}; valid demos: {', '.join(sorted(_REGISTRY))}") from None


UNLIMITED_MEMORY_BYTES = 2**62


def memory_budget_bytes() -> int:
    """POSENC_MEMORY_BUDGET_MIB in bytes: `inf` (or anything that overflows, like 1e400) means no limit;
    a value that is not a positive number (nan, -1, text) falls back to the default."""
    raw = os.environ.get("POSENC_MEMORY_BUDGET_MIB")
    try:
        mib = float(raw) if raw else DEFAULT_MEMORY_BUDGET_MIB
    except ValueError:
        mib = DEFAULT_MEMORY_BUDGET_MIB
    if math.isnan(mib) or mib <= 0:
        mib = DEFAULT_MEMORY_BUDGET_MIB
    if math.isinf(mib) or mib * 1024 * 1024 >= UNLIMITED_MEMORY_BYTES:
        return UNLIMITED_MEMORY_BYTES
    return int(mib * 1024 * 1024)


def check_memory(demo: Demo, params: dict[str, Any]) -> int:
    """Raise DemoError if the demo's estimated tensors exceed the budget. Returns the estimate."""
    if demo.memory_bytes is None:
        return 0
    need = int(demo.memory_bytes(**params))
    budget = memory_budget_bytes()
    if need > budget:
        raise DemoError(
            f"demo {demo.name!r} with these parameters needs about {need / 2**20:.0f} MiB of tensors, "
            f"over the {budget / 2**20:.0f} MiB budget (set POSENC_MEMORY_BUDGET_MIB to raise it)"
        )
    return need


def _is_cuda_oom(exc: BaseException) -> bool:
    """torch.cuda.OutOfMemoryError (torch >= 1.13), or the older RuntimeError('CUDA out of memory ...')."""
    return type(exc).__name__ == "OutOfMemoryError" or "CUDA out of memory" in str(exc)


# Demos whose tensors stay under this run on one CPU thread: on small tensors torch's intra-op thread
# pool costs more than it saves (each parallel op wakes and spin-waits the other threads; on a
# 2-core machine kv-cache-memory took 457 ms of CPU with 2 threads and 9 ms with 1).
SINGLE_THREAD_BELOW_BYTES = 64 * 2**20


@contextlib.contextmanager
def _intra_op_threads(n: int) -> Iterator[None]:
    import torch

    before = torch.get_num_threads()
    if before <= n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _run_timed(demo: Demo, ctx: DemoContext, resolved: dict[str, Any], need: int = 0) -> float:
    """Run the demo into `ctx` and return the elapsed milliseconds (CUDA work synchronized).

    A demo is one-off work: it never starts the background ``torch.compile`` of `apply_rope`, and
    a small one (`need` bytes of tensors under SINGLE_THREAD_BELOW_BYTES) runs on one CPU thread.
    """
    guards = contextlib.ExitStack()
    if demo.uses_torch:
        from ..rope_compile import rope_no_background_compile

        guards.enter_context(rope_no_background_compile())
        if need < SINGLE_THREAD_BELOW_BYTES:
            guards.enter_context(_intra_op_threads(1))
    start = time.perf_counter()
    with guards:
        demo.run(ctx, **resolved)
        if ctx.device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1000.0


def run_demo(name: str, params: dict[str, Any] | None = None, device: str = "auto") -> DemoResult:
    """Run demo `name` with `params` (strings or typed values) on `device`.

    Order: validate the parameters, refuse a request over the memory budget (before any tensor
    exists), pick the device, run. A CUDA out-of-memory error reruns the demo on the CPU and says
    so in the notes; every other exception propagates.

    Raises DemoError (including ParamError) for requests the user can fix; the message is one line.
    """
    demo = get_demo(name)
    resolved = demo.resolve_params(params)
    need = check_memory(demo, resolved)
    if demo.uses_torch:
        from ..device import DeviceUnavailableError, pick_device

        try:
            dev = str(pick_device(device))
        except DeviceUnavailableError as exc:
            raise DemoError(str(exc)) from None
    else:
        dev = "cpu"
    ctx = DemoContext(device=dev)
    oom: str | None = None
    try:
        elapsed_ms = _run_timed(demo, ctx, resolved, need)
    except Exception as exc:
        if not (dev.startswith("cuda") and _is_cuda_oom(exc)):
            raise
        oom = type(exc).__name__
    if oom is not None:
        # outside the except block: the traceback (and the CUDA tensors its frames hold) is gone
        import torch

        torch.cuda.empty_cache()
        ctx = DemoContext(device="cpu")
        ctx.note(
            f"CUDA ran out of memory on {dev} ({oom}); fell back to CPU.",
            zh=f"{dev} 上 CUDA 显存不足（{oom}），已改在 CPU 上运行。",
        )
        elapsed_ms = _run_timed(demo, ctx, resolved, need)
    return DemoResult(
        name=demo.name,
        title=demo.title,
        claim=demo.claim,
        device=ctx.device,
        dtype=ctx.dtype,
        elapsed_ms=elapsed_ms,
        params=resolved,
        checks=ctx.checks,
        tables=ctx.tables,
        series=ctx.series_list,
        matrices=ctx.matrices,
        values=ctx.values,
        notes=ctx.notes,
        title_zh=demo.title_zh,
        claim_zh=demo.claim_zh,
        notes_zh=ctx.notes_zh,
    )
