"""`posenc progress ...` (export, import, orphans, stats, optimize, config) and `posenc export ...` (anki, markdown).

Global options read here: `--data-dir DIR` (args.data_dir; else POSENC_DATA_DIR, else the platform data folder)
and `--bank PATH` (args.bank, repeatable extra banks). Errors are one line on stderr plus an exit code:
1 for a failure while working, 2 for bad input (unreadable or malformed file, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizbank.cli_text import cli_language, say
from quizbank.exports.render import LANG_CHOICES

if TYPE_CHECKING:
    from quizbank.bankset import BankSet
    from quizbank.progress.store import ProgressStore

__all__ = ["add_export_parser", "add_parser"]

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
MAX_BACKUP_BYTES = 256 * 1024 * 1024  # a backup of 1,000,000 reviews is about 150 MB


def _error(message: str) -> None:
    from quizbank.safetext import clip_long_runs, escape_unsafe

    print(f"posenc: error: {escape_unsafe(clip_long_runs(message), one_line=True)}", file=sys.stderr)


def _did_you_mean(name: str, valid: list[str]) -> str:
    """The note " (did you mean 'posenc.next'?)" naming the closest valid id; "" when none is close."""
    import difflib

    last = name.rsplit(".", 1)[-1]
    same_end = [v for v in valid if v.rsplit(".", 1)[-1] == last]  # posenc.quiz -> posenc.home.quiz
    close = same_end[:1] or difflib.get_close_matches(name, valid, n=1, cutoff=0.8)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _open(args: argparse.Namespace, bankset: Any = None) -> ProgressStore:
    """The progress store; with `bankset`, history of merged-away question ids moves to their replacements."""
    from quizbank.progress.store import open_store

    store = open_store(getattr(args, "data_dir", None))
    from quizbank.safetext import escape_unsafe

    for notice in store.notices:
        print(f"posenc: {escape_unsafe(str(notice), one_line=True)}", file=sys.stderr)
    if bankset is not None and bankset.replaced_by:
        store.migrate_replaced_ids(bankset.replaced_by)
    return store


def _load_banks(args: argparse.Namespace) -> BankSet:
    """The shipped bank plus --bank paths and the user bank folder; skipped files are named on stderr."""
    from quizbank.loader import load_banks
    from quizbank.safetext import escape_unsafe

    _move_saved_predictions(args)
    bankset = load_banks(list(getattr(args, "bank", None) or []))
    for path, problems in bankset.skipped:
        first = f": {str(problems[0]).splitlines()[0]}" if problems else ""  # a YAML excerpt stays out
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        line = f"posenc: warning: skipped bank {path}{first}{more}"
        print(escape_unsafe(line, one_line=True), file=sys.stderr)
    return bankset


def _move_saved_predictions(args: argparse.Namespace) -> None:
    """Predictions the Demo lab once saved in the user's bank folder become Study cards (as the app does
    at start), so that no export lists them as a topic; when that fails, this run still goes on."""
    from quizbank.bankfiles import user_bank_dir
    from quizbank.predictions import move_legacy_file
    from quizbank.safetext import escape_unsafe

    try:
        moved = move_legacy_file(getattr(args, "data_dir", None), user_bank_dir())
    except Exception as exc:  # noqa: BLE001 - a warning: the command goes on
        line = f"posenc: warning: saved predictions not moved into Study yet: {exc}"
        print(escape_unsafe(line, one_line=True), file=sys.stderr)
        return
    if moved is not None:
        line = f"posenc: saved predictions are Study cards now: {moved.added + moved.present} ({moved.set_aside})"
        print(escape_unsafe(line, one_line=True), file=sys.stderr)


def _topics(bankset: Any) -> dict[str, list[str]]:
    return {topic.id: list(topic.question_ids) for topic in bankset.topics}


def _guard(handler):
    """Turn expected failures into one-line messages and exit codes."""

    def run(args: argparse.Namespace) -> int:
        import sqlite3

        from quizbank.progress.backup import BackupError
        from quizbank.progress.store import StoreError

        try:
            return handler(args)
        except StoreError as exc:
            _error(str(exc))
            return EXIT_FAILURE
        except BackupError as exc:
            _error(str(exc))
            return EXIT_BAD_INPUT
        except sqlite3.Error as exc:  # unexpected, but still one line, never a traceback
            first = str(exc).strip().splitlines()
            _error(f"progress store: {first[0] if first else type(exc).__name__}")
            return EXIT_FAILURE
        except BrokenPipeError:
            raise  # a closed reader (`| head`): `posenc` exits quietly, not "error: Broken pipe"
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            _error(f"{exc.strerror or exc}{':' if where else ''}{where}")
            return EXIT_FAILURE
        except (ValueError, OverflowError) as exc:  # a value an older posenc stored that no longer reads back
            first = str(exc).strip().splitlines()
            _error(f"progress store holds an unreadable value: {first[0] if first else type(exc).__name__}")
            return EXIT_FAILURE

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


def _read_backup(name: str) -> bytes:
    """The backup's bytes, refusing more than MAX_BACKUP_BYTES before reading it whole."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_BACKUP_BYTES + 1)
    else:
        with open(name, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_BACKUP_BYTES:
                raise _TooBig(info.st_size)
            data = handle.read(MAX_BACKUP_BYTES + 1)
    if len(data) > MAX_BACKUP_BYTES:
        raise _TooBig(len(data))
    return data


class _TooBig(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


# ---------------------------------------------------------------------------------------------------- progress


@_guard
def _cmd_export(args: argparse.Namespace) -> int:
    from quizbank.atomicio import write_text_atomic
    from quizbank.progress.backup import TABLE_KEYS, backup_json, export_backup

    with _open(args) as store:
        data = export_backup(store, include_settings=not args.no_settings)
    text = backup_json(data)
    if args.out in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text_atomic(args.out, text)
        from quizbank.safetext import escape_unsafe

        counts = ", ".join(f"{len(data[key])} {key.replace('_', ' ')}" for key in TABLE_KEYS)
        settings = "" if args.no_settings else f", {len(data['settings'])} settings"
        print(escape_unsafe(f"wrote {counts}{settings} to {args.out}", one_line=True), file=sys.stderr)
    return 0


@_guard
def _cmd_import(args: argparse.Namespace) -> int:
    from quizbank.progress.backup import decode_backup_json, parse_backup

    try:
        raw = _read_backup(args.file).decode("utf-8")
    except _TooBig as big:
        _error(
            f"{args.file} is {big.size / 2**20:.0f} MiB or more, over the {MAX_BACKUP_BYTES // 2**20} MiB "
            "limit for a backup"
        )
        return EXIT_BAD_INPUT
    except FileNotFoundError:
        _error(f"backup file not found: {args.file}")
        return EXIT_BAD_INPUT
    except UnicodeDecodeError:
        _error(f"{args.file} is not a UTF-8 text file (expected a JSON backup from 'posenc progress export')")
        return EXIT_BAD_INPUT
    except OSError as exc:
        _error(f"cannot read {args.file}: {exc.strerror or exc}")
        return EXIT_BAD_INPUT
    try:
        data = decode_backup_json(raw)
    except json.JSONDecodeError as exc:
        _error(f"{args.file} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
        return EXIT_BAD_INPUT
    except RecursionError:
        _error(f"{args.file}: JSON nested too deeply (a backup is at most 4 levels deep)")
        return EXIT_BAD_INPUT
    parsed = parse_backup(data)  # every record checked before the store is even opened
    if args.no_settings:
        parsed.settings = {}
    with _open(args) as store:
        report = store.merge_backup(parsed)
    extras = [
        (report.cards_added, "cards taken as they were"),
        (report.drill_attempts_added, "drill attempts"),
        (report.mock_sessions_added, "mock interviews"),
        (report.marks_changed, "flags/notes"),
        (report.id_migrations_added, "id migrations"),
        (report.typed_answers_added, "typed answers"),
        (report.own_cards_added, "own cards"),
        (report.settings_added, "settings"),
    ]
    print(
        f"imported {report.reviews_added} reviews ({report.reviews_skipped} already present), "
        f"{report.attempts_added} attempts; rebuilt {report.cards_rebuilt} cards"
        + "".join(f"; {n} {what}" for n, what in extras if n)
        + ("; the fitted FSRS parameters" if report.fitted_taken else "")
    )
    return 0


@_guard
def _cmd_orphans(args: argparse.Namespace) -> int:
    from quizbank.safetext import escape_json_unsafe, escape_unsafe

    bankset = _load_banks(args)
    with _open(args, bankset) as store:
        orphans = store.orphans(bankset.questions.keys())
    if args.json:
        print(
            escape_json_unsafe(
                json.dumps(
                    [
                        {
                            "question_id": o.question_id,
                            "reviews": o.reviews,
                            "attempts": o.attempts,
                            "last_activity": o.last_activity.isoformat() if o.last_activity else None,
                        }
                        for o in orphans
                    ],
                    indent=2,
                )
            )
        )
        return 0
    if not orphans:
        print("no orphaned progress: every question with history is in the loaded banks")
        return 0
    shown = {o.question_id: escape_unsafe(o.question_id, one_line=True) for o in orphans}
    width = max(len("question id"), *(len(text) for text in shown.values()))
    print(f"{'question id':<{width}}  reviews  attempts  last activity (UTC)")
    for o in orphans:
        last = o.last_activity.strftime("%Y-%m-%d %H:%M") if o.last_activity else "-"
        print(f"{shown[o.question_id]:<{width}}  {o.reviews:>7}  {o.attempts:>8}  {last}")
    print(
        f"{len(orphans)} orphaned question id(s): their history is kept; restore the id in a bank to resume"
    )
    return 0


@_guard
def _cmd_stats(args: argparse.Namespace) -> int:
    from quizbank.progress.stats import compute_stats, scheduler_line

    lang = cli_language(args)
    bankset = _load_banks(args)
    with _open(args, bankset) as store:
        stats = compute_stats(store, _topics(bankset))
    retention = "-" if stats.true_retention is None else f"{stats.true_retention:.1%}"
    print(
        say(
            "stats.reviews",
            lang,
            today=stats.reviewed_today,
            window=stats.reviews_in_window,
            days=stats.days,
            total=stats.reviews_total,
        )
    )
    print(say("stats.retention", lang, days=stats.days, retention=retention, n=stats.retention_reviews))
    print(say("stats.streak", lang, n=stats.streak_days))
    print(scheduler_line(stats.fitted, lang))
    print(say("stats.forecast", lang, counts=" ".join(str(d.count) for d in stats.due_forecast)))
    print(say("stats.mastery", lang))
    for topic in bankset.topics:
        progress = stats.mastery[topic.id]
        mastery = "-" if progress.mastery is None else f"{progress.mastery:.0%}"
        row = say(
            "stats.topic", lang, due=progress.due, new=progress.new, studied=progress.studied, mastery=mastery
        )
        print(f"  {topic.id:<28} {row}")
    if stats.leeches:
        from quizbank.safetext import escape_unsafe

        leeches = ", ".join(f"{lc.question_id} ({lc.lapses})" for lc in stats.leeches)
        print(escape_unsafe(say("stats.leeches", lang, leeches=leeches), one_line=True))
    return 0


def _figures(evaluation: Any) -> str:
    return (
        f"log loss {evaluation.log_loss:.4f}, RMSE {evaluation.rmse:.4f}, predicted retention "
        f"{evaluation.predicted_retention:.1%}, actual {evaluation.actual_retention:.1%}"
    )


@_guard
def _cmd_optimize(args: argparse.Namespace) -> int:
    """Fit FSRS-6 parameters to this store's reviews (quizbank/progress/optimize.py), keep them if they predict
    the history better than the defaults, and say what changed."""
    from quizbank.progress.optimize import MIN_REVIEWS, count_learnable, fit_parameters, review_logs

    with _open(args) as store:
        if args.reset:
            had = store.clear_fitted()
            if args.json:
                print(json.dumps({"reset": had, "in_use": "default"}))
            else:
                print(
                    "forgot the fitted FSRS parameters; " if had else "no fitted FSRS parameters were kept; ",
                    end="",
                )
                print("the scheduler uses fsrs's default parameters")
            return 0
        rows = store.review_rows()
        if not args.json:
            learnable = count_learnable(review_logs(rows))
            if learnable >= MIN_REVIEWS:
                print(f"posenc: fitting FSRS-6 to {len(rows):,} reviews with torch (a few seconds per 100)…",
                      file=sys.stderr, flush=True)  # fmt: skip
        report = fit_parameters(rows)
        if report.fitted:
            figures = {key: value for key, value in report.as_dict().items() if key != "parameters"}
            store.save_fitted(report.parameters, report.reviews, figures)
        in_use = store.fitted()
    if args.json:
        data = report.as_dict()
        data["in_use"] = "fitted" if in_use is not None else "default"
        print(json.dumps(data, indent=2))
        return 0
    print(
        f"reviews: {report.reviews:,} on {report.cards:,} cards; {report.learnable:,} a day or more after the "
        f"card's previous review (FSRS learns from those; it needs {report.minimum:,})"
    )
    if report.reason == "too_few":
        print(
            f"too few to fit: FSRS-6 needs at least {report.minimum:,} such reviews (py-fsrs's optimizer; Anki "
            "asks for 400); the scheduler keeps "
            + (
                "fsrs's default parameters"
                if in_use is None
                else f"the parameters fitted on {in_use.fitted_at:%Y-%m-%d}"
            )
        )
        if report.before is not None:
            print(f"defaults on this history: {_figures(report.before)}")
        return 0
    assert report.before is not None and report.after is not None
    print(f"{'':22}{'defaults':>10}{'fitted':>10}")
    for label, key, style in (
        ("log loss", "log_loss", "{:.4f}"),
        ("RMSE", "rmse", "{:.4f}"),
        ("predicted retention", "predicted_retention", "{:.1%}"),
        ("actual retention", "actual_retention", "{:.1%}"),
    ):
        before, after = getattr(report.before, key), getattr(report.after, key)
        print(f"{label:<22}{style.format(before):>10}{style.format(after):>10}")
    if report.fitted:
        print(
            f"fitted in {report.seconds:.1f} s; the scheduler uses the fitted parameters from the next review on "
            "('posenc progress optimize --reset' goes back to the defaults)"
        )
    else:
        print(
            "the fit does not predict this history better than the defaults; the scheduler keeps "
            + (
                "fsrs's default parameters"
                if in_use is None
                else f"the parameters fitted on {in_use.fitted_at:%Y-%m-%d}"
            )
        )
    return 0


KEYMAP_PREFIX = "keymap."


def _show_setting(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@_guard
def _cmd_config(args: argparse.Namespace) -> int:
    """List, show, set or reset settings (`keymap.<binding id>` addresses one key remap)."""
    from quizbank.progress.store import DEFAULT_SETTINGS, SETTING_HELP, parse_setting_text

    key: str | None = args.key
    if key is None and args.reset:
        _error("--reset needs a KEY (or 'all')")
        return EXIT_BAD_INPUT
    if key is not None and args.value is not None and args.reset:
        _error("give either a VALUE or --reset, not both")
        return EXIT_BAD_INPUT
    binding = key[len(KEYMAP_PREFIX) :] if key and key.startswith(KEYMAP_PREFIX) else None
    if key is not None and binding is None and key != "all" and key not in DEFAULT_SETTINGS:
        _error(f"unknown setting {key!r}; known: {', '.join(sorted(DEFAULT_SETTINGS))}, keymap.<binding id>")
        return EXIT_BAD_INPUT
    if key == "all" and not args.reset:
        _error("'all' only goes with --reset")
        return EXIT_BAD_INPUT
    if binding is not None and not binding.strip():
        _error("keymap.<binding id> needs a binding id, e.g. keymap.posenc.study.undo")
        return EXIT_BAD_INPUT

    # Parse the value before opening the store, so a typo never touches it.
    parsed: Any = None
    if key is not None and args.value is not None and binding is None:
        try:
            parsed = parse_setting_text(key, args.value)
        except ValueError as exc:
            _error(str(exc))
            return EXIT_BAD_INPUT
    if binding is not None and args.value is not None and not args.value.strip():
        _error(f"{key}: the keys must not be empty")
        return EXIT_BAD_INPUT
    if binding is not None and args.value is not None:
        from quizbank.progress.settings import validate_setting

        try:  # control characters would reach the footer raw: the importer's rule
            validate_setting("keymap", {binding: args.value.strip()})
        except ValueError as exc:
            _error(str(exc))
            return EXIT_BAD_INPUT
    known_ids = getattr(args, "binding_ids", None)
    if args.value is not None and known_ids is not None and (binding is not None or key == "keymap"):
        valid = list(known_ids())
        asked = [binding] if binding is not None else list(parsed or {})
        unknown = [b for b in asked if b not in valid]
        if unknown:
            names = ", ".join(repr(b) + _did_you_mean(b, valid) for b in unknown)
            _error(f"unknown binding id {names}; valid ids: {', '.join(valid)}")
            return EXIT_BAD_INPUT

    with _open(args) as store:
        stored = store.stored_settings()
        if key is None:  # list everything
            width = max(len(k) for k in DEFAULT_SETTINGS)
            for name in sorted(DEFAULT_SETTINGS):
                value = store.get_setting(name)
                origin = "" if name in stored else "  (default)"
                print(f"{name:<{width}}  {_show_setting(value)}{origin}")
                print(f"{'':<{width}}  {SETTING_HELP[name]}")
            print(f"store: {store.path}")
            return 0
        if args.reset:
            if key == "all":
                reset = [name for name in stored if name in DEFAULT_SETTINGS]
                for name in reset:
                    store.reset_setting(name)
                print(f"reset {len(reset)} setting(s) to the defaults")
            elif binding is not None:
                keymap = dict(store.get_setting("keymap") or {})
                if keymap.pop(binding, None) is None:
                    print(f"{key} was not remapped")
                else:
                    store.set_setting("keymap", keymap)
                    print(f"{key} reset to the default keys")
            else:
                existed = store.reset_setting(key)
                value = store.get_setting(key)
                print(f"{key} = {_show_setting(value)} (default{'' if existed else '; it was not set'})")
            _when_applied(key)
            return 0
        if args.value is None:  # show one
            if binding is not None:
                keys = (store.get_setting("keymap") or {}).get(binding)
                print(keys if keys is not None else f"{key} is not remapped (default keys)")
            else:
                print(_show_setting(store.get_setting(key)))
            return 0
        if binding is not None:
            if not binding.startswith("posenc."):
                print(
                    f"posenc: warning: {binding!r} is not a posenc binding id (they start with 'posenc.'; "
                    "press ? in the app to list them)",
                    file=sys.stderr,
                )
            keymap = dict(store.get_setting("keymap") or {})
            keymap[binding] = args.value.strip()
            store.set_setting("keymap", keymap)
            print(f"{key} = {_show_setting(keymap[binding])}")
        else:
            store.set_setting(key, parsed)
            print(f"{key} = {_show_setting(parsed)}")
    _when_applied(key)
    return 0


def _when_applied(key: str) -> None:
    if key in ("new_per_day", "desired_retention", "enable_fuzzing"):
        print("posenc: a running app uses it from the next Study session", file=sys.stderr)
    else:
        print("posenc: a running app picks it up when it next starts", file=sys.stderr)


def add_parser(
    subparsers: Any, binding_ids: Callable[[], Sequence[str]] | None = None
) -> argparse.ArgumentParser:
    """`posenc progress {export,import,orphans,stats,optimize,config}`. `binding_ids` lists the binding ids a
    keymap may remap (the app's, which this package cannot import); `config keymap.<id> KEYS` refuses
    any other id."""
    parser = subparsers.add_parser(
        "progress",
        help="back up, restore and inspect study progress",
        description="Study progress lives in progress.db in the data folder (--data-dir or POSENC_DATA_DIR).",
    )
    actions = parser.add_subparsers(dest="progress_command", metavar="ACTION", required=True)

    export = actions.add_parser(
        "export", help="write all progress as a JSON backup, format version 2 (stdout by default)"
    )
    export.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--no-settings", action="store_true", help="leave your settings out of the backup")
    export.set_defaults(func=_cmd_export)

    imp = actions.add_parser(
        "import", help="merge a JSON backup into the store (reviews already present are skipped)"
    )
    imp.add_argument(
        "file", metavar="FILE", help="backup written by 'posenc progress export' ('-' for stdin)"
    )
    imp.add_argument("--no-settings", action="store_true", help="keep this store's settings only")
    imp.set_defaults(func=_cmd_import)

    orphans = actions.add_parser("orphans", help="list question ids with history that no loaded bank has")
    orphans.add_argument("--json", action="store_true", help="print JSON")
    orphans.set_defaults(func=_cmd_orphans)

    stats = actions.add_parser("stats", help="print review counts, retention, streak, forecast and mastery")
    stats.set_defaults(func=_cmd_stats)

    optimize = actions.add_parser(
        "optimize",
        help="fit the FSRS-6 scheduler's parameters to your own reviews (needs 512 or more; uses torch)",
        description=(
            "Fit FSRS-6's 21 parameters to this store's review history with the fsrs package's optimizer and "
            "show how well the defaults and the fitted parameters predict it (log loss, RMSE, predicted and "
            "actual retention). The fitted parameters are kept (backups carry them) and schedule every review "
            "from then on. Below 512 reviews a day or more apart, the defaults stay."
        ),
    )
    optimize.add_argument("--json", action="store_true", help="print JSON")
    optimize.add_argument(
        "--reset", action="store_true", help="forget the fitted parameters (back to the defaults)"
    )
    optimize.set_defaults(func=_cmd_optimize)

    config = actions.add_parser(
        "config",
        help="show or change settings (new_per_day, desired_retention, language, keymap, enable_fuzzing)",
        description=(
            "Without KEY: list every setting with its value. With KEY: print it. With KEY VALUE: set it. "
            "Examples: 'posenc progress config new_per_day 10', 'posenc progress config desired_retention 0.85', "
            "'posenc progress config keymap.posenc.study.undo z', 'posenc progress config --reset new_per_day'."
        ),
    )
    config.add_argument("key", metavar="KEY", nargs="?", help="a setting name, or keymap.<binding id>")
    config.add_argument("value", metavar="VALUE", nargs="?", help="the new value")
    config.add_argument(
        "--reset",
        action="store_true",
        help="forget KEY (back to its default); KEY 'all' resets every setting",
    )
    config.set_defaults(func=_cmd_config, binding_ids=binding_ids)
    return parser


# ---------------------------------------------------------------------------------------------------- export


@_guard
def _cmd_export_anki(args: argparse.Namespace) -> int:
    from quizbank.exports.anki import write_anki
    from quizbank.safetext import escape_unsafe

    out = Path(args.out)
    if out.suffix.lower() != ".apkg":
        _error(f"{args.out}: the Anki package name must end in .apkg")
        return EXIT_BAD_INPUT
    if out.is_dir():
        _error(f"{args.out} is a folder; give a file name ending in .apkg")
        return EXIT_BAD_INPUT
    bankset = _load_banks(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    lang = cli_language(args)
    result = write_anki(bankset, out, lang=args.lang or lang)
    print(
        escape_unsafe(
            say("export.anki", lang, notes=result.notes, decks=result.decks, out=out), one_line=True
        )
    )
    return 0


@_guard
def _cmd_export_markdown(args: argparse.Namespace) -> int:
    from quizbank.exports.markdown import write_markdown
    from quizbank.safetext import escape_unsafe

    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        _error(f"{args.out_dir} exists and is not a folder")
        return EXIT_BAD_INPUT
    bankset = _load_banks(args)
    lang = cli_language(args)
    result = write_markdown(bankset, out, lang=args.lang or lang)
    line = say("export.markdown", lang, topics=len(result.files) - 1, questions=result.questions, out=out)
    print(escape_unsafe(line, one_line=True))
    return 0


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """`posenc export {anki,markdown}`: the loaded banks (shipped plus --bank) as an Anki deck or Markdown."""
    parser = subparsers.add_parser("export", help="export the question banks to Anki or Markdown")
    kinds = parser.add_subparsers(dest="export_kind", metavar="FORMAT", required=True)

    anki = kinds.add_parser("anki", help="write an Anki package (.apkg): one note per question")
    anki.add_argument("out", metavar="OUT.apkg", help="package file to write")
    anki.add_argument(
        "--lang", choices=LANG_CHOICES, help="card language (default: posenc --lang, else the app's language)"
    )
    anki.set_defaults(func=_cmd_export_anki)

    markdown = kinds.add_parser("markdown", help="write one Markdown file per topic, plus README.md")
    markdown.add_argument("out_dir", metavar="OUT_DIR", help="folder to write (created if missing)")
    markdown.add_argument(
        "--lang", choices=LANG_CHOICES, help="text language (default: posenc --lang, else the app's language)"
    )
    markdown.set_defaults(func=_cmd_export_markdown)
    return parser
