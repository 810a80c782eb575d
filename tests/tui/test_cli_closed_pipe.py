"""`posenc … | head`: a reader that closes the pipe early ends every subcommand quietly, with no
"Broken pipe" (Python's "Exception ignored … BrokenPipeError" at exit, or a handler's "error: Broken pipe")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = [
    ["--help"],
    ["demo", "list"],
    ["demo", "list", "--json"],
    ["drill", "list"],
    ["bank", "stats"],
    ["progress", "stats"],
    ["mock", "history"],
]


def _closed_reader(argv: list[str], tmp_path: Path, unbuffered: bool) -> tuple[int, str]:
    """Run `posenc ARGV` with its stdout read by nobody (the pipe closed at once); (status, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env |= {"POSENC_DATA_DIR": str(tmp_path / "data"), "POSENC_BANK_DIR": str(tmp_path / "banks")}
    if unbuffered:  # each print reaches the pipe at once: the error comes inside the subcommand
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    return proc.wait(timeout=120), err


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_closed_pipe_ends_quietly(argv: list[str], tmp_path: Path) -> None:
    code, err = _closed_reader(argv, tmp_path, unbuffered=False)
    assert "Broken pipe" not in err and "Traceback" not in err, err
    assert code == 0


def test_a_closed_pipe_inside_a_handler_is_no_error_line(tmp_path: Path) -> None:
    """`progress stats` caught the BrokenPipeError as an OSError and said "posenc: error: Broken pipe"."""
    code, err = _closed_reader(["progress", "stats"], tmp_path, unbuffered=True)
    assert err == "" and code == 0
