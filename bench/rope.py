"""Benchmark apply_rope against x.clone() and the textbook form.

Prints medians of alternating runs in one process (every variant sees the same machine state):

* apply_rope(interleaved) / clone   target <= 1.3  (complex multiply on a cached table)
* apply_rope(half) / clone          target <= 2.0  (fused torch.compile kernel when available)
* textbook / apply_rope, per layout target >= 3.0  (textbook: x*cos + rotate(x)*sin)

on [1, 32, 2048, 128] float32 on CPU, and on CUDA when available. Run through ``make bench``,
which raises glibc's mmap threshold so that fresh 32 MiB outputs do not page-fault every call.

Usage: python bench/rope.py [--repeats N] [--shape B H S D] [--device all|cpu|cuda] [--no-cuda] [--no-compile]

Exit status 1 when a fast form differs from the textbook form by more than 1e-4 (a missed ratio is
reported, not failed: the machines are noisy).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=31, help="alternating rounds (default 31)")
    parser.add_argument(
        "--shape", type=int, nargs=4, default=[1, 32, 2048, 128], metavar=("B", "H", "S", "D")
    )
    parser.add_argument(
        "--device", default="all", help="all (default: cpu, then cuda when available), cpu, cuda or cuda:N"
    )
    parser.add_argument("--no-cuda", action="store_true", help="skip the CUDA measurements")
    parser.add_argument("--no-compile", action="store_true", help="same as POSENC_NO_COMPILE=1")
    parser.add_argument(
        "--compile-timeout", type=float, default=300.0, help="seconds to wait for torch.compile"
    )
    return parser.parse_args()


def _time_alternating(
    variants: dict[str, Callable[[], object]], repeats: int, sync: Callable[[], None]
) -> dict[str, float]:
    """Median seconds per variant; each round runs every variant once, in turn."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            sync()
            start = time.perf_counter()
            fn()
            sync()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in samples.items()}


def _verdict(value: float, target: float, upper: bool) -> str:
    ok = value <= target if upper else value >= target
    return f"{'ok  ' if ok else 'MISS'} (target {'<=' if upper else '>='} {target:g})"


def _bench_device(device: str, shape: list[int], repeats: int, compile_timeout: float) -> float:
    """Print the medians and ratios on `device`; return the largest |fast - textbook|."""
    import torch

    from posenc_ref.rope import (
        _rope_half_eager,
        _tables_for,
        apply_rope,
        apply_rope_textbook,
        rope_compile_status,
        rope_cos_sin,
        rope_wait_for_compile,
    )

    torch.manual_seed(0)
    x = torch.randn(*shape, device=device)
    seq, dim = shape[-2], shape[-1]
    cos_h, sin_h = rope_cos_sin(seq, dim, layout="half", device=device)
    cos_i, sin_i = rope_cos_sin(seq, dim, layout="interleaved", device=device)
    tables = _tables_for(x.shape, None, 10000.0, x.device, x.dtype, None, 1.0)

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    # correctness first: every fast variant equals the textbook
    ref_h = apply_rope_textbook(x, cos_h, sin_h, "half")
    ref_i = apply_rope_textbook(x, cos_i, sin_i, "interleaved")
    err = max(
        float((apply_rope(x) - ref_h).abs().max()),
        float((_rope_half_eager(x, tables) - ref_h).abs().max()),
        float((apply_rope(x, layout="interleaved") - ref_i).abs().max()),
    )

    # two eager calls queue the background compile; wait for it so the fused kernel is measured
    start = time.perf_counter()
    for _ in range(2):
        apply_rope(x)
    finished = rope_wait_for_compile(compile_timeout)
    waited = time.perf_counter() - start
    status = rope_compile_status()
    fused = status["ready_shapes"] > 0 and status["error"] is None
    if fused:
        err = max(err, float((apply_rope(x) - ref_h).abs().max()))

    variants: dict[str, Callable[[], object]] = {
        "clone": lambda: x.clone(),
        "rope_interleaved": lambda: apply_rope(x, layout="interleaved"),
        "rope_half": lambda: apply_rope(x),
        "rope_half_eager": lambda: _rope_half_eager(x, tables),
        "textbook_half": lambda: apply_rope_textbook(x, cos_h, sin_h, "half"),
        "textbook_interleaved": lambda: apply_rope_textbook(x, cos_i, sin_i, "interleaved"),
    }
    for _ in range(3):  # warm-up: allocator, caches, lazy init
        for fn in variants.values():
            fn()
    t = _time_alternating(variants, repeats, sync)

    print(f"\n== {device}: x {shape} float32, {repeats} alternating rounds, medians ==")
    if fused:
        print(f"torch.compile: used for the half layout (background build finished after {waited:.1f} s)")
    elif status["error"]:
        print(f"torch.compile: failed, eager fallback in use ({status['error']})")
    elif not status["available"]:
        print("torch.compile: disabled (POSENC_NO_COMPILE or no torch.compile); eager half layout measured")
    else:
        print(
            f"torch.compile: not ready after {waited:.1f} s (finished={finished}); eager half layout measured"
        )
    print(f"max |fast - textbook| = {err:.3g}")
    for name, sec in t.items():
        print(f"  {name:<22} {sec * 1e3:8.3f} ms")
    rows = [
        ("apply_rope(interleaved) / clone", t["rope_interleaved"] / t["clone"], 1.3, True),
        ("apply_rope(half) / clone", t["rope_half"] / t["clone"], 2.0, True),
        ("textbook(half) / apply_rope(half)", t["textbook_half"] / t["rope_half"], 3.0, False),
        (
            "textbook(interleaved) / apply_rope(interleaved)",
            t["textbook_interleaved"] / t["rope_interleaved"],
            3.0,
            False,
        ),
    ]
    for label, value, target, upper in rows:
        print(f"  {label:<48} {value:6.2f}x  {_verdict(value, target, upper)}")
    print("  eager half path (used until the compiled kernel is ready, or without a compiler):")
    print(f"  {'  eager half / clone':<48} {t['rope_half_eager'] / t['clone']:6.2f}x")
    print(f"  {'  textbook(half) / eager half':<48} {t['textbook_half'] / t['rope_half_eager']:6.2f}x")
    return err


def main() -> int:
    args = _parse()
    if args.no_compile:
        os.environ["POSENC_NO_COMPILE"] = "1"
    if not os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        print(
            "hint: MALLOC_MMAP_THRESHOLD_ is not set, so every fresh 32 MiB output page-faults and the "
            "ratios are noisy. Run `make bench`, or prefix MALLOC_MMAP_THRESHOLD_=17179869184 "
            "MALLOC_TRIM_THRESHOLD_=17179869184.",
            file=sys.stderr,
        )
    import torch

    print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    if args.device == "all":
        devices = ["cpu"] + (["cuda"] if not args.no_cuda and torch.cuda.is_available() else [])
    elif args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"error: --device {args.device}: CUDA is not available here", file=sys.stderr)
        return 2
    else:
        devices = [args.device]
    worst = max(_bench_device(d, args.shape, args.repeats, args.compile_timeout) for d in devices)
    if worst > 1e-4:
        print(f"error: a fast form differs from the textbook form by {worst:.3g} (> 1e-4)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
