"""The `posenc` command. With no subcommand it opens the app.

Subcommands live with the package that owns them; each module exposes
`add_parser(subparsers)` and sets `func` on its parser. Heavy imports happen inside handlers.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import argparse

from tui import collector

# Each subcommand: the module that owns it and the function that adds its parser. Only the chosen
# subcommand's module is imported (a syntax error in a drill is reported before the other CLIs load).
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("posenc_ref.cli", "add_parser"),
    "bank": ("quizbank.cli", "add_parser"),
    "progress": ("quizbank.progress.cli", "add_parser"),
    "export": ("quizbank.progress.cli", "add_export_parser"),
    "mock": ("quizbank.mock.cli", "add_parser"),
    "serve": ("tui.serve", "add_parser"),
    "drill": ("quizbank.drills.cli", "add_parser"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (`only`) the global options plus one subcommand's parser."""
    import importlib

    from .cli_parsers import CommandParser

    parser = CommandParser(
        prog="posenc",
        description="Interview prep and live reference for position encoding in Transformers. "
        "Run with no subcommand to open the study app.",
    )
    parser.add_argument(
        "--bank",
        action="append",
        default=[],
        metavar="PATH",
        help="extra question bank file or folder (repeatable)",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="progress store folder (or POSENC_DATA_DIR)")
    parser.add_argument(
        "--lang",
        dest="global_lang",
        choices=("en", "zh"),
        help="language of the app and of what commands print (default: the app's language setting)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, adder) in COMMANDS.items():
        if only is None or name == only:
            add = getattr(importlib.import_module(module), adder)
            if name == "progress":  # config keymap.<id> checks the id against the app's bindings
                add(sub, binding_ids=_binding_ids)
            else:
                add(sub)
    return parser


def _binding_ids() -> list[str]:
    """The app's binding ids, for `posenc progress config keymap.<id>` (imports the screens: only then)."""
    from .keys import binding_ids

    return binding_ids()


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in `argv` (skipping the global options and their values), or None."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("--bank", "--data-dir", "--lang"):
            i += 2
            continue
        if token.startswith("-"):
            return None  # --help, --bank=..., or anything the full parser should judge
        return token if token in COMMANDS else None
    return None


class AppArgs(NamedTuple):
    """The options of the bare `posenc`, which opens the app."""

    bank: list[str]
    data_dir: str | None
    global_lang: str | None


def _app_only_args(argv: Sequence[str]) -> AppArgs | None:
    """Fast path for the bare `posenc [--bank PATH] [--data-dir DIR] [--lang en|zh]`: skip building the
    subcommand parsers (and importing their modules) so the app paints sooner; with no arguments at all,
    skip argparse too."""
    if not argv:
        return AppArgs([], None, None)
    from .cli_parsers import NotAppOnly, SilentParser

    quick = SilentParser(add_help=False)
    quick.add_argument("--bank", action="append", default=[])
    quick.add_argument("--data-dir")
    quick.add_argument("--lang", dest="global_lang", choices=("en", "zh"))
    try:
        args, rest = quick.parse_known_args(argv)
    except NotAppOnly:  # e.g. a subcommand's `--lang both`: the full parser judges it, and says so once
        return None
    return None if rest else AppArgs(args.bank, args.data_dir, args.global_lang)


def main(argv: Sequence[str] | None = None) -> int:
    """`posenc`: the exit status. A reader that closes the pipe early (`posenc … | head`) ends it quietly,
    whatever the subcommand: no traceback, no "Exception ignored … Broken pipe" at exit."""
    try:
        try:
            return _main(argv)
        finally:  # what is still buffered fails here (also after --help's SystemExit), not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's own flush at exit has nowhere to fail (as the
    Python docs on SIGPIPE recommend)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (captured): nothing is flushed at exit
        pass


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = _app_only_args(argv)
    if quick is not None:
        return _open_app(quick.bank, quick.data_dir, quick.global_lang)
    parser = build_parser(only=_command_in(argv))
    args = parser.parse_args(argv)
    if args.command is None:
        return _open_app(args.bank, args.data_dir, args.global_lang)
    from quizbank.cli_text import cli_language

    args.language = cli_language(args)  # one language for whatever the command prints
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _open_app(bank: list[str], data_dir: str | None, language: str | None) -> int:
    """Run the app: the garbage collector held off (tui.collector) from before Textual loads until Home lists
    the topics."""
    collector.hold()
    from tui.app import run_app

    return run_app(bank_paths=bank, data_dir=data_dir, language=language)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
