"""`posenc mock ...`: plan a mock interview, export a report, list past interviews.

    posenc mock plan [--minutes N] [--topics T,...] [--level basic|standard|deep] [--seed S] [--json]
    posenc mock report [--last | ID] [--out FILE] [--lang en|zh]
    posenc mock history [--json]

Exit status: 0 done; 1 the banks hold too little for the request, or no interview is saved yet; 2 bad usage
(an unknown topic or level, minutes out of 5-180, an unknown interview id): one line on stderr.
The interviews themselves run in the app (`m` on Home).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "load_drills"]

EXIT_FAILURE = 1
EXIT_USAGE = 2


def _error(message: str) -> None:
    from quizbank.safetext import clip_long_runs, escape_unsafe

    print(f"posenc mock: {escape_unsafe(clip_long_runs(message), one_line=True)}", file=sys.stderr)


def load_drills() -> list[Any]:
    """The drills catalogue, or [] while `quizbank.drills` is unavailable (plans then hold no coding item)."""
    try:
        from quizbank.drills import drills
    except ImportError:
        return []
    return list(drills())


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    mock = subparsers.add_parser(
        "mock",
        help="plan mock interviews, export their reports, list past interviews",
        description="Mock interviews: run them in the app (m on Home); plan, report and history here.",
    )
    actions = mock.add_subparsers(dest="mock_command", metavar="ACTION")

    plan = actions.add_parser(
        "plan",
        help="plan an interview: questions, a coding drill, follow-ups and time budgets",
        description="Plan an interview. Without --seed the plan leans towards your weak and unseen material.",
    )
    plan.add_argument("--minutes", default="45", metavar="N", help="length in minutes, 5 to 180 (default 45)")
    plan.add_argument("--topics", metavar="T,...", help="comma-separated topic ids (default: every topic)")
    plan.add_argument(
        "--level", default="standard", metavar="LEVEL", help="basic, standard (default) or deep"
    )
    plan.add_argument("--seed", metavar="S", help="a whole number: the same seed gives the same plan")
    plan.add_argument("--json", action="store_true", help="print JSON")
    plan.set_defaults(func=cmd_plan)

    report = actions.add_parser(
        "report",
        help="print or write an interview's report as Markdown",
        description="The report of a saved interview as Markdown (the last one by default).",
    )
    report.add_argument("session", nargs="?", metavar="ID", help="interview id (or a unique prefix)")
    report.add_argument("--last", action="store_true", help="the most recent interview (the default)")
    report.add_argument("--out", metavar="FILE", help="write the Markdown to FILE (atomically)")
    report.add_argument("--lang", choices=("en", "zh"), help="report language (default: the interview's)")
    report.set_defaults(func=cmd_report)

    history = actions.add_parser("history", help="list past interviews", description="Every saved interview.")
    history.add_argument("--json", action="store_true", help="print JSON")
    history.set_defaults(func=cmd_history)

    def no_action(args: argparse.Namespace) -> int:
        mock.print_help(sys.stderr)
        return EXIT_USAGE

    mock.set_defaults(func=no_action)
    return mock


def _open_store(args: argparse.Namespace) -> Any:
    from quizbank.progress.store import open_store

    store = open_store(getattr(args, "data_dir", None))
    for notice in store.notices:
        print(f"posenc: {notice}", file=sys.stderr)
    return store


def parse_whole(raw: str, what: str, low: int | None = None, high: int | None = None) -> int:
    """A whole number typed as option `what`; ValueError with one line (the value cut) for anything else."""
    from quizbank.safetext import shorten

    text = str(raw).strip()
    if len(text) > 30 or not text.lstrip("+-").isdigit() or not text.isascii():
        raise ValueError(f"{what} must be a whole number (got {shorten(raw)})")
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what} must be in {low}..{high}, got {value}")
    return value


def _whole(raw: str, what: str, low: int | None = None, high: int | None = None) -> int | None:
    try:
        return parse_whole(raw, what, low, high)
    except ValueError as exc:
        _error(str(exc))
        return None


def cmd_plan(args: argparse.Namespace) -> int:
    from quizbank.loader import load_banks
    from quizbank.progress.store import StoreError

    from .planner import BankTooSmallError, PlanError, check_request, plan_interview, weights_from_store

    minutes = _whole(args.minutes, "--minutes")
    if minutes is None:
        return EXIT_USAGE
    seed = None
    if args.seed is not None:
        from quizbank.generated.instances import MAX_SEED

        seed = _whole(args.seed, "--seed", 0, MAX_SEED)  # as `posenc bank sample --seed`
        if seed is None:
            return EXIT_USAGE
    topics = [t.strip() for t in (args.topics or "").split(",") if t.strip()] or None
    bankset = load_banks(list(getattr(args, "bank", None) or []))
    drills = load_drills()
    try:
        chosen = check_request(bankset, minutes, topics, args.level)
    except BankTooSmallError as exc:
        _error(str(exc))
        return EXIT_FAILURE
    except PlanError as exc:
        _error(str(exc))
        return EXIT_USAGE
    weights = None
    if seed is None:
        try:
            with _open_store(args) as store:
                entries = [bankset.topic(topic) for topic in chosen]
                ids = [qid for entry in entries if entry is not None for qid in entry.question_ids]
                weights = weights_from_store(store, ids, [d.name for d in drills])
        except StoreError as exc:
            print(f"posenc mock: note: progress not used ({exc})", file=sys.stderr)
    try:
        plan = plan_interview(
            bankset, drills, minutes=minutes, topics=topics, level=args.level, seed=seed, weights=weights
        )
    except BankTooSmallError as exc:
        _error(str(exc))
        return EXIT_FAILURE
    except PlanError as exc:
        _error(str(exc))
        return EXIT_USAGE
    if args.json:
        print(json.dumps(plan.to_json(), ensure_ascii=False, indent=2))
        return 0
    print(f"{plan.minutes}-minute interview, level {plan.level}, seed {plan.seed}, {len(plan.items)} items")
    for n, item in enumerate(plan.items, 1):
        follow = f"  (follow-up of {item.follow_up_of})" if item.follow_up_of else ""
        print(f"{n:>3}. {item.minutes:>5.1f} min  {item.skill:<11} {item.topic:<18} {item.id}{follow}")
    return 0


def _find_report(reports: list[dict[str, Any]], wanted: str | None) -> dict[str, Any] | str:
    """The report with id (or unique id prefix) `wanted`, the last one for None; else an error line."""
    if not reports:
        return "no mock interview saved yet; run one in the app (m on Home)"
    if wanted is None:
        return reports[-1]
    exact = [r for r in reports if r.get("id") == wanted]
    if exact:
        return exact[0]
    prefixed = [r for r in reports if str(r.get("id", "")).startswith(wanted)]
    if len(prefixed) == 1:
        return prefixed[0]
    known = ", ".join(str(r.get("id")) for r in reports[-5:])
    if prefixed:
        return f"interview id {wanted!r} is ambiguous; recent ids: {known}"
    return f"no interview with id {wanted!r}; recent ids: {known} (posenc mock history lists all)"


def cmd_report(args: argparse.Namespace) -> int:
    from quizbank.atomicio import write_text_atomic
    from quizbank.progress.store import StoreError

    from .report import render_markdown

    if args.last and args.session:
        _error("give an interview ID or --last, not both")
        return EXIT_USAGE
    try:
        with _open_store(args) as store:
            reports = store.mock_sessions()
    except StoreError as exc:
        _error(str(exc))
        return EXIT_FAILURE
    found = _find_report(reports, args.session)
    if isinstance(found, str):
        _error(found)
        return EXIT_FAILURE if not reports else EXIT_USAGE
    text = render_markdown(found, args.lang or found.get("language", "en"))
    if args.out in (None, "-"):
        sys.stdout.write(text)
        return 0
    try:
        written = write_text_atomic(Path(args.out).expanduser(), text)
    except OSError as exc:
        _error(f"cannot write {args.out}: {exc.strerror or exc}")
        return EXIT_FAILURE
    print(f"wrote the report of {found['id']} to {written}", file=sys.stderr)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from quizbank.progress.store import StoreError

    from .report import history_entry

    try:
        with _open_store(args) as store:
            reports = store.mock_sessions()
    except StoreError as exc:
        _error(str(exc))
        return EXIT_FAILURE
    sessions = [history_entry(r) for r in reports]
    if args.json:
        print(json.dumps({"sessions": sessions}, ensure_ascii=False, indent=2))
        return 0
    if not sessions:
        print("no mock interview saved yet; run one in the app (m on Home)")
        return 0
    print(f"{'id':<24} {'started (UTC)':<17} {'min':>4} {'level':<9} {'score':>6}  items")
    for s in sessions:
        score = "-" if s["score"] is None else f"{round(100 * s['score'])}%"
        early = "  ended early" if s["ended_early"] else ""
        when = s["started_at"][:16].replace("T", " ")
        print(
            f"{s['id']:<24} {when:<17} {s['minutes']:>4} {s['level']:<9} {score:>6}  {len(s['items'])}{early}"
        )
    return 0
