"""Running a command-line entry point in-process, as the CLI tests do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["cli_runner"]


def cli_runner(main: Callable[[list[str]], int]) -> Callable[..., tuple[int, str, str]]:
    """`run(capsys, *argv)` for `main`: its exit code and what it printed (stdout, stderr)."""

    def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
