"""The argparse parsers of the `posenc` command (`tui.cli`), imported only when there are arguments to parse:
a bare `posenc` opens the app without importing argparse (~2 ms with gettext, before the first paint)."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["CommandParser", "NotAppOnly", "SilentParser"]


class CommandParser(argparse.ArgumentParser):
    """argparse, whose usage errors cut an echoed over-long value (`--seed` with 5,000 digits) as every
    posenc error does. Subcommand parsers are made of the same class."""

    def error(self, message: str) -> NoReturn:
        from quizbank.safetext import clip_long_runs

        super().error(clip_long_runs(message))


class NotAppOnly(Exception):
    """The arguments are not only the app's own options (the full parser judges them)."""


class SilentParser(argparse.ArgumentParser):
    """The fast path's parser: a mistake means "not the bare app", never a message of its own on stderr."""

    def error(self, message: str) -> NoReturn:
        raise NotAppOnly(message)
