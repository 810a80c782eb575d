"""The `posenc` command. With no subcommand it opens the app.

Subcommands live with the package that owns them; each module exposes
`add_parser(subparsers)` and sets `func` on its parser. Heavy imports happen inside handlers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from posenc_ref import cli as demo_cli
    from quizbank import cli as bank_cli
    from quizbank.drills import cli as drill_cli
    from quizbank.mock import cli as mock_cli
    from quizbank.progress import cli as progress_cli

    from . import serve as serve_cli

    parser = argparse.ArgumentParser(
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo_cli.add_parser(sub)
    bank_cli.add_parser(sub)
    progress_cli.add_parser(sub, binding_ids=_binding_ids)
    progress_cli.add_export_parser(sub)
    mock_cli.add_parser(sub)
    serve_cli.add_parser(sub)
    drill_cli.add_parser(sub)
    return parser


def _binding_ids() -> list[str]:
    """The app's binding ids, for `posenc progress config keymap.<id>` (imports the screens: only then)."""
    from .keys import binding_ids

    return binding_ids()


def _app_only_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """Fast path for the bare `posenc [--bank PATH] [--data-dir DIR]`: skip building the subcommand
    parsers (and importing their modules) so the app paints sooner."""
    quick = argparse.ArgumentParser(add_help=False)
    quick.add_argument("--bank", action="append", default=[])
    quick.add_argument("--data-dir")
    try:
        args, rest = quick.parse_known_args(argv)
    except SystemExit:
        return None
    return None if rest else args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = _app_only_args(argv)
    if quick is not None:
        from tui.app import run_app

        return run_app(bank_paths=quick.bank, data_dir=quick.data_dir)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from tui.app import run_app

        return run_app(bank_paths=args.bank, data_dir=args.data_dir)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
