"""bench/gpu_check.py keeps working on the CPU (CI runs it there; the GPU machine runs it unchanged)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT


def _gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_test_file_whose_imports_are_missing_is_left_out(tmp_path: Path) -> None:
    gpu_check = _gpu_check()
    assert gpu_check._missing_imports(ROOT / "tests" / "posenc_ref" / "test_alibi.py") == set()
    assert "no_such_module_xyz" in gpu_check._missing_imports(_write(tmp_path, "import no_such_module_xyz\n"))


def _write(folder: Path, text: str) -> Path:
    path = folder / "test_fake.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_relative_error_treats_masks_and_nans_as_values() -> None:
    import numpy as np

    gpu_check = _gpu_check()
    inf = float("inf")
    assert gpu_check._relative_error(np.array([1.0, -inf]), np.array([1.0, -inf])) == 0.0
    assert gpu_check._relative_error(np.array([1.0, 0.0]), np.array([1.0, -inf])) == inf
    assert gpu_check._relative_error(np.array([4.0, 2.0]), np.array([4.0, 2.004])) == pytest.approx(0.001)


def test_every_fast_and_textbook_pair_has_an_oracle_case() -> None:
    """Each exported `f` with an `f_np` is compared on the device, every RoPE scaling rule included."""
    import numpy as np
    import torch

    import posenc_ref
    from posenc_ref.rope_scaling import ROPE_TYPES

    gpu_check = _gpu_check()
    names = [name for name, _, _ in gpu_check._oracle_cases(torch, np, "cpu")]
    pairs = sorted(n for n in posenc_ref.__all__ if f"{n}_np" in posenc_ref.__all__)
    assert len(pairs) >= 15
    covered = {re.split(r"[\[.(]", name)[0] for name in names}
    missing = [n for n in pairs if n not in covered and n not in gpu_check.NOT_ORACLES]
    assert missing == [], (
        "add an oracle case to bench/gpu_check.py _oracle_cases (or a reason to NOT_ORACLES)"
    )
    assert all(n in pairs for n in gpu_check.NOT_ORACLES)
    assert [n for n in names if n.startswith("rope_scaled_inv_freq[")] == [
        f"rope_scaled_inv_freq[{t}]" for t in ROPE_TYPES
    ]


def test_the_oracles_pass_on_the_cpu() -> None:
    result = _gpu_check().part_oracles("cpu")
    assert result["ok"], result["details"]


@pytest.mark.slow  # starts a child per part, each imports torch
def test_the_cpu_run_passes_and_prints_one_line_per_part() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gpu_check.py"), "--device", "cpu", "--parts", "oracles,demos"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd="/",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("env ") and " ok " in lines[1] and "device=cpu" in lines[1]
    assert lines[2].startswith("oracles ") and " ok " in lines[2]
    assert lines[3].startswith("demos ") and " ok " in lines[3] and "CLI ok" in lines[3]
    assert lines[-1].startswith("gpu-check: ok")
