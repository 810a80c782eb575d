"""Every `posenc` CLI refuses bad input in one short line: a 5,000-digit value is cut as the backup importer
cuts it (argparse's own errors too), and `--seed -1` is refused alike by `bank sample` and `mock plan`."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tui.cli import main

pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


@pytest.mark.parametrize(
    "argv",
    [
        ["bank", "sample", "--seed", "-1", "x"],
        ["mock", "plan", "--seed", "-1"],
        ["bank", "sample", "--seed", "9" * 5000, "x"],  # argparse's own error
        ["bank", "sample", "9" * 5000],
        ["progress", "config", "new_per_day", "9" * 5000],
        ["drill", "check", "9" * 5000, "x.py"],
    ],
)
def test_every_cli_refuses_in_one_short_line(capsys: Any, argv: list[str]) -> None:
    with contextlib.suppress(SystemExit):  # argparse exits 2 itself
        code = main(argv)
        assert code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "9" * 100 not in err and "Traceback" not in err, err[:300]
    assert len(lines) <= 2 and ("-1" not in argv or "must be in 0..2147483647, got -1" in err), err


def test_a_subcommands_own_language_choice_prints_no_error(capsys: Any, tmp_path: Any) -> None:
    """`export markdown --lang both` is valid for the export; the bare-app fast path, which knows only en and zh,
    used to print "invalid choice: 'both'" on stderr before the export ran and exited 0."""
    out = tmp_path / "md"
    assert main(["export", "markdown", "--lang", "both", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("wrote ") and "topic files" in captured.out
    assert (out / "README.md").is_file()
