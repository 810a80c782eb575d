"""The background torch.compile build behind half-layout apply_rope (posenc_ref.rope_compile): small
inputs and demos never start it, POSENC_NO_COMPILE disables it, the second eager call queues it, and
the fused kernel it builds equals the textbook form."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest
import torch

from posenc_ref import rope_compile
from posenc_ref.rope import apply_rope
from posenc_ref.rope_compile import rope_compile_status, rope_no_background_compile


def test_small_inputs_never_start_the_compiler():
    before = rope_compile_status()
    x = torch.zeros(2, 4, 64, 32)
    for _ in range(3):
        apply_rope(x)
    after = rope_compile_status()
    assert (
        after["ready_shapes"] + after["pending_shapes"] == before["ready_shapes"] + before["pending_shapes"]
    )
    assert after["min_numel"] > x.numel()


def test_env_var_disables_the_compiler(monkeypatch):
    monkeypatch.setenv("POSENC_NO_COMPILE", "1")
    status = rope_compile_status()
    assert status["disabled_by_env"] and not status["available"]
    big = torch.zeros(1, 8, 1024, 128)
    assert big.numel() >= status["min_numel"]
    for _ in range(2):
        apply_rope(big)
    assert rope_compile.FUSED_HALF._key(big, torch.zeros(1024, 64)) is None
    assert rope_compile_status()["pending_shapes"] == 0


@pytest.fixture
def recording_compiler(monkeypatch):
    """A fresh compile gate whose worker compiles nothing, so queuing can be observed safely."""
    monkeypatch.delenv("POSENC_NO_COMPILE", raising=False)
    gate = rope_compile.FusedHalfKernel()
    monkeypatch.setattr(gate, "_work", lambda: None)
    monkeypatch.setattr(rope_compile, "FUSED_HALF", gate)
    return gate


def test_no_background_compile_block_never_queues(recording_compiler):
    big = torch.zeros(1, 8, 1024, 128)  # 1M elements: large enough to be worth compiling
    with rope_no_background_compile():
        for _ in range(3):
            apply_rope(big)
    assert recording_compiler._queued == set() and recording_compiler._seen == {}
    for _ in range(2):  # outside the block the second call queues a build
        apply_rope(big)
    assert len(recording_compiler._queued) == 1


def test_demos_never_queue_a_compile(recording_compiler):
    from posenc_ref.demos import run_demo

    result = run_demo("rope-norm", {"dim": 256, "seq_len": 4096}, device="cpu")  # calls apply_rope(x) twice
    assert result.passed and rope_compile_status()["min_numel"] <= 256 * 4096
    assert recording_compiler._queued == set() and recording_compiler._seen == {}


@pytest.mark.slow  # a real torch.compile build: tens of seconds of CPU
@pytest.mark.timeout(600)
@pytest.mark.skipif(shutil.which("c++") is None, reason="torch.compile on the CPU needs a C++ compiler")
def test_background_compile_end_to_end():
    script = textwrap.dedent(
        """
        import time, torch
        from posenc_ref.rope import apply_rope, apply_rope_textbook, rope_cos_sin, rope_compile_status, rope_wait_for_compile
        x = torch.randn(1, 8, 1024, 128)
        t = time.perf_counter(); first = apply_rope(x); second = apply_rope(x)
        assert time.perf_counter() - t < 5, "eager calls must not wait for the compiler"
        assert rope_wait_for_compile(600)
        status = rope_compile_status()
        assert status["error"] is None and status["ready_shapes"] == 1, status
        fused = apply_rope(x)
        want = apply_rope_textbook(x, *rope_cos_sin(1024, 128))
        assert (fused - want).abs().max() < 1e-5 and torch.equal(first, second)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=580)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ok" in out.stdout
