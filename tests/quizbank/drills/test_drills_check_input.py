"""What `posenc drill check NAME FILE` and the grader refuse before grading: a FILE that is not a regular file
(a device such as /dev/zero, a pipe, a folder) or is over 256 KiB, and a --timeout outside (0, 600] seconds.
Each is one line on stderr and exit 2, and nothing is read whole or started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from quizbank.drills import get_drill, grade_file
from quizbank.drills.loading import SOURCE_LIMIT_BYTES, SourceFileError, read_source

NTK = "ntk-inv-freq"


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    from tui.cli import main

    code = main(["drill", "check", NTK, *argv])
    return code, capsys.readouterr().err.splitlines()


def test_a_device_is_refused_before_it_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, "/dev/zero") == (  # it once grew to 22.7 GB before the OOM killer
        2,
        [
            "posenc drill: cannot read /dev/zero: not a regular file (a device, a pipe or a socket), not a Python file"
        ],
    )


def test_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, str(tmp_path)) == (
        2,
        [f"posenc drill: cannot read {tmp_path}: a folder, not a Python file"],
    )


def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "solution.py"
    os.mkfifo(fifo)
    done = subprocess.run(  # a blocking read would wait for a writer forever
        [sys.executable, "-m", "tui", "drill", "check", NTK, str(fifo)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"posenc drill: cannot read {fifo}: not a regular file (a device, a pipe or a socket), not a Python file"
    ]


def test_a_file_over_256_kib_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solution = get_drill(NTK).solution.encode()
    exact = tmp_path / "exact.py"
    exact.write_bytes(solution + b"#" * (SOURCE_LIMIT_BYTES - len(solution)))
    assert read_source(exact) == exact.read_bytes()  # 256 KiB exactly: read
    big = tmp_path / "big.py"
    big.write_bytes(exact.read_bytes() + b"#")
    with pytest.raises(SourceFileError, match="larger than 256 KiB"):
        read_source(big)
    with pytest.raises(SourceFileError, match="larger than 256 KiB"):
        grade_file(NTK, big)
    assert check(capsys, str(big)) == (
        2,
        [f"posenc drill: cannot read {big}: larger than 256 KiB; a drill solution is a few KiB"],
    )


@pytest.mark.parametrize("timeout", ["1e999", "inf", "nan", "1e20", "600.5", "0", "-1"])
def test_a_timeout_outside_0_to_600_seconds_is_a_usage_error(
    timeout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(get_drill(NTK).solution, encoding="utf-8")
    assert check(capsys, str(path), "--timeout", timeout) == (
        2,
        ["posenc drill: --timeout must be more than 0 and at most 600 seconds"],
    )
    with pytest.raises(ValueError, match="at most 600 seconds"):
        grade_file(NTK, path, timeout_s=float(timeout))
