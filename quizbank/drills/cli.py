"""`posenc drill ...`: list, show, start, check and reveal coding drills.

    posenc drill list [--json]
    posenc drill show NAME [--lang en|zh]
    posenc drill start NAME [--dir DIR]
    posenc drill check NAME FILE [--json] [--timeout S]
    posenc drill solution NAME

Exit status: 0 done (for `check`: every case passed); 1 `check` found a failing case, or the file does
not import, lacks the function, raises, hangs or exits; 2 usage errors only (an unknown drill, with the
valid names; an unreadable file, one that is not a regular file or is over 256 KiB; a --timeout outside
(0, 600] seconds; a bad $POSENC_DRILL_MEMORY_MIB; running code turned off by POSENC_CODE_OFF=1). SIGTERM or Ctrl+C during `check` stops the
grade and kills every process it started (exit 143 or 130).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizbank.cli_text import LANGS, cli_language, say, terminal_markdown
from quizbank.safetext import clip_long_runs, escape_unsafe

EXIT_FAILED = 1
EXIT_USAGE = 2


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    drill = subparsers.add_parser(
        "drill",
        help="coding drills: implement it yourself, graded against posenc_ref",
        description="Coding drills: write the function, then `check` grades it in an isolated child process.",
    )
    actions = drill.add_subparsers(dest="drill_command", metavar="ACTION")

    listing = actions.add_parser("list", help="list the drills", description="List every drill.")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=cmd_list)

    show = actions.add_parser(
        "show", help="print a drill's statement", description="Print a drill's statement."
    )
    show.add_argument("name", metavar="NAME")
    show.add_argument(
        "--lang", choices=LANGS, help="language (default: posenc --lang, else the app's language setting)"
    )
    show.set_defaults(func=cmd_show)

    start = actions.add_parser(
        "start",
        help="write the starter file (never overwrites) and print its path",
        description="Write NAME.py with the signature and docstring; an existing file is kept as it is.",
    )
    start.add_argument("name", metavar="NAME")
    start.add_argument("--dir", metavar="DIR", help="folder (default: the drills folder in the data folder)")
    start.set_defaults(func=cmd_start)

    check = actions.add_parser(
        "check",
        help="grade FILE against posenc_ref",
        description="Import FILE in an isolated child process and grade its function case by case.",
    )
    check.add_argument("name", metavar="NAME")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--json", action="store_true", help="print JSON")
    check.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="time limit in seconds, more than 0 and at most 600 (default 10)",
    )
    check.set_defaults(func=cmd_check)

    solution = actions.add_parser(
        "solution", help="print a model solution", description="Print a model solution."
    )
    solution.add_argument("name", metavar="NAME")
    solution.set_defaults(func=cmd_solution)

    def no_action(args: argparse.Namespace) -> int:
        drill.print_help(sys.stderr)
        return EXIT_USAGE

    drill.set_defaults(func=no_action)
    return drill


def _err(message: str) -> None:
    print(f"posenc drill: {escape_unsafe(clip_long_runs(message), one_line=True)}", file=sys.stderr)


def _drill_or_none(name: str) -> Any:
    from .catalogue import DRILL_NAMES, get_drill

    if name in DRILL_NAMES:
        return get_drill(name)
    import difflib

    close = difflib.get_close_matches(name, DRILL_NAMES, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    _err(f"unknown drill {name!r}{hint}; the drills are {', '.join(DRILL_NAMES)}")
    return None


def _data_dir(args: argparse.Namespace) -> Path:
    from quizbank.progress.store import default_data_dir

    given = getattr(args, "data_dir", None)
    return Path(given).expanduser() if given else default_data_dir()


def workspace_path(data_dir: Path, name: str) -> Path:
    """Where the app and `start` keep a drill's file: `<data dir>/drills/NAME.py`."""
    return Path(data_dir) / "drills" / f"{name}.py"


def _prepare_stdout() -> None:
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):  # pragma: no cover - exotic streams
            pass


def _difficulty(drill: Any, lang: str) -> str:
    return say(f"drill.difficulty.{drill.difficulty}", lang)


def cmd_list(args: argparse.Namespace) -> int:
    from .catalogue import drills

    _prepare_stdout()
    lang = cli_language(args)
    items = drills()
    if args.json:
        rows = [
            {
                "name": d.name,
                "topic": d.topic,
                "difficulty": d.difficulty,
                "function": d.function,
                "minutes": d.minutes,
                "title": d.title,
            }
            for d in items
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    width = max(len(d.name) for d in items)
    topic_width = max(len(d.topic) for d in items)
    level_width = max(len(_difficulty(d, "en")) for d in items) if lang == "en" else 4  # 2 CJK characters
    for d in items:
        level = _difficulty(d, lang)
        level += " " * max(0, level_width - (len(level) * (2 if lang == "zh" else 1)))
        minutes = say("drill.minutes", lang, n=f"{d.minutes:>2}")
        print(f"{d.name:<{width}}  {d.topic:<{topic_width}}  {level}  {minutes}  {d.text('title', lang)}")
    print("\n" + say("drill.listed", lang, n=len(items)))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    drill = _drill_or_none(args.name)
    if drill is None:
        return EXIT_USAGE
    _prepare_stdout()
    lang = cli_language(args)
    about = f"{drill.name} · {drill.topic} · {_difficulty(drill, lang)} · {say('drill.minutes', lang, n=drill.minutes)}"
    print(f"{drill.text('title', lang)}  [{about}]\n")
    print(terminal_markdown(drill.text("statement", lang)))  # no raw **emphasis** on a terminal
    print("\n" + say("drill.next", lang, name=drill.name))
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    from quizbank.atomicio import write_text_atomic

    drill = _drill_or_none(args.name)
    if drill is None:
        return EXIT_USAGE
    folder = Path(args.dir).expanduser() if args.dir else _data_dir(args) / "drills"
    target = folder / f"{drill.name}.py"
    if target.exists():
        print(escape_unsafe(str(target), one_line=True))
        print("(kept: the file already exists and was not overwritten)", file=sys.stderr)
        return 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, drill.starter)
    except OSError as exc:
        _err(f"cannot write {target}: {exc.strerror or exc}")
        return EXIT_USAGE
    print(escape_unsafe(str(target), one_line=True))
    return 0


def _mark(passed: bool) -> str:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    if encoding.startswith("utf"):
        return "✓" if passed else "✗"
    return "ok  " if passed else "FAIL"


def format_report(report: Any) -> str:
    lines = [
        f"{report.drill}: {report.cases_passed}/{len(report.cases)} cases passed "
        f"({report.elapsed_ms / 1000:.2f} s){'' if report.passed else ' - not yet'}"
    ]
    common = report.common_diagnosis
    if common:
        failing = len(report.cases) - report.cases_passed
        lines.append(f"  Likely mistake (all {failing} failing cases): {common}.")
    for case in report.cases:
        lines.append(f"  {_mark(case.passed)} {case.name}  ({case.elapsed_ms:.1f} ms)")
        message = case.message_without(common) if common and not case.passed else case.message
        if message:
            lines.append(f"      {message}")
    if report.output:
        lines.append("")
        lines.append("Output of your program:")
        lines.append(report.output)
    return "\n".join(lines)


def cmd_check(args: argparse.Namespace) -> int:
    drill = _drill_or_none(args.name)
    if drill is None:
        return EXIT_USAGE
    from .codeoff import CodeOff, refuse_when_off
    from .limits import check_timeout, memory_limit_bytes
    from .loading import precheck, read_source
    from .model import CaseResult, DrillReport

    try:
        check_timeout(args.timeout)
        memory_limit_bytes()
        refuse_when_off()
    except (ValueError, CodeOff) as exc:
        _err(str(exc))
        return EXIT_USAGE
    path = Path(args.file).expanduser()
    try:
        started = time.perf_counter()
        problem = precheck(read_source(path), str(path.resolve()), drill.function)
        if problem:  # reported before the grader, torch or any child is even imported
            ms = (time.perf_counter() - started) * 1000
            report = DrillReport(drill.name, False, (CaseResult("load", False, problem, 0.0),), ms)
        else:
            from .grader import grade_file

            with _terminate_as_interrupt():
                report = grade_file(drill.name, path, timeout_s=args.timeout)
    except OSError as exc:
        _err(f"cannot read {args.file}: {exc.strerror or exc}")
        return EXIT_USAGE
    except _Terminated:
        _err("stopped (SIGTERM); the grade's processes were killed")
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        _err("interrupted; the grade's processes were killed")
        return 130
    _prepare_stdout()
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(format_report(report))
    return 0 if report.passed else EXIT_FAILED


class _Terminated(BaseException):
    """SIGTERM arrived during a grade: unwinds like Ctrl+C so the grade's `finally` stops its processes."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the cleanup short
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_solution(args: argparse.Namespace) -> int:
    drill = _drill_or_none(args.name)
    if drill is None:
        return EXIT_USAGE
    _prepare_stdout()
    print(drill.solution, end="")
    return 0
